"""The real ``harness`` CLI with slow, counted evidence tools, for tests that kill it mid-run.

``python tests/slow_harness.py COUNT_LOG TOOL_DELAY_S AFTER_RECORD_S harness-args…`` runs the
``harness`` console script (``diagnosis_harness.cli.entry.main``, its signal handling installed
first, as there) with two test hooks and nothing else changed:

- every execution of an evidence tool at the boundary appends ``start <tool_call_id>`` to
  COUNT_LOG before it runs (then sleeps TOOL_DELAY_S) and ``end <tool_call_id>`` after, each
  line flushed to disk, so a test counts what the backends really executed across processes;
- after a tool record is stored, the tool gate sleeps AFTER_RECORD_S: a kill in that window
  lands after the record was written and before the node's checkpoint.

Either delay may be written ``SECONDS@TOOL_CALL_ID``: then only that tool call waits (a test that
kills at one call does not wait at every call before it).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diagnosis_harness.cli import entry, signals  # noqa: E402 — cheap: nothing heavy yet


def _note(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def _delay(spec: str) -> Callable[[str], float]:
    """``SECONDS`` (every tool call) or ``SECONDS@TOOL_CALL_ID`` (that one): seconds per call id."""
    seconds, _, only = spec.partition("@")
    return lambda tool_call_id: float(seconds) if only in ("", tool_call_id) else 0.0


def _hook(log: str, delay: Callable[[str], float], after: Callable[[str], float]) -> None:
    import diagnosis_harness.nodes.tool_gate
    from diagnosis_harness.runstore.store import RunStore

    execute = diagnosis_harness.nodes.tool_gate.execute_tool
    record = RunStore.record_tool

    def counted(name: str, args: dict[str, Any], **kw: Any) -> Any:
        _note(log, f"start {kw['tool_call_id']}")
        time.sleep(delay(kw["tool_call_id"]))
        out = execute(name, args, **kw)
        _note(log, f"end {kw['tool_call_id']}")
        return out

    def record_then_wait(self: RunStore, run_id: str, rec: Any, *args: Any, **kw: Any) -> None:
        record(self, run_id, rec, *args, **kw)
        time.sleep(after(rec.tool_call_id))

    diagnosis_harness.nodes.tool_gate.execute_tool = counted  # type: ignore[assignment]
    RunStore.record_tool = record_then_wait  # type: ignore[method-assign]


def main() -> None:
    """Install the signal handling, then the hooks, then run the CLI with the other arguments."""
    signals.install()  # first, as the console script does: tests signal this at any moment
    args = sys.argv[4:]
    try:
        _hook(sys.argv[1], _delay(sys.argv[2]), _delay(sys.argv[3]))
    except KeyboardInterrupt:  # a SIGTERM while the hooks import the graph's modules
        sys.exit(signals.stop_line(signals.before_start(args)))
    except Exception as exc:  # the same, wrapped by pydantic-core building a model
        if not signals.interrupted(exc):
            raise
        sys.exit(signals.stop_line(signals.before_start(args)))
    entry.main(args)


if __name__ == "__main__":
    main()
