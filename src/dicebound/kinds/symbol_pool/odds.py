"""The exact odds of a symbol-pool check: each die's symbols convolved, a die repeated by powers."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import accumulate

from dicebound.bands import Group
from dicebound.dist import Dist
from dicebound.kinds.base import Tables
from dicebound.kinds.symbol_pool.model import (
    Effect,
    SymbolCheck,
    SymbolOutcome,
    add_symbols,
    outcome_at,
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


def _summed(check: SymbolCheck, tables: Tables | None) -> Mapping[Effect, int]:
    """The pool's face effects convolved (leads add up, markers are either-or); with
    ``tables``, kept there by the ruleset's dice and how many of each are thrown (the
    successes a check needs never change them)."""
    config = check.config
    how_many: dict[str, int] = {}
    for die_id in check.thrown:
        how_many[die_id] = how_many.get(die_id, 0) + 1
    key = ("symbol-pool effects", id(config), *sorted(how_many.items()))
    kept = tables.get(key) if tables is not None else None
    if kept is not None and kept[0] is config:
        found: Mapping[Effect, int] = kept[1]
        return found
    summed: Mapping[Effect, int] = {Effect(0, False, False): 1}
    for die_id, n in how_many.items():
        summed = _convolve(summed, _power(config.effects[die_id], n))
    if tables is not None:
        tables[key] = (config, summed)
    return summed


def distribution(check: SymbolCheck, tables: Tables | None = None) -> Dist[SymbolOutcome]:
    """The exact distribution of what ``roll`` gives for this check: each die's face
    effects, convolved, then read once (``_summed``, kept in ``tables`` when given)."""
    out: dict[SymbolOutcome, int] = {}
    for effect, weight in _summed(check, tables).items():
        key = outcome_of(check, effect)
        out[key] = out.get(key, 0) + weight
    return Dist(out)


def folded(check: SymbolCheck, tables: Tables | None = None) -> list[Group]:
    """The distribution folded for a reading (``KindPlayer.folded``): one group, by net
    successes (a lead below zero nets none), worked from the summed effects and kept in
    ``tables`` beside them: the successes needed read the group, never change it.

    One group, whatever the markers: no reading of the odds tells them apart (bands
    never read them, and without bands they ride beside success and failure, which
    the net successes alone decide), so its outcomes show none."""
    config = check.config
    key = ("symbol-pool group", id(config), *sorted(check.thrown))
    kept = tables.get(key) if tables is not None else None
    if kept is None or kept[0] is not config:
        nets: dict[int, int] = {}
        for effect, weight in _summed(check, tables).items():
            net = max(0, effect.lead)
            nets[net] = nets.get(net, 0) + weight
        ordered = sorted(nets.items())
        kept = (config, [n for n, _ in ordered], [0, *accumulate(w for _, w in ordered)])
        if tables is not None:
            tables[key] = kept

    def outcome(net: int) -> SymbolOutcome:
        return outcome_at(check, net, False, False)

    return [Group(kept[1], kept[2], outcome, 0, (False, False, None))]
