"""What the Game Master is taught for a ruleset: the text a platform puts in the prompt.

Built from the compiled ruleset, never from the file's prose alone: the tag shape,
``gm.checkGuidance``, the ladder, only the attributes this ruleset really offers (and
their ranges), the outcome bands and their text, and the rule that the model never
writes dice or results. With a character, each ladder step carries that character's
exact chance of success beside it (a caller passes the chances in; this module does
no arithmetic of its own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from dicebound.kinds.registry import player_of
from dicebound.overrides import Override
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.spend import Spend
from dicebound.teach_sheet import sheet_lines

__all__ = ["example_target", "gm_text", "offered_attributes", "sheet_summary"]


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def _pool_label(ruleset: Ruleset, pool_id: str) -> str:
    return next((p.label for p in ruleset.sheet.pools if p.id == pool_id), pool_id)


def _spend_lines(ruleset: Ruleset, spends: Sequence[Spend]) -> list[str]:
    lines = []
    for spend in spends:
        pool, amount = spend.pool, spend.amount
        buys = [
            f"{n} {what}"
            for n, what in ((spend.successes, "success(es)"), (spend.dice, "die/dice"))
            if n
        ]
        if spend.reroll is not None:
            buys.append("a re-throw")
        per = spend.per_check
        cap = f", at most {per} times a check" if isinstance(per, int) else ""
        lines.append(
            f'spend="{pool}:N": the player pays {_pool_label(ruleset, pool)}; every {amount} '
            f"point(s) buy {' and '.join(buys)}{cap}. Write it only when the player says so."
        )
    return lines


def _attribute_lines(ruleset: Ruleset) -> list[str]:
    """One line per tag attribute this ruleset offers, and nothing it does not."""
    res = ruleset.resolution
    player = player_of(res.kind)
    lines = [
        'skill="Name": a skill, a save or an ability of the sheet.',
        f'dc="N": the {player.dc_words}.',
        'difficulty="Label": a step of the ladder instead of a number; dc wins if both.',
        'who="Full Name": the character who rolls, by the full name the party lists; '
        "leave it out for the player.",
    ]
    if len(ruleset.sheet.abilities) >= 2 and (ruleset.sheet.skills or ruleset.sheet.saves):
        lines.append('with="Ability": roll a skill or save with another ability.')
    lines += player.attribute_lines(ruleset, res.config)
    return lines + _spend_lines(ruleset, player.spends(res.config))


def offered_attributes(ruleset: Ruleset) -> tuple[str, ...]:
    """The tag attributes this ruleset's checks take, in the lesson's order: the key each
    line of the lesson's attribute list teaches (a page warns about any other)."""
    keys: list[str] = []
    for line in _attribute_lines(ruleset):
        match = re.match(r"(\w+)=", line)
        if match is not None and match.group(1) not in keys:
            keys.append(match.group(1))
    return tuple(keys)


def gm_text(
    ruleset: Ruleset,
    *,
    ladder: Sequence[LadderStep] | None = None,
    chance: Callable[[LadderStep], Fraction | None] | None = None,
    who: str | None = None,
    layers: Sequence[str] = (),
) -> str:
    """The teaching text. ``chance`` gives a character's chance of success at a step."""
    ladder = ruleset.resolution.ladder if ladder is None else ladder
    player = player_of(ruleset.resolution.kind)
    config = ruleset.resolution.config
    out = [
        f"Checks in {ruleset.name}: write one tag per check, for example",
        f'[skill_check: skill="{example_target(ruleset)}" difficulty="{ladder[0].label}"]',
        ruleset.gm.check_guidance,
        *_layer_guidance(ruleset, layers),
        "",
        "Difficulty ladder" + (f" (chance of success for {who})" if chance and who else "") + ":",
    ]
    for step in ladder:
        line = f"- {player.ladder_words(step)}"
        if chance is not None:
            p = chance(step)
            line += f" ({_percent(p)})" if p is not None else " (cannot be rolled)"
        out.append(line)
    bands = ruleset.resolution.outcomes
    if bands is not None:
        out += ["", "Outcomes: the Engine reports one of these bands; narrate the band it names."]
        for band in bands.tiers:
            text = f": {band.text}" if band.text else ""
            choice = " (the player chooses)" if band.choice else ""
            out.append(f"- {band.label}{choice}{text}")
    overrides = ruleset.resolution.overrides
    if overrides:
        out += ["", "Checks that roll their own way (the Engine knows which):"]
        for override in overrides:
            names = ", ".join(_names(ruleset, override))
            text = f": {override.text}" if override.text else ""
            out.append(f"- {override.label} ({names}){text}")
    marks = player.mark_texts(config)
    out += ["", "What the record's marks mean:", *marks] if marks else []
    unmodified = sorted(player.unmodified(config))
    if unmodified:
        faces = ", ".join(str(f) for f in unmodified)
        out += [
            "",
            f"When the record says unmodified= one of {faces}, the die showed that face "
            "before any modifier: apply what the rules say about it.",
        ]
    out += ["", "Attributes you may write:"]
    out += [f"- {line}" for line in _attribute_lines(ruleset)]
    out += player.after_roll_lines(ruleset, config)
    out += [
        "",
        "The Engine throws every die and applies the sheet. Never write dice, rolls, "
        "modifiers, totals or results yourself: write the ask and narrate the outcome "
        "the Engine reports.",
    ]
    return "\n".join(out)


