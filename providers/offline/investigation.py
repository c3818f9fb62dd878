"""What the agent's conversation says so far, as data: scope, calls, observations, tables."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diagnosis_harness.providers.offline.conversation import Conversation
from diagnosis_harness.providers.offline.text import terms

DEFAULT_MAX_CALLS = 10
KNOWN_NOISE = re.compile(r"\bknown[- ]noise\b|\bknown[- ]errors?\b|(?:can|may) (?:safely )?be "
                         r"(?:safely )?ignored|do(?:es)? not mean (?:customers|users|anyone) "
                         r"(?:are|is) affected", re.I)
"""A runbook page that lists its symptoms as everyday noise (a "known noise" page): matching it
says the symptom is *not* the incident. Measured on a world built blind to these rules: the
runbook rule published a release as the cause of a vendor's everyday timeouts, "as runbook
known-noise describes"."""
"""The tool-call limit assumed when the instructions do not carry one."""


@dataclass(frozen=True)
class Scope:
    """The incident as the agent's instructions were rendered with it."""

    service: str
    merchant: str
    start: str
    end: str
    max_calls: int
    window_given: bool = True
    """Whether the window is anchored on a time of the question, not the router's look-back."""

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Scope:
        """Read the scope from the agent prompt's named values."""
        try:
            max_calls = int(values.get("max_tool_calls") or DEFAULT_MAX_CALLS)
        except (TypeError, ValueError):
            max_calls = DEFAULT_MAX_CALLS
        return cls(service=_given(values.get("service")),
                   merchant=_given(values.get("merchant")),
                   start=str(values.get("start") or ""), end=str(values.get("end") or ""),
                   max_calls=max_calls, window_given=_window_given(values.get("window_note")))


NOT_GIVEN = "(not given)"
"""How the agent prompt renders a scope value the question did not give (nodes/route.py)."""


def _window_given(note: object) -> bool:
    """Whether the question gave a time at all (start, end or both).

    The router notes a window it chose with no time of the question to anchor it ("… the last
    60 minutes up to the dataset's latest event", nodes/route.py): that is the look-back, not
    the moment the user saw something, and nothing is localized in it. A "since ~13:20" read
    up to the data's latest event is the question's own time, and is given.
    """
    return "minutes up to the dataset's latest event" not in str(note or "")


def _given(value: object) -> str:
    """The scope value, or "" when the question gave none (a system-wide question)."""
    text = str(value or "")
    return "" if text == NOT_GIVEN else text


