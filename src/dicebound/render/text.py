"""The dice card as plain text for a terminal, and the one-line summary.

Both read only the record (plus, optionally, who rolled and the outcome's label), so a
record read back from a saved text renders the same card as the fresh one. Pure
functions returning ``str``; nothing is printed.

The card shows every face in throw order and says which were kept: under advantage
or disadvantage, the set whose sum is the record's ``used``; on a dice-highest check,
the highest dice that make its total. Where the record cannot show which dice were
kept (an open-ended chain under advantage), the card lists the faces and claims
nothing. ``unicode=False`` draws the card with ASCII glyphs only (``->``, ``-``); the
record's own values are written as they are.

Given the ruleset the record was thrown under, the card names what only the ruleset
knows: Fate's dice (``4d3`` of faces -1, 0, +1) read 4dF even when every face shows +1,
and their difficulty reads as its step of the ladder (``Good (+3)``), not ``DC 3``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from dicebound.kinds.registry import writer_of
from dicebound.record import CORE_KEYS, Record
from dicebound.sheet_commands.grammar import unknown_op
from dicebound.sheet_commands.model import SheetOutcome, SheetRequest, Unreadable
from dicebound.sheet_commands.reasons import MALFORMED
from dicebound.sheet_commands.refusals import who_refusal
from dicebound.values import frozen

if TYPE_CHECKING:
    from dicebound.ruleset.model import Ruleset

__all__ = [
    "RESULT_WORDS",
    "card_dice",
    "card_shape",
    "dice_words",
    "difficulty_words",
    "event_marks",
    "outcome_words",
    "render_text",
    "sheet_line",
    "summarize",
]

Shape = Literal["sparse", "sum", "against", "highest", "pool", "step", "symbol"]

RESULT_WORDS: dict[str, str] = {
    "critical_success": "Critical success",
    "success": "Success",
    "failure": "Failure",
    "critical_failure": "Critical failure",
}


@frozen
class _Glyphs:
    sep: str
    arrow: str
    minus: str
    dash: str
    fate: tuple[str, str, str]  # the faces -1, 0, +1


_UNICODE = _Glyphs(" · ", " → ", "−", " — ", ("[−]", "[ ]", "[+]"))
_ASCII = _Glyphs(", ", " -> ", "-", " - ", ("[-]", "[ ]", "[+]"))

# Shown in their own lines (or the title), never repeated under "Also".
_SHOWN = frozenset(
    {
        *CORE_KEYS,
        "who",
        "outcome",
        "auto",
        "highest",
        "dark",
        "darkOutcome",
        "against",
        "symbols",
        "thrown",
        "symbolDetails",
        "effort",
        "seed",
        "forced",
        # marks
        "unmodified",
        "exact",
        "complication",
        "darkHighest",
        "zeroDice",
        "automatic",
        "choice",
        "reason",
        "offer",
    }
)
_SKILL_SUFFIXES = ("check", "save", "saving throw", "throw", "test", "roll")


def outcome_words(record: Record, outcome: str | None = None) -> str:
    """The outcome in words: the label given, the record's band, or the plain result."""
    if outcome:
        return outcome
    band = record.get("outcome")
    if band:
        return band
    return RESULT_WORDS.get(record.get("result") or "", "Not rolled")


def _shape(record: Record) -> Shape:
    if not record.is_resolved:
        return "sparse"
    if record.has("symbols") or record.has("symbolDetails"):
        return "symbol"
    if record.get("resolution") == "successes":
        return "step" if record.has("effort") else "pool"
    if record.has("highest"):
        return "highest"
    if record.has("against"):
        return "against"
    return "sum"


def card_shape(record: Record) -> Shape:
    """Which card a record makes: ``sum``, ``against``, ``highest``, ``pool``, ``step``,
    ``symbol``, or ``sparse`` for a check still owed."""
    return _shape(record)


def _ints(values: tuple[str, ...]) -> list[int] | None:
    try:
        return [int(v) for v in values]
    except ValueError:
        return None


