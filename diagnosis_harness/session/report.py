"""One run as ``harness runs show`` prints it: a readable timeline from the run store (docs/design.md §14).

:func:`run_story` gathers the row, the lineage (parent, fork point, segments, edits, approval),
the runs forked from it and every trace row in recording order; :func:`render_story` prints it
for people, ``--json`` prints the story itself.
"""

from __future__ import annotations

from typing import Any

from diagnosis_harness.runstore.lineage import approval_of, paused
from diagnosis_harness.runstore.store import RunStore


def run_story(store: RunStore, run_id: str) -> dict[str, Any] | None:
    """Everything the store knows of one run, or None if it has no row."""
    row = store.get_run(run_id)
    if row is None:
        return None
    lineage = store.lineage(run_id)
    story = {"run": row, "lineage": lineage, "forks": store.children(run_id),
             "timeline": store.timeline(run_id)}
    approval = approval_of(lineage)
    if approval.get("state") == "PENDING" and row.get("finished_at") is None:
        # What approving publishes: the report release rendered after every check, bound to
        # the approval by its digest (diagnosis_harness/continuations/approval.py). Not published yet.
        story["awaiting_approval"] = {"report": approval.get("report"),
                                      "digest": approval.get("digest"),
                                      "requested_at": approval.get("requested_at")}
    return story


def _clock(stamp: str | None) -> str:
    return (stamp or "")[11:23] or "?"


def _usage(usage: dict[str, Any] | None) -> str:
    if not usage:
        return "not recorded (unfinished)"
    return (f"{usage.get('model_calls', 0)} model calls, {usage.get('tool_calls', 0)} tool calls, "
            f"{usage.get('input_tokens', 0)}+{usage.get('output_tokens', 0)} tokens, "
            f"{usage.get('bytes', 0)} bytes")


def _entry(e: dict[str, Any]) -> str:
    kind = e["kind"]
    if kind == "event":
        ev = e["event"]
        detail = {"status": lambda: ev.get("phase"),
                  "content": lambda: f"{ev.get('release_outcome')} {ev.get('fallback_type') or ''}",
                  "failure": lambda: f"{ev.get('failure_code')}: {ev.get('message')}",
                  "done": lambda: f"{ev.get('release_outcome')} / {ev.get('run_state')}",
                  "metadata": lambda: f"model {ev.get('model')}"}.get(ev.get("event"), lambda: "")()
        return f"event    #{e['seq']} {ev.get('event')} {detail}".rstrip()
    if kind == "model_call":
        how = e.get("failure_class") or "ok"
        return (f"model    {e['role']} call {e['attempt']}: {how}, "
                f"{e['input_tokens']}+{e['output_tokens']} tokens, {e['duration_ms']} ms")
    if kind == "receipt":
        r = e["receipt"]
        return (f"receipt  {r.get('role')} attempt {r.get('attempt')}: {r.get('outcome')}"
                f"{' (' + str(r.get('failure_class')) + ')' if r.get('failure_class') else ''}")
    if kind == "tool_record":
        r = e["record"]
        ids = [f["evidence_id"] for f in r.get("facts", [])]
        shown = ", ".join(ids[:6]) + (f" … +{len(ids) - 6}" if len(ids) > 6 else "")
        error = f" error: {r.get('error')}" if r.get("error") else ""
        return (f"tool     {r.get('tool_call_id')} {r.get('tool')} {r.get('invocation_status')}/"
                f"{r.get('evidence_status')}{' → ' + shown if ids else ''}{error}")
    v = e["verdict"]
    if e["guard"] == "evidence":
        text = "passed" if v.get("passed") else \
            "failed: " + ", ".join(f"{p['evidence_id']} {p['problem']}" for p in v.get("problems", []))
    elif e["guard"] == "semantic":
        text = f"{v.get('verdict')} {'; '.join(v.get('reasons') or []) or v.get('failure_class') or ''}"
    elif e["guard"] == "revision":  # nodes/revise.py: the refused draft went back to the agent
        refusal = v.get("verdict") or {}
        text = f"sent back to the agent: {'; '.join(refusal.get('reasons') or []) or 'refused'}"
    elif e["guard"] == "judged_draft":
        text = f"{v.get('verdict')} for draft {str(v.get('draft_sha256'))[:12]}…"
    else:
        text = ", ".join(f"{k}={val}" for k, val in v.items())
    return f"verdict  {e['guard']}: {text}".rstrip()


