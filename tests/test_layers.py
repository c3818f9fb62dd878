"""The one-way layers (docs/design.md §13): no upward import, no sideways one, no import cycle.

:func:`find_violations` walks every module's imports with ``ast`` — at module level, in function
bodies and under ``TYPE_CHECKING`` alike — and reports each import of a higher layer, each import
between the independent packages of one layer, and each cycle between modules. It runs over the
real tree (which must be clean) and over copies of it with one deliberately bad import, where
both it and CI's ``lint-imports`` (the contract in pyproject.toml) must report the import.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("diagnosis_harness",),
    ("app",),
    ("graph",),
    ("nodes",),
    ("diagnosis",),
    ("tools", "prompts", "providers"),
    ("guards",),
    ("harness",),
)
"""Top to bottom. A package imports only packages of lower layers; one layer's packages are
independent of each other."""


# --- the checker --------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One import statement's target, resolved to a module of the tree."""

    importer: str
    imported: str
    where: str
    """``path:line`` of the statement."""


def _modules(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the tree (None: not ours)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _targets(node: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: count packages up from the importer's own package
            package = module.split(".") if is_package else module.split(".")[:-1]
            up = package[: len(package) - (node.level - 1)]
            base = ".".join([*up, *([base] if base else [])])
        # ``from pkg import name``: name may be a submodule (pkg.name) or an attribute of pkg.
        yield from (f"{base}.{alias.name}" if base else alias.name for alias in node.names)


def module_imports(root: Path, packages: Sequence[str]) -> list[Import]:
    """Every import between modules of the tree, wherever in a file the statement stands."""
    modules = _modules(root, packages)
    found: dict[Import, None] = {}  # ordered, and one entry for `from x import a, b`
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):  # walks function bodies and `if TYPE_CHECKING:` blocks too
            for target in _targets(node, module, path.name == "__init__.py"):
                imported = _resolve(target, modules)
                if imported is not None and imported != module:
                    where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                    found.setdefault(Import(module, imported, where))
    return list(found)


def _cycles(imports: Sequence[Import]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    edges: dict[str, set[str]] = {}
    for imp in imports:
        edges.setdefault(imp.importer, set()).add(imp.imported)
        edges.setdefault(imp.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def find_violations(root: Path, layers: Sequence[Sequence[str]] = LAYERS) -> list[str]:
    """Every upward or sideways import and every import cycle in the tree under ``root``."""
    level = {package: i for i, layer in enumerate(layers) for package in layer}
    imports = module_imports(root, list(level))
    problems = []
    for imp in imports:
        src, dst = imp.importer.split(".")[0], imp.imported.split(".")[0]
        if level[dst] < level[src]:
            problems.append(f"{imp.where}: {imp.importer} imports {imp.imported}, "
                            f"a higher layer ({dst} is above {src})")
        elif level[dst] == level[src] and dst != src:
            problems.append(f"{imp.where}: {imp.importer} imports {imp.imported}, "
                            f"but {src} and {dst} are independent packages of one layer")
    for group in _cycles(imports):
        links = [f"{i.where} → {i.imported}" for i in imports
                 if i.importer in group and i.imported in group]
        problems.append(f"import cycle between {', '.join(group)}: {'; '.join(links)}")
    return problems


# --- the real tree ------------------------------------------------------------------------


def test_the_tree_has_no_upward_sideways_or_circular_import() -> None:
    assert find_violations(REPO) == []


def test_every_module_of_every_layer_is_walked() -> None:
    walked = _modules(REPO, [p for layer in LAYERS for p in layer])
    on_disk = [p for layer in LAYERS for pkg in layer for p in (REPO / pkg).rglob("*.py")]
    assert len(walked) == len(on_disk) > 40


def test_ci_checks_the_same_layers() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    linter = config["tool"]["importlinter"]
    contract = next(c for c in linter["contracts"] if c["type"] == "layers")
    assert [tuple(p.strip() for p in layer.split("|")) for layer in contract["layers"]] == \
        list(LAYERS)
    assert sorted(linter["root_packages"]) == sorted(p for layer in LAYERS for p in layer)


# --- deliberately bad imports: both checkers must catch each one --------------------------

# Each case adds modules of its own to a copy of the tree, so the cases hold whatever the
# existing modules come to contain.
BAD: dict[str, tuple[dict[str, str], str, str]] = {
    "upward at module level": (
        {"harness/_bad.py": "import graph\n"},
        "harness._bad imports graph, a higher layer", "harness._bad -> graph"),
    "upward in a function body": (
        {"guards/_bad.py": "def late():\n    from nodes import _stops\n    return _stops\n"},
        "guards._bad imports nodes._stops, a higher layer", "guards._bad -> nodes._stops"),
    "upward under TYPE_CHECKING": (
        {"diagnosis/_bad.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                              "    import app\n"},
        "diagnosis._bad imports app, a higher layer", "diagnosis._bad -> app"),
    "sideways between independent packages": (
        {"providers/_bad.py": "def prompt():\n    import prompts\n    return prompts\n"},
        "providers._bad imports prompts, but providers and prompts are independent",
        "providers._bad -> prompts"),
    "a cycle through a function-local import": (
        {"tools/_bad_a.py": "def b():\n    from tools import _bad_b\n    return _bad_b\n",
         "tools/_bad_b.py": "from tools._bad_a import b\n"},
        "import cycle between tools._bad_a, tools._bad_b", "No cycles are allowed in tools"),
}


def _copy_with(tmp_path: Path, added: dict[str, str]) -> Path:
    root = tmp_path / "tree"
    for package in [p for layer in LAYERS for p in layer]:
        shutil.copytree(REPO / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__", "demo_data"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for relpath, text in added.items():
        path = root / relpath
        path.write_text((path.read_text(encoding="utf-8") if path.exists() else "") + text,
                        encoding="utf-8")
    return root


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    linter = Path(sys.executable).parent / "lint-imports"
    if not linter.exists():
        pytest.fail("lint-imports is not installed: pip install -e '.[dev]'")
    # The copy comes first on the path, so import-linter reads it, not the installed tree.
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([str(linter), "--no-cache", "--no-logo", "pyproject.toml"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", list(BAD))
def test_a_deliberately_bad_import_is_caught(tmp_path: Path, case: str) -> None:
    added, says, linter_says = BAD[case]
    root = _copy_with(tmp_path, added)
    [problem] = find_violations(root)
    assert says in problem
    assert f"{next(iter(added))}:" in problem  # it names the file and line to fix
    linted = _lint_imports(root)
    assert linted.returncode != 0, linted.stdout + linted.stderr
    assert "1 broken" in linted.stdout and linter_says in linted.stdout, linted.stdout


def test_the_old_backends_cycle_through_a_function_local_import_is_caught(tmp_path: Path) -> None:
    # The shape this tree had: the package imports its submodule in a function body, and the
    # submodule imports names from the package. Nothing fails at import time; it is still a cycle.
    root = _copy_with(tmp_path, {"tools/backends/sqlalchemy.py":
                                 "\nfrom tools.backends import Backends\n"})
    problems = find_violations(root)
    assert len(problems) == 1, problems
    assert problems[0].startswith("import cycle between tools.backends, tools.backends.sqlalchemy")
    assert "tools/backends/__init__.py:" in problems[0]
    assert "tools/backends/sqlalchemy.py:" in problems[0]


def test_a_relative_import_is_resolved_like_an_absolute_one(tmp_path: Path) -> None:
    root = _copy_with(tmp_path, {"guards/_bad.py": "from ..nodes import _stops\n"})
    assert find_violations(root) == [
        "guards/_bad.py:1: guards._bad imports nodes._stops, a higher layer (nodes is above guards)"]
    root = _copy_with(tmp_path / "again", {"tools/backends/sqlite.py": "\nfrom . import Backends\n"})
    [problem] = find_violations(root)
    assert problem.startswith("import cycle between tools.backends,")
    line = len((REPO / "tools/backends/sqlite.py").read_text(encoding="utf-8").splitlines()) + 2
    assert f"tools/backends/sqlite.py:{line} → tools.backends" in problem
