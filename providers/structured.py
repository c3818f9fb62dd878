"""Schema-constrained answers (``HARNESS_STRUCTURED_OUTPUT``): what each role asks a server for.

A constraint helps a model write a well-formed answer; it is never a reason to trust one. Every
answer is still parsed and guarded exactly as without it (:mod:`diagnosis_harness.guards.parsing`,
:mod:`diagnosis_harness.guards.envelope`, the tool gate, the evidence and semantic guards).

Modes, as sent in ``response_format``:

- ``json_schema``: ``{"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}``
  (OpenAI, vLLM, Ollama);
- ``json_object_schema``: ``{"type": "json_object", "schema": ...}`` (llama.cpp's servers, which
  refuse ``json_schema`` but decode under the schema's grammar);
- ``json_object``: plain JSON mode, no schema (``off``; what the harness always sent before);
- ``none``: no ``response_format`` at all (a server that refuses even JSON mode).

``auto`` probes the server once per process, when the model seam is built — before and outside
any run, so no run's budget or trace holds the probe: a one-token request per candidate, in the
order above, with its own timeout. A server that answers 400/422/500/501 about the format to a
candidate refuses it; anything else (a transport error, 401, 404, 429, 503, a 400 about another
parameter) makes the probe inconclusive, and the harness keeps plain JSON mode.

The schemas themselves, and the ``response_format`` of each mode, are
:mod:`diagnosis_harness.providers.schemas` (importable from here too).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers.schemas import (
    ANSWER_MODELS,
    GRAMMAR_MAX_CHARS,
    GRAMMAR_MAX_ITEMS,
    SQL_GRAMMAR,
    STATEMENT_GRAMMAR,
    STATEMENT_KEYS,
    Mode,
    answer_schema,
    bounded,
    closed,
    draft_schema,
    envelope_schema,
    nullable,
    one_of,
    progress_schema,
    response_format,
    strict_schema,
)

__all__ = [
    "ANSWER_MODELS", "GRAMMAR_MAX_CHARS", "GRAMMAR_MAX_ITEMS", "PROBE_ORDER", "REFUSED_STATUSES",
    "SQL_GRAMMAR", "STATEMENT_GRAMMAR", "STATEMENT_KEYS", "Detection", "Mode", "answer_schema",
    "bounded", "closed", "describe", "detected", "draft_schema", "envelope_schema", "nullable",
    "one_of", "probe", "progress_schema", "resolve", "response_format", "strict_schema",
]

PROBE_ORDER: tuple[Mode, ...] = ("json_schema", "json_object_schema", "json_object")
REFUSED_STATUSES = frozenset({400, 422, 500, 501})
"""HTTP statuses that mean "this response_format is not accepted" (llama.cpp answers 500)."""
# --- detection ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Detection:
    """What the harness sends to this server, and how it came to that."""

    mode: Mode
    detail: str


_PROBE_SCHEMA = closed(ok={"type": "boolean"})
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|schema", re.I)
_detected: dict[tuple[str, str], Detection] = {}
_lock = threading.Lock()
_SET: dict[str, Mode] = {"json_schema": "json_schema", "json_object_schema": "json_object_schema",
                         "off": "json_object"}


def detected(settings: Settings, model: str) -> Detection | None:
    """The process's detection for the server and model of ``settings`` (None: not probed)."""
    return _detected.get((settings.openai_base_url or "", model))


def resolve(settings: Settings, model: str) -> Detection:
    """The mode to use: the setting's, or (``auto``) the server's, probed once per process."""
    if settings.structured_output != "auto":
        return Detection(_SET[settings.structured_output], "set")
    key = (settings.openai_base_url or "", model)
    with _lock:  # one probe per server and model, whoever asks first
        if key not in _detected:
            _detected[key] = probe(settings, model)
        return _detected[key]


def probe(settings: Settings, model: str) -> Detection:
    """Ask the server which ``response_format`` it accepts (synchronous; outside any run)."""
    import httpx

    url = (settings.openai_base_url or "https://api.openai.com/v1").rstrip("/")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    refused: list[str] = []
    with httpx.Client(timeout=settings.structured_probe_timeout_s) as client:
        for mode in PROBE_ORDER:
            body = {"model": model, "max_tokens": 1, "temperature": 0,
                    "messages": [{"role": "user", "content": 'Answer {"ok": true}'}],
                    "response_format": response_format(mode, "probe", _PROBE_SCHEMA)}
            try:
                reply = client.post(f"{url}/chat/completions", json=body,
                                    headers={"Authorization": f"Bearer {key}"})
            except httpx.HTTPError as exc:
                return Detection("json_object", f"probe inconclusive ({type(exc).__name__}); "
                                 "plain JSON mode")
            status = reply.status_code
            if status < 300:
                why = f" ({', '.join(refused)})" if refused else ""
                return Detection(mode, f"detected{why}")
            # Only a refusal that is about the format counts (not, say, an unknown parameter).
            if status not in REFUSED_STATUSES or not _FORMAT_WORDS.search(reply.text):
                return Detection("json_object", f"probe inconclusive (HTTP {status}); "
                                 "plain JSON mode")
            refused.append(f"{mode} refused: HTTP {status}")
    return Detection("none", f"detected ({', '.join(refused)})")


def describe(settings: Settings, model: str | None, *, probe_now: bool = False) -> str:
    """One line for ``harness config``: the mode in use and where it came from.

    With ``probe_now`` an ``auto`` setting is probed here (``harness config`` does: it is where
    a user checks a server), else a process that has not built a seam says "not yet probed".
    """
    if model is None:
        return "n/a (not an openai: model)"
    if settings.structured_output != "auto":
        return f"{_SET[settings.structured_output]} (set)"
    found = resolve(settings, model) if probe_now else detected(settings, model)
    if found is None:
        return "auto: not yet probed (probed once per process, before the first run)"
    return f"{found.mode} ({found.detail})"
