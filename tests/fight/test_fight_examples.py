"""FIGHTS §16's worked examples through the pure fight core, answers compared exactly
(forced faces; the F5 fixture of ``fight_fixtures``)."""

from __future__ import annotations

import json
import re

import pytest
from fight_fixtures import BRENNA, CORWIN, Game, a_start, character, f5

from dicebound.fight import load_state, summary


def test_e1_initiative_ties_keep_modifier_then_input_order() -> None:
    game = Game(f5(), (character(BRENNA), character(CORWIN)))
    answer = game.S("Brenna, Corwin", "Snag, Rot", 15, 15, 10, 17)
    assert answer == (
        '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot" result="ok" '
        'now="initiative: Brenna (15)+2=17, Corwin (15)+2=17, Rot (17)+0=17, Snag (10)+2=12; '
        'round 1; turn: Brenna" rolls="15|15|10|17" next="Brenna" forced="true"]'
    )
    assert game.fight is not None
    assert game.fight["order"] == ["brenna", "corwin", "rot", "snag"]
    assert game.fight["cursor"] == 4
    assert game.fight["outcome"] == "ongoing"
    entries = game.fight["opening"][0]["entries"]
    assert entries[2] == {"actorId": "rot", "name": "Rot", "roll": [17], "modifier": 0, "total": 17}


def test_e2_the_menu_in_order() -> None:
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import offered

    game = a_start()
    assert game.fight is not None
    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    menu = offered(work, game.c("brenna"))
    assert [o["id"] for o in menu] == [
        "attack:0:0",
        "standard:dash",
        "standard:disengage",
        "standard:dodge",
        "standard:help",
        "standard:hide",
        "standard:ready",
        "end-turn",
    ]
    assert menu[0]["budget"] == "action"
    assert menu[0]["targets"] == {"side": "enemy", "count": 1}
    assert "cost" not in menu[0]
    assert menu[0]["forecast"] == {"hitChance": 0.75, "averageDamage": 8.5}
    assert "forecast" not in menu[3]  # a standard action does not roll
    assert offered(work, game.c("corwin")) == []


def test_e3_a_hit() -> None:
    game = a_start()
    answer = game.tag('op="act" who="Brenna" option="Longsword" target="Snag"', 12, 5)
    assert answer == (
        '[fight: op="act" who="Brenna" option="attack:0:0" target="Snag" result="ok" '
        'now="Brenna Longsword at Snag: (12)+7=19 vs 13 hit; Snag: (5)+4=9 slashing, takes 9, '
        '3/12" rolls="12|5" next="Brenna" forced="true"]'
    )
    assert game.last is not None
    assert [e["type"] for e in game.last.events] == ["budget", "attack", "damage"]
    attack, damage = game.last.events[1], game.last.events[2]
    assert {
        k: attack[k] for k in ("rolls", "kept", "modifier", "total", "defense", "outcome", "mode")
    } == {
        "rolls": [12],
        "kept": 12,
        "modifier": 7,
        "total": 19,
        "defense": 13,
        "outcome": "hit",
        "mode": "normal",
    }
    assert {
        k: damage[k]
        for k in ("rolls", "flat", "amount", "dealt", "adjust", "toTemp", "health", "maxHealth")
    } == {
        "rolls": [5],
        "flat": 4,
        "amount": 9,
        "dealt": 9,
        "adjust": "none",
        "toTemp": 0,
        "health": 3,
        "maxHealth": 12,
    }
    assert game.fight is not None and game.fight["cursor"] == 6


def test_e4_refusals_change_nothing() -> None:
    game = a_start()
    game.A("Brenna", "Longsword", "Snag", 12, 5)
    before = json.dumps(game.fight)
    assert game.tag('op="act" who="Brenna" option="attack:0:0" target="Snag"') == (
        '[fight: op="act" who="Brenna" option="attack:0:0" target="Snag" result="refused" '
        'reason="no-budget"]'
    )
    assert game.A("Corwin", "attack:0:0", "Snag") == "refused:not-your-turn"
    assert game.A("Brenna", "standard:dodge") == "refused:no-budget"
    assert game.A("Brenna", "attack:9:9", "Snag") == "refused:unknown-option"
    assert json.dumps(game.fight) == before


