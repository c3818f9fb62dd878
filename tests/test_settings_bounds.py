"""Absurd settings are refused at start: exit 64 and one line naming the variable (issue 37, item 7).

Found from outside: ``HARNESS_SQL_TIMEOUT_S=1e308`` was accepted, and the run it configured ended
FAILED / EVIDENCE_TAMPERED (a re-check whose deadline overflowed is no tampering). Every number
of the settings now has an upper bound as well as a lower one, and floats must be finite.

``harness diagnose`` with an absurd setting runs once as a real process (exit 64, one line, no
traceback); the other settings through the same CLI in this process (tests/clikit.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import cli_here
from graphkit import INC

from diagnosis_harness.control.settings import Settings, SettingsError, load_settings

REPO = Path(__file__).resolve().parents[1]

ABSURD = [
    ("HARNESS_SQL_TIMEOUT_S", "1e308"),
    ("HARNESS_SQL_TIMEOUT_S", "inf"),
    ("HARNESS_SQL_TIMEOUT_S", "nan"),
    ("HARNESS_DEADLINE_S", "-1"),
    ("HARNESS_DEADLINE_S", "1e12"),
    ("HARNESS_LEASE_S", "0"),
    ("HARNESS_AGENT_CALL_TIMEOUT_S", "Infinity"),
    ("HARNESS_NOTIFY_TIMEOUT_S", "1e308"),
    ("HARNESS_ALERTS_LOOKBACK_S", "NaN"),
    ("HARNESS_MAX_TOKENS", "0"),
    ("HARNESS_MAX_TOKENS", "99999999999999999999999"),
    ("HARNESS_MAX_TOOL_CALLS", "-3"),
    ("HARNESS_MAX_RUN_BYTES", "9223372036854775807"),
    ("HARNESS_ROUTER_ATTEMPTS", "1000000"),
    ("HARNESS_IMPORT_MAX_LINE_BYTES", "0"),
    ("HARNESS_IMPORT_MAX_BYTES", "1e400"),
]


def _harness(tmp_path: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO), **env_extra)
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)


@pytest.mark.parametrize(("name", "value"), ABSURD, ids=[f"{n}={v}"[:40] for n, v in ABSURD])
def test_an_absurd_setting_is_refused_by_the_api(name: str, value: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert str(caught.value).startswith(f"invalid settings — {name}: ")
    assert "\n" not in str(caught.value)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "value"), [("HARNESS_SQL_TIMEOUT_S", "1e308"),
                                             ("HARNESS_DEADLINE_S", "nan"),
                                             ("HARNESS_MAX_TOKENS", "0")])
def test_diagnose_with_an_absurd_setting_exits_64_with_one_line(
        tmp_path: Path, name: str, value: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    if name == "HARNESS_SQL_TIMEOUT_S":  # a real process
        proc = _harness(tmp_path, "diagnose", INC["question"], **{name: value})
    else:
        proc = cli_here(monkeypatch, capsys, "diagnose", INC["question"], cwd=tmp_path,
                        env={"HARNESS_HOME": str(tmp_path / "home"), name: value})
    assert proc.returncode == 64, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"harness: invalid settings — {name}: "), lines
    assert proc.stdout == ""  # no run, no report
    assert not (tmp_path / "home" / "runs.sqlite").exists()


def test_every_number_has_an_upper_bound_and_every_float_is_finite() -> None:
    """A number added later without a bound fails here, not in someone's 3 a.m. run."""
    unbounded = []
    for name, field in Settings.model_fields.items():
        kinds = {a for a in (field.annotation, *getattr(field.annotation, "__args__", ()))}
        if not kinds & {int, float} or bool in kinds:
            continue
        meta = {type(m).__name__: m for m in field.metadata}
        if "Le" not in meta and "Lt" not in meta:
            unbounded.append(name)
        if float in kinds and getattr(meta.get("AllowInfNan"), "allow_inf_nan", True):
            unbounded.append(f"{name} (NaN/inf)")
    assert not unbounded


def test_the_defaults_and_sane_values_still_load() -> None:
    s = load_settings(sql_timeout_s=3600, deadline_s=86_400, max_tokens=1_000_000_000,
                      alerts_lookback_s=0, import_max_line_bytes=64 << 20)
    assert s.sql_timeout_s == 3600 and s.import_max_bytes == 4 << 30
