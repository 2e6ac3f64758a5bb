"""Exact odds of a check: the probability of every outcome, as fractions, never sampled.

The kind gives the exact distribution of the same prepared check that ``check``
throws (the kind's arithmetic is shared by its roller and its distribution), and the
outcomes are read from it the way the record reads them.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any, NamedTuple

from dicebound.bands import Against, BandRules, Bands, By, Group, group_of, landing
from dicebound.dist import Dist, blank_fraction, ratio, ratios
from dicebound.engine import (
    Critical,
    PreparedCheck,
    PreparedSkill,
    ladder_in_force,
    pool_named,
    prepare_question,
    prepare_skill,
    read_outcome,
)
from dicebound.errors import TagError, UsageError
from dicebound.kinds.base import KindPlayer
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.tags.parse import TagMatch, attrs_match, check_attrs, parse_check
from dicebound.values import new_tuple

__all__ = [
    "READERS_KEY",
    "TABLES_KEY",
    "VIEWS_KEY",
    "CheckOdds",
    "OutcomeOdds",
    "check_odds",
    "fold",
    "fraction_text",
    "read_weights",
]

_PLAIN: tuple[tuple[str, bool, Critical], ...] = (
    ("Critical success", True, "success"),
    ("Success", True, None),
    ("Failure", False, None),
    ("Critical failure", False, "failure"),
)
"""The plain outcomes (no bands), best first: label, success and critical."""


def fraction_text(p: Fraction) -> str:
    """An exact fraction as ``"num/den"``, or the whole number alone."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


class OutcomeOdds(NamedTuple):
    """One outcome a check can land in and its exact chance. A named tuple: the odds
    make one per band of every question, and it is the cheapest immutable value."""

    label: str
    success: bool
    critical: Critical
    probability: Fraction


class CheckOdds(NamedTuple):
    """Every outcome a check can land in, best first, and the chance it succeeds. A
    named tuple, as ``OutcomeOdds`` is."""

    title: str
    outcomes: tuple[OutcomeOdds, ...]
    success: Fraction

    def to_json(self) -> dict[str, object]:
        """What ``dicebound odds --json`` prints: every probability an exact fraction
        ``"num/den"`` (a whole number written alone)."""
        outcomes = [
            {
                "label": o.label,
                "success": o.success,
                "critical": o.critical,
                "probability": fraction_text(o.probability),
            }
            for o in self.outcomes
        ]
        return {"outcomes": outcomes, "success": fraction_text(self.success)}


def fold(dist: Dist[Any], player: KindPlayer[Any, Any, Any], naturals: bool = True) -> list[Group]:
    """A distribution's outcomes grouped by what a band reading reads besides the total
    (the criticals, and the natural face as ``player`` reads it where the bands read
    one: ``naturals``), each group's totals ascending."""
    natural = player.natural
    by_marks: dict[tuple[bool, bool, object], tuple[dict[int, int], dict[int, Any]]] = {}
    for outcome, weight in dist.items():
        marks = (
            outcome.critical_success,
            outcome.critical_failure,
            natural(outcome) if naturals else None,
        )
        seen = by_marks.get(marks)
        if seen is None:
            seen = by_marks[marks] = ({}, {})
        weights, examples = seen
        total = outcome.total
        weights[total] = weights.get(total, 0) + weight
        examples.setdefault(total, outcome)
    return [
        group_of(weights.items(), examples.__getitem__) for weights, examples in by_marks.values()
    ]


