"""The offline default on the generated incident worlds, through the eval API.

Precision first (issue 26): no wrong published root cause on the worlds held here, every trap a
FALLBACK or the right cause, and at least the causes found today (the floor this branch
reached; raise it as localization improves, never lower it to make a change pass).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import worlds

from diagnosis_harness import Verdict, evaluate

FLOOR_RIGHT = {"shop": 7, "pipeline": 6, "fleet": 3, "ledger": 3, "grid": 1, "vod": 2,
               "hosp": 1, "docs": 0, "depot": 1, "iot": 0, "game": 2,
               "rides": 0}
"""Causes found by the offline default (docs/design.md §16.3): shop 7 of 12, pipeline 6 of 12,
fleet 3 of 11 (FLEET-10, the broker outage asked system-wide, since a caller's earlier warnings
that name nothing no longer start the incident before its cause).

Shop and pipeline were read while the rules were written. Measured with the windows the
questions give read right, a WARN-level or saturation "cause" was published wrong 6 times, so
such failures no longer conclude; following the asked service's failures to where they lead
(rule 3) found 3 more and once published a caller's statement timeouts as a slow database's
cause, so a cause that waits on something slow no longer concludes either; warnings explained
by a change whose key they name, a dependency's single "Killed" line just before its caller
failed, and a broker's slow flushes with broker-2's disk await up just before found 3 more.

Fleet was built by someone who had not read the rules, and run once before anyone looked at
it: 0 right, 3 wrong (a release's NullPointerException published without the release; a proxy's
refusals published as the pushing service's, "explained" by a deploy whose summary named the
message type; "tariff" read in the column ``tariff_snapshot_id``). The three fixes (an
unexplained change on the cause's component leaves it open again, an identifier is one word, a
key is a one-token value) are general rules; fleet then gave 0 wrong, 0 right. A rollout of
the failing component minutes before its own new ERROR explains it by timing (docs §16.3):
one more on fleet (it published one wrong from warnings until it required ERROR and code).
Breaking a loop of two services naming each other by time (the one failing first on its own
named the other only after it failed) found one more on fleet; a config change the failure
does not name no longer leaves the cause open: two more on shop, none on fleet, 0 wrong.

Ledger was built blind to the rules after that, and run once before anyone looked at it:
1 right, 1 wrong (a release "explained" a vendor's everyday timeouts through a known-noise
runbook page); a page that calls its symptoms everyday noise is no runbook match now: 2 right,
0 wrong.

Grid was built blind to the rules after that, and run once before anyone looked at it: 0 right,
7 wrong — one odd ERROR line published as the cause (a single 502, a known-noise delivery
report, twice), a release "explaining" lock timeouts that another session's ``VACUUM FULL``
caused, a failure on a service nothing tied to the one asked about, and two changes linked to
the symptom by one shared word ("feeder", ``intervals``). Each fix is a general rule (a cause
row of 3 events unless a failing service names it; a lock timeout waits on another session; a
root elsewhere must be tied to the asked service; a change must share two words of its own):
grid then gave 0 wrong, 0 right, and the other worlds kept their figures.

Aero was built blind after that, and run once before anyone looked at it: 0 right, 2 wrong — a
client's "OOM command not allowed" (redis' reply that it is full) published as the client's
failure, and postgres' "No space left on device" behind a dead CDC slot whose onset lies
beyond the 30-minute look-back. A full server's reply quoted by a client, or a failing server
spoken of by kind ("database unavailable"), now leaves the cause open: 1 wrong remains
(the disk-full, an intermediate cause), so aero is measured in the scorecard, not here.

Lock waits then conclude on the holder PostgreSQL names ("Process holding the lock: P") and the
heavy-lock statement P ran: GRID-08 (a DBA's ``VACUUM FULL``) and LEDGER-09 (a plain ``CREATE
INDEX`` of migration V212) right; AERO-08 is counted wrong by its truth, which asks for the
migration's version beside the statement.

Vod (a video-on-demand platform, Tokyo) was built blind after that, and run once before anyone
looked at it: 0 right, 5 wrong. Four came from dates written ``Apr 14``/``4/14``/``2026/04/14``,
read as the data's last day, one from the team's on-call overview page matched as a runbook;
with the dates read right, two more: a release "explaining" an object store's ``NoSuchKey`` by
timing, and a ``503 SlowDown`` taken for the packager's own failure. With those read right
(general rules: dates without a year or year first, an S3 error code names where it failed,
SlowDown is throttling, a page naming half the system is an overview) and a quoted
``snake_case`` name kept in patterns: 1 right, 0 wrong.

Mkt (a food-delivery marketplace, São Paulo, questions in Portuguese) was built blind after
that: 0 right, 1 wrong on its first run, 3 windows misread ("11:45 às 12:15"). With "às" read,
a long example's end kept and its error code quoted: 1 right, 1 wrong — the right component and
mechanism without the detail its truth asks for (a client's keepAlive=false, said only in an
INFO start-up line), so mkt, like aero, is measured in the scorecard (docs/eval.md), not here.

