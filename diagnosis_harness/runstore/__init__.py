"""The run store on SQLAlchemy Core (SQLite or PostgreSQL).

Run rows, trace, events, lineage, leases, and settling a run that ended without release.
"""
