"""What is posted for a finished run: the targets configured, and each target's body.

A target is named without its secret (a Slack webhook URL *is* a secret; a generic webhook's may
hold one): ``json:<hash of the URL>``, ``slack``, ``github:<owner/name>#<issue>``. The name is half
of the outbox's idempotency key; the URL is looked up in the settings when the post is made, so
no secret is stored in the run store.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from diagnosis_harness.control.settings import Settings

if TYPE_CHECKING:
    from pydantic import SecretStr

EVIDENCE_SHOWN = 20
"""Tool records listed with a result (the full trace is in ``harness runs show``)."""


def _csv(secret: SecretStr | None) -> list[str]:
    text = secret.get_secret_value() if secret is not None else ""
    return [part.strip() for part in text.split(",") if part.strip()]


def json_target(url: str) -> str:
    """The target name of a generic JSON webhook."""
    return "json:" + hashlib.sha256(url.encode()).hexdigest()[:16]


def targets(settings: Settings, issue: str | None) -> list[tuple[str, str]]:
    """(target, kind) of every configured destination of one run's outcome."""
    out = [(json_target(url), "json") for url in _csv(settings.notify_url)]
    if settings.slack_webhook_url is not None and settings.slack_webhook_url.get_secret_value():
        out.append(("slack", "slack"))
    if settings.github_repo and settings.github_token is not None and issue:
        out.append((f"github:{settings.github_repo}#{issue}", "github"))
    return out


def destination(settings: Settings, target: str, kind: str) -> tuple[str, dict[str, str]] | None:
    """(URL, headers) of a target under the current settings; None if it is no longer configured."""
    if kind == "json":
        url = next((u for u in _csv(settings.notify_url) if json_target(u) == target), None)
        return None if url is None else (url, {})
    if kind == "slack" and settings.slack_webhook_url is not None:
        return settings.slack_webhook_url.get_secret_value(), {}
    if kind == "github" and settings.github_token is not None and "#" in target:
        repo, issue = target.removeprefix("github:").rsplit("#", 1)
        url = f"{settings.github_api_url.rstrip('/')}/repos/{repo}/issues/{issue}/comments"
        return url, {"Authorization": f"Bearer {settings.github_token.get_secret_value()}",
                     "Accept": "application/vnd.github+json"}
    return None


def outcome(run: dict[str, Any], records: list[dict[str, Any]], alert: dict[str, Any]
            ) -> dict[str, Any]:
    """The generic webhook's body: the run's ``--json`` fields, its evidence, and the alert."""
    evidence = [{key: r.get(key) for key in ("tool_call_id", "tool", "evidence_status")}
                for r in records[:EVIDENCE_SHOWN]]
    keys = ("run_id", "thread_id", "status", "release_outcome", "fallback_type", "failure_code",
            "stop_reason", "content", "finished_at")
    return {**{key: run.get(key) for key in keys}, "evidence": evidence, "alert": alert}


SLACK_LIMIT = 3000
"""Characters of a Slack section's text (Slack's own limit for one ``mrkdwn`` block)."""

# Markdown punctuation that can start a link, an image, emphasis, a heading, a table or HTML.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~])")
_ZWJ = "\u200d"  # between ``@`` and a name: shown as written, never a mention or a team ping


def slack_escape(value: object) -> str:
    """Text for Slack ``mrkdwn``: ``&``, ``<`` and ``>`` escaped.

    So ``<!channel>``, ``<@U1>`` and ``<https://…|label>`` show as typed instead of pinging or
    linking.
    """
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def github_escape(value: object) -> str:
    """Text for a GitHub comment: no link, image, HTML, heading, mention or autolink survives.

    Markdown punctuation is backslash-escaped, ``&``, ``<`` and ``>`` become entities (no HTML
    tag and no entity of the data's own is read),
    a zero-width joiner follows every ``@`` (no ``@team`` mention) and splits ``://`` and
    ``www.`` (GitHub autolinks bare URLs).
    """
    text = _MARKDOWN.sub(r"\\\1", slack_escape(value))
    text = text.replace("@", "@" + _ZWJ).replace("://", ":" + _ZWJ + "//")
    return re.sub(r"(?i)\bwww\.", lambda m: m.group(0)[:3] + _ZWJ + ".", text)


def text(body: dict[str, Any], escape: Callable[[object], str]) -> str:
    """One readable message (Slack, GitHub) from :func:`outcome`'s body.

    The header is the harness's own words: the outcome and the run. What the alert sent (its
    name) is unverified and goes on its own labelled line; everything from the alert or the
    run's data passes through ``escape`` for the target's markup.
    """
    alert = body.get("alert") or {}
    outcome_name = escape(body.get("release_outcome") or "UNKNOWN")
    head = f"[{outcome_name}"
    head += f" / {escape(body['fallback_type'])}]" if body.get("fallback_type") else "]"
    what = "verified root cause" if body.get("release_outcome") == "SUCCESS" else "no verified " \
        "root cause"
    lines = [f"{head} {what} — harness run {escape(body.get('run_id'))}"]
    if body.get("content"):
        lines.append(escape(body["content"]))
    elif body.get("failure_code"):
        lines.append(f"failed: {escape(body['failure_code'])}")
    lines.append(f"alert (as the alert sent it, unverified): {escape(alert.get('name', '?'))}")
    cited = [escape(e["tool_call_id"]) for e in body.get("evidence", []) if e.get("tool_call_id")]
    if cited:
        lines.append("evidence: " + ", ".join(cited))
    return "\n".join(lines)


def body_for(kind: str, outcome_body: dict[str, Any]) -> dict[str, Any]:
    """The body a target of ``kind`` is sent.

    Slack and GitHub get text escaped for each one's markup; the generic webhook gets the data
    unchanged, as JSON values (it has no markup to escape).
    """
    if kind == "slack":
        message = _cut(text(outcome_body, slack_escape), SLACK_LIMIT)
        return {"text": message,
                "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": message}}]}
    if kind == "github":
        return {"body": text(outcome_body, github_escape)}
    return outcome_body


def _cut(message: str, limit: int) -> str:
    """At most ``limit`` characters, never ending inside an escape (``&amp;`` cut to ``&am``)."""
    if len(message) <= limit:
        return message
    cut = message[:limit - 1]
    amp = cut.rfind("&")
    if amp >= 0 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut + "…"
