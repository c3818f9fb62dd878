"""State edits never publish what no run verified (issue 25 item 2, docs/design.md §14).

Every state key (the parameters come from the state schema, so a new key is covered without a
change here) is edited on the real dev server before ``release``, before the judge, while the
run awaits approval and on an old checkpoint (a fork), with a forged value of its type (every
string marked) and with garbage: each edit is refused with a 4xx, or the run it reaches ends
settled with no marked text published — never an HTTP 500, never a row left unfinished. The
unit tests derive the keys ``release`` reads from its source and check each is protected or
checked against the run store.
"""

from __future__ import annotations

import ast
import asyncio
import copy
import inspect
import json
from typing import Any

import httpx
import pytest
from servekit import new_thread, stream
from studio_kit import Studio, harness_cli, state, studio_fixture

from diagnosis_harness.continuations import approval as _approval
from diagnosis_harness.continuations.edits import edit_problem
from diagnosis_harness.guards import release_check
from diagnosis_harness.nodes import _release_text, release
from diagnosis_harness.run.state import EDIT_RULES, DiagnosisState

MARK = "FORGED-BY-EDIT"
GARBAGE: list[Any] = [12345, "garbage", [1, "x"], {"kind": "nonsense", "x": [1]}]
SITUATIONS = ["before_release", "before_judge", "awaiting_approval", "fork"]
KEYS = sorted(DiagnosisState.__annotations__)  # the schema's keys, inherited ones included


# --- what release reads: derived from its source ---------------------------------------------


def keys_read(module: Any) -> set[str]:
    """State keys a module reads: ``state["k"]`` and ``state.get("k")`` on a name ``state``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "state" and isinstance(node.slice, ast.Constant):
            found.add(node.slice.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "state" and node.args \
                and isinstance(node.args[0], ast.Constant):
            found.add(node.args[0].value)
    return found


def test_every_key_release_reads_is_protected_or_checked_against_the_store() -> None:
    read = set().union(*(keys_read(m) for m in (release, _release_text, _approval, release_check)))
    assert {"draft", "scope", "stop_reason", "intent", "usage"} <= read  # the derivation works
    assert read <= set(EDIT_RULES)
    loose = sorted(k for k in read if EDIT_RULES[k] not in ("control", "published", "checked"))
    assert loose == []
    for key in read:
        assert edit_problem({key: None}) is not None or EDIT_RULES[key] == "checked"


@pytest.mark.parametrize("key", KEYS)
def test_garbage_for_every_key_is_refused_before_it_reaches_a_run(key: str) -> None:
    for value in GARBAGE:
        if EDIT_RULES[key] == "model_view" and isinstance(value, str) and key != "messages":
            continue  # a string is a value of a text the agent sees
        assert edit_problem({key: value}) is not None, (key, value)


# --- on the real dev server ------------------------------------------------------------------


studio = studio_fixture("edits", HARNESS_APPROVAL="before_publish")


_incident = iter(range(600, 10_000))
_template: dict[str, Any] = {}


def marked(value: Any) -> Any:
    """``value`` with every string leaf carrying :data:`MARK`."""
    if isinstance(value, str):
        return f"{MARK} {value}"
    if isinstance(value, list):
        return [marked(v) for v in value]
    if isinstance(value, dict):
        return {k: marked(v) for k, v in value.items()}
    return value


def forged(key: str) -> Any:
    """A value of ``key``'s type with marked text: all strings marked, else each one it takes."""
    value = _template.get(key)
    if value is None:
        return MARK
    whole = marked(value)
    if edit_problem({key: whole}) is None or EDIT_RULES[key] in ("control", "published"):
        return whole
    return _mark_where_accepted(key, copy.deepcopy(value), [])


def _mark_where_accepted(key: str, root: Any, path: list[Any]) -> Any:
    node = root
    for step in path:
        node = node[step]
    children = list(node.items()) if isinstance(node, dict) else \
        list(enumerate(node)) if isinstance(node, list) else []
    for name, child in children:
        if isinstance(child, str):
            node[name] = f"{MARK} {child}"
            if edit_problem({key: root}) is not None:
                node[name] = child
        else:
            _mark_where_accepted(key, root, [*path, name])
    return root


_unchanged: dict[str, tuple[str, dict[str, Any]]] = {}
"""A paused thread per situation that no accepted edit has changed (a refused one changes nothing)."""


async def reusable(studio: Studio, situation: str) -> tuple[str, dict[str, Any]]:
    if situation not in _unchanged:
        _unchanged[situation] = await paused(studio, situation)
    return _unchanged[situation]


