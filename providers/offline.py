"""The ``offline`` provider: a deterministic, rule-based investigator. No LLM is used.

It serves all four roles through the same graph, gates and guards as a real model, reading
only what a real model would read — the rendered prompts, the bound tool specs and the tool
observations — so every harness rule applies to it unchanged. It knows nothing about any
particular incident; its rules are generic SRE practice:

- router: known service names (from the prompt), merchant ids, and common time phrasings;
- agent: logs of the window → the dominant error pattern (most frequent, earliest first) →
  runbooks matching it → rows of time-stamped operational tables (changes, deploys, jobs,
  metrics…) near the window. It concludes only when a runbook matches the symptom *and* a row
  shares the symptom's distinctive terms; otherwise its conclusion is null;
- judge: every term and number of a claim must appear in the evidence it cites;
- repair: drops citations (and then claims) that are not in the available list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from harness.contracts import Role
from harness.settings import Settings

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Words that carry no claim of their own: grammar, and the framing the investigator writes
# around quoted evidence. Everything else in a claim must be found in the cited records.
_FRAMING = frozenset("""
a an and are as at by for from in into is it of on or the to was were with this that these
after before between during while than then when which who not no only
log logs logged event events matched matching error errors row rows runbook runbooks section
describes describe symptom symptoms evidence shows show points point cause caused causes root
service window time first last seen times count x n id
""".split())
_STOP = _FRAMING | frozenset("""
payment payments merchant merchants failed failure failures request requests
service services info warn warning debug fatal null none true false
""".split())
_TIME_COLUMN = re.compile(r"(^ts$|_ts$|_at$|_on$|time|date|^not_before$|^not_after$|^start|^end"
                          r"|^finish|^began|^created|^updated|^changed|^applied|^flipped)")
_CHANGE_WORDS = ("change", "config", "deploy", "release", "job", "cert", "migration", "flag",
                 "incident", "rollout", "version")
LOOKAROUND = timedelta(minutes=60)
"""How far before the window the investigator looks for changes that could explain it."""


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w


def terms(text: str) -> set[str]:
    """Distinctive lower-case word stems of a text (no numbers, no stopwords, ≥ 3 letters)."""
    return {_stem(w) for w in _WORD.findall(text) if not w[0].isdigit() and len(w) >= 3
            and _stem(w) not in _STOP and w.lower() not in _STOP}


def _numbers(text: str) -> set[str]:
    return {n.rstrip("0").rstrip(".") if "." in n else n for n in _NUMBER.findall(text)}


def _utc(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)


def _fmt(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _after(text: str, marker: str, until: str | None = None) -> str:
    start = text.find(marker)
    if start < 0:
        return ""
    rest = text[start + len(marker):]
    if until is not None and until in rest:
        rest = rest[: rest.index(until)]
    return rest.strip()


# --------------------------------------------------------------------------- router
_TIME = r"(\d{1,2}):(\d{2})"
_DIAGNOSIS_WORDS = ("why", "error", "fail", "timeout", "timed out", "time out", "slow", "latency",
                    "incident", "outage", "down", "reject", "declin", "5xx", "500", "502", "503",
                    "504", "spike", "degrad", "broken", "not working", "exception")


def route_question(question: str, known_services: Sequence[str], now: datetime) -> dict[str, Any]:
    """Classify and extract service, merchant and window from a question (router role)."""
    q = question.lower()
    normalised = re.sub(r"[\s_]+", "-", q)
    service = next((s for s in sorted(known_services, key=len, reverse=True)
                    if s.lower() in normalised), None)
    if service is None:  # a service the logs never mention (it may be down, or quiet)
        named = re.search(r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|svc|api|gateway|worker))\b",
                          q)
        service = named.group(1) if named else None
    if service is None:  # "payment service" / "payment" for payment-service
        service = next((s for s in known_services
                        if s.lower().removesuffix("-service") in re.findall(r"[a-z0-9-]+", q)
                        and s.lower().endswith("-service")), None)
    merchant_match = re.search(r"\bmerchant\s+([A-Za-z0-9_-]+)", question) or \
        re.search(r"\b(M\d{3,})\b", question)
    merchant = merchant_match.group(1) if merchant_match else None
    start, end = _window(question, now)
    diagnosis = service is not None or any(w in q for w in _DIAGNOSIS_WORDS)
    if not diagnosis:
        return {"intent": "GENERAL", "service": None, "merchant": None, "start": None, "end": None}
    return {"intent": "DIAGNOSIS", "service": service, "merchant": merchant,
            "start": start.isoformat() if start else None,
            "end": end.isoformat() if end else None}


def _window(question: str, now: datetime) -> tuple[datetime | None, datetime | None]:
    tz = now.tzinfo or UTC
    stamps = re.findall(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?",
                        question)
    if len(stamps) >= 2:
        a, b = (datetime.fromisoformat(s.replace(" ", "T").replace("Z", "+00:00")) for s in stamps[:2])
        return (a if a.tzinfo else a.replace(tzinfo=tz)), (b if b.tzinfo else b.replace(tzinfo=tz))
    last = re.search(r"last\s+(\d+)\s*(minute|min|hour|h)\w*", question, re.I)
    if last:
        n = int(last.group(1))
        delta = timedelta(hours=n) if last.group(2).lower().startswith("h") else timedelta(minutes=n)
        return now - delta, now
    date_match = re.search(r"(\d{4}-\d{2}-\d{2})", question)
    day = datetime.fromisoformat(date_match.group(1)).date() if date_match else now.date()
    pair = re.search(rf"(?:between|from)\s+{_TIME}\s*(?:and|to|-|–)\s*{_TIME}", question, re.I)
    if pair:
        h1, m1, h2, m2 = (int(x) for x in pair.groups())
        start = datetime(day.year, day.month, day.day, h1, m1, tzinfo=tz)
        end = datetime(day.year, day.month, day.day, h2, m2, tzinfo=tz)
        return start, end if end > start else end + timedelta(days=1)
    single = re.search(rf"\bat\s+{_TIME}", question, re.I)
    if single:
        h, m = (int(x) for x in single.groups())
        return datetime(day.year, day.month, day.day, h, m, tzinfo=tz), None
    if date_match:
        start = datetime(day.year, day.month, day.day, tzinfo=tz)
        return start, start + timedelta(days=1)
    return None, None


# --------------------------------------------------------------------------- agent
class _Investigation:
    """What the agent's conversation says so far: scope, calls, observations, tables."""

    def __init__(self, messages: Sequence[BaseMessage], tool_specs: Sequence[Any]) -> None:
        system = next((m for m in messages if isinstance(m, SystemMessage)), None)
        text = str(system.content) if system else ""
        self.service = _after(text, "- service:", "\n")
        self.merchant = _after(text, "- merchant:", "\n")
        window = _after(text, "- time window:", "\n").split()
        self.start, self.end = (window[0], window[2]) if len(window) >= 3 else ("", "")
        limit = re.search(r"at most (\d+) calls", text)
        self.max_calls = int(limit.group(1)) if limit else 10
        self.calls: list[Any] = [c for m in messages if isinstance(m, AIMessage)
                                            for c in m.tool_calls]
        self.obs: dict[str, dict[str, Any]] = {}
        for m in messages:
            if isinstance(m, ToolMessage):
                try:
                    body = json.loads(str(m.content))
                except json.JSONDecodeError:
                    body = {}
                self.obs[m.tool_call_id] = body if isinstance(body, dict) else {}
        self.tables = _tables(tool_specs)

    def items(self, tool: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for c in self.calls:
            if c["name"] == tool:
                out.extend(self.obs.get(c.get("id") or "", {}).get("items", []) or [])
        return out

    def called(self, tool: str, **args: Any) -> bool:
        return any(c["name"] == tool and all((c.get("args") or {}).get(k) == v
                                             for k, v in args.items()) for c in self.calls)

    @property
    def stop_required(self) -> bool:
        return any(o.get("stop_required") for o in self.obs.values())

    def symptom(self) -> dict[str, Any] | None:
        patterns = [i for i in self.items("query_logs") if i.get("kind") == "error_pattern"
                    and int(i.get("count") or 0) >= 2]
        patterns.sort(key=lambda i: (-int(i.get("count") or 0), str(i.get("first_seen"))))
        return patterns[0] if patterns else None

    def runbook(self, symptom: dict[str, Any]) -> list[dict[str, Any]]:
        passages = [i for i in self.items("lookup_knowledge") if i.get("kind") == "passage"]
        if not passages:
            return []
        doc = passages[0].get("doc_id")
        chosen = [p for p in passages if p.get("doc_id") == doc]
        body = " ".join(f"{p.get('title', '')} {p.get('text', '')}" for p in chosen)
        if len(terms(str(symptom.get("template", ""))) & terms(body)) < 2:
            return []  # the runbook does not speak of this symptom
        return chosen


def _tables(tool_specs: Sequence[Any]) -> dict[str, list[str]]:
    for spec in tool_specs:
        fn = spec.get("function", {}) if isinstance(spec, dict) else {}
        if fn.get("name") == "query_mysql":
            listing = _after(str(fn.get("description", "")), "Tables:")
            return {m.group(1): [c.strip() for c in m.group(2).split(",")]
                    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\)", listing)}
    return {}


def _gain(inv: _Investigation, call_id: str, focus: set[str]) -> str:
    body = inv.obs.get(call_id, {})
    items = body.get("items") or []
    if not items:
        return "NO_GAIN"
    if not focus:
        return "GAINED"
    text = json.dumps(items, ensure_ascii=False)
    return "GAINED" if terms(text) & focus else "NO_GAIN"


def _ranked_tables(inv: _Investigation, focus: set[str]) -> list[tuple[str, list[str]]]:
    scored = []
    for name, columns in inv.tables.items():
        time_cols = [c for c in columns if _TIME_COLUMN.search(c.lower())]
        if not time_cols:
            continue
        words = terms(name.replace("_", " ") + " " + " ".join(columns).replace("_", " "))
        score = 2 * len(words & focus) + sum(w in name.lower() for w in _CHANGE_WORDS)
        scored.append((score, name, time_cols))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(name, cols) for _, name, cols in scored]


