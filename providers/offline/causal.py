"""Does a change explain a symptom? The causal test the offline investigator and judge share.

Words alone are too easily had: with a runbook that speaks of ``dfs`` settings, *any* ``dfs.*``
change of the hour before was published as the cause (one token shared by runbook and change),
and a ``billing`` cron ``disk.cleanup.cron`` was published as the cause of a storage node's full
disk (the word "disk"). A change explains a symptom only when (docs/design.md §16.2):

- it is on the affected service, or the data links the two: one observed item (a dependency
  edge, a host row, a log line of the affected service) names both;
- it precedes the onset: some time of the row is at or before the symptom's first event;
- it speaks of the symptom through its own key and values: a word of its own (not the service's
  name) found in the symptom's log lines, or its exact key named by the runbook. A word the
  change shares with the runbook only is no link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from diagnosis_harness.providers.offline.text import is_time_column, terms, utc

_SERVICE_COLUMN = re.compile(r"^(service|component|app|application|svc|system)(_name)?$")
_ID_COLUMN = re.compile(r"(^id$|_id$|^ticket$|_by$)")
_SCOPE_COLUMN = re.compile(r"^(namespace|ns|cluster|env|environment|region|zone|az|project|"
                           r"account|tenant|team|owner|stage|datacenter|dc)$")
"""Where a change ran, not what it changed: a namespace ``quill-prod`` shares the product's name
with every log line of the system (measured on the blind docs world: a job run linked to a
search timeout by "quill" and one word of its prose, and published as its cause)."""
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)+")
"""A dotted or underscored key (``dfs.datanode.du.reserved``): precise enough to be named."""


@dataclass(frozen=True)
class Symptom:
    """What the change must explain: where, since when, and in which words."""

    services: frozenset[str]
    onset: str | None
    text: str
    """The symptom's own log text (pattern, example messages)."""


def row_services(row: Mapping[str, Any]) -> set[str]:
    """The services a row is about (its service-like columns), lower-case."""
    return {str(v).strip().lower() for k, v in row.items()
            if _SERVICE_COLUMN.match(str(k).lower()) and isinstance(v, str) and v.strip()}


def _unprefixed(key: re.Match[str]) -> str:
    """A key without its namespace: ``dfs.replication`` → ``replication``.

    Every key of a system shares its namespace (``dfs.``, ``db.``), and so do that system's log
    lines (``dfs.DataNode$DataXceiver``): a namespace links any change to any symptom.
    """
    return re.split(r"[._]", key.group(0), maxsplit=1)[1]


def _own_terms(row: Mapping[str, Any], services: Iterable[str]) -> set[str]:
    """The row's words of its own: values of its key/value columns, not its service or times."""
    values = [_KEY.sub(_unprefixed, str(v)) for k, v in row.items()
              if not _SERVICE_COLUMN.match(str(k).lower()) and not is_time_column(str(k))
              and not _ID_COLUMN.search(str(k).lower()) and not _SCOPE_COLUMN.match(str(k).lower())]
    own = terms(" ".join(values).replace("_", " ").replace(".", " "))
    named = terms(" ".join(services).replace("-", " ").replace("_", " "))
    return own - named


def _precedes(row: Mapping[str, Any], onset: str) -> bool:
    try:
        limit = utc(onset)
    except ValueError:
        return True  # no readable onset: nothing to contradict
    moments = []
    for key, value in row.items():
        if is_time_column(str(key)) and isinstance(value, str) and value[:4].isdigit():
            try:
                moments.append(utc(value))
            except ValueError:
                continue
    return not moments or min(moments) <= limit


def change_problem(row: Mapping[str, Any], symptom: Symptom, references: Iterable[str],
                   links: Iterable[str]) -> str | None:
    """Why ``row`` (a change) does not explain ``symptom``; None when it does.

    ``references`` are runbook texts (they may name the change's exact key); ``links`` are the
    texts of the other observed items, each prefixed with the service it is of, if any.
    """
    services = row_services(row)
    if services and symptom.services and not services & symptom.services:
        other = sorted(services)[0]
        if not any(other in t.lower() and any(s in t.lower() for s in symptom.services)
                   for t in links):
            return (f"the change is on {other}, not on {', '.join(sorted(symptom.services))}, "
                    "and no observed item links the two")
    if symptom.onset and not _precedes(row, symptom.onset):
        return f"the change comes after the symptom's onset ({symptom.onset})"
    shared = {_root(t) for t in _own_terms(row, services | symptom.services)} & {
        _root(t) for t in terms(symptom.text.replace("_", " ").replace(".", " "))}
    if len(shared) >= MIN_SHARED:
        return None
    if any(names_key(row, text) for text in [symptom.text, *references]):
        return None
    if saturated_at_set_value(row, symptom.text) or lowered_limit_ran_out(row, symptom.text) \
            or any(names_key_in_words(row, text) for text in references):
        return None
    return NO_KEY_LINK


MIN_SHARED = 2
"""Words of its own a change must share with the symptom to explain it without naming its key.

One is a coincidence more often than a link (measured on a world nobody had tuned to: a deploy
"crew app: feeder map tiles" published as the cause of "no heartbeat from meters on feeder";
a config key ``max_gap_intervals`` as that of a spike check logging ``interval=``)."""

