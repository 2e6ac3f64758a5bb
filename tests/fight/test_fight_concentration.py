"""FIGHTS §8.3: an action that concentrates starts it (ending the one held,
``replaced``) before its targets; a blow that hurts a standing concentrator asks the
concentration save against ``max(floor, floor(dealt × fromDamage))``; a failure, or
going down (no save), ends it and takes off every condition it held. A party member's
concentration is its sheet's note, written through the sheet's ``note`` command.

Only ability rows concentrate, and they are not played yet, so these fights carry an
action marked ``concentration`` in their state, as an ability row would be built."""

from __future__ import annotations

import pytest
from fight_fixtures import Game
from rules_fixtures import spitter_first

from dicebound.fight import load_state


def _concentrating(game: Game, who: str, action: str) -> None:
    assert game.fight is not None
    fight = load_state(game.fight)
    c = next(x for x in fight["combatants"] if x["id"] == who)
    next(a for a in c["actions"] if a["id"] == action)["concentration"] = True
    game.fight = load_state(fight)


def _wailed() -> Game:
    game = spitter_first()
    _concentrating(game, "spitter", "wail")
    assert game.A("Spitter", "Wail", "Brenna", 5, 3, 4) == (
        "Spitter concentration on Wail started; Brenna Wisdom save: (5)+0=5 vs 12 failure; "
        "Brenna: (3,4)+0=7 psychic, takes 7, 53/60; Brenna Frightened on"
    )
    assert game.c("spitter")["concentrating"] == {"actionId": "wail", "label": "Wail"}
    assert game.c("brenna")["tracked"][0]["concentration"] is True
    game.E("Spitter")
    return game


DAMAGE_CASES = [
    pytest.param(
        (15, 15, 5, 7),
        "Brenna Longsword at Spitter: (15,15)+7=22 vs 10 hit (disadvantage); Spitter: "
        "(5)+4=9 slashing, takes 9, 11/20; Spitter Constitution save: (7)+2=9 vs 10 failure; "
        "Brenna Frightened off (concentration); Spitter concentration on Wail ended (damage)",
        id="a-failure-against-the-floor-ends-it",
    ),
    pytest.param(
        (15, 15, 5, 8),
        "Brenna Longsword at Spitter: (15,15)+7=22 vs 10 hit (disadvantage); Spitter: "
        "(5)+4=9 slashing, takes 9, 11/20; Spitter Constitution save: (8)+2=10 vs 10 "
        "success; Spitter concentration on Wail kept",
        id="a-success-keeps-it",
    ),
    pytest.param(
        (20, 20, 8, 8),
        "Brenna Longsword at Spitter: (20,20)+7=27 vs 10 critical (disadvantage); Spitter: "
        "(8,8)+4=20 slashing critical, takes 20, 0/20; Brenna Frightened off "
        "(concentration); Spitter concentration on Wail ended (down); Spitter is defeated; "
        "outcome victory",
        id="going-down-ends-it-with-no-save",
    ),
    pytest.param(
        (1, 1),
        "Brenna Longsword at Spitter: (1,1)+7=8 vs 10 miss (disadvantage)",
        id="no-hurt-no-save",
    ),
]


@pytest.mark.parametrize(("faces", "now"), DAMAGE_CASES)
def test_damage_to_a_concentrator(faces: tuple[int, ...], now: str) -> None:
    game = _wailed()
    assert game.A("Brenna", "Longsword", "Spitter", *faces) == now


def test_the_difficulty_grows_with_the_damage_above_the_floor() -> None:
    """max(10, floor(21 × 1/2)) = 10; a blow of 22 asks 11."""
    game = _wailed()
    c = game.c("spitter")
    assert game.fight is not None
    c["health"] = {"value": 40, "max": 40, "temp": 0}
    game.fight = load_state(game.fight)
    line = game.A("Brenna", "Longsword", "Spitter", 20, 20, 8, 7, 9)
    assert "Spitter: (8,7)+4=19 slashing critical, takes 19, 21/40" in line
    assert "Spitter Constitution save: (9)+2=11 vs 10 success" in line


def test_a_new_concentration_replaces_the_old() -> None:
    game = _wailed()
    assert game.E("Brenna", 2) == "Brenna Wisdom save: (2)+0=2 vs 12 failure; turn: Corwin"
    game.E("Corwin")
    assert game.A("Spitter", "Wail", "Corwin", 3, 2, 2) == (
        "Brenna Frightened off (concentration); Spitter concentration on Wail ended "
        "(replaced); Spitter concentration on Wail started; Corwin Wisdom save: (3)+4=7 vs 12 "
        "failure; Corwin: (2,2)+0=4 psychic, takes 4, 34/38; Corwin Frightened on"
    )


def test_a_members_concentration_is_its_sheets_note() -> None:
    game = spitter_first()
    _concentrating(game, "brenna", "attack:0:0")
    game.E("Spitter")
    assert game.A("Brenna", "Longsword", "Spitter", 2) == (
        "Brenna concentration on Longsword started; Brenna Longsword at Spitter: (2)+7=9 vs 10 miss"
    )
    assert game.member("Brenna").live.text["concentration"] == "Longsword"
    assert game.last is not None
    assert {"who": "Brenna", "what": "text concentration", "from": "", "to": "Longsword"} in (
        game.last.changes
    )
    game.E("Brenna")
    game.E("Corwin")
    assert game.A("Spitter", "Spark", "Brenna", 15, 4, 3) == (
        "Spitter Spark at Brenna: (15)+4=19 vs 18 hit; Brenna: (4)+0=4 fire, takes 4, 56/60; "
        "Brenna Constitution save: (3)+6=9 vs 10 failure; Brenna concentration on Longsword "
        "ended (damage)"
    )
    assert game.member("Brenna").live.text.get("concentration", "") == ""
