"""Running a turn: the runner, the services a process shares, which run a stream runs, its end."""
