"""The balance report: one character's exact chances on every check at every ladder step.

For a ruleset and a character, every skill, save and ability (in the sheet's order) is
asked at every step of the ladder in force, through the same tag the Game Master would
write, and ``check_odds`` gives the exact probability of each outcome and of success.
So the report's numbers are the odds engine's numbers, never a second computation.

How a cell is asked:

- The check is named by a name that resolves to it alone (its label, else its id, its
  short name, or the label with "check" or "save" after it); a check no name picks
  alone is shown as not asked, with the reason.
- The step is named by ``difficulty="<label>"`` when that label names it alone. Where
  two steps answer to one label (the kinds ignore such a ``difficulty=``), kinds that
  read ``dc=`` as the very number a step gives (dice-sum, dice-highest, symbol-pool,
  step-pool: the step's ``dc``; dice-pool: the step's ``successes``, when no other step
  needs as many) are asked with ``dc=`` instead; elsewhere (roll-against, where ``dc=``
  shifts the target rather than naming it) the cell says why it is not asked.
- A check the Engine refuses (an untrained ``refuse`` skill) is shown with the
  Engine's sentence, never as 0%.

The text rendering is here too (rows the checks, columns the steps, rounded
percentages); the HTML page is in ``dicebound.render.html``. Pure: nothing is read or
written.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

from dicebound.engine import ladder_in_force
from dicebound.errors import LimitExceeded, TagError, UsageError
from dicebound.kinds.asks import step_by_label
from dicebound.kinds.registry import player_of
from dicebound.odds import CheckOdds, check_odds
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character
from dicebound.tags.names import CheckTarget, resolve_target
from dicebound.tags.parse import format_tag
from dicebound.values import frozen, replace

__all__ = [
    "GROUP_TITLES",
    "Cell",
    "Outcome",
    "Report",
    "Row",
    "Step",
    "build_report",
    "outcome_name",
    "percent_text",
    "report_text",
    "step_text",
]

Group = Literal["skill", "save", "ability"]
Critical = Literal["success", "failure", "both"] | None


@frozen
class Outcome:
    """One column of the report's outcomes: a band (or plain outcome), best first."""

    label: str
    success: bool
    critical: Critical
    choice: bool = False  # the player's choice settles success (a Sacrifice band)
    nth: int = 0  # counts outcomes that read alike, so two such bands stay two columns


@frozen
class Step:
    """One step of the ladder in force, with what it asks in the kind's own words."""

    index: int
    label: str
    ask: str


@frozen
class Cell:
    """One check at one step. ``probabilities`` follow ``Report.outcomes``; a cell that
    was not rolled has ``odds`` None and ``not_rolled`` saying why."""

    tag: str | None
    odds: CheckOdds | None
    probabilities: tuple[Fraction, ...] = ()
    not_rolled: str | None = None

    @property
    def success(self) -> Fraction | None:
        return self.odds.success if self.odds is not None else None


@frozen
class Row:
    """One skill, save or ability, with a cell per ladder step."""

    group: Group
    id: str
    label: str
    cells: tuple[Cell, ...]

    @property
    def not_rolled(self) -> str | None:
        """The one reason every cell gives, when no cell of the row was rolled."""
        reasons = {c.not_rolled for c in self.cells}
        if len(reasons) == 1 and None not in reasons:
            return next(iter(reasons))
        return None


@frozen
class Report:
    """Immutable. Rows in the sheet's order: skills, then saves, then abilities."""

    ruleset_id: str
    ruleset_name: str
    kind: str
    character: str
    layers: tuple[str, ...]
    steps: tuple[Step, ...]
    outcomes: tuple[Outcome, ...]
    rows: tuple[Row, ...]

    @property
    def shows_bands(self) -> bool:
        """Whether the outcomes say more than success and failure."""
        return len(self.outcomes) > 2 or any(o.critical or o.choice for o in self.outcomes)


# -- asking ---------------------------------------------------------------------------


def step_text(kind: str, step: LadderStep) -> str:
    """What a ladder step asks, in the kind's words ("DC 15", "2 successes, target 8")."""
    return player_of(kind).step_words(step)


