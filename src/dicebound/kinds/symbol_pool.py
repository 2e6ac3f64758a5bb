"""symbol-pool: throw narrative dice and read the symbols (Capability API 1.141).

Genesys builds a pool from a characteristic and a skill rank, then adds opposing dice.
The page's keys: ``symbols`` (2-10; ``counts`` adds one of another symbol before
cancelling, ``cancels`` pairs two symbols one for one), ``dice`` (2-8 named dice of 2-20
faces, each face up to three symbol ids), ``pool`` (``die``, ``upgrade``, ``max`` ≤ 12,
``build``), ``difficulty`` (``die``, ``upgrade``, ``max`` ≤ 12), ``boost`` and
``setback`` (``max`` ≤ 6), ``allowOwnUpgrade`` (1.150), ``success`` (``symbol``,
``needed``), ``criticalSuccess`` and ``criticalFailure`` (symbols marked wherever a face
shows them), ``spend`` (dice only) and the ``difficultyLadder`` (``dc`` counts opposing
dice).

One arithmetic serves both halves. Every face reduces to an ``Effect``: how much it
moves the success symbol's count against its cancelling partner, and whether it shows
either critical symbol. ``roll`` adds the effects of the thrown faces; ``distribution``
adds the effect distributions of the dice (worked out once per die when the block is
compiled), so the odds cost a few small convolutions however many dice are thrown, and
no tuple of faces is ever enumerated. ``_outcome`` turns the sum into the outcome for
both. The net symbols the record names (``net_symbols``) are counted and cancelled from
the faces in full; the net success count they give is the same number.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- The ability is the check number's ability part (``abilityModifier`` of the score, or of
  ``with=``'s), the rank its tier part, each rounded down and never below 0; a raw
  ability check has rank 0 and ignores ``with=``.
- ``larger-upgraded`` throws the larger of the two and, where ``pool.upgrade`` is
  declared, upgrades as many dice as the smaller; ``sum`` throws both added, upgrading
  none. A skill's ``cap`` holds the dice the sheet builds (as it holds a dice pool's
  number), upgraded dice kept upgraded as far as they fit. The pool is held to
  ``pool.max``, then bought dice (plain dice) join it within ``pool.max`` (a purchase
  with no room is not made and not paid), then ``upgradeOwn``. A spend's ``perCheck:
  "pool"`` reads the dice the sheet builds.
- The signed bonus is ``bonus=`` plus the sheet's bonus for the skill (and an untrained
  ``by``), the wound penalty and ``adjust``: above 0 it throws that many boost dice (up
  to ``boost.max``), below 0 setback dice (up to ``setback.max``). A side the ruleset
  does not declare throws nothing. ``setback="N"`` adds to the setback dice inside the
  same ``setback.max``; the record's ``setback`` is what it added past the shared part.
- ``dc=`` is held to 0..``difficulty.max``, as is a ladder step's; ``untrained:
  "harder"`` moves it to the next ladder step up. ``upgrade=`` needs
  ``difficulty.upgrade``. The record's ``dc`` is the net successes needed, so that it
  reads like the summed shape it keeps (``total`` against ``dc``); the opposing dice are
  named in ``thrown`` and ``dice``.
- The net success count is the success symbol's count after ``counts`` and cancelling,
  never below 0; it is ``used`` and ``total``. A margin is net - needed + 1 (the page).
- A critical symbol marks an occurrence on a face thrown; a symbol another one adds
  through ``counts`` is not an occurrence. Without outcome bands the markers are the
  outcome's ``critical_success`` / ``critical_failure`` (both may be set, and neither
  changes ``success``); with bands those are never set, because the markers never move
  a band, and the markers stay in ``marked_success`` / ``marked_failure``.
- Refused as rules that could never fire: an upgrade die that is the die it upgrades, a
  success symbol no face of a check's dice can count, a ``success.needed`` above what a
  check can count, a critical symbol no face of any die shows, a ladder step
  above ``difficulty.max``, and ``allowOwnUpgrade: true`` without ``pool.upgrade``. Two
  dice that answer to the same name (id or label, any case) are refused too, since dice
  are thrown by name.

The record (``resolution="sum"``, ``modifier="0"``) adds ``symbols`` (the net symbols in
the declared symbol order, ``"2s 1a 1t"``: a count, then the symbol id, for every symbol
left after cancelling; ``""`` when none is left), ``thrown`` (the die ids in throw order,
``|``-separated), ``symbolDetails`` (``encode_details``), and ``upgrade``, ``setback``
and ``upgradeOwn`` when they added something. ``rolls`` holds each die's 1-based face
number; ``dice`` names the dice as ``throw_by_name`` reads them (``"2 ability 1
proficiency vs 2 difficulty"``, ``"none"`` when nothing was thrown).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import unquote

from dicebound.bands import Against, BandRules
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import DiceboundError, TagError, UsageError
from dicebound.kinds.asks import (
    clamp,
    ladder_labels,
    next_step_dc,
    sheet_extras,
    step_by_label,
    written_int,
)
from dicebound.kinds.base import (
    CheckAsk,
    CompileContext,
    DiceThrower,
    KindCompiler,
    KindPlayer,
    Marks,
    Prepared,
    Rolled,
)
from dicebound.problems import Path, Problem, did_you_mean
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Enum,
    Id,
    Int,
    Node,
    Obj,
    Str,
    describe,
)
from dicebound.spend import Spend, buy, compile_spends, parse_spend, spend_node
from dicebound.tags.names import normalize
from dicebound.values import field, frozen

if TYPE_CHECKING:
    from dicebound.record import Record

__all__ = [
    "KIND",
    "MAX_BOOST",
    "MAX_POOL",
    "PLAYER",
    "Build",
    "CriticalMarks",
    "DieSlot",
    "Effect",
    "ExtraDice",
    "SymbolCheck",
    "SymbolConfig",
    "SymbolDetails",
    "SymbolDie",
    "SymbolOutcome",
    "SymbolPoolPlayer",
    "SymbolRule",
    "dice_text",
    "distribution",
    "encode_details",
    "net_symbols",
    "parse_details",
    "parse_symbols",
    "roll",
    "symbols_in_words",
    "symbols_text",
]

Build = Literal["larger-upgraded", "sum"]
CriticalMarks = Literal["success", "failure", "both"] | None

MAX_POOL = 12
"""The page: ``pool.max`` and ``difficulty.max`` cannot exceed 12."""
MAX_BOOST = 6
"""The page: ``boost.max`` and ``setback.max`` cannot exceed 6."""
MAX_NEEDED = 100


# -- compiled config and the check ------------------------------------------------------


@frozen
class SymbolRule:
    """One symbol. ``partner`` is the symbol it cancels one for one (declared on either
    side); ``counts`` the symbol one of it also adds before cancelling."""

    id: str
    label: str
    counts: str | None = None
    partner: str | None = None
    text: str | None = None


@frozen
class SymbolDie:
    """A named die. ``faces[i]`` is face number i + 1: the symbol ids it shows."""

    id: str
    label: str
    faces: tuple[tuple[str, ...], ...]

    @property
    def sides(self) -> int:
        return len(self.faces)


@frozen
class DieSlot:
    """``pool`` or ``difficulty``: the die thrown, the die it is upgraded to, the most."""

    die: str
    upgrade: str | None = None
    max: int = 6


@frozen
class ExtraDice:
    """``boost`` or ``setback``: the die and the most a check throws."""

    die: str
    max: int = 3


class Effect(NamedTuple):
    """What one face (or a set of faces) does to the outcome: the success symbol's count
    minus its cancelling partner's (``counts`` included), and whether the critical
    success and critical failure symbols show."""

    lead: int
    marks_success: bool
    marks_failure: bool


@frozen
class SymbolConfig:
    """A compiled symbol-pool block. Immutable.

    Every id it names exists (checked on construction). Derived, worked out once:
    ``face_effects`` holds each die's faces' effects (face 1 first), which the roller
    reads, and ``effects`` how many faces of each die have each effect, which the odds
    read.
    """

    symbols: tuple[SymbolRule, ...]
    dice: tuple[SymbolDie, ...]
    pool: DieSlot
    difficulty: DieSlot
    success: str
    needed: int = 1
    build: Build = "larger-upgraded"
    boost: ExtraDice | None = None
    setback: ExtraDice | None = None
    critical_success: str | None = None
    critical_failure: str | None = None
    allow_own_upgrade: bool = False
    spend: tuple[Spend, ...] = ()
    banded: bool = False  # the ruleset reads outcome bands, so markers set no critical
    face_effects: Mapping[str, tuple[Effect, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    effects: Mapping[str, Mapping[Effect, int]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        symbol_ids = {s.id for s in self.symbols}
        die_ids = {d.id for d in self.dice}
        for rule in self.symbols:
            for other in (rule.counts, rule.partner):
                if other is not None and other not in symbol_ids:
                    raise UsageError(f'symbol "{rule.id}" names "{other}", which is no symbol')
        for die in self.dice:
            if not 2 <= die.sides <= 20:
                raise UsageError(f'die "{die.id}" has {die.sides} faces; a die has 2 to 20')
            for face in die.faces:
                for sid in face:
                    if sid not in symbol_ids:
                        raise UsageError(f'die "{die.id}" shows "{sid}", which is no symbol')
        named = [
            self.pool.die,
            self.pool.upgrade,
            self.difficulty.die,
            self.difficulty.upgrade,
            self.boost.die if self.boost else None,
            self.setback.die if self.setback else None,
        ]
        for die_id in named:
            if die_id is not None and die_id not in die_ids:
                raise UsageError(f'"{die_id}" is not a die of this symbol pool')
        for named_symbol in (self.success, self.critical_success, self.critical_failure):
            if named_symbol is not None and named_symbol not in symbol_ids:
                raise UsageError(f'"{named_symbol}" is not a symbol of this symbol pool')
        if not 1 <= self.pool.max <= MAX_POOL or not 1 <= self.difficulty.max <= MAX_POOL:
            raise UsageError("pool.max and difficulty.max run from 1 to 12")
        if self.needed < 1:
            raise UsageError(f"a check needs at least 1 success, not {self.needed}")
        if self.allow_own_upgrade and self.pool.upgrade is None:
            raise UsageError("allowOwnUpgrade needs pool.upgrade")
        faces = {die.id: tuple(_face_effect(self, face) for face in die.faces) for die in self.dice}
        object.__setattr__(self, "face_effects", MappingProxyType(faces))
        object.__setattr__(
            self, "effects", MappingProxyType({k: _tally(v) for k, v in faces.items()})
        )

    def die(self, die_id: str) -> SymbolDie:
        for die in self.dice:
            if die.id == die_id:
                return die
        raise UsageError(f'"{die_id}" is not a die of this symbol pool')

    def symbol(self, symbol_id: str) -> SymbolRule:
        for rule in self.symbols:
            if rule.id == symbol_id:
                return rule
        raise UsageError(f'"{symbol_id}" is not a symbol of this symbol pool')


@frozen
class SymbolCheck:
    """One prepared throw: the dice (ids, in throw order), the net successes needed, and
    where the opposing dice start in ``thrown`` (for the record's ``dice``; None when no
    side is opposing, as in a throw by name without ``vs``)."""

    config: SymbolConfig
    thrown: tuple[str, ...]
    needed: int
    vs_at: int | None = None

    def __post_init__(self) -> None:
        known = {d.id for d in self.config.dice}
        for die_id in self.thrown:
            if die_id not in known:
                raise UsageError(f'"{die_id}" is not a die of this symbol pool')
        if self.needed < 1:
            raise UsageError(f"a check needs at least 1 success, not {self.needed}")
        if self.vs_at is not None and not 0 <= self.vs_at <= len(self.thrown):
            raise UsageError(f"vs_at {self.vs_at} is outside the {len(self.thrown)} dice")


class SymbolOutcome(NamedTuple):
    """What one throw came to: the net successes (what bands read), the result, the
    criticals as the engine reads them (only without bands), and the two markers.

    A named tuple rather than a dataclass: a distribution holds many of them.
    """

    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    marked_success: bool
    marked_failure: bool

    @property
    def critical_marks(self) -> CriticalMarks:
        """The markers as the JSON ``critical`` says them: ``"success"``, ``"failure"``,
        ``"both"`` or None (docs/design/readings.md "Symbol pools without bands"; never a
        change of success)."""
        if self.marked_success and self.marked_failure:
            return "both"
        if self.marked_success:
            return "success"
        if self.marked_failure:
            return "failure"
        return None


# -- the shared arithmetic -----------------------------------------------------------


def _face_effect(config: SymbolConfig, face: Sequence[str]) -> Effect:
    """One face's effect. A symbol adds to the success count when it is the success
    symbol or counts as it, and takes away when it is (or counts as) the partner that
    cancels it; net successes are then ``max(0, lead)``."""
    success = config.success
    partner = config.symbol(success).partner
    counts = {s.id: s.counts for s in config.symbols}
    lead = 0
    for sid in face:
        for counted in (sid, counts[sid]):
            if counted == success:
                lead += 1
            elif partner is not None and counted == partner:
                lead -= 1
    return Effect(
        lead,
        config.critical_success is not None and config.critical_success in face,
        config.critical_failure is not None and config.critical_failure in face,
    )


def _tally(effects: Sequence[Effect]) -> Mapping[Effect, int]:
    """How many of a die's faces have each effect."""
    out: dict[Effect, int] = {}
    for effect in effects:
        out[effect] = out.get(effect, 0) + 1
    return MappingProxyType(out)


