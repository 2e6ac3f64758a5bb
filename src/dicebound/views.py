"""What a page shows, as JSON: a character's pools and tracks as numbers, a report as
chances at every step, a record as a dice card with every face.

Pure: each function reads the core's own objects and returns plain JSON values, so the
web page draws what the engine computed instead of working anything out itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from dicebound.errors import DiceboundError
from dicebound.jsontext import places_of, where_unreadable
from dicebound.kinds.registry import player_of
from dicebound.odds import fraction_text
from dicebound.problem_codes import NOT_JSON
from dicebound.problems import Problem
from dicebound.record import Record, record_from_attrs
from dicebound.render.html import outcome_colours
from dicebound.render.player import CardContext, player_card
from dicebound.render.text import card_dice, render_text
from dicebound.report import Report
from dicebound.ruleset.model import Ruleset, Track
from dicebound.sheet import Change, Character, SheetView

__all__ = [
    "card_json",
    "offer_json",
    "paid_lines",
    "problems_with_lines",
    "report_json",
    "sheet_state",
]


def sheet_state(ruleset: Ruleset, character: Character) -> dict[str, Any]:
    """Every pool and track of a character with its value and range (a full pool that
    the sparse live state leaves out reads as its maximum), each wound track's marks,
    and the conditions on."""
    view = SheetView(ruleset, character)
    sheet = ruleset.sheet
    return {
        "pools": [
            {
                "key": key,
                "label": view.pool_label(key),
                "value": view.pool_value(key),
                "max": view.pool_max(key),
            }
            for key in view.pool_keys()
        ],
        "tracks": [
            {
                "id": track.id,
                "label": track.label,
                "value": view.track_value(track.id),
                "min": view.track_min(track.id),
                "max": view.track_max(track.id),
            }
            for track in sheet.tracks
            if not track.kinds
        ],
        "wounds": [_wounds(view, track) for track in sheet.tracks if track.kinds],
        "conditions": [c.label for c in sheet.conditions if view.has_condition(c.id)],
    }


def _wounds(view: SheetView, track: Track) -> dict[str, Any]:
    """A wound track's marks by their kinds' labels (a clear box as ""), how many of
    its boxes there are, and the penalty in force."""
    labels = {kind.id: kind.label for kind in track.kinds}
    wounds = view.wounds(track.id)
    return {
        "id": track.id,
        "label": track.label,
        "marks": [labels.get(mark, mark) if mark else "" for mark in wounds.marks],
        "boxes": view.track_max(track.id),
        "overflow": wounds.overflow,
        "penalty": view.track_penalty(track.id),
    }


def paid_lines(
    ruleset: Ruleset, roller: Character, changes: Iterable[Change]
) -> list[tuple[str, int, int]]:
    """What a check paid, for its card: each pool by its label (another character's
    with their name), from and to: ``("Willpower points", 4, 3)``."""
    view = SheetView(ruleset, roller)
    lines = []
    for change in changes:
        try:
            label = view.pool_label(change.pool)
        except DiceboundError:  # a pool of a list row the roller does not have
            label = change.pool
        if change.who != roller.name:
            label = f"{change.who}'s {label}"
        lines.append((label, change.from_, change.to))
    return lines


def report_json(report: Report, attributes: Sequence[str] = ()) -> dict[str, Any]:
    """A report as JSON: the steps, the bands in order, and for every check each step's
    chance of each band as an exact fraction (or why it is not rolled); ``attributes``
    are the tag attributes the ruleset's checks take (a what-if warns about others)."""
    return {
        "ruleset": report.ruleset_id,
        "attributes": list(attributes),
        "character": report.character,
        "kind": report.kind,
        "steps": [{"label": s.label, "ask": s.ask} for s in report.steps],
        "outcomes": [
            {
                "label": o.label,
                "success": o.success,
                "critical": o.critical,
                "choice": o.choice,
                "colour": colour,
            }
            for o, colour in zip(report.outcomes, outcome_colours(report.outcomes), strict=True)
        ],
        "rows": [
            {
                "group": row.group,
                "id": row.id,
                "label": row.label,
                "not_rolled": row.not_rolled,
                "cells": [
                    {
                        "tag": cell.tag,
                        "not_rolled": cell.not_rolled,
                        "probabilities": [fraction_text(p) for p in cell.probabilities],
                        "success": None if cell.success is None else fraction_text(cell.success),
                    }
                    for cell in row.cells
                ],
            }
            for row in report.rows
        ],
    }


def card_json(
    attrs: Iterable[tuple[str, str]],
    *,
    who: str | None,
    outcome: str,
    die_marks: Sequence[Sequence[str]] = (),
    paid: Sequence[tuple[str, int, int]] = (),
    context: CardContext | None = None,
) -> dict[str, Any]:
    """The dice card of a record: its title and lines as the terminal shows them, and
    every face thrown with what the record says of it (kept, dropped, dark, the die's
    name) and what the roller said of it (``die_marks``: exploded, added, rethrown,
    doubled, cancels, ...), when it said anything.

    Beside them, the same card in a player's words (``render.player``): ``plain``
    lines with no record syntax, every die as the page shows it (``shown``: its final
    face, ``was``, ``counted``, ``says``), the modifier's parts and the band's text; ``context`` (the ruleset,
    the roller as they stood, the tag as asked) lets it say more."""
    record: Record = record_from_attrs(attrs)
    ruleset = context.ruleset if context is not None else None
    title, *lines = render_text(
        record, who=who, outcome=outcome, paid=paid, ruleset=ruleset
    ).splitlines()
    dice = card_dice(record, ruleset)
    told = list(die_marks) if len(die_marks) == len(dice) else [()] * len(dice)
    player = player_card(record, outcome=outcome, die_marks=die_marks, paid=paid, context=context)
    return {
        "title": title,
        "lines": [[line[:11].strip(), line[11:].strip()] for line in lines],
        "dice": [
            {"face": face, "die": die, "marks": list(dict.fromkeys([*marks, *extra]))}
            for (face, die, marks), extra in zip(dice, told, strict=True)
        ],
        "shown": player["shown"],
        "seed": record.get("seed"),
        "shape": player["shape"],
        "plain": player["plain"],
        "modifier": player["modifier"],
        "band": player["band"],
    }


def offer_json(ruleset: Ruleset, offer: str | None) -> dict[str, Any] | None:
    """A record's ``offer`` as the band it reaches and each pool it names with its label
    and the points it costs, in the offer's order: a raise form lists these pools and no
    others (the offer names only pools the roller held enough in). None without an offer
    this dicebound reads."""
    if offer is None:
        return None
    read = player_of(ruleset.resolution.kind).read_offer(offer)
    if read is None:
        return None
    labels = {p.id: p.label for p in ruleset.sheet.pools}
    return {
        "band": read.label,
        "pools": [
            {"pool": pool, "label": labels.get(pool, pool), "points": points}
            for pool, points in read.costs
        ],
    }


def problems_with_lines(text: str, problems: Sequence[Problem]) -> list[dict[str, Any]]:
    """A file's problems as ``validate --json`` gives them, each with the line and
    column where its path is written, for an editor to put the cursor there. All are
    placed in one pass over the text (one scan per problem was quadratic). A text that
    is not JSON is placed where it stops being JSON, as its sentence says."""
    places = places_of(text, [problem.path for problem in problems])
    placed = []
    for problem in problems:
        line, column = places[problem.path]
        if problem.code == NOT_JSON and not problem.path:
            line, column = where_unreadable(text) or (line, column)
        placed.append({**problem.to_json(), "line": line, "column": column})
    return placed