Hosp (a German hospital's clinical systems, CET, questions in German) was built blind after
that and run once before anyone looked at it: 0 right, 0 wrong, every case a FALLBACK, 8 of
its 14 windows read on the data's last day ("am 10.11."). With those read: 0 right, 0 wrong.

Game (an online game's backend, US Pacific, metrics exported long) was built blind after that
and run once before anyone looked at it: 0 right, 1 wrong — deploy DEP-7713 published as the
cause, rightly, but without the label "selector" its truth asks for — and 6 of its 14 windows
misread (a 12-hour clock, "2:00-2:30 PM"). Read right, and with each question scoped by the
service it is about rather than the longest name it mentions: one more counted wrong (auth's
OutOfMemoryError published without the denylist that filled the heap), so game is measured in
the scorecard. The same routing fix exposed a measurement of ``redis-cart`` published as the
cart service's cause on shop (now a measurement is the symptom's service's own, or named by
it). An edge's access lines beside a service failing on its own (hosp's keycloak, vod's DRM
server) and a certificate that expired just before a failure saying so (vod) found one more
on hosp and one on vod; 0 wrong on the worlds held here.

Docs (a collaborative document editor's SaaS, UK time) was built blind after all of that and run
once before anyone looked at it: 0 right, 3 wrong — an identity provider's 503s published
"after" the auth deploy of 9 minutes before (the failure named the provider by its URL, not by
host:port), a successful job run linked to a search timeout by its namespace's product name,
and postgres' everyday "duplicate key" error published as its failure two minutes before its
disk filled. Each fix is a general rule (a URL names where a failure failed; where a change ran
is no word of what it changed; a row of 3 events is the failure, an odd one only where none
is; a full disk concludes only with the change that explains it): 0 right, 0 wrong.

Depot (parcel logistics, CET) was built blind after that and scored once: 0 right, 1 wrong — its
release 4.12.0 published with "Unknown column '<id>'", the column's name masked. A quoted name
with a digit is now quoted in the cause (and the runbook rule's root cause says what failed,
which made game's DEP-7713 right): 1 right, 0 wrong. Iot (a smart-home platform, AEST) was built
blind after that and scored once, left as it was: 0 right, 0 wrong. Game's last wrong answer
(auth's heap exhausted, published without the denylist that filled it) became right when the
cause quoted its one new INFO line just before it failed: game 2 right, 0 wrong. Rides (a
ride-hailing platform, São Paulo time) was built blind after all of that and scored once, left
as it was: 0 right, 0 wrong."""


@pytest.mark.parametrize(("world", "zone"), [("shop", "UTC"), ("pipeline", "+08:00"),
                                             ("fleet", "-06:00"), ("ledger", "+11:00"),
                                             ("grid", "+05:30"), ("vod", "+09:00"),
                                             ("hosp", "+01:00"), ("docs", "+00:00"),
                                             ("depot", "+01:00"), ("iot", "+10:00"),
                                             ("game", "-08:00"), ("rides", "-03:00")])
def test_the_offline_default_publishes_no_wrong_cause_on_a_world(tmp_path: Path, world: str,
                                                                 zone: str) -> None:
    truth = worlds.folder(world) / "truth.json"
    kinds = {i["id"]: i["kind"] for i in json.loads(truth.read_text("utf-8"))["incidents"]}
    # The world's store as the loader tests indexed it (tests/worlds.loaded), not again here.
    card = evaluate(truth, model="offline", home=worlds.seeded(truth.parent, tmp_path),
                    workers=2, settings={"timezone": zone})
    verdicts = {c.id: c.verdict for c in card.cases}
    assert card.summary.wrong == 0, verdicts
    traps = {c.id: (c.outcome, c.verdict) for c in card.cases if kinds[c.id].startswith("trap")}
    assert traps and all(o.startswith("FALLBACK") or v is Verdict.RIGHT
                         for o, v in traps.values()), traps
    assert card.summary.right >= FLOOR_RIGHT[world], verdicts
    # Something was localized from logs alone: a case with no runbook found its cause (not yet
    # on grid, docs, depot, iot or rides, see FLOOR_RIGHT).
    assert world in ("grid", "docs", "depot", "iot", "rides") or any(
        verdicts[i] is Verdict.RIGHT for i, kind in kinds.items()
        if kind in ("logs_only", "system_wide"))


def test_a_published_cause_s_picture_marks_only_changes_as_changes(tmp_path: Path) -> None:
    # FLEET-01 publishes from onset_timeline rows and cites no change: its picture (the HTML
    # report's timeline) marks each service's first error, and no log row as a "change".
    from diagnosis_harness.eval.suite import load_suite

    suite = load_suite(worlds.folder("fleet") / "truth.json")
    one = suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.id == "FLEET-01")})
    card = evaluate(one, model="offline", home=worlds.seeded(worlds.folder("fleet"), tmp_path),
                    workers=1, settings={"timezone": "-06:00"})
    (case,) = card.cases
    assert case.verdict is Verdict.RIGHT and case.run is not None
    picture = case.run.picture
    assert picture is not None
    kinds = {m.kind for m in picture.marks}
    assert kinds == {"onset"}, picture.marks
    assert {m.label for m in picture.marks} >= {"ocpp-gateway first error", "authz first error"}
