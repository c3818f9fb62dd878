"""Run incidents against a real local model; print one row per case and a summary line.

    scripts/local-model.sh start
    HARNESS_LOCAL_MODEL_URL=http://127.0.0.1:8089/v1 python scripts/smoke_local_model.py [ID…]
    … smoke_local_model.py --data DIR --truth FILE [ID…]   # your own incident datasets

The truth file has the shape of ``tools/demo_data/truth.json``: ``incidents`` and optionally
``no_evidence``, each case with ``id``, ``question``, ``expected_outcome`` (SUCCESS or FALLBACK)
and, for a SUCCESS, ``key_terms`` that the published root cause and claims must all name.
Per case: the outcome against the expected one, whether a SUCCESS named the right cause, model
and tool calls, protocol violations, tokens, the largest prompt of one call (against the
harness's estimate of it) and the wall time. Settings are the local-model ones of
``tests/test_local_model.py`` (schema-constrained answers detected, a 4,096-token context).
``HARNESS_JUDGE_MODEL`` (with ``HARNESS_JUDGE_BASE_URL``, ``HARNESS_JUDGE_API_KEY``,
``HARNESS_JUDGE_CONTEXT_TOKENS``) puts the judge on another model, as in any run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from test_local_model import LOCAL_SETTINGS  # noqa: E402

from diagnosis_harness.control.settings import load_settings  # noqa: E402
from diagnosis_harness.graph.builder import build_graph  # noqa: E402
from diagnosis_harness.session.runner import Services, run_turn  # noqa: E402
from diagnosis_harness.tools.dataset.build import demo_dataset_dir  # noqa: E402

COLUMNS = ("id", "expected", "outcome", "verdict", "cause", "model", "tools", "violations",
           "tokens", "max_prompt", "est", "wall_s")


def cause_text(content: str | None) -> str:
    """The published root cause and claim statements (not the quoted evidence lines)."""
    lines = (content or "").splitlines()
    out = [ln for ln in lines if ln.startswith("Root cause:")]
    if "Evidence (every id checked" in (content or ""):
        for ln in lines[lines.index(next(x for x in lines if x.startswith("Evidence"))) + 1:]:
            if ln.startswith("Next steps:"):
                break
            if ln.startswith("- "):
                out.append(re.sub(r"\[[^\]]*\]$", "", ln))
    return "\n".join(out)


def violations(messages: list[Any]) -> int:
    """Progress- and envelope-protocol violations the tool gate answered in this run."""
    count = 0
    for m in messages:
        if isinstance(m, ToolMessage) and isinstance(m.content, str):
            try:
                body = json.loads(m.content)
            except json.JSONDecodeError:
                continue
            if isinstance(body, dict) and "protocol violation" in str(body.get("error", "")):
                count += 1
    return count


def context_check(messages: list[Any]) -> tuple[int, int]:
    """(largest real prompt, its estimate) over the agent's calls; the estimate must be ≥."""
    pairs = [(int((m.usage_metadata or {}).get("input_tokens") or 0),
              int((m.response_metadata.get("context") or {}).get("estimate") or 0))
             for m in messages if isinstance(m, AIMessage)]
    return max(pairs, default=(0, 0))


def judge(case: dict[str, Any], out: dict[str, Any], facts: int) -> tuple[str, str]:
    """(verdict, cause): ok / WRONG_SUCCESS / FAILED / unexpected FALLBACK; yes / no / -."""
    outcome, expected = out["release_outcome"], case["expected_outcome"]
    cause = "-"
    if outcome == "SUCCESS" and out["intent"] == "DIAGNOSIS":
        terms = case.get("key_terms") or []
        text = cause_text(out["content"]).lower()
        cause = "yes" if terms and all(t.lower() in text for t in terms) else "no"
        return ("ok" if expected == "SUCCESS" and cause == "yes" else "WRONG_SUCCESS"), cause
    if outcome == "FALLBACK":
        return ("ok" if expected == "FALLBACK" else "miss (fallback)"), f"facts={facts}"
    return f"miss ({outcome})", cause


def transcript(messages: list[Any]) -> list[dict[str, Any]]:
    """The run's conversation as the harness kept it: role, text and tool calls per message."""
    return [{"role": m.type, "content": m.content,
             **({"tool_calls": m.tool_calls} if getattr(m, "tool_calls", None) else {})}
            for m in messages]


