"""Not a rule: the concluding draft the class rules write, in structured values.

The failure as the pattern the log tool computed, with its counts and onset; each change as
its row's one-token values and the setting it changed (``key: old -> new``); a log line as its
service, level, pattern and onset; a metric shift in the tool's own values. Free text is never
copied, with two bounded exceptions (:func:`_row`): a job's target of a few plain words, and a
network change's what-columns of at most :data:`MAX_QUOTED` plain words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from diagnosis_harness.providers.offline.conclusion import describe_row
from diagnosis_harness.providers.offline.rules.evidence import says
from diagnosis_harness.providers.offline.rules.limits import setting
from diagnosis_harness.providers.offline.text import failure_phrase

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_WHAT = re.compile(r"^(resource|change|action|kind|name|rule|summary)$", re.I)
_WORD = re.compile(r"\(?[\w./:=-]+\)?")
MAX_QUOTED = 8
"""Words of a row's value quoted at most, each plain (letters, digits, ``./:=-``)."""


def _plain(row: dict[str, Any]) -> list[str]:
    """The short plain values of a row's what-columns: what a network change changed, in words.

    Free text is never copied wholesale: a value is quoted only when it is at most
    :data:`MAX_QUOTED` plain words (no quotes, no sentence punctuation) of a row the boundary
    did not flag; ``security group sg-0a1b2c3d (orders-db)`` is, a paragraph is not.
    """
    return [str(v) for k, v in row.items() if _WHAT.match(str(k)) and isinstance(v, str)
            and 1 < len(v.split()) <= MAX_QUOTED and all(_WORD.fullmatch(w) for w in v.split())]


def _row(change: dict[str, Any], quote: bool = False) -> str:
    """A change row in its structured values, and the setting it changed when a summary says it."""
    found = setting(change["row"])
    said = f" ({found[0]}: {found[1]} -> {found[2]})" if found else ""
    if change["table"] == "log":  # a line's detail: a value its pattern masked (":9090")
        said += f" ({change['detail']})" if change.get("detail") else ""
        level = change.get("level") or "INFO"
        return f"{change['service']} {level} '{change['pattern']}' from {change['time']}{said}"
    target = str(change["row"].get("target") or "")
    if not found and 1 < len(target.split()) <= 3 and all(_PLAIN.fullmatch(t) for t in target.split()):
        said = f" (target {target})"  # a few plain words: where a job ran ("orders-db primary")
    if quote and not found and _plain(change["row"]):
        said = f" ({'; '.join(_plain(change['row']))})"
    return f"{change['table']} row {describe_row(change['row'])}{said}"


def conclusion(failure: dict[str, Any], causes: list[dict[str, Any]],
               metric: dict[str, Any] | None, why: str,
               services: Iterable[str] = (), quote: bool = False, detail: str = "",
               cited: Iterable[str] = ()) -> dict[str, Any]:
    """The concluding draft: the failure, after the change rows, with the metric that moved.

    The failure's words may name the dependency it failed on among ``services`` (a masked
    ``upstream="registry"``): the sentence names it, where the failure happened.
    """
    said = ", ".join(_row(c, quote) for c in causes)
    on = sorted({s for s in services if s != failure["service"]
                 and says(str(failure.get("example", "")), s)})
    cause = (f"{failure['service']}: " + failure_phrase(
        failure["window_count"], failure.get("level"), failure["pattern"],
        failure.get("example"), failure["onset"]) + (f" (on {', '.join(on)})" if on else "")
        + (f" ({detail})" if detail else "")
        + (f", after {said}" if said else ""))
    claims = [{"statement": f"{failure['service']} logged {failure['window_count']} "
                            f"{failure.get('level')} events '{failure['pattern']}' from "
                            f"{failure['onset']}{f' ({detail})' if detail else ''}",
               "evidence_ids": [failure["evidence_id"], *cited]},
              *({"statement": _row(c, quote), "evidence_ids": [c["evidence_id"]]} for c in causes)]
    if metric is not None:
        words = (f"{metric['entity']} {metric['metric']} {metric['direction']} from "
                 f"{metric['first_out']} (median {metric['baseline_median']:g} -> "
                 f"{metric['window_median']:g})")
        cause += f", with {words}"
        claims.append({"statement": words, "evidence_ids": [metric["evidence_id"]]})
    return {"conclusion": {"root_cause": cause, "claims": claims},
            "next_steps": [why, "compare with the same window on a healthy day"]}