async def paused(studio: Studio, situation: str) -> tuple[str, dict[str, Any]]:
    """A thread in ``situation``; the update_state arguments that edit it there."""
    thread = await new_thread(studio.url)
    question = {"question": f"payment timeouts, incident #{next(_incident)}: why?"}
    if situation == "before_release":
        await stream(studio.url, thread, question, interrupt_before=["release"])
        return thread, {"as_node": "semantic_guard"}
    if situation == "before_judge":
        await stream(studio.url, thread, question, interrupt_before=["semantic_guard"])
        return thread, {"as_node": "evidence_guard"}
    done = await stream(studio.url, thread, question)
    assert done.interrupts and done.interrupts[0]["kind"] == "approval", done.final
    if situation == "awaiting_approval":
        return thread, {"as_node": "semantic_guard"}
    await stream(studio.url, thread, None, command={"resume": {"approve": True}})
    history = await _history(studio, thread)
    old = next(h for h in history if h["next"] == ["semantic_guard"])
    return thread, {"as_node": "evidence_guard", "checkpoint_id": old["checkpoint"]["checkpoint_id"]}


async def _history(studio: Studio, thread: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=studio.url, timeout=30) as http:
        answer = await http.post(f"/threads/{thread}/history", json={"limit": 60})
        answer.raise_for_status()
        return list(answer.json())


async def edit(studio: Studio, thread: str, values: dict[str, Any], where: dict[str, Any]) -> int:
    body = {"values": values, **where}
    async with httpx.AsyncClient(base_url=studio.url, timeout=30) as http:
        answer = await http.post(f"/threads/{thread}/state", json=body)
    assert answer.status_code < 500, (values, answer.status_code, answer.text)
    return answer.status_code


async def finish(studio: Studio, thread: str) -> dict[str, Any]:
    """Go on from the edit to the run's end (approving a verified report that asks)."""
    done = await stream(studio.url, thread, None)
    for _ in range(3):
        if not done.interrupts:
            break
        for waiting in done.interrupts:
            assert MARK not in json.dumps(waiting), waiting  # the approver never sees it either
        done = await stream(studio.url, thread, None, command={"resume": {"approve": True}})
    return done.final | {"_errors": done.errors}


def assert_nothing_forged_published(studio: Studio, final: dict[str, Any]) -> None:
    assert final["_errors"] == [], final["_errors"]
    row = studio.store.get_run(final["run_id"])
    assert row is not None and row["finished_at"] is not None, row  # settled
    assert final.get("failure_code") != "INTERNAL_FAILURE", final
    assert MARK not in (row["content"] or "") and MARK not in (final.get("content") or "")
    for event in final.get("events") or []:
        if event["event"] == "content":
            assert MARK not in event["text"]


async def _reference(studio: Studio) -> None:
    if not _template:
        thread, _ = await paused(studio, "before_release")
        _template.update((await state(studio.url, thread))["values"])


@pytest.mark.slow
@pytest.mark.parametrize("situation", SITUATIONS)
@pytest.mark.parametrize("key", KEYS)
def test_an_edit_of_any_key_anywhere_is_refused_or_publishes_nothing_unverified(
        studio: Studio, key: str, situation: str) -> None:
    async def scenario() -> None:
        await _reference(studio)
        thread, where = await reusable(studio, situation)
        for value in [forged(key), *GARBAGE]:
            code = await edit(studio, thread, {key: value}, where)
            expect_refused = EDIT_RULES[key] in ("control", "published") \
                or situation == "awaiting_approval" or edit_problem({key: value}) is not None
            if expect_refused:
                assert 400 <= code < 500, (key, value, code)
                continue
            assert code == 200, (key, value, code)
            _unchanged.pop(situation, None)
            assert_nothing_forged_published(studio, await finish(studio, thread))
            thread, where = await paused(studio, situation)
        if situation == "awaiting_approval":  # still awaits its decision, which still works
            values = await state(studio.url, thread)
            assert values["next"] == ["release"] and values["interrupts"]

    asyncio.run(scenario())


@pytest.mark.slow
def test_runs_show_of_a_run_awaiting_approval_shows_the_report_being_approved(
        studio: Studio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> tuple[str, Any]:
        thread = await new_thread(studio.url)
        done = await stream(studio.url, thread, {"question": "payment timeouts, incident #599: why?"})
        return thread, done

    thread, done = asyncio.run(scenario())
    report = done.interrupts[0]["report"]
    run_id = done.interrupts[0]["run_id"]
    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", run_id)
    assert code == 0
    shown = out.split("AWAITING APPROVAL — not published; approving publishes exactly this "
                      "verified report", 1)
    assert len(shown) == 2, out
    assert "\n".join(f"  {line}" for line in report.splitlines()) in shown[1]
    assert "published:" not in shown[0]
    code, out, _ = harness_cli(studio, monkeypatch, capsys, "runs", "show", run_id, "--json")
    story = json.loads(out)
    assert story["awaiting_approval"]["report"] == report and story["run"]["content"] is None
