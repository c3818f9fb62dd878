"""Model providers behind one seam: OpenAI-compatible chat models, replay, the offline investigator."""
