"""The dice card in a player's words: what the page draws for the table.

The terminal card (``render/text.py``) keeps the record's own spelling, which a Game
Master reading a log wants (``raises 0|+2|+2``, ``spend willpower_points:1``). A player
wants plain words: every die's final face and what happened to it, the modifier's
parts, what the band means, what was bought and what could not be. This module writes
that card from the same record, plus what the service knows beside it: the ruleset,
the roller as they stood, and the tag as it was asked. Without them it still writes
every line it can from the record alone, and never a line in the record's syntax.

Pure: it reads values and returns plain JSON values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dicebound.errors import DiceboundError
from dicebound.kinds.symbol_pool.details import symbols_in_words
from dicebound.record import Record
from dicebound.render.player_dice import (
    CardContext,
    card_dice_words,
    face_number,
    faces_word,
    plain_value,
    plural,
    signed,
    step_labels,
)
from dicebound.render.text import (
    RESULT_WORDS,
    card_shape,
    dice_words,
    difficulty_words,
    event_marks,
)
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.spend import find_pool, parse_spend
from dicebound.tags.names import normalize, resolve_target

__all__ = [
    "CardContext",
    "card_dice_words",
    "modifier_parts",
    "player_card",
    "player_lines",
    "points_of",
]

Line = tuple[str, str]


# -- the parts of a modifier -------------------------------------------------------------


def _ability_named(ruleset: Ruleset, name: str | None) -> str | None:
    """The ability id a record's ``with`` names (it writes the label), or None."""
    if name is None:
        return None
    wanted = normalize(name)
    for ability in ruleset.sheet.abilities:
        if wanted in (normalize(n) for n in (ability.id, ability.label, ability.short or "") if n):
            return ability.id
    return None


def _whole(value: Fraction | int) -> int | None:
    fraction = Fraction(value)
    return int(fraction) if fraction.denominator == 1 else None


def modifier_parts(ruleset: Ruleset, roller: Character, record: Record) -> list[Line] | None:
    """The sheet's parts of a check's number, each as (signed amount, what it is):
    ``[("+3", "Dexterity"), ("+6", "Expertise in Stealth")]``. None when the parts
    cannot be told or do not add up to what the record used, so a card never shows
    parts that disagree with its total."""
    target = resolve_target(ruleset, record.get("skill") or "")
    if isinstance(target, str):
        return None
    view = SheetView(ruleset, roller)
    second = _ability_named(ruleset, record.get("with"))
    try:
        if target.group == "ability":
            number = view.check_number(
                "ability", target.id, second if second != target.id else None
            )
        else:
            number = view.check_number(target.group, target.id, second)
    except DiceboundError:
        return None
    parts: list[tuple[Fraction | int, str]] = []
    labels = {a.id: a.label for a in ruleset.sheet.abilities}
    if number.ability is not None:
        parts.append((number.ability_mod, labels.get(number.ability, number.ability)))
    if number.second_ability is not None:
        parts.append(
            (number.second_ability_mod, labels.get(number.second_ability, number.second_ability))
        )
    if target.group != "ability":
        tier = next((t.label for t in ruleset.resolution.tiers if t.id == number.tier), None)
        if number.tier_bonus:
            parts.append((number.tier_bonus, _tier_words(target.label, tier)))
        if number.bonus:
            parts.append((number.bonus, "the sheet's own bonus"))
        if number.untrained_by:
            parts.append((number.untrained_by, "untrained"))
        if number.capped and number.cap is not None:
            parts.append((number.cap - number.uncapped, "held to its cap"))
    for key, words in (("penalty", _penalty_words(ruleset)), ("adjust", "adjustments")):
        amount = record.get_int(key)
        if amount:
            parts.append((amount, words))
    bonus = record.get_int("bonus")
    if bonus and record.get("resolution") == "successes":
        parts.append((bonus, "for the situation"))
    wholes = [(_whole(amount), words) for amount, words in parts]
    if not wholes or any(amount is None for amount, _ in wholes):
        return None
    return [(signed(amount or 0), words) for amount, words in wholes]


def _tier_words(label: str, tier: str | None) -> str:
    """A skill's training as a part: "Stealth (Expertise)", "Athletics at Fair (+2)"."""
    if tier is None:
        return label
    return f"{label} at {tier}" if "(" in tier else f"{label} ({tier})"


def _penalty_words(ruleset: Ruleset) -> str:
    track_id = ruleset.resolution.penalty_from
    track = next((t for t in ruleset.sheet.tracks if t.id == track_id), None)
    return f"{track.label} penalty" if track is not None else "penalty"