_FATE_FACES = (-1, 0, 1)
_PERCENTILE_TENS = re.compile(r"1d100\+\d+d10")
"""A roll under a percentage with bonus or penalty dice: each d10 after the first is a
tens die, read 00 to 90."""


def fate_dice(record: Record, ruleset: Ruleset | None = None) -> bool:
    """Whether the dice are Fate's, each worth -1, 0 or +1: the ruleset's dice say so
    when it is given; else the faces do (a die of plain numbers never shows 0 or less)."""
    if ruleset is not None:
        return getattr(ruleset.resolution.config, "faces", None) == _FATE_FACES
    faces = _ints(record.rolls)
    if not faces or not all(-1 <= f <= 1 for f in faces):
        return False
    return (record.get("dice") or "").lower().endswith("df") or min(faces) < 1


def dice_words(record: Record, ruleset: Ruleset | None = None) -> str:
    """The dice as a table names them: the record's ``dice``, Fate's ``4d3`` as 4dF."""
    dice = record.get("dice") or "dice"
    return re.sub(r"d3\b", "dF", dice) if fate_dice(record, ruleset) else dice


def difficulty_words(record: Record, dc: str, ruleset: Ruleset | None = None) -> str:
    """What a sum is against: ``DC 15``; against Fate's dice the step of the ladder at
    that number with its value, ``Good (+3)`` (``+9`` where no step is at it)."""
    if not fate_dice(record, ruleset):
        return f"DC {dc}"
    try:
        value = int(dc)
    except ValueError:
        return dc
    ladder = ruleset.resolution.ladder if ruleset is not None else ()
    step = next((s.label for s in ladder if s.dc == value), None)
    return f"{step} ({value:+d})" if step else f"{value:+d}"


def _face_texts(record: Record, g: _Glyphs, ruleset: Ruleset | None = None) -> list[str]:
    rolls = record.rolls
    if fate_dice(record, ruleset):
        faces = _ints(rolls)
        if faces is not None and all(-1 <= f <= 1 for f in faces):
            return [g.fate[f + 1] for f in faces]
    if record.has("against") and _PERCENTILE_TENS.fullmatch(record.get("dice") or ""):
        return [rolls[0], *(f"{r:0>2}" for r in rolls[1:])]
    return list(rolls)


def _signed(n: int, g: _Glyphs) -> str:
    return f"+ {n}" if n >= 0 else f"{g.minus} {-n}"


def _title(record: Record, who: str | None, g: _Glyphs) -> str:
    skill = record.get("skill") or "Unnamed"
    name = skill if skill.lower().endswith(_SKILL_SUFFIXES) else f"{skill} check"
    return f"{name}{g.dash}{who}" if who else name


def _line(label: str, text: str) -> str:
    return f"  {label:<9}{text}"


def _kept_set(record: Record) -> tuple[list[int], list[int]] | None:
    """Under advantage or disadvantage: (first set, second set) as indexes, kept first."""
    faces = _ints(record.rolls)
    used = record.get_int("used")
    if faces is None or used is None or len(faces) < 2 or len(faces) % 2:
        return None
    n = len(faces) // 2
    first, second = list(range(n)), list(range(n, 2 * n))
    s1, s2 = sum(faces[:n]), sum(faces[n:])
    prefer_second = s2 > s1 if record.get("mode") == "advantage" else s2 < s1
    kept, dropped = (second, first) if prefer_second else (first, second)
    if sum(faces[i] for i in kept) != used:
        return None
    return kept, dropped


def _sum_dice_line(record: Record, g: _Glyphs, ruleset: Ruleset | None) -> str:
    dice = dice_words(record, ruleset)
    texts = _face_texts(record, g, ruleset)
    joint = " " if texts and texts[0] in g.fate else ", "
    mode = record.get("mode") or "normal"
    if mode in ("advantage", "disadvantage"):
        split = _kept_set(record)
        if split is not None:
            n = len(texts) // 2
            kept, _ = split
            sets = f"{joint.join(texts[:n])} | {joint.join(texts[n:])}"
            return (
                f"{dice} twice ({mode}): {sets}{g.arrow}kept {joint.join(texts[i] for i in kept)}"
            )
        return f"{dice} ({mode}): {joint.join(texts) or 'no dice'}"
    return f"{dice}: {joint.join(texts) or 'no dice'}"


