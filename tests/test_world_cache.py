"""The incident worlds are built on demand, never committed (issue 39; tests/worlds).

A clean clone holds no generated world: the first test that asks for one runs its generator into
the cache, once even when two pytest workers ask at the same moment, and a generator that fails
leaves nothing behind that could be mistaken for a world. What a spec keeps as data
(``scripts/worlds_data/<world>/``: truth entries, spell tables) is part of the key, and a
malformed data file is an error that names the file and the row, not a world built wrong.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
import worlds
from worlds import engine

ROOT = Path(__file__).resolve().parent.parent

GENERATOR = """
import os, sys, time
from pathlib import Path
with open(os.environ["RUNS_FILE"], "a") as f:
    f.write("run\\n")
out = Path(sys.argv[1]) / "tiny"
(out / "tables").mkdir(parents=True)
(out / "truth.json").write_text("{}\\n")
time.sleep(float(os.environ.get("GEN_SLEEP", "0")))
if os.environ.get("GEN_FAIL"):
    sys.exit("boom: the spec is broken")
(out / "tables" / "deploys.csv").write_text("deploy_id\\nD-1\\n")
"""


@pytest.fixture
def scripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "generate_world_tiny.py").write_text(GENERATOR, encoding="utf-8")
    monkeypatch.setenv("HARNESS_WORLD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RUNS_FILE", str(tmp_path / "runs"))
    (tmp_path / "runs").write_text("", encoding="utf-8")
    return folder


def _runs(scripts: Path) -> int:
    return len((scripts.parent / "runs").read_text(encoding="utf-8").splitlines())


def _leftovers(scripts: Path) -> list[str]:
    return sorted(p.name for p in (scripts.parent / "cache").iterdir() if p.name.startswith(".build"))


def test_no_generated_world_is_committed() -> None:
    tracked = subprocess.run(["git", "ls-files", "tests/data/worlds"], cwd=ROOT, capture_output=True,
                             text=True, check=True, timeout=60).stdout
    assert tracked == ""
    ignored = subprocess.run(["git", "check-ignore", "-q", "tests/data/worlds/shop/truth.json"],
                             cwd=ROOT, timeout=60, check=False)
    assert ignored.returncode == 0, "a world written to the generators' default folder must stay untracked"


def test_every_generator_script_is_a_world() -> None:
    scripts = {p.stem.removeprefix("generate_world_") for p in (ROOT / "scripts").glob("generate_world_*.py")}
    assert set(worlds.names()) == scripts | {"shop", "pipeline"}


def test_a_world_is_built_once_and_then_reused(scripts: Path) -> None:
    first = worlds.folder("tiny", scripts)
    assert (first / "tables" / "deploys.csv").read_text(encoding="utf-8") == "deploy_id\nD-1\n"
    assert worlds.folder("tiny", scripts) == first
    assert _runs(scripts) == 1
    assert first.name.startswith("tiny-") and _leftovers(scripts) == []


def test_two_workers_asking_at_once_build_it_once_and_both_see_it_whole(scripts: Path) -> None:
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT / "tests")!r})
        from pathlib import Path
        import worlds
        print(worlds.folder("tiny", Path({str(scripts)!r})))
    """)
    env = {**os.environ, "GEN_SLEEP": "1.5"}
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    (a, _), (b, _) = outs
    assert a == b and Path(a.strip()).is_dir()
    assert (Path(a.strip()) / "tables" / "deploys.csv").is_file()
    assert _runs(scripts) == 1
    assert _leftovers(scripts) == []


def test_an_edited_generator_is_rebuilt_and_its_old_build_removed(scripts: Path) -> None:
    old = worlds.folder("tiny", scripts)
    script = scripts / "generate_world_tiny.py"
    script.write_text(script.read_text(encoding="utf-8").replace("D-1", "D-2"), encoding="utf-8")
    new = worlds.folder("tiny", scripts)
    assert new != old and not old.exists()
    assert (new / "tables" / "deploys.csv").read_text(encoding="utf-8") == "deploy_id\nD-2\n"
    assert _runs(scripts) == 2


DATA_GENERATOR = """
import sys
from pathlib import Path
out = Path(sys.argv[1]) / "tiny"
(out / "tables").mkdir(parents=True)
rows = (Path(__file__).parent / "worlds_data" / "tiny" / "deploys.txt").read_text()
(out / "tables" / "deploys.csv").write_text("deploy_id\\n" + rows)
"""


def test_a_world_whose_data_file_changed_is_rebuilt_not_served_stale(scripts: Path) -> None:
    (scripts / "generate_world_tiny.py").write_text(DATA_GENERATOR, encoding="utf-8")
    data = scripts / "worlds_data" / "tiny" / "deploys.txt"
    data.parent.mkdir(parents=True)
    data.write_text("D-1\n", encoding="utf-8")
    old = worlds.folder("tiny", scripts)
    assert (old / "tables" / "deploys.csv").read_text(encoding="utf-8") == "deploy_id\nD-1\n"

    data.write_text("D-1\nD-2\n", encoding="utf-8")  # only the data file changes, not the code
    new = worlds.folder("tiny", scripts)
    assert new != old and not old.exists()
    assert (new / "tables" / "deploys.csv").read_text(encoding="utf-8") == "deploy_id\nD-1\nD-2\n"
    assert worlds.folder("tiny", scripts) == new  # and, unchanged again, it is reused


