"""The offline router reads the window a question writes (docs/design.md §16.3, "Windows").

A wrong window is a wrong investigation: the onsets of another hour, or of a whole day. Each row
is a question as an on-call engineer types it and the window it must give.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from diagnosis_harness.providers.offline.router import route_question

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CASES = [
    ("payment errors between 10:00 and 10:10 on 2026-11-05 — why?",
     "2026-11-05T10:00:00+00:00", "2026-11-05T10:10:00+00:00"),
    ("ingest-api 503s, 14:30–14:50 (UTC+8) on 7 Apr 2026. Root cause?",
     "2026-04-07T14:30:00+08:00", "2026-04-07T14:50:00+08:00"),
    ("authz rejects cards, 13:25–13:50, 11-Feb-2026. What changed?",
     "2026-02-11T13:25:00+00:00", "2026-02-11T13:50:00+00:00"),
    ("dfs-sink stopped writing, 11:25 to 11:45 SGT on 2026-04-09",
     "2026-04-09T11:25:00+08:00", "2026-04-09T11:45:00+08:00"),
    ("checkout errors 22:50-23:10 CEST on 3 Jun 2026",
     "2026-06-03T22:50:00+02:00", "2026-06-03T23:10:00+02:00"),
    ("api latency 09:00–09:20 PDT, March 16, 2026", "2026-03-16T09:00:00-07:00",
     "2026-03-16T09:20:00-07:00"),
    # An ambiguous abbreviation (US Central or China Standard Time) is not read: HARNESS_TIMEZONE.
    ("stops failing 15:10 to 15:30 CST, Feb 12 2026", "2026-02-12T15:10:00+00:00",
     "2026-02-12T15:30:00+00:00"),
    ("Everything fails 2026-02-12T14:22Z to 2026-02-12T14:40Z", "2026-02-12T14:22:00+00:00",
     "2026-02-12T14:40:00+00:00"),
    # "from about 19:00 — 19:05 to 19:35": a sentence's dash, then the window (not 19:00–19:05,
    # nor 06:50 → 06:45 the next day, a whole day).
    ("recharges failing from about 19:00 — 19:05 to 19:35 +05:30, 20 Jan 2026",
     "2026-01-20T19:05:00+05:30", "2026-01-20T19:35:00+05:30"),
    ("recharges erroring since ~06:50 — 06:45 to 07:15 +05:30, 21 Jan 2026. What broke?",
     "2026-01-21T06:45:00+05:30", "2026-01-21T07:15:00+05:30"),
    # Numeric dates: day first (21.01.2026, 11/03/2026), month first only where the second
    # number cannot be a month or a slashed date is written in the Americas.
    ("api-gateway returning 503s, 10:05–10:35 +05:30, 21.01.2026. What changed?",
     "2026-01-21T10:05:00+05:30", "2026-01-21T10:35:00+05:30"),
    ("declines shot up — window 10:20 to 10:45 AEDT, Wed 11/03/2026. What changed?",
     "2026-03-11T10:20:00+11:00", "2026-03-11T10:45:00+11:00"),
    ("checkout 500s 10:00 to 10:10 UTC, 01/21/2026", "2026-01-21T10:00:00+00:00",
     "2026-01-21T10:10:00+00:00"),
    ("checkout 500s 10:00 to 10:10 -05:00, 03/04/2026", "2026-03-04T10:00:00-05:00",
     "2026-03-04T10:10:00-05:00"),
    # In the Americas the offset does not say the custom (São Paulo writes day first): the one
    # reading in the month up to the data's "now" (1 Dec 2026) is the day meant.
    ("pedidos falhando 10:00 to 10:10 -03:00, 11/12/2026", "2026-11-12T10:00:00-03:00",
     "2026-11-12T10:10:00-03:00"),
    ("pedidos falhando 10:00 to 10:10 -03:00, 25/11/2026", "2026-11-25T10:00:00-03:00",
     "2026-11-25T10:10:00-03:00"),
    ("pedidos falhando 10:00 to 10:10 -03:00, 01/11/2026", "2026-11-01T10:00:00-03:00",
     "2026-11-01T10:10:00-03:00"),
    # Year first with slashes (Japan, China): 2026/04/14. Without the year: the latest such day
    # up to "now" (NOW is 1 Dec 2026: "30 Dec" is last year's); a slashed pair month first
    # where the second cannot be a month, day first where the first cannot, else month first
    # in the Americas and at +08:00/+09:00, day first elsewhere.
    ("playback errors 09:10–09:40 JST, 2026/04/14. Which component failed?",
     "2026-04-14T09:10:00+09:00", "2026-04-14T09:40:00+09:00"),
    ("catalog stale — 12:05 to 12:35 JST, Apr 14. What's going on?",
     "2026-04-14T12:05:00+09:00", "2026-04-14T12:35:00+09:00"),
    ("playback 404s — 20:10–20:40 JST, 14 Apr. What broke?",
     "2026-04-14T20:10:00+09:00", "2026-04-14T20:40:00+09:00"),
    ("logged out when they press play — 20:10 to 20:40 JST on 4/15.",
     "2026-04-15T20:10:00+09:00", "2026-04-15T20:40:00+09:00"),
    ("checkout errors 10:00-10:30 CET on 14/4", "2026-04-14T10:00:00+01:00",
     "2026-04-14T10:30:00+01:00"),
    ("checkout errors 10:00-10:30 CET on 4/5", "2026-05-04T10:00:00+01:00",
     "2026-05-04T10:30:00+01:00"),
    ("checkout errors 10:00-10:30 JST on 4/5", "2026-04-05T10:00:00+09:00",
     "2026-04-05T10:30:00+09:00"),
    ("batch failed 23:10 to 23:40 UTC on 30 Dec", "2025-12-30T23:10:00+00:00",
     "2025-12-30T23:40:00+00:00"),
    # Not dates: a share, a ratio of attempts.
    ("1/2 of checkouts failing 10:00-10:10, why?", "2026-12-01T10:00:00+00:00",
     "2026-12-01T10:10:00+00:00"),
    # In the team's own language: month names, "de", "e"/"a"/"und" between the ends, 14h30,
    # and a question with no English word is still an incident question.
    ("pedidos travando no checkout entre 19:10 e 19:40 de 14/11 — qual a causa?",
     "2026-11-14T19:10:00+00:00", "2026-11-14T19:40:00+00:00"),
    ("tudo fora do ar de 14h30 a 15h00 do dia 14 de novembro de 2026",
     "2026-11-14T14:30:00+00:00", "2026-11-14T15:00:00+00:00"),
    ("pagamentos falhando 20:10–20:40 BRT, 14 nov", "2026-11-14T20:10:00-03:00",
     "2026-11-14T20:40:00-03:00"),
    ("tudo travando — 11:45 às 12:15 de 25/11. Which component failed?",
     "2026-11-25T11:45:00+00:00", "2026-11-25T12:15:00+00:00"),
    ("fhir-facade gibt 401 zurück — 10:30–11:00 am 10.11. What changed?",
     "2026-11-10T10:30:00+00:00", "2026-11-10T11:00:00+00:00"),
    # A version is no date: "5.2.0", or "12.11" without its closing dot.
    ("packager 5.2.0 errors 10:00-10:20, why?", "2026-12-01T10:00:00+00:00",
     "2026-12-01T10:20:00+00:00"),
    ("Fehler zwischen 10:00 und 10:30 am 12. März 2026", "2026-03-12T10:00:00+00:00",
     "2026-03-12T10:30:00+00:00"),
    ("panne du paiement de 09:00 à 09:20 le 3 déc. 2025", "2025-12-03T09:00:00+00:00",
     "2025-12-03T09:20:00+00:00"),
    ("10 out of 12 checkouts failed 10:00-10:20 on 2026-11-14", "2026-11-14T10:00:00+00:00",
     "2026-11-14T10:20:00+00:00"),
    # A 12-hour clock, as US teams write it: an end's am/pm holds for a start that writes none,
    # unless that puts the start after the end (measured on the blind game world: 6 of its 14
    # windows were read at the wrong half of the day, or as the whole day).
    ("checkout 502s, 3:05pm-3:35pm on 2026-11-14", "2026-11-14T15:05:00+00:00",
     "2026-11-14T15:35:00+00:00"),
    ("api errors 4:00-4:30 PM on 2026-11-14", "2026-11-14T16:00:00+00:00",
     "2026-11-14T16:30:00+00:00"),
    ("queue stuck 7:10–7:40am, Nov 14 2026", "2026-11-14T07:10:00+00:00",
     "2026-11-14T07:40:00+00:00"),
    ("batch late from 11:30 to 1:00 p.m. on 2026-11-14", "2026-11-14T11:30:00+00:00",
     "2026-11-14T13:00:00+00:00"),
    ("pagos fallan de 3:30 a 4:00 pm el 2026-11-14", "2026-11-14T15:30:00+00:00",
     "2026-11-14T16:00:00+00:00"),
    ("logins down 12:10am to 12:40am on 2026-11-14", "2026-11-14T00:10:00+00:00",
     "2026-11-14T00:40:00+00:00"),
    ("jobs failing since 9:40pm on 2026-11-14", "2026-11-14T21:40:00+00:00", None),
    # Day and month with a dash, the year left out: the latest such day up to "now".
    ("fares erroring 10:00–10:30, 18-Feb", "2026-02-18T10:00:00+00:00",
     "2026-02-18T10:30:00+00:00"),
    # A start only: the router node adds the look-back's length (nodes/route.py).
    ("jobs failing since ~09:00 on 2026-04-09 (UTC+8), why?", "2026-04-09T09:00:00+08:00", None),
    ("checkout failing around 14:20 on 2026-03-18", "2026-03-18T14:20:00+00:00", None),
]


@pytest.mark.parametrize(("question", "start", "end"), CASES, ids=[c[0][:30] for c in CASES])
def test_the_window_a_question_writes_is_the_window_investigated(question: str, start: str,
                                                                  end: str | None) -> None:
    routed = route_question(question, ["authz", "dfs-sink", "ingest-api"], NOW)
    assert (routed["start"], routed["end"]) == (start, end)


@pytest.mark.parametrize(("question", "service"), [
    ("Everything is failing at once: starts, stops, billing, pushes. 10:00-10:20 on 2026-02-12",
     None),
    ("Which component failed? authz alerts all over, 10:00-10:20 on 2026-02-12", None),
    ("billing errors 10:00-10:10 on 2026-02-12, why?", "billing"),
    ("Todo falla: login, billing y authz devuelven 403 de 10:00 a 10:20. ¿Qué componente es la "
     "causa?", None),
    ("billing and authz erroring 10:00-10:20 on 2026-02-12 — which component is the root cause?",
     None),
])
def test_a_question_asking_which_component_failed_is_system_wide(question: str,
                                                                 service: str | None) -> None:
    routed = route_question(question, ["authz", "billing"], NOW)
    assert routed["intent"] == "DIAGNOSIS" and routed["service"] == service


@pytest.mark.parametrize(("question", "service"), [
    # Labelled: the others it names are noise the reporter mentions.
    ("lobby: invites not arriving, 14:00-14:30 on 2026-11-14. telemetry is throwing errors "
     "again too — why?", "lobby"),
    # The one the window follows, not the page the symptom is seen on.
    ("Card payments failing at checkout since ~15:30. payment-gw, 15:35 to 15:50 — what "
     "happened?", "payment-gw"),
    ("carts emptying when customers go to checkout — cart service, 17:25 to 17:45", "cart"),
    # Else the one named first: a version after a name is no window.
    ("edge-gw returning 504s 11:45–12:05; ocpp-gateway has been spitting errors all morning",
     "edge-gw"),
    ("loader failing right after the scheduler 2.9.0 release, 14:30–14:50", "loader"),
    # A name inside a longer word is no name ("Card auths" is not card-auth).
    ("Card auths and transfers both erroring 07:55 to 08:15 — what broke?", None),
    ("payment timeouts on payment-service between 10:00 and 10:10", "payment-service"),
])
def test_the_service_asked_about_is_the_one_the_question_scopes_by(question: str,
                                                                   service: str | None) -> None:
    known = ["lobby", "telemetry", "checkout", "payment-gw", "cart", "edge-gw", "ocpp-gateway",
             "scheduler", "loader", "card-auth", "payment", "payment-service"]
    assert route_question(question, known, NOW)["service"] == service
