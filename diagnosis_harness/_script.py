"""The replay-script builder: the JSON replay format of docs/design.md §10, written in Python.

A :class:`ReplayScript` holds, per role, the answers a scripted model gives in order. Each
method appends one answer, validated exactly as ``--model replay:FILE`` validates a file, so
``to_dict()`` / ``write(path)`` produce a script the CLI runs the same way. A run that asks a
role for more answers than were scripted raises :class:`ScriptIncomplete`, naming the role and
the call number.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from diagnosis_harness.providers.replay import ROLES, ReplayExhausted, ReplayFileError
from diagnosis_harness.providers.replay import ReplayScript as _EngineScript

if TYPE_CHECKING:
    from diagnosis_harness._result import DiagnosisResult

Role = Literal["router", "agent", "judge", "repair"]
Failure = Literal["timeout", "transport", "invalid_output", "error"]
Claims = Mapping[str, Sequence[str]] | Sequence[tuple[str, Sequence[str]]]
"""Claims as ``{statement: [evidence ids]}`` or ``[(statement, [evidence ids]), ...]``."""

_HOW_TO_ADD = {"router": "route() or general()", "agent": "call() or draft()",
               "judge": "judge()", "repair": "repair()"}


class ScriptIncomplete(ReplayExhausted):
    """A run asked a role of its replay script for an answer that was not scripted.

    ``role`` and ``call`` (1-based) name the call; ``scripted`` is how many answers the role
    had. Raised inside the run (the model call fails, and the run ends as the outcome matrix
    says) and again by :func:`diagnose` after the run, with the run's ``result`` attached: an
    incomplete script is a bug in the test, never an outcome to assert on.
    """

    def __init__(self, role: str, call: int, scripted: int, source: str = "<script>") -> None:
        self.role = role
        self.call = call
        self.scripted = scripted
        self.source = source
        self.result: DiagnosisResult | None = None
        """The :class:`DiagnosisResult` of the run, when raised by ``diagnose``."""
        super().__init__(
            f"replay script {source} is incomplete: the run made {role} call #{call}, but the "
            f"script has {scripted} {role} answer(s); add one with "
            f"ReplayScript.{_HOW_TO_ADD.get(role, 'raw()')}")


ScriptIncomplete.__module__ = "diagnosis_harness"  # shown by its public name in reprs and tracebacks


class TrackedScript(_EngineScript):
    """The engine's replay script, raising :class:`ScriptIncomplete` and remembering the first."""

    def __init__(self, entries: Mapping[str, Sequence[Any]], source: str = "<script>") -> None:
        super().__init__(entries, source)
        self.shortfall: ScriptIncomplete | None = None
        """The first unscripted call of the run, if any."""

    def next(self, role: str) -> tuple[int, dict[str, Any]]:
        """The next answer of ``role``, or ScriptIncomplete naming the call."""
        try:
            return super().next(role)
        except ReplayExhausted:
            had = self.consumed(role)  # the cursor stops at the end: every answer was used
            missing = ScriptIncomplete(role, had + 1, had, self.source)
            if self.shortfall is None:
                self.shortfall = missing
            raise missing from None


