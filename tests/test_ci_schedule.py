"""The second tier's schedule on three workers: the longest files start first (tests/conftest.py).

``-n 3 --dist loadfile`` hands out whole files; xdist's default order is by number of tests,
most first, so a file of one or two minute-long tests (``home_disk``, ``eval_browser``) started
when the other workers had nothing left and the run waited for it alone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import LONGEST_FIRST, TIERS

TESTS = Path(__file__).resolve().parent


def test_every_file_named_longest_first_exists_and_is_of_the_second_tier() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    for name in LONGEST_FIRST:
        assert (TESTS / f"test_{name}.py").is_file(), name
        assert name not in TIERS["unit"], name  # the fast tier runs alone, not on the workers


def test_two_workers_start_with_the_longest_files(tmp_path: Path) -> None:
    # A real xdist run over three files of the list and one that is not in it: the order the
    # files start in is the list's, and the unlisted file (the most tests) comes last. The
    # three are named here out of the list's order, and the list's order is not the names'
    # alphabetical one (collection's): a schedule that kept either fails.
    names = ["home_disk", "cli_errors", "blind_worlds", "zz_unlisted"]
    for name in names:
        many = 5 if name == "zz_unlisted" else 1
        (tmp_path / f"test_{name}.py").write_text("".join(
            f"def test_{i}():\n    pass\n" for i in range(many)), encoding="utf-8")
    # The suite's own two hooks, as a plugin (its conftest's fixtures stay out)
    (tmp_path / "schedule_hooks.py").write_text(
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(TESTS)!r})\n"
        f"spec = importlib.util.spec_from_file_location('suite_conftest', {str(TESTS / 'conftest.py')!r})\n"
        "suite = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(suite)\n"
        "pytest_configure = suite.pytest_configure\n"
        "pytest_collection_modifyitems = suite.pytest_collection_modifyitems\n",
        encoding="utf-8")
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "1", "--dist", "loadfile", "-v",
                           "-p", "no:cacheprovider", "-p", "schedule_hooks", "--rootdir",
                           str(tmp_path), "-c", "/dev/null", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    started = []
    for line in proc.stdout.splitlines():
        for name in names:
            if f"test_{name}.py::" in line and "PASSED" in line and name not in started:
                started.append(name)
    listed = sorted(names[:3], key=LONGEST_FIRST.index)
    assert started == [*listed, "zz_unlisted"], proc.stdout
