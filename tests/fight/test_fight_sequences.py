"""Sequences (FIGHTS §6.1, §6.2, §7.3, §14): a stat block action that resolves other
actions of its block in order, for the one budget. A pack on F5 whose Mauling is two
Claws and a Bite: on the menu it aims at three (its parts' targets together); played at
fewer, every part takes the first; each part's attack, damage and uses are its own; a
part with no use left is skipped free; and its exact odds at a target alone (landing
when any part lands, dealing the sum) equal the resolver's own tally over every face
sequence it asks for (a four-sided attack die keeps that small)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from functools import cache
from typing import Any

from fight_fixtures import BRENNA, CORWIN, Game, _compiled, _creature, _f5_doc, _hit
from odds_support import as_fractions, menu_odds

from dicebound.character import load_character
from dicebound.dice import ForcedFaces
from dicebound.fight import step
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.menu import offered
from dicebound.fight.sequences import DEPENDENT
from dicebound.fight.state import load_state, standing
from dicebound.fight.tag import FightTag
from dicebound.ruleset.model import Ruleset
from oracles import enumerate_throws

MAULING = {
    "id": "mauling",
    "name": "Mauling",
    "budget": "action",
    "sequence": [{"action": "claw", "times": 2}, {"action": "bite"}],
}


@cache
def _ruleset(sides: int = 20) -> Ruleset:
    doc: dict[str, Any] = json.loads(_f5_doc())
    doc["combat"]["attackRoll"]["dice"]["sides"] = sides
    claw = _hit("claw", "Claw", 10, "1d2", 1, "slashing")
    bite = _hit("bite", "Bite", 10, "1d3", 0, "piercing", uses={"per": "encounter", "count": 1})
    pack = _creature("pack", "Pack", "cr_1_4", 20, 10, 0, claw)
    pack["creature"]["actions"] += [bite, copy.deepcopy(MAULING)]
    fixtures = next(c for c in doc["catalogs"] if c["id"] == "fixtures")
    fixtures["entries"].append(pack)
    return _compiled(json.dumps(doc))


def _game(sides: int = 20, corwin_hp: int | None = None) -> Game:
    """Brenna, Corwin and the Pack, on the Pack's turn."""
    ruleset = _ruleset(sides)
    corwin = copy.deepcopy(CORWIN)
    if corwin_hp is not None:
        corwin["live"] = {"pools": {"hp": {"value": corwin_hp}}}
    party = tuple(load_character(ruleset, raw) for raw in (copy.deepcopy(BRENNA), corwin))
    game = Game(ruleset, party)
    game.S("Brenna, Corwin", "Pack (fixtures/pack)", min(20, sides), min(14, sides), 1)
    game.E("Brenna")
    game.E("Corwin")
    return game


def test_a_sequence_aims_at_what_its_parts_take_together() -> None:
    game = _game()
    mauling = next(a for a in game.c("pack")["actions"] if a["id"] == "mauling")
    assert mauling["targets"] == {"side": "enemy", "count": 3}
    assert "notPlayed" not in mauling
    odds = menu_odds(game, "pack", "mauling")
    assert odds is not None and set(odds) == {"brenna", "corwin"}


def test_a_sequence_at_fewer_targets_plays_every_part_at_the_first() -> None:
    game = _game()
    now = game.now('op="act" who="Pack" option="Mauling" target="Corwin"', 5, 2, 6, 1, 4, 3)
    assert now == (
        "Pack Claw at Corwin: (5)+10=15 vs 12 hit; Corwin: (2)+1=3 slashing, takes 3, 35/38; "
        "Pack Claw at Corwin: (6)+10=16 vs 12 hit; Corwin: (1)+1=2 slashing, takes 2, 33/38; "
        "Bite: 0 of 1 left; "
        "Pack Bite at Corwin: (4)+10=14 vs 12 hit; Corwin: (3)+0=3 piercing, takes 3, 30/38"
    )
    assert game.last is not None
    budgets = [e for e in game.last.events if e["type"] == "budget"]
    assert len(budgets) == 1  # one budget for the whole sequence
    assert game.c("pack")["uses"]["bite"] == 0
    assert load_state(json.loads(json.dumps(game.fight))) == game.fight


def test_a_part_with_no_use_left_is_skipped_free() -> None:
    game = _game()
    game.tag('op="act" who="Pack" option="Mauling" target="Corwin"', 5, 2, 6, 1, 4, 3)
    game.E("Pack")
    game.E("Brenna")
    game.E("Corwin")
    now = game.now('op="act" who="Pack" option="Mauling" target="Brenna"', 9, 2, 9, 2)
    assert "Bite" not in now and now.count("Pack Claw at Brenna") == 2


def _tally(game: Game, target: str) -> dict[str, Any]:
    """The resolver's own odds of the Mauling at ``target``: lands when any part lands."""
    tag = FightTag((0, 0), f'op="act" who="Pack" option="mauling" target="{target}"')

    def run(dice: Any) -> tuple[bool, bool, int, bool]:
        result = step(game.ruleset, game.fight, game.party, tag, dice)
        attacks = [e for e in result.events if e["type"] == "attack"]
        dealt = sum(e["dealt"] for e in result.events if e["type"] == "damage")
        after = next(c for c in result.fight["combatants"] if c["id"] == target)
        return (
            any(e["outcome"] != "miss" for e in attacks),
            any(e["outcome"] == "critical" for e in attacks),
            dealt,
            not standing(after),
        )

    tally: dict[str, Any] = {"hit": Fraction(0), "critical": Fraction(0), "drops": Fraction(0)}
    dealt: dict[int, Fraction] = {}
    for (landed, critical, amount, drops), p in enumerate_throws(run).items():
        tally["hit"] += p if landed else 0
        tally["critical"] += p if critical else 0
        tally["drops"] += p if drops else 0
        dealt[amount] = dealt.get(amount, Fraction(0)) + p
    tally["dealt"] = dealt
    return tally


def test_a_sequences_odds_agree_with_the_resolver() -> None:
    game = _game(sides=4, corwin_hp=12)  # only the last part can drop him
    odds = menu_odds(game, "pack", "mauling")
    assert odds is not None
    for target in ("corwin", "brenna"):
        assert as_fractions(odds[target]) == _tally(game, target), target
    assert Fraction(odds["corwin"]["drops"]) > 0


def test_no_odds_where_an_earlier_part_could_drop_the_target() -> None:
    """At 7 hit points the second claw may find Corwin down (and unconscious: the bite
    then leans), so the parts are not independent: the odds are refused, in words."""
    game = _game(sides=4, corwin_hp=7)
    assert game.fight is not None
    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    mauling = next(o for o in offered(work, game.c("pack")) if o["id"] == "mauling")
    assert mauling["odds"] is None and mauling["oddsRefused"] == DEPENDENT
    assert mauling["forecast"] == {"averageDamage": 7.0}  # 2.5 + 2.5 + 2