def _parts_text(parts: Sequence[Line]) -> str:
    return ", ".join(f"{amount} {words}" for amount, words in parts)


def _parts_sum(parts: Sequence[Line]) -> int:
    return sum(int(amount.replace("−", "-")) for amount, _ in parts)


# -- the lines ---------------------------------------------------------------------------


def _band(context: CardContext | None, label: str) -> dict[str, str] | None:
    """The band the check landed in, with its own text, or None."""
    if context is None:
        return None
    bands = context.ruleset.resolution.outcomes
    for band in getattr(bands, "tiers", ()):
        if band.label == label:
            return {"label": band.label, "text": band.text or ""}
    return None


def _dice_line(
    record: Record, dice: Sequence[dict[str, Any]], shape: str, ruleset: Ruleset | None
) -> str:
    kind = dice_words(record, ruleset)
    faces = [str(d["face"]) for d in dice]
    if shape == "pool":
        added = sum(1 for d in dice if "added" in d["marks"])
        again = sum(1 for d in dice if "thrown-again" in d["marks"])
        first = len(dice) - added - again
        text = plural(first, "die", "dice")
        if added:
            explode = record.get_int("explode") or max(
                (face_number(d["face"]) for d in dice if "exploded" in d["marks"]), default=0
            )
            by = f" by {faces_word(explode)}" if explode else " by exploding dice"
            text += f" + {added} added{by}"
        if again:
            text += f" + {again} thrown again"
        return f"{text}: {', '.join(faces) or 'none'}"
    if shape == "symbol":
        counts: dict[str, int] = {}
        for d in dice:
            counts[d["die"] or "die"] = counts.get(d["die"] or "die", 0) + 1
        return ", ".join(f"{n} {name}" for name, n in counts.items()) or "no dice"
    if shape == "step":
        return ", ".join(
            f"{d['die'] or 'die'} {d['was']} → {d['face']}"
            if d["was"]
            else f"{d['die'] or 'die'} {d['face']}"
            for d in dice
        )
    mode = record.get("mode") or "normal"
    if mode in ("advantage", "disadvantage") and any("kept" in d["marks"] for d in dice):
        kept = ", ".join(str(d["face"]) for d in dice if "kept" in d["marks"])
        better = "higher" if mode == "advantage" else "lower"
        return f"{kind} twice, with {mode}: {', '.join(faces)}; the {better} kept, {kept}"
    if shape == "highest":
        dark = [str(d["face"]) for d in dice if "dark" in d["marks"]]
        light = [str(d["face"]) for d in dice if "dark" not in d["marks"]]
        highest = [str(d["face"]) for d in dice if "kept" in d["marks"]]
        text = f"{kind}: {', '.join(light) or 'no light dice'}"
        if dark:
            text += f"; dark dice {', '.join(dark)}"
        if highest:
            text += f"; kept {', '.join(highest)}"
        return text
    return f"{kind}: {', '.join(faces) or 'no dice'}"


def _pool_words(record: Record, context: CardContext | None) -> list[Line]:
    """What a dice pool's record says beside its count, in words."""
    lines: list[Line] = []
    threshold = record.get_int("threshold")
    if threshold is not None:
        lines.append(("Target", f"each die showing {threshold} or more counts"))
    double = record.get_int("double")
    if double is not None:
        lines.append(("Doubles", f"{faces_word(double)} and up count twice"))
    rerolled = record.get_int("rerolled")
    if rerolled:
        lines.append(("Again", f"{plural(rerolled, 'die', 'dice')} thrown again"))
    use = record.get("use")
    if use is not None:
        asked = (context.ask or {}).get("use") if context is not None else None
        name = asked if asked and plain_value(asked) else None
        explode = record.get_int("explode")
        effect = f": {faces_word(explode)} add a die" if explode is not None else ""
        if plain_value(use):
            lines.append((use, f"{name or 'used'}{effect}"))
    return lines


