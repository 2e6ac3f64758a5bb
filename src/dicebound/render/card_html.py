"""The dice card as HTML: the same card the terminal shows, as a self-contained fragment
a page can drop in (no script, no network), every text escaped.

The card's lines come from ``render_text`` so the two never disagree; the HTML adds the
structure a page styles: the outcome as a class (``success``, ``failure``,
``critical-success``, ``critical-failure``, ``open``), each line as a term and its text.
"""

from __future__ import annotations

from html import escape

from dicebound.record import Record
from dicebound.render.text import render_text

__all__ = ["CARD_CSS", "render_card_html"]

CARD_CSS = """\
.dice-card{font:14px/1.4 system-ui,sans-serif;border:1px solid #ccc;border-radius:8px;
padding:.6em 1em;max-width:34em;background:#fff}
.dice-card h3{margin:0 0 .4em;font-size:1.05em}
.dice-card dl{display:grid;grid-template-columns:6em 1fr;gap:.15em .8em;margin:0}
.dice-card dt{color:#666}.dice-card dd{margin:0}
.dice-card.success,.dice-card.critical-success{border-left:6px solid #2e7d32}
.dice-card.failure,.dice-card.critical-failure{border-left:6px solid #c62828}
.dice-card.open{border-left:6px solid #f9a825}
.dice-card.sparse{border-left:6px solid #9e9e9e}
"""


def _state(record: Record) -> str:
    if not record.is_resolved:
        return "sparse"
    if record.get("choice") == "open":
        return "open"
    return (record.get("result") or "failure").replace("_", "-")


def render_card_html(record: Record, *, who: str | None = None, outcome: str | None = None) -> str:
    """The card for one record as an HTML ``<section>``; ``CARD_CSS`` styles it."""
    title, *lines = render_text(record, who=who, outcome=outcome).splitlines()
    rows = []
    for line in lines:
        term, text = line[:11].strip(), line[11:].strip()
        rows.append(f"<dt>{escape(term)}</dt><dd>{escape(text)}</dd>")
    attrs = f'class="dice-card {_state(record)}"'
    seed = record.get("seed")
    if seed is not None:
        attrs += f' data-seed="{escape(seed)}"'
    return f"<section {attrs}><h3>{escape(title)}</h3><dl>{''.join(rows)}</dl></section>"
