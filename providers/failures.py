"""Failure classes of model calls: what the retry executor reads of an exception (docs/design.md §6).

A model client's exception (the replay script's, OpenAI's, httpx's, a parser's) is mapped to
one :class:`~diagnosis_harness.control.contracts.FailureClass`; only the retryable classes are
ever tried again. Client libraries are consulted only if already imported (no start-up cost).
"""

from __future__ import annotations

import sys

from diagnosis_harness.control.contracts import FailureClass
from diagnosis_harness.providers.errors import ModelCallError


def classify_exception(exc: BaseException) -> FailureClass:
    """Map an exception from a model client to the failure class the retry executor uses."""
    if isinstance(exc, ModelCallError):
        return exc.failure_class
    if isinstance(exc, TimeoutError):
        return FailureClass.TIMEOUT
    if "openai" in sys.modules:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return FailureClass.TIMEOUT
        if isinstance(exc, openai.APIConnectionError):
            return FailureClass.TRANSPORT
        if isinstance(exc, openai.BadRequestError) and (
                getattr(exc, "code", None) == "context_length_exceeded"
                or "maximum context length" in str(exc).lower()):
            return FailureClass.BUDGET_EXHAUSTED  # the model's context is spent: never retried
        if isinstance(exc, openai.APIStatusError):
            # 429 and 5xx are the server's trouble, worth another attempt; 4xx are ours.
            status = exc.status_code
            return FailureClass.TRANSPORT if status == 429 or status >= 500 else FailureClass.UNKNOWN
        if isinstance(exc, openai.APIResponseValidationError | openai.LengthFinishReasonError |
                      openai.ContentFilterFinishReasonError):
            return FailureClass.INVALID_OUTPUT  # the model answered, but not usably
    if "httpx" in sys.modules:
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return FailureClass.TIMEOUT
        if isinstance(exc, httpx.TransportError):
            return FailureClass.TRANSPORT
    if "langchain_core" in sys.modules:
        from langchain_core.exceptions import OutputParserException

        if isinstance(exc, OutputParserException):
            return FailureClass.INVALID_OUTPUT
    return FailureClass.UNKNOWN
