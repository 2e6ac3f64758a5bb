"""Bounded work: how long the exact odds of the biggest checks take, and how soon the
ones past the bound are refused.

1. ``dicebound report`` (``build_report``, the public call) on every packaged character:
   every check at every ladder step, each timed.
2. Dice pools at the edge: 100 dice with every rule but a re-throw beside explosions;
   a re-throw with explosions at the most dice the bound accepts; and past the bound,
   the time to the refusal (it comes before any odds are worked).
3. The other kinds at their caps: dice-highest with the most dice and dark dice, a
   symbol pool of its most dice, the open-ended d100.

Run: ``.venv/bin/python bench/odds_bounds.py`` (prints seconds; the goal is every check
under 5 s, or refused with a sentence).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.errors import LimitExceeded
from dicebound.kinds import dice_highest, dice_pool, symbol_pool
from dicebound.kinds.dice_pool import PoolCheck
from dicebound.report import build_report
from dicebound.spend import Reroll


def timed(run: Callable[[], object]) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        run()
        said = "ok"
    except LimitExceeded as exc:
        said = f"refused: {exc}"
    return time.perf_counter() - start, said


def reports() -> None:
    print("1. dicebound report on every packaged character")
    worst = 0.0
    for ruleset_id in packaged_rulesets():
        ruleset = read_ruleset(ruleset_id)
        for short in packaged_characters(ruleset_id):
            character = read_character(ruleset, f"{ruleset_id}/{short}")
            seconds, said = timed(lambda r=ruleset, c=character: build_report(r, c))
            worst = max(worst, seconds)
            print(f"   {ruleset_id:22s} {short:10s} {seconds:6.3f} s  {said}")
    print(f"   slowest: {worst:.3f} s")


def pool(dice: int, extra: int, **rules: object) -> PoolCheck:
    return PoolCheck(
        sides=10,
        dice=dice,
        target=6,
        needed=1,
        max_extra=extra,
        max_rethrows=100,
        **rules,  # type: ignore[arg-type]
    )


POOLS = [
    (
        "100d10, tens explode, ones cancel and botch",
        pool(100, 100, explode_from=10, cancel_up_to=1, botch_up_to=1, exceptional=5),
    ),
    (
        "100d10, tens explode and count twice",
        pool(100, 100, explode_from=10, double_from=10, cancel_up_to=1),
    ),
    ("100d10, re-throw 1-2 until higher", pool(100, 0, reroll=Reroll(2, "until"))),
    ("100d10, re-throw 1-6 once", pool(100, 0, reroll=Reroll(6, "once"), cancel_up_to=1)),
    (
        "24d10, explode, re-throw once, cancel, botch",
        pool(
            24,
            24,
            explode_from=10,
            reroll=Reroll(6, "once"),
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
        ),
    ),
    ("30d10, explode 9+, re-throw once", pool(30, 30, explode_from=9, reroll=Reroll(6, "once"))),
    (
        "31d10, explode, re-throw once, cancel, botch (near the bound)",
        pool(
            31,
            31,
            explode_from=10,
            reroll=Reroll(6, "once"),
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
        ),
    ),
    (
        "40d10, explode, re-throw once, cancel, botch (past the estimate)",
        pool(
            40,
            40,
            explode_from=10,
            reroll=Reroll(6, "once"),
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
        ),
    ),
    (
        "48d10, explode, re-throw once, cancel, botch (past the bound)",
        pool(
            48,
            50,
            explode_from=10,
            reroll=Reroll(6, "once"),
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
        ),
    ),
    (
        "100d10, explode, re-throw once (past the bound)",
        pool(100, 100, explode_from=10, reroll=Reroll(6, "once")),
    ),
]


def pools() -> None:
    print("2. dice pools at the edge (dice_pool.distribution)")
    for name, check in POOLS:
        seconds, said = timed(lambda c=check: dice_pool.distribution(c))
        print(f"   {name:62s} {seconds:6.3f} s  {said[:90]}")


def others() -> None:
    print("3. the other kinds at their caps")
    for ruleset_id in ("blades", "trophy-dark"):
        config = read_ruleset(ruleset_id).resolution.config
        assert isinstance(config, dice_highest.HighestConfig)
        dark = config.dark.max if config.dark is not None else 0
        check = dice_highest.HighestCheck(config=config, dice=config.pool_max, dc=0, dark=dark)
        seconds, said = timed(lambda c=check: dice_highest.distribution(c))
        print(f"   {ruleset_id}: {config.pool_max} dice, {dark} dark {seconds:20.3f} s  {said}")
    config = read_ruleset("genesys").resolution.config
    assert isinstance(config, symbol_pool.SymbolConfig)
    biggest = max(config.dice, key=lambda d: len(d.faces))
    thrown = tuple([biggest.id] * symbol_pool.MAX_POOL)
    check = symbol_pool.SymbolCheck(config=config, thrown=thrown, needed=1)
    seconds, said = timed(lambda: symbol_pool.distribution(check))
    print(f"   genesys: {symbol_pool.MAX_POOL} {biggest.id} dice {seconds:22.3f} s  {said}")


if __name__ == "__main__":
    reports()
    pools()
    others()
