"""Exact odds: dicebound's ``distribution`` against icepool, side by side in one run.

Three cases, each computed by both libraries and checked to agree exactly:

(a) 1d20+5 with advantage against DC 15: the chance of success;
(b) Fate's 4dF+3 against each step of a ladder (+1 .. +6): the chance of each, from one
    distribution read at every step (as icepool reads one die), and again with a
    dicebound check per step;
(c) Rolemaster's open-ended d100 (high 96, low 5, at most 20 dice): the whole
    distribution of the total.

Cold is a fresh Python process (bytecode already cached, as for an installed package):
the import, then the first call (dicebound's first call includes compiling the
resolution block, as importing a ruleset does). Warm is the best
per-call time over several timeit runs. dicebound compiles a ruleset once and plays it
many times, so its warm time is one check's odds; for (c) the time with the compile
included is printed as well. The goal is dicebound at most a tenth of icepool's time.

Run: ``.venv/bin/python bench/odds_vs_icepool.py``
"""

from __future__ import annotations

import json
import operator
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from fractions import Fraction
from typing import Any

FATE_LADDER = (1, 2, 3, 4, 5, 6)  # Average .. Fantastic

Prepared = tuple[Callable[[], Any], Callable[[Any], Any]]  # (run, answer of a run's result)


# -- dicebound -------------------------------------------------------------------------


def _db_config(block: dict[str, Any]) -> Any:
    from dicebound.kinds.base import CompileContext
    from dicebound.kinds.dice_sum import KIND
    from dicebound.ruleset.model import Sheet

    config, problems = KIND.compile(block, CompileContext(Sheet(version=1)))
    assert not problems, problems
    return config


_db_success = operator.attrgetter("success")
_db_total = operator.attrgetter("total")


def db_advantage() -> Prepared:
    from dicebound.kinds.dice_sum import SumCheck, distribution

    config = _db_config({"dice": {"count": 1, "sides": 20}, "advantage": True})
    check = SumCheck(config, 5, 15, "advantage")
    return (lambda: distribution(check).probability_where(_db_success)), lambda r: r


FATE = {"dice": {"count": 4, "sides": 3, "faces": [-1, 0, 1]}}


def db_fate() -> Prepared:
    """One distribution read at every step, as icepool does: four dice have no
    naturals, so a step succeeds exactly when the total reaches its dc."""
    from dicebound.kinds.dice_sum import SumCheck, distribution

    config = _db_config(FATE)

    def run() -> list[Fraction]:
        totals = distribution(SumCheck(config, 3, FATE_LADDER[0])).map(_db_total)
        return [totals.at_least(dc) for dc in FATE_LADDER]

    return run, lambda r: r


def db_fate_per_step() -> Prepared:
    """A check (and its distribution) per step, as the engine asks for one check."""
    from dicebound.kinds.dice_sum import SumCheck, distribution

    config = _db_config(FATE)

    def run() -> list[Fraction]:
        return [
            distribution(SumCheck(config, 3, dc)).probability_where(_db_success)
            for dc in FATE_LADDER
        ]

    return run, lambda r: r


ROLEMASTER = {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 96, "low": 5}}


def _db_totals(dist: Any) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for outcome, p in dist.probabilities().items():
        out[outcome.total] = out.get(outcome.total, Fraction(0)) + p
    return out


def db_rolemaster() -> Prepared:
    from dicebound.kinds.dice_sum import SumCheck, distribution

    check = SumCheck(_db_config(ROLEMASTER), 0, 0)
    return (lambda: distribution(check)), _db_totals


def db_rolemaster_with_compile() -> Prepared:
    from dicebound.kinds.dice_sum import SumCheck, distribution

    return (lambda: distribution(SumCheck(_db_config(ROLEMASTER), 0, 0))), _db_totals


# -- icepool ---------------------------------------------------------------------------


def ice_advantage() -> Prepared:
    import icepool

    d20 = icepool.d20
    return (lambda: (d20.highest(2) + 5 >= 15).probability(True)), lambda r: r


