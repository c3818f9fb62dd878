"""Input tokens per investigation, this checkout against another, side by side (issue 40).

The same scripted investigations run through the harness in both checkouts: the agent is a
real OpenAI-compatible HTTP server on 127.0.0.1 (a few lines below) that makes the same tool
calls in the same order on the demo data — the evidence each demo incident's truth lists, the
incident's logs and its runbook — and then writes a null draft. What the harness sends each
call (messages and tool specs, as JSON on the wire) is counted with one fixed estimate of
tokens (below), the same for both checkouts: the figures compare, they do not bill. Next to
the input tokens: what a provider's prompt cache would not serve (the tokens past the longest
prefix a request shares with an earlier one): a stable prefix (system prompt and tool specs the
same for every run) is what makes it small.

    python benchmarks/llm_tokens.py --against ../a-worktree-of-main   # both, side by side
    python benchmarks/llm_tokens.py --json                            # this checkout only
    python benchmarks/llm_tokens.py --transcripts --against …         # a capable model's calls

``--transcripts`` plays instead the tool calls a capable model made in the 16 canon
investigations of tests/data/llm_transcripts (in its turns, under its call ids, with its own
limits and progress notes) on the canon's data, then the same null draft: what that model's
investigations cost in input tokens, before its draft (run from the repository root: the
canon's build comes from tests/).

``--against DIR`` runs this very file again with ``PYTHONPATH=DIR`` (the other checkout's
harness), so the older code needs no copy of it. Each checkout's own ``diagnosis_harness`` is
the one imported: run it with ``PYTHONPATH`` set to this checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

_TOKEN = re.compile(r"[A-Za-z]{1,4}|\d|[^\sA-Za-z\d]")
"""One token per up-to-4 letters, per digit and per symbol: close to what Qwen/Llama-3
tokenizers give ISO timestamps and JSON, and the same for both checkouts."""


def tokens(text: str) -> int:
    """The fixed token estimate of ``text``."""
    return len(_TOKEN.findall(text))


def request_text(body: dict[str, Any]) -> str:
    """One chat request as a provider reads it: the tool specs first, then every message."""
    sent = [body.get("tools", []), body.get("messages", [])]
    return json.dumps(sent, ensure_ascii=False, separators=(",", ":"))


def bridge_tokens(body: dict[str, Any]) -> int:
    """Input tokens of one request as a live measure's endpoint counts them: characters / 4.

    Of the request's JSON as ``json.dumps`` writes it by default (ASCII escapes, spaces after
    separators).
    """
    return len(json.dumps(body)) // 4


def request_tokens(body: dict[str, Any]) -> int:
    """Input tokens of one chat request as sent: every message, and the tool specs."""
    return tokens(request_text(body))


class PrefixCache:
    """What a provider's prompt cache would not serve.

    The tokens after the longest prefix a request shares with any earlier one (of any
    investigation, in the order they ran).
    """

    def __init__(self) -> None:
        self.seen: list[str] = []

    def uncached(self, text: str) -> int:
        """The tokens of ``text`` past its longest prefix in common with an earlier request."""
        shared = max((len(os.path.commonprefix([text, old])) for old in self.seen), default=0)
        self.seen.append(text)
        return tokens(text) - tokens(text[:shared])


def _turns(plan: list[tuple[str, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """One call a turn, each naming the call before it (the progress rule)."""
    turns = []
    for n, (name, args) in enumerate(plan, start=1):
        if n > 1:
            args = {**args, "previous_observation": {
                "tool_call_id": f"call_{n - 1}", "gain": "GAINED", "note": "n"}}
        turns.append([{"id": f"call_{n}", "name": name, "args": args}])
    return turns


def _script_cases(folder: Path, questions: dict[str, str],
                  data_dir: Any) -> list[dict[str, Any]]:
    """The replay scripts in ``folder`` of the cases ``questions`` names: router answer, turns."""
    out = []
    for path in sorted(folder.glob("*.json")):
        if path.stem not in questions:
            continue  # manifest.json, a case of another world
        script = json.loads(path.read_text(encoding="utf-8"))
        turns = []
        for entry in script["agent"]:
            if not entry.get("tool_calls"):
                break  # its draft: from here on the run is the draft's, not the investigation's
            turns.append([{"id": c["id"], "name": c["name"], "args": c["args"]}
                          for c in entry["tool_calls"]])
        out.append({"id": path.stem, "question": questions[path.stem], "turns": turns,
                    "route": json.loads(script["router"][0]["content"]),
                    "data_dir": str(data_dir(path.stem))})
    return out


def transcript_cases() -> list[dict[str, Any]]:
    """The capable model's canon investigations: its router answer and its tool-call turns."""
    sys.path.insert(0, str(Path("tests").resolve()))
    from canon import build  # the tests' own kit: the canon's data, built (and cached) on demand

    suite = build()
    questions = {c["id"]: c["question"] for c in json.loads(suite.read_text())["cases"]}
    return _script_cases(Path("tests/data/llm_transcripts"), questions,
                         lambda case: suite.parent / case)