def _sql(table: str, time_cols: list[str], start: str, end: str) -> str:
    lo, hi = _fmt(_utc(start) - LOOKAROUND), _fmt(_utc(end))
    cond = " OR ".join(f"{c} BETWEEN '{lo}' AND '{hi}'" for c in time_cols)
    return f"SELECT * FROM {table} WHERE {cond} LIMIT 20"


def next_step(messages: Sequence[BaseMessage], tool_specs: Sequence[Any]) -> dict[str, Any]:
    """The agent's next move: ``{"tool": name, "args": {...}}`` or ``{"draft": {...}}``."""
    inv = _Investigation(messages, tool_specs)
    symptom = inv.symptom()
    focus = terms(str(symptom.get("template", ""))) if symptom else set()
    runbook = inv.runbook(symptom) if symptom else []
    focus_all = focus | terms(" ".join(str(p.get("text", "")) for p in runbook))
    if inv.stop_required or len(inv.calls) >= inv.max_calls or not inv.start:
        return {"draft": _draft(inv, symptom, runbook)}
    step: dict[str, Any] | None = None
    if not inv.called("query_logs"):
        step = {"tool": "query_logs", "args": {"service": inv.service, "start": inv.start,
                                               "end": inv.end}}
    elif symptom and not inv.called("lookup_knowledge"):
        query = re.sub(r"<[a-z]+>|[^A-Za-z0-9_ .-]", " ", str(symptom.get("template", "")))
        step = {"tool": "lookup_knowledge", "args": {"query": " ".join(query.split())}}
    else:
        for table, cols in _ranked_tables(inv, focus_all)[:5]:
            sql = _sql(table, cols, inv.start, inv.end)
            if not inv.called("query_mysql", sql=sql) and len(inv.calls) < inv.max_calls - 1:
                step = {"tool": "query_mysql", "args": {"sql": sql}}
                break
    if step is None:
        return {"draft": _draft(inv, symptom, runbook)}
    if inv.calls:
        prev = inv.calls[-1].get("id") or ""
        gain = _gain(inv, prev, focus_all)
        step["args"]["previous_observation"] = {
            "tool_call_id": prev, "gain": gain,
            "note": "found items about the symptom" if gain == "GAINED" else "nothing new"}
    return step


