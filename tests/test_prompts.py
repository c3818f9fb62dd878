import json

import pytest

from diagnosis_harness import prompts

# The keys each node supplies (docs/design.md §10 and the node briefs); a prompt that drifts from its
# node fails here rather than at the first real model call.
EXPECTED = {
    "router": {"question", "known_services", "now", "example_start", "example_end",
               "example_service", "merchant_example"},
    "agent_system": {"tool_list", "max_tool_calls"},
    "agent_json": {"max_tool_calls", "tool_schemas", "changes_from", "changes_until"},
    "agent_json_final": set(),
    "agent_task": {"question", "previous_turn", "service", "merchant", "start", "end",
                   "window_note", "data_span"},
    "judge": {"payload"},
    "revise": {"verdicts", "tools"},
    # An invalid draft sent back once with its parse error (nodes/revise.py).
    "revise_draft": {"error", "detail"},
    "repair": {"draft", "problems", "available_evidence"},
    # The json protocol's turns, one sentence each (providers/json_protocol.py, observations.py).
    "json_result": {"call_id", "body", "after"},
    "json_result_folded": {"call_id", "headline", "where"},
    "json_result_folded_items": set(),
    "json_findings": set(),
    "json_next_final": set(),
    "json_next_first": set(),
    "json_next_call": {"call_id", "hints"},
    "json_hint_unused": {"tools"},
    "json_hint_changes": {"start", "end"},
    "json_context_full": set(),
    # What saturation_check tells the agent once collection is saturated.
    "stop_required": set(),
    # The final draft turn's instruction when no observation can carry it (nodes/model.py).
    "agent_final": {"reason"},
}
PHRASES = {name for name in EXPECTED
           if name.startswith("json_") or name in ("stop_required", "agent_final", "revise")}
"""One-sentence prompts: rendered into a turn, with no JSON example of their own."""


def test_every_prompt_is_known():
    assert set(prompts.names()) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_renders_with_exactly_its_keys(name):
    assert prompts.fields(name) == EXPECTED[name]
    values = {key: f"<<{key}-value {{braces}}>>" for key in EXPECTED[name]}
    text = prompts.render(name, **values)
    for value in values.values():
        assert value in text  # substituted verbatim, braces in values left alone


def _example_lines(text):
    for line in text.splitlines():
        if line.startswith(("Answer: {", "Example: {")):
            yield line.split(": ", 1)[1]
        elif line.startswith(('{"conclusion"', '{"type": "final"', '{"type": "tool_call"')):
            yield line


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_json_examples_are_valid_json_after_rendering(name):
    # Doubled braces must come out as single ones: a small model copies examples literally.
    text = prompts.render(name, **dict.fromkeys(EXPECTED[name], "x"))
    examples = list(_example_lines(text))
    if name != "agent_task" and name not in PHRASES:
        assert examples
    for line in examples:
        json.loads(line)


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if EXPECTED[n]))
def test_missing_key_raises(name):
    values = dict.fromkeys(EXPECTED[name], "x")
    dropped = sorted(values)[0]
    del values[dropped]
    with pytest.raises(prompts.PromptError, match=f"missing \\['{dropped}'\\]"):
        prompts.render(name, **values)


def test_extra_key_raises():
    with pytest.raises(prompts.PromptError, match="unexpected \\['model'\\]"):
        prompts.render("judge", payload="{}", model="x")


def test_unknown_prompt_raises():
    with pytest.raises(prompts.PromptError, match="no prompt named 'nope'"):
        prompts.render("nope")


@pytest.mark.parametrize(
    ("name", "must_say"),
    [
        ("router", ['"intent"', '"DIAGNOSIS"', '"GENERAL"', '"service"', '"merchant"', '"start"', '"end"']),
        (
            "agent_system",
            [
                "previous_observation",
                "NO_GAIN",
                "stop_required",
                '"conclusion": null',
                '"evidence_ids"',
            ],
        ),
        (
            "agent_json",
            [
                '{"type": "tool_call"',
                '{"type": "final"',
                "previous_observation",
                "stop_required",
                '"conclusion": null',
            ],
        ),
        ("agent_json_final", ['{"type": "final"', '"conclusion": null', '"evidence_ids"']),
        ("judge", ['"verdict"', '"SUPPORTED"', '"UNSUPPORTED"', '"reasons"', '"claims"',
                   '"index"', '"root_cause"']),
        ("revise", ['"conclusion": null', "once"]),
        ("revise_draft", ['"conclusion"', '"evidence_ids"', "once"]),
        ("repair", ['"root_cause"', "UNKNOWN_ID", "NOT_READY", "NO_EVIDENCE"]),
    ],
)
def test_prompt_states_its_wire_contract(name, must_say):
    text = prompts.render(name, **dict.fromkeys(EXPECTED[name], "x"))
    for phrase in must_say:
        assert phrase in text
