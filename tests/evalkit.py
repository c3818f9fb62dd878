"""Suites for the `harness eval` tests: the demo's INC-1 scripted right and wrong, written to disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from diagnosis_harness import ReplayScript

ROOT = Path(__file__).resolve().parents[1]
Q1 = "payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on 2026-11-02 — why?"
SCOPE = {"service": "payment-service", "merchant": "M1001", "start": "2026-11-02T10:00:00+00:00",
         "end": "2026-11-02T10:10:00+00:00"}
LOGS = {"service": "payment-service", "start": "2026-11-02T09:50:00+00:00",
        "end": "2026-11-02T10:10:00+00:00", "pattern": "config reloaded"}
CHANGES = {"sql": "SELECT change_id, config_key, old_value, new_value, changed_at FROM config_changes "
                  "WHERE service = 'payment-service' AND changed_at BETWEEN '2026-11-02T09:00:00Z' "
                  "AND '2026-11-02T10:10:00Z'"}
CLAIMS = {"config reloaded with db.pool.max_size=10 (was 50)": ["E1.2"],
          "CHG-2041 changed db.pool.max_size from 50 to 10": ["E2.1"]}
RIGHT_CAUSE = "payment-db pool exhausted after CHG-2041 lowered db.pool.max_size from 50 to 10"
WRONG_CAUSES = ("notification-service deploy DEP-7771 at 09:55 overloaded payment-service",
                "the metrics exporter's statsd errors slowed payment-service down")
USAGE = {"input_tokens": 100, "output_tokens": 20}


def script(root_cause: str) -> ReplayScript:
    """INC-1 investigated, then ``root_cause`` drafted on real evidence and judged SUPPORTED."""
    return (ReplayScript(usage=USAGE).route(**SCOPE).call("query_logs", LOGS)
            .call("query_mysql", CHANGES).draft(root_cause, CLAIMS).judge("SUPPORTED"))


def replay_suite(folder: Path, *, wrong: int = 2) -> Path:
    """A YAML suite: INC-1 scripted right once and ``wrong`` times with a wrong cause."""
    folder.mkdir(parents=True, exist_ok=True)
    script(RIGHT_CAUSE).write(folder / "right.json")
    cases: list[dict[str, Any]] = [
        {"id": "right", "question": Q1, "model": "replay:right.json",
         "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool", "CHG-2041"]},
                    "cites": [{"contains": "CHG-2041", "tool": "query_mysql"}]}}]
    for n, cause in enumerate(WRONG_CAUSES[:wrong], start=1):
        script(cause).write(folder / f"wrong-{n}.json")
        cases.append({"id": f"wrong-{n}", "question": Q1, "model": f"replay:wrong-{n}.json",
                      "expect": {"outcome": "SUCCESS", "root_cause": {"all": ["pool"]}},
                      "tags": ["wrong-draft"]})
    import yaml

    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump({"name": "replayed", "cases": cases}, sort_keys=False),
                    encoding="utf-8")
    return path


def harness(*args: str, home: Path, env: dict[str, str] | None = None,
            timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the `harness` CLI as a user would, with its own home."""
    home.mkdir(parents=True, exist_ok=True)
    full = {k: v for k, v in os.environ.items() if k != "HARNESS_MODEL"}
    full.update(HARNESS_HOME=str(home), **(env or {}))
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=full, timeout=timeout, cwd=home)


def scorecard(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The scorecard of a `harness eval --json` run."""
    return json.loads(proc.stdout)["scorecard"]