class _Reader:
    """A check's distribution folded for the ruleset's bands (``fold``, or the kind's
    ``folded``), ready to be read at any dc: what its critical groups land in, whatever
    the dc, counted once, and for every other group its totals, running weights, shift
    and where each number band it reaches lands by its natural (``Bands.number_at``).

    The number a band reads (``band_value``) moves one way only as the total grows (up
    for a margin or a total, down for an at-most roll-against margin or fraction), so
    "reaches this band's ``atLeast``" holds on one end of the sorted totals: the kind's
    band rules say where that end begins (``BandRules.edges``), or a bisection over
    the totals finds it, and the bands' ``atLeast`` decreasing nest those ends. A group
    reads alike but for its total, so the band of each stretch is the number band it
    reaches, moved by the group's natural or caught as its critical (``band_at``, as
    ``read_outcome`` reads one outcome); a critical group is read once, whatever its
    total, and so is a group whose edges stay where they are whatever the dc (bands by
    total). What is left for a question is a bisection per edge of each group whose
    edges move with the dc (``moving``), or, without edges, per band by its number
    (``numbered``); nothing is made per total when it is made (a group may hold
    thousands).

    Made with a ``base`` (the ``odds_shift`` of the check folded), it is read at any
    shift (``read``'s): each group is held moved back by ``base``, and every edge is
    bisected at the question, so a check whose totals are another's moved (a character
    of another number) reads the same groups.
    """

    __slots__ = (
        "against",
        "bands",
        "find",
        "fixed",
        "moves",
        "moving",
        "numbered",
        "rising",
        "rules",
    )

    def __init__(
        self,
        bands: Bands,
        player: KindPlayer[Any, Any, Any],
        groups: Sequence[Group],
        against: Against,
        edges: tuple[tuple[int, ...], bool, bool] | None,
        base: int | None = None,
    ) -> None:
        self.bands, self.rules, self.against = bands, player.bands, against
        fixed = [0] * len(bands.shown)
        moving: list[
            tuple[Sequence[int], Sequence[int], tuple[tuple[int, int], ...], int, int]
        ] = []
        numbered: list[tuple[Sequence[int], Sequence[int], int, tuple[int, ...], int]] = []
        offsets, rising, moves = edges if edges is not None else ((), True, False)
        find = self.find = bisect_left if rising else bisect_right
        self.rising, self.moves = rising, moves
        read_moved = base is not None  # read at other shifts: no edge stays put
        back = base or 0
        critical_at, number_at, last = bands.critical_at, bands.number_at, len(bands.cuts)
        for totals, running, outcome, shift, marks in groups:
            if marks is None:
                first = outcome(totals[0] + shift)
                marks = first.critical_success, first.critical_failure, player.natural(first)
            critical_success, critical_failure, natural = marks
            every = running[-1]
            if critical_success or critical_failure:
                if critical_success and critical_failure:  # landing refuses it, as one outcome
                    landing(bands, 0, critical_success, critical_failure, natural)
                fixed[critical_at[0] if critical_success else critical_at[1]] += every
                continue
            at = number_at[natural]
            shift -= back
            if edges is None:  # no edge says it (a fraction): bisected by the band number
                numbered.append((totals, running, shift, at, every))
                continue
            # each edge less the group's shift, the dc added at the question if it moves
            steps = tuple(zip(at, (offset - shift for offset in offsets), strict=False))
            if moves or read_moved:
                moving.append((totals, running, steps, at[last], every))
                continue
            before = 0  # edges that stay put: this group reads alike at every dc
            for band, limit in steps:
                end = find(totals, limit)
                upto = every - running[end] if rising else running[end]
                fixed[band] += upto - before
                before = upto
            fixed[at[last]] += every - before
        self.fixed = fixed
        self.moving = moving
        self.numbered = numbered

    def read(self, dc: int, shift: int = 0) -> list[int]:
        """Each band's weight at ``dc``, every total moved by ``shift`` past the groups'
        own (a reader made with a ``base``), in the order the odds list them
        (``shown``)."""
        out = self.fixed.copy()
        find, rising = self.find, self.rising
        moved = (dc if self.moves else 0) - shift  # where each edge lies, group shift aside
        for totals, running, steps, last, every in self.moving:
            # band i holds the totals reaching edge i but not edge i-1, the last band
            # the rest: ``upto`` is the weight reaching edge i, ``before`` edge i-1's;
            # ``end`` is where the totals reaching it begin (rising) or end (falling)
            before = 0
            for band, limit in steps:
                end = find(totals, moved + limit)
                upto = every - running[end] if rising else running[end]
                out[band] += upto - before
                before = upto
            out[last] += every - before
        if self.numbered:
            self._read_numbers(dc, shift, out)
        return out

    def _read_numbers(self, dc: int, read_at: int, out: list[int]) -> None:
        """Add to ``out`` each band's weight of the groups read by their band number (no
        edge says where a band begins), bisected by the number itself, every total
        moved by its group's shift and ``read_at`` (``read``'s shift)."""
        bands, rules, against = self.bands, self.rules, self.against
        by, cuts, last = bands.by, bands.cuts, len(bands.cuts)
        for totals, running, own, at, every in self.numbered:
            shift = own + read_at
            before = 0
            low = rules.value(by, totals[0] + shift, dc, against)
            rising = rules.value(by, totals[-1] + shift, dc, against) >= low
            for band, cut in zip(at, cuts, strict=False):
                reaches = partial(_reaches, rules, by, dc, against, cut, rising, shift)
                end = bisect_left(totals, True, key=reaches)
                upto = every - running[end] if rising else running[end]
                out[band] += upto - before
                before = upto
            out[at[last]] += every - before


