"""Run control, the bottom layer: contracts, settings, lifecycle, budgets, retry, events, run store.

Everything above uses these; nothing here imports any other package of the project.
"""
