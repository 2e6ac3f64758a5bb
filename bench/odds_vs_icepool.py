"""Exact odds at the first ask: dicebound's public ``check_odds`` against icepool.

Eight scenarios, each a packaged ruleset, a packaged character and a tag, asked the way
a user asks (``check_odds(ruleset, character, tag)``; ``dicebound odds --json`` is the
same call plus ``to_json``), beside icepool computing the same distribution and reading
it into the same bands. Before timing, both answers are worked out and must agree
exactly (every band's probability, as a fraction), or the bench stops.

1. 1d20+5 with advantage against DC 15 in five bands. No packaged ruleset reads a d20
   with advantage in five bands (dnd5e-srd has none, pf2e-degrees four with a shift),
   so this one is dnd5e-srd with five margin bands added, compiled here in code; the
   character is the packaged Bram (Athletics +5).
2. Fate (fate-core): Ines's Investigate (+4) against Great (+4), one question as the
   others are; icepool works 4dF+4 and reads it at that step.
3. Blades: Silk's Prowl, three dice, an action roll, four bands.
4. A World of Darkness pool (wod-pool): Lucia's Alertness, 5d10 at 6+, ones cancel,
   a botch, five successes exceptional.
5. Call of Cthulhu (coc7e): Eleanor's Spot Hidden (55) with two bonus dice, six bands.
6. Genesys: 3 ability and 2 proficiency dice against 3 difficulty dice. No packaged
   character throws that pool, so it is the packaged Kira with Agility 5 (her Stealth
   rank 2 upgrades two of the five dice), built here in code.
7. Rolemaster (rolemaster-open): Aelith's Stalk and Hide (+60), the open-ended d100,
   against Hard (110), five bands.
8. Fate again, against every step of the ladder: eleven questions, eleven
   ``check_odds`` calls per run, where icepool works 4dF+4 once and reads it at each
   step (a sweep: its one distribution serves eleven answers).

Columns, microseconds per run of a scenario (best of several timeit repeats, every
column and icepool interleaved round by round in one process):

- ``first ask`` (the headline): questions the process has not seen. Before each run
  what ``check_odds`` remembered of its answers is forgotten, and so are the tags the
  lexer remembers; kept are what the ruleset alone decides (the tables of its dice,
  its names: what each skill name and difficulty written so far resolved to) and each
  character's sheet numbers, as in a session that asks a new modifier, a new
  difficulty or the first what-if of a character it already shows.
- ``new char``: the same, with the character's sheet numbers forgotten too: its first
  question of all. Kept still, for every character, are the folded distributions of
  each config's checks by their key (``READERS_KEY``): a new character whose check
  throws what another's did reads them at its dc. For a summed check the key is the
  mode alone (the modifier moves the fold: ``odds_shift``), so this is a new character
  of any modifier.
- ``new key``: the same, with the folded distributions forgotten too: a check whose
  dice nobody threw before in the process (for a summed check, the first in its mode
  whatever the modifier; for a pool, its first of that many dice), folded from the
  tables.
- ``cold``: everything the ruleset remembered forgotten (the tables of its dice and
  its names too): the first question of a freshly loaded ruleset.
- ``warm``: the answer remembered (``check_odds`` asked again).
- ``kind``: the kind's own ``distribution`` alone, on the prepared check (no table
  kept, no band read), which no user calls.
- ``icepool``, and the ratios icepool / first ask (the goal: 10x or more on every
  scenario), icepool / new char, icepool / new key and icepool / warm.

``--before SRC`` (an earlier dicebound's ``src``) measures both sides, each scenario
in a process of its own per side (``PYTHONPATH`` the side's tree), the sides taking
turns scenario by scenario for ``--rounds`` rounds, the best of each column kept: a
change in the machine's load falls on both. Printed per scenario: each side's row
and the ratios, then the headline's ratio after / before.

Run: ``.venv/bin/python bench/odds_vs_icepool.py [--repeat N] [--only 1,4]
[--before /tmp/before/src [--rounds 3]]``
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

from dicebound import odds as odds_module
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.edge.files import read_character, read_ruleset, ruleset_text
from dicebound.engine import prepare_check
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tags import parse as lexer
from dicebound.tags.parse import parse_tags

# -- the scenarios ---------------------------------------------------------------------

FIVE_BANDS = {
    "by": "margin",
    "tiers": [
        {"id": "triumph", "label": "Triumph", "atLeast": 10, "success": True, "critical": True},
        {"id": "clean", "label": "Clean success", "atLeast": 5, "success": True},
        {"id": "cost", "label": "Success at a cost", "atLeast": 0, "success": True},
        {"id": "near", "label": "Near miss", "atLeast": -5},
        {"id": "fail", "label": "Failure"},
    ],
}


def _five_band_dnd() -> Ruleset:
    raw = json.loads(ruleset_text("dnd5e-srd")[0])
    raw["resolution"]["outcomes"] = FIVE_BANDS
    return compile_ruleset(raw)


def _packaged_json(ruleset_id: str, who: str) -> dict[str, Any]:
    from importlib import resources

    path = resources.files("dicebound") / "data" / "characters" / ruleset_id / f"{who}.json"
    out: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return out


@dataclass(frozen=True)
class Scenario:
    title: str
    ruleset: Ruleset
    character: Character
    tags: tuple[str, ...]  # one check_odds call per tag in a run
    icepool: Callable[[], list[list[Fraction]]]


def _one(ruleset_id: str, who: str) -> tuple[Ruleset, Character]:
    ruleset = read_ruleset(ruleset_id)
    return ruleset, read_character(ruleset, who)


# -- icepool: the same distribution, read into the same bands --------------------------


def _bands(die: Any, read: Callable[[Any], int], count: int) -> list[Fraction]:
    """The probability of each band ``read`` puts an outcome of ``die`` in, best first."""
    weights = [0] * count
    for outcome, quantity in die.items():
        weights[read(outcome)] += quantity
    return [Fraction(w, die.denominator()) for w in weights]


def _margin_bands(cuts: Sequence[int]) -> Callable[[int], int]:
    """Band index of a margin: the first cut it reaches, else the last band."""

    def read(margin: int) -> int:
        return next((i for i, cut in enumerate(cuts) if margin >= cut), len(cuts))

    return read


def ice_advantage() -> list[list[Fraction]]:
    import icepool

    margin = icepool.d20.highest(2) + 5 - 15
    return [_bands(margin, _margin_bands((10, 5, 0, -5)), 5)]


FATE_STEPS = (-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8)  # Terrible .. Legendary


def ice_fate(steps: Sequence[int] = FATE_STEPS) -> list[list[Fraction]]:
    import icepool

    total = 4 @ icepool.Die([-1, 0, 1]) + 4
    read = _margin_bands((3, 1, 0))
    return [_bands(total - dc, read, 4) for dc in steps]


def ice_blades() -> list[list[Fraction]]:
    import icepool

    top_two = icepool.d6.pool(3).highest(2).expand()

    def read(dice: tuple[int, ...]) -> int:
        low, high = dice
        return 0 if low == 6 else 1 if high == 6 else 2 if high >= 4 else 3

    return [_bands(top_two, read, 4)]


def ice_wod() -> list[list[Fraction]]:
    import icepool

    die = icepool.d10.map(lambda f: icepool.Vector((int(f >= 6), int(f == 1))))

    def read(v: Any) -> int:
        hits, ones = v
        if hits == 0 and ones > 0:
            return 3  # a botch
        net = hits - ones
        return 0 if net >= 5 else 1 if net >= 1 else 2

    return [_bands(5 @ die, read, 4)]


def _percentile(units: int, *tens: int) -> int:
    """The lowest percentile the tens dice make with the units die (00 with 0 is 100)."""
    return min(10 * t + units or 100 for t in tens)


COC_CUTS = ((1, 0), (11, 1), (27, 2), (55, 3), (99, 4), (100, 5))  # (highest roll, band)


def ice_coc() -> list[list[Fraction]]:
    import icepool

    digit = icepool.Die(range(10))
    rolled = icepool.map(_percentile, digit, digit, digit, digit)  # units and 3 tens dice
    return [_bands(rolled, lambda r: next(i for top, i in COC_CUTS if r <= top), 6)]


def ice_genesys(faces: dict[str, Sequence[Sequence[str]]]) -> list[list[Fraction]]:
    """The dice's faces as the packaged ruleset has them (read before timing): a triumph
    counts as a success, a despair as a failure; one net success is needed."""
    import icepool

    def die(name: str) -> Any:
        net = [f.count("s") + f.count("t") - f.count("f") - f.count("d") for f in faces[name]]
        return icepool.Die(net)

    pool = 3 @ die("ability") + 2 @ die("proficiency") + 3 @ die("difficulty")
    return [_bands(pool, lambda net: 0 if net >= 1 else 1, 2)]


def ice_rolemaster() -> list[list[Fraction]]:
    import icepool

    d100 = icepool.d100
    chain = d100.explode(range(96, 101), depth=18)  # up to 19 more dice: 20 in all
    total = d100.map(lambda f: f + chain if f >= 96 else f - chain if f <= 5 else f)
    return [_bands(total + 60 - 110, _margin_bands((75, 0, -25, -95)), 5)]


def scenarios() -> list[Scenario]:
    dnd = _five_band_dnd()
    fate, ines = _one("fate-core", "ines")
    genesys = read_ruleset("genesys")
    fate_tags = tuple(f'skill="Investigate" difficulty="{s.label}"' for s in fate.resolution.ladder)
    assert tuple(s.dc for s in fate.resolution.ladder) == FATE_STEPS
    return [
        Scenario(
            "1. 1d20+5 advantage, DC 15, 5 bands",
            dnd,
            read_character(dnd, "dnd5e-srd/bram"),
            ('skill="Athletics" dc="15" mode="advantage"',),
            ice_advantage,
        ),
        Scenario(
            "2. Fate 4dF+4 against Great (+4)",
            fate,
            ines,
            ('skill="Investigate" difficulty="Great"',),
            partial(ice_fate, (4,)),
        ),
        Scenario(
            "3. Blades 3d6 action roll",
            *_one("blades", "silk"),
            ('skill="Prowl" difficulty="Action roll"',),
            ice_blades,
        ),
        Scenario(
            "4. WoD 5d10 pool",
            *_one("wod-pool", "lucia"),
            ('skill="Alertness" difficulty="Standard"',),
            ice_wod,
        ),
        Scenario(
            "5. CoC 55% with 2 bonus dice",
            *_one("coc7e", "eleanor"),
            ('skill="Spot Hidden" bonus="2"',),
            ice_coc,
        ),
        Scenario(
            "6. Genesys 3 abil + 2 prof vs 3 diff",
            genesys,
            load_character(genesys, _with_agility(_packaged_json("genesys", "kira"), 5)),
            ('skill="Stealth" difficulty="Hard"',),
            partial(ice_genesys, {d.id: d.faces for d in genesys.resolution.config.dice}),
        ),
        Scenario(
            "7. Rolemaster open-ended d100+60",
            *_one("rolemaster-open", "aelith"),
            ('skill="Stalk and Hide" difficulty="Hard"',),
            ice_rolemaster,
        ),
        Scenario("8. Fate 4dF+4, all 11 ladder steps", fate, ines, fate_tags, ice_fate),
    ]


def _with_agility(raw: dict[str, Any], agility: int) -> dict[str, Any]:
    raw = copy.deepcopy(raw)
    raw["sheet"]["build"]["abilities"]["agility"] = agility
    return raw


# -- the dicebound side ----------------------------------------------------------------

# What the ruleset remembers that no question decides (its names, the tables of its
# dice), and what it remembers of each character (its sheet numbers): the keys of
# ``Ruleset.memo`` each column keeps. Read with defaults so the bench also measures a
# dicebound from before these were kept.
DICE_KEPT = frozenset({"names", getattr(odds_module, "TABLES_KEY", "names")})
RULESET_KEPT = DICE_KEPT | {getattr(odds_module, "READERS_KEY", "names")}
CHARACTER_KEPT = frozenset({getattr(odds_module, "VIEWS_KEY", "names")})


def public(s: Scenario) -> Callable[[], list[list[Fraction]]]:
    def run() -> list[list[Fraction]]:
        return [
            [o.probability for o in check_odds(s.ruleset, s.character, t).outcomes] for t in s.tags
        ]

    return run


def forgetting(s: Scenario, kept: frozenset[str]) -> Callable[[], list[object]]:
    """``check_odds`` on every tag of the scenario, once the ruleset has forgotten all it
    remembered but the keys ``kept`` (and the lexer the tags it read)."""
    memo = s.ruleset.memo

    def run() -> list[object]:
        keep = [(k, memo[k]) for k in kept if k in memo]
        memo.clear()
        memo.update(keep)
        lexer._read_well_formed.cache_clear()
        return [check_odds(s.ruleset, s.character, t) for t in s.tags]

    return run


def kind_level(s: Scenario) -> Callable[[], list[object]]:
    prepared = [
        prepare_check(s.ruleset, [s.character], parse_tags(f"[skill_check: {t}]")[0])
        for t in s.tags
    ]
    pairs = [(p.player.distribution, p.prepared.check) for p in prepared]
    return lambda: [distribution(check) for distribution, check in pairs]


# -- measuring -------------------------------------------------------------------------


def _best(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best seconds per call of each, the runs interleaved round by round."""
    numbers = {k: timeit.Timer(run).autorange()[0] for k, run in runs.items()}
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for k, run in runs.items():
            best[k] = min(best[k], timeit.timeit(run, number=numbers[k]) / numbers[k])
    return best