def _band_weights(
    bands: Bands,
    player: KindPlayer[Any, Any, Any],
    against: Against,
    dc: int,
    groups: Sequence[Group],
) -> list[int]:
    """Each band's weight, in the order the odds list them (``Bands.shown``), read by
    thresholds over each group's sorted totals (``_Reader``)."""
    edges = player.bands.edges(bands.by, bands.cuts, against)
    return _Reader(bands, player, groups, against, edges).read(dc)


def _reaches(
    rules: BandRules,
    by: By,
    dc: int,
    against: Against,
    cut: int,
    rising: bool,
    shift: int,
    total: int,
) -> bool:
    """Whether a total's band number reaches ``cut`` (negated where the number falls as
    the total grows, so a bisection finds the edge either way)."""
    return (rules.value(by, total + shift, dc, against) >= cut) is rising


def _plain_weights(ruleset: Ruleset, prepared: PreparedCheck, dist: Dist[Any]) -> dict[str, int]:
    """Each plain outcome's weight (no bands): outcomes that read alike are summed, and
    one of each is read by ``read_outcome``."""
    folded: dict[tuple[object, ...], list[Any]] = {}
    critical_marks = prepared.player.critical_marks
    for outcome, weight in dist.items():
        marks = critical_marks(outcome)
        key = (outcome.success, outcome.critical_success, outcome.critical_failure, marks)
        seen = folded.get(key)
        if seen is None:
            folded[key] = [outcome, weight]
        else:
            seen[1] += weight
    out: dict[str, int] = {}
    for outcome, weight in folded.values():
        reading = read_outcome(ruleset, prepared, outcome)
        label = reading.band_id or reading.label
        out[label] = out.get(label, 0) + weight
    return out


def _plain_split(
    ruleset: Ruleset, prepared: PreparedCheck, groups: Sequence[Group]
) -> dict[str, int]:
    """Each plain outcome's weight (no bands), read from the distribution folded: a
    group reads alike but for its success, which holds on one end of its totals, so a
    bisection splits it where success turns, and one outcome of each side is read by
    ``read_outcome``."""
    out: dict[str, int] = {}

    def add(outcome: Any, weight: int) -> None:
        reading = read_outcome(ruleset, prepared, outcome)
        key = reading.band_id or reading.label
        out[key] = out.get(key, 0) + weight

    for totals, running, outcome, shift, _ in groups:
        low = outcome(totals[0] + shift)
        high = outcome(totals[-1] + shift)
        if low.success == high.success:
            add(low, running[-1])
            continue
        # the totals on the low side of the turn read as ``low``, the rest as ``high``
        turn = bisect_left(totals, True, key=partial(_turned, outcome, shift, low.success))
        add(low, running[turn])
        add(high, running[-1] - running[turn])
    return out


def _turned(outcome: Any, shift: int, low: bool, total: int) -> bool:
    """Whether a total's outcome is past the turn: its success is not the low end's."""
    return bool(outcome(total + shift).success) is not low


