"""Side-by-side benchmark of the harness against LangChain's ``create_agent`` (not a test).

Run from the repository root: ``.venv/bin/python -m benchmarks.compare`` (needs the ``bench``
extra). ``workload`` is the scripted investigation both sides replay, ``harness_side`` the one
module that drives the harness, ``peer_side`` the peer, ``report`` the fits and the table.
"""
