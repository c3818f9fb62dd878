"""Write docs/eval-suite.schema.json from the suite models (tests/test_eval.py keeps them equal)."""

from __future__ import annotations

import json
from pathlib import Path

from diagnosis_harness.eval.suite import json_schema

TARGET = Path(__file__).resolve().parents[1] / "docs" / "eval-suite.schema.json"

if __name__ == "__main__":
    TARGET.write_text(json.dumps(json_schema(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {TARGET}")
