"""Redaction of known secrets from every text the harness stores, emits or prints.

Which settings are secret is derived from the settings class by naming rule, so a setting added
later (``HARNESS_ALERTS_TOKEN``, ``HARNESS_SLACK_WEBHOOK_URL``…) is covered without anyone
updating a list: a field named ``*_key``, ``*_token``, ``*_secret``, ``*password*`` or
``*webhook*`` is secret as a whole, and a field named ``*_url`` holds a secret in its
credentials (``scheme://user:PASSWORD@host``). Every :class:`~diagnosis_harness.control.settings.Settings`
built in this process registers its secret values here (:func:`remember`), and the chokepoints
call :func:`redact`: the run store's text and JSON normalisation
(:mod:`diagnosis_harness.runstore.values`), the event emitter, the model-call failure text
and ``harness config``. Independently of the registry, anything shaped like URL credentials or
an ``Authorization: Bearer …`` value is masked too (a key that came from somewhere else).
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, overload
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, SecretStr

MASK = "***"
_SECRET_NAME = re.compile(r"(^|_)(key|token|secret)$|password|passwd|webhook|credential",
                          re.IGNORECASE)
_URL_NAME = re.compile(r"(^|_)(url|uri|dsn)$", re.IGNORECASE)
_URL_CREDENTIALS = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@\"']*:)([^\s@/\"']+)@")
_BEARER = re.compile(r"\b(Bearer|Basic)(\s+)(?=\S*\d)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
"""A credential after ``Bearer``/``Basic``: 8+ token characters with a digit (not a word)."""
_BEARER_WORD = re.compile(r"bearer|basic", re.IGNORECASE)
"""What every :data:`_BEARER` match starts with, under the same case rules: a text without it
is not scanned by the whole pattern (~4x the time, on every text the store writes)."""
_MIN_SECRET = 8
"""Shorter values are placeholders (``local``, ``ollama``, ``none`` for a local server) or too
short to find safely: replacing them as plain text would mask ordinary words in reports and
model specs (``openai:local``). Their URL and bearer forms are still masked by shape, and
``harness config`` masks every secret field whatever its length."""

_known: set[str] = set()
_lock = threading.Lock()


def is_secret_name(name: str) -> bool:
    """True for a setting whose whole value is a secret (a key, token, password, webhook)."""
    return bool(_SECRET_NAME.search(name))


def secret_field_names(settings_class: type[BaseModel]) -> set[str]:
    """The fields of ``settings_class`` whose value is, or contains, a secret."""
    return {name for name, field in settings_class.model_fields.items()
            if is_secret_name(name) or _URL_NAME.search(name) or field.annotation is SecretStr
            or "SecretStr" in str(field.annotation)}


def secrets_of(settings: BaseModel) -> set[str]:
    """The secret values one settings object holds (keys, URL passwords, whole webhook URLs)."""
    found: set[str] = set()
    for name in secret_field_names(type(settings)):
        value = getattr(settings, name, None)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if not isinstance(value, str) or not value:
            continue
        if is_secret_name(name) or not _URL_NAME.search(name):
            found.add(value)
        found |= _url_passwords(value)
    return {s for s in found if len(s) >= _MIN_SECRET}


def _url_passwords(value: str) -> set[str]:
    try:
        password = urlsplit(value).password
    except ValueError:
        return set()
    return {password, unquote(password)} if password else set()


def remember(settings: BaseModel) -> None:
    """Register the secrets of ``settings`` for every later :func:`redact` in this process."""
    found = secrets_of(settings)
    if found - _known:
        with _lock:
            _known.update(found)


def redact(text: str, extra: set[str] | frozenset[str] = frozenset()) -> str:
    """``text`` with every known secret, URL password and bearer value replaced by ``***``."""
    if not text:
        return text
    for secret in sorted(_known | set(extra), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]  # as it reads inside JSON text
        if escaped != secret and escaped in text:
            text = text.replace(escaped, MASK)
    if "://" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)
    return _BEARER.sub(rf"\1\2{MASK}", text) if _may_name_a_bearer(text) else text


def _may_name_a_bearer(text: str) -> bool:
    if text.isascii():  # ASCII letters fold only to ASCII letters: a lower-case search is exact
        low = text.lower()
        return "bearer" in low or "basic" in low
    return _BEARER_WORD.search(text) is not None


@overload
def redact_value(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def redact_value(value: object) -> object: ...
def redact_value(value: object) -> object:
    """A JSON-like value with every string in it redacted (dicts and lists copied)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
