"""The classified failure of a model call, shared by every provider and the seam.

Apart from :mod:`diagnosis_harness.providers.replay` so that a run on another provider (the
offline model, OpenAI) does not build the replay chat model's class just to name this error.
"""

from __future__ import annotations

from diagnosis_harness.control.contracts import FailureClass


class ModelCallError(Exception):
    """A model call failed in a classified way (timeout, transport, invalid output)."""

    def __init__(self, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.failure_class = failure_class
