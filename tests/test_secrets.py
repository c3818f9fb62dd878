"""Known secrets never reach the run store, the checkpoints, the events or the CLI's output.

A provider that echoes the API key in its error body (servers do: "Incorrect API key provided:
sk-…") and a base URL with a password in it are the two ways seen; every settings field named
like a secret (``*_key``, ``*_token``, ``*_secret``, ``*password*``, ``*webhook*``) and the
credentials of every URL setting are redacted, and so is anything that looks like an
``Authorization: Bearer …`` header.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from stub_openai import StubOpenAI

from diagnosis_harness.control.settings import Settings

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-test-SECRET123"
Q = "payment timeouts on payment-service since 10:00, why?"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return env


def _cli(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          env=_env(home, **extra), cwd=home.parent, timeout=180)


@pytest.mark.slow
def test_a_key_echoed_by_the_provider_is_stored_and_shown_nowhere(tmp_path: Path) -> None:
    home = tmp_path / "home"
    echo = {"status": 401, "message": f"Incorrect API key provided: {KEY}. Authorization: "
                                      f"Bearer {KEY}"}
    with StubOpenAI([echo]) as stub:
        env = {"HARNESS_MODEL": "openai:stub-model", "OPENAI_BASE_URL": stub.base_url,
               "OPENAI_API_KEY": KEY}
        as_json = _cli(home, "diagnose", Q, "--json", **env)
        as_text = _cli(home, "diagnose", Q, **env)
        assert stub.requests and stub.requests[0]["auth"] == f"Bearer {KEY}"  # it was sent
    out = json.loads(as_json.stdout)
    assert out["release_outcome"] == "FAILED", out
    shown = [_cli(home, "runs", "show", out["run_id"], **env),
             _cli(home, "runs", "show", out["run_id"], "--json", **env),
             _cli(home, "runs", "list", **env)]
    assert all(p.returncode == 0 for p in shown), [p.stderr for p in shown]
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name.startswith("runs.sqlite") for p in files)
    assert any(p.name.startswith("checkpoints.sqlite") for p in files)
    for name, blob in [("diagnose --json", as_json.stdout + as_json.stderr),
                       ("diagnose", as_text.stdout + as_text.stderr),
                       *((" ".join(map(str, p.args[3:])), p.stdout + p.stderr) for p in shown),
                       *((str(p), p.read_bytes()) for p in files)]:
        assert KEY.encode() not in blob, name
        assert b"SECRET123" not in blob, name


def test_config_shows_no_password_of_a_url(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = _cli(home, "config", OPENAI_BASE_URL="http://user:hunter2@127.0.0.1:1/v1",
                HARNESS_JUDGE_BASE_URL="http://judge:s3cr3tpw@127.0.0.1:2/v1",
                HARNESS_JUDGE_API_KEY="sk-judge-XYZ789")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout + proc.stderr
    assert b"127.0.0.1:1" in text  # the URL is shown, without its password
    for secret in (b"hunter2", b"s3cr3tpw", b"sk-judge-XYZ789"):
        assert secret not in text


def test_every_secret_like_setting_is_covered_by_its_name() -> None:
    from diagnosis_harness.control.secrets import is_secret_name, secret_field_names

    names = secret_field_names(Settings)
    assert {"openai_api_key", "judge_api_key", "database_url", "ops_db_url"} <= names
    # A setting added later is covered by the naming rule, not by a list someone must update.
    for future in ("alerts_token", "github_token", "slack_webhook_url", "notifier_secret",
                   "smtp_password"):
        assert is_secret_name(future), future
    assert not is_secret_name("max_tokens") and not is_secret_name("model_context_tokens")


def test_redaction_of_urls_headers_and_known_values() -> None:
    from diagnosis_harness.control.secrets import redact

    text = ("GET http://bob:pa55word@db.local:5432/x failed; Authorization: Bearer abc.DEF-123; "
            f"key {KEY} bad")
    clean = redact(text, {KEY})
    for secret in ("pa55word", "abc.DEF-123", KEY):
        assert secret not in clean
    assert "db.local:5432" in clean and "Bearer ***" in clean