def test_e5_a_defeated_opponent_is_stepped_over() -> None:
    game = a_start()
    game.A("Brenna", "Longsword", "Snag", 20, 5, 6)  # a critical: 5+6+4 = 15 >= 12
    assert game.E("Brenna") == "turn: Corwin"
    assert game.c("snag")["defeated"]
    assert game.E("Corwin") == "turn: Rot"


def _menu(game: Game, ident: str) -> list[dict[str, object]]:
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import offered

    assert game.fight is not None
    return offered(
        Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(()))), game.c(ident)
    )


def test_e6_a_block_against_a_sheet_writes_through_the_sheet() -> None:
    game = a_start()
    game.E("Brenna")
    game.E("Corwin")
    game.E("Snag")
    assert _menu(game, "rot")[0]["forecast"] == {"hitChance": 0.3, "averageDamage": 5.5}
    assert game.A("Rot", "Bite", "Brenna", 18, 5) == (
        "Rot Bite at Brenna: (18)+3=21 vs 18 hit; Brenna: (5)+1=6 piercing, takes 6, 54/60"
    )
    assert game.member("Brenna").live.pools["hp"].value == 54
    assert game.last is not None
    assert game.last.changes == [{"who": "Brenna", "what": "pool hp", "from": 60, "to": 54}]


def test_e7_refills_at_the_round() -> None:
    game = a_start()
    game.A("Brenna", "Longsword", "Snag", 12, 5)
    for who in ("Brenna", "Corwin", "Snag"):
        game.E(who)
    game.A("Rot", "Bite", "Brenna", 18, 5)
    assert game.c("rot")["budgets"]["action"] == 0
    assert game.E("Rot") == "round 2; turn: Brenna"
    assert game.c("brenna")["budgets"]["action"] == 1
    assert game.c("rot")["budgets"]["reaction"] == 1


def test_e8_naturals_and_victory() -> None:
    game = Game(f5(), (character(BRENNA),))
    game.S("Brenna", "Mote", 20, 1)
    answer = game.tag('op="act" who="Brenna" option="Longsword" target="Mote"', 20, 5, 6)
    assert (
        'now="Brenna Longsword at Mote: (20)+7=27 vs 5 critical; Mote: (5,6)+4=15 slashing '
        in answer
    )
    assert (
        'critical, takes 15, 0/4; Mote is defeated; outcome victory" rolls="20|5|6" outcome="victory" forced="true"]'
        in answer
    )
    assert "next=" not in answer
    assert game.fight is not None
    got = summary(game.ruleset, game.fight, game.party)
    assert got["enemies"] == [
        {"id": "mote", "name": "Mote", "health": 0, "maxHealth": 4, "defeated": True}
    ]
    assert got["party"] == [
        {
            "id": "brenna",
            "name": "Brenna",
            "health": 60,
            "maxHealth": 60,
            "temp": 0,
            "down": False,
            "dying": False,
            "stable": False,
            "conditions": [],
        }
    ]
    again = Game(f5(), (character(BRENNA),))
    again.S("Brenna", "Mote", 20, 1)
    assert (
        again.A("Brenna", "Longsword", "Mote", 1) == "Brenna Longsword at Mote: (1)+7=8 vs 5 miss"
    )
    assert again.last is not None and [e["type"] for e in again.last.events] == ["budget", "attack"]


def test_e9_dodge_leans_attacks_against_and_clears_at_the_turn() -> None:
    game = a_start()
    answer = game.tag('op="act" who="Brenna" option="dodge"')
    assert 'option="standard:dodge"' in answer and 'now="Brenna dodge"' in answer
    game.E("Brenna")
    game.E("Corwin")
    assert game.A("Snag", "Scimitar", "Brenna", 18, 6) == (
        "Snag Scimitar at Brenna: (18,6)+4=10 vs 18 miss (disadvantage)"
    )
    assert game.last is not None and game.last.events[1]["kept"] == 6
    game.E("Snag")
    game.E("Rot")
    assert game.c("brenna")["flags"] == {}