def _root(term: str) -> str:
    """A word without its inflection, so that "retry policy" and "retrying" share "retry"."""
    for ending, instead in (("ying", "y"), ("ies", "y"), ("ing", ""), ("ed", "")):
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            return term[: -len(ending)] + instead
    return term


NO_KEY_LINK = ("the change shares fewer than two words of its own with the symptom, and no "
               "runbook names its key")


def row_keys(row: Mapping[str, Any]) -> list[str]:
    """The dotted or underscored keys among the row's values (``dfs.datanode.du.reserved``).

    Only values that are one token (a key column, an image name): a key a summary sentence
    mentions ("charging_complete push: new template") is what the change is about in prose,
    not the setting it changed.
    """
    return [m.group(0) for k, v in row.items() if isinstance(v, str) and len(v.split()) == 1
            and not _ID_COLUMN.search(str(k).lower()) for m in _KEY.finditer(v)]


def names_key(row: Mapping[str, Any], text: str) -> bool:
    """Whether ``text`` names one of the row's keys exactly (as a whole key, any case)."""
    low = text.lower()
    return any(re.search(rf"(?<![\w.]){re.escape(k.lower())}(?![\w.])", low)
               for k in row_keys(row))


_NEW_VALUE = re.compile(r"^(new|new_value|to|to_value|value|after)$", re.I)
_OLD_VALUE = re.compile(r"^(old|old_value|from|from_value|previous|before)$", re.I)
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)([kmgt]i?b?)?", re.I)
_UNIT = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def _amount(text: str) -> float | None:
    """``512m`` → bytes, ``50`` → 50; None for anything else."""
    m = _NUMBER.fullmatch(text.strip())
    return float(m.group(1)) * _UNIT[(m.group(2) or "")[:1].lower()] if m else None


def _lowered_to(row: Mapping[str, Any]) -> str | None:
    """The value a change lowered a number to (``old_value=50, new_value=5`` → ``5``), or None."""
    new = next((str(v).strip() for k, v in row.items() if _NEW_VALUE.match(str(k))), "")
    old = next((str(v).strip() for k, v in row.items() if _OLD_VALUE.match(str(k))), "")
    low, high = _amount(new), _amount(old)
    return new if low is not None and high is not None and low < high else None


EXHAUSTED = re.compile(r"out ?of ?memory|OutOfMemoryError|heap space|too many open files|EMFILE"
                       r"|no space left|ENOSPC|exhausted|limit (?:reached|exceeded)", re.I)
"""A failure saying a resource ran out (memory, file descriptors, disk, a pool)."""


def lowered_limit_ran_out(row: Mapping[str, Any], text: str) -> bool:
    """Whether the change lowered a limit on the very resource ``text`` says ran out.

    The failure class "a limit lowered, then the resource exhausted": ``jvm.heap.max`` 2g →
    512m, then "OutOfMemoryError: Java heap space". The key's own words (after its namespace)
    must name the resource in the failure ("heap"), and the failure must say it ran out.
    """
    if _lowered_to(row) is None or not EXHAUSTED.search(text):
        return False
    said = {_root(t) for t in terms(text.replace("_", " ").replace(".", " "))}
    # The component's own name is no resource: "datanode" of ``dfs.datanode.du.reserved``.
    named = set(re.findall(r"[a-z]{3,}", " ".join(row_services(row))))
    for key in row_keys(row):
        words = set(re.findall(r"[a-z]{3,}", key.lower())[1:]) - named
        if _FILES_KEY.search(key):
            words.add("file")  # LimitNOFILE, ulimit -n: the open files a process may hold
        if {_root(w) for w in words if w not in ("max", "min", "limit", "size")} & said:
            return True
    return False


_FILES_KEY = re.compile(r"nofile|(?<![a-z])fds?(?![a-z])|file_?desc|open_?files", re.I)
"""A key limiting open file descriptors, whatever its spelling."""


def saturated_at_set_value(row: Mapping[str, Any], text: str) -> bool:
    """Whether ``text`` shows a limit used up at the very value the change lowered it to.

    The failure class "a limit saturated at the value a change set": a pool, a connection cap,
    a worker count lowered from 50 to 5, then failures saying ``active=5/5`` or ``max_conns=5``.
    The number alone is too common a word to link anything; at the value the change set, used
    up (``N/N``) or named as a maximum or limit, it is the change's own number in the failure.
    """
    value = _lowered_to(row)
    if value is None or not row_keys(row):
        return False
    n = re.escape(value)
    return re.search(rf"(?<![\d.]){n}\s*/\s*{n}(?![\d.])"
                     rf"|\b(?:max|limit|size|cap)\w*\s*[=:]\s*{n}(?![\d.])", text, re.I) is not None


MIN_KEY_WORDS = 3
"""Words of a key a runbook must say in a row, in its order, to name it in words."""


def names_key_in_words(row: Mapping[str, Any], text: str) -> bool:
    """Whether a runbook names one of the row's keys in words (``pool max size``).

    For ``db.pool.max_size``: its words after the namespace, in order, at least
    ``MIN_KEY_WORDS`` of them (fewer, "max size", would name half the keys of a system).
    """
    low = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
    for key in row_keys(row):
        words = re.findall(r"[a-z0-9]+", key.lower())[1:]
        if len(words) >= MIN_KEY_WORDS and f" {' '.join(words)} " in f" {low} ":
            return True
    return False
