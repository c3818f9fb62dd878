"""Prompt sentences the players of a capable model asked for (issue 40's frictions).

- The output format had no "no fault found" form: those cases went out as "conclusion": null
  with the findings in next_steps, unsure whether that was allowed.
- The judge was told "Do not use outside knowledge" and still had to know that NTP is UDP 123 or
  that ALTER TABLE takes a lock to judge whether a change plausibly produces a mechanism.
"""

from __future__ import annotations

import re

from diagnosis_harness import prompts


def _render(name: str) -> str:
    return prompts.render(name, **dict.fromkeys(prompts.fields(name), "x"))


def test_the_agent_is_told_a_null_conclusion_is_the_answer_when_nothing_is_wrong() -> None:
    text = _render("agent_system")
    [line] = [line for line in text.splitlines() if "no fault found" in line]
    assert '"conclusion": null' in line
    assert "cannot be shown" in line  # a cause that cannot be shown, not only "nothing wrong"
    assert re.search(r'"next_steps"[^.]*what you checked', line)  # where the findings go


def test_the_judge_may_use_general_operational_knowledge_only_for_plausibility() -> None:
    text = _render("judge")
    [line] = [line for line in text.splitlines() if "operational knowledge" in line]
    assert "plausib" in line  # for whether a mechanism is plausible …
    assert "never" in line and all(word in line for word in ("values", "times", "names"))
    # … and the rule that the facts of this incident come from the items alone stays.
    assert "Judge only against \"evidence\"" in text


def test_times_inside_a_message_are_said_to_be_the_services_own_clock() -> None:
    # A player read "07:31:12,000" in a message beside an item at 06:31 UTC as a contradiction:
    # where the rules say times are UTC, they also say a message's own times are not converted.
    for name in ("agent_system", "judge"):
        text = _render(name)
        [line] = [line for line in text.splitlines() if "UTC" in line and "clock" in line]
        assert "message" in line and "zone" in line, name


def test_the_judge_is_told_how_to_read_a_borrowed_item_and_a_hedged_root_cause() -> None:
    text = _render("judge")
    # A claim stands on its own cited items: another claim's items do not count for it …
    [own] = [line for line in text.splitlines() if "Judge each claim on its own" in line]
    assert "own cited items" in own and "another claim" in own
    # … and a hedge neither lowers the bar nor is dropped from what is published.
    [hedge] = [line for line in text.splitlines() if "most likely" in line]
    assert "judged as stated" in hedge and "published with its hedge" in hedge
    # The agent is told the same rule for its claims, in its one system prompt.
    assert "judged on its own ids only" in _render("agent_system")
