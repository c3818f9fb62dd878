"""The built wheel installs under one namespace: a user's own ``app`` and ``tools`` packages stay theirs.

The wheel is built from this checkout and installed into a fresh venv that already holds two
packages with the generic names the harness used to install at top level. Both still import as
the user's, and the wheel's ``harness diagnose`` answers the built-in demo question.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=600, check=False, **kwargs)  # type: ignore[call-overload]


def test_the_wheel_shadows_no_package_of_its_user(tmp_path: Path) -> None:
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "--wheel-dir", str(tmp_path / "dist"), str(REPO)])
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("diagnosis_harness-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith((".dist-info", ".data"))} == {"diagnosis_harness"}

    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    # The user's own packages, named like the harness's old top-level ones.
    for name in ("app", "tools"):
        (site / name).mkdir()
        (site / name / "__init__.py").write_text(f"OWNER = 'user-{name}'\n")
    # The harness's dependencies come from this test's environment (no network here); its own
    # editable install there is not seen: a path added by a .pth file runs no .pth of its own.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)])
    assert installed.returncode == 0, installed.stderr

    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_", "PYTHON"))}
    env["HARNESS_HOME"] = str(tmp_path / "home")
    probe = _run([str(python), "-c",
                  "import app, tools, diagnosis_harness.tools.registry as r, diagnosis_harness as d;"
                  "print(app.OWNER, tools.OWNER, r.__file__.startswith(d.__path__[0]), d.__file__)"],
                 cwd=work, env=env)
    assert probe.returncode == 0, probe.stderr
    owner_app, owner_tools, inside, where = probe.stdout.split()
    assert (owner_app, owner_tools, inside) == ("user-app", "user-tools", "True")
    assert str(REPO) not in where  # the wheel's copy, not this checkout

    question = ("payment timeouts for merchant M1001 on payment-service between 10:00 and 10:10 "
                "on 2026-11-02 — why?")
    done = _run([str(venv / "bin" / "harness"), "diagnose", question, "--json"], cwd=work, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["release_outcome"] == "SUCCESS" and "pool" in result["content"].lower()
    # `harness eval` from the wheel: the eval package and its price table are shipped.
    scored = _run([str(venv / "bin" / "harness"), "eval", "demo", "--json"], cwd=work, env=env)
    assert scored.returncode == 0, scored.stdout + scored.stderr
    assert json.loads(scored.stdout)["scorecard"]["summary"]["as_expected"] == 7