def _value_terms(row: dict[str, Any]) -> set[str]:
    return terms(" ".join(str(v) for v in row.values()).replace("_", " ").replace(".", " "))


def _is_change_table(table: str) -> bool:
    return any(w in table.lower() for w in _CHANGE_WORDS)


def _in_window(row: dict[str, Any], columns: list[str], start: str, end: str) -> bool:
    lo, hi = _fmt(_utc(start)), _fmt(_utc(end))
    return any(lo <= str(row.get(c, "")) <= hi for c in columns if _TIME_COLUMN.search(c.lower()))


def _before(row: dict[str, Any], moment: str) -> bool:
    """A cause precedes its effect: some time column of the row is at or before ``moment``."""
    try:
        limit = _fmt(_utc(moment))
    except ValueError:
        return False
    return any(_TIME_COLUMN.search(k.lower()) and str(v)[:19] <= limit[:19]
               for k, v in row.items() if isinstance(v, str) and v[:4].isdigit())


def _evidence_rows(inv: _Investigation, focus: set[str], context: set[str],
                   first_seen: str) -> list[tuple[int, bool, dict[str, Any]]]:
    """Rows that speak of the symptom: (score, is_change, item), best first.

    A change (config change, deploy, job, certificate…) near the window that shares the
    symptom's distinctive terms is a candidate cause; a measurement inside the window that
    shares them corroborates. Only values count, not column names: the rows must *say* it.
    """
    found = []
    for call in inv.calls:
        if call["name"] != "query_mysql":
            continue
        table_match = re.search(r"FROM\s+([A-Za-z_][A-Za-z0-9_]*)", str(call["args"].get("sql", "")))
        table = table_match.group(1) if table_match else ""
        for item in inv.obs.get(call.get("id") or "", {}).get("items", []) or []:
            row = item.get("row")
            if not isinstance(row, dict):
                continue
            words = _value_terms(row)
            score = 2 * len(words & focus) + len(words & (context - focus))
            change = _is_change_table(table)
            if change and score >= 3 and _before(row, str(first_seen)):
                found.append((score + 100, True, item))
            elif not change and words & focus and _in_window(row, list(row), inv.start, inv.end):
                found.append((score, False, item))
    found.sort(key=lambda t: -t[0])
    return found


