"""Exact odds of a check: the probability of every outcome, as fractions, never sampled.

The kind gives the exact distribution of the same prepared check that ``check``
throws (the kind's arithmetic is shared by its roller and its distribution), and the
outcomes are read from it the way the record reads them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any, NamedTuple

from dicebound.bands import Against, BandRules, Bands, By, Group, group_of, landing, outcome_order
from dicebound.dist import Dist, ratios
from dicebound.engine import (
    Critical,
    PreparedCheck,
    ladder_in_force,
    pool_named,
    prepare_check,
    read_outcome,
)
from dicebound.errors import UsageError
from dicebound.kinds.base import KindPlayer
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.tags.parse import parse_check
from dicebound.values import new_tuple

__all__ = [
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


def _band_weights(
    ruleset: Ruleset, bands: Bands, prepared: PreparedCheck, groups: Sequence[Group]
) -> dict[str, int]:
    """Each band's weight, read by thresholds over each group's sorted totals.

    The number a band reads (``band_value``) moves one way only as the total grows (up
    for a margin or a total, down for an at-most roll-against margin or fraction), so
    "reaches this band's ``atLeast``" holds on one end of the sorted totals: the kind's
    band rules say where that end begins (``BandRules.reach``), or a bisection over
    the totals finds it, and the bands' ``atLeast`` decreasing nest those ends. A group
    reads alike but for its total, so the band of each stretch is the number band it
    reaches, moved by the group's natural or caught as its critical (``band_at``, as
    ``read_outcome`` reads one outcome); a critical group is read once, whatever its
    total.
    """
    player = prepared.player
    rules = player.bands
    by, dc, cuts = bands.by, prepared.dc, bands.cuts
    config = prepared.override.config if prepared.override else ruleset.resolution.config
    against: Against = player.against(config)
    reached = rules.reach(by, cuts, dc, against)
    ids, critical_ids, last = bands.number_ids, bands.critical_ids, len(cuts)
    out: dict[str, int] = {}
    get = out.get
    for totals, running, outcome, shift, marks in groups:
        if marks is None:
            first = outcome(totals[0] + shift)
            marks = first.critical_success, first.critical_failure, player.natural(first)
        critical_success, critical_failure, natural = marks
        every = running[-1]
        if critical_success or critical_failure:
            if critical_success and critical_failure:  # landing refuses it, as one outcome
                landing(bands, 0, critical_success, critical_failure, natural)
            key = critical_ids[0] if critical_success else critical_ids[1]
            out[key] = get(key, 0) + every
            continue
        # ``ends[i]``: where the totals reaching cut i begin (rising) or end (falling)
        if reached is not None:
            edges, rising = reached
            if rising:
                ends = [bisect_left(totals, edge - shift) for edge in edges]
            else:
                ends = [bisect_right(totals, edge - shift) for edge in edges]
        else:
            low = rules.value(by, totals[0] + shift, dc, against)
            high = rules.value(by, totals[-1] + shift, dc, against)
            rising = high >= low
            ends = [
                bisect_left(
                    totals, True, key=partial(_reaches, rules, by, dc, against, cut, rising, shift)
                )
                for cut in cuts
            ]
        # Band i holds the totals reaching cut i but not cut i-1, the last band the rest:
        # ``upto`` is the weight reaching cut i, ``before`` cut i-1's.
        keys = ids
        if bands.shift and natural is not None:
            keys = tuple(landing(bands, i, natural=natural)[0].id for i in range(last + 1))
        before = 0
        for i, end in enumerate(ends):
            upto = every - running[end] if rising else running[end]
            if upto != before:
                key = keys[i]
                out[key] = get(key, 0) + upto - before
                before = upto
        if every != before:
            key = keys[last]
            out[key] = get(key, 0) + every - before
    return out


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
        return _band_weights(ruleset, bands, prepared, groups)
    if groups is not None:
        return _plain_split(ruleset, prepared, groups)
    assert dist is not None
    return _plain_weights(ruleset, prepared, dist)


def _outcomes(
    ruleset: Ruleset, weights: Mapping[str, int]
) -> tuple[tuple[OutcomeOdds, ...], Fraction]:
    """The bands (or plain outcomes) best first and the chance of success, each weight
    divided once at the end (all in one call of ``ratios``)."""
    bands: Bands | None = ruleset.resolution.outcomes
    get = weights.get
    shown: list[tuple[str, bool, Critical]] = []
    numbers: list[int] = []
    won = 0
    if bands is not None:
        for b in outcome_order(bands):
            w = get(b.id, 0)
            if b.success:
                won += w
            shown.append((b.label, b.success, b.critical))
            numbers.append(w)
    else:
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
    outcomes = []
    for i, (label, success, critical) in enumerate(shown):
        outcomes.append(new_tuple(OutcomeOdds, (label, success, critical, chances[i])))
    return tuple(outcomes), chances[-1]


_MEMO_SIZE = 4096

TABLES_KEY = "odds tables"
"""Where ``Ruleset.memo`` keeps what the kinds work out of the ruleset's dice alone (a
table of them, the same for every check that throws those dice, whoever asks)."""

VIEWS_KEY = "odds views"
"""Where ``Ruleset.memo`` keeps each character's sheet numbers, by the character."""

