"""The HTML report and `harness runs show --html` opened in a real headless Chromium.

Each page is rendered twice by the browser: its DOM after layout (``--dump-dom``: the summary,
the case rows and the SVG picture are there, with no script) and a screenshot whose pixels
are read back (a small PNG decoder below): the summary's green precision, a case row's
verdict, and the picture's red error bars, shaded window and blue change mark.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from evalkit import harness

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)", allow_module_level=True)

WIDTH, HEIGHT = 1200, 900
GREEN, RED, BLUE, WINDOW = (0x1B, 0x7F, 0x3B), (0xD6, 0x45, 0x45), (0x2F, 0x6F, 0xDE), (0xFF, 0xF4, 0xE5)


def chromium(url: str, *args: str, cwd: Path) -> str:
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}", *args, url],
                          capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def screenshot(url: str, png: Path) -> list[list[tuple[int, int, int]]]:
    chromium(url, f"--screenshot={png}", cwd=png.parent)
    return read_png(png)


def read_png(path: Path) -> list[list[tuple[int, int, int]]]:
    """RGB rows of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[list[tuple[int, int, int]]] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])  # type: ignore[misc]
        previous = line
    return rows


def count(rows: list[list[tuple[int, int, int]]], colour: tuple[int, int, int], *, top: int = 0,
          bottom: int | None = None, tolerance: int = 12) -> int:
    return sum(1 for row in rows[top:bottom] for px in row
               if all(abs(a - b) <= tolerance for a, b in zip(px, colour, strict=True)))


def test_the_eval_report_and_a_run_view_render_in_chromium(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = harness("eval", "demo", "--out", str(out), "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = out / "report.html"
    assert not re.search(r"<script|https?://(?!www\.w3\.org/2000/svg)", report.read_text(encoding="utf-8"))

    dom = chromium(report.as_uri(), "--dump-dom", cwd=tmp_path)
    assert "7/7" in dom and "precision" in dom
    assert len(re.findall(r'<tbody class="case"', dom)) == 7
    assert dom.count('<svg xmlns="http://www.w3.org/2000/svg" class="timeline"') == 7

    page = screenshot(report.as_uri(), tmp_path / "report.png")
    assert count(page, GREEN, bottom=220, tolerance=40) > 40  # the summary's green precision
    assert count(page, GREEN, top=220, tolerance=40) > 100  # RIGHT / HONEST in the case rows
    assert count(page, RED) == 0  # pictures stay closed until a case is opened

    opened = screenshot(report.as_uri() + "#run-INC-1", tmp_path / "opened.png")
    assert count(opened, RED) > 500 and count(opened, WINDOW, tolerance=2) > 5000

    run_id = json.loads(proc.stdout)["scorecard"]["cases"][0]["run_id"]
    shown = harness("runs", "show", run_id, "--html", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    page_file = tmp_path / "run.html"
    page_file.write_text(shown.stdout, encoding="utf-8")
    run_dom = chromium(page_file.as_uri(), "--dump-dom", cwd=tmp_path)
    assert run_id in run_dom and "CHG-2041" in run_dom
    assert re.search(r"E\d+\.\d+ change", run_dom)  # the cited change row, by its evidence id
    view = screenshot(page_file.as_uri(), tmp_path / "run.png")
    assert count(view, RED) > 500  # error bars of payment-service and gateway in the window
    assert count(view, WINDOW, tolerance=2) > 5000  # the shaded incident window
    assert count(view, BLUE, tolerance=30) > 20  # the cited config change's mark
