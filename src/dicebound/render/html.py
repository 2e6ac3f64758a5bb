"""HTML renderings for people: the balance report as one self-contained page (no I/O).

The page needs nothing but a browser: inline CSS, one inline SVG chart per check, no
script, no font or image fetched. Each chart has a bar per ladder step, stacked from the
best outcome on the left to the worst on the right in the band colours of the legend,
with the chance of success written beside it. Bars are whole pixels wide and drawn with
crisp edges, so what a reader (or a screenshot test) sees is exactly the rounded
chance. Every segment's tooltip and each chart's "exact fractions" table give the
fractions the percentages were rounded from.
"""

from __future__ import annotations

import math
from fractions import Fraction
from html import escape

from dicebound.report import (
    GROUP_TITLES,
    Cell,
    Outcome,
    Report,
    Row,
    outcome_name,
    percent_text,
)

__all__ = [
    "BAR_HEIGHT",
    "BAR_WIDTH",
    "BAR_X",
    "bar_widths",
    "outcome_colours",
    "report_html",
]

BAR_X = 170
"""Where each bar starts inside its chart (the step labels sit to its left)."""
BAR_WIDTH = 300
"""A bar's width in pixels: the whole chance, 100%."""
BAR_HEIGHT = 18
_GAP = 8
_LABEL_CHARS = 24
_CHART_WIDTH = BAR_X + BAR_WIDTH + 56

_CRITICAL_SUCCESS = "#1a6b2f"
_SUCCESSES = ("#4dac26", "#8cc96b", "#b7dea2", "#d4ecc6", "#e8f5df")  # best first
_CHOICES = ("#e6a700", "#f2cf5b", "#f8e3a1")
_FAILURES = ("#fde0d0", "#fbc4a6", "#f4a582", "#e8825f", "#d6604d")  # mildest first
_CRITICAL_FAILURE = "#8e1b1b"
_NOT_ROLLED = "#e4e4e4"


def _spread(ramp: tuple[str, ...], n: int, from_end: bool) -> list[str]:
    """n colours of a ramp: its first n (or last n), the ramp's end repeated past it."""
    if n <= len(ramp):
        return list(ramp[len(ramp) - n :] if from_end else ramp[:n])
    extra = [ramp[-1] if not from_end else ramp[0]] * (n - len(ramp))
    return [*extra, *ramp] if from_end else [*ramp, *extra]


def outcome_colours(outcomes: tuple[Outcome, ...]) -> tuple[str, ...]:
    """A colour per outcome (``#rrggbb``): greens for success, darkest for a critical
    one; amber where the player's choice settles it; oranges to red for failure, a deep
    red for a critical one."""
    plain_success = [o for o in outcomes if o.success and o.critical != "success" and not o.choice]
    plain_failure = [
        o for o in outcomes if not o.success and o.critical != "failure" and not o.choice
    ]
    choices = [o for o in outcomes if o.choice]
    greens = iter(_spread(_SUCCESSES, len(plain_success), from_end=False))
    oranges = iter(_spread(_FAILURES, len(plain_failure), from_end=True))
    ambers = iter(_spread(_CHOICES, len(choices), from_end=False))
    out = []
    for o in outcomes:
        if o.choice:
            out.append(next(ambers))
        elif o.success:
            out.append(_CRITICAL_SUCCESS if o.critical == "success" else next(greens))
        else:
            out.append(_CRITICAL_FAILURE if o.critical == "failure" else next(oranges))
    return tuple(out)


def bar_widths(probabilities: tuple[Fraction, ...]) -> tuple[int, ...]:
    """Each outcome's whole-pixel width in a bar: the running total rounded half up, so
    the widths always add up to the bar."""
    widths = []
    edge = 0
    running = Fraction(0)
    for p in probabilities:
        running += p
        next_edge = math.floor(running * BAR_WIDTH + Fraction(1, 2))
        widths.append(next_edge - edge)
        edge = next_edge
    return tuple(widths)


