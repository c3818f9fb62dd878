"""The checkpointers (SQLite, PostgreSQL) and the pruning of their threads."""