def _spend_lines(record: Record, context: CardContext | None) -> list[Line]:
    """What was bought with points before the roll, and any spend asked that was not
    (or not all) paid: the pool could not cover it, or it names no pool."""
    labels = _pool_labels(context)
    lines: list[Line] = []
    paid: dict[str, int] = {}
    for item in (record.get("spend") or "").split(","):
        pool, _, amount = item.partition(":")
        if pool and amount.strip().isdigit():
            paid[pool] = paid.get(pool, 0) + int(amount)
    auto = record.get_int("auto") or 0
    for pool, points in paid.items():
        label = labels.get(pool, pool.replace("_", " "))
        cost = plural(points, "point", "points")
        bought = f"{plural(auto, 'success', 'successes')} bought ({cost})" if auto else cost
        lines.append((label, bought))
        auto = 0
    if context is None or context.ask is None:
        return lines
    asked = parse_spend(context.ask.get("spend"))
    if asked is None:
        return lines
    key = (
        find_pool(SheetView(context.ruleset, context.roller), asked.pool)
        if context.roller
        else None
    )
    if key is None:
        name = asked.pool if plain_value(asked.pool) else "that pool"
        lines.append(("Not paid", f"{name}: no such pool on this sheet, nothing spent"))
        return lines
    spent = paid.get(key, 0)
    if spent >= asked.points:
        return lines
    label = labels.get(key, key.replace("_", " "))
    assert context.roller is not None
    held = SheetView(context.ruleset, context.roller).pool_value(key)
    who = context.roller.name
    rule = next(
        (r for r in getattr(context.ruleset.resolution.config, "spend", ()) if r.pool == key), None
    )
    most = rule.amount * rule.per_check if rule and isinstance(rule.per_check, int) else None
    if spent and most is not None and spent >= most:
        why = f"only {spent} spent: one check takes no more than {most}"
    elif spent:
        why = f"only {spent} spent: {who} held no more"
    else:
        why = f"nothing spent: {who} held {held}, not enough to cover it"
    lines.append(("Not paid", f"{label}: {plural(asked.points, 'point', 'points')} asked, {why}"))
    return lines


def _counted_in_points(label: str) -> bool:
    """Whether a pool's label is itself counted in points ("Willpower points")."""
    return label.rsplit(" ", 1)[-1].lower() in ("point", "points")


def points_of(n: int, label: str, more: str = "") -> str:
    """``n`` points of a pool in English: ``1 point of Luck``, ``2 more points of
    Luck``; a label counted in points says its unit once, in the number's form:
    ``1 Willpower point``, ``2 more Willpower points``."""
    if _counted_in_points(label):
        name, _, unit = label.rpartition(" ")
        unit = (unit[:-1] if unit.lower().endswith("s") else unit) if name else "point"
        return f"{n} {more}{name} {unit if n == 1 else unit + 's'}".replace("  ", " ")
    return f"{n} {more}{'point' if n == 1 else 'points'} of {label}"


def _pool_labels(context: CardContext | None) -> dict[str, str]:
    if context is None:
        return {}
    labels = {p.id: p.label for p in context.ruleset.sheet.pools}
    if context.roller is not None:
        view = SheetView(context.ruleset, context.roller)
        for key in view.pool_keys():
            try:
                labels.setdefault(key, view.pool_label(key))
            except DiceboundError:
                continue
    return labels


def _field_label(context: CardContext | None, field_id: str) -> str:
    if context is not None:
        found = next((f for f in context.ruleset.sheet.fields if f.id == field_id), None)
        if found is not None:
            return found.label
    return field_id.replace("_", " ")


def _step_words(record: Record, context: CardContext | None) -> list[Line]:
    """A step pool's target, effort and the raises, in words."""
    lines: list[Line] = []
    labels = step_labels(context)
    dc = record.get("dc")
    effort = record.get_int("effort")
    if effort is None:
        effort = record.get_int("total") or 0
    if dc:
        lines.append(("Effort", f"{plural(effort, 'die', 'dice')} reached the target {dc}"))
    else:
        lines.append(("Effort", str(effort)))
    quality = record.get("quality")
    if quality:
        name, _, rest = quality.partition(":")
        amount, _, at = rest.partition("@")
        label = labels.get("quality", "Quality")
        where = f", raised die {at}" if at.isdigit() else ", raised no die"
        lines.append((label, f"{_field_label(context, name)} {amount.replace('-', '−')}{where}"))
    tool = record.get("tool")
    if tool:
        amount, _, at = tool.partition("@")
        where = f", raised die {at}" if at.isdigit() else ", raised no die"
        lines.append((labels.get("tool", "Tool"), f"{amount}{where}"))
    after = record.get("after")
    if after:
        pool, _, rest = after.partition(":")
        points, _, at = rest.partition("@")
        label = _pool_labels(context).get(pool, pool.replace("_", " "))
        where = f" to raise die {at}" if at.isdigit() else ""
        spent = plural(int(points), "point", "points") if points.isdigit() else points
        lines.append(("After", f"{label}, {spent} spent after the roll{where}"))
    return lines