def world_cases(world: str, scripts: Path) -> list[dict[str, Any]]:
    """Replay scripts of a live model's investigations (``scripts/CASE.json``) on one world.

    ``world`` is a world's name (built on demand by tests/worlds) or its built folder.
    """
    data = Path(world)
    if not data.is_dir():
        sys.path.insert(0, str(Path(".").resolve()))
        from tests.worlds import folder  # the tests' own kit: the world, built on demand

        data = folder(world)
    truth = json.loads((data / "truth.json").read_text(encoding="utf-8"))
    questions = {c["id"]: c["question"] for c in truth["incidents"]}
    return [{**case, "timezone": truth.get("timezone", "UTC")}
            for case in _script_cases(scripts, questions, lambda case: data)]


def cases() -> list[dict[str, Any]]:
    """The demo incidents that have evidence to fetch, each as one scripted investigation."""
    truth = json.loads(resources.files("diagnosis_harness.tools").joinpath(
        "demo_data/truth.json").read_text(encoding="utf-8"))
    out = []
    for inc in truth["incidents"]:
        if not inc.get("evidence") or not inc.get("service"):
            continue
        plan = [("query_logs", {"service": inc["service"], "start": inc["start"],
                                "end": inc["end"]}),
                *((e["tool"], e["args"]) for e in inc["evidence"])]
        if inc.get("runbook_query"):
            plan.append(("lookup_knowledge", {"query": inc["runbook_query"]}))
        out.append({"id": inc["id"], "question": inc["question"], "turns": _turns(plan),
                    "route": {"intent": "DIAGNOSIS", "service": inc["service"],
                              "merchant": inc.get("merchant"), "start": inc["start"],
                              "end": inc["end"]}})
    return out


class Agent:
    """Router and agent of one investigation, as the stub server's answers."""

    def __init__(self, case: dict[str, Any], cache: PrefixCache) -> None:
        self.case = case
        self.cache = cache
        self.uncached: list[int] = []
        self.agent: list[int] = []
        self.bridge: list[int] = []
        self.other: list[int] = []
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request: the router's scope, the next planned turn, or the draft."""
        size = request_tokens(body)
        usage = {"prompt_tokens": size, "completion_tokens": 30}
        with self.lock:
            (self.agent if body.get("tools") else self.other).append(size)
            if body.get("tools"):
                self.uncached.append(self.cache.uncached(request_text(body)))
                self.bridge.append(bridge_tokens(body))
            n = len(self.agent)
        if not body.get("tools"):  # the router (a null draft is never judged)
            return {"message": {"role": "assistant", "content": json.dumps(self.case["route"])},
                    "usage": usage}
        turns = self.case["turns"]
        if body.get("tool_choice") == "none" or n > len(turns):
            draft = {"conclusion": None, "next_steps": ["compare the numbers"]}
            return {"message": {"role": "assistant", "content": json.dumps(draft)},
                    "usage": usage}
        calls = [{"id": c["id"], "type": "function",
                  "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
                 for c in turns[n - 1]]
        return {"message": {"role": "assistant", "content": "", "tool_calls": calls},
                "usage": usage}


def serve(agent: Agent) -> ThreadingHTTPServer:
    """A chat-completions server on 127.0.0.1 answering from ``agent``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            got = agent.answer(body)
            u = got["usage"]
            data = json.dumps({
                "id": "x", "object": "chat.completion", "created": 0, "model": "stub",
                "choices": [{"index": 0, "message": got["message"], "finish_reason": "stop"}],
                "usage": {**u, "total_tokens": u["prompt_tokens"] + u["completion_tokens"]},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(transcripts: bool = False, world: str | None = None,
            scripts: str | None = None) -> list[dict[str, Any]]:
    """Run every case through this checkout's harness; agent input tokens per investigation."""
    from langgraph.checkpoint.memory import InMemorySaver

    from diagnosis_harness.control.settings import load_settings
    from diagnosis_harness.runstore.store import RunStore
    from diagnosis_harness.session.runner import Services, run_turn

    rows = []
    cache = PrefixCache()
    with tempfile.TemporaryDirectory() as tmp:
        chosen = world_cases(world, Path(scripts)) if world and scripts \
            else transcript_cases() if transcripts else cases()
        for case in chosen:
            agent = Agent(case, cache)
            server = serve(agent)
            try:
                home = Path(tmp) / case["id"]
                # No token budget to end an investigation early: each checkout plays all of
                # the same calls (a checkout that sends more would otherwise make fewer).
                settings = load_settings(
                    model="openai:stub", OPENAI_API_KEY="k", max_tokens=100_000_000,
                    OPENAI_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}/v1",
                    home=home, **({"data_dir": case["data_dir"]} if "data_dir" in case else {}),
                    **({"timezone": case["timezone"]} if "timezone" in case else {}))
                services = Services.from_settings(settings, store=RunStore(home / "runs.sqlite"))
                out = asyncio.run(run_turn(services, case["question"],
                                           checkpointer=InMemorySaver()))
            finally:
                server.shutdown()
            rows.append({"case": case["id"], "agent_calls": len(agent.agent),
                         "agent_input_tokens": sum(agent.agent),
                         "uncached_tokens": sum(agent.uncached),
                         "bridge_tokens": sum(agent.bridge),
                         "first_call": agent.agent[0] if agent.agent else 0,
                         "tool_calls": out["usage"]["tool_calls"],
                         "outcome": out["release_outcome"]})
    return rows


