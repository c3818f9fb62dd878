"""The types one diagnosis run shares with every node: checkpointed state and the live run context."""