def _describe_row(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in list(row.items())[:8] if v not in (None, ""))


def _draft(inv: _Investigation, symptom: dict[str, Any] | None,
           runbook: list[dict[str, Any]]) -> dict[str, Any]:
    next_steps = ["check the service's upstream and downstream dependencies in the window",
                  "compare with the same window on a healthy day"]
    if symptom is None or not runbook:
        return {"conclusion": None, "next_steps": next_steps}
    focus = terms(str(symptom.get("template", "")))
    context = terms(" ".join(f"{p.get('title', '')} {p.get('text', '')}" for p in runbook))
    rows = _evidence_rows(inv, focus, context, str(symptom.get("first_seen", "")))
    if not rows:
        return {"conclusion": None, "next_steps": next_steps}
    cause = rows[0][2]
    corroboration = next((item for _, change, item in rows[1:] if not change), None)
    title = str(runbook[0].get("title") or runbook[0].get("doc_id"))
    claims = [
        {"statement": f"{symptom['count']} log events matched '{symptom['template']}' "
                      f"from {symptom.get('first_seen')} to {symptom.get('last_seen')}",
         "evidence_ids": [symptom["evidence_id"]]},
        *({"statement": f"row {_describe_row(r['row'])}", "evidence_ids": [r["evidence_id"]]}
          for r in (cause, corroboration) if r is not None),
        {"statement": f"runbook '{title}' describes this symptom",
         "evidence_ids": [runbook[0]["evidence_id"]]},
    ]
    top = _describe_row(cause["row"])
    return {"conclusion": {"root_cause": f"{title}: {top}", "claims": claims},
            "next_steps": [f"follow the runbook '{title}'", *next_steps[:1]]}


