"""What is posted for a finished run: the targets configured, and each target's body.

A target is named without its secret (a Slack webhook URL *is* a secret; a generic webhook's may
hold one): ``json:<hash of the URL>``, ``slack``, ``github:<owner/name>#<issue>``. The name is half
of the outbox's idempotency key; the URL is looked up in the settings when the post is made, so
no secret is stored in the run store.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from diagnosis_harness.control.settings import Settings

if TYPE_CHECKING:
    from pydantic import SecretStr

    from diagnosis_harness.control.contracts import ToolRecord

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


def run_link(settings: Settings, run_id: object) -> str | None:
    """The run's page on the served harness (``HARNESS_PUBLIC_URL/runs/RUN_ID``), or None unset."""
    if not settings.public_url or not run_id:
        return None
    return f"{settings.public_url}/runs/{quote(str(run_id), safe='')}"


def outcome(run: dict[str, Any], records: list[dict[str, Any]], alert: dict[str, Any],
            settings: Settings | None = None) -> dict[str, Any]:
    """The generic webhook's body: the run's ``--json`` fields, its evidence, and the alert.

    ``headline`` is what a person reads first (:func:`headline`); ``run_url`` the run's page
    where ``HARNESS_PUBLIC_URL`` is set.
    """
    evidence = [{key: r.get(key) for key in ("tool_call_id", "tool", "evidence_status")}
                for r in records[:EVIDENCE_SHOWN]]
    keys = ("run_id", "thread_id", "status", "release_outcome", "fallback_type", "failure_code",
            "stop_reason", "content", "finished_at")
    return {**{key: run.get(key) for key in keys}, "evidence": evidence, "alert": alert,
            "headline": headline(run, records),
            "run_url": run_link(settings, run.get("run_id")) if settings is not None else None}


