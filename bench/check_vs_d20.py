"""Full-check throughput: dicebound against the d20 package, side by side in one run.

A full check is what a user calls: a Game Master's text with one tag in, through the
public ``resolve_text``, the rewritten text and the record out. Each scenario puts a
packaged ruleset's check beside the d20 package rolling the same dice from a string:

- a fifth edition skill check (``dnd5e-srd``, Mira's Stealth) beside ``1d20+5>=15``;
- the same check with advantage beside ``2d20kh1+5``;
- a World of Darkness pool of ten d10s whose tens explode (``wod-pool``, Lucia's
  Firearms with two bonus dice) beside ``10d10e10k>6``.

Both sides get a fresh seed (dicebound) or fresh randomness (d20) per check. The two
are timed in alternating rounds, so a busy machine slows both alike; each figure is
the best round. The inner parts of a check (lexing the text, preparing the tag,
throwing the dice, writing the record; for a check remembered per throw, throwing its
known dice and reading the throw off the memo) are timed beside it, never in its place.

Run: ``.venv/bin/python bench/check_vs_d20.py [--seconds 6]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import d20

from dicebound import resolve_text
from dicebound.edge.files import read_character, read_ruleset

SCENARIOS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "5e skill check",
        "dnd5e-srd",
        "mira",
        'Mira eases the latch. [skill_check: skill="Stealth" dc="15" who="Mira Quickfoot"]',
        "1d20+5>=15",
    ),
    (
        "5e advantage check",
        "dnd5e-srd",
        "mira",
        'Mira eases the latch. [skill_check: skill="Stealth" dc="15" mode="advantage"]',
        "2d20kh1+5",
    ),
    (
        "WoD 10-die pool, tens explode",
        "wod-pool",
        "lucia",
        'Lucia draws. [skill_check: skill="Firearms" dc="3" bonus="2" explode="10"]',
        "10d10e10k>6",
    ),
)


def _round(fn: Callable[[int], object], start: int, seconds: float) -> tuple[float, int]:
    """Calls per second of ``fn(i)`` over about ``seconds``, and the next ``i``."""
    n, began = start, time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        for _ in range(100):
            fn(n)
            n += 1
    return (n - start) / elapsed, n


def _best_rates(
    ours: Callable[[int], object], theirs: Callable[[int], object], seconds: float
) -> tuple[float, float]:
    """Best rate of each over alternating rounds."""
    best_ours = best_theirs = 0.0
    seed = 0
    for _ in range(6):
        rate, seed = _round(ours, seed, seconds / 12)
        best_ours = max(best_ours, rate)
        rate, _ = _round(theirs, 0, seconds / 12)
        best_theirs = max(best_theirs, rate)
    return best_ours, best_theirs


def _inner_parts(ruleset_id: str, character: str, text: str) -> list[tuple[str, float]]:
    """Microseconds per call of each stage of one check (beside the whole, not for it).

    A check remembered per throw (its dice known up front, nothing paid) is thrown from
    its seed and read off the memo; any other is thrown and read afresh."""
    from dicebound.dice import SeededDice
    from dicebound.engine import (
        PlayerChoices,
        _settle,
        _throw,
        ladder_in_force,
        quick_check,
        remembered_check,
    )
    from dicebound.tagpass.families import FAMILIES
    from dicebound.tagpass.lexer import Lexer
    from dicebound.tags.parse import parse_tags

    ruleset = read_ruleset(ruleset_id)
    party = [read_character(ruleset, character)]
    match = parse_tags(text)[0]
    lexer = Lexer(FAMILIES)
    ladder = ladder_in_force(ruleset, ())
    remembered = remembered_check(ruleset, party, match, ladder)
    prepared = remembered.prepared
    stages: list[tuple[str, Callable[[], object]]] = [
        ("lex the text", lambda: lexer.tags(text)),
        ("prepare (remembered)", lambda: remembered_check(ruleset, party, match, ladder)),
    ]
    dice = remembered.dice
    if dice is not None:
        stages += [
            ("throw the known dice", lambda: dice.faces("7")),
            (
                "throw, read off the memo, record, result",
                lambda: quick_check(ruleset, party, match, ladder, "7"),
            ),
        ]
    else:
        thrown = _throw(ruleset, party, match, ladder, SeededDice("1"))
        choices = PlayerChoices()
        stages += [
            (
                "throw the dice",
                lambda: prepared.player.roll(prepared.prepared.check, SeededDice("7")),
            ),
            (
                "read, record, result",
                lambda: _settle(ruleset, match, thrown, prepared.who, (), "1", choices),
            ),
        ]
    out = []
    for name, fn in stages:
        number = 5000
        best = min(_time(fn, number) for _ in range(5))
        out.append((name, best / number * 1e6))
    return out


def _time(fn: Callable[[], object], number: int) -> float:
    began = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per scenario")
    args = parser.parse_args()
    print(f"{'scenario':32}{'dicebound/s':>13}{'d20/s':>11}{'ratio':>8}   d20 expression")
    for title, ruleset_id, character, text, expression in SCENARIOS:
        ruleset = read_ruleset(ruleset_id)
        party = [read_character(ruleset, character)]
        report = resolve_text(ruleset, party, text, seed=1)
        assert report.results and not report.errors, report.errors
        d20.roll(expression)

        def ours(i: int, ruleset=ruleset, party=party, text=text) -> object:  # type: ignore[no-untyped-def]
            return resolve_text(ruleset, party, text, seed=i)

        def theirs(_: int, expression: str = expression) -> object:
            return d20.roll(expression)

        ours_rate, theirs_rate = _best_rates(ours, theirs, args.seconds)
        ratio = ours_rate / theirs_rate
        print(f"{title:32}{ours_rate:13,.0f}{theirs_rate:11,.0f}{ratio:7.2f}x   {expression}")
        parts = _inner_parts(ruleset_id, character, text)
        print("    inside: " + ", ".join(f"{name} {us:.1f} µs" for name, us in parts))
    print("ratio = dicebound full checks per second / d20 rolls per second (goal: 1.5x or more)")


if __name__ == "__main__":
    main()