def test_e10_help() -> None:
    game = Game(f5(), (character(BRENNA), character(CORWIN)))
    game.S("Brenna, Corwin", "Snag, Rot", 14, 20, 5, 3)
    assert game.A("Corwin", "help", "Corwin") == "refused:bad-target"
    assert game.A("Corwin", "help", "Brenna") == "Corwin help Brenna"
    assert game.c("brenna")["flags"]["helped"] is True
    game.E("Corwin")
    assert game.A("Brenna", "Longsword", "Snag", 4, 16, 3) == (
        "Brenna Longsword at Snag: (4,16)+7=23 vs 13 hit (advantage); Snag: (3)+4=7 slashing, "
        "takes 7, 5/12"
    )
    assert not game.c("brenna")["flags"].get("helped")
    poisoned = Game(f5(), (character(BRENNA, {"conditions": ["poisoned"]}), character(CORWIN)))
    poisoned.S("Brenna, Corwin", "Snag, Rot", 14, 20, 5, 3)
    poisoned.A("Corwin", "help", "Brenna")
    poisoned.E("Corwin")
    assert poisoned.A("Brenna", "Longsword", "Snag", 11, 4) == (
        "Brenna Longsword at Snag: (11)+7=18 vs 13 hit; Snag: (4)+4=8 slashing, takes 8, 4/12"
    )
    assert poisoned.last is not None and poisoned.last.events[1]["mode"] == "normal"


def test_e22_hit_chances_exact() -> None:
    from fractions import Fraction

    from dicebound.fight.forecast import hit_chance
    from dicebound.ruleset.combat import AttackRoll, Dice

    roll = f5().combat.attack_roll  # type: ignore[union-attr]
    assert roll is not None
    assert hit_chance(roll, 7, 13, "normal") == Fraction(3, 4)
    assert hit_chance(roll, 7, 13, "advantage") == Fraction(15, 16)
    assert hit_chance(roll, 7, 13, "disadvantage") == Fraction(9, 16)
    two_d6 = AttackRoll(Dice(2, 6))
    assert hit_chance(two_d6, 2, 6, "normal") == Fraction(11, 12)
    helped = a_start()
    helped.c("brenna")["flags"]["helped"] = True
    assert _menu(helped, "brenna")[0]["forecast"] == {"hitChance": 0.938, "averageDamage": 8.5}


def test_e11_each_hit_its_own_damage() -> None:
    game = Game(f5(), (character(BRENNA), character(CORWIN)))
    game.S("Brenna, Corwin", "Volley", 1, 1, 20)
    assert game.A("Volley", "Twin Shot", "Brenna, Corwin", 15, 2, 15, 5) == (
        "Volley Twin Shot at Brenna: (15)+10=25 vs 18 hit; Brenna: (2)+0=2 piercing, takes 2, "
        "58/60; Volley Twin Shot at Corwin: (15)+10=25 vs 12 hit; Corwin: (5)+0=5 piercing, "
        "takes 5, 33/38"
    )


def test_e36_fled_then_encounter_over() -> None:
    game = a_start()
    assert (
        game.tag('op="flee"') == '[fight: op="flee" result="ok" now="outcome fled" outcome="fled"]'
    )
    assert game.A("Brenna", "Longsword", "Snag") == "refused:encounter-over"
    assert game.now('op="end"') == "refused:encounter-over"
    assert game.fight is not None
    got = summary(game.ruleset, game.fight, game.party)
    assert (got["outcome"], got["rounds"]) == ("fled", 1)


def test_end_is_ended() -> None:
    game = a_start()
    assert (
        game.tag('op="end"') == '[fight: op="end" result="ok" now="outcome ended" outcome="ended"]'
    )


def test_e38_refused_starts() -> None:
    game = a_start()
    assert game.now('op="start" party="Brenna" enemies="Rot"') == "refused:fight-on"
    fresh = Game(f5(), (character(BRENNA),))
    assert fresh.now('op="start" party="Cora" enemies="Rot"') == "refused:unknown-character"
    assert fresh.now('op="start" party="Brenna"') == "refused:malformed"
    assert fresh.now('op="act" who="Brenna" option="dodge"') == "refused:no-fight"


