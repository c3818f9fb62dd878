"""What a test swaps is passed in, never patched into a module (docs/design.md §2, §13).

- ``build_graph(nodes=…)`` replaces node functions of one graph; every other graph keeps the
  real ones, and a name the graph does not have is refused.
- The tool specs are cached once, by the registry; bound models live on the seam that built
  them; the nodes and the wiring keep no module-level caches and read no ``globals()``.
- The seam renders the json protocol's prompts itself: nobody hands it a renderer.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from graphkit import FULL_RUN, demo_home, go, services_for

from diagnosis_harness.control.contracts import Role
from diagnosis_harness.graph.builder import NODES, build_graph
from diagnosis_harness.providers.seam import ModelSeam

ROOT = Path(__file__).resolve().parents[1]


async def _crashes(state: Any, runtime: Any) -> Any:
    raise RuntimeError("unexpected bug in a node")


def test_a_replaced_node_runs_only_in_the_graph_built_with_it() -> None:
    _, crashed = go(FULL_RUN, nodes={"saturation_check": _crashes})
    assert (crashed["release_outcome"], crashed["failure_code"]) == ("FAILED", "INTERNAL_FAILURE")
    _, fine = go(FULL_RUN)  # the process's own graph was never touched
    assert fine["release_outcome"] == "SUCCESS"


def test_a_node_name_the_graph_does_not_have_is_refused() -> None:
    with pytest.raises(ValueError, match="no node named saturation: the graph's nodes are route"):
        build_graph(nodes={"saturation": _crashes})
    assert set(NODES) == set(build_graph().nodes) - {"__start__"}


def _module_caches(path: Path) -> list[str]:
    """Module-level empty dicts (a cache's shape) and ``globals()`` reads in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"{path.name}:{n.lineno} globals()" for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "globals"]
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Dict) and not value.keys:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)[:60]}")
    return found


def test_the_nodes_and_the_wiring_keep_no_module_caches() -> None:
    files = [*sorted((ROOT / "nodes").glob("*.py")), *sorted((ROOT / "graph").glob("*.py"))]
    assert len(files) > 10
    assert [hit for f in files for hit in _module_caches(f)] == []


def test_bound_models_belong_to_their_seam(tmp_path: Path) -> None:
    services = services_for(demo_home(), FULL_RUN)
    seam = services.seam
    chat = seam.for_role(Role.AGENT)
    specs = [{"type": "function", "function": {"name": "query_logs", "description": "logs",
                                               "parameters": {"type": "object", "properties": {}}}}]
    assert seam.bound(chat, specs) is seam.bound(chat, specs)  # bound once per seam
    other = ModelSeam(services.settings, replay_script=seam.replay_script)
    assert other.bound(other.for_role(Role.AGENT), specs) is not seam.bound(chat, specs)
