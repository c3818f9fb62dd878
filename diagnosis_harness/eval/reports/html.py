"""The self-contained HTML report: the summary, a row per case, each opening to its run view.

Each case's id links to its run view (shown by CSS ``:target``, so a link or a URL ending
``#run-CASE`` opens it without a script). A run view (:func:`run_view_html`) is the question,
the outcome, the published root cause, the cited evidence, the guards' and the judge's verdicts
and the incident picture; it is the same for a case of an eval and for ``harness runs show
RUN_ID --html``. One file, inline CSS and SVG, no script and nothing fetched: it opens from a
CI artifact or a mail attachment.
"""

from __future__ import annotations

from html import escape

from diagnosis_harness.eval.reports.svg import timeline_svg
from diagnosis_harness.eval.scoring import RunView, Scorecard

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1f2933}
h1{font-size:22px;margin:0 0 4px}.meta{color:#616e7c;font-size:13px;margin-bottom:14px}
.cards{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0 18px}
.card{border:1px solid #d9e2ec;border-radius:6px;padding:8px 14px;min-width:92px}
.card b{display:block;font-size:20px}.card span{font-size:12px;color:#616e7c}
.bad{color:#c62828}.good{color:#1b7f3b}.gates{border-left:4px solid #c62828;padding:4px 10px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{background:#f5f7fa}td.id{white-space:nowrap}
tr.detail{display:none}tr.detail:target{display:table-row}
.verdict{font-weight:600}.RIGHT,.HONEST{color:#1b7f3b}.WRONG{color:#c62828}
.MISSED,.UNEXPECTED{color:#b26a00}.run{background:#fafbfc;padding:10px 14px;margin:6px 0}
.run dt{font-weight:600;margin-top:8px}.run dd{margin:2px 0 0 0}
pre{white-space:pre-wrap;font-size:12px;background:#fff;border:1px solid #e4e7eb;padding:8px}
code{font-size:12px}
"""


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>\n")


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run_view_html(question: str, view: RunView, *, run_id: str | None = None) -> str:
    """One run: question, outcome, root cause, cited evidence, verdicts, incident picture."""
    rows = [f"<dt>Question</dt><dd>{escape(question)}</dd>",
            f"<dt>Outcome</dt><dd><code>{escape(view.outcome)}</code>"
            + (f" · run <code>{escape(run_id)}</code>" if run_id else "") + "</dd>"]
    if view.root_cause:
        rows.append(f"<dt>Root cause</dt><dd class=\"root-cause\">{escape(view.root_cause)}</dd>")
    if view.failure:
        rows.append(f"<dt>Failure</dt><dd>{escape(view.failure)}</dd>")
    if view.cited:
        items = "".join(f"<li><code>{escape(c.evidence_id)}</code> ({escape(c.tool)}): "
                        f"{escape(c.text)}</li>" for c in view.cited)
        rows.append(f"<dt>Cited evidence</dt><dd><ul>{items}</ul></dd>")
    if view.verdicts:
        rows.append("<dt>Verdicts</dt><dd><ul>"
                    + "".join(f"<li>{escape(v)}</li>" for v in view.verdicts) + "</ul></dd>")
    if view.picture is not None:
        rows.append("<dt>Incident picture</dt><dd>" + timeline_svg(view.picture) + "</dd>")
    if view.content:
        rows.append(f"<dt>Published text</dt><dd><pre>{escape(view.content)}</pre></dd>")
    return f"<dl class=\"run\">{''.join(rows)}</dl>"


def run_html(question: str, view: RunView, *, run_id: str, title: str) -> str:
    """A page with one run view (``harness runs show RUN_ID --html``)."""
    return _page(title, f"<h1>{escape(title)}</h1>" + run_view_html(question, view, run_id=run_id))


def eval_html(card: Scorecard, *, gate_failures: list[str] | None = None) -> str:
    """The scorecard as one self-contained page."""
    s = card.summary
    cost = "unknown" if s.cost_total is None else f"{s.cost_total:.4f}"
    cards = [("as expected", f"{s.as_expected}/{s.cases}", ""),
             ("precision", _ratio(s.precision), "good" if s.wrong == 0 else "bad"),
             ("coverage", _ratio(s.coverage), ""), ("wrong", str(s.wrong), "bad" if s.wrong else "good"),
             ("missed", str(s.missed), ""), ("abstention", _ratio(s.abstention_rate), ""),
             ("AC@1 / AC@3", f"{_ratio(s.ac_at_1)} / {_ratio(s.ac_at_3)}", ""),
             ("wall p50 / p95", f"{s.wall_p50_s:.2f}s / {s.wall_p95_s:.2f}s", ""),
             ("tokens", str(s.tokens_total), ""), ("cost", cost, "")]
    body = [f"<h1>harness eval · {escape(card.suite)}</h1>",
            f"<div class=\"meta\">model <code>{escape(card.model)}</code> · code "
            f"<code>{escape(card.code_version)}</code></div>",
            "<div class=\"cards summary\">" + "".join(
                f"<div class=\"card\"><b class=\"{cls}\">{escape(value)}</b><span>{escape(name)}</span></div>"
                for name, value, cls in cards) + "</div>"]
    if gate_failures:
        body.append("<div class=\"gates\"><b class=\"bad\">Gates failed</b><ul>"
                    + "".join(f"<li>{escape(g)}</li>" for g in gate_failures) + "</ul></div>")
    head = "".join(f"<th>{h}</th>" for h in ("case", "expected", "outcome", "verdict", "why",
                                               "model calls", "tool calls", "tokens", "wall s"))
    rows = []
    for c in card.cases:
        detail = run_view_html(c.question, c.run, run_id=c.run_id) if c.run else ""
        anchor = f"run-{escape(c.id)}"
        rows.append(
            f"<tbody class=\"case\" id=\"case-{escape(c.id)}\"><tr><td class=\"id\">"
            f"<a href=\"#{anchor}\">{escape(c.id)}</a></td><td>{escape(c.expected)}</td>"
            f"<td>{escape(c.outcome)}</td><td class=\"verdict {c.verdict}\">{c.verdict}</td>"
            f"<td>{escape(c.why)}</td><td>{c.usage.model_calls}</td><td>{c.usage.tool_calls}</td>"
            f"<td>{c.usage.tokens}</td><td>{c.wall_s:.2f}</td></tr>"
            f"<tr class=\"detail\" id=\"{anchor}\"><td colspan=\"9\">{detail}</td></tr></tbody>")
    body.append(f"<p class=\"meta\">Open a case (its id) to see its run.</p><table><thead><tr>{head}"
                f"</tr></thead>{''.join(rows)}</table>")
    return _page(f"harness eval {card.suite}", "".join(body))