@pytest.mark.parametrize("faces", [(3,), (5,), (7,)])
def test_state_round_trips_through_json(faces: tuple[int, ...]) -> None:
    game = a_start()
    game.A("Brenna", "Longsword", "Snag", 12, *faces)
    assert game.fight is not None
    read = load_state(json.loads(json.dumps(game.fight)))
    assert read == game.fight


def _hp(value: int) -> dict[str, object]:
    return {"pools": {"hp": {"value": value}}}


def test_e17_dying_and_revived() -> None:
    game = Game(f5(), (character(BRENNA, _hp(5)), character(CORWIN)))
    game.S("Brenna, Corwin", "Rot", 10, 9, 18)
    assert game.fight is not None and game.fight["order"] == ["rot", "brenna", "corwin"]
    assert game.A("Rot", "Bite", "Brenna", 18, 8) == (
        "Rot Bite at Brenna: (18)+3=21 vs 18 hit; Brenna: (8)+1=9 piercing, takes 9, 0/60; "
        "Brenna Unconscious on; Brenna is down, dying"
    )
    assert game.fight["outcome"] == "ongoing"
    assert game.E("Rot", 3) == "turn: Brenna; Brenna death save (3) vs 10: failure"
    assert game.member("Brenna").live.tracks["death_save_failures"] == 1
    assert game.A("Brenna", "Longsword", "Rot") == "refused:down"
    game.E("Brenna")
    game.E("Corwin")
    assert game.A("Rot", "Bite", "Brenna", 15, 4, 6) == (
        "Rot Bite at Brenna: (15,4)+3=18 vs 18 hit (advantage); Brenna: (6)+1=7 piercing, "
        "takes 7, 0/60"
    )
    assert game.member("Brenna").live.tracks["death_save_failures"] == 2
    assert game.E("Rot", 20) == (
        "turn: Brenna; Brenna heals 1, 1/60; Brenna Unconscious off (revived); Brenna is back "
        "up, 1; Brenna death save (20) vs 10: revived"
    )
    brenna = game.member("Brenna")
    assert brenna.live.tracks.get("death_save_failures", 0) == 0
    assert brenna.live.tracks.get("death_save_successes", 0) == 0
    assert brenna.live.conditions == ()


def test_e18_dead_after_three_failures() -> None:
    game = Game(f5(), (character(BRENNA, _hp(0)), character(CORWIN)))
    game.S("Brenna, Corwin", "Rot", 10, 9, 18)
    assert game.c("brenna")["down"] and game.c("brenna")["dying"]
    assert game.member("Brenna").live.conditions == ("unconscious",)
    said = []
    for face in (3, 5, 7):
        said.append(game.E("Rot", face))
        if face != 7:
            game.E("Brenna")
            game.E("Corwin")
    assert said[-1] == "turn: Brenna; Brenna dies"
    assert game.c("brenna")["defeated"]
    assert game.fight is not None and game.fight["outcome"] == "ongoing"
    assert game.A("Brenna", "Longsword", "Rot") == "refused:down"
    assert game.E("Brenna") == "turn: Corwin"  # End turn is always legal
    game.E("Corwin")
    assert game.E("Rot") == "turn: Corwin"  # the dead take no turn


def test_e19_stable_then_hurt_again() -> None:
    game = Game(f5(), (character(BRENNA, _hp(0)), character(CORWIN)))
    game.S("Brenna, Corwin", "Rot", 10, 9, 18)
    said = []
    for face in (12, 14, 16):
        said.append(game.E("Rot", face))
        game.E("Brenna")
        game.E("Corwin")
    assert said[-1] == "turn: Brenna; Brenna death save (16) vs 10: stable"
    assert game.c("brenna")["stable"]
    assert game.member("Brenna").live.tracks.get("death_save_successes", 0) == 0
    game.A("Rot", "Bite", "Brenna", 15, 4, 6)
    assert not game.c("brenna")["stable"]
    assert game.member("Brenna").live.tracks["death_save_failures"] == 1
    assert game.E("Rot", 11) == "turn: Brenna; Brenna death save (11) vs 10: success"


