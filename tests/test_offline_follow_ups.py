"""A follow-up question on a thread, with the offline model: never the help text as a SUCCESS.

Through the CLI's thread path (``harness diagnose --thread``) on the demo data: the offline
router cannot read a follow-up ("who made that change?") as an incident; the turn is a FALLBACK
/ FOLLOW_UP_UNSUPPORTED that says so and quotes what the thread verified, and the thread's
verified diagnosis is still carried into the turn after it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from diagnosis_harness.nodes._release_text import CAPABILITY_REPLY

FIRST = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 on "
         "2026-11-02 — why?")


def diagnose(tmp_path: Path, *args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), HARNESS_MODEL="offline")
    done = subprocess.run([sys.executable, "-m", "diagnosis_harness", "diagnose", "--json", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_an_offline_follow_up_is_a_plain_fallback_quoting_what_the_thread_verified(
        tmp_path: Path) -> None:
    first = diagnose(tmp_path, FIRST)
    assert first["release_outcome"] == "SUCCESS"
    thread = first["thread_id"]
    follow = diagnose(tmp_path, "--thread", thread, "who made that change?")
    assert (follow["release_outcome"], follow["fallback_type"]) == ("FALLBACK",
                                                                     "FOLLOW_UP_UNSUPPORTED")
    content = follow["content"]
    assert CAPABILITY_REPLY not in content
    assert content.startswith("No root cause is published: the offline investigator does not "
                              "answer follow-up questions.")
    assert "Verified root cause: payment-service" in content and "changed_by=j.doe" in content
    # the fallback does not drop what the thread verified: the next follow-up still quotes it
    again = diagnose(tmp_path, "--thread", thread, "who approved it?")
    assert again["fallback_type"] == "FOLLOW_UP_UNSUPPORTED"
    assert "Verified root cause: payment-service" in again["content"]


def test_a_capability_question_on_a_new_thread_still_gets_the_capability_reply(
        tmp_path: Path) -> None:
    out = diagnose(tmp_path, "what can you do?")
    assert (out["release_outcome"], out["content"]) == ("SUCCESS", CAPABILITY_REPLY)
