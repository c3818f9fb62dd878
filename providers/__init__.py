"""Model providers behind one seam: OpenAI-compatible chat models, replay, the offline investigator.

The json agent protocol is a wrapper around any of them (``json_protocol``).
"""
