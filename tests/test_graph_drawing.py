"""The drawn graph is the product (docs/design.md §2): its nodes and edges are pinned, so is README's copy.

After an intended change to the wiring, regenerate both with ``python tests/test_graph_drawing.py``
and review the diff: an edge that appears there unasked for is a bug.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from diagnosis_harness.graph.builder import graph

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "graph.mmd"
README = ROOT / "README.md"
SECTION = "## The graph"

NODES = {"route", "model", "tool_gate", "saturation_check", "draft_parse", "evidence_guard",
         "evidence_repair", "semantic_guard", "revise", "release"}
"""The boxes of docs/design.md §2, one file each in nodes/."""

EDGES = {
    # (source, target, conditional)
    ("__start__", "route", False),
    # route: complete diagnosis → model; missing context, general question, router down → release
    ("route", "model", True),
    ("route", "release", True),
    # model: tool calls → gate; final text → parser; budget / deadline / cancel → release
    ("model", "tool_gate", True),
    ("model", "draft_parse", True),
    ("model", "release", True),
    # tool_gate: a tool asked after STOP_REQUIRED was delivered → release (controlled stop)
    ("tool_gate", "saturation_check", True),
    ("tool_gate", "release", True),
    ("saturation_check", "model", False),
    # draft_parse: conclusion → evidence guard; an invalid draft → revise once (its parse
    # error); null conclusion, or invalid again → release
    ("draft_parse", "evidence_guard", True),
    ("draft_parse", "revise", True),
    ("draft_parse", "release", True),
    # evidence_guard: pass → judge; fail with the repair unused → repair; fail after it → release
    ("evidence_guard", "semantic_guard", True),
    ("evidence_guard", "evidence_repair", True),
    ("evidence_guard", "release", True),
    # evidence_repair → evidence_guard, or release when the run stopped (cancel, deadline)
    # during the repair call: "a stop written into state sends the run to release".
    ("evidence_repair", "evidence_guard", True),
    ("evidence_repair", "release", True),
    # semantic_guard: a refusal goes back to the agent once (revise); anything else → release
    ("semantic_guard", "revise", True),
    ("semantic_guard", "release", True),
    # revise → model with the judge's reasons; release when no model call is left or a stop
    ("revise", "model", True),
    ("revise", "release", True),
    ("release", "__end__", False),
}


def mermaid() -> str:
    return graph.get_graph().draw_mermaid()


def readme_block(text: str) -> str | None:
    """The ```mermaid block of README's "## The graph" section (None when missing)."""
    section = text.split(f"\n{SECTION}\n", 1)
    if len(section) != 2:
        return None
    body = section[1].split("\n## ", 1)[0]
    match = re.search(r"```mermaid\n(.*?)```", body, re.S)
    return match.group(1) if match else None


def test_every_design_node_exists_with_exactly_its_edges() -> None:
    drawn = graph.get_graph()
    assert set(drawn.nodes) == NODES | {"__start__", "__end__"}
    assert {(e.source, e.target, e.conditional) for e in drawn.edges} == EDGES
    for name in NODES:  # one node per file, the file named after the node
        assert (ROOT / "nodes" / f"{name}.py").is_file(), name


def test_release_is_the_only_way_to_the_end() -> None:
    drawn = graph.get_graph()
    assert [e.source for e in drawn.edges if e.target == "__end__"] == ["release"]
    assert [e.target for e in drawn.edges if e.source == "release"] == ["__end__"]
    # every node that can stop the run reaches release in one step
    stoppers = {"route", "model", "tool_gate", "draft_parse", "evidence_guard", "evidence_repair",
                "semantic_guard"}
    assert stoppers <= {e.source for e in drawn.edges if e.target == "release"}


def test_mermaid_matches_the_snapshot() -> None:
    assert SNAPSHOT.read_text(encoding="utf-8") == mermaid(), (
        "the compiled graph changed; if intended, run `python tests/test_graph_drawing.py`")


def test_readme_shows_the_compiled_graph() -> None:
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None, f"README.md needs a '{SECTION}' section with a ```mermaid block"
    assert block == mermaid(), "README's graph is stale: run `python tests/test_graph_drawing.py`"


def _regenerate() -> None:
    drawing = mermaid()
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(drawing, encoding="utf-8")
    text = README.read_text(encoding="utf-8")
    old = readme_block(text)
    if old is None:
        sys.exit(f"README.md has no '{SECTION}' section with a ```mermaid block to update")
    README.write_text(text.replace(f"```mermaid\n{old}```", f"```mermaid\n{drawing}```", 1),
                      encoding="utf-8")


if __name__ == "__main__":
    _regenerate()
