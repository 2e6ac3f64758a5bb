"""The dice of a card in a player's words: every die's final face and what happened to
it, and the small words the card's lines share (``render.player`` writes the lines).

Pure: it reads values and returns plain JSON values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from dicebound.errors import DiceboundError
from dicebound.kinds.symbol_pool.details import parse_details
from dicebound.record import Record
from dicebound.render.text import card_dice, card_shape
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.values import frozen

__all__ = [
    "CardContext",
    "card_dice_words",
    "face_number",
    "faces_word",
    "plain_value",
    "plural",
    "signed",
    "step_labels",
]


@frozen
class CardContext:
    """What the service knows beside a record: the ruleset version it was thrown under,
    the roller as they stood when it was thrown (None when they cannot be read), and the
    tag's attributes as the Game Master wrote them (lower-case keys)."""

    ruleset: Ruleset
    roller: Character | None = None
    ask: Mapping[str, str] | None = None


# -- small words -------------------------------------------------------------------------

_NUMBER_WORDS = {
    1: "ones",
    2: "twos",
    3: "threes",
    4: "fours",
    5: "fives",
    6: "sixes",
    7: "sevens",
    8: "eights",
    9: "nines",
    10: "tens",
    12: "twelves",
    20: "twenties",
}


def faces_word(face: int) -> str:
    """``10`` as "tens", the word a table says for the dice showing it."""
    return _NUMBER_WORDS.get(face, f"{face}s")


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


_PLAIN = re.compile(r"[\w .,'()/+\-−→&!?]*")


def plain_value(value: str) -> bool:
    """A value that reads as words: no ``|``, ``@``, ``:``, ``=``, ``;`` nor an id
    joined by underscores."""
    return bool(_PLAIN.fullmatch(value)) and "_" not in value


def _sides(dice: str) -> list[int]:
    """``1d10+2d6`` as each die's sides in throw order: [10, 6, 6]; [] when unread."""
    sides: list[int] = []
    for part in dice.split("+"):
        match = re.fullmatch(r"\s*(\d*)d(\d+)\s*", part)
        if match is None:
            return []
        sides += [int(match.group(2))] * int(match.group(1) or 1)
    return sides


# -- each die ----------------------------------------------------------------------------

# What each mark the roller or the record gives a die says, in a player's words.
_MARK_WORDS = {
    "hit": ("counted", "counted"),
    "doubled": ("counted-twice", "counts twice"),
    "cancels": ("cancels", "cancels a success"),
    "exploded": ("exploded", "exploded: one more die thrown"),
    "added": ("added", "added by an exploding die"),
    "rethrown": ("rethrown", "thrown again: this face no longer counts"),
    "thrown-again": ("thrown-again", "thrown again: the new face"),
    "exact": ("exact", "exactly on the target"),
    "kept": ("kept", "kept"),
    "dropped": ("dropped", "dropped"),
    "dark": ("dark", "a dark die"),
}


def _note(mark: str, words: str) -> dict[str, str]:
    return {"mark": mark, "words": words}


def _pool_dice(dice: list[dict[str, Any]]) -> None:
    """A pool's dice: counted or not, and the successes the cancelling dice took away,
    lowest counted face first."""
    for die in dice:
        marks = die["marks"]
        die["counted"] = "hit" in marks or "doubled" in marks
        die["says"] = [_note(*_MARK_WORDS[m]) for m in marks if m in _MARK_WORDS and m != "hit"]
        if die["counted"]:
            die["says"].insert(0, _note(*_MARK_WORDS["hit"]))
        elif "cancels" not in marks and "rethrown" not in marks:
            die["says"].insert(0, _note("not-counted", "not counted"))
    cancelling = sum(1 for d in dice if "cancels" in d["marks"])
    single = [d for d in dice if d["counted"] and "doubled" not in d["marks"]]
    for die in sorted(single, key=lambda d: face_number(d["face"]))[:cancelling]:
        die["counted"] = False
        die["says"] = [_note("cancelled", "cancelled by a low die")] + [
            n for n in die["says"] if n["mark"] != "counted"
        ]