def _add(a: Effect, b: Effect) -> Effect:
    return Effect(
        a.lead + b.lead, a.marks_success or b.marks_success, a.marks_failure or b.marks_failure
    )


def _outcome(check: SymbolCheck, effect: Effect) -> SymbolOutcome:
    """The result of the summed effect: net successes against what the check needs."""
    net = max(0, effect.lead)
    plain = not check.config.banded
    return SymbolOutcome(
        total=net,
        success=net >= check.needed,
        critical_success=plain and effect.marks_success,
        critical_failure=plain and effect.marks_failure,
        marked_success=effect.marks_success,
        marked_failure=effect.marks_failure,
    )


def net_symbols(
    config: SymbolConfig, faces: Sequence[Sequence[str]]
) -> tuple[tuple[str, int], ...]:
    """Every symbol left after ``counts`` and cancelling, in the declared order, with its
    count (symbols at 0 left out)."""
    count = {s.id: 0 for s in config.symbols}
    for face in faces:
        for sid in face:
            count[sid] += 1
    for rule in config.symbols:  # a counted symbol has no counts of its own: one pass
        if rule.counts is not None:
            count[rule.counts] += sum(1 for face in faces for sid in face if sid == rule.id)
    done: set[str] = set()
    for rule in config.symbols:
        if rule.partner is not None and rule.id not in done:
            both = min(count[rule.id], count[rule.partner])
            count[rule.id] -= both
            count[rule.partner] -= both
            done.update((rule.id, rule.partner))
    return tuple((s.id, count[s.id]) for s in config.symbols if count[s.id])