def _lineage_lines(story: dict[str, Any]) -> list[str]:
    lineage = story["lineage"] or {}
    lines = []
    if lineage.get("parent_run_id") or lineage.get("fork_checkpoint_id"):
        inherited = lineage.get("inherited") or {}
        lines.append(f"forked from run {lineage.get('parent_run_id') or '(none)'} at checkpoint "
                     f"{lineage.get('fork_checkpoint_id')}; inherited usage: "
                     f"{_usage(inherited.get('usage'))}; {inherited.get('records', 0)} record(s), "
                     f"{inherited.get('judgements', 0)} judgement(s)")
    if story["forks"]:
        lines.append(f"forked into: {', '.join(story['forks'])}")
    if lineage.get("options"):
        lines.append(f"options: {lineage['options']}")
    for i, seg in enumerate(lineage.get("segments") or [], 1):
        ended = seg.get("ended") or "running"
        if ended == "paused":
            ended = f"paused before {', '.join(seg.get('next') or [])} ({seg.get('waiting')})"
        origin = f" from checkpoint {seg['from_checkpoint']}" if seg.get("from_checkpoint") else ""
        lines.append(f"segment {i}: {seg.get('kind')} by {seg.get('by')} (server run "
                     f"{seg.get('server_run_id') or '-'}){origin}, {_clock(seg.get('started_at'))}"
                     f" → {ended}")
    for edit in lineage.get("edits") or []:
        lines.append(f"edit: {', '.join(edit.get('keys') or ['?'])} as {edit.get('as_node') or '?'} "
                     f"by {edit.get('edited_by') or '?'} at {_clock(edit.get('edited_at'))} "
                     f"(checkpoint {edit.get('checkpoint_id')}, before segment {edit.get('run_segment')})")
    approval = lineage.get("approval")
    if approval:
        state = approval.get("state")
        who = f" by {approval.get('decided_by')} at {_clock(approval.get('decided_at'))}" \
            if state != "PENDING" else f" since {_clock(approval.get('requested_at'))}"
        note = f" — \u201c{approval['note']}\u201d" if approval.get("note") else ""
        lines.append(f"approval: {state}{who}{note}")
    if lineage.get("run_time_ms"):
        lines.append(f"run time: {lineage['run_time_ms'] / 1000:.1f} s (time spent paused not counted)")
    return lines


def render_story(story: dict[str, Any]) -> str:
    """The story as text: the row, the lineage, then the timeline."""
    row = story["run"]
    outcome = row.get("release_outcome") or ("PAUSED" if paused(story["lineage"]) else "UNFINISHED")
    kind = f" / {row['fallback_type'] or row['failure_code']}" \
        if row.get("fallback_type") or row.get("failure_code") else ""
    lines = [f"run {row['run_id']} · thread {row['thread_id']} · {row.get('intent') or '-'}",
             f"question: {row['question']}",
             f"model: {row['model_spec']}",
             f"outcome: {outcome}{kind} (status {row.get('status') or '-'}, run state "
             f"{row.get('run_state') or '-'})",
             f"started {row['started_at']}, finished {row.get('finished_at') or '-'}",
             f"usage: {_usage(row.get('usage'))}"]
    lines += _lineage_lines(story)
    lines.append("timeline:")
    lines += [f"  {_clock(e['at'])} {_entry(e)}" for e in story["timeline"]]
    failure = next((e["event"] for e in story["timeline"] if e["kind"] == "event"
                    and e["event"].get("event") == "failure"), None)
    if failure:
        lines.append(f"failed: {failure.get('failure_code')} — {failure.get('message')}")
    if row.get("content"):
        lines += ["published:", *(f"  {line}" for line in row["content"].splitlines())]
    if (waiting := story.get("awaiting_approval")) is not None:
        report = waiting.get("report")
        lines.append("AWAITING APPROVAL — not published; approving publishes exactly this verified "
                     "report (harness runs approve RUN_ID [--reject]):")
        lines += [f"  {line}" for line in report.splitlines()] if report else \
            ["  (the run store has no copy of the report: it was requested before reports were kept)"]
    return "\n".join(lines)


def render_list(rows: list[dict[str, Any]]) -> str:
    """``harness runs list``: one line per run."""
    if not rows:
        return "no runs"
    out = []
    for r in rows:
        outcome = r.get("release_outcome") or ("PAUSED" if r.get("paused") else "UNFINISHED")
        kind = r.get("fallback_type") or r.get("failure_code") or ""
        extra = []
        if r.get("parent_run_id"):
            extra.append(f"fork of {r['parent_run_id']}")
        if r.get("approval_state"):
            extra.append(f"approval {r['approval_state']}")
        if (r.get("segments") or 0) > 1:
            extra.append(f"{r['segments']} segments")
        question = r["question"] if len(r["question"]) <= 60 else r["question"][:57] + "…"
        out.append(f"{r['started_at'][:19]}  {r['run_id']}  {outcome:<10} {kind:<26} "
                   f"thread {r['thread_id']}  {question}"
                   + (f"  [{'; '.join(extra)}]" if extra else ""))
    return "\n".join(out)
