"""Is this question about an incident? A check no router answer can override.

An on-call engineer's "Something broke in the shop between 14:00 and 14:20 — what is the root
cause?" names no service, and a router (the offline one, or a model) called it GENERAL and the
capability text was published labelled SUCCESS. A question that gives a window, names a symptom
or asks for a cause is a diagnosis request, whatever the router says (docs/design.md §16.2); a
GENERAL answer to it is turned into a diagnosis of the window the router read, or — with nothing
to scope by — a MISSING_REQUIRED_CONTEXT fallback that asks for it. Never the capability reply.
"""

from __future__ import annotations

import re

_INCIDENT = re.compile(
    r"\b(why|root[- ]?cause|rca|what (?:broke|happened|went wrong|failed|changed)|"
    r"broke|broken|break(?:s|ing)?|fail\w*|error\w*|exception\w*|crash\w*|timeout\w*|"
    r"timed? out|slow\w*|latenc\w*|incident\w*|outage\w*|down(?:time)?|unavailable|"
    r"reject\w*|declin\w*|5\d\d|spike\w*|degrad\w*|not working|alert\w*|anomal\w*|"
    r"stuck|hang\w*|oom|panic\w*|disk full|full disk|"
    # A trend in plain words, and the questions a channel asks ("bids fell off a cliff since
    # ~13:20, what is going on?", "what's happening with search?", "checkout is lagging").
    r"fell|drop\w*|dip|dipp\w*|plummet\w*|plung\w*|tank(?:s|ed|ing)?|cliff|collaps\w*|"
    r"nose-?div\w*|crater\w*|surg\w*|soar\w*|skyrocket\w*|stale|froze|frozen|freez\w*|"
    r"stopped|stall\w*|lag(?:s|ging|ged)?|backlog\w*|delay\w*|late|restart\w*|throttl\w*|"
    r"flap\w*|flaky|intermittent\w*|"
    r"what(?:'|’| i)?s (?:going on|happening|up with)|going on with|"
    r"happening (?:with|to)|"
    # Portuguese, Spanish, French, German: the languages the router reads dates in.
    r"causa|por ?qu[eê]|porque|falh\w*|fall\w*|erro\w*|travad\w*|travand\w*|fora do ar|"
    r"ca[ií]\w*|lent\w*|indispon[ií]ve\w*|inestab\w*|inst[aá]ve\w*|qu[eé] pas[oó]|"
    r"o que houve|panne\w*|pourquoi|d[ée]faillan\w*|erreur\w*|warum|ausfall\w*|fehler\w*|"
    r"st[öo]rung\w*|langsam\w*)\b", re.IGNORECASE)
"""Words of a symptom or of a request for a cause (English first; "causa", "falhando",
"fora do ar", "caída", "panne", "Ausfall" too): an error, a slowdown, a trend ("fell off a
cliff", "dropped", "stale"), or a channel's "what is going on?" — not a question about the
harness itself ("what can you do?", "how do I use this?")."""
_CLOCK = r"\d{1,2}(?::|h(?=\d{2}))\d{2}"
_WINDOW = re.compile(
    rf"\d{{4}}-\d{{2}}-\d{{2}}[T ]\d{{2}}:\d{{2}}|\b(?:between|from|since|at|around|entre|desde|"
    rf"depuis|seit|zwischen)\s+(?:~\s*|about\s+|around\s+|approx\.?\s+)?{_CLOCK}(?!\d)|"
    rf"\b{_CLOCK}(?:\s*[ap]\.?\s?m\b\.?)?\s*(?:and|to|e|y|a|às|as|até|und|bis|et|-|–|—)\s*"
    rf"{_CLOCK}(?![\d:])|"
    r"\blast\s+\d+\s*(?:minute|min|hour|h)",
    re.IGNORECASE)
"""A time window as questions give one."""
SYSTEM_WORDS = frozenset("""
shop system platform site website app application stack cluster store service services
backend production prod infra infrastructure everything
""".split())
"""Names of the whole system, not of one service: a router answer naming one of these (the
question said "the shop") is a system-wide investigation, not a service's."""


def is_incident_question(question: str) -> bool:
    """Whether the question asks about an incident: a window, a symptom, or a cause."""
    return bool(_INCIDENT.search(question) or _WINDOW.search(question))