def example_target(ruleset: Ruleset) -> str:
    sheet = ruleset.sheet
    for group in (sheet.skills, sheet.saves):
        if group:
            return group[0].label
    return sheet.abilities[0].label if sheet.abilities else "Name"


def _names(ruleset: Ruleset, override: Override) -> list[str]:
    sheet = ruleset.sheet
    labels: dict[str, str] = {s.id: s.label for s in (*sheet.skills, *sheet.saves)}
    labels.update({a.id: a.label for a in sheet.abilities})
    ids = (*override.skills, *override.saves, *override.abilities)
    return [labels.get(i, i) for i in ids]


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _check_numbers(view: SheetView) -> str:
    """Each skill and save's number, as the prompt prints it: ``+5`` on a sum, dice on
    a pool (docs/design/format.md "Behaviour notes")."""
    signed = player_of(view.ruleset.resolution.kind).signed_numbers
    sheet = view.ruleset.sheet
    parts = []
    for group, items in (("skill", sheet.skills), ("save", sheet.saves)):
        for item in items:
            number = view.check_number(group, item.id).number  # type: ignore[arg-type]
            shown = f"{number:+d}" if signed else str(number)
            parts.append(f"{item.label} {shown}")
    return ", ".join(parts)


def _rows_text(view: SheetView, summary: Mapping[str, object]) -> list[str]:
    lines = []
    for spec in summary.get("lists", ()) or ():  # type: ignore[attr-defined]
        if not isinstance(spec, Mapping):
            continue
        rows = view.list_rows(str(spec["list"]))
        only = spec.get("onlyWhen")
        if only is not None:
            rows = tuple(r for r in rows if r.cells.get(str(only)) is True)
        names = []
        for row in rows:
            name = str(row.cells.get(str(spec["nameColumn"]), "")).strip()
            extra = [str(row.cells.get(str(c), "")) for c in spec.get("columns", ()) or ()]
            extra = [e for e in extra if e]
            names.append(name + (f" ({', '.join(extra)})" if extra else ""))
        label = next((d.label for d in view.ruleset.sheet.lists if d.id == spec["list"]), "")
        if names:
            lines.append(f"{label}: {'; '.join(names)}")
    return lines


def _charms(view: SheetView) -> list[str]:
    """Entries the character picked whose ``mechanics.check`` changes a roll, with what
    one use costs: the Game Master may name them with ``use=``."""
    entries = {f"{c.id}/{e.id}": e for c in view.ruleset.catalogs for e in c.entries}
    out = []
    for rows in view.character.build.lists.values():
        for row in rows:
            entry = entries.get(row.catalog or "")
            if entry is None or not entry.check:
                continue
            cost = ", ".join(f"{t.amount} {t.pool}" for t in entry.cost) or "nothing"
            scales = " per step, scaling with what is paid" if entry.per_cost_step else ""
            out.append(f'use="{entry.label}" (costs {cost}{scales})')
    return list(dict.fromkeys(out))


def sheet_summary(ruleset: Ruleset, character: Character) -> str:
    """The compact block the prompt shows for one character: what ``gm.sheetSummary``
    chooses, the check numbers, what its live sheet holds that a sheet command can name
    (``teach_sheet.sheet_lines``), and the spends and charms the character can call on."""
    view = SheetView(ruleset, character)
    summary = ruleset.gm.sheet_summary
    sheet = ruleset.sheet
    lines = [f"{character.name}:"]
    labels = {f.id: f.label for f in sheet.fields}
    shown = [
        f"{labels.get(str(i), str(i))} {view.field_value(str(i))}"
        for i in summary.get("fields", ()) or ()
        if view.field_value(str(i)) not in ("", None)
    ]
    derived = {d.id: d.label for d in sheet.derived}
    shown += [
        f"{derived.get(str(i), str(i))} {_number(view.derived(str(i)))}"
        for i in summary.get("derived", ()) or ()
    ]
    if shown:
        lines.append("  " + ", ".join(shown))
    lines += [f"  {line}" for line in _rows_text(view, summary)]
    numbers = _check_numbers(view)
    if numbers:
        lines.append(f"  Checks: {numbers}")
    lines += [f"  {line}" for line in sheet_lines(ruleset, character)]
    player = player_of(ruleset.resolution.kind)
    spends = [
        f"spend={s.pool}:N ({view.pool_value(s.pool)} left)"
        for s in player.spends(ruleset.resolution.config)
    ]
    spends += _charms(view)
    if spends:
        lines.append(f"  Can call on: {'; '.join(spends)}")
    return "\n".join(lines)


def _layer_guidance(ruleset: Ruleset, layers: Sequence[str]) -> list[str]:
    """The guidance each layer that is on appends, in declaration order."""
    return [
        layer.guidance
        for layer in ruleset.layers
        if layer.id in layers and layer.guidance is not None
    ]
