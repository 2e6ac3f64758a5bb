"""What the Game Master is taught for a ruleset: the text a platform puts in the prompt.

Built from the compiled ruleset, never from the file's prose alone: the tag shape,
``gm.checkGuidance``, the ladder, only the attributes this ruleset really offers (and
their ranges), the outcome bands and their text, and the rule that the model never
writes dice or results. With a character, each ladder step carries that character's
exact chance of success beside it (a caller passes the chances in; this module does
no arithmetic of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character, SheetView

__all__ = ["example_target", "gm_text", "sheet_summary"]


def _step_text(kind: str, step: LadderStep) -> str:
    if kind == "dice-pool":
        target = f" (target {step.target})" if step.target is not None else ""
        return f"{step.label}: {step.successes} successes{target}"
    if kind == "symbol-pool":
        return f"{step.label}: {step.dc} difficulty dice"
    if kind == "step-pool":
        return f"{step.label}: target number {step.dc}"
    if kind == "roll-against":
        parts = [f"{step.dc:+d} to the target"] if step.dc else []
        if step.divide:
            parts.insert(0, f"the sheet's number divided by {step.divide}")
        return f"{step.label}: " + (", ".join(parts) or "the sheet's number as it is")
    return f"{step.label}: DC {step.dc}"


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def _pool_label(ruleset: Ruleset, pool_id: str) -> str:
    return next((p.label for p in ruleset.sheet.pools if p.id == pool_id), pool_id)


def _spend_lines(ruleset: Ruleset, config: object) -> list[str]:
    lines = []
    for spend in getattr(config, "spend", ()):
        pool = getattr(spend, "pool", "")
        amount = getattr(spend, "amount", None)
        if amount is None:  # step-pool spends after the roll, described on their own
            continue
        buys = [
            f"{n} {what}"
            for n, what in (
                (getattr(spend, "successes", 0), "success(es)"),
                (getattr(spend, "dice", 0), "die/dice"),
            )
            if n
        ]
        if getattr(spend, "reroll", None) is not None:
            buys.append("a re-throw")
        per = getattr(spend, "per_check", None)
        cap = f", at most {per} times a check" if isinstance(per, int) else ""
        lines.append(
            f'spend="{pool}:N": the player pays {_pool_label(ruleset, pool)}; every {amount} '
            f"point(s) buy {' and '.join(buys)}{cap}. Write it only when the player says so."
        )
    return lines


def _kind_lines(ruleset: Ruleset) -> list[str]:
    """The attributes only this ruleset's kind offers, with their ranges."""
    res = ruleset.resolution
    kind, config = res.kind, res.config
    lines: list[str] = []
    situational = getattr(config, "situational", None)
    if kind == "dice-sum" and getattr(config, "advantage", False):
        lines.append(
            'mode="advantage" or mode="disadvantage": roll twice, keep the better or worse.'
        )
    if kind == "dice-pool":
        if config.target_min < config.target_max and config.target_from is None:
            lines.append(
                f'threshold="N": the face a die must reach, {config.target_min} to '
                f"{config.target_max} (default {config.target_default})."
            )
        for name, rule in (("explode", config.explode), ("double", config.double)):
            if rule is not None and rule.min is not None:
                lines.append(
                    f'{name}="N": move the {name} face for this check, down to {rule.min}.'
                )
        if config.rerolls:
            ids = ", ".join(f'"{r.id}"' for r in config.rerolls)
            lines.append(f"reroll=one of {ids}: a re-throw the situation grants for free.")
        if config.ability_plus_ability:
            lines.append('with="Ability" on an ability check: throw a second ability too.')
        if any(e.check for c in ruleset.catalogs for e in c.entries):
            lines.append('use="Name": a charm the character picked, applied to this check.')
    if situational is not None:
        low, high = situational
        lines.append(
            f'bonus="+N" or "-N": dice added or taken for the situation, {low} to {high:+d}.'
        )
    if kind == "dice-highest" and config.dark is not None:
        lines.append(f'dark="N": add up to {config.dark.max} {config.dark.label} dice.')
    if kind == "roll-against" and config.tens_max is not None:
        lines.append(
            f'bonus="+N" or "-N": up to {config.tens_max} bonus or penalty tens dice '
            "(keep the best or the worst roll)."
        )
    if kind == "symbol-pool":
        if config.boost is not None or config.setback is not None:
            lines.append('bonus="+N" or "-N": boost or setback dice for the situation.')
        if config.setback is not None:
            lines.append('setback="N": setback dice beside a bonus.')
        if config.difficulty.upgrade is not None:
            lines.append('upgrade="N": upgrade that many difficulty dice.')
        if config.allow_own_upgrade:
            lines.append('upgradeOwn="N": upgrade that many of the character\'s own dice.')
    if kind == "step-pool":
        if config.quality_label is not None:
            lines.append(
                f'quality="field": the {config.quality_label} the task leans on, a number '
                "field of the sheet (such as agility); it raises one die after the roll."
            )
        if config.tool_label is not None:
            lines.append(
                f'tool="N": the {config.tool_label}, 0 to {config.tool_max}; it raises one '
                "other die after the roll."
            )
    lines += _spend_lines(ruleset, config)
    return lines