def _highest_kept(record: Record) -> list[int] | None:
    """The indexes of the dice a dice-highest total is made of, if the record shows it."""
    faces = _ints(record.rolls)
    total = record.get_int("total")
    if faces is None or total is None or not faces:
        return None
    dark = max(record.get_int("dark") or 0, 0)
    light = max(len(faces) - dark, 0)
    pool = list(range(light)) if record.get("darkOutcome") == "light" else list(range(len(faces)))
    if not pool:
        return None
    if record.is_true("zeroDice"):
        kept = [min(range(light), key=lambda i: faces[i])] if light else []
    else:
        keep = max(record.get_int("highest") or 1, 1)
        kept = sorted(sorted(pool, key=lambda i: -faces[i])[:keep])
    if not kept or sum(faces[i] for i in kept) != total:
        return None
    return kept


def _highest_dice_line(record: Record, g: _Glyphs) -> str:
    dice = record.get("dice") or "dice"
    texts = _face_texts(record, g)
    dark = max(record.get_int("dark") or 0, 0)
    light_n = max(len(texts) - dark, 0)
    line = f"{dice}: {', '.join(texts[:light_n]) or 'no light dice'}"
    if dark:
        line += f"{g.sep}dark: {', '.join(texts[light_n:]) or 'none'}"
    kept = _highest_kept(record)
    if kept is not None:
        line += f"{g.arrow}kept {', '.join(texts[i] for i in kept)}"
    return line


def _symbol_dice_line(record: Record) -> str:
    rolls = record.rolls
    thrown = record.get("thrown") or ""
    names = thrown.split("|") if thrown else []
    if names and len(names) == len(rolls):
        return ", ".join(f"{n} {r}" for n, r in zip(names, rolls, strict=True))
    faces = ", ".join(rolls) or "no dice"
    return f"{thrown}: faces {faces}" if thrown else f"faces {faces}"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _successes(record: Record) -> str:
    count = record.get_int("total")
    if count is None:
        return f"{record.get('total') or '?'} successes"
    return _plural(count, "success", "successes")


def event_marks(record: Record) -> list[str]:
    """What happened beside the number, in words: a complication, a dark die on top, a
    pool of no dice, an automatic failure (the terminal's card and the player's)."""
    marks: list[str] = []
    if record.is_true("complication"):
        marks.append("complication: something goes wrong alongside it")
    if record.is_true("darkHighest"):
        marks.append("a dark die beat every light die")
    if record.is_true("zeroDice"):
        marks.append(
            "no dice: two thrown, the lower kept" if record.rolls else "no dice: failed unrolled"
        )
    if record.is_true("automatic"):
        marks.append("failed automatically, no roll")
    return marks


def _marks(record: Record) -> list[str]:
    """The marks a player or Game Master must not miss, in words."""
    marks: list[str] = []
    if record.has("unmodified"):
        marks.append(f"unmodified {record.get('unmodified')}")
    if record.has("exact"):
        n = record.get_int("exact")
        marks.append(
            f"exact: {_plural(n, 'die', 'dice')} on the target"
            if n is not None
            else f"exact {record.get('exact')}"
        )
    marks += event_marks(record)
    if record.has("reason"):
        marks.append(str(record.get("reason")))
    choice = record.get("choice")
    if choice == "open":
        marks.append("the player's choice is open: fail, or succeed at a cost")
    elif choice == "succeed":
        marks.append("the player chose to succeed at a cost")
    elif choice == "fail":
        marks.append("the player chose to fail")
    elif choice:
        marks.append(f"choice {choice}")
    return marks


def _also(record: Record, g: _Glyphs, skip: frozenset[str]) -> str:
    parts = [f"{k} {v}" if v else k for k, v in record.attrs if k not in skip]
    return g.sep.join(parts)