def face_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def _step_dice(record: Record, dice: list[dict[str, Any]], context: CardContext | None) -> None:
    """A step pool's dice at their final faces (the raise added), which reached the
    target, and each raise as from → to with what paid for it."""
    target = record.get_int("dc")
    raises = (record.get("raises") or "").split("|")
    raisers: dict[int, str] = {}
    labels = step_labels(context)
    for key, words in (
        ("quality", labels.get("quality", "quality")),
        ("tool", labels.get("tool", "tool")),
        ("after", "points spent after the roll"),
    ):
        value = record.get(key) or ""
        at = value.rpartition("@")[2] if "@" in value else ""
        if at.isdigit():
            raisers[int(at) - 1] = words
    names = _step_names(record, context)
    for index, die in enumerate(dice):
        face = face_number(die["face"])
        raised = face_number(raises[index]) if len(raises) == len(dice) else 0
        final = face + raised
        if raised:
            die["was"] = die["face"]
            die["face"] = str(final)
        die["die"] = names[index] if index < len(names) else die["die"]
        reached = target is not None and final >= target
        die["counted"] = reached if target is not None else None
        says = []
        if target is not None:
            says.append(
                _note("reached", f"reached the target {target}")
                if reached
                else _note("below", f"below the target {target}")
            )
        if raised:
            by = f" by the {raisers[index]}" if index in raisers else ""
            says.append(_note("raised", f"raised from {face} to {final}{by}"))
        die["says"] = says


def step_labels(context: CardContext | None) -> dict[str, str]:
    if context is None:
        return {}
    config = context.ruleset.resolution.config
    labels = {}
    for key, attr in (
        ("quality", "quality_label"),
        ("tool", "tool_label"),
        ("talent", "talent_label"),
        ("training", "training_label"),
    ):
        label = getattr(config, attr, None)
        if isinstance(label, str):
            labels[key] = label
    return labels


def _step_names(record: Record, context: CardContext | None) -> list[str]:
    """Each step-pool die's name: ``Talent d10``, then ``Training d6`` for the rest."""
    labels = step_labels(context)
    sides = _sides(record.get("dice") or "")
    talent, training = labels.get("talent", "Talent"), labels.get("training", "Training")
    return [f"{talent if i == 0 else training} d{s}" for i, s in enumerate(sides)]


# Glyphs for a symbol pool's symbols, by the part each plays in the ruleset: the success
# symbol and what cancels it, the symbols that count as either (the criticals), a pair
# that cancel each other, and any other.
_GLYPHS = {
    "success": "✶",
    "failure": "✖",
    "critical-success": "✪",
    "critical-failure": "⊗",
    "gain": "▲",
    "loss": "▼",
}
_OTHER_GLYPHS = ("◆", "●", "■", "♦", "★", "◇")


def _symbol_glyphs(config: Any) -> dict[str, str]:
    """Each symbol's glyph, read from the part it plays (``config`` is a symbol pool's
    compiled config): shapes that differ, so no colour is needed to tell them apart."""
    symbols = getattr(config, "symbols", ())
    success = getattr(config, "success", None)
    partner: dict[str, str] = {}
    for rule in symbols:
        if rule.partner is not None:
            partner[rule.id] = rule.partner
            partner[rule.partner] = rule.id
    failure = partner.get(success) if success is not None else None
    glyphs: dict[str, str] = {}
    others = iter(_OTHER_GLYPHS)
    for rule in symbols:
        if rule.id == success:
            glyphs[rule.id] = _GLYPHS["success"]
        elif rule.id == failure:
            glyphs[rule.id] = _GLYPHS["failure"]
        elif rule.counts is not None and rule.counts == success:
            glyphs[rule.id] = _GLYPHS["critical-success"]
        elif rule.counts is not None and rule.counts == failure:
            glyphs[rule.id] = _GLYPHS["critical-failure"]
        elif rule.id in partner and partner[rule.id] not in glyphs:
            glyphs[rule.id] = _GLYPHS["gain"]
        elif rule.id in partner:
            glyphs[rule.id] = _GLYPHS["loss"]
        else:
            glyphs[rule.id] = next(others, rule.id[:2])
    return glyphs


