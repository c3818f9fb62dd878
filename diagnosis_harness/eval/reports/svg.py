"""The incident picture as inline SVG: one lane per service, baseline then window.

Each lane is a bar per bucket (all events grey, ERROR or worse red on top of it); the window
is shaded, onsets are red dashed lines, cited changes blue ones, each labelled. Plain SVG
elements only, no script, no external reference: the page stays self-contained.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from diagnosis_harness.eval.picture import BUCKETS, Timeline

WIDTH, LANE, LEFT, TOP, BOTTOM = 860, 34, 150, 22, 56


def _clock(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%H:%M")


def timeline_svg(picture: Timeline) -> str:
    """The picture as one ``<svg>`` element."""
    lanes = max(1, len(picture.series))
    height = TOP + lanes * LANE + BOTTOM
    plot = WIDTH - LEFT - 10
    span = max(1, picture.end_ms - picture.start_ms)

    def x(ms: int) -> float:
        return LEFT + plot * (ms - picture.start_ms) / span

    peak = max([1, *(n for s in picture.series for n in s.counts)])
    bar = plot / BUCKETS
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH}" '
             f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
             'aria-label="events per service over the baseline and the window">',
             f'<rect x="{x(picture.window_start_ms):.1f}" y="{TOP - 6}" '
             f'width="{x(picture.end_ms) - x(picture.window_start_ms):.1f}" '
             f'height="{lanes * LANE + 6}" fill="#fff4e5"/>',
             f'<text x="{LEFT + 2}" y="{TOP - 9}" font-size="11" fill="#555">baseline</text>',
             f'<text x="{x(picture.window_start_ms) + 2:.1f}" y="{TOP - 9}" font-size="11" '
             'fill="#a15c00">incident window</text>']
    for lane, series in enumerate(picture.series):
        base = TOP + (lane + 1) * LANE - 4
        parts.append(f'<text x="{LEFT - 6}" y="{base - 8}" font-size="12" text-anchor="end">'
                     f'{escape(series.service)}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{base}" x2="{LEFT + plot}" y2="{base}" stroke="#ccc"/>')
        for i, (count, errors) in enumerate(zip(series.counts, series.errors, strict=True)):
            if not count:
                continue
            h = (LANE - 8) * count / peak
            e = (LANE - 8) * errors / peak
            left = LEFT + i * bar + 1
            parts.append(f'<rect x="{left:.1f}" y="{base - h:.1f}" width="{bar - 2:.1f}" '
                         f'height="{h:.1f}" fill="#9aa5b1"><title>{escape(series.service)}: '
                         f'{count} events, {errors} errors</title></rect>')
            if errors:
                parts.append(f'<rect x="{left:.1f}" y="{base - e:.1f}" width="{bar - 2:.1f}" '
                             f'height="{e:.1f}" fill="#d64545"/>')
    bottom = TOP + lanes * LANE
    for n, mark in enumerate(picture.marks):
        colour = "#d64545" if mark.kind == "onset" else "#2f6fde"
        at = x(mark.ts_ms)
        parts.append(f'<line class="mark {mark.kind}" x1="{at:.1f}" y1="{TOP - 4}" x2="{at:.1f}" '
                     f'y2="{bottom}" stroke="{colour}" stroke-dasharray="4 3" stroke-width="1.5">'
                     f'<title>{escape(mark.label)} at {_clock(mark.ts_ms)}</title></line>')
        anchor = "end" if at > WIDTH - 160 else "start"
        parts.append(f'<text x="{at + (-2 if anchor == "end" else 2):.1f}" y="{bottom + 11 + 11 * (n % 3)}" '
                     f'font-size="10" text-anchor="{anchor}" fill="{colour}">{escape(mark.label)}</text>')
    for ms, anchor in ((picture.start_ms, "start"), (picture.window_start_ms, "middle"),
                       (picture.end_ms, "end")):
        parts.append(f'<text x="{x(ms):.1f}" y="{height - 4}" font-size="10" text-anchor="{anchor}" '
                     f'fill="#555">{_clock(ms)}</text>')
    parts.append("</svg>")
    return "".join(parts)
