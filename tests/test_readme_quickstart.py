"""README's quick start, pasted verbatim and in order into a fresh clone, works.

The blocks marked ``quickstart`` in README.md are what a new user pastes: create and activate a
venv, install the clone into it, diagnose the demo incident, score the demo suite. They run here
as one bash script in a fresh clone of this working tree, with a ``PATH`` that holds no
``harness`` (so a README that forgets to activate the venv fails with "command not found", as
it did for users) and ``python3`` pinned to the interpreter this suite runs on.

No network. A fresh install from an index cannot run offline on this machine (its local package
mirror lacks the pinned langgraph), so pip is told ``PIP_NO_INDEX`` and finds every dependency
already satisfied on ``PYTHONPATH``: this environment's site-packages, read through symlinks,
without this project's own install. ``venv
--system-site-packages`` would not do: it exposes the base interpreter's packages, not this
venv's. What is installed fresh is the clone itself, editable, into the new venv; the test checks
the ``harness`` the README ran is that one.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def quickstart_script() -> str:
    """README's ``bash quickstart`` blocks, in order, as one script."""
    fence = re.compile(r"^```bash quickstart[^\n]*\n(.*?)^```\s*$", re.M | re.S)
    return "".join(m.group(1) for m in fence.finditer(README.read_text(encoding="utf-8")))


def test_the_quickstart_installs_activates_and_runs() -> None:
    script = quickstart_script()
    assert "venv" in script and "harness diagnose" in script, "README has lost its quick start"


def _clone(dest: Path) -> None:
    """A fresh clone of this working tree: HEAD, plus the edits not yet committed."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True,
                   timeout=300)
    diff = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--binary"], check=True,
                          capture_output=True, timeout=120).stdout
    if diff:
        subprocess.run(["git", "-C", str(dest), "apply", "--whitespace=nowarn"], input=diff,
                       check=True, timeout=120)


def _dependencies(dest: Path) -> Path:
    """This environment's installed packages, read through symlinks, minus this project.

    The project's own editable install must not be visible: its finder module has the same name
    as the one the clone's install writes, and the first on the path would win.
    """
    dest.mkdir()
    for packages in map(Path, site.getsitepackages()):
        for entry in packages.iterdir():
            own = entry.name.startswith(("__editable__", "diagnosis_harness"))
            if not own and not entry.name.endswith(".pth") and not (dest / entry.name).exists():
                (dest / entry.name).symlink_to(entry)
    return dest


def _env(tmp: Path) -> dict[str, str]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    # The same Python the dependencies on PYTHONPATH were installed for.
    (bin_dir / "python3").symlink_to(Path(getattr(sys, "_base_executable", sys.executable)))
    here = Path(sys.executable).parent
    path = [str(bin_dir)] + [d for d in os.environ["PATH"].split(os.pathsep)
                             if d and Path(d) != here and not (Path(d) / "harness").exists()]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HARNESS_", "OPENAI_", "PIP_", "PYTHON", "VIRTUAL_ENV", "CONDA"))}
    env.update(PATH=os.pathsep.join(path), HOME=str(tmp / "user"), HARNESS_HOME=str(tmp / "home"),
               PYTHONPATH=str(_dependencies(tmp / "dependencies")),
               PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
               # pip reads its negative options inverted: "0" here means --no-build-isolation,
               # so the build uses the setuptools already on PYTHONPATH instead of downloading one.
               PIP_NO_BUILD_ISOLATION="0",
               LANGSMITH_TRACING="false")
    return env


@pytest.mark.slow
def test_readme_quickstart_runs_verbatim_in_a_fresh_clone(tmp_path: Path) -> None:
    assert shutil.which("git"), "git is needed to clone the working tree"
    repo = tmp_path / "diagnosis-harness"
    _clone(repo)
    env = _env(tmp_path)
    assert shutil.which("harness", path=env["PATH"]) is None  # only the README's venv may supply it

    done = subprocess.run(["bash", "-euo", "pipefail", "-c", quickstart_script()], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=540, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "model: offline" in done.stdout  # the diagnosis report's last line
    for name in ("scorecard.json", "junit.xml", "report.md", "report.html"):
        assert (repo / "eval-out" / name).is_file(), name

    # The harness that ran is the clone's, installed in the clone's own venv.
    where = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                            "import diagnosis_harness; print(diagnosis_harness.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=True)
    assert Path(where.stdout.strip()).is_relative_to(repo), where.stdout
    assert (repo / ".venv" / "bin" / "harness").is_file()