def test_a_failing_generator_leaves_no_world_and_says_why(scripts: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEN_FAIL", "1")
    with pytest.raises(worlds.WorldError, match="generate_world_tiny.py failed .*boom: the spec is broken"):
        worlds.folder("tiny", scripts)
    cache = scripts.parent / "cache"
    assert [p.name for p in cache.iterdir() if not p.name.startswith(".lock")] == []
    monkeypatch.delenv("GEN_FAIL")
    assert (worlds.folder("tiny", scripts) / "tables" / "deploys.csv").is_file()


def test_an_unknown_world_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tests.worlds", "path", "atlantis"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "HARNESS_WORLD_CACHE": str(tmp_path)})
    assert done.returncode == 1
    assert "no world 'atlantis'" in done.stderr and "fleet" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(engine, "DATA", tmp_path / "worlds_data")
    (tmp_path / "worlds_data" / "tiny").mkdir(parents=True)
    return tmp_path / "worlds_data" / "tiny"


CLOCK = engine.Clock(UTC, datetime(2026, 1, 5, tzinfo=UTC))
OUTAGE = (CLOCK.at(0, 9, 4), CLOCK.at(0, 9, 52))

TRUTH = """
offset: "+00:00"
description: one case
incidents:
- id: TINY-01
  kind: logs_only
  question: why?
  service: api
  start: 0 09:10
  end: 0 09:40
  onset: OUTAGE[0]
  cause_service: db
  root_cause: the disk filled
  key_terms: [disk]
  distractors: []
  runbook: null
  evidence:
  - logs: {service: db, start: "OUTAGE[0]", end: 0 09:40, contains: No space left, level: ERROR}
  - sql: {query: SELECT 1, contains: "1"}
"""


def test_a_truth_file_kept_as_data_is_the_truth_json_the_spec_wrote(data: Path) -> None:
    (data / "truth.yaml").write_text(TRUTH, encoding="utf-8")
    truth = engine.truth("tiny", CLOCK.at, CLOCK.iso, {"OUTAGE": OUTAGE})
    (case,) = truth["incidents"]
    assert truth["timezone"] == "+00:00" and truth["dataset"] == "tiny-world"
    assert case == engine.incident(
        CLOCK.iso, "TINY-01", "logs_only", "why?", "api", CLOCK.at(0, 9, 10), CLOCK.at(0, 9, 40),
        OUTAGE[0], "db", "the disk filled", ["disk"], [], None,
        [engine.log_step(CLOCK.iso, "db", OUTAGE[0], CLOCK.at(0, 9, 40), "No space left", "ERROR"),
         engine.sql_step("SELECT 1", "1")])


def test_a_truth_entry_naming_no_span_of_the_spec_is_a_clear_error(data: Path) -> None:
    (data / "truth.yaml").write_text(TRUTH.replace("onset: OUTAGE[0]", "onset: OUTGAE[0]"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"truth.yaml: 'TINY-01': 'OUTGAE\[0\]' is neither"):
        engine.truth("tiny", CLOCK.at, CLOCK.iso, {"OUTAGE": OUTAGE})


def test_a_classed_truth_file_reads_the_outcome_from_the_kind_and_keeps_its_note(data: Path) -> None:
    classed = (TRUTH.replace("kind: logs_only", "kind: trap\n  class: disk-full")
               .replace("  runbook: null\n", "  runbook: null\n  note: a trap\n"))
    (data / "truth.yaml").write_text(classed, encoding="utf-8")
    (case,) = engine.truth("tiny", CLOCK.at, CLOCK.iso, {"OUTAGE": OUTAGE}, engine.classed_case)["incidents"]
    assert list(case)[:3] == ["id", "kind", "class"] and case["class"] == "disk-full"
    assert case["expected_outcome"] == "FALLBACK" and case["fallback_type"] is None
    assert case["note"] == "a trap" and case["onset"] == OUTAGE[0].isoformat()
    (data / "truth.yaml").write_text(classed.replace("  note: a trap\n", ""), encoding="utf-8")
    with pytest.raises(ValueError, match=r"'TINY-01': not a truth entry .*has the fields"):
        engine.truth("tiny", CLOCK.at, CLOCK.iso, {"OUTAGE": OUTAGE}, engine.classed_case)


def test_a_spell_table_kept_as_data_moves_the_metrics_as_written(data: Path) -> None:
    (data / "spells.txt").write_text(
        "# service | span | moves\n"
        "db  | OUTAGE               | err = 40 10; p95 900\n"
        "api | OUTAGE[0] .. 0 09:30 | rps * 0.3; err + 2.5 1\n", encoding="utf-8")
    table = engine.spell_table("tiny", CLOCK.at, {"OUTAGE": OUTAGE})
    assert table == [("db", OUTAGE, {"err": ("=", 40, 10), "p95": 900}),
                     ("api", (OUTAGE[0], CLOCK.at(0, 9, 30)), {"rps": ("*", 0.3, 0), "err": ("+", 2.5, 1)})]
    assert isinstance(table[0][2]["p95"], int)  # an int stays one: a metric row writes 900, not 900.0
    row = {"err": 1.0, "p95": 120.0, "rps": 50.0}
    engine.spells(lambda: 0.5, CLOCK.at(0, 9, 20), "api", row, table)
    assert row == {"err": 1.0 + 2.5 + 0.5, "p95": 120.0, "rps": 50.0 * 0.3}


def test_a_spell_that_is_no_move_is_a_clear_error(data: Path) -> None:
    (data / "spells.txt").write_text("db | OUTAGE | err ~ 40 10\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"spells.txt: db \| OUTAGE: 'err ~ 40 10' is not KEY = A B"):
        engine.spell_table("tiny", CLOCK.at, {"OUTAGE": OUTAGE})