def read_weights(
    ruleset: Ruleset,
    prepared: PreparedCheck,
    dist: Dist[Any] | None,
    groups: Sequence[Group] | None = None,
) -> dict[str, int]:
    """The whole-number weight of each band (or plain outcome) a check lands in, keyed as
    ``read_outcome`` names it (the band id, else the label). ``groups`` (the
    distribution folded, as ``fold`` or a kind's ``folded`` gives it) may stand for
    ``dist``; with neither, the check's own distribution is read."""
    bands: Bands | None = ruleset.resolution.outcomes
    if dist is None and groups is None:
        dist = prepared.player.distribution(prepared.prepared.check)
    if bands is not None:
        if groups is None:
            assert dist is not None
            groups = fold(dist, prepared.player)
        player = prepared.player
        config = prepared.override.config if prepared.override else ruleset.resolution.config
        numbers = _band_weights(bands, player, player.against(config), prepared.dc, groups)
        return {row[0]: w for row, w in zip(bands.shown, numbers, strict=True) if w}
    if groups is not None:
        return _plain_split(ruleset, prepared, groups)
    assert dist is not None
    return _plain_weights(ruleset, prepared, dist)


def _never(bands: Bands) -> tuple[OutcomeOdds, ...]:
    """Each band as an outcome a check never lands in (its chance nought), best first:
    the same for every check of these bands."""
    nought = ratio(0, 1)
    return tuple(
        new_tuple(OutcomeOdds, (label, success, critical, nought))
        for _, label, success, critical in bands.shown
    )


def _rows(bands: Bands) -> tuple[tuple[str, bool, Critical], ...]:
    """Each band's label, success and critical, best first (``Bands.shown`` without its
    id): what an outcome of it says besides its chance."""
    return tuple((label, success, critical) for _, label, success, critical in bands.shown)


def _band_outcomes(
    rows: Sequence[tuple[str, bool, Critical]],
    numbers: Sequence[int],
    never: Sequence[OutcomeOdds],
) -> tuple[tuple[OutcomeOdds, ...], Fraction]:
    """Every band best first and the chance of success, from each band's row (``_rows``)
    and weight in that order (``_Reader.read``), in one pass (the odds make one of these
    per question); a band the check never lands in is its outcome in ``never``
    (``_never``). Each chance is ``ratio``'s, made without a call."""
    every = sum(numbers)
    blank, gcd = blank_fraction, math.gcd
    if blank is None:  # pragma: no cover - another Python's Fraction
        chances = ratios(numbers, every)
        made = (new_tuple(OutcomeOdds, (*row, c)) for row, c in zip(rows, chances, strict=True))
        won = sum(w for w, (_, success, _) in zip(numbers, rows, strict=True) if success)
        return tuple(made), ratio(won, every)
    outcomes: list[OutcomeOdds] = []
    add = outcomes.append
    won = 0
    for i, (label, success, critical) in enumerate(rows):  # quicker than a zip of three
        weight = numbers[i]
        if weight:
            if success:
                won += weight
            g = gcd(weight, every)
            chance = blank()
            chance._numerator, chance._denominator = weight // g, every // g
            add(new_tuple(OutcomeOdds, (label, success, critical, chance)))
        else:
            add(never[i])
    g = gcd(won, every)
    success_chance = blank()
    success_chance._numerator, success_chance._denominator = won // g, every // g
    return tuple(outcomes), success_chance


def _outcomes(
    ruleset: Ruleset, weights: Mapping[str, int]
) -> tuple[tuple[OutcomeOdds, ...], Fraction]:
    """The bands (or plain outcomes) best first and the chance of success, from the
    weight of each as ``read_weights`` keys it."""
    bands: Bands | None = ruleset.resolution.outcomes
    get = weights.get
    if bands is not None:
        weighed = [get(row[0], 0) for row in bands.shown]
        return _band_outcomes(_rows(bands), weighed, _never(bands))
    shown: list[tuple[str, bool, Critical]] = []
    numbers: list[int] = []
    won = 0
    for plain in _PLAIN:
        w = get(plain[0], 0)
        if w == 0 and plain[2] is not None:
            continue  # a critical this check can never reach is not an outcome of it
        if plain[1]:
            won += w
        shown.append(plain)
        numbers.append(w)
    numbers.append(won)
    chances = ratios(numbers, sum(weights.values()))
    outcomes = [
        new_tuple(OutcomeOdds, (label, success, critical, chance))
        for (label, success, critical), chance in zip(shown, chances, strict=False)
    ]
    return tuple(outcomes), chances[-1]