def _fraction(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _short(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"


def _bar(report: Report, colours: tuple[str, ...], cell: Cell, y: int) -> list[str]:
    out = []
    if cell.odds is None:
        why = escape(cell.not_rolled or "not rolled")
        out.append(
            f'<rect x="{BAR_X}" y="{y}" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" '
            f'fill="{_NOT_ROLLED}"><title>Not rolled: {why}</title></rect>'
        )
        out.append(f'<text x="{BAR_X + 6}" y="{y + 13}" class="none">not rolled</text>')
        return out
    x = BAR_X
    widths = bar_widths(cell.probabilities)
    for outcome, colour, p, width in zip(
        report.outcomes, colours, cell.probabilities, widths, strict=True
    ):
        if width <= 0:
            continue
        tip = escape(f"{outcome_name(outcome)}: {percent_text(p)} ({_fraction(p)})")
        out.append(
            f'<rect x="{x}" y="{y}" width="{width}" height="{BAR_HEIGHT}" fill="{colour}">'
            f"<title>{tip}</title></rect>"
        )
        x += width
    assert cell.success is not None
    out.append(
        f'<text x="{BAR_X + BAR_WIDTH + 6}" y="{y + 13}" class="pct">'
        f"{escape(percent_text(cell.success))}</text>"
    )
    return out


def _chart(report: Report, colours: tuple[str, ...], row: Row) -> str:
    height = len(report.steps) * (BAR_HEIGHT + _GAP)
    parts = [
        f'<svg class="chart" width="{_CHART_WIDTH}" height="{height}" '
        f'viewBox="0 0 {_CHART_WIDTH} {height}" shape-rendering="crispEdges" role="img" '
        f'aria-label="{escape(row.label)}: chance of each outcome at each step">'
    ]
    for i, (step, cell) in enumerate(zip(report.steps, row.cells, strict=True)):
        y = i * (BAR_HEIGHT + _GAP)
        parts.append(
            f'<text x="{BAR_X - 8}" y="{y + 13}" class="step">{escape(_short(step.label))}'
            f"<title>{escape(f'{step.label} ({step.ask})')}</title></text>"
        )
        tag = f' data-tag="{escape(cell.tag)}"' if cell.tag is not None else ""
        parts += [f"<g{tag}>", *_bar(report, colours, cell, y), "</g>"]
    parts.append("</svg>")
    return "".join(parts)


def _exact_table(report: Report, row: Row) -> str:
    head = "".join(f"<th>{escape(outcome_name(o))}</th>" for o in report.outcomes)
    lines = [
        "<details><summary>Exact fractions</summary><table>",
        f"<tr><th>Step</th>{head}<th>Success</th></tr>",
    ]
    for step, cell in zip(report.steps, row.cells, strict=True):
        if cell.odds is None or cell.success is None:
            span = len(report.outcomes) + 1
            why = escape(cell.not_rolled or "")
            lines.append(
                f"<tr><th>{escape(step.label)}</th><td colspan={span}>not rolled: {why}</td></tr>"
            )
            continue
        values = "".join(f"<td>{_fraction(p)}</td>" for p in cell.probabilities)
        lines.append(
            f"<tr><th>{escape(step.label)}</th>{values}<td>{_fraction(cell.success)}</td></tr>"
        )
    lines.append("</table></details>")
    return "".join(lines)


def _figure(report: Report, colours: tuple[str, ...], row: Row) -> str:
    caption = f"<figcaption>{escape(row.label)}</figcaption>"
    if row.not_rolled is not None:
        return (
            f'<figure class="check">{caption}<p class="none">Not rolled: '
            f"{escape(row.not_rolled)}</p></figure>"
        )
    chart = _chart(report, colours, row)
    reasons: dict[str, list[str]] = {}
    for step, cell in zip(report.steps, row.cells, strict=True):
        if cell.not_rolled is not None:
            reasons.setdefault(cell.not_rolled, []).append(step.label)
    notes = "".join(
        f'<p class="none">Not rolled at {escape(", ".join(dict.fromkeys(steps)))}: '
        f"{escape(why)}</p>"
        for why, steps in reasons.items()
    )
    table = _exact_table(report, row)
    return f'<figure class="check">{caption}{chart}{notes}{table}</figure>'


_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 20px 0 8px; }
p { margin: 4px 0; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0;
  margin: 10px 0; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px;
  vertical-align: -2px; margin-right: 5px; border: 1px solid rgba(0, 0, 0, 0.15); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr));
  gap: 14px; }
figure.check { margin: 0; padding: 10px 12px; border: 1px solid #ddd; border-radius: 6px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg.chart { display: block; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
svg text.step { text-anchor: end; }
svg text.pct { font-weight: 600; }
svg text.none, p.none { fill: #555; color: #555; font-style: italic; }
details { margin-top: 6px; font-size: 12px; }
table { border-collapse: collapse; margin-top: 4px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th:first-child { text-align: left; }
"""


def _counts_as(outcome: Outcome) -> str:
    """Say that a band counts as a success, unless its label already does."""
    if outcome.success and "success" not in outcome.label.casefold():
        return " (a success)"
    return ""


def report_html(report: Report) -> str:
    """The report as one self-contained HTML page: a legend, then a chart per check."""
    colours = outcome_colours(report.outcomes)
    layers = f" with {', '.join(report.layers)}" if report.layers else ""
    title = f"{report.ruleset_name}: chances for {report.character}{layers}"
    legend = "".join(
        f'<li><span class="swatch" style="background:{colour}"></span>'
        f"{escape(outcome_name(o))}{_counts_as(o)}</li>"
        for o, colour in zip(report.outcomes, colours, strict=True)
    )
    ladder = "; ".join(f"{s.label} ({s.ask})" for s in report.steps)
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>",
        f"<p>{escape(report.kind)} checks. Ladder in force: {escape(ladder)}.</p>",
        "<p>Each bar is one ladder step, best outcome on the left; the figure beside it is "
        "the chance of success. Percentages are rounded from exact fractions (hover a bar, "
        "or open a chart's exact fractions).</p>",
        f'<ul class="legend">{legend}</ul></header><main>',
    ]
    for group, group_title in GROUP_TITLES.items():
        rows = [r for r in report.rows if r.group == group]
        if not rows:
            continue
        out.append(f'<section><h2>{group_title}</h2><div class="grid">')
        out += [_figure(report, colours, row) for row in rows]
        out.append("</div></section>")
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"
