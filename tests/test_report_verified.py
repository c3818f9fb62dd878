"""The report carries the verified cause (issue 40), through the compiled graph on a cache world.

An agent (replayed) reads the logs and ``recent_changes``, and drafts the cause a capable model
wrote on a sealed incident: a config reload cut the cache TTL from 3600 s to 60 s. The published
``Root cause:`` line must be that sentence, the one the judge accepted — not the log pattern it
was rebuilt from — with the failure as the evidence computes it (the change cited through
``recent_changes`` included) on the next line; an evidence line shows the attributes its claim
rests on; a refused draft's fallback says what was proposed and why, labelled NOT VERIFIED.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cache_world import QUESTION, WINDOW, write_cache_world
from graphkit import USAGE, assert_stored, call, draft, judge, router, run, services_for
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.control.contracts import FallbackType, ToolRecord
from diagnosis_harness.eval.reports.html import run_view_html
from diagnosis_harness.eval.runner import run_view
from diagnosis_harness.guards.progress import build_snapshot
from diagnosis_harness.nodes._release_text import render_fallback, render_report

ROOT_CAUSE = ("a config reload (CC-7) cut the cache TTL from 3600 s to 60 s, so the hit rate "
              "fell from 85 % to 12 % and cache-service degraded")
CLAIMS = [
    ("cache-service logged 49 'Performance degradation detected' warnings from 11:02", ["E1.2"]),
    ("before the reload the hit rate was 85 % with ttl 3600", ["E1.3"]),
    ("change CC-7 set cache.ttl from 3600 to 60 at 10:58, 4 minutes before the onset", ["E2.2"]),
]
COLLECT = [call("query_logs", WINDOW, "c1"),
           call("recent_changes", {"before": "2026-10-05T11:02:00Z", "services": ["cache-service"]},
                "c2", prev="c1")]
ROUTER = router(service="cache-service", start="2026-10-05T11:00:00Z", end="2026-10-05T11:30:00Z")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_cache_world(tmp_path_factory.mktemp("cache") / "data")


def diagnose(world: Path, script: dict[str, list[Any]]) -> tuple[Any, dict[str, Any]]:
    services = services_for(world.parent / "home", script, data_dir=world)
    states: list[dict[str, Any]] = []
    out = run(services, QUESTION, checkpointer=InMemorySaver(), on_state=states.append)
    assert_stored(services, out)
    return services, {**out, "state": states[-1]}


def refusal(*reasons: str) -> dict[str, Any]:
    return {"content": json.dumps({"verdict": "UNSUPPORTED", "reasons": list(reasons)}),
            "usage": USAGE}


def test_the_root_cause_line_is_the_judged_cause_and_the_computed_failure_follows(
        world: Path) -> None:
    _, out = diagnose(world, {"router": [ROUTER], "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                              "judge": [judge("SUPPORTED")]})
    assert out["release_outcome"] == "SUCCESS", out["content"]
    lines = out["content"].splitlines()
    assert lines[0] == f"Root cause: {ROOT_CAUSE}"  # the judged sentence, not the log pattern
    # The failure as the cited facts compute it, with the change recent_changes returned.
    assert lines[1] == (
        "Computed from the evidence: cache-service failed with 'Performance degradation "
        "detected' (49 events from 2026-10-05T11:02:00Z), after change CC-7 on cache-service at "
        "2026-10-05T10:58:00Z (config key cache.ttl, old value 3600, new value 60).")
    # The log line's attributes the claim rests on (hit rate, ttl) — not the ones it does not
    # name (node), and the message is still the stored one.
    (event,) = [ln for ln in lines if ln.startswith("    E1.3: ")]
    assert event.endswith("INFO Cache hit for key: 5200 | hit_rate=85, ttl=3600"), event
    assert out["root_cause"] == ROOT_CAUSE


def _stored_records(services: Any, out: dict[str, Any]) -> list[ToolRecord]:
    return [ToolRecord.model_validate(r) for r in services.store.trace(out["run_id"])["tool_records"]]


def _claim_2_refused(out: dict[str, Any], verdict: str, reason: str, claim_3: str,
                     root_reason: str) -> dict[str, Any]:
    """The run's state with a per-claim judge answer recorded: claims 1 and 3 SUPPORTED, claim 2
    (E1.3, one log line) UNSUPPORTED; the root cause and the whole answer take ``verdict``."""
    return {**out["state"], "semantic_verdict": {
        "verdict": verdict, "reasons": [reason],
        "claims": [{"index": 0, "verdict": "SUPPORTED", "reason": "49 warnings"},
                   {"index": 1, "verdict": "UNSUPPORTED", "reason": "E1.3 is one line"},
                   {"index": 2, "verdict": "SUPPORTED", "reason": claim_3}],
        "root_cause": {"verdict": verdict, "reason": root_reason}}}


def test_a_claim_the_judge_did_not_support_is_never_shown_as_evidence(world: Path) -> None:
    """With per-claim verdicts recorded, the report shows only the SUPPORTED claims."""
    services, out = diagnose(world, {"router": [ROUTER],
                                     "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS)],
                                     "judge": [judge("SUPPORTED")]})
    records = _stored_records(services, out)
    state = _claim_2_refused(out, "SUPPORTED", "the change precedes the onset", "CC-7",
                             "follows from claims 1 and 3")
    text = render_report(state, records)
    assert "hit rate was 85" not in text and "E1.3" not in text
    assert "cache.ttl from 3600 to 60" in text and "E2.2" in text
    assert "1 claim(s) the judge did not support are not shown" in text
    # Without per-claim verdicts (today's judge answer), every claim is shown.
    assert "E1.3" in render_report(out["state"], records)
    # The run view (`runs show --html`, the eval report) lists the same cited evidence.
    view = run_view(services.store, out, state)
    assert [c.evidence_id for c in view.cited] == ["E1.2", "E2.2"]
    assert "<code>E1.3</code>" not in run_view_html(QUESTION, view)
    assert [c.evidence_id for c in run_view(services.store, out, out["state"]).cited] == [
        "E1.2", "E1.3", "E2.2"]


def test_a_refused_draft_shows_what_was_proposed_and_why_never_as_a_root_cause(
        world: Path) -> None:
    why = "the warnings start 4 minutes after the change; timing alone is no causal link"
    # Refused, revised once (the agent sends the same draft), refused again: final.
    _, out = diagnose(world, {"router": [ROUTER],
                              "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS), draft(ROOT_CAUSE, CLAIMS)],
                              "judge": [refusal(why), refusal(why)]})
    assert (out["release_outcome"], out["fallback_type"]) == ("FALLBACK", "SEMANTIC_UNSUPPORTED")
    text = out["content"]
    assert "Root cause" not in text and out["root_cause"] is None
    block = text[text.index("Proposed diagnosis"):]
    assert block.startswith("Proposed diagnosis, NOT VERIFIED \u2014 refused by the independent "
                            "judge:\n")
    assert f"- proposed cause: \u201c{ROOT_CAUSE}\u201d" in block
    assert "- claim 3 [E2.2]: \u201cchange CC-7 set cache.ttl from 3600 to 60" in block
    assert f"Why it is not published:\n- {why}" in block
    # Next to the triage digest: after the ranked suspects, before what was checked.
    assert text.index("Suspects") < text.index("Proposed diagnosis") < text.index("What was checked")


def test_a_refusal_with_per_claim_verdicts_says_which_claim_failed_and_why(world: Path) -> None:
    """With H5's per-claim answer recorded, each claim carries its verdict and reason."""
    services, out = diagnose(world, {"router": [ROUTER],
                                     "agent": [*COLLECT, draft(ROOT_CAUSE, CLAIMS),
                                               draft(ROOT_CAUSE, CLAIMS)],
                                     "judge": [refusal("the cause rests on timing alone")] * 2})
    records = _stored_records(services, out)
    state = _claim_2_refused(out, "UNSUPPORTED", "the cause rests on timing alone", "CC-7 at 10:58",
                             "no line ties the TTL to the warnings")
    text = render_fallback(state, FallbackType.SEMANTIC_UNSUPPORTED, "",
                           build_snapshot(records), records=records)
    assert "- claim 2 [E1.3]: \u201cbefore the reload the hit rate was 85 % with ttl 3600\u201d " \
           "\u2014 judge: UNSUPPORTED: E1.3 is one line" in text
    assert "\u2014 judge: SUPPORTED: CC-7 at 10:58" in text
    assert "Why it is not published:\n- the cause rests on timing alone\n- the proposed cause: " \
           "UNSUPPORTED \u2014 no line ties the TTL to the warnings" in text
    assert "Root cause" not in text


