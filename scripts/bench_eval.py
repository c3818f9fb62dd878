"""Benchmark `harness eval`: N cases offline over several copies of the demo dataset.

Each copy is its own dataset folder (built once in preflight), the demo's seven questions
repeated over them with the demo's expectations. Prints the wall time of the whole eval
(preflight, runs, scoring) and checks the scorecard is all as expected.

    .venv/bin/python scripts/bench_eval.py [--cases 100] [--copies 4] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from diagnosis_harness import evaluate
from diagnosis_harness.eval.suite import load_suite
from diagnosis_harness.tools.dataset.layout import demo_dataset_dir


def write_suite(folder: Path, cases: int, copies: int) -> Path:
    demo = load_suite("demo").cases
    for n in range(copies):
        shutil.copytree(demo_dataset_dir(), folder / f"data-{n}")
    lines = []
    for i in range(cases):
        case = demo[i % len(demo)].model_dump(mode="json")
        case.update(id=f"{case['id']}-{i}", dataset=f"data-{i % copies}")
        lines.append(json.dumps(case))
    path = folder / "bench.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as scratch:
        root = Path(scratch)
        suite = write_suite(root, args.cases, args.copies)
        began = time.monotonic()
        card = evaluate(suite, model="offline", workers=args.workers, home=root / "home")
        wall = time.monotonic() - began
    s = card.summary
    assert s.as_expected == s.cases == args.cases, s
    print(f"{s.cases} cases offline over {args.copies} datasets, {args.workers} workers: "
          f"{wall:.1f} s wall ({wall / s.cases:.2f} s/case; run p50 {s.wall_p50_s:.2f} s, "
          f"p95 {s.wall_p95_s:.2f} s); {s.as_expected}/{s.cases} as expected, precision "
          f"{s.precision}, coverage {s.coverage}")


if __name__ == "__main__":
    main()
