"""A fast start: ``import dicebound`` and a first ``check_odds`` in a fresh process,
beside icepool's import and first call for the same distribution.

Each scenario is a packaged ruleset, one of its packaged characters and a tag. The
dicebound child imports dicebound, reads the packaged ruleset and character through
``dicebound.edge.files`` and asks ``check_odds`` for the tag's odds; the icepool child
imports icepool and computes the probability of every one of the same outcomes. Before
timing, both are run in this process and their exact answers must agree.

Every child is a fresh Python process with its bytecode cached (an installed package
has its .pyc files; a source tree under PYTHONDONTWRITEBYTECODE has not): the
environment variable is dropped and PYTHONPYCACHEPREFIX points at a temporary folder
that one warming run of each child fills. dicebound's own on-disk cache of compiled
rulesets (``DICEBOUND_CACHE_DIR``) points at a temporary folder too, filled by the
same warming run, as a user's is after their first use of a ruleset; ``--no-cache``
times the compile in every process instead. The children run interleaved, round by
round, so a noisy machine slows both sides alike.

Two figures per scenario: the time in the child from before its import to its answer
(``in-process``), and the whole process from spawn to exit, interpreter start included
(``process``). Then the command line: ``dicebound odds`` beside a ``python -c`` icepool
one-liner printing the same odds, whole process, hyperfine-style. Ratio = icepool's
time / dicebound's: the goal is 1.0 or more.

Run: ``.venv/bin/python bench/cold_start.py [--rounds N] [--no-cache]``
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

# The children import only the above (the whole-process figure is each library's own
# start); the parent's tools are imported in the functions that need them.

# name: (packaged ruleset, packaged character, tag)
SCENARIOS: dict[str, tuple[str, str, str]] = {
    "dnd5e-srd advantage": ("dnd5e-srd", "mira", 'skill="Stealth" dc="15" mode="advantage"'),
    "fate-core": ("fate-core", "ines", 'skill="Investigate" difficulty="Fair"'),
    "blades": ("blades", "silk", 'skill="Prowl" difficulty="Action roll"'),
    "wod-pool": ("wod-pool", "lucia", 'skill="Alertness" difficulty="Standard"'),
    "coc7e 2 bonus": ("coc7e", "eleanor", 'skill="Spot Hidden" bonus="2"'),
    "genesys": ("genesys", "kira", 'skill="Stealth" difficulty="Hard"'),
    "rolemaster-open": ("rolemaster-open", "aelith", 'skill="Stalk and Hide" difficulty="Hard"'),
}


# -- dicebound -------------------------------------------------------------------------


def dicebound_first(name: str) -> list[Fraction]:
    """Import dicebound, read the packaged ruleset and character, the check's odds."""
    import dicebound
    import dicebound.edge.files

    ruleset_id, who, tag = SCENARIOS[name]
    ruleset = dicebound.edge.files.read_ruleset(ruleset_id)
    character = dicebound.edge.files.read_character(ruleset, who)
    odds = dicebound.check_odds(ruleset, character, tag)
    return [o.probability for o in odds.outcomes]


# -- icepool: the same outcomes, in the same order -------------------------------------


def _bands(die: Any, read: Callable[[Any], int], count: int) -> list[Fraction]:
    """The probability of each band ``read`` puts an outcome of ``die`` in."""
    banded = die.map(read)
    return [Fraction(banded.probability(i)) if i in banded else Fraction(0) for i in range(count)]


def ice_dnd_advantage() -> list[Fraction]:
    """1d20+9 with advantage against 15: success, failure."""
    import icepool

    p = Fraction((icepool.d20.highest(2) + 9 >= 15).probability(True))
    return [p, 1 - p]


def ice_fate() -> list[Fraction]:
    """4dF+4 against Fair (2), by margin: style (3+), succeed (1+), tie, fail."""
    import icepool

    margin = 4 @ icepool.Die([-1, 0, 1]) + 4 - 2
    return _bands(margin, lambda m: 0 if m >= 3 else 1 if m >= 1 else 2 if m == 0 else 3, 4)


def ice_blades() -> list[Fraction]:
    """3d6, the highest against 4: critical (two sixes), full (6), partial (4-5), bad."""
    import icepool

    top_two = icepool.d6.pool(3).highest(2).expand()

    def read(dice: tuple[int, ...]) -> int:
        low, high = dice
        return 0 if low == 6 else 1 if high == 6 else 2 if high >= 4 else 3

    return _bands(top_two, read, 4)


