"""The exact odds of a dice-sum check, and the same odds already folded for a band reading."""

from __future__ import annotations

from dicebound.bands import Group
from dicebound.dist import Dist
from dicebound.kinds.dice_sum.model import MarkedPart, SumCheck, SumOutcome, outcomes


def distribution(check: SumCheck) -> Dist[SumOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    dist = check.config.set_dists[check.mode]
    out: dict[SumOutcome, int] = {}
    for part in dist.parts:  # every outcome is new: a part's marks and totals tell it apart
        keys = outcomes(check, part.natural, part.unmodified, part.totals)
        out.update(zip(keys, part.weights, strict=True))
    return Dist.from_positive(out, total=dist.total)


def folded(check: SumCheck) -> list[Group]:
    """The distribution of this check folded for a band reading (see ``dicebound.odds``),
    read from the set distribution as it is kept: a group per part of it, its totals
    (ascending, their running weights kept beside them) moved by the modifier (a part's
    criticals and natural are the same for every total it holds, as ``outcomes`` reads
    them)."""
    dist = check.config.set_dists[check.mode]
    modifier = check.modifier
    groups = []
    for part in dist.parts:

        def outcome(total: int, part: MarkedPart = part) -> SumOutcome:
            return outcomes(check, part.natural, part.unmodified, (total - modifier,))[0]

        groups.append(Group(part.totals, part.running, outcome, modifier))
    return groups
