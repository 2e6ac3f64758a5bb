"""The exact odds of a symbol-pool check: each die's symbols convolved, a die repeated by powers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from dicebound.dist import Dist

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.model import (
    Effect,
    SymbolCheck,
    SymbolOutcome,
    add_symbols,
    outcome_of,
)


def _convolve(a: Mapping[Effect, int], b: Mapping[Effect, int]) -> dict[Effect, int]:
    out: dict[Effect, int] = {}
    for ea, wa in a.items():
        for eb, wb in b.items():
            key = add_symbols(ea, eb)
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
        key = outcome_of(check, effect)
        out[key] = out.get(key, 0) + weight
    return Dist(out)
