"""Importing the serving adapter changes nothing: no settings read, no graph built, no globals set.

``langgraph.json`` names ``diagnosis_harness.serving.adapter``; the server (and any tool that lists the
graphs) imports
it. What it serves is built when the server first asks for it, never as a side effect of the
import, so importing it next to another use of the harness (a test, a script, the CLI) leaves
that use exactly as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, os, sys, threading

PROJECT = ("diagnosis_harness",)

# Everything the serving adapter imports, imported first: what changes after is the import's doing.
import diagnosis_harness.session.runner, diagnosis_harness.session.services  # noqa
import diagnosis_harness.run.context, diagnosis_harness.graph.builder  # noqa
import diagnosis_harness.control.settings, diagnosis_harness.serving  # noqa

def state():
    modules = {}
    for name, module in sorted(sys.modules.items()):
        if name.split(".")[0] not in PROJECT or name == "diagnosis_harness.serving.adapter":
            continue
        values = {}
        for key, value in vars(module).items():
            shown = repr(value) if isinstance(value, (list, dict, set, tuple)) else ""
            values[key] = [id(value), shown]
        modules[name] = values
    return {"modules": modules, "environ": dict(os.environ), "cwd": sorted(os.listdir(".")),
            "threads": sorted(t.name for t in threading.enumerate())}

before = state()
import diagnosis_harness.serving.adapter
after = state()
home = os.environ["HARNESS_HOME"]
print(json.dumps({
    "before": before, "after": after,
    "home_exists": os.path.exists(home),
    "adapters_built": diagnosis_harness.serving.adapter._build.cache_info().currsize,
}))
"""


def test_importing_app_serving_changes_no_global_state(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    # Settings that cannot be built: an import that read them, or built services, would fail.
    env.update(HARNESS_HOME=str(home), HARNESS_MODEL="no-such-provider:x",
               HARNESS_DEADLINE_S="not a number")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    before, after = seen["before"], seen["after"]
    assert set(after["modules"]) == set(before["modules"])  # no module of ours loaded by it
    del after["modules"]["diagnosis_harness.serving"]["adapter"]  # binding the submodule is all it may do
    for name, values in before["modules"].items():
        assert after["modules"][name] == values, f"importing diagnosis_harness.serving.adapter changed {name}"
    assert after["environ"] == before["environ"]
    assert after["cwd"] == before["cwd"] == []  # no .env read-and-written, no store, no files
    assert after["threads"] == before["threads"]  # no trace writer started
    assert not seen["home_exists"]  # no run store, no checkpointer, no dataset opened
    assert seen["adapters_built"] == 0
