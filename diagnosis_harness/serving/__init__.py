"""Serving: what ``langgraph.json`` loads for ``langgraph dev``, the SDK and Studio."""