def symbols_text(net: Sequence[tuple[str, int]]) -> str:
    """The record's ``symbols``: ``"2s 1a 1t"``; ``""`` when no symbol is left."""
    return " ".join(f"{n}{sid}" for sid, n in net)


_SYMBOL_COUNT = re.compile(r"(\d+)([a-z][a-z0-9_]*)")


def parse_symbols(text: str) -> tuple[tuple[str, int], ...]:
    """Read a record's ``symbols`` back: ``"2s 1a"`` → ``(("s", 2), ("a", 1))``."""
    out = []
    for word in text.split():
        match = _SYMBOL_COUNT.fullmatch(word)
        if match is None:
            raise UsageError(f'"{word}" in symbols="{text}" is not a count and a symbol id')
        out.append((match.group(2), int(match.group(1))))
    return tuple(out)


def dice_text(thrown: Sequence[str], vs_at: int | None = None) -> str:
    """The dice as ``throw_by_name`` reads them: runs of one die as ``"2 ability"``, the
    opposing side after ``vs``; ``"none"`` when nothing is thrown."""

    def runs(ids: Sequence[str]) -> list[str]:
        out: list[list[Any]] = []
        for die_id in ids:
            if out and out[-1][1] == die_id:
                out[-1][0] += 1
            else:
                out.append([1, die_id])
        return [f"{n} {die_id}" for n, die_id in out]

    if not thrown:
        return "none"
    if vs_at is None or vs_at >= len(thrown):
        return " ".join(runs(thrown))
    return " ".join([*runs(thrown[:vs_at]), "vs", *runs(thrown[vs_at:])])