class Investigation:
    """What the agent's conversation says so far: scope, calls, observations, tables."""

    def __init__(self, conversation: Conversation, tool_specs: Sequence[Any]) -> None:
        self.scope = Scope.of(conversation.system.values if conversation.system else {})
        self.start, self.end = self.scope.start, self.scope.end
        self.calls = conversation.calls
        self.obs = conversation.observations
        self.tables = tables(tool_specs)
        self.services = log_services(tool_specs)
        """The services ``query_logs`` lists (those of the logs), if it lists them."""
        self.metrics = metric_names(tool_specs)
        """The metrics ``query_metrics`` advertises; None when the run has no Prometheus."""
        self.tools = {str((spec.get("function") or {}).get("name")) for spec in tool_specs
                      if isinstance(spec, dict)}
        """The tools the run binds (empty when the specs are not known)."""

    def items(self, tool: str, **args: object) -> list[dict[str, Any]]:
        """Every observed item of ``tool``'s calls (with these argument values), in call order."""
        out: list[dict[str, Any]] = []
        for c in self.calls:
            if c["name"] == tool and all((c.get("args") or {}).get(k) == v
                                         for k, v in args.items()):
                out.extend(self.obs.get(c.get("id") or "", {}).get("items", []) or [])
        return out

    def called(self, tool: str, **args: object) -> bool:
        """Whether ``tool`` was called (with these argument values, if given)."""
        return any(c["name"] == tool and all((c.get("args") or {}).get(k) == v
                                             for k, v in args.items()) for c in self.calls)

    @property
    def stop_required(self) -> bool:
        """Whether the harness asked the agent to stop collecting."""
        return any(o.get("stop_required") for o in self.obs.values())

    def symptom(self) -> dict[str, Any] | None:
        """The dominant error pattern: the most frequent (seen twice at least), earliest first."""
        patterns = [i for i in self.items("query_logs") if i.get("kind") == "error_pattern"
                    and int(i.get("count") or 0) >= 2]
        patterns.sort(key=lambda i: (-int(i.get("count") or 0), str(i.get("first_seen"))))
        return patterns[0] if patterns else None

    def runbook(self, symptom: dict[str, Any]) -> list[dict[str, Any]]:
        """The passages of the best runbook, if it speaks of ``symptom``; else []."""
        passages = [i for i in self.items("lookup_knowledge") if i.get("kind") == "passage"]
        if not passages:
            return []
        doc = passages[0].get("doc_id")
        chosen = [p for p in passages if p.get("doc_id") == doc]
        body = " ".join(f"{p.get('title', '')} {p.get('text', '')}" for p in chosen)
        if len(terms(str(symptom.get("template", ""))) & terms(body)) < 2:
            return []  # the runbook does not speak of this symptom
        if KNOWN_NOISE.search(body):
            return []  # the team's own page says this symptom is everyday noise: no cause
        if self.services and len(self.services) >= OVERVIEW_MIN_SERVICES and \
                sum(_says(body, s) for s in self.services) * 2 >= len(self.services):
            return []  # a page naming half the system is its overview, not one failure's runbook
        return chosen


def tables(tool_specs: Sequence[Any]) -> dict[str, list[str]]:
    """The operational tables and their columns, as the ``query_mysql`` spec lists them."""
    for spec in tool_specs:
        fn = spec.get("function", {}) if isinstance(spec, dict) else {}
        if fn.get("name") == "query_mysql":
            description = str(fn.get("description", ""))
            listing = description[description.find("Tables:"):] if "Tables:" in description else ""
            return {m.group(1): [c.strip() for c in m.group(2).split(",")]
                    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\)", listing)}
    return {}




OVERVIEW_MIN_SERVICES = 6
"""Services a dataset must have for a page naming half of them to be read as an overview."""
_LISTED = re.compile(r"Services in these logs: (.*?)(?: \(\+\d+ more\))?\.(?:\s|\Z)", re.S)


def _says(text: str, service: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(service)}(?![\w-])", text, re.I) is not None


def log_services(tool_specs: Sequence[Any]) -> list[str]:
    """The services the ``query_logs`` spec lists; [] without that tool or a listing.

    A runbook describes one failure; a page naming half of the system's services (an on-call
    overview: who calls whom, where the logs are) matches any symptom's words and explains
    none (measured on a world built blind: its overview page was published as the "runbook" of
    a replica's lag and of a broker's drained disk credits).
    """
    for spec in tool_specs:
        fn = spec.get("function", {}) if isinstance(spec, dict) else {}
        if fn.get("name") == "query_logs":
            found = _LISTED.search(str(fn.get("description", "")))
            return [n.strip() for n in found.group(1).split(",") if n.strip()] if found else []
    return []


_ADVERTISED = re.compile(r"Metrics on this Prometheus: (.*?)(?: \(\+\d+ more\))?\.\s*\Z", re.S)
_NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*\Z")


def metric_names(tool_specs: Sequence[Any]) -> list[str] | None:
    """The metric names the ``query_metrics`` spec advertises; None without that tool."""
    for spec in tool_specs:
        fn = spec.get("function", {}) if isinstance(spec, dict) else {}
        if fn.get("name") == "query_metrics":
            found = _ADVERTISED.search(str(fn.get("description", "")))
            listed = found.group(1).split(", ") if found else []
            return [n for n in (x.split(" (")[0] for x in listed) if _NAME.match(n)]
    return None
