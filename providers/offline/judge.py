"""The offline judge: checks what wording cannot fake, claim by claim (docs/design.md §8).

A capable model paraphrases ("the pool size was cut from 50 to 10" for ``db.pool.max_size=10
(was 50)``), so words are not asked for one by one. What a paraphrase cannot change is checked:

- every number, id, name, quoted string, time and ``host:port`` of a claim appears in the items
  it cites (:func:`_facts`); words a query wrote (a ``computed`` value, a ``renamed`` column,
  marked by ``query_mysql``; the data keys a metric fact marks computed, ``query_metrics``:
  labels the query wrote, numbers it made) support nothing, and a claim may not rest on them;
- a direction word (rose, fell, lowered, raised…) agrees with the cited data wherever that
  data has a before and an after value (:func:`_direction_problem`);
- most of a claim's distinctive words are found in its items, inflected or not (a paraphrase
  keeps most of what it rephrases; a claim the items mostly do not speak of is not shown).

Each claim gets its verdict. The root cause is judged on the supported claims alone: its facts
must appear in their items, and every cited change must pass the causal test
(``causal.change_problem``: on the affected service or linked to it by a cited item, before the
onset, speaking of the symptom through its own key/values); a change the tools dated after the
symptom's first event is no cause.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from diagnosis_harness.guards.semantic import read_wire
from diagnosis_harness.providers.offline.causal import Symptom, change_problem
from diagnosis_harness.providers.offline.text import CHANGE_WORDS, terms, utc

_TABLE = re.compile(r"\bFROM\s+\"?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_EVIDENCE_ID = re.compile(r"\bE\d+\.\d+\b")
_QUOTED = re.compile(r"(?<!\w)'([^']{2,2000})'(?!\w)|(?<!\w)\"([^\"]{2,2000})\"(?!\w)"
                     r"|\u201c([^\u201d]{2,2000})\u201d|\u2018([^\u2019]{2,2000})\u2019")
"""A quoted string; a quote inside a word (``service's``) opens and closes nothing."""
_HOST_PORT = re.compile(r"(?<![\w.-])(?:[A-Za-z][\w.-]*|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}\b")
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?)?"
                     r"|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NAME = re.compile(r"[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)+"  # payment-db, db.pool.max_size, CHG-2041
                   r"|\b[A-Za-z]+\d[A-Za-z0-9]*\b"        # M1001, v2, http2
                   r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b"  # CamelCase: DataXceiver
                   r"|\b[A-Z][A-Z0-9]{3,}\b")              # ECONNREFUSED, OOMKILLED
_PROSE = frozenset({"eg", "ie", "vs", "andor", "etc"})
"""Abbreviations of prose that the name pattern would take for a name (``e.g``, ``and/or``)."""
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_SEPARATORS = re.compile(r"[-_./\s]+")