def ice_wod() -> list[Fraction]:
    """5d10 at 6+, each 1 cancelling a success, one success needed: exceptional (5 or
    more), success, failure, botch (no success rolled and a 1)."""
    import icepool

    die = icepool.d10.map(lambda f: icepool.Vector((int(f >= 6), int(f == 1))))
    pool = 5 @ die

    def read(v: Any) -> int:
        hits, ones = v
        net = hits - ones
        if hits == 0 and ones > 0:
            return 3
        return 0 if net >= 5 else 1 if net >= 1 else 2

    return _bands(pool, read, 4)


def ice_coc() -> list[Fraction]:
    """1d100 at most 55 with two bonus tens dice (00 with 0 is 100, the lowest kept):
    critical (01), extreme (11), hard (27), regular (55), failure, fumble (100)."""
    import icepool

    tens = icepool.Die(range(10))

    def roll(units: int, *tens_dice: int) -> int:
        return min((t * 10 + units) or 100 for t in tens_dice)

    rolled = icepool.map(roll, tens, tens, tens, tens)

    def read(r: int) -> int:
        if r == 1:
            return 0
        if r == 100:
            return 5
        return 1 if r <= 11 else 2 if r <= 27 else 3 if r <= 55 else 4

    return _bands(rolled, read, 6)


def ice_genesys() -> list[Fraction]:
    """1 ability + 2 proficiency against 3 difficulty, one net success needed (a
    triumph counts as a success, a despair as a failure): success, failure."""
    import icepool

    def die(faces: list[str]) -> Any:
        return icepool.Die(
            [
                icepool.Vector((f.count("s") + f.count("t"), f.count("f") + f.count("d")))
                for f in faces
            ]
        )

    ability = die(["", "s", "s", "ss", "a", "a", "sa", "aa"])
    proficiency = die(["", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "t"])
    difficulty = die(["", "f", "ff", "h", "h", "h", "hh", "fh"])
    pool = ability + 2 @ proficiency + 3 @ difficulty
    return _bands(pool, lambda v: 0 if v[0] - v[1] >= 1 else 1, 2)


def ice_rolemaster() -> list[Fraction]:
    """Open-ended d100 (96+ rolls on and adds, 5 or less rolls on and subtracts, at
    most 20 dice) + 60 against 110, by margin: absolute success (75+), success (0+),
    partial (-25+), failure (-95+), absolute failure."""
    import icepool

    d100 = icepool.d100
    chain = d100.explode(range(96, 101), depth=18)
    total = d100.map(lambda f: f + chain if f >= 96 else f - chain if f <= 5 else f)

    def read(t: int) -> int:
        m = t + 60 - 110
        return 0 if m >= 75 else 1 if m >= 0 else 2 if m >= -25 else 3 if m >= -95 else 4

    return _bands(total, read, 5)


ICEPOOL: dict[str, Callable[[], list[Fraction]]] = {
    "dnd5e-srd advantage": ice_dnd_advantage,
    "fate-core": ice_fate,
    "blades": ice_blades,
    "wod-pool": ice_wod,
    "coc7e 2 bonus": ice_coc,
    "genesys": ice_genesys,
    "rolemaster-open": ice_rolemaster,
}

# -- the command line ------------------------------------------------------------------

CLI_RULESET, CLI_WHO, CLI_TAG = SCENARIOS["dnd5e-srd advantage"]
ICEPOOL_ONE_LINER = (
    "import icepool; p = (icepool.d20.highest(2) + 9 >= 15).probability(True); "
    "print(f'Success {float(p):.2%}'); print(f'Failure {float(1 - p):.2%}')"
)


def _cli_commands() -> tuple[list[str], list[str]]:
    from pathlib import Path

    bin_dir = Path(sys.executable).parent
    script = bin_dir / "dicebound"
    ours = [str(script)] if script.exists() else [sys.executable, "-m", "dicebound"]
    ours += ["odds", "--ruleset", CLI_RULESET, "--character", CLI_WHO, CLI_TAG]
    return ours, [sys.executable, "-c", ICEPOOL_ONE_LINER]


# -- measuring -------------------------------------------------------------------------