COLUMNS = ("first ask", "new char", "new key", "cold", "warm", "kind", "icepool")
RATIOS = ("first ask", "new char", "new key", "warm")  # icepool over each


def measure(s: Scenario, repeat: int) -> dict[str, float]:
    """Best seconds per run of each column of one scenario, its answers checked first."""
    ours, theirs = public(s)(), s.icepool()
    assert ours == theirs, f"{s.title}: the answers differ\n{ours}\n{theirs}"
    return _best(
        {
            "first ask": forgetting(s, RULESET_KEPT | CHARACTER_KEPT),
            "new char": forgetting(s, RULESET_KEPT),
            "new key": forgetting(s, DICE_KEPT),
            "cold": forgetting(s, frozenset()),
            "warm": public(s),
            "kind": kind_level(s),
            "icepool": s.icepool,
        },
        repeat,
    )


def _row(title: str, t: dict[str, float]) -> str:
    cells = "".join(f"{t[k] * 1e6:10.1f}" for k in COLUMNS)
    return f"{title:38}{cells}" + "".join(f"{t['icepool'] / t[k]:9.1f}x" for k in RATIOS)


def _side(src: Path, number: int, repeat: int) -> dict[str, float]:
    """One scenario measured by the dicebound of ``src``, in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, __file__, "--only", str(number), "--repeat", str(repeat)]
    out = subprocess.run([*command, "--json"], env=env, check=True, capture_output=True)
    measured: dict[str, float] = json.loads(out.stdout)
    return measured


def _sides(
    before: Path, every: Sequence[Scenario], numbers: Sequence[int], repeat: int, rounds: int
) -> None:
    """Both sides, scenario by scenario in turn, the best of ``rounds`` kept (``every``
    scenario, for their titles; each side builds its own)."""
    trees = {"before": before.resolve(), "after": Path(__file__).resolve().parents[1] / "src"}
    best: dict[tuple[str, int], dict[str, float]] = {}
    for _ in range(rounds):
        for number in numbers:
            for side, src in trees.items():
                t = _side(src, number, repeat)
                kept = best.setdefault((side, number), t)
                for k, v in t.items():
                    kept[k] = min(kept[k], v)
    for number in numbers:
        title = every[number - 1].title[:31]
        for side in trees:
            print(_row(f"{side:6} {title}", best[(side, number)]))
        was, now = best[("before", number)], best[("after", number)]
        moved = " ".join(f"{k} {was[k] / now[k]:.2f}x" for k in RATIOS[:3])
        print(f"{'':7}faster after, best of {rounds}: {moved}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats (best kept)")
    parser.add_argument("--only", default="", help="scenario numbers, comma separated")
    parser.add_argument("--before", type=Path, default=None, help="an earlier tree's src")
    parser.add_argument("--rounds", type=int, default=3, help="--before: rounds of both sides")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one side's
    args = parser.parse_args()
    every = scenarios()
    only = {int(n) for n in args.only.split(",") if n}
    numbers = [n for n in range(1, len(every) + 1) if not only or n in only]
    if args.json:  # a side of --before: one scenario's columns, as JSON
        print(json.dumps(measure(every[numbers[0] - 1], args.repeat)))
        return
    heads = (*COLUMNS, "x first", "x new", "x key", "x warm")
    print(f"{'µs per run':38}" + "".join(f"{h:>10}" for h in heads))
    if args.before is not None:
        _sides(args.before, every, numbers, args.repeat, args.rounds)
        return
    worst = float("inf")
    for number in numbers:
        s = every[number - 1]
        t = measure(s, args.repeat)
        worst = min(worst, t["icepool"] / t["first ask"])
        print(_row(s.title, t))
    print(
        "x first = icepool / first ask (the goal: 10x or more), x new = icepool / new char,"
        " x key = icepool / new key,"
        f" x warm = icepool / warm. Exact answers agree. Lowest x first: {worst:.1f}x"
    )


if __name__ == "__main__":
    main()
