"""Every code block of the README and of docs/ is executed here, or says why it cannot be.

A fenced block's info string is its language and, after it, how it runs:

- ```` ```bash ```` / ```` ```python ````: run in an empty folder with a fresh ``HARNESS_HOME``,
  the project's ``harness`` first on ``PATH``, ``.venv`` pointing at this environment and the
  repository's ``scripts/`` and ``benchmarks/`` beside it, as from the repository's root;
- ``server``: the same, with a real ``harness serve`` listening where the block says
  (``127.0.0.1:2024`` is rewritten to the test server's address);
- ``postgres``: the same, with ``HARNESS_DATABASE_URL`` exported for a real PostgreSQL;
- ``pytest``: a user's test module, run by tests/test_pytest_plugin.py;
- ``quickstart``: README's install-and-first-run blocks, pasted in order into a fresh clone by
  tests/test_readme_quickstart.py (the venv is created and activated there, not borrowed);
- ``no-run (why)``: not executed — installs, your own files, a model server; the reason is
  required.

Blocks in other languages (``text``, ``json``, ``yaml``, ``mermaid``…) are not programs; a
``json`` block must parse unless it is marked ``no-run``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from devserver import DevServer

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROGRAMS = {"bash", "sh", "python"}
MODES = {"", "server", "postgres", "pytest", "quickstart", "no-run"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    mode: str
    reason: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks() -> list[Block]:
    found = []
    fence = re.compile(r"^( *)```([^\n`]*)\n(.*?)^\1```\s*$", re.M | re.S)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in fence.finditer(text):
            info = m.group(2).strip()
            lang, _, rest = info.partition(" ")
            mode, _, reason = rest.strip().partition(" ")
            code = "\n".join(line[len(m.group(1)):] for line in m.group(3).splitlines()) + "\n"
            found.append(Block(page.relative_to(ROOT).as_posix(), text[:m.start()].count("\n") + 1,
                               lang, mode, reason.strip(" ()"), code))
    return found


ALL = blocks()


def _runs(mode: str) -> list[Block]:
    return [b for b in ALL if b.lang in PROGRAMS and b.mode == mode]


def test_every_block_says_what_it_is() -> None:
    assert len(ALL) > 20
    unlabelled = [b.id for b in ALL if not b.lang]
    assert unlabelled == [], "give every fence a language (text for output and synopses)"
    unknown = [(b.id, b.mode) for b in ALL if b.lang in PROGRAMS and b.mode not in MODES]
    assert unknown == []
    unexplained = [b.id for b in ALL if b.mode == "no-run" and not b.reason]
    assert unexplained == [], "a block that is not run says why"


def test_every_page_but_the_design_runs_an_example() -> None:
    """The user-facing pages each have something that runs (design and security are reference)."""
    ran = {b.page for b in ALL if b.lang in PROGRAMS and b.mode != "no-run"}
    pages = {p.relative_to(ROOT).as_posix() for p in PAGES} - {"docs/design.md", "docs/security.md"}
    assert pages - ran == set()


@pytest.mark.parametrize("block", [b for b in ALL if b.lang == "json" and b.mode != "no-run"],
                         ids=lambda b: b.id)
def test_a_json_block_parses(block: Block) -> None:
    json.loads(block.code)


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
               LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="1", LANGSMITH_TRACING="false",
               **extra)
    return env


def _execute(block: Block, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    work.mkdir(parents=True, exist_ok=True)
    (work / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    for tooling in ("scripts", "benchmarks"):  # the repository's own scripts, as from its root
        (work / tooling).symlink_to(ROOT / tooling, target_is_directory=True)
    if block.lang == "python":
        args = [sys.executable, "-c", block.code]
    else:
        args = ["bash", "-euo", "pipefail", "-c", block.code]
    return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("block", _runs(""), ids=lambda b: b.id)
def test_a_block_runs(block: Block, tmp_path: Path) -> None:
    done = _execute(block, tmp_path / "work", _env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("docserver")
    with DevServer(root / "serve", _env(root / "home")) as running:
        yield running


@pytest.mark.slow
@pytest.mark.parametrize("block", _runs("server"), ids=lambda b: b.id)
def test_a_block_runs_against_a_real_server(block: Block, server: DevServer, tmp_path: Path) -> None:
    assert "127.0.0.1:2024" in block.code
    code = Block(block.page, block.line, block.lang, "", "",
                 block.code.replace("127.0.0.1:2024", server.url.removeprefix("http://")))
    done = _execute(code, tmp_path / "work", _env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("block", _runs("postgres"), ids=lambda b: b.id)
def test_a_block_runs_on_postgres(block: Block, pg_url: str, tmp_path: Path) -> None:
    done = _execute(block, tmp_path / "work", _env(tmp_path / "home", HARNESS_DATABASE_URL=pg_url))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_pytest_blocks_are_run_by_the_plugin_test() -> None:
    source = (ROOT / "tests" / "test_pytest_plugin.py").read_text(encoding="utf-8")
    for block in _runs("pytest"):
        assert block.page in source, f"{block.id} is a pytest block nobody runs"
