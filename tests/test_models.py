from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from stub_openai import StubOpenAI

from diagnosis_harness.control.budget import Budget, BudgetLimits
from diagnosis_harness.control.contracts import FailureClass, Role
from diagnosis_harness.control.lifecycle import RunLifecycle
from diagnosis_harness.control.retry import RetryPolicy, execute_with_retry
from diagnosis_harness.control.settings import SettingsError, load_settings
from diagnosis_harness.providers.replay import ReplayExhausted, ReplayFileError, ReplayScript
from diagnosis_harness.providers.seam import ModelSeam, ModelSpecError, classify_exception, parse_model_spec


def openai_seam(stub: StubOpenAI, **overrides: object) -> ModelSeam:
    settings = load_settings(model="openai:stub-model", OPENAI_API_KEY="test-key",
                             OPENAI_BASE_URL=stub.base_url, **overrides)
    return ModelSeam(settings)


def test_sdk_never_retries_behind_the_harness() -> None:
    with StubOpenAI([{"status": 500}]) as stub:
        model = openai_seam(stub).for_role(Role.AGENT)
        with pytest.raises(Exception) as info:
            model.invoke("why are payments timing out?")
        assert len(stub.requests) == 1  # ChatOpenAI's default would have sent 3
        assert classify_exception(info.value) is FailureClass.TRANSPORT


def test_harness_retries_are_the_only_retries() -> None:
    with StubOpenAI([{"status": 503}]) as stub:
        model = openai_seam(stub).for_role(Role.ROUTER)

        async def op(timeout: float):  # noqa: ANN202
            return await model.ainvoke("route me")

        result = asyncio.run(execute_with_retry(
            op, role="router", policy=RetryPolicy(2, 5, 10),
            lifecycle=RunLifecycle(deadline_s=60),
            budget=Budget(BudgetLimits(10, 10, 10_000, 10_000)), classify=classify_exception))
        assert len(stub.requests) == 2  # exactly the policy's two attempts, nothing hidden
        assert [r.failure_class for r in result.receipts] == [FailureClass.TRANSPORT] * 2


def test_client_timeout_is_explicit_and_classified() -> None:
    with StubOpenAI([{"delay": 1.5, "content": "late"}]) as stub:
        model = openai_seam(stub, router_attempt_timeout_s=0.3).for_role(Role.ROUTER)
        with pytest.raises(Exception) as info:
            model.invoke("route me")
        assert classify_exception(info.value) is FailureClass.TIMEOUT
        assert len(stub.requests) == 1


def test_usage_and_tool_calls_round_trip_over_http() -> None:
    answer = {"content": "", "tool_calls": [{"id": "c1", "name": "query_logs",
                                              "args": {"service": "payment-service"}}],
              "usage": {"prompt_tokens": 120, "completion_tokens": 30}}
    with StubOpenAI([answer]) as stub:
        msg = openai_seam(stub).for_role(Role.AGENT).invoke("go")
    assert msg.tool_calls[0]["name"] == "query_logs"
    assert msg.tool_calls[0]["args"] == {"service": "payment-service"}
    budget = Budget(BudgetLimits(10, 10, 10_000, 10_000))
    budget.record_usage_metadata(msg.usage_metadata)
    assert (budget.usage.input_tokens, budget.usage.output_tokens) == (120, 30)
    assert stub.requests[0]["body"]["model"] == "stub-model"


def test_openai_models_are_built_without_hidden_retries() -> None:
    with StubOpenAI() as stub:
        seam = openai_seam(stub)
        for role in Role:
            model = seam.for_role(role)
            assert model.max_retries == 0  # type: ignore[attr-defined]
            assert model.request_timeout and model.request_timeout > 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["", "gpt-4o", "openai:", "anthropic:claude", "replay"])
def test_unknown_model_spec_is_a_clear_error(spec: str) -> None:
    with pytest.raises(ModelSpecError, match="offline.*openai:MODEL_NAME.*replay:FILE"):
        parse_model_spec(spec)


def test_openai_without_api_key_is_refused_before_any_call() -> None:
    with pytest.raises(ModelSpecError, match="OPENAI_API_KEY"):
        ModelSeam(load_settings(model="openai:gpt-4o-mini"))