def _name_for(ruleset: Ruleset, target: CheckTarget) -> str | None:
    """A name that resolves to this check and no other, or None."""
    sheet = ruleset.sheet
    short = None
    if target.group == "ability":
        ability = sheet.ability(target.id)
        short = ability.short if ability is not None else None
    names = [target.label, target.id, *([short] if short else [])]
    suffix = {"skill": "check", "ability": "check", "save": "save"}[target.group]
    names += [f"{n} {suffix}" for n in names]
    for name in names:
        if resolve_target(ruleset, name) == target:
            return name
    return None


def _step_attrs(
    kind: str, ladder: Sequence[LadderStep], step: LadderStep
) -> list[tuple[str, str]] | str:
    """The tag attributes that ask for this step, or why no tag can."""
    if step_by_label(ladder, step.label) is step:
        return [("difficulty", step.label)]
    shared = f'Two steps answer to "{step.label}", so difficulty= names neither'
    return player_of(kind).step_by_dc(kind, ladder, step, shared)


def _merge(order: list[Outcome], seen: Sequence[Outcome]) -> None:
    """Add a cell's outcomes to the report's order, keeping both orders (best first)."""
    at = 0
    for outcome in seen:
        if outcome in order:
            at = order.index(outcome) + 1
        else:
            order.insert(at, outcome)
            at += 1


def _keys(ruleset: Ruleset, odds: CheckOdds) -> list[Outcome]:
    """The cell's outcomes as report columns, in the cell's order."""
    bands = ruleset.resolution.outcomes
    choices = {b.label for b in bands.tiers if b.choice} if bands is not None else set()
    keys: list[Outcome] = []
    for o in odds.outcomes:
        key = Outcome(o.label, o.success, o.critical, o.label in choices)
        while key in keys:
            key = Outcome(key.label, key.success, key.critical, key.choice, key.nth + 1)
        keys.append(key)
    return keys


def _ask(
    ruleset: Ruleset,
    character: Character,
    layers: Sequence[str],
    target: CheckTarget,
    ladder: Sequence[LadderStep],
    step: LadderStep,
) -> Cell:
    """One check at one step, through the tag that asks for it (probabilities unset)."""
    name = _name_for(ruleset, target)
    if name is None:
        return Cell(
            None, None, not_rolled=f"No name picks {target.label} alone, so no tag asks it."
        )
    attrs = _step_attrs(ruleset.resolution.kind, ladder, step)
    if isinstance(attrs, str):
        return Cell(None, None, not_rolled=attrs)
    try:
        tag = format_tag([("skill", name), *attrs])
    except UsageError as exc:
        return Cell(None, None, not_rolled=str(exc))
    try:
        odds = check_odds(ruleset, character, tag, layers=layers)
    except TagError as exc:
        return Cell(tag, None, not_rolled=exc.message)
    except LimitExceeded as exc:
        return Cell(tag, None, not_rolled=str(exc))
    return Cell(tag, odds)


def build_report(ruleset: Ruleset, character: Character, *, layers: Sequence[str] = ()) -> Report:
    """Every check of the sheet at every step of the ladder in force, exactly.

    Raises:
        UsageError: a layer the ruleset does not have.
    """
    ladder = ladder_in_force(ruleset, layers)
    kind = ruleset.resolution.kind
    sheet = ruleset.sheet
    targets = [
        *(CheckTarget("skill", s.id, s.label) for s in sheet.skills),
        *(CheckTarget("save", s.id, s.label) for s in sheet.saves),
        *(CheckTarget("ability", a.id, a.label) for a in sheet.abilities),
    ]
    asked = [
        (target, [_ask(ruleset, character, layers, target, ladder, step) for step in ladder])
        for target in targets
    ]
    order: list[Outcome] = []
    for _, cells in asked:
        for cell in cells:
            if cell.odds is not None:
                _merge(order, _keys(ruleset, cell.odds))
    rows = []
    for target, cells in asked:
        done = []
        for cell in cells:
            if cell.odds is not None:
                outcomes = zip(_keys(ruleset, cell.odds), cell.odds.outcomes, strict=True)
                by_key = {key: o.probability for key, o in outcomes}
                cell = replace(cell, probabilities=tuple(by_key.get(o, Fraction(0)) for o in order))
            done.append(cell)
        rows.append(Row(target.group, target.id, target.label, tuple(done)))
    return Report(
        ruleset_id=ruleset.id,
        ruleset_name=ruleset.name,
        kind=kind,
        character=character.name,
        layers=tuple(layers),
        steps=tuple(Step(i, s.label, step_text(kind, s)) for i, s in enumerate(ladder)),
        outcomes=tuple(order),
        rows=tuple(rows),
    )


