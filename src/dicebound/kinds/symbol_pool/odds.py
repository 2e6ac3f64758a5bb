"""The exact odds of a symbol-pool check: each die's symbols convolved, a die repeated by powers."""

from __future__ import annotations

from collections.abc import Mapping

from dicebound.dist import Dist
from dicebound.kinds.base import Tables
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


def distribution(check: SymbolCheck, tables: Tables | None = None) -> Dist[SymbolOutcome]:
    """The exact distribution of what ``roll`` gives for this check: each die's face
    effects, convolved (leads add up, markers are either-or), then read once. With
    ``tables``, the summed effects of a pool (which the successes needed never change)
    are kept there, by the ruleset's dice and how many of each are thrown."""
    config = check.config
    how_many: dict[str, int] = {}
    for die_id in check.thrown:
        how_many[die_id] = how_many.get(die_id, 0) + 1
    key = ("symbol-pool effects", id(config), *sorted(how_many.items()))
    kept = tables.get(key) if tables is not None else None
    if kept is not None and kept[0] is config:
        summed: Mapping[Effect, int] = kept[1]
    else:
        summed = {Effect(0, False, False): 1}
        for die_id, n in how_many.items():
            summed = _convolve(summed, _power(config.effects[die_id], n))
        if tables is not None:
            tables[key] = (config, summed)
    out: dict[SymbolOutcome, int] = {}
    for effect, weight in summed.items():
        key_out = outcome_of(check, effect)
        out[key_out] = out.get(key_out, 0) + weight
    return Dist(out)