async def one(services: Services, case: dict[str, Any],
              transcripts: Path | None = None) -> dict[str, Any]:
    saver = InMemorySaver()
    began = time.monotonic()
    out = await run_turn(services, case["question"], checkpointer=saver)
    wall = time.monotonic() - began
    # Through the graph: the checkpoint stores messages as deltas, rebuilt on read.
    values = (await build_graph(saver).aget_state(
        {"configurable": {"thread_id": out["thread_id"]}})).values
    messages = list(values.get("messages") or [])
    trace = services.store.trace(out["run_id"])
    if transcripts is not None:
        transcripts.mkdir(parents=True, exist_ok=True)
        (transcripts / f"{case['id']}.json").write_text(json.dumps(
            {"result": out, "messages": transcript(messages), "draft": values.get("draft"),
             "verdicts": trace["verdicts"], "tool_records": trace["tool_records"]},
            indent=1, default=str))
    facts = len(set(re.findall(r"\[(E\d+\.\d+)\]", out["content"] or "")))
    verdict, cause = judge(case, out, facts)
    real, est = context_check(messages)
    u = out["usage"]
    prompts = [c["input_tokens"] for c in trace["model_calls"]]
    detail = out["fallback_type"] or out["failure_code"] or ""
    return {"id": case["id"], "expected": case["expected_outcome"],
            "outcome": f"{out['release_outcome']}{'/' + detail if detail else ''}",
            "verdict": verdict, "cause": cause, "model": u["model_calls"], "tools": u["tool_calls"],
            "violations": violations(messages), "tokens": u["input_tokens"] + u["output_tokens"],
            "max_prompt": max(prompts, default=0), "est": f"{est}>={real}" if est else "-",
            "wall_s": round(wall), "stop": out["stop_reason"], "estimate_ok": est >= real}


def summary(rows: list[dict[str, Any]]) -> str:
    """One line: the issue's targets, measured."""
    n = len(rows)
    wrong = sum(r["verdict"] == "WRONG_SUCCESS" for r in rows)
    fb = [r for r in rows if r["expected"] == "FALLBACK"]
    ok_fb = sum(r["verdict"] == "ok" for r in fb)
    succ = [r for r in rows if r["expected"] == "SUCCESS"]
    right = sum(r["cause"] == "yes" for r in succ)
    viol = sum(r["violations"] for r in rows) / n if n else 0.0
    return (f"{n} runs: wrong SUCCESS {wrong}; expected fallbacks ended FALLBACK {ok_fb}/{len(fb)};"
            f" SUCCESS with the right cause {right}/{len(succ)}; protocol violations/run "
            f"{viol:.2f}; tokens {sum(r['tokens'] for r in rows)}; wall "
            f"{sum(r['wall_s'] for r in rows)} s; prompt estimates never below real: "
            f"{all(r['estimate_ok'] for r in rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="only these case ids")
    parser.add_argument("--data", type=Path, help="incident dataset folder (default: demo)")
    parser.add_argument("--truth", type=Path, help="truth file (default: the demo's)")
    parser.add_argument("--url", default=os.environ.get("HARNESS_LOCAL_MODEL_URL"))
    parser.add_argument("--transcripts", type=Path,
                        help="write each case's conversation and result to DIR/ID.json")
    args = parser.parse_args()
    if not args.url:
        parser.error("set HARNESS_LOCAL_MODEL_URL or pass --url")
    if args.data is not None and args.truth is None:
        parser.error("--data needs --truth (the expected outcome of each case)")
    truth = json.loads((args.truth or demo_dataset_dir() / "truth.json").read_text())
    cases = truth.get("incidents", []) + truth.get("no_evidence", [])
    if args.ids:
        cases = [c for c in cases if c["id"] in args.ids]
    home = Path(tempfile.mkdtemp(prefix="smoke-"))
    extra = {"data_dir": args.data} if args.data else {}
    services = Services.from_settings(load_settings(home=home, OPENAI_BASE_URL=args.url,
                                                    **LOCAL_SETTINGS, **extra))
    def shown(found: Any) -> str:
        return f"{found.mode} ({found.detail})" if found else "n/a"

    print(f"# {services.seam.label} at {args.url}; structured output: "
          f"{shown(services.seam.structured)}; run store {home}", flush=True)
    if (judge := services.seam.judge) is not None:
        print(f"# judge {judge.spec} at {judge.settings.openai_base_url}; structured output: "
              f"{shown(judge.structured)}", flush=True)
    print("\t".join(COLUMNS), flush=True)
    rows = []
    for case in cases:
        row = asyncio.run(one(services, case, args.transcripts))
        rows.append(row)
        print("\t".join(str(row[c]) for c in COLUMNS), f"\tstop={row['stop']}", flush=True)
    print(summary(rows), flush=True)


if __name__ == "__main__":
    main()
