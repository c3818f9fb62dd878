"""The capable model's drafts of tests/data/llm_transcripts, replayed with a judge that accepts all.

Beside tests/test_llm_transcripts.py (the same drafts with their judge's verdicts): what the
harness would publish unguarded, scored by the canon's key terms (strict) and read by hand (the
manifest's ``draft``). Run from the repository root: ``python benchmarks/llm_unguarded.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, "tests")

from canon import build  # noqa: E402 — the tests' own kits
from test_llm_transcripts import HERE, MANIFEST, QUESTIONS, _replay  # noqa: E402

ACCEPT = {"content": json.dumps({"verdict": "SUPPORTED", "reasons": ["accepted unread"]})}


def strict(expect: dict, first_line: str) -> str:
    """RIGHT / WRONG / MISSED / HONEST as ``harness eval`` scores by the case's key terms."""
    terms = (expect.get("root_cause") or {}).get("all", [])
    if not first_line:
        return "MISSED" if expect["outcome"] == "SUCCESS" else "HONEST"
    named = all(t.lower() in first_line.lower() for t in terms)
    return "RIGHT" if expect["outcome"] == "SUCCESS" and named else "WRONG"


def main() -> None:
    """Print each case: its outcome unguarded, its strict score, and the hand reading."""
    suite = build()
    cases = {c["id"]: c for c in json.loads(suite.read_text())["cases"]}
    QUESTIONS.update({cid: c["question"] for cid, c in cases.items()})
    tmp = Path(tempfile.mkdtemp(prefix="unguarded-"))
    for case in sorted(MANIFEST):
        script = json.loads((HERE / f"{case}.json").read_text())
        script["judge"] = [ACCEPT] * 3
        (tmp / f"{case}.json").write_text(json.dumps(script))
        out = _replay(suite.parent, case, tmp / f"{case}.json", tmp / case)
        first = out["content"].splitlines()[0] if out["release_outcome"] == "SUCCESS" else ""
        print(f"{case:38s} {out['release_outcome']:8s} {strict(cases[case]['expect'], first):7s} "
              f"{MANIFEST[case]['draft']}")


if __name__ == "__main__":
    main()
