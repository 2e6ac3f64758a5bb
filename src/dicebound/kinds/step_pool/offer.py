"""The record's ``offer``: what effort after the roll would reach the next band, written
and read back."""

from __future__ import annotations

import re
from collections.abc import Sequence

from dicebound.kinds.step_pool.model import (
    Placement,
    StepCheck,
    band_label,
    best_placement,
    deficits_of,
)
from dicebound.values import frozen


@frozen
class Offer:
    """What one more EFFORT would buy (a record's ``offer``): the band it reaches and,
    for each pool that can pay, the fewest points, cheapest first and in the ruleset's
    order. ``text`` is the attribute as the record writes it; ``read_offer`` reads it
    back, so a client can list the pools without parsing words."""

    label: str
    costs: tuple[tuple[str, int], ...]

    @property
    def text(self) -> str:
        groups: dict[int, list[str]] = {}
        for pool, points in self.costs:
            groups.setdefault(points, []).append(pool)
        parts = [f"{points} from {or_list(pools)}" for points, pools in groups.items()]
        return f"{self.label}: {', '.join(parts)}"


_OFFER_PART = re.compile(r"(\d+) from ([a-z][a-z0-9_]*(?:(?:, | or )[a-z][a-z0-9_]*)*)")


def read_offer(text: str) -> Offer | None:
    """An ``offer`` attribute read back into its band and its costs; None when the text
    is not one this kind writes. Pool ids never hold ": ", ", " or " or ", so the band is
    everything before the last ": " and each cost's pools run to the next number."""
    label, colon, costs = text.rpartition(": ")
    if not colon or not label:
        return None
    found: list[tuple[str, int]] = []
    for part in re.split(r", (?=\d)", costs):
        matched = _OFFER_PART.fullmatch(part)
        if matched is None:
            return None
        points = int(matched[1])
        found += [(pool, points) for pool in re.split(r", | or ", matched[2])]
    return Offer(label, tuple(found))


def offer_of(check: StepCheck, faces: Sequence[int], placement: Placement) -> Offer | None:
    """What one more EFFORT would buy, if it reaches a better band: the fewest points from
    each spend pool the roller holds enough in, cheapest first. A roller who holds enough
    in none (every pool spent, or a pool whose maximum is 0, which the character does not
    have) is offered nothing."""
    if not check.config.spend or placement.paid_die is not None:
        return None
    deficits = deficits_of(check.target, faces)
    *_, p = best_placement(deficits, check.free_quality, check.tool, most=check.target)
    if p is None:
        return None
    effort = placement.effort + 1
    if check.bands is not None:
        now, _ = band_label(check.bands, placement.effort)
        then, label = band_label(check.bands, effort)
        if then == now:
            return None
    else:
        label = f"{effort} EFFORT"
    need = deficits[p]
    held = dict(check.holdings)
    costs = [
        (entry.pool, need * entry.rate)
        for entry in check.config.spend
        if held.get(entry.pool, 0) >= need * entry.rate
    ]
    if not costs:
        return None
    return Offer(label, tuple(sorted(costs, key=lambda c: c[1])))


def or_list(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
