"""Run control for the diagnosis harness: contracts, settings, lifecycle, budgets, retry, models.

Every node of the graph uses these; nothing here imports the graph wiring.
"""