# -- symbolDetails: labels, face symbols and both markers in one attribute ----------------

_RESERVED = frozenset("%\";,=:|+[]'")


def _escape(label: str) -> str:
    """Percent-encode what the encoding uses, quotes, brackets and every character that
    is not printable (control characters and line breaks of any kind)."""
    out = []
    for ch in label:
        if ch in _RESERVED or not ch.isprintable():
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


@frozen
class SymbolDetails:
    """What ``symbolDetails`` holds. ``faces`` are the symbols of each die thrown, in
    throw order; ``dice`` and ``symbols`` are (id, label) pairs; a marker is (symbol id,
    how many faces thrown showed it), or None where the ruleset names no such symbol."""

    faces: tuple[tuple[str, ...], ...]
    dice: tuple[tuple[str, str], ...]
    symbols: tuple[tuple[str, str], ...]
    critical_success: tuple[str, int] | None = None
    critical_failure: tuple[str, int] | None = None


def encode_details(details: SymbolDetails) -> str:
    """The record's ``symbolDetails``, ``;``-separated sections, each ``name:content``:

    ``faces:s+a|-|f`` (each die's face symbols joined by ``+``, ``-`` for a blank face),
    ``dice:ability=Ability,...`` (each die thrown, first throw first), ``symbols:s=Success,
    ...`` (every symbol, declared order), then ``criticalSuccess:t=1`` and
    ``criticalFailure:d=0`` (the marker's symbol and how many faces showed it) where the
    ruleset names them. Labels are percent-encoded (``%``, ``"``, ``'``, ``;``, ``,``,
    ``=``, ``:``, ``|``, ``+``, brackets and every character that is not printable), so
    the text holds no double quote or line break and ``parse_details`` reads it back
    exactly.
    """
    faces = "|".join("+".join(face) if face else "-" for face in details.faces)
    parts = [
        f"faces:{faces}",
        "dice:" + ",".join(f"{i}={_escape(label)}" for i, label in details.dice),
        "symbols:" + ",".join(f"{i}={_escape(label)}" for i, label in details.symbols),
    ]
    for name, mark in (
        ("criticalSuccess", details.critical_success),
        ("criticalFailure", details.critical_failure),
    ):
        if mark is not None:
            parts.append(f"{name}:{mark[0]}={mark[1]}")
    return ";".join(parts)


def parse_details(text: str) -> SymbolDetails:
    """Read ``symbolDetails`` back (the inverse of ``encode_details``).

    Raises:
        UsageError: the text is not a symbolDetails encoding.
    """
    sections: dict[str, str] = {}
    for part in text.split(";"):
        name, colon, content = part.partition(":")
        if not colon or name in sections:
            raise UsageError(f'"{part}" is not a section of symbolDetails')
        sections[name] = content
    unknown = set(sections) - {"faces", "dice", "symbols", "criticalSuccess", "criticalFailure"}
    if unknown or not {"faces", "dice", "symbols"} <= set(sections):
        raise UsageError(f'symbolDetails="{text}" does not have the sections it needs')

    def pairs(content: str) -> tuple[tuple[str, str], ...]:
        out = []
        for item in content.split(",") if content else ():
            key, eq, value = item.partition("=")
            if not eq:
                raise UsageError(f'"{item}" in symbolDetails is not id=label')
            out.append((key, unquote(value)))
        return tuple(out)

    def mark(name: str) -> tuple[str, int] | None:
        if name not in sections:
            return None
        sid, eq, n = sections[name].partition("=")
        if not eq or not n.isdigit():
            raise UsageError(f'"{sections[name]}" in symbolDetails is not symbol=count')
        return sid, int(n)

    raw_faces = sections["faces"]
    faces = tuple(
        () if face == "-" else tuple(face.split("+"))
        for face in (raw_faces.split("|") if raw_faces else ())
    )
    return SymbolDetails(
        faces=faces,
        dice=pairs(sections["dice"]),
        symbols=pairs(sections["symbols"]),
        critical_success=mark("criticalSuccess"),
        critical_failure=mark("criticalFailure"),
    )


def symbols_in_words(symbols: str, details: str | None = None) -> str:
    """The net symbols as a card says them: ``"2 Success, 1 Advantage"`` with the labels
    ``symbolDetails`` keeps (the ids without it), ``"no symbols"`` when none is left."""
    net = parse_symbols(symbols)
    if not net:
        return "no symbols"
    labels = dict(parse_details(details).symbols) if details else {}
    return ", ".join(f"{n} {labels.get(sid, sid)}" for sid, n in net)


def _details(config: SymbolConfig, thrown: Sequence[str], faces: Sequence[Sequence[str]]) -> str:
    seen: dict[str, str] = {}
    for die_id in thrown:
        seen.setdefault(die_id, config.die(die_id).label)

    def mark(sid: str | None) -> tuple[str, int] | None:
        if sid is None:
            return None
        return sid, sum(1 for face in faces for s in face if s == sid)

    return encode_details(
        SymbolDetails(
            faces=tuple(tuple(face) for face in faces),
            dice=tuple(seen.items()),
            symbols=tuple((s.id, s.label) for s in config.symbols),
            critical_success=mark(config.critical_success),
            critical_failure=mark(config.critical_failure),
        )
    )


# -- play ------------------------------------------------------------------------------