def _attribute_lines(ruleset: Ruleset) -> list[str]:
    """One line per tag attribute this ruleset offers, and nothing it does not."""
    kind = ruleset.resolution.kind
    number = {
        "dice-pool": "successes needed",
        "symbol-pool": "difficulty dice",
        "step-pool": "target number each die must reach",
        "roll-against": "shift of the target, -100 to +100",
    }.get(kind, "total to reach")
    lines = [
        'skill="Name": a skill, a save or an ability of the sheet.',
        f'dc="N": the {number}.',
        'difficulty="Label": a step of the ladder instead of a number; dc wins if both.',
        'who="Name": the character who rolls; leave it out for the player.',
    ]
    if len(ruleset.sheet.abilities) >= 2 and (ruleset.sheet.skills or ruleset.sheet.saves):
        lines.append('with="Ability": roll a skill or save with another ability.')
    return lines + _kind_lines(ruleset)


def _after_roll_lines(ruleset: Ruleset) -> list[str]:
    config = ruleset.resolution.config
    spends = [s for s in getattr(config, "spend", ()) if hasattr(s, "rate")]
    if ruleset.resolution.kind != "step-pool" or not spends:
        return []
    pools = ", ".join(_pool_label(ruleset, s.pool) for s in spends)
    return [
        "",
        "After the roll the player may spend points of "
        f"{pools} on one die to raise it. That is the player's choice, once the dice are "
        "seen: the record offers what a spend could still buy. Never spend for them.",
    ]


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
    kind = ruleset.resolution.kind
    out = [
        f"Checks in {ruleset.name}: write one tag per check, for example",
        f'[skill_check: skill="{example_target(ruleset)}" difficulty="{ladder[0].label}"]',
        ruleset.gm.check_guidance,
        *_layer_guidance(ruleset, layers),
        "",
        "Difficulty ladder" + (f" (chance of success for {who})" if chance and who else "") + ":",
    ]
    for step in ladder:
        line = f"- {_step_text(kind, step)}"
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
    out += _rule_texts(ruleset)
    unmodified = sorted(getattr(ruleset.resolution.config, "unmodified", ()))
    if unmodified:
        faces = ", ".join(str(f) for f in unmodified)
        out += [
            "",
            f"When the record says unmodified= one of {faces}, the die showed that face "
            "before any modifier: apply what the rules say about it.",
        ]
    out += ["", "Attributes you may write:"]
    out += [f"- {line}" for line in _attribute_lines(ruleset)]
    out += _after_roll_lines(ruleset)
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


def _names(ruleset: Ruleset, override: object) -> list[str]:
    sheet = ruleset.sheet
    labels: dict[str, str] = {s.id: s.label for s in (*sheet.skills, *sheet.saves)}
    labels.update({a.id: a.label for a in sheet.abilities})
    ids = (
        *getattr(override, "skills", ()),
        *getattr(override, "saves", ()),
        *getattr(override, "abilities", ()),
    )
    return [labels.get(i, i) for i in ids]


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _check_numbers(view: SheetView) -> str:
    """Each skill and save's number, as the prompt prints it: ``+5`` on a sum, dice on
    a pool (docs/design/format.md "Behaviour notes")."""
    kind = view.ruleset.resolution.kind
    sheet = view.ruleset.sheet
    parts = []
    for group, items in (("skill", sheet.skills), ("save", sheet.saves)):
        for item in items:
            number = view.check_number(group, item.id).number  # type: ignore[arg-type]
            shown = f"{number:+d}" if kind in ("dice-sum",) else str(number)
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
    chooses, the live pools, the conditions, the check numbers, and the spends and
    charms the character can call on."""
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
    pools = [
        f"{view.pool_label(k)} {view.pool_value(k)}/{view.pool_max(k)}" for k in view.pool_keys()
    ]
    if pools:
        lines.append(f"  Pools: {', '.join(pools)}")
    conditions = [c.label for c in sheet.conditions if view.has_condition(c.id)]
    if conditions:
        lines.append(f"  Conditions: {', '.join(conditions)}")
    spends = [
        f"spend={s.pool}:N ({view.pool_value(s.pool)} left)"
        for s in getattr(ruleset.resolution.config, "spend", ())
        if hasattr(s, "amount")
    ]
    spends += _charms(view)
    if spends:
        lines.append(f"  Can call on: {'; '.join(spends)}")
    return "\n".join(lines)


def _rule_texts(ruleset: Ruleset) -> list[str]:
    """What the file says a symbol, an exact die or a dark die means at the table."""
    config = ruleset.resolution.config
    lines = [
        f"- {symbol.label}: {symbol.text}"
        for symbol in getattr(config, "symbols", ())
        if getattr(symbol, "text", None)
    ]
    for rule in (getattr(config, "exact", None), getattr(config, "dark", None)):
        if rule is not None and getattr(rule, "text", None):
            lines.append(f"- {rule.label}: {rule.text}")
    return ["", "What the record's marks mean:", *lines] if lines else []


def _layer_guidance(ruleset: Ruleset, layers: Sequence[str]) -> list[str]:
    """The guidance each layer that is on appends, in declaration order."""
    return [
        layer.guidance
        for layer in ruleset.layers
        if layer.id in layers and layer.guidance is not None
    ]