_MEMO_SIZE = 4096

TABLES_KEY = "odds tables"
"""Where ``Ruleset.memo`` keeps what the kinds work out of the ruleset's dice alone (a
table of them, the same for every check that throws those dice, whoever asks)."""

VIEWS_KEY = "odds views"
"""Where ``Ruleset.memo`` keeps each character's sheet numbers and the skills of its
checks (what the names of a check decide, before the question), by the character."""

_TABLES_KEPT = 1024  # tables on one ruleset; past it they are let go and worked again
_VIEWS_KEPT = 256  # characters whose sheet numbers one ruleset keeps


def _tables(ruleset: Ruleset) -> dict[Hashable, Any]:
    """The ruleset's tables of its dice (``KindPlayer.folded``), kept on its memo."""
    tables: dict[Hashable, Any] | None = ruleset.memo.get(TABLES_KEY)
    if tables is None or len(tables) >= _TABLES_KEPT:
        tables = ruleset.memo[TABLES_KEY] = {}
    return tables


class _ConfigOdds:
    """What the odds keep of one config of the ruleset (its own, or an override's), the
    same whoever throws: which side of its number the kind's bands read a roll from
    (``KindPlayer.against``), the bands' edges and rows, and its checks' folded
    distributions by the kind's ``odds_key``, each folded once and read at every dc by
    every character whose checks share its key."""

    __slots__ = ("against", "config", "edges", "never", "player", "readers", "rows")

    def __init__(self, player: KindPlayer[Any, Any, Any], config: Any, bands: Bands | None):
        self.config = config  # held: no other value takes its id while it is kept
        self.player = player
        self.against: Against = player.against(config)
        self.edges: tuple[tuple[int, ...], bool, bool] | None = None
        self.never: tuple[OutcomeOdds, ...] = ()
        self.rows: tuple[tuple[str, bool, Critical], ...] = ()
        if bands is not None:
            self.edges = player.bands.edges(bands.by, bands.cuts, self.against)
            self.never = _never(bands)
            self.rows = _rows(bands)
        self.readers: dict[Hashable, _Reader] = {}

    def reader(self, ruleset: Ruleset, bands: Bands, check: Any, shift: int | None) -> _Reader:
        """The check's distribution folded for the bands, folded afresh (``readers``
        holds those kept), ``shift`` its ``odds_shift``: kept by its ``odds_key`` where
        the kind gives one and every group carries its marks."""
        player = self.player
        key = player.odds_key(check)
        tables = _tables(ruleset)
        groups = player.folded(check, tables, bands.shift)
        if groups is None:
            groups = fold(player.odds_distribution(check, tables), player, bands.shift)
        reader = _Reader(bands, player, groups, self.against, self.edges, shift)
        if key is not None and all(g.marks is not None for g in groups):
            if len(self.readers) >= _READERS_KEPT:
                self.readers.clear()
            self.readers[key] = reader
        return reader


_READERS_KEPT = 256  # folded distributions one config keeps; past it they are let go
_CONFIGS_KEPT = 256  # configs (the ruleset's, its overrides') whose odds one ruleset keeps

READERS_KEY = "odds readers"
"""Where ``Ruleset.memo`` keeps what the odds work out of a config and the bands alone
(``_ConfigOdds``: its checks' folded distributions, each read at every dc), by the
config, for every character."""


def _config_odds(ruleset: Ruleset, player: KindPlayer[Any, Any, Any], config: Any) -> _ConfigOdds:
    """What the ruleset's memo keeps of ``config`` (``READERS_KEY``)."""
    kept_all: dict[int, _ConfigOdds] | None = ruleset.memo.get(READERS_KEY)
    if kept_all is None or len(kept_all) >= _CONFIGS_KEPT:
        kept_all = ruleset.memo[READERS_KEY] = {}
    kept = kept_all.get(id(config))
    if kept is None or kept.config is not config:
        kept = kept_all[id(config)] = _ConfigOdds(player, config, ruleset.resolution.outcomes)
    return kept


