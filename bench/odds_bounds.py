"""Bounded work: how long the exact odds of the biggest checks take, and how soon the
ones past the bound are refused.

1. ``dicebound report`` (``build_report``, the public call) on every packaged character,
   against the goal of 2 s each; beside it the slowest single check of the report
   (``check_odds`` on the cell's tag, asked afresh), against 1 s.
2. Dice pools at the edge: 100 dice with explosions, with and without a re-throw
   ("once", "until"), 100 added and 100 re-throws (counted as sequences,
   ``kinds/dice_pool/sequences.py``); and the rules the sequences leave to the state machine (a face
   both exploding and thrown again, exact dice, a ``halfOrMore`` botch beside
   explosions) at the most dice its bounds accept and past them, with the time to the
   refusal (it comes before any odds are worked: at once far past them, else from the
   estimate). Against 1 s.
3. Every packaged dice-pool ruleset at its biggest: ``pool.max`` dice at the lowest
   target, with each of its re-throws (and none), its explosions from the lowest face
   a tag may move them to, and every other rule it has. Against 1 s.
4. The other kinds at their caps: dice-highest with the most dice and dark dice, a
   symbol pool of its most dice. Against 1 s.

Run: ``.venv/bin/python bench/odds_bounds.py`` (prints seconds and, for each figure,
"ok" under its goal, "OVER" past it, or the refusal's sentence).
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
from dicebound.kinds.dice_pool import PoolCheck, PoolConfig
from dicebound.odds import check_odds
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.spend import Reroll

REPORT_GOAL = 2.0  # seconds, one character's whole report
CHECK_GOAL = 1.0  # seconds, one check's odds


def timed(run: Callable[[], object], goal: float = CHECK_GOAL) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        run()
        said = "ok"
    except LimitExceeded as exc:
        said = f"refused: {exc}"
    seconds = time.perf_counter() - start
    if said == "ok" and seconds > goal:
        said = f"OVER the {goal:g} s goal"
    return seconds, said


def _forget_odds(ruleset: Ruleset) -> None:
    """Drop what ``check_odds`` remembered on the ruleset, so a check is asked afresh."""
    for key in [k for k in ruleset.memo if isinstance(k, tuple) and k[0] == "odds"]:
        del ruleset.memo[key]


def _slowest_check(ruleset: Ruleset, character: Character) -> tuple[float, str]:
    """The slowest cell of the character's report, each tag's odds asked afresh."""
    worst, which = 0.0, ""
    for row in build_report(ruleset, character).rows:
        for cell in row.cells:
            if cell.tag is None or cell.odds is None:
                continue
            _forget_odds(ruleset)
            start = time.perf_counter()
            check_odds(ruleset, character, cell.tag)
            seconds = time.perf_counter() - start
            if seconds > worst:
                worst, which = seconds, cell.tag
    return worst, which


def reports() -> None:
    print(f"1. dicebound report on every packaged character (goal {REPORT_GOAL:g} s each)")
    worst = worst_check = 0.0
    for ruleset_id in packaged_rulesets():
        ruleset = read_ruleset(ruleset_id)
        for short in packaged_characters(ruleset_id):
            character = read_character(ruleset, f"{ruleset_id}/{short}")
            _forget_odds(ruleset)
            seconds, said = timed(lambda r=ruleset, c=character: build_report(r, c), REPORT_GOAL)
            one, _ = _slowest_check(ruleset, character)
            slow = "ok" if one <= CHECK_GOAL else f"OVER the {CHECK_GOAL:g} s goal"
            worst, worst_check = max(worst, seconds), max(worst_check, one)
            print(
                f"   {ruleset_id:22s} {short:10s} {seconds:6.3f} s  {said:6s}"
                f"  slowest check {one:6.3f} s  {slow}"
            )
    print(f"   slowest report: {worst:.3f} s; slowest single check: {worst_check:.3f} s")


def pool(dice: int, extra: int, **rules: object) -> PoolCheck:
    rules.setdefault("max_rethrows", 100)
    return PoolCheck(
        sides=10,
        dice=dice,
        target=6,
        needed=1,
        max_extra=extra,
        **rules,  # type: ignore[arg-type]
    )


POOLS = [
    # explosions, with or without a re-throw: counted as sequences (kinds/dice_pool/sequences.py)
    (
        "100d10, tens explode, ones cancel and botch",
        pool(100, 100, explode_from=10, cancel_up_to=1, botch_up_to=1, exceptional=5),
    ),
    (
        "100d10, tens explode and count twice",
        pool(100, 100, explode_from=10, double_from=10, cancel_up_to=1),
    ),
    (
        "100d10, 100 added, 100 re-throws once, cancel, botch",
        pool(100, 100, explode_from=10, reroll=Reroll(6, "once"), cancel_up_to=1, botch_up_to=1),
    ),
    (
        "100d10, 100 added, 100 re-throws until, cancel, botch",
        pool(100, 100, explode_from=10, reroll=Reroll(2, "until"), cancel_up_to=1, botch_up_to=1),
    ),
    (
        "100d10, 100 added, re-throw 1-6 until",
        pool(100, 100, explode_from=10, reroll=Reroll(6, "until")),
    ),
    (
        "100d10, nines explode, tens twice, re-throw 1-2 once",
        pool(100, 100, explode_from=9, double_from=10, reroll=Reroll(2, "once"), cancel_up_to=1),
    ),
    (
        "100d100, 100 added, 1-50 once, 75+ explode, 100 twice",
        PoolCheck(
            sides=100,
            dice=100,
            target=50,
            needed=10,
            explode_from=75,
            double_from=100,
            reroll=Reroll(50, "once"),
            cancel_up_to=1,
            botch_up_to=1,
            max_extra=100,
        ),
    ),
    (
        "100d10, 30 added, re-throw once (cap 130), cancel, botch",
        pool(
            100,
            30,
            explode_from=10,
            reroll=Reroll(6, "once"),
            max_rethrows=130,
            cancel_up_to=1,
            botch_up_to=1,
        ),
    ),
    (
        "20d10, explode, re-throw 1-2 until, cancel, botch",
        pool(20, 20, explode_from=10, reroll=Reroll(2, "until"), cancel_up_to=1, botch_up_to=1),
    ),
    # no explosions, or a rule the sequences leave to the state machine
    ("100d10, re-throw 1-2 until higher", pool(100, 0, reroll=Reroll(2, "until"))),
    ("100d10, re-throw 1-6 once", pool(100, 0, reroll=Reroll(6, "once"), cancel_up_to=1)),
    (
        "50d10, tens explode, halfOrMore botch, cancel",
        pool(50, 50, explode_from=10, cancel_up_to=1, botch_up_to=1, botch_rule="halfOrMore"),
    ),
    (
        "100d10, tens explode, halfOrMore botch (past the bound)",
        pool(100, 100, explode_from=10, cancel_up_to=1, botch_up_to=1, botch_rule="halfOrMore"),
    ),
    (
        "31d10, explode 6+ and re-throw 1-6 once (a face both)",
        pool(31, 31, explode_from=6, reroll=Reroll(6, "once"), cancel_up_to=1, botch_up_to=1),
    ),
    (
        "60d10, explode 6+ and re-throw 1-6 once (past the bound)",
        pool(60, 60, explode_from=6, reroll=Reroll(6, "once"), cancel_up_to=1, botch_up_to=1),
    ),
    (
        "100d10, explode 6+ and re-throw 1-6 until (past the bound)",
        pool(100, 100, explode_from=6, reroll=Reroll(6, "until")),
    ),
    (
        "20d10, tens explode, re-throw once, exact dice",
        pool(20, 20, explode_from=10, reroll=Reroll(2, "once"), exact=True),
    ),
]


def pools() -> None:
    print(f"2. dice pools at the edge (dice_pool.distribution; goal {CHECK_GOAL:g} s)")
    for name, check in POOLS:
        seconds, said = timed(lambda c=check: dice_pool.distribution(c))
        print(f"   {name:62s} {seconds:6.3f} s  {said[:90]}")


def _biggest(config: PoolConfig) -> list[tuple[str, PoolCheck]]:
    """The ruleset's pool at its most dice and lowest target, with every rule it has,
    once without a re-throw and once with each of its re-throws."""
    explode = config.explode.min or config.explode.from_face if config.explode else None
    double = config.double.min or config.double.from_face if config.double else None
    base = {
        "sides": config.sides,
        "dice": config.pool_max,
        "target": config.target_min,
        "needed": 1,
        "explode_from": explode,
        "double_from": double,
        "cancel_up_to": config.cancel_up_to,
        "botch_up_to": config.botch_up_to,
        "botch_rule": config.botch_rule,
        "exceptional": config.exceptional,
        "exact": None if config.exact is None else config.exact.counts,
        "max_extra": config.pool_max,
    }
    out = [("no re-throw", PoolCheck(**base))]  # type: ignore[arg-type]
    for r in config.rerolls:
        name = f"re-throw {r.up_to} {r.mode}"
        out.append((name, PoolCheck(**base, reroll=r)))  # type: ignore[arg-type]
    return out


def biggest_pools() -> None:
    print(f"3. every packaged dice-pool ruleset at its biggest (goal {CHECK_GOAL:g} s)")
    for ruleset_id in packaged_rulesets():
        config = read_ruleset(ruleset_id).resolution.config
        if not isinstance(config, PoolConfig):
            continue
        for name, check in _biggest(config):
            seconds, said = timed(lambda c=check: dice_pool.distribution(c))
            what = f"{ruleset_id}: {check.dice_text}, target {check.target}, {name}"
            print(f"   {what:62s} {seconds:6.3f} s  {said[:90]}")


def others() -> None:
    print(f"4. the other kinds at their caps (goal {CHECK_GOAL:g} s)")
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
    biggest_pools()
    others()
