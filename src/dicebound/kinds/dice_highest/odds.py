"""The exact odds of a dice-highest check, read from the top face down."""

from __future__ import annotations

import math
from itertools import accumulate

from dicebound.bands import Group
from dicebound.dist import Dist
from dicebound.errors import UsageError
from dicebound.kinds.base import Tables
from dicebound.kinds.dice_highest.model import (
    HighestCheck,
    HighestOutcome,
    critical_cap,
    critical_face,
    outcome_of,
    plan_of,
)


def distribution(check: HighestCheck, tables: Tables | None = None) -> Dist[HighestOutcome]:
    """The exact distribution of what ``roll`` gives for this check. With ``tables``,
    the count of the dice's faces (which the dc never changes) is kept there and read
    again by every check that throws the same dice."""
    config = check.config
    plan = plan_of(check)
    sides = config.sides
    weights: dict[HighestOutcome, int] = {}

    def add(total: int, hits: int, dark_highest: bool, weight: int) -> None:
        if weight:
            out = outcome_of(check, plan.zero, total, hits, dark_highest)
            weights[out] = weights.get(out, 0) + weight

    if plan.zero and plan.light == 0:  # fails unrolled; the dark dice are still thrown
        add(0, 0, plan.dark > 0, sides**plan.dark)
    elif plan.zero:  # two dice, the lower kept; dark dice beat the higher of the two
        every = sides**plan.dark
        for a in range(1, sides + 1):
            for b in range(1, sides + 1):
                high = max(a, b) ** plan.dark
                add(min(a, b), 0, False, high)
                add(min(a, b), 0, True, every - high)
    else:
        for (total, hits, dark_first), weight in _classes(check, tables).items():
            add(total, hits, dark_first, weight)
    return Dist(weights)


def folded(check: HighestCheck, tables: Tables | None = None) -> list[Group] | None:
    """The distribution folded for a band reading (``dicebound.odds.fold``): a group for
    the critical successes and one for the rest, by kept total, from the count of the
    dice's faces; the groups are the same for every dc, so they are kept in ``tables``
    too. None for an empty pool (its distribution is a few outcomes)."""
    config = check.config
    plan = plan_of(check)
    if plan.zero:
        return None
    key = ("dice-highest groups", id(config), plan.light, plan.dark)
    kept = tables.get(key) if tables is not None else None
    if kept is None or kept[0] is not config:
        by_critical: dict[bool, tuple[int, dict[int, int]]] = {}
        for (total, hits, _), weight in _classes(check, tables).items():
            critical = config.critical is not None and hits >= config.critical.count
            _, weights = by_critical.setdefault(critical, (hits, {}))
            weights[total] = weights.get(total, 0) + weight
        parts = []
        for critical, (hits, weights) in by_critical.items():
            ordered = sorted(weights.items())
            running = [0, *accumulate(w for _, w in ordered)]
            parts.append((critical, hits, [t for t, _ in ordered], running))
        kept = (config, parts)
        if tables is not None:
            tables[key] = kept
    groups = []
    for critical, hits, totals, running in kept[1]:

        def outcome(total: int, hits: int = hits) -> HighestOutcome:
            # the group's criticals; whether a dark die was highest is no band's to read
            return outcome_of(check, False, total, hits, False)

        groups.append(Group(totals, running, outcome, 0, (critical, False, None)))
    return groups


def _classes(check: HighestCheck, tables: Tables | None) -> dict[tuple[int, int, bool], int]:
    """``_top_down`` for the check's dice (a pool that is not empty), kept in ``tables``
    by the ruleset's dice and how many of them are thrown."""
    config = check.config
    plan = plan_of(check)
    key = ("dice-highest classes", id(config), plan.light, plan.dark)
    kept = tables.get(key) if tables is not None else None
    if kept is not None and kept[0] is config:
        found: dict[tuple[int, int, bool], int] = kept[1]
        return found
    pooled = not config.light_only
    found = _top_down(
        plan.light + (plan.dark if pooled else 0),
        plan.dark,
        pooled,
        config.sides,
        config.keep,
        critical_face(config),
        critical_cap(config),
    )
    if tables is not None:
        tables[key] = (config, found)
    return found


