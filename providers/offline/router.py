"""The offline router: intent, service, merchant and time window from a question."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis_harness.guards.incident import is_incident_question

_TIME = r"(\d{1,2}):(\d{2})"


def answer(values: Mapping[str, Any]) -> dict[str, Any]:
    """The router's answer from the router prompt's values (question, known services, now)."""
    try:
        now = datetime.fromisoformat(str(values.get("now", "")))
    except ValueError:
        now = datetime.now(UTC)
    known = [s.strip() for s in str(values.get("known_services", "")).split(",")
             if s.strip() and s.strip() != "(none)"]
    return route_question(str(values.get("question", "")), known, now)


def route_question(question: str, known_services: Sequence[str], now: datetime) -> dict[str, Any]:
    """Classify and extract service, merchant and window from a question (router role)."""
    q = question.lower()
    normalised = _dashed(q)
    # Both sides alike: a service named ``apache_2k`` (from Apache_2k.log) is asked about as
    # "apache_2k" or "apache 2k", and neither may be lost to the question's spelling only.
    service = next((s for s in sorted(known_services, key=len, reverse=True)
                    if _dashed(s) in normalised), None)
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
    diagnosis = service is not None or is_incident_question(question)
    if not diagnosis:
        return {"intent": "GENERAL", "service": None, "merchant": None, "start": None, "end": None}
    return {"intent": "DIAGNOSIS", "service": service, "merchant": merchant,
            "start": start.isoformat() if start else None,
            "end": end.isoformat() if end else None}


def _dashed(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.lower())


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