# --------------------------------------------------------------------------- judge, repair
def judge(payload_text: str) -> dict[str, Any]:
    """SUPPORTED only if every claim's terms and numbers appear in the evidence it cites."""
    try:
        payload = json.loads(payload_text)
        evidence = {e["evidence_id"]: f"{e.get('text', '')} {json.dumps(e.get('data', {}))}"
                    for e in payload["evidence"]}
        claims = payload["claims"]
        root_cause = str(payload["root_cause"])
    except (ValueError, KeyError, TypeError):
        return {"verdict": "UNSUPPORTED", "reasons": ["the input could not be read"]}
    reasons = []
    for n, claim in enumerate(claims, 1):
        cited = " ".join(evidence.get(e, "") for e in claim.get("evidence_ids", []))
        missing = _unsupported(str(claim.get("statement", "")), cited)
        if missing:
            reasons.append(f"claim {n}: not in its cited evidence: {', '.join(sorted(missing))}")
    missing = _unsupported(root_cause, " ".join(evidence.values()))
    if missing:
        reasons.append(f"root cause: not in the cited evidence: {', '.join(sorted(missing))}")
    if reasons:
        return {"verdict": "UNSUPPORTED", "reasons": reasons}
    return {"verdict": "SUPPORTED", "reasons": ["every term and number of each claim appears "
                                                "in the evidence it cites"]}


def _unsupported(statement: str, evidence_text: str) -> set[str]:
    have_terms = {_stem(w) for w in _WORD.findall(evidence_text.replace("_", " ").replace(".", " "))
                  if not w[0].isdigit()}
    have_numbers = _numbers(evidence_text)
    words = {_stem(w) for w in _WORD.findall(statement.replace("_", " ").replace(".", " "))
             if not w[0].isdigit() and w.lower() not in _FRAMING and len(w) >= 2}
    missing = {w for w in words if w not in have_terms and w.lower() not in _FRAMING}
    missing |= {n for n in _numbers(statement) if n not in have_numbers}
    return missing


def repair(prompt: str) -> dict[str, Any] | None:
    """Keep only citations from the available list; drop claims left with none."""
    try:
        draft = json.loads(_after(prompt, "Draft:\n", "\n\nProblems"))
    except ValueError:
        return None
    available = set(re.findall(r"^(E\d+\.\d+):", _after(prompt, "Evidence you may cite"), re.M))
    conclusion = draft.get("conclusion") if isinstance(draft, dict) else None
    if not conclusion:
        return draft if isinstance(draft, dict) else None
    claims = []
    for claim in conclusion.get("claims", []):
        ids = [e for e in claim.get("evidence_ids", []) if e in available]
        if ids:
            claims.append({**claim, "evidence_ids": ids})
    if not claims:
        return draft  # nothing can be kept: hand back the draft unchanged (the guard decides)
    return {**draft, "conclusion": {**conclusion, "claims": claims}}


# --------------------------------------------------------------------------- the chat model
class OfflineChatModel(BaseChatModel):
    """One role of the offline investigator, as a LangChain chat model (tokens: 0)."""

    role: str
    tool_specs: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "offline"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:  # noqa: D102
        return self.model_copy(update={"tool_specs": list(tools)})

    def _reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        prompt = str(messages[-1].content) if messages else ""
        if self.role == Role.ROUTER.value:
            services = _after(prompt, "when it matches one:", ". null if")
            now_text = _after(prompt, "against the current time,", ", and use its offset")
            try:
                now = datetime.fromisoformat(now_text)
            except ValueError:
                now = datetime.now(UTC)
            known = [s.strip() for s in services.split(",") if s.strip() and s.strip() != "(none)"]
            answer = route_question(_after(prompt, "Now the real question to route:"), known, now)
            return AIMessage(json.dumps(answer))
        if self.role == Role.AGENT.value:
            step = next_step(messages, self.tool_specs)
            if "draft" in step:
                return AIMessage(json.dumps(step["draft"]))
            n = sum(len(m.tool_calls) for m in messages if isinstance(m, AIMessage))
            return AIMessage("", tool_calls=[{"name": step["tool"], "args": step["args"],
                                              "id": f"offline_{n + 1}", "type": "tool_call"}])
        if self.role == Role.JUDGE.value:
            return AIMessage(json.dumps(judge(_after(prompt, "Input:\n", "\n\nAnswer with"))))
        repaired = repair(prompt)
        return AIMessage(json.dumps(repaired) if repaired is not None else "")

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        message = self._reply(messages)
        message.usage_metadata = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        return ChatResult(generations=[ChatGeneration(message=message)])


def build_offline_model(role: Role, settings: Settings) -> BaseChatModel:
    """The seam's entry point for ``HARNESS_MODEL=offline``."""
    return OfflineChatModel(role=role.value)