class _Skill:
    """A check's skill as the odds keep it (``prepare_skill``), with the start of the
    odds' title and what they keep of its config (``_ConfigOdds``)."""

    __slots__ = ("odds", "skill", "title")

    def __init__(self, ruleset: Ruleset, skill: PreparedSkill) -> None:
        self.skill = skill
        self.title = f"{skill.target.label} for {skill.who.name}: "
        self.odds = _config_odds(ruleset, skill.player, skill.config)


class _Kept:
    """What the odds keep of one character under a ruleset: the character (held, so no
    other value takes its id), its sheet numbers (shared by every view of it), and each
    check's skill by the names written for it (``skill=``, or with ``who=`` or
    ``with=`` the three of them)."""

    __slots__ = ("character", "numbers", "skills")

    def __init__(self, character: Character) -> None:
        self.character = character
        self.numbers: dict[Any, Any] = {}
        self.skills: dict[str | tuple[str | None, ...] | None, _Skill] = {}


_SKILLS_KEPT = 256  # skills one character keeps; past it they are let go and read again


def _kept(ruleset: Ruleset, character: Character) -> _Kept:
    """What the ruleset's memo keeps of this very character (``VIEWS_KEY``)."""
    kept_all: dict[int, _Kept] | None = ruleset.memo.get(VIEWS_KEY)
    if kept_all is None or len(kept_all) >= _VIEWS_KEPT:
        kept_all = ruleset.memo[VIEWS_KEY] = {}
    kept = kept_all.get(id(character))
    if kept is None or kept.character is not character:
        kept = kept_all[id(character)] = _Kept(character)
    return kept


def check_odds(
    ruleset: Ruleset,
    character: Character,
    tag: str,
    *,
    layers: Sequence[str] = (),
    after: tuple[str, int] | None = None,
) -> CheckOdds:
    """The exact odds of the check one tag asks for (the tag may be written without its
    ``[skill_check: ...]`` wrapper). ``after`` is a spend after the roll (a pool and the
    most points): the odds when the player spends whenever it raises the outcome.

    The answer is remembered on the ruleset (its ``memo``, as prepared checks are): the
    same character value asking the same tag under the same ladder gets the very same
    ``CheckOdds`` back, at the cost of a lookup. A question not asked before reads what
    the ruleset keeps that no question decides: per character, its sheet numbers and
    the skill of each check it asked (``prepare_skill``: what the check's names decide,
    whatever the question), so a new difficulty, modifier or ladder step of it reads
    only what the question adds (``prepare_question``); per config, for every
    character, its checks' folded distributions by the kind's ``odds_key``
    (``READERS_KEY``), so a question of a key any character asked before reads only a
    dc off them; and the tables the kind keeps of its dice (``TABLES_KEY``), which the
    check's own numbers move rather than rebuild. The bands are read by thresholds
    over the distribution's sorted totals, never outcome by outcome.

    Raises:
        TagError: the tag cannot be resolved. UsageError: not exactly one tag.
    """
    ladder = ladder_in_force(ruleset, layers) if layers else ruleset.resolution.ladder
    # Remembered on the ruleset: the very same character (an immutable value, held by
    # the entry so no other can take its id) asking the same tag under the same ladder
    # has the same odds.
    key = ("odds", tag, id(character), id(ladder), after)
    hit = ruleset.memo.get(key)
    if hit is not None:
        remembered: CheckOdds = hit[2]
        return remembered
    odds = _odds(ruleset, character, tag, ladder, after)
    if len(ruleset.memo) > _MEMO_SIZE:
        ruleset.memo.clear()
    ruleset.memo[key] = (character, ladder, odds)
    return odds


def _match(tag: str) -> TagMatch:
    """The one tag ``tag`` holds.

    Raises:
        UsageError: not exactly one tag.
    """
    matches = parse_check(tag)
    if len(matches) != 1:
        raise UsageError(f"odds takes exactly one check tag, not {len(matches)}.")
    return matches[0]


