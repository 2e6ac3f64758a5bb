"""The exact odds of a dice-sum check, and the same odds already folded for a band reading."""

from __future__ import annotations

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
    alike are one group, kept in ``tables``."""
    dist = check.config.set_dists[check.mode]
    rule = check.naturals
    if not naturals and tables is not None and len(dist.parts) > 1:
        parts = _read_alike(dist, rule, tables)
    else:
        parts = tuple(
            (part, (*natural_criticals(rule, part.natural), part.natural)) for part in dist.parts
        )
    modifier = check.modifier
    groups = []
    for part, marks in parts:

        def outcome(total: int, part: MarkedPart = part) -> SumOutcome:
            return outcomes(check, part.natural, part.unmodified, (total - modifier,))[0]

        groups.append(new_tuple(Group, (part.totals, part.running, outcome, modifier, marks)))
    return groups


def _read_alike(
    dist: SetDist, rule: NaturalRule, tables: Tables
) -> tuple[tuple[MarkedPart, tuple[bool, bool, Natural]], ...]:
    """The parts of a set distribution that read alike where the bands read no natural
    face, as one part each, with what each reads besides its total (its criticals and
    natural): a top face made a critical by ``rule``, a bottom face made one, and every
    other total, whatever its first die marked (its natural the critical face it reads
    as, else None; ``unmodified`` is not read by a band). Kept in ``tables`` by the set
    distribution and the rule."""
    key = ("dice-sum parts", id(dist), rule)
    kept = tables.get(key)
    if kept is not None and kept[0] is dist:
        found: tuple[tuple[MarkedPart, tuple[bool, bool, Natural]], ...] = kept[1]
        return found
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
    found = tuple((part, (*natural_criticals(rule, part.natural), part.natural)) for part in merged)
    tables[key] = (dist, found)
    return found