_TABLES_KEPT = 1024  # tables on one ruleset; past it they are let go and worked again
_VIEWS_KEPT = 256  # characters whose sheet numbers one ruleset keeps


def _tables(ruleset: Ruleset) -> dict[Hashable, Any]:
    """The ruleset's tables of its dice (``KindPlayer.folded``), kept on its memo."""
    tables: dict[Hashable, Any] | None = ruleset.memo.get(TABLES_KEY)
    if tables is None or len(tables) >= _TABLES_KEPT:
        tables = ruleset.memo[TABLES_KEY] = {}
    return tables


def _view(ruleset: Ruleset, character: Character) -> SheetView:
    """A view of the character's sheet whose numbers are those every earlier view of
    this very character worked out (the character is an immutable value, held beside
    them so no other takes its id). Each question has a view of its own over the
    shared numbers, so two asked at once never see each other's work half done."""
    views: dict[int, tuple[Character, dict[Any, Any]]] | None = ruleset.memo.get(VIEWS_KEY)
    if views is None or len(views) >= _VIEWS_KEPT:
        views = ruleset.memo[VIEWS_KEY] = {}
    kept = views.get(id(character))
    if kept is None or kept[0] is not character:
        kept = views[id(character)] = (character, {})
    return SheetView(ruleset, character, memo=kept[1])


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
    the ruleset keeps that no question decides: the character's sheet numbers, and the
    tables the kind keeps of its dice (``TABLES_KEY``), which the check's own numbers
    move rather than rebuild. The bands are read by thresholds over the distribution's
    sorted totals, never outcome by outcome.

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


def _odds(
    ruleset: Ruleset,
    character: Character,
    tag: str,
    ladder: Sequence[LadderStep],
    after: tuple[str, int] | None,
) -> CheckOdds:
    matches = parse_check(tag)
    if len(matches) != 1:
        raise UsageError(f"odds takes exactly one check tag, not {len(matches)}.")
    view = _view(ruleset, character)
    prepared = prepare_check(ruleset, [character], matches[0], ladder, view=view)
    check = prepared.prepared.check
    player = prepared.player
    tables = _tables(ruleset)
    bands = ruleset.resolution.outcomes
    after_odds = None
    if after is not None and player.spends_after:
        pool_id = pool_named(ruleset, after[0])
        after_odds = player.distribution_after(check, pool_id, after[1], view)
    if after_odds is not None:
        weights = read_weights(ruleset, prepared, after_odds)
    elif bands is not None:
        groups = player.folded(check, tables, bands.shift)
        if groups is None:
            groups = fold(player.odds_distribution(check, tables), player, bands.shift)
        weights = _band_weights(ruleset, bands, prepared, groups)
    else:
        groups = player.folded(check, tables, False)
        if groups is not None:
            weights = _plain_split(ruleset, prepared, groups)
        else:
            weights = _plain_weights(ruleset, prepared, player.odds_distribution(check, tables))
    outcomes, success = _outcomes(ruleset, weights)
    title = f"{prepared.target.label} for {prepared.who.name}: {prepared.prepared.summary}"
    return new_tuple(CheckOdds, (title, outcomes, success))  # type: ignore[no-any-return]
