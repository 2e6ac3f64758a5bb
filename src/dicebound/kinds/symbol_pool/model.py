"""symbol-pool's values (the compiled config, the prepared check, what a roll came to, how
its bands read) and the symbol arithmetic the throw and the odds share."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from dicebound.bands import Against, BandRules
from dicebound.errors import UsageError
from dicebound.ruleset.spec import describe
from dicebound.spend import Spend
from dicebound.values import field, frozen, new_tuple

if TYPE_CHECKING:
    pass


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
        known = self.config.effects  # by every die's id
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


def add_symbols(a: Effect, b: Effect) -> Effect:
    return Effect(
        a.lead + b.lead, a.marks_success or b.marks_success, a.marks_failure or b.marks_failure
    )


def outcome_of(check: SymbolCheck, effect: Effect) -> SymbolOutcome:
    """The result of the summed effect: net successes against what the check needs."""
    return outcome_at(check, *effect)


def outcome_at(
    check: SymbolCheck, lead: int, marked_success: bool, marked_failure: bool
) -> SymbolOutcome:
    """``outcome_of`` an effect given by its parts, without the effect made (the odds
    read a handful of unmarked ones per question)."""
    net = lead if lead > 0 else 0
    plain = not check.config.banded
    outcome: SymbolOutcome = new_tuple(  # total, success, the criticals, the markers
        SymbolOutcome,
        (
            net,
            net >= check.needed,
            plain and marked_success,
            plain and marked_failure,
            marked_success,
            marked_failure,
        ),
    )
    return outcome


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


class _SymbolBands(BandRules):
    """Bands read net successes past those needed, plus one; the critical symbols never
    move a band."""

    def margin(self, total: int, dc: int, against: Against) -> int:
        return total - dc + 1

    def margin_edges(
        self, cuts: Sequence[int], against: Against
    ) -> tuple[tuple[int, ...], bool, bool] | None:
        return tuple(cut - 1 for cut in cuts), True, True

    def on_refused(self, on: str) -> str | None:
        return (
            "a symbol pool's critical symbols never move a band, so a band cannot "
            f"be on {describe(on)}; read every band from the number."
        )


BANDS = _SymbolBands()