def _symbols(record: Record) -> str:
    """The net symbols in words ("2 Success, 1 Advantage"), with the labels the record's
    ``symbolDetails`` keeps; the ids as written when the details cannot be read."""
    writer = writer_of(record)
    words = None if writer is None else writer.card_words(record)
    return words or record.get("symbols") or "no symbols"


def card_dice(
    record: Record, ruleset: Ruleset | None = None
) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """Every face thrown, in throw order, as (face, the die's name, marks): the marks
    are what the record itself says of the die: ``kept`` or ``dropped`` (advantage,
    the highest dice), ``dark`` and a step-pool die's raise (``raised +2``). What a
    pool's roller did to each die is not in the record; the service replays the record
    to tell it."""
    texts = _face_texts(record, _UNICODE, ruleset)
    marks: list[list[str]] = [[] for _ in texts]
    names: list[str | None] = [None] * len(texts)
    shape = _shape(record)
    if shape == "sum" and record.get("mode") in ("advantage", "disadvantage"):
        split = _kept_set(record)
        if split is not None:
            for index in split[0]:
                marks[index].append("kept")
            for index in split[1]:
                marks[index].append("dropped")
    elif shape == "highest":
        dark = max(record.get_int("dark") or 0, 0)
        for index in range(max(len(texts) - dark, 0), len(texts)):
            marks[index].append("dark")
        kept = _highest_kept(record)
        if kept is not None:
            for index in range(len(texts)):
                marks[index].append("kept" if index in kept else "dropped")
    elif shape == "symbol":
        thrown = (record.get("thrown") or "").split("|")
        if len(thrown) == len(texts):
            names = list(thrown)
    elif shape == "step":
        raises = (record.get("raises") or "").split("|")
        if len(raises) == len(texts):
            for index, raised in enumerate(raises):
                if raised not in ("", "0", "+0"):
                    marks[index].append(f"raised {raised}")
    return [(t, names[i], tuple(marks[i])) for i, t in enumerate(texts)]


def render_text(
    record: Record,
    *,
    who: str | None = None,
    outcome: str | None = None,
    unicode: bool = True,
    paid: Sequence[tuple[str, int, int]] = (),
    ruleset: Ruleset | None = None,
) -> str:
    """The dice card: who rolled what, every face, the sum or count against the
    difficulty, the outcome in words, any marks, what was paid, and how to replay it.

    ``who`` names the roller when the record does not (a check without ``who=`` is
    the player's own); ``outcome`` is a band label that replaces the plain words;
    ``paid`` is each pool paid from, as (label, from, to); ``ruleset``, the one the
    record was thrown under, names its dice and difficulty as the table does.
    """
    g = _UNICODE if unicode else _ASCII
    who = record.get("who") or who
    shape = _shape(record)
    lines = [_title(record, who, g)]
    if shape == "sparse":
        lines.append(_line("Result", "Not rolled: the check still owes a roll"))
        asked = _also(record, g, frozenset({"skill", "who"}))
        if asked:
            lines.append(_line("Asked", asked))
        return "\n".join(lines)

    dc = record.get("dc")
    used = record.get_int("used")
    modifier = record.get_int("modifier")
    total = record.get("total") or "?"
    if shape in ("sum", "against"):
        lines.append(_line("Dice", _sum_dice_line(record, g, ruleset)))
        sum_text = (
            f"{used} {_signed(modifier, g)} = {total}"
            if used is not None and modifier
            else str(total)
        )
        if shape == "against":
            way = "at least" if record.get("against") == "at-least" else "at most"
            need = f", needs {way} {dc}" if dc else ""
        else:
            need = f" against {difficulty_words(record, dc, ruleset)}" if dc else ""
        lines.append(_line("Total", sum_text + need))
    elif shape == "highest":
        lines.append(_line("Dice", _highest_dice_line(record, g)))
        lines.append(_line("Total", f"{total} against DC {dc}" if dc else total))
    elif shape == "symbol":
        lines.append(_line("Dice", _symbol_dice_line(record)))
        lines.append(_line("Symbols", _symbols(record)))
    else:
        dice = record.get("dice") or "dice"
        lines.append(_line("Dice", f"{dice}: {', '.join(record.rolls) or 'no dice'}"))
        if shape == "step":
            text = f"{record.get('effort') or total}" + (f" (target number {dc})" if dc else "")
            lines.append(_line("Effort", text))
        else:
            text = _successes(record)
            if dc:
                text += f", {dc} needed"
            auto = record.get_int("auto")
            if auto:
                text += f" ({auto} nobody rolled)"
            lines.append(_line("Count", text))

    lines.append(_line("Result", outcome_words(record, outcome)))
    marks = _marks(record)
    if marks:
        lines.append(_line("Marks", g.sep.join(marks)))
    if record.has("offer"):
        lines.append(_line("Offer", str(record.get("offer"))))
    also = _also(record, g, _SHOWN)
    if also:
        lines.append(_line("Also", also))
    if paid:
        spent = g.sep.join(f"{label} {before}{g.arrow}{after}" for label, before, after in paid)
        lines.append(_line("Paid", spent))
    if record.is_true("forced"):
        lines.append(_line("Faces", "forced (not a random roll)"))
    seed = record.get("seed")
    if seed:
        lines.append(_line("Seed", f"{seed} (the same seed replays this roll)"))
    return "\n".join(lines)