_UP = frozenset("""rose rise rises risen rising increase increased increases increasing raise
raised raises raising grew grow grows grown growing jump jumped jumps spike spiked spikes climb
climbed climbs doubled tripled""".split())
_DOWN = frozenset("""fell fall falls fallen falling drop dropped drops dropping lower lowered
lowers lowering decrease decreased decreases decreasing reduce reduced reduces reducing cut cuts
shrank shrunk shrink declined decline declines halved""".split())
_PAIR_TEXT = (
    re.compile(r"(-?\d+(?:\.\d+)?)\S*\s*\(was\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE),  # after, before
    re.compile(r"from\s+(-?\d+(?:\.\d+)?)\S*\s+to\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE),
    re.compile(r"(-?\d+(?:\.\d+)?)\S*\s*(?:->|\u2192|=>)\s*(-?\d+(?:\.\d+)?)"),
)
_BEFORE_KEY = re.compile(r"^(old|before|prev|previous|from)([_-]?)(.*)$", re.IGNORECASE)
_AFTER_PREFIXES = ("new", "after", "current", "to")


def judge(payload_text: str) -> dict[str, Any]:
    """The verdict on the judge prompt's ``payload`` value: per claim, on the root cause, overall."""
    try:
        payload = read_wire(payload_text)
        items = {e["evidence_id"]: e for e in payload["evidence"]}
        claims = [(int(c.get("index", n)), str(c["statement"]), list(c["evidence_ids"]))
                  for n, c in enumerate(payload["claims"])]
        root_cause = str(payload["root_cause"])
    except (ValueError, KeyError, TypeError):
        return {"verdict": "UNSUPPORTED", "reasons": ["the input could not be read"]}
    verdicts: list[dict[str, Any]] = []
    supported_items: list[dict[str, Any]] = []
    for index, statement, cited in claims:
        cited_items = [items[e] for e in cited if e in items]
        why = _claim_problem(statement, cited_items)
        verdicts.append({"index": index, "verdict": "UNSUPPORTED" if why else "SUPPORTED",
                         "reason": why or "its numbers, names and times are in its cited items"})
        if why is None:
            supported_items += cited_items
    root_why = _root_problem(root_cause, supported_items, list(items.values()))
    root = {"verdict": "UNSUPPORTED" if root_why else "SUPPORTED",
            "reason": root_why or "it follows from the supported claims' items"}
    reasons = [f"claim {int(v['index']) + 1}: {v['reason']}" for v in verdicts
               if v["verdict"] == "UNSUPPORTED"] + ([f"root cause: {root_why}"] if root_why else [])
    return {"verdict": root["verdict"], "claims": verdicts, "root_cause": root,
            "reasons": reasons or ["every claim and the root cause hold on the cited items"]}


def _claim_problem(statement: str, cited: list[dict[str, Any]]) -> str | None:
    """Why the cited items do not show this claim (None: they do)."""
    if not cited:
        return "it cites no item the evidence holds"
    evidence = " ".join(_words_of(i) for i in cited)
    written = _query_words(cited) - terms(evidence)
    if (used := sorted(terms(statement) & written)):
        return f"rests on words its query wrote, not the data: {', '.join(used)}"
    unseen = _unseen_words(statement, evidence, strict=_withheld(cited))
    if (missing := _missing_facts(statement, evidence)):  # with the words, when they fail too
        return f"not in its cited items: {', '.join([*missing, *unseen])}"
    if (wrong := _direction_problem(statement, cited)):
        return wrong
    if unseen:
        return f"its words are not in its cited items: {', '.join(unseen)}"
    return None


def _root_problem(root_cause: str, supported: list[dict[str, Any]],
                  every: list[dict[str, Any]]) -> str | None:
    """Why the root cause does not follow from the supported claims (None: it does)."""
    if not supported:
        return "no claim is supported"
    evidence = " ".join(_words_of(i) for i in supported)
    if (missing := _missing_facts(root_cause, evidence)):
        return f"not in the supported claims' items: {', '.join(missing)}"
    if (wrong := _direction_problem(root_cause, supported)):
        return wrong
    if (unseen := _unseen_words(root_cause, evidence, strict=_withheld(supported))):
        return f"its words are not in the supported claims' items: {', '.join(unseen)}"
    if (causal := _causal_reasons(every)):
        return "; ".join(causal)
    return _standing(root_cause, every)


_ERRORS = ("FATAL", "CRITICAL", "ERROR")


def _standing(root_cause: str, items: list[dict[str, Any]]) -> str | None:
    """Why a root cause explains a standing condition, not this window (None: it does not).

    A cited per-service comparison (``compare_windows``' ``service_levels``) that shows the
    service's errors at about the same rate before the window, and nothing new or risen, says the
    errors the root cause names were there already: a service that logs them all day.
    """
    named = terms(root_cause)
    for item in items:
        data = item.get("data") or {}
        if item.get("kind") != "service_levels" or data.get("new_patterns") or data.get(
                "rose_patterns") or not terms(str(data.get("service", ""))) <= named:
            continue
        now = sum(int((data.get("window_by_level") or {}).get(k, 0)) for k in _ERRORS)
        before = sum(int((data.get("baseline_by_level") or {}).get(k, 0)) for k in _ERRORS)
        if now and before * 2 >= now:
            return (f"{item.get('evidence_id')} shows {data.get('service')}'s errors before the "
                    f"window too ({before} before, {now} in it; nothing new or risen): a standing "
                    "condition, not what went wrong in this window")
    return None


_PREFIX = 5
"""Two words of at least this many letters that share them are one word for the majority rule
(``reload``/``reloaded``, ``exhausted``/``exhaustion``): a paraphrase inflects."""


def _withheld(items: list[dict[str, Any]]) -> bool:
    """Whether a cited row holds text its query computed, which the judge is not shown.

    The payload shows a computed text value as null (``guards.semantic.measured_view``): a word
    the items do not hold may be that value's, so no word of a claim may go unfound.
    """
    for item in items:
        data = item.get("data")
        if not isinstance(data, dict):
            continue
        row = data.get("row")
        if isinstance(row, dict) and any(row.get(k) is None for k in data.get("computed") or ()):
            return True
    return False


def _unseen_words(statement: str, evidence: str, *, strict: bool = False) -> list[str]:
    """The statement's distinctive words missing from ``evidence`` when they are the majority.

    ``strict``: missing at all (the items hold query-written text the judge cannot see).

    A paraphrase keeps most of what it rephrases (``the pool size was cut from 50 to 10`` for
    ``db.pool.max_size=10 (was 50)``); a claim most of whose words the items never use (``the
    disk filled up on CHG-2041``) says something they do not. Direction words are checked
    against the data instead. Empty when at least half are found (or there are none).
    """
    have = terms(evidence)
    prefixes = {w[:_PREFIX] for w in have if len(w) >= _PREFIX}
    words = sorted(w for w in terms(statement) if w not in _UP and w not in _DOWN)
    unseen = [w for w in words
              if w not in have and not (len(w) >= _PREFIX and w[:_PREFIX] in prefixes)]
    return unseen if unseen and (strict or 2 * len(unseen) > len(words)) else []


def _normal(text: str) -> str:
    """Lower case, each run of separators (``-_./``, spaces) as one space: ``db pool max size``."""
    return " " + _SEPARATORS.sub(" ", text.lower()).strip() + " "


def _number(text: str) -> str:
    plain = text.replace(",", "")
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def _facts(statement: str) -> list[tuple[str, str]]:
    """What wording cannot fake in a statement, as ``(kind, text)``, each taken once.

    Quoted strings, ``host:port``, times, names and numbers, in that order: a number inside a
    name or a time is the name's or the time's.
    """
    rest = _EVIDENCE_ID.sub(" ", statement)
    found: list[tuple[str, str]] = []
    for kind, pattern in (("quoted", _QUOTED), ("host:port", _HOST_PORT), ("time", _MOMENT),
                          ("name", _NAME)):
        for match in pattern.finditer(rest):
            text = next((g for g in match.groups() if g), None) if match.groups() else match.group(0)
            if text and len(text.strip()) >= 2 and _SEPARATORS.sub("", text.lower()) not in _PROSE:
                found.append((kind, text.strip()))
        rest = pattern.sub(" ", rest)
    found += [("number", _number(n)) for n in _NUMBER.findall(rest)]
    return list(dict.fromkeys(found))


def _missing_facts(statement: str, evidence: str) -> list[str]:
    """The facts of ``statement`` that ``evidence`` does not hold, as ``kind 'text'``."""
    normal = _normal(evidence)
    have_numbers = {_number(n) for n in _NUMBER.findall(evidence)}
    missing = []
    for kind, text in _facts(statement):
        held = text in have_numbers if kind == "number" else (
            text.lower() in evidence.lower() or _normal(text).strip() in normal)
        if not held:
            missing.append(f"{kind} {text!r}")
    return missing


def _direction(statement: str) -> str | None:
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", statement)}
    up, down = bool(words & _UP), bool(words & _DOWN)
    if "went up" in statement.lower():
        up = True
    if "went down" in statement.lower():
        down = True
    return "up" if up and not down else "down" if down and not up else None


def _pairs(items: Iterable[dict[str, Any]]) -> list[tuple[float, float]]:
    """The (before, after) values the items state.

    ``10 (was 50)``, ``from 50 to 10``, ``50 -> 10`` in their text; ``old_value``/``new_value``
    -like keys in their data.
    """
    out: list[tuple[float, float]] = []
    for item in items:
        text = str(item.get("text", ""))
        for n, pattern in enumerate(_PAIR_TEXT):
            for a, b in pattern.findall(text):
                out.append((float(b), float(a)) if n == 0 else (float(a), float(b)))
        out += _data_pairs(item.get("data"))
    return out


def _data_pairs(data: Any) -> list[tuple[float, float]]:
    if isinstance(data, list):
        return [p for d in data for p in _data_pairs(d)]
    if not isinstance(data, dict):
        return []
    out = [p for v in data.values() if isinstance(v, dict | list) for p in _data_pairs(v)]
    lowered = {str(k).lower(): v for k, v in data.items()}
    for key, value in lowered.items():
        match = _BEFORE_KEY.match(key)
        if not match:
            continue
        _, sep, rest = match.groups()
        for prefix in _AFTER_PREFIXES:
            after = lowered.get(f"{prefix}{sep}{rest}")
            if after is not None and (a := _float(value)) is not None \
                    and (b := _float(after)) is not None:
                out.append((a, b))
    return out


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _direction_problem(statement: str, items: list[dict[str, Any]]) -> str | None:
    """Why a direction word of ``statement`` disagrees with the items' before/after values."""
    said = _direction(statement)
    pairs = [(a, b) for a, b in _pairs(items) if a != b]
    if said is None or not pairs:
        return None
    named = {_number(n) for n in _NUMBER.findall(statement)}
    relevant = [(a, b) for a, b in pairs if {_number(f"{a:g}"), _number(f"{b:g}")} & named] or pairs
    if any((b > a) == (said == "up") for a, b in relevant):
        return None
    a, b = relevant[0]
    return f"it says the value went {said}, but its cited items show {a:g} → {b:g}"


_SCOPE_KEYS = ("service", "merchant", "services")
"""What a tool's scope says an item is about (a log line of ``payment-service``); the scope's
query texts (``sql``, ``query``, ``promql``) are the agent's words, not the data's."""


def _words_of(item: dict[str, Any]) -> str:
    """The text an item's facts may come from: all of it, except what a query wrote.

    A row marks the columns its query computed (``computed``: name and value) or renamed
    (``renamed``: the name); their words are the query's, so they support nothing. The service
    (or merchant) the tool was asked about counts: the item is that service's.
    """
    raw = item.get("scope")
    scope: dict[str, Any] = raw if isinstance(raw, dict) else {}
    about = " ".join(json.dumps(scope[k], ensure_ascii=False) for k in _SCOPE_KEYS if scope.get(k))
    return f"{about} {_content_words(item)}"


def _content_words(item: dict[str, Any]) -> str:
    data = item.get("data") or {}
    row = data.get("row") if isinstance(data, dict) else None
    computed, renamed = (set(data.get(k) or ()) if isinstance(data, dict) else set()
                         for k in ("computed", "renamed"))
    if not isinstance(row, dict) and computed and isinstance(data, dict):
        return _measured_words(data, computed)
    if not isinstance(row, dict) or not (computed or renamed):
        return f"{item.get('text', '')} {json.dumps(data, ensure_ascii=False)}"
    kept = {k: v for k, v in row.items() if k not in computed}
    return " ".join(f"{'' if k in renamed else k} {json.dumps(v, ensure_ascii=False)}"
                    for k, v in kept.items())


def _measured_words(data: dict[str, Any], computed: set[str]) -> str:
    """The words of a fact that is no row (a metric series) and marks computed keys.

    ``computed`` names the keys of its data the query computed (labels no stored series has, the
    numbers of a query that is more than one selector); its text repeats them, so only the other
    keys are words.
    """
    return json.dumps({k: v for k, v in data.items() if k not in computed and k != "computed"})


def _query_words(items: list[dict[str, Any]]) -> set[str]:
    """The distinctive terms a query wrote into the items: computed values, chosen names."""
    out: set[str] = set()
    for item in items:
        data = item.get("data") or {}
        if not isinstance(data, dict):
            continue
        row = data.get("row")
        if not isinstance(row, dict):  # a metric fact: the data keys its query computed
            out |= terms(" ".join(json.dumps(data.get(k), ensure_ascii=False)
                                  for k in data.get("computed") or ()))
            continue
        for key in data.get("computed") or ():
            out |= terms(f"{key} {json.dumps(row.get(key), ensure_ascii=False)}")
        for key in data.get("renamed") or ():
            out |= terms(str(key).replace("_", " "))
    return out


def _later(moment: object, onset: str | None) -> bool:
    """Whether a change dated ``moment`` (recent_changes' ``time``) comes after the onset."""
    if not isinstance(moment, str) or onset is None:
        return False
    try:
        return utc(moment) > utc(onset)
    except ValueError:
        return False  # an undated change is judged by the causal test below, as any row


def _causal_reasons(items: list[dict[str, Any]]) -> list[str]:
    """Why a cited change does not explain the cited symptom (none: each does, or none cited)."""
    logs = [i for i in items if i.get("tool") == "query_logs"]
    if not logs:
        return []  # no symptom cited: the facts checks above are all there is to check
    services, onsets, texts = set(), [], []
    for item in logs:
        data = item.get("data") or {}
        service = data.get("service") or (item.get("scope") or {}).get("service")
        if service:
            services.add(str(service).lower())
        if (moment := data.get("first_seen") or data.get("ts")) is not None:
            onsets.append(str(moment))
        texts.append(f"{item.get('text', '')} {data.get('example', '')}")
    symptom = Symptom(frozenset(services), min(onsets) if onsets else None, " ".join(texts))
    references = [str(i.get("text", "")) for i in items if i.get("kind") == "passage"]
    reasons = []
    for item in items:
        data = item.get("data") or {}
        if item.get("kind") == "change" and _later(data.get("time"), symptom.onset):
            reasons.append(f"{item.get('evidence_id')}: the change at {data['time']} comes after "
                           f"the symptom's first event at {symptom.onset}")
            continue
        row = data.get("row")
        table = _TABLE.search(str((item.get("scope") or {}).get("sql", "")))
        if not isinstance(row, dict) or not table \
                or not any(w in table.group(1).lower() for w in CHANGE_WORDS):
            continue
        links = [f"{(i.get('data') or {}).get('service') or (i.get('scope') or {}).get('service') or ''}"
                 f" {i.get('text', '')}" for i in items if i is not item]
        if (why := change_problem(row, symptom, references, links)) is not None:
            reasons.append(f"{item.get('evidence_id')}: {why}")
    return reasons
