"""The exact odds of a dice-sum check, and the same odds already folded for a band reading."""

from __future__ import annotations

from functools import partial

from dicebound.bands import Group
from dicebound.dist import Dist
from dicebound.kinds.base import Tables
from dicebound.kinds.dice_sum.model import (
    MarkedPart,
    Natural,
    NaturalRule,
    SetDist,
    SumCheck,
    SumOutcome,
    natural_criticals,
    outcomes,
)
from dicebound.values import new_tuple


def distribution(check: SumCheck) -> Dist[SumOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    dist = check.config.set_dists[check.mode]
    out: dict[SumOutcome, int] = {}
    for part in dist.parts:  # every outcome is new: a part's marks and totals tell it apart
        keys = outcomes(check, part.natural, part.unmodified, part.totals)
        out.update(zip(keys, part.weights, strict=True))
    return Dist.from_positive(out, total=dist.total)


def folded(check: SumCheck, tables: Tables | None = None, naturals: bool = True) -> list[Group]:
    """The distribution of this check folded for a band reading (see ``dicebound.odds``),
    read from the set distribution as it is kept: a group per part of it, its totals
    (ascending, their running weights kept beside them) moved by the modifier (a part's
    criticals and natural are the same for every total it holds, as ``outcomes`` reads
    them). Where the bands read no natural face (``naturals`` false), the parts that read
    alike are one group. The parts and their marks depend on the dice and the natural
    rule alone, so they are kept in ``tables``: a check only moves them."""
    dist = check.config.set_dists[check.mode]
    rule = check.naturals
    if tables is None:
        parts = _marked(dist, rule, naturals)
    else:
        key = ("dice-sum parts", id(dist), rule, naturals)
        kept = tables.get(key)
        if kept is None or kept[0] is not dist:
            kept = tables[key] = (dist, _marked(dist, rule, naturals))
        parts = kept[1]
    modifier = check.modifier
    return [
        new_tuple(
            Group, (part.totals, part.running, partial(_outcome, check, part), modifier, marks)
        )
        for part, marks in parts
    ]


def _outcome(check: SumCheck, part: MarkedPart, total: int) -> SumOutcome:
    """The outcome of ``check`` whose (moved) total is ``total``, in ``part``."""
    return outcomes(check, part.natural, part.unmodified, (total - check.modifier,))[0]


def _marked(
    dist: SetDist, rule: NaturalRule, naturals: bool
) -> tuple[tuple[MarkedPart, tuple[bool, bool, Natural]], ...]:
    """The parts of a set distribution a band reading tells apart, each with what it
    reads besides its total (its criticals and natural). Where the bands read no natural
    face (``naturals`` false), the parts that read alike are one part: a top face made a
    critical by ``rule``, a bottom face made one, and every other total, whatever its
    first die marked (its natural the critical face it reads as, else None;
    ``unmodified`` is not read by a band)."""
    if naturals or len(dist.parts) == 1:
        return tuple(
            (part, (*natural_criticals(rule, part.natural), part.natural)) for part in dist.parts
        )
    alike: dict[Natural, dict[int, int]] = {}
    for part in dist.parts:
        top, bottom = natural_criticals(rule, part.natural)
        reads: Natural = "top" if top else "bottom" if bottom else None
        weights = alike.setdefault(reads, {})
        for total, weight in zip(part.totals, part.weights, strict=True):
            weights[total] = weights.get(total, 0) + weight
    merged = (
        MarkedPart(reads, None, *map(tuple, zip(*sorted(weights.items()), strict=True)))
        for reads, weights in alike.items()
    )
    return tuple((part, (*natural_criticals(rule, part.natural), part.natural)) for part in merged)