# -- text -----------------------------------------------------------------------------


def percent_text(p: Fraction) -> str:
    """A chance as a whole percentage, rounded half up; never "0%" or "100%" unless it
    is exactly that ("<1%", ">99%"), so a rare outcome never reads as impossible."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    shown = math.floor(p * 100 + Fraction(1, 2))
    if shown < 1:
        return "<1%"
    if shown > 99:
        return ">99%"
    return f"{shown}%"


_NOT_ROLLED = "—"
_HEAD_MAX = 18
GROUP_TITLES: dict[Group, str] = {"skill": "Skills", "save": "Saves", "ability": "Abilities"}


def _head(label: str) -> str:
    return label if len(label) <= _HEAD_MAX else label[: _HEAD_MAX - 1] + "…"


def outcome_name(outcome: Outcome) -> str:
    """An outcome's label, saying when the player's choice settles it."""
    return outcome.label + (" (player's choice)" if outcome.choice else "")


def _note(notes: list[str], reason: str | None) -> int:
    """The number of a reason in the notes under the table, added the first time."""
    text = reason or "not rolled."
    if text not in notes:
        notes.append(text)
    return notes.index(text) + 1


def _row_lines(report: Report, row: Row, notes: list[str]) -> list[tuple[str, list[str]]]:
    """A check's line (its chance of success per step) and its outcomes' lines; a cell
    that was not rolled shows a dash and the number of its reason."""
    if row.not_rolled is not None:
        number = _note(notes, row.not_rolled)
        return [(f"{row.label} [{number}]", [_NOT_ROLLED] * len(row.cells))]
    shown = []
    for cell in row.cells:
        if cell.success is None:
            shown.append(f"{_NOT_ROLLED} [{_note(notes, cell.not_rolled)}]")
        else:
            shown.append(percent_text(cell.success))
    lines = [(row.label, shown)]
    if report.shows_bands:
        for i, outcome in enumerate(report.outcomes):
            values = [percent_text(c.probabilities[i]) if c.odds else "" for c in row.cells]
            lines.append(("  " + outcome_name(outcome), values))
    return lines


def report_text(report: Report) -> str:
    """The report as a table for a terminal: a line per check with its chance of success
    at each step (and, where the outcomes say more than success and failure, a line per
    outcome under it), under a heading per group; a column per ladder step."""
    layers = f" with {', '.join(report.layers)}" if report.layers else ""
    out = [
        f"{report.ruleset_name}: chances for {report.character}{layers} ({report.kind})",
        "Ladder in force: " + "; ".join(f"{s.label} ({s.ask})" for s in report.steps),
        "Each check's line is its chance of success at each step"
        + ("; the lines under it, of each outcome." if report.shows_bands else "."),
        "Percentages are rounded; each comes from an exact fraction (dicebound odds shows it).",
    ]
    lines: list[tuple[str, list[str]] | str] = []
    notes: list[str] = []
    for group, title in GROUP_TITLES.items():
        rows = [r for r in report.rows if r.group == group]
        if rows:
            lines.append(title)
            for row in rows:
                lines += _row_lines(report, row, notes)
    table = [line for line in lines if not isinstance(line, str)]
    heads = [_head(s.label) for s in report.steps]
    first = max(len(line) if isinstance(line, str) else len(line[0]) for line in lines)
    widths = [max([len(h), *(len(v[i]) for _, v in table)]) for i, h in enumerate(heads)]
    for line in lines:
        if isinstance(line, str):
            cols = [f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)]
            out += ["", "  ".join([f"{line:<{first}}", *cols])]
            continue
        title, values = line
        cols = [f"{v:>{w}}" for v, w in zip(values, widths, strict=True)]
        out.append("  ".join([f"{title:<{first}}", *cols]).rstrip())
    if notes:
        out += ["", "Not rolled:"]
        out += [f"[{i}] {note}" for i, note in enumerate(notes, 1)]
    return "\n".join(out)