def roll(check: SymbolCheck, dice: DiceSource) -> Rolled:
    """Throw every die in order, count and cancel the symbols, and read the result."""
    config = check.config
    numbers: list[int] = []
    faces: list[tuple[str, ...]] = []
    total = Effect(0, False, False)
    for die_id in check.thrown:
        die = config.die(die_id)
        number = dice.throw(die.sides)
        face = die.faces[number - 1]
        numbers.append(number)
        faces.append(face)
        total = _add(total, config.face_effects[die_id][number - 1])
    out = _outcome(check, total)
    net = net_symbols(config, faces)
    extras = (
        ("symbols", symbols_text(net)),
        ("thrown", "|".join(check.thrown)),
        ("symbolDetails", _details(config, check.thrown, faces)),
    )
    return Rolled(
        rolls=tuple(str(n) for n in numbers),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=dice_text(check.thrown, check.vs_at),
        extras=extras,
        outcome=out,
    )


# -- odds ------------------------------------------------------------------------------


def _convolve(a: Mapping[Effect, int], b: Mapping[Effect, int]) -> dict[Effect, int]:
    out: dict[Effect, int] = {}
    for ea, wa in a.items():
        for eb, wb in b.items():
            key = _add(ea, eb)
            out[key] = out.get(key, 0) + wa * wb
    return out


def _power(one: Mapping[Effect, int], count: int) -> Mapping[Effect, int]:
    """The effects of ``count`` dice of one kind, by doubling."""
    result: Mapping[Effect, int] = {Effect(0, False, False): 1}
    power = one
    while count:
        if count & 1:
            result = _convolve(result, power)
        count >>= 1
        if count:
            power = _convolve(power, power)
    return result


def distribution(check: SymbolCheck) -> Dist[SymbolOutcome]:
    """The exact distribution of what ``roll`` gives for this check: each die's face
    effects, convolved (leads add up, markers are either-or), then read once."""
    config = check.config
    how_many: dict[str, int] = {}
    for die_id in check.thrown:
        how_many[die_id] = how_many.get(die_id, 0) + 1
    summed: Mapping[Effect, int] = {Effect(0, False, False): 1}
    for die_id, n in how_many.items():
        summed = _convolve(summed, _power(config.effects[die_id], n))
    out: dict[SymbolOutcome, int] = {}
    for effect, weight in summed.items():
        key = _outcome(check, effect)
        out[key] = out.get(key, 0) + weight
    return Dist(out)


# -- import: the block's keys, its cross-checks, and its capability features -------------


_SYMBOL = Obj(
    {"id": Id(), "label": Str(hi=80), "counts": Id(), "cancels": Id(), "text": Str(hi=200)},
    required=("id", "label"),
)
_DIE = Obj(
    {
        "id": Id(),
        "label": Str(hi=80),
        "faces": Arr(Arr(Id(), hi=3, noun="symbol"), lo=2, hi=20, noun="face"),
    },
    required=("id", "label", "faces"),
)
_STEP = Obj({"label": Str(hi=80), "dc": Int(0, MAX_POOL)}, required=("label", "dc"))

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "symbols": Arr(_SYMBOL, lo=2, hi=10, unique_key="id", noun="symbol"),
        "dice": Arr(_DIE, lo=2, hi=8, unique_key="id", noun="die"),
        "pool": Obj(
            {
                "die": Id(),
                "upgrade": Id(),
                "max": Int(1, MAX_POOL),
                "build": Enum(("larger-upgraded", "sum")),
            },
            required=("die",),
        ),
        "difficulty": Obj(
            {"die": Id(), "upgrade": Id(), "max": Int(1, MAX_POOL)}, required=("die",)
        ),
        "boost": Obj({"die": Id(), "max": Int(1, MAX_BOOST)}, required=("die",)),
        "setback": Obj({"die": Id(), "max": Int(1, MAX_BOOST)}, required=("die",)),
        "allowOwnUpgrade": Bool(),
        "success": Obj({"symbol": Id(), "needed": Int(1, MAX_NEEDED)}, required=("symbol",)),
        "criticalSuccess": Id(),
        "criticalFailure": Id(),
        "spend": spend_node("symbol-pool", dice_only=True),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


