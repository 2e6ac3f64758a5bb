"""FIGHTS §16.5 E32, its saves and limits (the contest is in test_fight_pools.py, the
held hit waits on windows): Stern Word's pool save, each way; Lantern Flare's price
counted against Gravewatch's spend limit of one Resolve a turn (§2.1 ``spendLimits``):
the limit kept on the combatant, a second spend off the menu and refused
``insufficient``, the count back to 0 at Ada's next turn (§10.2)."""

from __future__ import annotations

import json

import pytest
from fight_fixtures import Game
from pool_fixtures import gw_start

from dicebound.fight.state import FightError, load_state
from dicebound.fight.view import options_of

HOLLOW = "Hollow (night/hollow-warden)"


def _menu(game: Game) -> list[str]:
    assert game.fight is not None
    return [o["label"] for o in options_of(game.ruleset, game.fight, game.party, game.c("ada"))]


def test_e32_stern_word_a_pool_save_that_holds_and_one_that_fails() -> None:
    held = gw_start(HOLLOW, "gw1", 10, 1)
    assert held.now('op="act" who="Ada" option="Stern Word" target="Hollow"', 7, 8, 2) == (
        "Ada spends 1 Resolve; Hollow Steel: (7,8,2) 2 successes vs 2 success"
    )
    assert held.last is not None
    save = next(e for e in held.last.events if e["type"] == "save")
    assert save["pool"] == {"dice": 3, "target": 7} and save["success"] is True
    assert held.c("hollow")["tracked"] == []
    failed = gw_start(HOLLOW, "gw1", 10, 1)
    assert failed.now('op="act" who="Ada" option="Stern Word" target="Hollow"', 7, 2, 3) == (
        "Ada spends 1 Resolve; Hollow Steel: (7,2,3) 1 successes vs 2 failure; Hollow Rattled on"
    )


def test_e32_one_resolve_a_turn_then_the_limit_refills() -> None:
    game = gw_start(HOLLOW, "gw1", 10, 1)
    assert game.c("ada")["limits"] == {"resolve": {"max": 1, "per": "turn", "spent": 0}}
    assert "Stern Word" in _menu(game)
    game.tag('op="act" who="Ada" option="Lantern Flare" target="Hollow"', 8, 7, 3, 4, 2, 2)
    assert game.c("ada")["limits"] == {"resolve": {"max": 1, "per": "turn", "spent": 1}}
    # the quick budget is still there, the Resolve to pay too: only the limit says no
    assert game.c("ada")["budgets"]["quick"] == 1
    assert "Stern Word" not in _menu(game)
    before = json.dumps(game.fight)
    refused = game.tag('op="act" who="Ada" option="Stern Word" target="Hollow"')
    assert refused.endswith('result="refused" reason="insufficient"]')
    assert json.dumps(game.fight) == before
    game.E("Ada")
    game.E("Hollow")
    assert game.c("ada")["limits"]["resolve"]["spent"] == 0
    assert "Stern Word" in _menu(game)


def test_a_state_whose_limits_are_not_numbers_is_refused() -> None:
    game = gw_start(HOLLOW, "gw1", 10, 1)
    broken = json.loads(json.dumps(game.fight))
    broken["combatants"][0]["limits"] = {"resolve": {"max": "one", "per": "turn", "spent": 0}}
    with pytest.raises(FightError, match="spend limits"):
        load_state(broken)