def _die_roles(config: Any) -> dict[str, str]:
    """Each symbol die's part in a check (what the page colours it by): ``pool`` and
    its ``pool-upgrade``, ``difficulty`` and its ``difficulty-upgrade``, ``boost``,
    ``setback``."""
    roles: dict[str, str] = {}
    for slot in ("pool", "difficulty"):
        found = getattr(config, slot, None)
        if found is not None:
            roles.setdefault(found.die, slot)
            if found.upgrade is not None:
                roles.setdefault(found.upgrade, f"{slot}-upgrade")
    for slot in ("boost", "setback"):
        found = getattr(config, slot, None)
        if found is not None:
            roles.setdefault(found.die, slot)
    return roles


def _symbol_dice(record: Record, dice: list[dict[str, Any]], context: CardContext | None) -> None:
    """A symbol pool's dice: each die's symbols as glyphs with their labels, never its
    face number; each die named and given its part in the check."""
    try:
        details = parse_details(record.get("symbolDetails") or "")
    except DiceboundError:
        return
    labels = dict(details.symbols)
    die_labels = dict(details.dice)
    config = context.ruleset.resolution.config if context is not None else None
    glyphs = _symbol_glyphs(config) if config is not None else {}
    roles = _die_roles(config) if config is not None else {}
    if len(details.faces) != len(dice):
        return
    for die, face in zip(dice, details.faces, strict=True):
        die_id = die["die"] or ""
        die["role"] = roles.get(die_id)
        die["die"] = die_labels.get(die_id, die_id)
        die["symbols"] = [
            {"id": s, "label": labels.get(s, s), "glyph": glyphs.get(s, s)} for s in face
        ]
        words = ", ".join(labels.get(s, s) for s in face) or "blank"
        die["says"] = [_note("symbols", words)]
        die["counted"] = None


def _tens_dice(record: Record, dice: list[dict[str, Any]]) -> None:
    """A roll under a percentage with bonus or penalty dice (``1d100+1d10``): the roll
    the record used is kept, read with the tens of the die that made it."""
    used = record.get_int("used")
    first = face_number(dice[0]["face"])
    units = first % 10
    made = None if used != first else 0
    for index in range(1, len(dice)):
        tens = face_number(dice[index]["face"]) // 10 * 10
        if made is None and (tens + units or 100) == used:
            made = index
    for index, die in enumerate(dice):
        if index == made:
            words = "kept" if index == 0 else f"kept: its tens make {used}"
            die["says"], die["counted"] = [_note("kept", words)], True
        else:
            words = "its tens not used" if index else "its tens replaced"
            die["says"], die["counted"] = [_note("dropped", words)], False


def _plain_dice(shape: str, dice: list[dict[str, Any]]) -> None:
    """A sum's, a highest's or a roll-against's dice: kept and dropped, dark."""
    for die in dice:
        marks = die["marks"]
        die["says"] = [_note(*_MARK_WORDS[m]) for m in marks if m in _MARK_WORDS]
        if "kept" in marks or "dropped" in marks:
            die["counted"] = "kept" in marks
        else:
            die["counted"] = True if shape in ("sum", "against") else None


def card_dice_words(
    record: Record,
    die_marks: Sequence[Sequence[str]] = (),
    context: CardContext | None = None,
) -> list[dict[str, Any]]:
    """Every die of the record as a card draws it: its final face, the face it was
    before a raise (``was``), whether it counts toward the result (``counted``: None
    where that is not a die's to say), what the record and the roller say of it
    (``marks``, as the record spells them) and the same in words (``says``: each
    ``{mark, words}``), a symbol die's ``symbols`` and ``role``. A pool's dice say
    nothing of their own when the roller's account (``die_marks``, one per die) is
    missing, as when a record no longer replays."""
    base = card_dice(record, context.ruleset if context is not None else None)
    given = len(die_marks) == len(base)
    told = list(die_marks) if given else [()] * len(base)
    dice: list[dict[str, Any]] = [
        {
            "face": face,
            "die": die,
            "marks": list(dict.fromkeys([*marks, *extra])),
            "was": None,
            "counted": None,
            "says": [],
        }
        for (face, die, marks), extra in zip(base, told, strict=True)
    ]
    shape = card_shape(record)
    if shape == "pool":
        if given:  # else the roller's account could not be had: nothing is claimed
            _pool_dice(dice)
    elif shape == "step":
        _step_dice(record, dice, context)
    elif shape == "symbol":
        _symbol_dice(record, dice, context)
    else:
        _plain_dice(shape, dice)
        if shape == "against" and len(dice) > 1:
            _tens_dice(record, dice)
    return dice
