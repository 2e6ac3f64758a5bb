"""Fights: a whole round resolved from its text, and the odds of a whole menu.

The fight is the tests' F5 (Marinara's fifth edition example as the fight tests trim it,
``tests/fight/fight_fixtures.py``, read from ``../shared`` beside the repository): a party
of three (Brenna and Dara, each with a Longsword, a Dagger and an Emberblade, Dara
deafened so her attacks add 1d4; Corwin, whose spells fights do not play yet) against
Rot, Husk and Volley (whose Twin Shot aims at two).

(a) A round: the six turns as one text of ``[fight:]`` tags (each combatant acts, then
    ends its turn: twelve tags), resolved by ``dicebound.resolve_text`` from the same
    state after the start, a fresh seed each time. Milliseconds per round: the median of
    wall time and of the process's CPU time, the least and p90 of wall time. Goal: under
    2 ms (the CPU median: a busy machine stretches the wall time, not the work).
(b) A menu: the current actor's options with their forecasts and exact odds
    (``fight.menu.offered``), for Brenna and for Dara (three attacks, three legal targets
    each; Dara's attack die): milliseconds per whole menu, the median of firsts (the
    remembered dice sums forgotten before each) and the median of menus in a row. Goal:
    under 5 ms.

Run: ``.venv/bin/python bench/fight.py [--rounds 300] [--menus 300]`` (prints the
figures and "ok" under each goal or "OVER" past it).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "fight")]

from fight_fixtures import BRENNA, CORWIN, Game, character, f5  # noqa: E402

from dicebound import resolve_text  # noqa: E402
from dicebound.dice import ForcedFaces  # noqa: E402
from dicebound.fight import odds, sums  # noqa: E402, F401 (loaded before any menu is timed)
from dicebound.fight.context import Step  # noqa: E402
from dicebound.fight.dice import Thrower  # noqa: E402
from dicebound.fight.menu import offered  # noqa: E402

ROUND_GOAL_MS = 2.0
MENU_GOAL_MS = 5.0

WEAPONS = [
    ("Dagger", "1d4", "piercing"),
    ("Emberblade", "2d6", "fire"),
]


def _fighter(name: str, live: dict[str, Any] | None = None) -> Any:
    raw = copy.deepcopy(BRENNA)
    raw["name"] = name
    attacks = raw["sheet"]["build"]["lists"]["attacks"]
    for label, dice, kind in WEAPONS:
        attacks.append(
            {
                "name": label,
                "ability": "str",
                "proficient": True,
                "bonus": 0,
                "damage": dice,
                "damage_type": kind,
            }
        )
    return character(raw, live)


def _game() -> Game:
    party = (_fighter("Brenna"), _fighter("Dara", {"conditions": ["deafened"]}), character(CORWIN))
    game = Game(f5(), party)
    # Initiative: Brenna 22, Rot 18, Dara 17, Husk 12, Corwin 9, Volley 8.
    game.S("Brenna, Dara, Corwin", "Rot, Husk, Volley", 20, 15, 7, 18, 12, 3)
    return game


ROUND = " ".join(
    [
        '[fight: op="act" who="Brenna" option="Longsword" target="Husk"]',
        '[fight: op="end-turn" who="Brenna"]',
        '[fight: op="act" who="Rot" option="Bite" target="Dara"]',
        '[fight: op="end-turn" who="Rot"]',
        '[fight: op="act" who="Dara" option="Emberblade" target="Rot"]',
        '[fight: op="end-turn" who="Dara"]',
        '[fight: op="act" who="Husk" option="Slam" target="Brenna"]',
        '[fight: op="end-turn" who="Husk"]',
        '[fight: op="act" who="Corwin" option="standard:dodge"]',
        '[fight: op="end-turn" who="Corwin"]',
        '[fight: op="act" who="Volley" option="Twin Shot" target="Brenna, Dara"]',
        '[fight: op="end-turn" who="Volley"]',
    ]
)


def _ms(run: Callable[[], object], times: int) -> list[float]:
    return [pair[0] for pair in _wall_and_cpu(run, times)]


def _wall_and_cpu(run: Callable[[], object], times: int) -> list[tuple[float, float]]:
    """Each run's wall time and this process's CPU time, in milliseconds."""
    spent = []
    for _ in range(times):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        spent.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return spent


def _verdict(value: float, goal: float) -> str:
    return "ok" if value < goal else "OVER"


def bench_round(rounds: int) -> float:
    game = _game()
    assert game.fight is not None
    first = resolve_text(game.ruleset, game.party, ROUND, seed="round-0", fight=game.fight)
    steps = first.fight_steps
    assert len(steps) == 12 and all(s.ok for _, s in steps), [s.reason for _, s in steps]
    seeds = iter(range(1, rounds + 1))

    def one() -> object:
        return resolve_text(
            game.ruleset, game.party, ROUND, seed=f"round-{next(seeds)}", fight=game.fight
        )

    spent = _wall_and_cpu(one, rounds)
    wall = [w for w, _ in spent]
    cpu = statistics.median(c for _, c in spent)
    median = statistics.median(wall)
    print(
        f"(a) a round, 12 tags, six combatants: median {median:.2f} ms wall, {cpu:.2f} ms "
        f"CPU, least {min(wall):.2f} ms, p90 {statistics.quantiles(wall, n=10)[-1]:.2f} ms "
        f"per round ({cpu / 12:.3f} ms CPU a tag); goal {ROUND_GOAL_MS} ms (CPU, which other "
        f"processes on the machine do not stretch): {_verdict(cpu, ROUND_GOAL_MS)}"
    )
    return cpu


def _menu(game: Game, who: str, menus: int) -> float:
    """One actor's menu: the first (the dice sums forgotten), then ``menus`` more."""
    assert game.fight is not None
    fight = copy.deepcopy(game.fight)
    fight["turn"] = fight["order"].index(who)
    work = Step(game.ruleset, fight, game.party, Thrower(ForcedFaces(())))
    actor = next(c for c in fight["combatants"] if c["id"] == who)

    def afresh() -> object:
        _forget_sums()
        return offered(work, actor)

    first = statistics.median(_ms(afresh, max(1, menus // 10)))
    menu = offered(work, actor)
    weighed = [o for o in menu if "odds" in o]
    assert len(weighed) == 3 and all(len(o["odds"]) == 3 for o in weighed)
    spent = _ms(lambda: offered(work, actor), menus)
    median = statistics.median(spent)
    plain = statistics.median(_ms(lambda: offered(work, actor, weigh=False), menus))
    print(
        f"(b) {actor['name']}'s menu ({len(menu)} options, odds for 3 attacks x 3 targets): "
        f"first (median) {first:.2f} ms, in a row median {median:.2f} ms, least {min(spent):.2f} ms (the "
        f"menu without forecasts and odds: {plain:.2f} ms); goal {MENU_GOAL_MS} ms: "
        f"{_verdict(max(first, median), MENU_GOAL_MS)}"
    )
    return max(first, median)


def bench_menu(menus: int) -> float:
    game = _game()
    return max(_menu(game, who, menus) for who in ("brenna", "dara"))


def _forget_sums() -> None:
    """The dice sums the odds remember, forgotten: the next menu is a first one."""
    sums._sum_counts.cache_clear()
    sums._kept.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--menus", type=int, default=300)
    args = parser.parse_args()
    bench_round(args.rounds)
    bench_menu(args.menus)


if __name__ == "__main__":
    main()