def _child(lib: str, name: str) -> None:
    start = time.perf_counter()
    answer = dicebound_first(name) if lib == "dicebound" else ICEPOOL[name]()
    done = time.perf_counter()
    print(json.dumps({"seconds": done - start, "answer": [str(p) for p in answer]}))


def _env(pyc: str, cache: str | None) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pyc
    env.pop("DICEBOUND_CACHE_DIR", None)
    env.pop("DICEBOUND_NO_CACHE", None)
    if cache is None:
        env["DICEBOUND_NO_CACHE"] = "1"
    else:
        env["DICEBOUND_CACHE_DIR"] = cache
    return env


def _spawn(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Whole-process seconds and the child's output."""
    import subprocess

    start = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, out.stdout


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.1f}"


def main() -> None:
    import argparse
    import tempfile
    from pathlib import Path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="timed runs of each child")
    parser.add_argument("--no-cache", action="store_true", help="no compiled-ruleset cache")
    parser.add_argument("--only", action="append", help="a scenario's name (repeatable)")
    args = parser.parse_args()
    names = args.only or list(SCENARIOS)

    for name in names:  # the same answers, or nothing to compare
        ours, theirs = dicebound_first(name), ICEPOOL[name]()
        assert ours == theirs, f"{name}: dicebound {ours} but icepool {theirs}"
    print(f"exact answers agree on all {len(names)} scenarios")

    with tempfile.TemporaryDirectory(prefix="dicebound-cold-") as tmp:
        cache = None if args.no_cache else str(Path(tmp) / "cache")
        env = _env(str(Path(tmp) / "pyc"), cache)
        _scenarios(names, args.rounds, env)
        _command_line(args.rounds, env)
    print("ratio = icepool's time / dicebound's (goal: 1.0 or more)")
    print(
        f"python {sys.version.split()[0]}; compiled-ruleset cache: {'off' if cache is None else 'on'}"
    )


def _scenarios(names: list[str], rounds: int, env: dict[str, str]) -> None:
    import statistics

    argv = {
        (lib, n): [sys.executable, __file__, "--child", lib, n]
        for n in names
        for lib in ("dicebound", "icepool")
    }
    inner: dict[tuple[str, str], list[float]] = {k: [] for k in argv}
    whole: dict[tuple[str, str], list[float]] = {k: [] for k in argv}
    for _ in range(rounds + 1):  # the first round fills the bytecode and ruleset caches
        for key, command in argv.items():
            seconds, out = _spawn(command, env)
            inner[key].append(json.loads(out)["seconds"])
            whole[key].append(seconds)
    print()
    print(f"import + first check_odds, fresh processes, {rounds} rounds (ms, median / best)")
    head = f"{'':22}{'dicebound':>19}{'icepool':>19}{'ratio':>14}"
    for label, table in (("in-process", inner), ("whole process", whole)):
        print(f"{label}:\n{head}")
        for n in names:
            ours, theirs = table["dicebound", n][1:], table["icepool", n][1:]
            med = statistics.median(theirs) / statistics.median(ours)
            best = min(theirs) / min(ours)
            print(
                f"  {n:20}{_ms(statistics.median(ours))} /{_ms(min(ours))}"
                f"{_ms(statistics.median(theirs))} /{_ms(min(theirs))}"
                f"{med:7.2f} /{best:5.2f}"
            )


def _command_line(rounds: int, env: dict[str, str]) -> None:
    import statistics

    ours, theirs = _cli_commands()
    runs: dict[str, list[float]] = {"ours": [], "theirs": []}
    for i in range(rounds * 2 + 1):  # one warming run each, then interleaved
        for key, command in (("ours", ours), ("theirs", theirs)):
            seconds, _ = _spawn(command, env)
            if i:
                runs[key].append(seconds)
    print()
    print(f"the command line, whole process, {rounds * 2} runs each (ms)")
    for key, command in (("ours", ours), ("theirs", theirs)):
        shown = " ".join(command) if key == "ours" else f'{command[0]} -c "<icepool: same odds>"'
        r = runs[key]
        print(
            f"  {shown}\n      median {_ms(statistics.median(r))}  best {_ms(min(r))}"
            f"  mean {_ms(statistics.mean(r))} ± {_ms(statistics.stdev(r)).strip()}"
        )
    med = statistics.median(runs["theirs"]) / statistics.median(runs["ours"])
    print(f"  ratio (median) {med:.2f}   (best) {min(runs['theirs']) / min(runs['ours']):.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        main()