_UNDECIDED, _DARK_FIRST, _LIGHT_FIRST = 0, 1, 2


def _top_down(
    reading: int,
    dark: int,
    pooled: bool,
    sides: int,
    keep: int,
    crit_face: int,
    crit_cap: int,
) -> dict[tuple[int, int, bool], int]:
    """Every assignment of faces to the dice, grouped by (kept total, critical hits,
    whether a dark die is strictly highest), counted exactly.

    Faces are taken from the top down. At each face some of the dice not yet placed
    show it (``comb`` ways): the first ``keep`` placed are the kept dice, those at or
    above ``crit_face`` count toward the critical. ``reading`` dice are read; with
    ``pooled`` the ``dark`` dice are among them (a dark die is highest when every die
    at the top face is dark), otherwise the dark dice are thrown beside them and only
    their highest face matters. A class is finished as soon as its kept dice are: its
    remaining dice spread over the faces below at once, binomially split by how many of
    them still reach the critical face.
    """
    if reading < 1:
        raise UsageError("the face-by-face count needs at least one die read")
    comb = math.comb
    states: dict[tuple[int, int, int, int, int], int] = {(0, 0, 0, 0, _UNDECIDED): 1}
    done: dict[tuple[int, int, bool], int] = {}
    for face in range(sides, 0, -1):
        below = face - 1
        grown: dict[tuple[int, int, int, int, int], int] = {}
        for (placed, kept, total, hits, first), w in states.items():
            left = reading - placed
            for here in range(left + 1):
                ways = comb(left, here)
                branches: tuple[tuple[int, int], ...]
                if first != _UNDECIDED:
                    branches = ((first, ways),)
                elif here == 0:
                    # Nothing read shows this face: still undecided, or a dark die thrown
                    # beside the read ones is the highest and shows it.
                    key = (0, 0, 0, 0, _UNDECIDED)
                    grown[key] = grown.get(key, 0) + w
                    if not pooled and dark:
                        key = (0, 0, 0, 0, _DARK_FIRST)
                        grown[key] = grown.get(key, 0) + w * (face**dark - below**dark)
                    continue
                elif pooled:
                    all_dark = comb(dark, here)
                    branches = ((_DARK_FIRST, all_dark), (_LIGHT_FIRST, ways - all_dark))
                else:  # a light die shows the top face: the dark dice show it or less
                    branches = ((_LIGHT_FIRST, ways * face**dark),)
                take = min(keep - kept, here)
                new_hits = min(hits + here, crit_cap) if face >= crit_face else hits
                for new_first, branch_ways in branches:
                    if branch_ways:
                        key = (placed + here, kept + take, total + take * face, new_hits, new_first)
                        grown[key] = grown.get(key, 0) + w * branch_ways
        states = {}
        for key, w in grown.items():
            placed, kept, total, hits, first = key
            if first == _UNDECIDED or (kept < keep and placed < reading):
                states[key] = w
                continue
            # The kept dice are settled: the dice left all show less than this face, and
            # only how many of them reach the critical face can still matter (binomial).
            left = reading - placed
            reach = max(0, below - crit_face + 1)
            every = below**left
            short = min(left + 1, crit_cap - hits) if reach else 0  # counts below the cap
            for more in range(short):
                spread = comb(left, more) * reach**more * (below - reach) ** (left - more)
                every -= spread
                if spread:
                    out = (total, hits + more, first == _DARK_FIRST)
                    done[out] = done.get(out, 0) + w * spread
            if every:  # the rest: no die left reaches it, or the cap is reached
                out = (total, min(hits + short, crit_cap), first == _DARK_FIRST)
                done[out] = done.get(out, 0) + w * every
    return done