def headline(run: Mapping[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """The cause a post leads with, and the onset: from the run's own records and report.

    A SUCCESS leads with its published ``Root cause:`` line; a FALLBACK with its top suspect,
    ranked as the report's triage digest ranks them (unverified, and labelled so); a FAILED run
    with nothing. The onset is the earliest failure (warning or worse) of the run's verified
    records.
    """
    # Here, not at the top: the digest's ranking loads the graph's state types (LangGraph), which
    # `harness alerts test` and the intake's import do not need.
    from diagnosis_harness.nodes._triage import suspects

    ranked = suspects(_records(records))
    failing = [s["onset"] for s in ranked if s["kind"] == "anomaly" and s.get("onset")
               and s.get("level") not in _QUIET]
    onset = min(failing, default=None)
    cause: str | None = None
    kind: str | None = None
    if run.get("release_outcome") == "SUCCESS":
        first = str(run.get("content") or "").split("\n", 1)[0].strip()
        if first:
            cause, kind = first.removeprefix("Root cause: "), "root_cause"
    elif run.get("release_outcome") == "FALLBACK" and ranked:
        cause, kind = _suspect_text(ranked[0]), "top_suspect"
    return {"cause": cause, "cause_kind": kind, "onset": onset}


_QUIET = frozenset({"INFO", "DEBUG", "TRACE", "NOTICE"})


def _records(rows: list[dict[str, Any]]) -> list[ToolRecord]:
    from diagnosis_harness.control.contracts import ToolRecord

    out = []
    for row in rows:
        try:
            out.append(ToolRecord.model_validate(row))
        except ValueError:
            continue  # a row this version cannot read lends no suspect
    return out


def _suspect_text(suspect: Mapping[str, Any]) -> str:
    """One suspect in words: its service, what it is, where, and its evidence id."""
    service = f"{suspect['service']}: " if suspect.get("service") else ""
    if suspect["kind"] == "anomaly":
        level = f"{suspect['level']} " if suspect.get("level") else ""
        what = f"{level}x{suspect.get('count')}"
        if suspect.get("pattern"):
            what += f" '{suspect['pattern']}'"
        if suspect.get("where"):
            what += f" at {suspect['where']}"
    else:
        what = f"{suspect['kind']} {suspect.get('summary') or ''}".strip()
    return f"{service}{what} [{suspect['evidence_id']}]"


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
    """One readable message (a GitHub comment) from :func:`outcome`'s body.

    The header is the harness's own words: the outcome and the run. What the alert sent (its
    name) is unverified and goes on its own labelled line; everything from the alert or the
    run's data passes through ``escape`` for the target's markup. The last line opens the run.
    """
    alert = body.get("alert") or {}
    what = "verified root cause" if body.get("release_outcome") == "SUCCESS" \
        else "no verified root cause"
    lines = [f"{_head(body, escape)} {what} — harness run {escape(body.get('run_id'))}"]
    if body.get("content"):
        lines.append(escape(body["content"]))
    elif body.get("failure_code"):
        lines.append(f"failed: {escape(body['failure_code'])}")
    lines.append(f"alert (as the alert sent it, unverified): {escape(alert.get('name', '?'))}")
    cited = [escape(e["tool_call_id"]) for e in body.get("evidence", []) if e.get("tool_call_id")]
    if cited:
        lines.append("evidence: " + ", ".join(cited))
    lines.append(_run_line(body, escape, link_escape=lambda url: url))
    return "\n".join(lines)


LINE_LIMIT = 280
"""Characters of one line of a Slack post (before escaping); a longer one is cut at a word."""
_PLACEHOLDER = re.compile(r"<(?:n|id|ip|dur|hex|str|uuid|ts|obj)>")
"""What a masked log pattern shows for a value (``tools/log_templates.py``,
``tools/dataset/patterns.py``): a post shows an ellipsis instead."""
_WHY = {
    "MODEL_UNREACHABLE": "the model endpoint was unreachable; this is the offline triage only",
    "MISSING_REQUIRED_CONTEXT": "the question lacks context the investigation needs",
    "INSUFFICIENT_EVIDENCE": "the evidence does not single out a cause",
    "EVIDENCE_VALIDATION_FAILED": "the proposed cause cited evidence that does not hold",
    "SEMANTIC_UNSUPPORTED": "the independent check did not support the proposed cause",
    "SEMANTIC_UNAVAILABLE": "the independent check could not be completed",
    "APPROVAL_REJECTED": "a reviewer rejected the report",
}
"""Why a fallback published no root cause, in a few words (the run's page says the rest)."""


def readable(value: object, limit: int = LINE_LIMIT) -> str:
    """Text for one line a person reads: one line, no placeholders, no cut token.

    Whitespace runs become one space, control characters show as escapes, a masked value
    (``<n>``, ``<id>``, ``<ip>`` …) becomes "…", and a line longer than ``limit`` is cut at the
    last word boundary and ends with "…" — never inside a word, an id or a number.
    """
    from diagnosis_harness.nodes._release_text import printable

    line = _PLACEHOLDER.sub("…", printable(" ".join(str(value).split())))
    if len(line) <= limit:
        return line
    cut = line[:limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def slack_text(body: dict[str, Any]) -> str:
    """The Slack post: 3 to 6 short lines, the details behind the run's link.

    The outcome; the root cause (SUCCESS) or the top suspect (FALLBACK, labelled unverified);
    the onset; the alert's name as the alert sent it; the run's link (``HARNESS_PUBLIC_URL``) or
    the command that shows it. Every line is :func:`readable` first and Slack-escaped after, so
    an escape is never cut and ``<!channel>`` never pings.
    """
    first = _head(body, slack_escape)
    if body.get("release_outcome") == "FAILED":
        first += " nothing was published"
    elif body.get("release_outcome") != "SUCCESS":
        why = _WHY.get(str(body.get("fallback_type")))
        first += f" no verified root cause{': ' + why if why else ''}"
    else:
        first += " verified root cause"
    lines = [first]
    found = body.get("headline") or {}
    if found.get("cause"):
        label = "Root cause" if found.get("cause_kind") == "root_cause" \
            else "Top suspect (ranked from verified facts; not a verified cause)"
        lines.append(slack_escape(readable(f"{label}: {found['cause']}")))
    if found.get("onset"):
        lines.append(slack_escape(readable(f"Onset: {found['onset']}")))
    alert = body.get("alert") or {}
    lines.append(slack_escape(readable(
        f"alert (as the alert sent it, unverified): {alert.get('name', '?')}")))
    lines.append(_run_line(body, slack_escape, link_escape=slack_escape))
    return "\n".join(lines)


def _head(body: dict[str, Any], escape: Callable[[object], str]) -> str:
    """``[OUTCOME / FALLBACK_TYPE]`` (``[FAILED / FAILURE_CODE]`` for a failed run)."""
    name = escape(body.get("release_outcome") or "UNKNOWN")
    kind = body.get("fallback_type") or (body.get("failure_code")
                                         if body.get("release_outcome") == "FAILED" else None)
    return f"[{name} / {escape(kind)}]" if kind else f"[{name}]"


def _run_line(body: dict[str, Any], escape: Callable[[object], str],
              link_escape: Callable[[str], str]) -> str:
    """Where the run is: its page on the served harness, or the command that prints it.

    The link is the harness's own (a validated setting and the run id), so it is not passed
    through the data's escaping, which would break it (GitHub's splits ``://``).
    """
    url = body.get("run_url")
    if url:
        return f"Run: {link_escape(str(url))}"
    return f"Run: harness runs show {escape(body.get('run_id'))}"


def body_for(kind: str, outcome_body: dict[str, Any]) -> dict[str, Any]:
    """The body a target of ``kind`` is sent.

    Slack gets its few lines (:func:`slack_text`), GitHub the whole report (:func:`text`), each
    escaped for its markup; the generic webhook gets the data unchanged, as JSON values (it has
    no markup to escape).
    """
    if kind == "slack":
        message = _cut(slack_text(outcome_body), SLACK_LIMIT)
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
