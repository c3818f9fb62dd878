"""Whole-process CLI figures: CPU-seconds, wall and peak memory of ``harness`` commands.

``python -m benchmarks.startup [--pairs 5] [--pinned DIR]`` runs, alternating so both sides see
the same machine, ``harness --help``, ``harness diagnose`` of the demo question (offline, a
fresh home each time), then on that home ``harness runs list`` and ``harness alerts test`` of a
saved Alertmanager notification (the commands on-call and the tests spawn most) as separate
processes, and reads each one's own resource usage from
``os.wait4`` (user+system CPU, peak RSS). With ``--pinned DIR`` — a checkout of the pinned
earlier commit e247dfc (``git worktree add DIR e247dfc``), whose code was the top-level package
``harness`` — the same commands run from it with ``PYTHONPATH=DIR`` in this interpreter, and the
medians are printed side by side with the ratios. ``python -c pass`` is the floor, and so is
importing, alone, the libraries a diagnose needs (:data:`LIBRARIES`) and ``langgraph.graph``.

Both sides' sources are byte-compiled first (``compileall``), as ``pip install`` does: a
machine with ``PYTHONDONTWRITEBYTECODE=1`` otherwise compiles every project module from
source in every process (0.2–0.35 CPU-s here), which says nothing about either side.
``--source`` measures that way instead. ``--before PY`` adds a side run by another checkout's
own interpreter (``git worktree add --detach DIR COMMIT``, a venv there with ``pip install -e
DIR``): the same package before a change, side by side with this tree. ``--before-tree DIR`` is
the same without a venv: another checkout run by this interpreter with ``PYTHONPATH=DIR`` (its
``diagnosis_harness`` links the mapped folders), when the dependencies did not change.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.workload import QUESTION

LIBRARIES = ("langgraph.graph", "langgraph.checkpoint.sqlite.aio", "langchain_core.language_models",
             "sqlalchemy", "sqlalchemy.dialects.sqlite", "pydantic_settings", "sqlglot", "typer",
             "rich.console")
"""The third-party modules a demo ``harness diagnose`` cannot run without (graph, checkpointer,
chat-model base, run store, settings, SQL validator, CLI): their import alone is a floor."""


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one process, its output discarded."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=tempfile.gettempdir(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 2):  # 2: a diagnosis that abstained is still a full run
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


NOTIFICATION = {
    "version": "4", "status": "firing", "receiver": "harness",
    "groupKey": '{}:{alertname="PaymentErrors"}', "groupLabels": {"alertname": "PaymentErrors"},
    "commonLabels": {"alertname": "PaymentErrors", "service": "payment-service"},
    "alerts": [{"status": "firing", "fingerprint": "f1", "startsAt": "2026-11-02T10:00:00Z",
                "labels": {"alertname": "PaymentErrors", "service": "payment-service"},
                "annotations": {"summary": "5xx above 5 %"}}]}
"""A saved Alertmanager notification for ``alerts test``."""

COMMANDS = ("--help", "diagnose", "runs list", "alerts test")
"""In the order they run on one home: ``runs list`` needs the run store the diagnose made."""


def _commands(module: str, py: str, home: str) -> dict[str, list[str]]:
    alert = Path(home) / "notification.json"
    return {"--help": [py, "-m", module, "--help"],
            "diagnose": [py, "-m", module, "diagnose", QUESTION, "--model", "offline"],
            "runs list": [py, "-m", module, "runs", "list"],
            "alerts test": [py, "-m", module, "alerts", "test", str(alert)]}


def _this_tree() -> dict[str, str]:
    """``PYTHONPATH`` that makes "now" this tree, also from a worktree beside the installed one.

    An editable install maps ``diagnosis_harness`` (and its ``package-dir`` folders) to the tree
    it was installed from; run from another worktree with that interpreter, "now" would be that
    other tree. Then this tree is laid out as it installs (``scripts/static_checks.py``'s links,
    under ``build/bench-tree``) and put first on the path; otherwise nothing is added.
    """
    root = Path(__file__).resolve().parent.parent
    code = "import diagnosis_harness; print(diagnosis_harness.__file__)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as the sides run
    found = subprocess.run([sys.executable, "-c", code], cwd=tempfile.gettempdir(), env=env,
                           capture_output=True, text=True, check=False)
    if found.returncode == 0 and Path(found.stdout.strip()).resolve().is_relative_to(root):
        return {}
    sys.path.insert(0, str(root / "scripts"))
    from static_checks import lay_out

    return {"PYTHONPATH": str(lay_out(root / "build" / "bench-tree"))}


def main(argv: list[str] | None = None) -> int:
    """Alternate the sides ``--pairs`` times; print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--pinned", type=Path, default=None,
                        help="checkout of e247dfc (top-level package 'harness')")
    parser.add_argument("--before", type=Path, default=None,
                        help="the python of another checkout's own venv (an earlier commit of "
                             "this package, installed -e there): a 'before' side")
    parser.add_argument("--before-tree", type=Path, default=None,
                        help="another checkout of this package (say main), run by this "
                             "interpreter with PYTHONPATH=DIR: a 'before' side without a venv")
    parser.add_argument("--source", action="store_true",
                        help="do not byte-compile first (every process compiles the project)")
    args = parser.parse_args(argv)
    now = _this_tree()
    if not args.source:
        root = Path(__file__).resolve().parent.parent
        # DIR/.venv/bin/python: not resolved, a venv's python links to the base interpreter
        before_root = [args.before.absolute().parent.parent.parent] if args.before else []
        laid_out = [Path(now["PYTHONPATH"])] if now else []  # its own top-level modules' caches
        before_root += [args.before_tree] if args.before_tree else []
        for tree in [root, *laid_out, *([args.pinned] if args.pinned else []), *before_root]:
            # in a child: this process stays small (a forked child's peak RSS starts at ours)
            subprocess.run([sys.executable, "-m", "compileall", "-q", "-x", r"/(\.venv|\.git|tests)/",
                            str(tree)], check=True, stdout=subprocess.DEVNULL)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "PYTHONPATH"))}
    sides: dict[str, tuple[str, dict[str, str], str]] = {
        "now": ("diagnosis_harness", now, sys.executable)}
    if args.before is not None:
        sides["before"] = ("diagnosis_harness", {}, str(args.before))
    elif args.before_tree is not None:
        sides["before"] = ("diagnosis_harness", {"PYTHONPATH": str(args.before_tree.resolve())},
                           sys.executable)
    if args.pinned is not None:
        sides["e247dfc"] = ("harness", {"PYTHONPATH": str(args.pinned.resolve())}, sys.executable)
    figures: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    floor = [measure([sys.executable, "-c", "pass"], base) for _ in range(3)]
    # What no change of the harness can go below: the libraries a diagnose imports, alone.
    libs = f"import {', '.join(LIBRARIES)}"
    floors = {label: [measure([sys.executable, "-c", code], base) for _ in range(3)]
              for label, code in (("import langgraph.graph", "import langgraph.graph"),
                                  ("the libraries of a diagnose", libs),
                                  ("the same, collector paused", f"import gc; gc.disable(); {libs}"))}
    for _ in range(args.pairs):
        for side, (module, extra, py) in sides.items():
            with tempfile.TemporaryDirectory(prefix="startup-home-") as home:
                env = dict(base, HARNESS_HOME=home, **extra)
                (Path(home) / "notification.json").write_text(json.dumps(NOTIFICATION))
                commands = _commands(module, py, home)
                if module == "harness":  # e247dfc had no `runs` or `alerts` commands
                    commands = {k: commands[k] for k in ("--help", "diagnose")}
                for command, cmd in commands.items():
                    figures.setdefault((side, command), []).append(measure(cmd, env))
    print(f"whole-process medians of {args.pairs}, load {os.getloadavg()[0]:.2f}; "
          f"floor `python -c pass`: CPU {statistics.median(f[1] for f in floor):.2f} s")
    for label, rows in floors.items():
        print(f"floor {label}: CPU {statistics.median(f[1] for f in rows):.2f} s, "
              f"peak {statistics.median(f[2] for f in rows):.1f} MiB")
    print(f"{'side':<8} {'command':<11} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9}")
    medians = {}
    for (side, command), rows in figures.items():
        medians[side, command] = [statistics.median(r[i] for r in rows) for i in range(3)]
        wall, cpu, rss = medians[side, command]
        print(f"{side:<8} {command:<11} {wall:7.2f} {cpu:6.2f} {rss:9.1f}")
    for other in ("before", "e247dfc"):
        if other not in sides:
            continue
        for command in COMMANDS:
            if (other, command) not in medians:
                continue
            now, then = medians["now", command], medians[other, command]
            print(f"ratio now/{other} {command}: wall {now[0] / then[0]:.2f}x, CPU "
                  f"{now[1] / then[1]:.2f}x, peak memory {now[2] / then[2]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