class ReplayScript:
    """Scripted model answers per role, built one call at a time (methods chain).

    ``usage``: ``{"input_tokens": n, "output_tokens": m}`` given to every answer that names
    none (default: none, i.e. zero tokens). Evidence calls after the first get the
    ``previous_observation`` envelope the agent must send (docs/design.md §10) filled in.
    """

    def __init__(self, *, usage: Mapping[str, int] | None = None) -> None:
        self._entries: dict[str, list[dict[str, Any]]] = {role: [] for role in ROLES}
        self._usage = dict(usage) if usage is not None else None
        self._last_call: str | None = None
        self._calls = 0

    # --- router ---------------------------------------------------------------------------

    def route(self, *, service: str | None = None, merchant: str | None = None,
              start: str | None = None, end: str | None = None,
              intent: Literal["DIAGNOSIS", "GENERAL"] = "DIAGNOSIS",
              usage: Mapping[str, int] | None = None) -> Self:
        """The router's answer: a DIAGNOSIS scope (times ISO-8601 with an offset)."""
        body = {"intent": intent, "service": service, "merchant": merchant, "start": start,
                "end": end}
        return self.text("router", json.dumps(body), usage=usage)

    def general(self, *, usage: Mapping[str, int] | None = None) -> Self:
        """The router's answer for a question that is not a diagnosis request."""
        return self.route(intent="GENERAL", usage=usage)

    # --- agent ----------------------------------------------------------------------------

    def call(self, tool: str, args: Mapping[str, Any] | None = None, *, id: str | None = None,
             gain: Literal["GAINED", "NO_GAIN"] = "GAINED", note: str | None = None,
             usage: Mapping[str, int] | None = None) -> Self:
        """The agent calls one evidence tool.

        From the second call on, ``args`` get ``previous_observation``: the previous call's id
        and ``gain``/``note``, the agent's verdict on that call's observation (unless ``args``
        already carry one). ``id`` defaults to ``c1``, ``c2``, … in script order.
        """
        self._calls += 1
        call_id = id or f"c{self._calls}"
        full = dict(args or {})
        if self._last_call is not None and "previous_observation" not in full:
            envelope: dict[str, Any] = {"tool_call_id": self._last_call, "gain": gain}
            if note is not None:
                envelope["note"] = note
            full["previous_observation"] = envelope
        self._add("agent", {"content": "",
                            "tool_calls": [{"name": tool, "args": full, "id": call_id}]}, usage)
        self._last_call = call_id
        return self

    def draft(self, root_cause: str | None, claims: Claims = (), *,
              next_steps: Sequence[str] = (), usage: Mapping[str, int] | None = None) -> Self:
        """The agent's final draft; ``root_cause=None`` is a null conclusion."""
        return self.text("agent", _draft(root_cause, claims, next_steps), usage=usage)

    # --- judge and repair -----------------------------------------------------------------

    def judge(self, verdict: Literal["SUPPORTED", "UNSUPPORTED"] = "SUPPORTED",
              reasons: Sequence[str] = ("the cited records state the claims",), *,
              usage: Mapping[str, int] | None = None) -> Self:
        """The semantic judge's verdict."""
        return self.text("judge", json.dumps({"verdict": verdict, "reasons": list(reasons)}),
                         usage=usage)

    def repair(self, root_cause: str | None, claims: Claims = (), *,
               next_steps: Sequence[str] = (), usage: Mapping[str, int] | None = None) -> Self:
        """The evidence repair's answer: a draft with corrected citations."""
        return self.text("repair", _draft(root_cause, claims, next_steps), usage=usage)

    # --- any role -------------------------------------------------------------------------

    def text(self, role: Role, content: str, *, usage: Mapping[str, int] | None = None) -> Self:
        """A plain text answer of ``role`` (e.g. an invalid draft or router answer)."""
        return self._add(role, {"content": content}, usage)

    def fail(self, role: Role, kind: Failure) -> Self:
        """An injected failure of ``role``'s next call.

        ``timeout``, ``transport``, ``invalid_output`` (classified) or ``error`` (an
        unclassified crash).
        """
        return self._add(role, {"raise": kind}, None)

    def raw(self, role: Role, entry: Mapping[str, Any]) -> Self:
        """One entry exactly as in the JSON format (validated)."""
        return self._add(role, dict(entry), None)

    # --- the script -----------------------------------------------------------------------

    def count(self, role: Role) -> int:
        """How many answers ``role`` has."""
        return len(self._entries[role])

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        """The script in the JSON replay format (a copy; every role present)."""
        return copy.deepcopy(self._entries)

    def write(self, path: str | Path) -> Path:
        """Write the script as a JSON replay file (``--model replay:PATH``); returns the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self._entries, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        return target

    @classmethod
    def from_dict(cls, data: Mapping[str, Sequence[Mapping[str, Any]]]) -> ReplayScript:
        """A builder holding the entries of a script in the JSON format (validated)."""
        script = cls()
        try:
            _EngineScript(data)
        except ReplayFileError as exc:
            raise ValueError(f"not a replay script: {exc}") from None
        for role in ROLES:
            script._entries[role] = [dict(e) for e in data.get(role, [])]
        return script

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayScript:
        """A builder holding the script of a JSON replay file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read replay file {path}: {exc}") from None
        return cls.from_dict(data)

    def _engine(self, source: str = "<ReplayScript>") -> TrackedScript:
        """A fresh engine script over a copy of these answers (each run starts at the top)."""
        return TrackedScript(self.to_dict(), source)

    def __repr__(self) -> str:
        counts = ", ".join(f"{role}={len(items)}" for role, items in self._entries.items())
        return f"ReplayScript({counts})"

    def _add(self, role: str, entry: dict[str, Any], usage: Mapping[str, int] | None) -> Self:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; use one of {list(ROLES)}")
        chosen = usage if usage is not None else self._usage
        if chosen is not None and "raise" not in entry:
            entry["usage"] = dict(chosen)
        items = [*self._entries[role], entry]
        try:
            _EngineScript({role: items})  # the file format's own check, with the entry's index
        except ReplayFileError as exc:
            raise ValueError(f"invalid replay entry: {exc}") from None
        self._entries[role] = items
        return self


def _draft(root_cause: str | None, claims: Claims, next_steps: Sequence[str]) -> str:
    pairs = list(claims.items()) if isinstance(claims, Mapping) else list(claims)
    conclusion = None if root_cause is None else {
        "root_cause": root_cause,
        "claims": [{"statement": s, "evidence_ids": list(ids)} for s, ids in pairs]}
    return json.dumps({"conclusion": conclusion, "next_steps": list(next_steps)})