def ice_fate() -> Prepared:
    import icepool

    fate = icepool.Die([-1, 0, 1])

    def run() -> list[Fraction]:
        total = 4 @ fate + 3
        return [total.probability(">=", dc) for dc in FATE_LADDER]

    return run, lambda r: r


def ice_rolemaster() -> Prepared:
    import icepool

    d100 = icepool.d100

    def run() -> Any:
        # The dice after the first: up to 19 more, each 96+ rolling on (depth 18).
        chain = d100.explode(range(96, 101), depth=18)
        return d100.map(lambda f: f + chain if f >= 96 else f - chain if f <= 5 else f)

    def answer(die: Any) -> dict[int, Fraction]:
        return {int(o): Fraction(q, die.denominator()) for o, q in die.items()}

    return run, answer


CASES: dict[str, tuple[str, Callable[[], Prepared], Callable[[], Prepared]]] = {
    "a": ("(a) 1d20+5 advantage vs DC 15", db_advantage, ice_advantage),
    "b": ("(b) Fate 4dF+3 vs ladder +1..+6", db_fate, ice_fate),
    "b+": ("(b) ... dicebound: one check per step", db_fate_per_step, ice_fate),
    "c": ("(c) Rolemaster open-ended d100", db_rolemaster, ice_rolemaster),
    "c+": ("(c) ... dicebound with its compile", db_rolemaster_with_compile, ice_rolemaster),
}


# -- measuring -------------------------------------------------------------------------


def _cold_child(lib: str, case: str) -> None:
    """In a fresh process: time the import, then the first call."""
    start = time.perf_counter()
    if lib == "dicebound":
        import dicebound.kinds.dice_sum  # noqa: F401
    else:
        import icepool  # noqa: F401
    imported = time.perf_counter()
    _, db, ice = CASES[case]
    run, _ = (db if lib == "dicebound" else ice)()
    run()
    done = time.perf_counter()
    print(json.dumps({"import": imported - start, "first": done - imported}))


def _cold(lib: str, case: str, cache: str, repeat: int = 3) -> dict[str, float]:
    """Median of fresh processes, after one that fills the bytecode cache (an installed
    package has its .pyc files; a source tree run with PYTHONDONTWRITEBYTECODE has not)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    runs = []
    for _ in range(repeat + 1):
        out = subprocess.run(
            [sys.executable, __file__, "--cold", lib, case],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        runs.append(json.loads(out.stdout))
    return {k: statistics.median(r[k] for r in runs[1:]) for k in ("import", "first")}


def _warm(run: Callable[[], Any]) -> float:
    """Best seconds per call over five timeit runs of at least 0.2 s each."""
    number, _ = timeit.Timer(run).autorange()
    return min(timeit.repeat(run, number=number, repeat=5)) / number


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-") as cache:
        _compare(cache)


def _compare(cache: str) -> None:
    print(f"{'':42}{'dicebound':>12}{'icepool':>13}{'ratio':>10}")
    for key, (title, db, ice) in CASES.items():
        db_run, db_answer = db()
        ice_run, ice_answer = ice()
        same = db_answer(db_run()) == ice_answer(ice_run())
        print(f"{title}  (exact answers {'agree' if same else 'DIFFER'})")
        assert same, f"{title}: the two libraries disagree"
        db_cold, ice_cold = _cold("dicebound", key, cache), _cold("icepool", key, cache)
        rows = [
            ("cold: import", db_cold["import"], ice_cold["import"]),
            ("cold: first call", db_cold["first"], ice_cold["first"]),
            (
                "cold: import + first call",
                db_cold["import"] + db_cold["first"],
                ice_cold["import"] + ice_cold["first"],
            ),
            ("warm: per call", _warm(db_run), _warm(ice_run)),
        ]
        for label, ours, theirs in rows:
            print(f"    {label:38}{_ms(ours)}{_ms(theirs)}{theirs / ours:9.1f}x")
    print("ratio = icepool's time / dicebound's (goal: 10x or more)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--cold":
        _cold_child(sys.argv[2], sys.argv[3])
    else:
        main()
