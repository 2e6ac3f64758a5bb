"""FIGHTS §9.1 contests, summed (Ember Roads as written, checks and contests kept) and
thrown as pools (E32's shove on GW1): both sides' throws, the attacker first; a win's
``ends`` and ``applies``; a contest with ``from`` aimed only at its holder; and the
chance to win as forecast and odds, agreeing with an enumeration of the throws."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import cache
from typing import Any

from fight_fixtures import HOUNDS, Game, _compiled
from odds_support import menu_odds
from pool_fixtures import ada, gw

from dicebound.fight import step
from dicebound.fight.tag import FightTag
from dicebound.ruleset.model import Ruleset
from oracles import enumerate_throws
from shared_files import shared_path

HOUND = "Ash-hound (hounds/hound)"


@cache
def em_whole() -> Ruleset:
    """Ember Roads with its checks and contests, plus the hounds."""
    doc: dict[str, Any] = json.loads(shared_path("marinara", "ember-roads.json").read_text("utf-8"))
    doc["catalogs"].append(HOUNDS)
    return _compiled(json.dumps(doc))


def _em(name: str) -> Any:
    from dicebound.character import load_character

    raw = {
        "name": name,
        "sheet": {
            "v": 1,
            "build": {
                "abilities": {"brawn": 2, "wits": 1, "heart": 1},
                "skills": {},
                "saves": {},
                "bonuses": {},
                "fields": {"calling": "Hauler", "toughness": 2},
                "lists": {},
            },
        },
    }
    return load_character(em_whole(), raw)


def _game() -> Game:
    game = Game(em_whole(), (_em("Juno"),))
    game.S("Juno", HOUND, 6, 5, 1, 1)
    return game


def test_a_summed_contest_and_a_grip_broken_only_by_its_holder() -> None:
    game = _game()
    ids = [a["id"] for a in game.c("juno")["actions"]]
    assert [i for i in ids if i.startswith("contest:")] == [
        "contest:grab",
        "contest:break_free",
        "contest:shove",
    ]
    assert game.A("Juno", "Grab", "Ash-hound", 4, 3, 2, 5) == (
        "Grab: Juno (4,3)+2=9 vs Ash-hound (2,5)+0=7, Juno wins; Ash-hound Held on"
    )
    game.E("Juno")
    assert game.fight is not None
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import legal_targets, offered

    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    hound = game.c("ash-hound")
    menu = [o["id"] for o in offered(work, hound)]
    assert "contest:break_free" in menu
    free = next(a for a in hound["actions"] if a["id"] == "contest:break_free")
    assert [t["id"] for t in legal_targets(work, hound, free)] == ["juno"]
    assert game.A("Ash-hound", "Break free", "Juno", 6, 6, 1, 1) == (
        "Break free: Ash-hound (6,6)+0=12 vs Juno (1,1)+2=4, Ash-hound wins; "
        "Ash-hound Held off (contest)"
    )
    tie = _game()
    assert tie.A("Juno", "Grab", "Ash-hound", 1, 2, 2, 3) == (
        "Grab: Juno (1,2)+2=5 vs Ash-hound (2,3)+0=5, Ash-hound holds"
    )


def test_the_chance_to_win_a_summed_contest() -> None:
    odds = menu_odds(_game(), "juno", "contest:grab")
    assert odds is not None
    faces = range(1, 7)
    wins = sum(
        1
        for a, b, c, d in itertools.product(faces, faces, faces, faces)
        if a + b + 2 > c + d  # Juno's Brawn 2; the hound names no check (0); ties hold
    )
    assert Fraction(odds["ash-hound"]["hit"]) == Fraction(wins, 6**4)


def _shove_small() -> Game:
    ruleset = gw("small-shove")
    game = Game(ruleset, (ada(ruleset, sides=4),))
    game.S("Ada", "Rats (night/grave-rats)", 4, 1)
    return game


def test_the_chance_to_win_a_pool_contest_agrees_with_the_resolver() -> None:
    game = _shove_small()
    odds = menu_odds(game, "ada", "contest:shove")
    assert odds is not None
    tag = FightTag((0, 0), 'op="act" who="ada" option="contest:shove" target="rats"')

    def run(dice: Any) -> bool:
        result = step(game.ruleset, game.fight, game.party, tag, dice)
        return any(e["type"] == "contest" and e["winner"] == "actor" for e in result.events)

    tally = enumerate_throws(run)
    assert Fraction(odds["rats"]["hit"]) == tally.get(True, Fraction(0))
