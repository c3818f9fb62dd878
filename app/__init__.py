"""Entry points, the top layer: the CLI, the runner, the serving adapter and services wiring."""
