"""The state's record index and the run store's facts: read back exactly, never guessed.

A checkpoint holds an index of each tool record (diagnosis_harness/run/records.py); the facts are in the run
store. An index entry edited in a checkpoint (Studio, ``update_state``) is backed by no stored
record: the guards leave it out and release publishes nothing (EVIDENCE_TAMPERED), wherever in
the run the edit was made. A model that repeats a tool-call id gets each of its calls back.
"""

from __future__ import annotations

import copy
from typing import Any

from graphkit import FULL_RUN, demo_home, edited_run, services_for

from diagnosis_harness.control.contracts import EvidenceStatus, Fact, InvocationStatus, ToolRecord
from diagnosis_harness.run.records import backs, index_entry, resolve


def test_an_index_entry_edited_before_the_guards_publishes_nothing() -> None:
    services = services_for(demo_home(), FULL_RUN)

    def add_a_fact_never_returned(_: Any, values: dict[str, Any]) -> dict[str, Any]:
        edited = copy.deepcopy(values["records"][1])
        edited["evidence_ids"] = [*edited["evidence_ids"], "E2.9"]
        return {"records": [edited]}

    first, final = edited_run(services, "edited-index", before="evidence_guard", as_node="draft_parse",
                              edit=add_a_fact_never_returned)
    assert (final["release_outcome"], final["failure_code"], final["content"]) == \
        ("FAILED", "EVIDENCE_TAMPERED", None)
    failure = next(e for e in final["events"] if e["event"] == "failure")
    assert "record c2 (query_mysql) is not what the tool returned" in failure["message"]
    assert services.store.get_run(first.run_id)["release_outcome"] == "FAILED"


def _record(call_id: str, ready: int, text: str) -> ToolRecord:
    return ToolRecord(tool_call_id=call_id, tool="query_logs", args={}, scope={"q": text},
                      invocation_status=InvocationStatus.READY,
                      evidence_status=EvidenceStatus.EVIDENCE_FOUND, ready_index=ready,
                      facts=[Fact(evidence_id=f"E{ready}.1", kind="log_event", text=text)])


def test_a_repeated_call_id_resolves_to_each_call_and_a_pasted_fact_to_none() -> None:
    one, two = _record("c1", 1, "first"), _record("c1", 2, "second")
    rows = [r.model_dump(mode="json") for r in (one, two)]
    records, problems = resolve([index_entry(one), index_entry(two)], rows)
    assert [r.facts[0].text for r in records] == ["first", "second"] and problems == []
    pasted = {**index_entry(one), "facts": [{"evidence_id": "E1.1", "text": "edited"}]}
    records, problems = resolve([pasted], rows)
    assert records == [] and problems == ["record c1 (query_logs) is not what the tool returned "
                                          "in this run"]
    # A whole record in state (a checkpoint written before the index) counts if it is exact.
    assert resolve([rows[0]], rows) == ([one], [])


def test_a_failed_calls_entry_carries_its_code_and_older_entries_still_back() -> None:
    refused = ToolRecord(tool_call_id="c2", tool="query_mysql", args={"sql": "x"},
                         scope={"sql": "x"}, invocation_status=InvocationStatus.ERROR,
                         evidence_status=EvidenceStatus.ERROR,
                         error="rejected_sql: only SELECT queries are allowed")
    entry = index_entry(refused)
    assert entry["error_code"] == "rejected_sql"
    # A checkpoint written before entries had codes resumes: its entry still backs the record.
    older = {k: v for k, v in entry.items() if k != "error_code"}
    assert backs(older, refused) and backs(entry, refused)
    # An edited code is not what the tool returned.
    assert not backs({**entry, "error_code": "timeout"}, refused)