class _Checker:
    """The cross-checks of one structurally valid block, collecting problems."""

    def __init__(self, block: Mapping[str, Any], at: Path) -> None:
        self.block = block
        self.at = at
        self.problems: list[Problem] = []
        self.symbol_ids = [str(s["id"]) for s in block["symbols"]]
        self.die_ids = [str(d["id"]) for d in block["dice"]]

    def add(self, path: Path, code: str, message: str) -> None:
        self.problems.append(Problem((*self.at, *path), code, message))

    def symbol_ref(self, path: Path, name: str, what: str) -> bool:
        if name in self.symbol_ids:
            return True
        self.add(
            path,
            "unknown-id",
            f'"{name}" is not a symbol of this pool; {what} names one of its symbols.'
            f"{did_you_mean(name, self.symbol_ids)}",
        )
        return False

    def die_ref(self, path: Path, name: str) -> bool:
        if name in self.die_ids:
            return True
        self.add(
            path,
            "unknown-id",
            f'"{name}" is not a die of this pool.{did_you_mean(name, self.die_ids)}',
        )
        return False

    def symbols(self) -> tuple[SymbolRule, ...] | None:
        raw = self.block["symbols"]
        counts = {str(s["id"]): s.get("counts") for s in raw}
        partners: dict[str, tuple[str, int]] = {}  # symbol -> (partner, where declared)
        ok = True
        for i, s in enumerate(raw):
            sid = str(s["id"])
            target = s.get("counts")
            if target is not None:
                if target == sid:
                    ok = False
                    self.add(
                        ("symbols", i, "counts"),
                        "counts-itself",
                        f'"{sid}" counts as itself; counts names another symbol that one '
                        f'"{sid}" also adds.',
                    )
                elif not self.symbol_ref(("symbols", i, "counts"), target, "counts"):
                    ok = False
                elif counts.get(target) is not None:
                    ok = False
                    self.add(
                        ("symbols", i, "counts"),
                        "counts-chain",
                        f'"{target}" counts as "{counts[target]}" itself, so counting "{sid}" '
                        "as it would chain; counts names a symbol without its own counts.",
                    )
            other = s.get("cancels")
            if other is None:
                continue
            if other == sid:
                ok = False
                self.add(
                    ("symbols", i, "cancels"),
                    "cancels-itself",
                    f'"{sid}" cannot cancel itself; cancels pairs two different symbols.',
                )
                continue
            if not self.symbol_ref(("symbols", i, "cancels"), other, "cancels"):
                ok = False
                continue
            for one, two in ((sid, other), (other, sid)):
                held = partners.get(one)
                if held is None:
                    partners[one] = (two, i)
                elif held[0] != two:
                    ok = False
                    self.add(
                        ("symbols", i, "cancels"),
                        "two-partners",
                        f'"{one}" already cancels against "{held[0]}" (symbol {held[1]}); each '
                        "symbol has at most one partner.",
                    )
        if not ok:
            return None
        return tuple(
            SymbolRule(
                id=str(s["id"]),
                label=str(s["label"]),
                counts=s.get("counts"),
                partner=partners.get(str(s["id"]), (None, 0))[0],
                text=s.get("text"),
            )
            for s in raw
        )

    def dice(self) -> tuple[SymbolDie, ...] | None:
        ok = True
        names: dict[str, tuple[int, str]] = {}
        for i, d in enumerate(self.block["dice"]):
            for j, face in enumerate(d["faces"]):
                for k, sid in enumerate(face):
                    if not self.symbol_ref(("dice", i, "faces", j, k), str(sid), "a face"):
                        ok = False
            for key in ("id", "label"):
                name = normalize(str(d[key]))
                held = names.get(name)
                if held is not None and held[0] != i:
                    ok = False
                    self.add(
                        ("dice", i, key),
                        "ambiguous-die-name",
                        f"{describe(d[key])} is also the {held[1]} of die {held[0]}; dice are "
                        "thrown by name, so every die needs its own id and label.",
                    )
                else:
                    names.setdefault(name, (i, key))
        if not ok:
            return None
        return tuple(
            SymbolDie(
                str(d["id"]),
                str(d["label"]),
                tuple(tuple(str(s) for s in face) for face in d["faces"]),
            )
            for d in self.block["dice"]
        )

    def slot(self, key: str, default_max: int) -> DieSlot | None:
        raw = self.block[key]
        ok = self.die_ref((key, "die"), str(raw["die"]))
        upgrade = raw.get("upgrade")
        if upgrade is not None:
            if not self.die_ref((key, "upgrade"), str(upgrade)):
                ok = False
            elif upgrade == raw["die"]:
                ok = False
                self.add(
                    (key, "upgrade"),
                    "upgrade-same-die",
                    f'"{upgrade}" is the die it would upgrade, so an upgrade could never change '
                    "a roll; name another die or leave upgrade out.",
                )
        if not ok:
            return None
        return DieSlot(str(raw["die"]), upgrade, int(raw.get("max", default_max)))

    def extra(self, key: str) -> ExtraDice | None:
        raw = self.block.get(key)
        if raw is None or not self.die_ref((key, "die"), str(raw["die"])):
            return None
        return ExtraDice(str(raw["die"]), int(raw.get("max", 3)))


def _most_lead(config: SymbolConfig) -> int:
    """The most net successes one check can count: every die a check may throw at its
    best face, as many as each slot allows."""

    def best(*die_ids: str | None) -> int:
        leads = [e.lead for d in die_ids if d is not None for e in config.effects[d]]
        return max([0, *leads])

    most = config.pool.max * best(config.pool.die, config.pool.upgrade)
    most += config.difficulty.max * best(config.difficulty.die, config.difficulty.upgrade)
    for extra in (config.boost, config.setback):
        if extra is not None:
            most += extra.max * best(extra.die)
    return most


class _SymbolBands(BandRules):
    """Bands read net successes past those needed, plus one; the critical symbols never
    move a band."""

    def margin(self, total: int, dc: int, against: Against) -> int:
        return total - dc + 1

    def on_refused(self, on: str) -> str | None:
        return (
            "a symbol pool's critical symbols never move a band, so a band cannot "
            f"be on {describe(on)}; read every band from the number."
        )


BANDS = _SymbolBands()


