"""The report a person reads at 3 a.m., pinned: one SUCCESS and one FALLBACK of the storage
world, byte for byte (tests/data/golden/), and the structured ``--json`` fields beside them.

Regenerate after an intended change with ``REGOLD_REPORTS=1`` and read the diff.
"""

from __future__ import annotations

import asyncio
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from storage_dataset import CASES, write_storage_dataset

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"


@cache
def storage(root: str) -> Services:
    data = write_storage_dataset(Path(root) / "data")
    return Services.from_settings(load_settings(model="offline", home=Path(root) / "home",
                                                data_dir=data))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("golden"))


def diagnose(root: str, case: str) -> dict[str, Any]:
    return asyncio.run(run_turn(storage(root), CASES[case]["question"],
                                checkpointer=InMemorySaver()))


def matches_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("REGOLD_REPORTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_success_report_reads_as_the_judged_cause_then_the_computed_failure(root: str) -> None:
    out = diagnose(root, "RESERVED")
    assert out["release_outcome"] == "SUCCESS"
    matches_golden("success_report.txt", out["content"])
    first, computed = out["content"].splitlines()[:2]
    # The root cause the judge accepted, as the draft wrote it (the offline investigator's
    # sentence of structured values), then the failure as the cited facts compute it.
    assert first == f"Root cause: {out['root_cause']}"
    assert computed.startswith("Computed from the evidence: datanode failed with ")
    assert "=" not in computed  # no raw key=value row in the computed sentence
    assert "CH-31" in computed and "dfs.datanode.du.reserved" in computed
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d", out["content"])  # to the second
    quoted = [ln for ln in out["content"].splitlines() if "(runbook, quoted)" in ln]
    assert quoted and all(ln.rstrip().endswith("\u201d") for ln in quoted)
    assert out["root_cause"] and out["claims"] and out["suspects"] == []


def test_fallback_report_leads_with_ranked_suspects(root: str) -> None:
    out = diagnose(root, "DFS")
    assert out["release_outcome"] == "FALLBACK"
    matches_golden("fallback_report.txt", out["content"])
    suspects = out["suspects"]
    # One line per component: datanode's failure, the volume it names, and its latest change
    # before the onset (two earlier ones counted), each with the evidence id it stands on.
    assert [s["kind"] for s in suspects] == ["anomaly"]
    assert suspects[0]["service"] == "datanode" and suspects[0]["count"] == 30
    assert suspects[0]["onset"] == "2026-09-01T10:02:05Z" and suspects[0]["where"] == "/data/3"
    change = suspects[0]["after_change"]
    assert (change["onset"], change["earlier"]) == ("2026-09-01T09:50:00Z", 2)
    facts = {f["evidence_id"] for r in storage(root).store.trace(out["run_id"])["tool_records"]
             for f in r["facts"]}
    assert all(s["evidence_id"] in facts for s in suspects) and change["evidence_id"] in facts
    text = out["content"]
    assert text.index("Suspects") < text.index("What was checked")
    assert "… and" in text  # the long fact list is summarized
    assert "(no scope)" not in text  # every check says what it looked at (changes: when, whose)
    assert out["root_cause"] is None and out["claims"] == []
