"""Which model a spec names: ``offline``, ``openai:NAME``, ``replay:FILE`` (``HARNESS_MODEL``).

The run's model and a separate judge's (``HARNESS_JUDGE_MODEL``, with its own server, key and
context window) are parsed here; a spec that cannot build a model is a :class:`ModelSpecError`
whose message says what to fix. The seam that builds them is :mod:`diagnosis_harness.providers.seam`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from diagnosis_harness.control.settings import Settings

Provider = Literal["offline", "openai", "replay"]


class ModelSpecError(ValueError):
    """The model spec or its configuration cannot build a model; the message says what to fix."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``HARNESS_MODEL`` value."""

    provider: Provider
    name: str

    def __str__(self) -> str:
        return self.provider if self.provider == "offline" else f"{self.provider}:{self.name}"


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse ``offline``, ``openai:NAME`` or ``replay:FILE``; anything else is a ModelSpecError."""
    text = spec.strip()
    if text == "offline":
        return ModelSpec("offline", "")
    provider, sep, name = text.partition(":")
    if sep and provider in ("openai", "replay") and name.strip():
        return ModelSpec(provider, name.strip())  # type: ignore[arg-type]
    raise ModelSpecError(
        f"unknown model spec {spec!r}: use 'offline', 'openai:MODEL_NAME' or 'replay:FILE'"
    )


def judge_settings(settings: Settings) -> Settings | None:
    """The settings a separate judge is built from (None without ``HARNESS_JUDGE_MODEL``).

    Its own model, server, key and context window; every other setting (timeouts, attempts,
    structured output) is the run's.
    """
    if settings.judge_model is None:
        return None
    return settings.model_copy(update={
        "model": settings.judge_model, "judge_model": None,
        "openai_base_url": settings.judge_base_url or settings.openai_base_url,
        "openai_api_key": settings.judge_api_key or settings.openai_api_key,
        "model_context_tokens": settings.judge_context_tokens})


def judge_spec(settings: Settings) -> ModelSpec | None:
    """The parsed ``HARNESS_JUDGE_MODEL`` (None: unset); a bad one is a ModelSpecError naming it."""
    if settings.judge_model is None:
        return None
    try:
        return parse_model_spec(settings.judge_model)
    except ModelSpecError as exc:
        raise ModelSpecError(f"HARNESS_JUDGE_MODEL: {exc}") from None
