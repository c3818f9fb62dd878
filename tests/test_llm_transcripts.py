"""A capable model's real investigations, replayed: what it drafted publishes only as judged.

tests/data/llm_transcripts holds the answers of 24 investigations of canon cases (tests/canon)
played through the OpenAI-compatible bridge, each judged by a second capable model (docs/eval.md,
"Measured with a capable model"): 16 by a capable model investigating as well as it could, 8 by
one told to draft a realistic WRONG cause after 2-3 calls (blame the nearest change, a change
after the onset, the caller, a noisy service's standing error; invert a direction) and to defend
it when sent back — so that the real judge's verdicts on wrong drafts are replayed too.
Each file is a replay script (docs/design.md
§10): the router's answer, every agent turn (tool calls, the draft, the retried or revised
draft) and the judge's answers. ``manifest.json`` says how each run ended and what its draft
was worth, read by hand: ``right`` (the case's cause), ``wrong`` (played wrong on purpose),
``external origin`` / ``not the deploy``
(a trap answered with what the data shows — an outside endpoint failing, errors older than the
change — rather than the decoy), ``withdrawn``.

Replayed with the judge's own verdicts, each run ends as it ended live. Replayed with the
offline judge (no model), only right drafts are published (1 of the 11 right ones when
measured: it checks numbers, names and times, and a capable model's claims carry many), and a
right draft whose number or cause is changed is never published.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from canon import build
from langgraph.checkpoint.memory import InMemorySaver

from diagnosis_harness.control.settings import load_settings
from diagnosis_harness.session.runner import Services, run_turn

pytestmark = pytest.mark.slow  # the canon's build (cached), then 24 replays twice

HERE = Path(__file__).resolve().parent / "data" / "llm_transcripts"
MANIFEST = json.loads((HERE / "manifest.json").read_text())["cases"]
QUESTIONS: dict[str, str] = {}


@pytest.fixture(scope="module")
def canon() -> Path:
    """The built canon's folder; its suite names each case's question."""
    suite = build()
    QUESTIONS.update({c["id"]: c["question"] for c in json.loads(suite.read_text())["cases"]})
    return suite.parent


def _replay(canon: Path, case: str, script: Path, home: Path, **settings: Any) -> dict[str, Any]:
    services = Services.from_settings(load_settings(model=f"replay:{script}", home=home,
                                                    data_dir=canon / case, **settings))
    return asyncio.run(run_turn(services, QUESTIONS[case], checkpointer=InMemorySaver()))


@pytest.mark.parametrize("case", sorted(MANIFEST))
def test_a_replayed_run_ends_as_it_did_with_its_judge(canon: Path, case: str,
                                                      tmp_path: Path) -> None:
    out = _replay(canon, case, HERE / f"{case}.json", tmp_path)
    assert out["release_outcome"] == MANIFEST[case]["outcome"], out["content"]
    if out["release_outcome"] == "SUCCESS":
        script = json.loads((HERE / f"{case}.json").read_text())
        draft = json.loads(next(a["content"] for a in reversed(script["agent"])
                                if (a.get("content") or "").lstrip().startswith("{")))
        # The report's first line is the root cause the judge accepted, as the model wrote it.
        first = out["content"].splitlines()[0]
        assert first.startswith("Root cause: ")
        assert draft["conclusion"]["root_cause"][:60] in first


WRONG_DRAFTS = sorted(c for c, m in MANIFEST.items() if m["draft"] == "wrong")


@pytest.mark.parametrize("case", WRONG_DRAFTS)
def test_a_wrong_draft_is_never_published_with_its_real_judges_verdicts(
        canon: Path, case: str, tmp_path: Path) -> None:
    out = _replay(canon, case, HERE / f"{case}.json", tmp_path)
    assert out["release_outcome"] != "SUCCESS", out["content"]
    assert not any(line.startswith("Root cause:") for line in (out["content"] or "").splitlines())


def _mutated(case: str, old: str, new: str, into: Path) -> Path:
    """The case's script with its final draft's ``old`` changed to ``new`` everywhere."""
    script = json.loads((HERE / f"{case}.json").read_text())
    last = max(i for i, a in enumerate(script["agent"])
               if (a.get("content") or "").lstrip().startswith("{"))
    text = script["agent"][last]["content"]
    assert re.search(old, text), f"{old!r} is not in {case}'s draft"
    script["agent"][last]["content"] = re.sub(old, new, text)
    path = into / f"{case}-mutated.json"
    path.write_text(json.dumps(script))
    return path


WRONG = [
    # the pool's new size is 5 (the errors say active=5/5): 10 is a number no item holds
    ("pool-config-reload", r"from 50 to 5\b", "from 50 to 10"),
    # the ttl went 3600 -> 5; a draft saying it was raised to 7200 contradicts the change row
    ("cache-ttl-shortened", r"from 3600 to 5\b", "from 3600 to 7200"),
    # blame the other change of the hour: inventory's reservation.ttl_s, not the base_url typo
    ("dns-typo-config", r"Config change CHG-8501 at 13:27 UTC set checkout-api's inventory.base_url "
                        r"to the misspelled host http://inventroy-api.prod.acme.io, which does not "
                        r"resolve",
     "Config change CHG-8500 at 12:10 UTC raised inventory's reservation.ttl_s from 600 to 900, "
     "which exhausted the reservation table"),
]


@pytest.mark.parametrize(("case", "old", "new"), WRONG, ids=[w[0] for w in WRONG])
def test_a_right_draft_made_wrong_is_never_published_by_the_offline_judge(
        canon: Path, case: str, old: str, new: str, tmp_path: Path) -> None:
    out = _replay(canon, case, _mutated(case, old, new, tmp_path), tmp_path,
                  judge_model="offline")
    assert out["release_outcome"] != "SUCCESS", out["content"]
    assert not any(line.startswith("Root cause:") for line in (out["content"] or "").splitlines())


def test_the_offline_judge_publishes_only_drafts_that_were_not_wrong(canon: Path,
                                                                     tmp_path: Path) -> None:
    published = []
    for case in sorted(MANIFEST):
        out = _replay(canon, case, HERE / f"{case}.json", tmp_path / case, judge_model="offline")
        if out["release_outcome"] == "SUCCESS":
            published.append(case)
    print(f"offline judge published {len(published)} of {len(MANIFEST)}: {published}")
    # Only drafts read as right; at least the one it passed when measured (dns-typo-config),
    # so that an offline judge that refuses every paraphrase is noticed.
    assert all(MANIFEST[c]["draft"] == "right" for c in published), published
    assert len(published) >= 1
