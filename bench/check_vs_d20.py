"""Full-check throughput: dicebound against the d20 package, side by side in one run.

A full check is a Game Master's text with one tag in, the rewritten text and the
record out, on the packaged fifth edition SRD ruleset (a d20 plus a proficient skill).
The d20 package rolls ``1d20+5>=15`` from a string. Both use a fresh seeded/random
source per check. Run: ``.venv/bin/python bench/check_vs_d20.py``
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import d20

from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import resolve_text

TEXT = 'Mira eases the latch. [skill_check: skill="Stealth" dc="15" who="Mira Quickfoot"]'


def _rate(fn: Callable[[int], object], seconds: float = 2.0) -> float:
    """Calls per second of ``fn(i)``, best of three runs of about ``seconds / 3``."""
    best = 0.0
    for _ in range(3):
        n, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds / 3:
            for _ in range(200):
                fn(n)
                n += 1
        best = max(best, n / elapsed)
    return best


def main() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "dnd5e-srd/mira")]
    report = resolve_text(ruleset, party, TEXT, seed=1)
    assert report.results, report.errors
    random.seed(1)

    def ours(i: int) -> object:
        return resolve_text(ruleset, party, TEXT, seed=i)

    def theirs(_: int) -> object:
        return d20.roll("1d20+5>=15")

    ours_rate = _rate(ours)
    theirs_rate = _rate(theirs)
    print(f"dicebound full check : {ours_rate:10,.0f} checks/s")
    print(f"d20.roll('1d20+5>=15'): {theirs_rate:10,.0f} rolls/s")
    print(f"ratio (dicebound / d20): {ours_rate / theirs_rate:.2f}x  (goal: at least 1.5x)")


if __name__ == "__main__":
    main()
