"""FIGHTS §14 in a dice-pool fight: the exact odds of a pool attack option (explosions,
cancels and botches, leaning, bonus dice, a wound penalty, extra damage dice, soak
rolled or taken off, a wound track's marks) agree with the resolver's own tally over
every face sequence it asks for; and seeded fights follow them (chi-square)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from fight_fixtures import Game
from odds_support import as_fractions, menu_odds, resolver_tally, seeded_p_value
from pool_fixtures import ada, gw, gw_start

from budget import examples
from stats import ALPHA

RATS = "Rats (night/grave-rats)"
HOLLOW = "Hollow (night/hollow-warden)"
THREE_KNOCKS = {"wounds": {"harm": {"marks": ["knock", "knock", "knock"]}}}


def _small(live: dict[str, Any] | None = None, sinew: int = 3) -> Game:
    """The small variant (d4, pools of at most two): Ada against the rats and the
    hollow warden."""
    ruleset = gw("small")
    game = Game(ruleset, (ada(ruleset, live, sinew, sides=4),))
    game.S("Ada", f"{RATS}, {HOLLOW}", 4, 1, 1)
    return game


def _agree(game: Game, who: str, option: str, target: str) -> dict[str, Any]:
    odds = menu_odds(game, who, option)
    assert odds is not None
    mine = as_fractions(odds[target])
    tally = resolver_tally(game, who, option, target)
    assert mine["hit"] == tally["hit"]
    assert mine["critical"] == tally["critical"] == 0
    assert mine["dealt"] == tally["dealt"]
    assert mine["drops"] == tally["drops"]
    return mine


@pytest.mark.parametrize(
    ("option", "target"),
    [("attack:0:0", "hollow"), ("attack:0:0", "rats"), ("attack:0:1", "rats")],
    ids=["spade-soak-rolled", "spade-no-soak", "hook-automatic"],
)
def test_a_pool_attack_agrees_with_the_resolver(option: str, target: str) -> None:
    mine = _agree(_small(), "ada", option, target)
    assert mine["hit"] > 0 and sum(mine["dealt"].values()) == 1


def test_leaning_and_a_wound_penalty_agree() -> None:
    """Ada Bleeding (three dice off the Hook's three, held to ``pool.min`` 1) at marked
    rats (advantage: the better of two throws, a botch worse than anything)."""
    game = _small(THREE_KNOCKS)
    game.c("rats")["tracked"].append({"condition": "marked", "rounds": None})
    marked = _agree(game, "ada", "attack:0:1", "rats")
    plain = as_fractions((menu_odds(_small(THREE_KNOCKS), "ada", "attack:0:1") or {})["rats"])
    # One die: a three, or a four whose added die is not a one (a one cancels it).
    assert plain["hit"] == Fraction(1, 4) + Fraction(1, 4) * Fraction(3, 4)
    assert marked["hit"] == 1 - (1 - plain["hit"]) ** 2


def test_a_blow_on_a_wound_track_agrees() -> None:
    """The hollow warden at Ada with three knocks marked (one level left) and Sinew 1
    (one knock soaked, rolled): any hurt takes her down."""
    game = _small(THREE_KNOCKS, sinew=1)
    game.E("Ada")
    game.E("Rats")
    mine = _agree(game, "hollow", "grip", "ada")
    assert mine["drops"] == 1 - mine["dealt"][0]


def test_a_wound_penalty_takes_dice_off() -> None:
    hurt = as_fractions((menu_odds(_small(THREE_KNOCKS), "ada", "attack:0:0") or {})["rats"])
    whole = as_fractions((menu_odds(_small(), "ada", "attack:0:0") or {})["rats"])
    assert hurt["hit"] < whole["hit"]  # Bleeding: three dice off, held to pool.min


def test_soak_taken_off_before_the_throw_agrees() -> None:
    game = gw_start(HOLLOW, "gw1-soak-unrolled")
    game.E("Ada")
    odds = menu_odds(game, "hollow", "grip")
    assert odds is not None
    dealt = as_fractions(odds["ada"])["dealt"]
    # Sinew 3 soaks three of the grip's dice before they are thrown: 2d10 + extra - 3.
    assert max(dealt) <= 15 - 3 and sum(dealt.values()) == 1


def test_the_forecast_of_a_pool_option() -> None:
    game = gw_start(RATS)
    assert game.fight is not None
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import offered

    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    spade, hook = offered(work, game.c("ada"))[:2]
    odds = spade["odds"]["rats"]
    assert spade["forecast"]["hitChance"] == float(
        (Fraction(odds["hit"]) * 1000 + Fraction(1, 2)).__floor__() / 1000
    )
    assert spade["forecast"]["averageDamage"] == 1.0  # 2 dice x 1/2 at six on a d10
    assert hook["forecast"]["averageDamage"] == 1.5  # 1 die x 1/2, one automatic


DRAWS = 8_000 * examples(100) // 25
"""Seeded fights: 8,000 in the default run, 32,000 under the deep profile."""


def test_seeded_pool_fights_follow_the_odds_chi_square() -> None:
    assert seeded_p_value(gw_start(HOLLOW), "ada", "attack:0:0", "hollow", DRAWS) > ALPHA


def test_a_pool_save_that_halves_agrees() -> None:
    """The rats' Gnaw at Ada Bleeding (her Steel save one die, held to ``pool.min``)."""
    ruleset = gw("small-saved")
    game = Game(ruleset, (ada(ruleset, THREE_KNOCKS, sides=4),))
    game.S("Ada", RATS, 1, 4)
    assert game.fight is not None and game.fight["order"] == ["rats", "ada"]
    mine = _agree(game, "rats", "gnaw", "ada")
    assert 0 < mine["save"] < mine["hit"]