def _odds(
    ruleset: Ruleset,
    character: Character,
    tag: str,
    ladder: Sequence[LadderStep],
    after: tuple[str, int] | None,
) -> CheckOdds:
    # The usual tag (one, unwrapped, every value quoted) is read without its match, which
    # only a skill asked for the first time, or an error's span, needs.
    attrs = check_attrs(tag)
    match = None
    if attrs is None:
        match = _match(tag)
        attrs = dict(match.attrs)  # the keys are lower-case already, each once
    kept_all: dict[int, _Kept] | None = ruleset.memo.get(VIEWS_KEY)
    kept = kept_all.get(id(character)) if kept_all is not None else None
    if kept is None or kept.character is not character:  # not asked of it yet
        kept = _kept(ruleset, character)
    name = attrs.get("skill")
    key: str | tuple[str | None, ...] | None = name  # the usual names: the skill's alone
    if "who" in attrs or "with" in attrs:
        key = (name, attrs.get("who"), attrs.get("with"))
    entry = kept.skills.get(key) if match is None or match.error is None else None
    view = None
    if entry is None:
        if match is None:  # the usual tag, read once: its match made of its attributes
            match = attrs_match(tag, attrs)
        view = SheetView(ruleset, character, memo=kept.numbers)  # over the shared numbers
        skill = prepare_skill(ruleset, (character,), match, attrs, view)
        entry = _Skill(ruleset, skill)
        if len(kept.skills) >= _SKILLS_KEPT:
            kept.skills.clear()
        kept.skills[key] = entry
    skill = entry.skill
    player = skill.player
    bands = ruleset.resolution.outcomes
    config_odds = entry.odds
    try:
        if after is None and bands is not None:  # the usual question: the bands of a check
            # read without the check made where the kind can (``odds_question``) and a
            # check of its key was folded before, by any character
            quick = player.odds_question(skill.config, skill.part, ruleset, attrs, ladder)
            if quick is not None:
                odds_key, dc, shift, summary = quick
                known = config_odds.readers.get(odds_key)
                if known is not None:
                    return _band_odds(entry, known.read(dc, shift), summary)
        if view is None:
            view = SheetView(ruleset, character, memo=kept.numbers)
        prepared = prepare_question(ruleset, skill, attrs, ladder, view)
    except TagError as exc:
        raise TagError(exc.message, (match or _match(tag)).span) from exc
    if after is None and bands is not None:
        check = prepared.check
        reader = config_odds.readers.get(player.odds_key(check))
        moved_by = player.odds_shift(check)
        if reader is None:
            reader = config_odds.reader(ruleset, bands, check, moved_by)
        reading = reader.read(prepared.dc, moved_by or 0)
        return _band_odds(entry, reading, prepared.summary)
    whole = PreparedCheck(skill.target, skill.who, player, prepared, skill.override)
    outcomes, success = _outcomes(ruleset, _weights(ruleset, whole, view, after))
    title = entry.title + prepared.summary
    return new_tuple(CheckOdds, (title, outcomes, success))  # type: ignore[no-any-return]


def _band_odds(entry: _Skill, numbers: Sequence[int], summary: str) -> CheckOdds:
    """The odds of a question of the skill ``entry`` from each band's weight
    (``_Reader.read``) and the question's summary (the title's end)."""
    odds = entry.odds
    outcomes, success = _band_outcomes(odds.rows, numbers, odds.never)
    return new_tuple(CheckOdds, (entry.title + summary, outcomes, success))  # type: ignore[no-any-return]


def _weights(
    ruleset: Ruleset,
    prepared: PreparedCheck,
    view: SheetView,
    after: tuple[str, int] | None,
) -> dict[str, int]:
    """``read_weights`` of a check without bands, or with a spend after the roll."""
    check = prepared.prepared.check
    player = prepared.player
    tables = _tables(ruleset)
    if after is not None and player.spends_after:
        pool_id = pool_named(ruleset, after[0])
        after_odds = player.distribution_after(check, pool_id, after[1], view)
        if after_odds is not None:
            return read_weights(ruleset, prepared, after_odds)
    bands = ruleset.resolution.outcomes
    if bands is not None:
        groups = player.folded(check, tables, bands.shift)
        if groups is None:
            groups = fold(player.odds_distribution(check, tables), player, bands.shift)
        return read_weights(ruleset, prepared, None, groups)
    groups = player.folded(check, tables, False)
    if groups is not None:
        return _plain_split(ruleset, prepared, groups)
    return _plain_weights(ruleset, prepared, player.odds_distribution(check, tables))