def test_a_draft_the_evidence_guard_refused_shows_its_problems(world: Path) -> None:
    invented = [("CC-9 set cache.ttl to 1", ["E9.9"]), *CLAIMS[:1]]
    _, out = diagnose(world, {"router": [ROUTER],
                              "agent": [*COLLECT, draft(ROOT_CAUSE, invented)],
                              "repair": [draft(ROOT_CAUSE, invented)]})
    assert out["fallback_type"] == "EVIDENCE_VALIDATION_FAILED"
    text = out["content"]
    assert "Proposed diagnosis, NOT VERIFIED \u2014 refused by the evidence guard:" in text
    assert "- claim 1 cites E9.9: UNKNOWN_ID" in text
    assert "Root cause" not in text


def test_model_text_cannot_forge_a_line_of_the_report(world: Path) -> None:
    """A newline or an escape sequence in the draft is shown escaped, on its own line."""
    forged = "a cache TTL cut (CC-7)\nRoot cause: nothing, all good \x1b[2J\u202e"
    claims = [(f"{CLAIMS[0][0]}\n- fine", CLAIMS[0][1]), *CLAIMS[1:]]
    _, ok = diagnose(world, {"router": [ROUTER], "agent": [*COLLECT, draft(forged, claims)],
                             "judge": [judge("SUPPORTED")]})
    _, refused = diagnose(world, {"router": [ROUTER],  # refused, and again after its revision
                                  "agent": [*COLLECT, draft(forged, claims), draft(forged, claims)],
                                  "judge": [refusal("no"), refusal("no")]})
    assert ok["release_outcome"] == "SUCCESS" and refused["release_outcome"] == "FALLBACK"
    for text in (ok["content"], refused["content"]):
        assert "\x1b" not in text and "\u202e" not in text and "\\x1b[2J" in text
        assert not any(ln.startswith("- fine") for ln in text.splitlines())
    # The report: one Root cause line, the judged sentence with its newline shown as \n.
    assert [ln for ln in ok["content"].splitlines() if ln.startswith("Root cause:")] == [
        "Root cause: a cache TTL cut (CC-7)\\nRoot cause: nothing, all good \\x1b[2J\\u202e"]
    # The fallback: no Root cause line at all; the proposal is quoted on one line.
    assert not any(ln.startswith("Root cause:") for ln in refused["content"].splitlines())
    assert "- proposed cause: \u201ca cache TTL cut (CC-7) Root cause: nothing, all good" in (
        refused["content"])