def summarize(record: Record, *, who: str | None = None, outcome: str | None = None) -> str:
    """One line for a log, docs/design/format.md "The record"'s shape:
    ``Stealth check (DC 15): [3, 18] +9 = 27. Success.``; a pool says ``= 3 successes``,
    a symbol pool names its net symbols, a sparse record says ``not rolled``.
    """
    g = _ASCII
    who = record.get("who") or who
    name = _title(record, None, g)
    if who:
        name += f" for {who}"
    dc = record.get("dc")
    if dc:
        name += f" (DC {dc})"
    elif record.has("difficulty"):
        name += f" ({record.get('difficulty')})"
    shape = _shape(record)
    if shape == "sparse":
        return f"{name}: not rolled."
    faces = f"[{', '.join(record.rolls)}]"
    total = record.get("total") or "?"
    if shape == "symbol":
        body = _symbols(record)
    elif shape == "pool":
        body = f"{faces} = {_successes(record)}"
    elif shape == "step":
        body = f"{faces} = {record.get('effort') or total} effort"
    elif shape == "highest":
        body = f"{faces} kept {total}"
    else:
        modifier = record.get_int("modifier")
        sign = "" if modifier is None else f"{modifier:+d} "
        body = f"{faces} {sign}= {total}"
    marks = _marks(record)
    tail = f" ({'; '.join(marks)})" if marks else ""
    return f"{name}: {body}. {outcome_words(record, outcome)}{tail}."


def sheet_line(outcome: SheetOutcome, party: Sequence[str] = ()) -> str:
    """One sheet command as a line under the cards: who, the op, what it named, and what
    it came to (``Sheet: Mira spend slots_1 -> 1/2``, ``... refused (insufficient)``).
    A ``who`` that named nobody of ``party`` (the cards' names) is refused with the
    full names it could have written."""
    request = outcome.request
    if isinstance(request, SheetRequest):
        target = next(
            (
                named
                for named in (
                    request.name,
                    request.pool,
                    request.track,
                    request.condition,
                    request.state if request.op == "state" else None,
                    request.field,
                    request.rest,
                )
                if named
            ),
            "",
        )
        words = " ".join(part for part in (outcome.who, request.op, target) if part)
    else:
        words = " ".join(part for part in (outcome.who, "sheet") if part)
    if outcome.ok:
        return f"Sheet: {words} -> {outcome.now}" if outcome.now else f"Sheet: {words}"
    reason = outcome.reason or ""
    if isinstance(request, Unreadable) and reason == MALFORMED:
        hint = unknown_op(request.raw)
    else:
        hint = who_refusal(reason, outcome.who, party)
    return f"Sheet: {words} refused ({reason}{f': {hint}' if hint else ''})"