def _offer_line(record: Record, context: CardContext | None) -> Line | None:
    offer = record.get("offer")
    if offer is None:
        return None
    band, _, rest = offer.partition(": ")
    match = re.fullmatch(r"(\d+) from (.+)", rest)
    if match is None:
        return ("Offer", offer) if plain_value(offer) else None
    labels = _pool_labels(context)
    names = re.split(r", | or ", match.group(2))
    words = [labels.get(n, n.replace("_", " ")) for n in names]
    listed = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    return ("Offer", f"{band} for {points_of(int(match.group(1)), listed, 'more ')}")


def _marks(record: Record) -> list[str]:
    """The marks a player must not miss, in words."""
    marks: list[str] = []
    unmodified = record.get("unmodified")
    if unmodified is not None:
        marks.append(f"a natural {unmodified}")
    exact = record.get_int("exact")
    if exact:
        marks.append(f"{plural(exact, 'die', 'dice')} exactly on the target")
    marks += event_marks(record)
    reason = record.get("reason")
    if reason == "untrained":
        marks.append("untrained")
    elif reason is not None and plain_value(reason):
        marks.append(reason)
    return marks


def _choice(record: Record) -> str | None:
    return {
        "open": "open: the player may fail, or succeed at a cost",
        "succeed": "the player chose to succeed at a cost",
        "fail": "the player chose to fail",
    }.get(record.get("choice") or "")


def _symbol_words(record: Record, context: CardContext | None) -> list[Line]:
    lines: list[Line] = []
    try:
        net = symbols_in_words(record.get("symbols") or "", record.get("symbolDetails"))
    except DiceboundError:
        net = "unreadable"
    lines.append(("Symbols", net))
    for key, one, many in (
        ("upgrade", "difficulty die upgraded", "difficulty dice upgraded"),
        ("upgradeOwn", "of their own dice upgraded", "of their own dice upgraded"),
        ("setback", "setback die added", "setback dice added"),
    ):
        n = record.get_int(key)
        if n:
            lines.append(("Added", plural(n, one, many)))
    if context is not None:
        symbols = getattr(context.ruleset.resolution.config, "symbols", ())
        left = {s.lstrip("0123456789") for s in (record.get("symbols") or "").split()}
        for rule in symbols:
            if rule.id in left and rule.text:
                lines.append((rule.label, rule.text))
    return lines


def _total_lines(
    record: Record, dice: Sequence[dict[str, Any]], shape: str, context: CardContext | None
) -> list[Line]:
    """The number the dice came to against what was needed, with the sheet's parts."""
    lines: list[Line] = []
    dc = record.get("dc")
    total = record.get("total") or "?"
    used = record.get_int("used")
    modifier = record.get_int("modifier") or 0
    if shape in ("sum", "against"):
        parts = (
            modifier_parts(context.ruleset, context.roller, record)
            if context is not None and context.roller is not None
            else None
        )
        if parts and _parts_sum(parts) == modifier:
            lines.append(("Modifier", f"{signed(modifier)}: {_parts_text(parts)}"))
        elif modifier:
            lines.append(("Modifier", signed(modifier)))
        sum_text = f"{used} {'+' if modifier >= 0 else '−'} {abs(modifier)} = {total}"
        sum_text = sum_text if used is not None and modifier else str(total)
        if shape == "against":
            way = "or more" if record.get("against") == "at-least" else "or less"
            lines.append(("Total", f"{sum_text}, needs {dc} {way}" if dc else sum_text))
        else:
            ruleset = context.ruleset if context is not None else None
            against = f" against {difficulty_words(record, dc, ruleset)}" if dc else ""
            lines.append(("Total", sum_text + against))
    elif shape == "highest":
        lines.append(("Highest", f"{total}, needs {dc} or more" if dc else total))
    elif shape == "pool":
        parts = (
            modifier_parts(context.ruleset, context.roller, record)
            if context is not None and context.roller is not None
            else None
        )
        first = sum(1 for d in dice if not {"added", "thrown-again"} & set(d["marks"]))
        if parts and _parts_sum(parts) == first:
            counted = " ".join(
                f"{'+ ' if i else ''}{amount.lstrip('+')} {words}"
                if not amount.startswith("−")
                else f"{amount[0]} {amount[1:]} {words}"
                for i, (amount, words) in enumerate(parts)
            )
            lines.append(("Pool", f"{plural(first, 'die', 'dice')}: {counted}"))
        count = record.get_int("total")
        text = plural(count, "success", "successes") if count is not None else f"{total} successes"
        if dc:
            text += f", {dc} needed"
        lines.append(("Count", text))
    return lines


