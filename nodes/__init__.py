"""The nodes of the state machine, one per file; `_*.py` are helpers private to the nodes."""
