"""The report page in a real browser: headless Chromium draws the charts.

The page of a packaged ruleset is opened from a file and screenshot; a small PNG reader
(zlib and the five row filters, nothing else) decodes it, and the first chart's first
bar must be there: the band colours in the legend's order, each as wide as its rounded
share of the bar. Chromium is installed by ``.ci/run`` (Debian's package) and driven by
Playwright (``web_support.browser``); where it is absent the test skips and says so.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from playwright.sync_api import Browser

from dicebound.edge.files import read_character, read_ruleset
from dicebound.render.html import BAR_HEIGHT, BAR_WIDTH, bar_widths, outcome_colours, report_html
from dicebound.report import build_report

WINDOW = (1200, 900)

RGB = tuple[int, int, int]


def _screenshot(chrome: Browser, page: Path, png: Path) -> None:
    """The page as a browser window of ``WINDOW`` shows it, at one pixel per CSS pixel."""
    opened = chrome.new_page(
        viewport={"width": WINDOW[0], "height": WINDOW[1]}, device_scale_factor=1
    )
    try:
        opened.goto(page.resolve().as_uri())
        opened.screenshot(path=png)
    finally:
        opened.close()


# -- a tiny PNG reader: 8-bit RGB or RGBA, not interlaced ----------------------------------


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(data: bytes, rows: int) -> list[list[RGB]]:
    """The first ``rows`` pixel rows of a PNG, as RGB triples."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at = 8
    idat = bytearray()
    width = height = channels = 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    rows = min(rows, height)
    stride = width * channels
    raw = zlib.decompressobj().decompress(bytes(idat), rows * (stride + 1))
    previous = bytearray(stride)
    out: list[list[RGB]] = []
    for y in range(rows):
        start = y * (stride + 1)
        filter_type = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        if filter_type == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif filter_type == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif filter_type == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif filter_type == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                upper_left = previous[i - channels] if i >= channels else 0
                line[i] = (line[i] + _paeth(left, previous[i], upper_left)) & 0xFF
        else:
            assert filter_type == 0, f"unknown PNG filter {filter_type}"
        out.append([(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, channels)])
        previous = line
    return out


def _rgb(colour: str) -> RGB:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _runs(
    row: list[RGB], palette: list[RGB], seen: dict[RGB, int | None]
) -> list[tuple[int, int, int]]:
    """(x, palette index, length) of each run of a palette colour along a pixel row;
    ``seen`` remembers which palette colour (if any) each pixel value is, as a page has
    few colours and many pixels."""

    def which(pixel: RGB) -> int | None:
        for i, want in enumerate(palette):
            if all(abs(a - b) <= 4 for a, b in zip(pixel, want, strict=True)):
                return i
        return None

    out: list[tuple[int, int, int]] = []
    for x, pixel in enumerate(row):
        i = seen[pixel] if pixel in seen else seen.setdefault(pixel, which(pixel))
        if i is None:
            continue
        if out and out[-1][1] == i and out[-1][0] + out[-1][2] == x:
            out[-1] = (out[-1][0], i, out[-1][2] + 1)
        else:
            out.append((x, i, 1))
    return out


def test_the_page_draws_a_chart_per_check_in_chromium(chrome: Browser, tmp_path: Path) -> None:
    ruleset = read_ruleset("advanced-resolution")
    report = build_report(ruleset, read_character(ruleset, "maud"))
    colours = outcome_colours(report.outcomes)
    first = report.rows[0].cells[0]
    assert first.odds is not None
    expected = [(i, w) for i, w in enumerate(bar_widths(first.probabilities)) if w > 0]
    assert len(expected) >= 3, "the first bar should show several bands"

    page = tmp_path / "report.html"
    page.write_text(report_html(report), encoding="utf-8")
    png = tmp_path / "report.png"
    _screenshot(chrome, page, png)
    pixels = read_png(png.read_bytes(), rows=WINDOW[1] * 2 // 3)
    assert len(pixels[0]) == WINDOW[0]

    palette = [_rgb(c) for c in colours]
    # The first bar: the topmost pixel row holding a long run of a band colour (the
    # legend's swatches are short).
    seen: dict[RGB, int | None] = {}
    bars = [(y, _runs(row, palette, seen)) for y, row in enumerate(pixels)]
    top = next((y for y, runs in bars if any(n >= 40 for _, _, n in runs)), None)
    assert top is not None, "no chart bar was drawn"
    x0 = next(x for x, _, n in bars[top][1] if n >= 40)
    assert 0 < x0 < WINDOW[0] // 2, "the first chart sits in the left column"

    def bar_at(y: int) -> list[tuple[int, int, int]]:
        """The runs of the first chart's bar along pixel row y (the next card's
        charts, to the right, left out)."""
        return [r for r in bars[y][1] if r[2] > 1 and x0 - 1 <= r[0] < x0 + BAR_WIDTH + 1]

    # Across the bar, the bands in order, each as wide as its share; from its top to its
    # bottom, the same.
    for y in (top + 1, top + BAR_HEIGHT // 2, top + BAR_HEIGHT - 2):
        runs = bar_at(y)
        assert [i for _, i, _ in runs] == [i for i, _ in expected], f"pixel row {y}"
        for (_, _, length), (_, width) in zip(runs, expected, strict=True):
            assert abs(length - width) <= 1
        assert abs(runs[-1][0] + runs[-1][2] - x0 - BAR_WIDTH) <= 1
    # Every band the first chart uses is drawn in it.
    chart = range(top, top + len(report.steps) * (BAR_HEIGHT + 8))
    used = {i for y in chart for _, i, _ in bar_at(y)}
    wanted = {
        i
        for cell in report.rows[0].cells
        for i, w in enumerate(bar_widths(cell.probabilities))
        if w > 1
    }
    assert wanted <= used