def _extra_lines(record: Record, shape: str, *, parts_shown: bool) -> list[Line]:
    """What the tag or the sheet added that no other line says: the situation's bonus,
    a wound penalty and the ruleset's adjustments (when the modifier's parts do not
    already name them), and a standing re-throw."""
    lines: list[Line] = []
    bonus = record.get_int("bonus")
    if bonus and not (shape == "pool" and parts_shown):
        if shape == "against":
            kind = "bonus" if bonus > 0 else "penalty"
            lines.append(("Bonus", f"{plural(abs(bonus), f'{kind} die', f'{kind} dice')}"))
        elif shape in ("pool", "highest"):
            lines.append(
                (
                    "Bonus",
                    f"{signed(bonus)} {'die' if abs(bonus) == 1 else 'dice'} for the situation",
                )
            )
        else:
            lines.append(("Bonus", f"{signed(bonus)} for the situation"))
    if not parts_shown:
        for key, term in (("penalty", "Penalty"), ("adjust", "Adjusted")):
            amount = record.get_int(key)
            if amount:
                lines.append((term, signed(amount)))
    reroll = record.get("reroll")
    if reroll is not None:
        lines.append(
            (
                "Re-throw",
                reroll.replace("_", " ")
                if plain_value(reroll.replace("_", " "))
                else "one the situation grants",
            )
        )
    return lines


def player_lines(
    record: Record,
    dice: Sequence[dict[str, Any]],
    *,
    outcome: str,
    paid: Sequence[tuple[str, int, int]] = (),
    context: CardContext | None = None,
) -> list[Line]:
    """The card's lines in a player's words, as (term, text); no record syntax."""
    shape = card_shape(record)
    if shape == "sparse":
        return [("Result", "Not rolled: the check still owes a roll")]
    ruleset = context.ruleset if context is not None else None
    lines: list[Line] = [("Dice", _dice_line(record, dice, shape, ruleset))]
    with_ = record.get("with")
    if with_ is not None and plain_value(with_):
        lines.append(("With", f"{with_} in place of the usual ability"))
    difficulty = record.get("difficulty")
    if difficulty is not None and plain_value(difficulty):
        lines.append(("Difficulty", difficulty))
    lines += _total_lines(record, dice, shape, context)
    if shape == "pool":
        lines += _pool_words(record, context)
    elif shape == "step":
        dc = record.get("dc")
        if dc:
            lines.insert(1, ("Target", f"each die showing {dc} or more is one effort"))
        lines += _step_words(record, context)
    elif shape == "symbol":
        lines += _symbol_words(record, context)
    shown = {term for term, _ in lines}
    lines += _extra_lines(
        record, shape, parts_shown="Pool" in shown or ":" in dict(lines).get("Modifier", "")
    )
    lines += _spend_lines(record, context)
    result = outcome or RESULT_WORDS.get(record.get("result") or "", "Not rolled")
    lines.append(("Result", result))
    band = _band(context, result)
    if band is not None and band["text"]:
        lines.append(("Means", band["text"]))
    marks = _marks(record)
    if marks:
        lines.append(("Marks", "; ".join(marks)))
    choice = _choice(record)
    if choice is not None:
        lines.append(("Choice", choice))
    offer = _offer_line(record, context)
    if offer is not None:
        lines.append(offer)
    if paid:
        lines.append(("Paid", "; ".join(f"{label} {a} → {b}" for label, a, b in paid)))
    if record.is_true("forced"):
        lines.append(("Faces", "forced (not a random roll)"))
    seed = record.get("seed")
    if seed:
        lines.append(("Seed", f"{seed} (the same seed replays this roll)"))
    return lines


def player_card(
    record: Record,
    *,
    outcome: str,
    die_marks: Sequence[Sequence[str]] = (),
    paid: Sequence[tuple[str, int, int]] = (),
    context: CardContext | None = None,
) -> dict[str, Any]:
    """The card's parts in a player's words: ``shape`` (``sum``, ``against``,
    ``highest``, ``pool``, ``step``, ``symbol`` or ``sparse``), ``shown`` (every die, see
    ``card_dice_words``), ``plain`` (the lines), ``modifier`` (the parts, each
    ``{amount, label}``, or None) and ``band`` (``{label, text}`` or None)."""
    dice = card_dice_words(record, die_marks, context)
    shape = card_shape(record)
    parts = None
    if context is not None and context.roller is not None and shape in ("sum", "against", "pool"):
        parts = modifier_parts(context.ruleset, context.roller, record)
    result = outcome or RESULT_WORDS.get(record.get("result") or "", "")
    return {
        "shape": shape,
        "shown": dice,
        "plain": [
            list(line)
            for line in player_lines(record, dice, outcome=outcome, paid=paid, context=context)
        ],
        "modifier": None
        if parts is None
        else [{"amount": amount, "label": label} for amount, label in parts],
        "band": _band(context, result),
    }
