"""Verdict logic: draft parsing, the evidence and semantic guards, the progress snapshot."""