class SymbolPoolKind(KindCompiler):
    """The compile half of symbol-pool (the play half is ``PLAYER``)."""

    name = "symbol-pool"
    keys: Mapping[str, Node] = _KEYS
    bands = BANDS
    override_locks = ("symbols", "dice")
    required: tuple[str, ...] = (
        "symbols",
        "dice",
        "pool",
        "difficulty",
        "success",
        "difficultyLadder",
    )

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def refused_fights(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        """The page: a symbol pool's fights are a symbol-pool fight (1.382), which
        dicebound accepts and keeps; any other combat kind is refused beside it."""
        combat = raw.get("combat")
        if isinstance(combat, dict):
            fight = combat.get("kind")
            if fight != self.name:
                yield Problem(
                    ("combat", "kind"),
                    "combat-not-allowed",
                    f"{describe(fight)} is not a fight a symbol-pool ruleset can have; its "
                    'fights are "symbol-pool" fights.',
                )

    def override_lock_sentence(self, key: str) -> str | None:
        if key in self.override_locks:
            return f'"{key}" is locked on a symbol pool: an override cannot replace its {key}.'
        return None

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[SymbolConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        c = _Checker(block, ctx.path)
        symbols = c.symbols()
        dice = c.dice()
        pool = c.slot("pool", 6)
        difficulty = c.slot("difficulty", 5)
        boost = c.extra("boost")
        setback = c.extra("setback")
        success = block["success"]
        success_ok = c.symbol_ref(("success", "symbol"), str(success["symbol"]), "success")
        marks: dict[str, str | None] = {}
        for key in ("criticalSuccess", "criticalFailure"):
            name = block.get(key)
            if name is not None and not c.symbol_ref((key,), str(name), key):
                name = None
            marks[key] = name
        allow = bool(block.get("allowOwnUpgrade", False))
        if allow and "upgrade" not in block["pool"]:
            c.add(
                ("allowOwnUpgrade",),
                "needs-upgrade",
                "allowOwnUpgrade upgrades the roller's own dice to pool.upgrade, and pool "
                "declares no upgrade; add pool.upgrade or leave allowOwnUpgrade out.",
            )
        if difficulty is not None:
            for i, step in enumerate(block["difficultyLadder"]):
                if int(step["dc"]) > difficulty.max:
                    c.add(
                        ("difficultyLadder", i, "dc"),
                        "dc-out-of-range",
                        f"{step['dc']} is more opposing dice than difficulty.max "
                        f"{difficulty.max}; a step's dc counts difficulty dice from 0 to "
                        f"{difficulty.max}.",
                    )
        spends = compile_spends(block.get("spend", ()), ctx.path, ctx.sheet, c.problems)
        if c.problems or symbols is None or dice is None or pool is None or difficulty is None:
            return None, c.problems
        assert success_ok
        config = SymbolConfig(
            symbols=symbols,
            dice=dice,
            pool=pool,
            difficulty=difficulty,
            success=str(success["symbol"]),
            needed=int(success.get("needed", 1)),
            build=block["pool"].get("build", "larger-upgraded"),
            boost=boost,
            setback=setback,
            critical_success=marks["criticalSuccess"],
            critical_failure=marks["criticalFailure"],
            allow_own_upgrade=allow,
            spend=spends,
            banded="outcomes" in block,
        )
        most = _most_lead(config)
        if most == 0:
            c.add(
                ("success", "symbol"),
                "never-succeeds",
                f'no face of the dice a check throws counts "{config.success}" past its '
                "cancelling partner, so no check could ever succeed.",
            )
        elif config.needed > most:
            c.add(
                ("success", "needed"),
                "never-succeeds",
                f"{config.needed} is more than the {most} net successes one check can count, "
                "so no check could ever succeed.",
            )
        for key, sid in (
            ("criticalSuccess", config.critical_success),
            ("criticalFailure", config.critical_failure),
        ):
            if sid is not None and not any(sid in face for d in config.dice for face in d.faces):
                c.add(
                    (key,),
                    "never-fires",
                    f'no face of any die shows "{sid}", so it could never be marked.',
                )
        if c.problems:
            return None, c.problems
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        at: Path = ("resolution",)
        yield "1.141", (*at, "kind"), "the symbol-pool kind"
        if "allowOwnUpgrade" in block:
            yield "1.150", (*at, "allowOwnUpgrade"), "allowOwnUpgrade"


KIND = SymbolPoolKind()


# -- play: from a tag's ask to a prepared check ----------------------------------------


def _opposing(config: SymbolConfig, ask: CheckAsk) -> int:
    """``dc=`` wins (held to 0..difficulty.max), else the ``difficulty=`` step's."""
    top = config.difficulty.max
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, 0, top)
    step = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
    if step is not None and step.dc is not None:
        return clamp(step.dc, 0, top)
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(
        f"the tag names no difficulty: write dc=N (opposing dice) or difficulty= one of {labels}."
    )


def _harder(dc: int, ladder: Sequence[LadderStep], top: int) -> int:
    """One step harder: the next ladder step above ``dc`` (unchanged at the top)."""
    return min(next_step_dc(dc, ladder), max(top, dc))


def _asked_count(attrs: Mapping[str, str], key: str) -> int:
    """A nonnegative count a tag asks for (``upgrade``, ``setback``, ``upgradeOwn``);
    anything else reads as 0 (ignored)."""
    value = written_int(attrs, key)
    return value if value is not None and value > 0 else 0


class SymbolPoolPlayer(KindPlayer[SymbolConfig, SymbolCheck, SymbolOutcome]):
    """The play half of symbol-pool: ability and rank build the pool, the difficulty
    the opposing dice, and signed adjustments add boost or setback dice."""

    bands = BANDS
    plain_marks = True
    dc_words = "difficulty dice"

    def prepare(self, config: SymbolConfig, ask: CheckAsk) -> Prepared:
        view, attrs = ask.view, ask.attrs
        with_id = ask.with_ability if ask.group != "ability" else None
        number = view.check_number(ask.group, ask.item_id, with_id)
        ability = max(0, math.floor(number.ability_mod))
        rank = max(0, number.tier_bonus) if ask.group != "ability" else 0
        if config.build == "sum":
            sheet_dice, sheet_up = ability + rank, 0
        else:
            sheet_dice = max(ability, rank)
            sheet_up = min(ability, rank) if config.pool.upgrade is not None else 0
        if number.cap is not None:  # the dice the sheet builds, as a pool's number is held
            sheet_dice = min(sheet_dice, max(0, number.cap))
            sheet_up = min(sheet_up, sheet_dice)
        top = config.pool.max
        size = min(sheet_dice, top)
        upgraded = min(sheet_up, size)

        purchase = buy(config.spend, parse_spend(attrs.get("spend")), view, sheet_number=sheet_dice)
        if purchase is not None:
            with_bought = min(size + purchase.dice, top)
            if with_bought == size:  # no room within pool.max: nothing bought or paid
                purchase = None
            size = with_bought

        own = 0
        if config.allow_own_upgrade and config.pool.upgrade is not None:
            asked = _asked_count(attrs, "upgradeown")
            convert = min(asked, size - upgraded)
            added = min(asked - convert, top - size)
            upgraded += convert + added
            size += added
            own = convert + added

        penalty = view.penalty()
        adjust = view.adjust_for(number.abilities)
        sheet_bonus = number.bonus + number.untrained_by if ask.group != "ability" else 0
        tag_bonus = written_int(attrs, "bonus") or 0
        boost_top = config.boost.max if config.boost is not None else 0
        setback_top = config.setback.max if config.setback is not None else 0
        signed = tag_bonus + sheet_bonus + penalty + adjust
        boost = clamp(signed, 0, boost_top)
        shared_setback = clamp(-signed, 0, setback_top)
        setback = min(shared_setback + _asked_count(attrs, "setback"), setback_top)
        shown_bonus = clamp(tag_bonus, -setback_top, boost_top)

        opposing = _opposing(config, ask)
        harder = number.untrained and number.untrained_rule == "harder"
        if harder:
            opposing = _harder(opposing, ask.ladder, config.difficulty.max)
        up = 0
        if config.difficulty.upgrade is not None:
            up = min(_asked_count(attrs, "upgrade"), opposing)

        thrown: list[str] = [config.pool.die] * (size - upgraded)
        if config.pool.upgrade is not None:
            thrown += [config.pool.upgrade] * upgraded
        if config.boost is not None:
            thrown += [config.boost.die] * boost
        vs_at = len(thrown)
        thrown += [config.difficulty.die] * (opposing - up)
        if config.difficulty.upgrade is not None:
            thrown += [config.difficulty.upgrade] * up
        if config.setback is not None:
            thrown += [config.setback.die] * setback
        check = SymbolCheck(config, tuple(thrown), config.needed, vs_at)

        extras = sheet_extras(view, number, penalty, adjust)
        if shown_bonus:
            extras.append(("bonus", shown_bonus))
        costs: tuple[tuple[str, int], ...] = ()
        if purchase is not None:
            costs = ((purchase.pool, purchase.paid),)
            extras.append(("spend", f"{purchase.pool}:{purchase.paid}"))
        if up:
            extras.append(("upgrade", up))
        if setback > shared_setback:
            extras.append(("setback", setback - shared_setback))
        if own:
            extras.append(("upgradeOwn", own))
        success_label = config.symbol(config.success).label
        summary = f"{dice_text(check.thrown, vs_at)}, needing {config.needed} {success_label}"
        return Prepared(check, config.needed, tuple(extras), summary, costs)

    def roll(self, check: SymbolCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: SymbolCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order: never decided by a face."""
        config = check.config
        return tuple(config.die(die_id).sides for die_id in check.thrown)

    def distribution(self, check: SymbolCheck) -> Dist[SymbolOutcome]:
        return distribution(check)

    def margin(self, check: SymbolCheck, outcome: SymbolOutcome) -> int:
        """Net successes minus those needed, plus one (the page)."""
        return outcome.total - check.needed + 1

    def critical_marks(self, outcome: SymbolOutcome) -> Marks:
        return outcome.critical_marks

    def thrower(self, ruleset: Ruleset) -> DiceThrower:
        from dicebound.kinds.symbol_pool_throw import Thrower, _config

        _config(ruleset)
        return Thrower(ruleset)

    # -- words --------------------------------------------------------------------------

    def step_words(self, step: LadderStep) -> str:
        noun = "difficulty die" if step.dc == 1 else "difficulty dice"
        return f"{step.dc} {noun}"

    def ladder_words(self, step: LadderStep) -> str:
        return f"{step.label}: {step.dc} difficulty dice"

    def attribute_lines(self, ruleset: Ruleset, config: SymbolConfig) -> list[str]:
        lines = []
        if config.boost is not None or config.setback is not None:
            lines.append('bonus="+N" or "-N": boost or setback dice for the situation.')
        if config.setback is not None:
            lines.append('setback="N": setback dice beside a bonus.')
        if config.difficulty.upgrade is not None:
            lines.append('upgrade="N": upgrade that many difficulty dice.')
        if config.allow_own_upgrade:
            lines.append('upgradeOwn="N": upgrade that many of the character\'s own dice.')
        return lines

    def spends(self, config: SymbolConfig) -> Sequence[Spend]:
        return config.spend

    def mark_texts(self, config: SymbolConfig) -> list[str]:
        return [f"- {symbol.label}: {symbol.text}" for symbol in config.symbols if symbol.text]

    def card_words(self, record: Record) -> str | None:
        """The net symbols in words ("2 Success, 1 Advantage"), with the labels the
        record's ``symbolDetails`` keeps; None when the details cannot be read."""
        try:
            return symbols_in_words(record.get("symbols") or "", record.get("symbolDetails"))
        except DiceboundError:
            return None


PLAYER = SymbolPoolPlayer()
