"""The types one run shares with every node: checkpointed state, the run context, tool records."""