def test_unreadable_or_malformed_replay_files(tmp_path: Path) -> None:
    with pytest.raises(ReplayFileError, match="not found"):
        ModelSeam(load_settings(model=f"replay:{tmp_path / 'missing.json'}"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ReplayFileError, match="not valid JSON"):
        ReplayScript.from_file(bad)
    bad.write_text(json.dumps({"agent": [{"raise": "meteor"}]}))
    with pytest.raises(ReplayFileError, match=r"agent\[0\]"):
        ReplayScript.from_file(bad)
    bad.write_text(json.dumps({"planner": []}))
    with pytest.raises(ReplayFileError, match="unknown roles"):
        ReplayScript.from_file(bad)


def test_replay_consumes_in_order_per_role_and_says_when_it_runs_out(tmp_path: Path) -> None:
    f = tmp_path / "script.json"
    f.write_text(json.dumps({
        "router": [{"content": "r1"}],
        "agent": [{"raise": "timeout"}, {"content": "a2", "usage": {"input_tokens": 5}}],
    }))
    seam = ModelSeam(load_settings(model=f"replay:{f}"))
    agent = seam.for_role(Role.AGENT)
    with pytest.raises(Exception) as info:
        agent.invoke("x")
    assert classify_exception(info.value) is FailureClass.TIMEOUT
    assert agent.invoke("x").content == "a2"
    assert seam.for_role(Role.ROUTER).invoke("x").content == "r1"
    with pytest.raises(ReplayExhausted, match="role 'agent'"):
        agent.invoke("x")


def test_injected_unclassified_crash_is_unknown(tmp_path: Path) -> None:
    seam = ModelSeam(load_settings(model="replay:inline"),
                     replay_script=ReplayScript({"judge": [{"raise": "error"}]}))
    with pytest.raises(RuntimeError) as info:
        seam.for_role(Role.JUDGE).invoke("x")
    assert classify_exception(info.value) is FailureClass.UNKNOWN


def test_malformed_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_MAX_MODEL_CALLS", "lots")
    with pytest.raises(SettingsError, match="HARNESS_MAX_MODEL_CALLS"):
        load_settings()
    monkeypatch.setenv("HARNESS_MAX_MODEL_CALLS", "-1")
    with pytest.raises(SettingsError, match="greater than 0"):
        load_settings()


def test_settings_read_dotenv_and_csv_lists(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("HARNESS_REQUIRED_CONTEXT=service, merchant\nHARNESS_DEADLINE_S=9\n")
    s = load_settings()
    assert s.required_context == ["service", "merchant"] and s.deadline_s == 9


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diagnosis_harness", *args], capture_output=True,
                          text=True, env=env, timeout=60)


def test_cli_bad_usage_exits_64_without_traceback(tmp_path: Path) -> None:
    for args in (["config", "--model", "gpt"], ["no-such-command"], ["config", "--bogus"]):
        proc = _cli(*args)
        assert proc.returncode == 64, (args, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout
    proc = _cli("config", "--model", "gpt")
    assert "unknown model spec" in proc.stderr


def test_help_does_not_import_langchain_openai() -> None:
    code = ("import sys\nfrom diagnosis_harness.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as e:\n    assert e.code == 0\n"
            "print(sorted(m for m in sys.modules if m.startswith(('langchain_openai', 'openai', "
            "'langgraph'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_one_seam_serves_successive_event_loops() -> None:
    # Scripts and tests call asyncio.run() once per diagnosis; the SDK's shared async client is
    # bound to the first loop, which used to fail the second run with "Event loop is closed".
    with StubOpenAI([{"content": "first"}, {"content": "second"}]) as stub:
        seam = openai_seam(stub)

        async def ask() -> str:
            return str((await seam.for_role(Role.ROUTER).ainvoke("x")).content)

        assert asyncio.run(ask()) == "first"
        assert asyncio.run(ask()) == "second"


def test_a_reply_cut_by_the_length_limit_is_invalid_output() -> None:
    import openai
    from openai.types import CompletionUsage

    usage = CompletionUsage(completion_tokens=10, prompt_tokens=4086, total_tokens=4096)
    assert classify_exception(openai.LengthFinishReasonError(completion=type(
        "C", (), {"usage": usage})())) is FailureClass.INVALID_OUTPUT


def test_a_full_context_window_is_a_spent_budget_not_a_crash() -> None:
    too_long = {"status": 400, "message": "This model's maximum context length is 4096 tokens. "
                "However, you requested 4752 tokens."}
    with StubOpenAI([too_long]) as stub:
        with pytest.raises(Exception) as info:
            openai_seam(stub).for_role(Role.AGENT).invoke("x")
    assert classify_exception(info.value) is FailureClass.BUDGET_EXHAUSTED
    with StubOpenAI([{"status": 400, "message": "unknown parameter"}]) as stub:
        with pytest.raises(Exception) as info:
            openai_seam(stub).for_role(Role.AGENT).invoke("x")
    assert classify_exception(info.value) is FailureClass.UNKNOWN