def other(checkout: str, flags: list[str]) -> list[dict[str, Any]]:
    """The same measurement in another checkout (this file run with its PYTHONPATH)."""
    env = {**os.environ, "PYTHONPATH": str(Path(checkout).resolve())}
    flags = ["--json", *flags]
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *flags], env=env,
                          cwd=checkout, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run in {checkout} failed:\n{done.stderr[-2000:]}")
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def main() -> None:
    """Print this checkout's figures, or both side by side with their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="another checkout (e.g. a worktree of main)")
    parser.add_argument("--json", action="store_true", help="this checkout's rows as JSON")
    parser.add_argument("--transcripts", action="store_true",
                        help="the capable model's canon investigations instead of the demo's")
    parser.add_argument("--world", help="a world of tests/worlds, with --scripts")
    parser.add_argument("--scripts", help="replay scripts (CASE.json) of the world's cases")
    opts = parser.parse_args()
    if bool(opts.world) != bool(opts.scripts):
        parser.error("--world and --scripts go together")
    scripts = str(Path(opts.scripts).resolve()) if opts.scripts else None
    world = opts.world
    if world and scripts:  # one folder for both checkouts, built once
        world = str(Path(world_cases(world, Path(scripts))[0]["data_dir"]).resolve())
    rows = measure(opts.transcripts, world, scripts)
    if opts.json:
        print(json.dumps(rows))
        return
    if not opts.against:
        for r in rows:
            print(f"{r['case']:8} {r['agent_calls']:3} calls {r['agent_input_tokens']:8} tokens")
        return
    flags = [*(["--transcripts"] if opts.transcripts else []),
             *(["--world", world, "--scripts", scripts] if scripts and world else [])]
    base = {r["case"]: r for r in other(opts.against, flags)}
    rows = [r for r in rows if r["case"] in base]  # an older checkout may have fewer cases
    w = max(8, *(len(r["case"]) for r in rows))
    print(f"{'case':{w}} {'calls base/this':>16} {'input base':>11} {'this':>7} {'ratio':>6}   "
          f"{'not prefix-cached base':>22} {'this':>7} {'ratio':>6}")
    ratios, cached_ratios, totals = [], [], [0, 0, 0, 0]
    for r in rows:
        b = base[r["case"]]
        ratio = r["agent_input_tokens"] / max(b["agent_input_tokens"], 1)
        c_ratio = r["uncached_tokens"] / max(b["uncached_tokens"], 1)
        ratios.append(ratio)
        cached_ratios.append(c_ratio)
        for i, v in enumerate((b["agent_input_tokens"], r["agent_input_tokens"],
                               b["uncached_tokens"], r["uncached_tokens"])):
            totals[i] += v
        print(f"{r['case']:{w}} {b['agent_calls']:>7}/{r['agent_calls']:<8} "
              f"{b['agent_input_tokens']:>11} {r['agent_input_tokens']:>7} {ratio:>6.2f}   "
              f"{b['uncached_tokens']:>22} {r['uncached_tokens']:>7} {c_ratio:>6.2f}")
    print(f"{'total':{w}} {'':16} {totals[0]:>11} {totals[1]:>7} {totals[1] / totals[0]:>6.2f}   "
          f"{totals[2]:>22} {totals[3]:>7} {totals[3] / max(totals[2], 1):>6.2f}")
    print(f"median ratio {statistics.median(ratios):.2f} (input), "
          f"{statistics.median(cached_ratios):.2f} (not prefix-cached) over {len(ratios)} "
          "investigations")
    chars = [r["bridge_tokens"] / max(base[r["case"]].get("bridge_tokens", 0), 1) for r in rows]
    if all(base[r["case"]].get("bridge_tokens") for r in rows):
        print(f"as characters / 4: median ratio {statistics.median(chars):.2f}, total "
              f"{sum(r['bridge_tokens'] for r in rows)} against "
              f"{sum(base[r['case']]['bridge_tokens'] for r in rows)}")


if __name__ == "__main__":
    main()
