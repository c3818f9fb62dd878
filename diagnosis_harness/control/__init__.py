"""Run control, the bottom layer: contracts, settings, lifecycle, budgets, retry, events.

Imports no other package of the project.
"""