def test_e20_defeat() -> None:
    game = Game(f5(), (character(BRENNA, _hp(3)),))
    game.S("Brenna", "Rot", 5, 18)
    answer = game.tag('op="act" who="Rot" option="Bite" target="Brenna"', 18, 8)
    assert answer.endswith(
        'now="Rot Bite at Brenna: (18)+3=21 vs 18 hit; Brenna: (8)+1=9 piercing, takes 9, 0/60; '
        'Brenna Unconscious on; Brenna is down, dying; outcome defeat" rolls="18|8" '
        'outcome="defeat" forced="true"]'
    )
    for body in (
        'op="act" who="Rot" option="Bite" target="Brenna"',
        'op="end-turn"',
        'op="flee"',
        'op="end"',
    ):
        assert game.now(body) == "refused:encounter-over"
    assert game.fight is not None
    assert summary(game.ruleset, game.fight, game.party) == {
        "outcome": "defeat",
        "rounds": 1,
        "party": [
            {
                "id": "brenna",
                "name": "Brenna",
                "health": 0,
                "maxHealth": 60,
                "temp": 0,
                "down": True,
                "dying": True,
                "stable": False,
                "conditions": ["unconscious"],
            }
        ],
        "enemies": [{"id": "rot", "name": "Rot", "health": 14, "maxHealth": 14, "defeated": False}],
    }


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (("order",), ["brenna", "brenna", "snag", "rot"], "is not the combatants in some order"),
        (("combatants", 2, "health", "value"), 13, "health outside 0..12"),
        (("combatants", 0, "actions", 0, "damage", "sides"), "round", "damage that is not dice"),
        (("combatants", 0, "budgets", "action"), "one", "not whole numbers by id"),
        (("combatants", 0, "spent"), ["attack:0:0"], "waits on a recharge"),
        (("ruleset",), "5e", "names no ruleset"),
        (("turn",), 4, 'past the end of "order"'),
    ],
)
def test_a_state_that_breaks_an_invariant_is_refused(
    path: tuple[object, ...], value: object, says: str
) -> None:
    from dicebound.fight import FightError

    game = a_start()
    broken = json.loads(json.dumps(game.fight))
    at = broken
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = value
    with pytest.raises(FightError, match=re.escape(says)):
        load_state(broken)


def test_a_fight_of_another_ruleset_is_refused() -> None:
    from fight_fixtures import em, juno

    from dicebound.fight import FightError
    from dicebound.tagpass import resolve_text

    game = a_start()
    with pytest.raises(FightError, match="started under the ruleset"):
        resolve_text(em(), (juno(),), '[fight: op="flee"]', seed="1", fight=game.fight)


def test_e14_temporary_points_take_the_blow_first() -> None:
    corwin = character(CORWIN, {"pools": {"hp": {"value": 38, "temp": 8}}})
    game = Game(f5(), (corwin,))
    game.S("Corwin", "Rot", 1, 20)
    assert game.A("Rot", "Bite", "Corwin", 15, 6) == (
        "Rot Bite at Corwin: (15)+3=18 vs 12 hit; Corwin: (6)+1=7 piercing, takes 7 "
        "(7 temporary), 38/38"
    )
    hp = game.member("Corwin").live.pools["hp"]
    assert (hp.value, hp.temp) == (38, 1)


def test_strikes_in_hand_cost_no_budget_and_drop_at_the_turn_end() -> None:
    two = json.loads(json.dumps(BRENNA))
    two["sheet"]["build"]["fields"]["attacks_per_action"] = 2
    game = Game(f5(), (character(two), character(CORWIN)))
    game.S("Brenna, Corwin", "Husk", 20, 1, 1)
    assert (
        game.A("Brenna", "Longsword", "Husk", 2) == "Brenna Longsword at Husk: (2)+7=9 vs 11 miss"
    )
    assert game.c("brenna")["budgets"]["action"] == 0
    assert game.c("brenna")["strikesLeft"] == 1
    assert game.A("Brenna", "Longsword", "Husk", 2).endswith("vs 11 miss")
    assert game.c("brenna")["strikesLeft"] == 0
    assert game.A("Brenna", "Longsword", "Husk") == "refused:no-budget"
    game.E("Brenna")
    assert "strikesLeft" not in game.c("brenna")
