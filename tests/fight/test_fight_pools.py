"""FIGHTS §16.5 on Gravewatch (GW, GW1): a pool attack (E30), soak and wound penalties
(E31), initiative thrown every round (E33), and what stays refused in words (E32's
charms, contests and held hits; E34's windows)."""

from __future__ import annotations

import json

import pytest
from fight_fixtures import Game
from pool_fixtures import ada, gw, gw_start

from dicebound.fight.state import FightError, load_state

RATS = "Rats (night/grave-rats)"
HOLLOW = "Hollow (night/hollow-warden)"


def test_e30_a_pool_attack() -> None:
    ruleset = gw("gw1")
    game = Game(ruleset, (ada(ruleset),))
    assert game.S("Ada", RATS, 10, 1) == (
        '[fight: op="start" party="Ada" enemies="Rats (night/grave-rats)" result="ok" '
        'now="initiative: Ada (10)+2=12, Rats (1)+3=4; round 1; turn: Ada" rolls="10|1" '
        'next="Ada" forced="true"]'
    )
    said = game.A("Ada", "Spade", "Rats", 8, 7, 3, 2, 6, 6, 2)
    assert said == (
        "Ada Spade at Rats: (8,7,3,2) 2 successes vs 1 hit; "
        "Rats: (6,6,2) 2 successes tearing, takes 2, 1/3"
    )
    assert game.last is not None
    attack, damage = game.last.events[1], game.last.events[2]
    assert (attack["total"], attack["defense"]) == (2, 1)
    assert attack["pool"] == {"dice": 4, "target": 7}
    assert damage["pool"] == {"target": 6, "successes": 2}
    assert (
        gw_start(RATS).A("Ada", "Spade", "Rats", 1, 7, 3, 2)
        == "Ada Spade at Rats: (1,7,3,2) 0 successes vs 1 miss"
    )
    assert (
        gw_start(RATS).A("Ada", "Spade", "Rats", 1, 3, 2, 4)
        == "Ada Spade at Rats: (1,3,2,4) 0 successes vs 1 miss botch"
    )
    exploded = gw_start(RATS)
    assert exploded.A("Ada", "Spade", "Rats", 10, 3, 2, 4, 7, 2, 2, 2) == (
        "Ada Spade at Rats: (10,3,2,4,7) 2 successes vs 1 hit; "
        "Rats: (2,2,2) 0 successes tearing, takes 0, 3/3"
    )
    assert exploded.last is not None and exploded.last.events[1]["pool"]["dice"] == 4
    assert gw_start(RATS).A("Ada", "Hook", "Rats", 7, 2, 3, 2) == (
        "Ada Hook at Rats: (7,2,3) 1 successes vs 1 hit; "
        "Rats: (2) 1 successes (1 automatic) tearing, takes 1, 2/3"
    )


def test_e31_soak_and_penalties() -> None:
    assert gw_start(HOLLOW).A("Ada", "Spade", "Hollow", 7, 8, 2, 3, 6, 6, 6) == (
        "Ada Spade at Hollow: (7,8,2,3) 2 successes vs 2 hit; "
        "Hollow: (6,6) 2 successes tearing soak 1 (6) took 1, takes 1, 5/6"
    )
    assert gw_start(HOLLOW).A("Ada", "Spade", "Hollow", 7, 2, 3, 4) == (
        "Ada Spade at Hollow: (7,2,3,4) 1 successes vs 2 miss"
    )
    unsoaked = gw_start(HOLLOW)
    assert unsoaked.A("Ada", "Spade", "Hollow", 7, 8, 2, 3, 2, 2) == (
        "Ada Spade at Hollow: (7,8,2,3) 2 successes vs 2 hit; "
        "Hollow: (2,2) 0 successes tearing soak 1 took 0, takes 0, 6/6"
    )
    assert unsoaked.last is not None
    assert unsoaked.last.events[2]["soak"] == {"value": 1, "rolls": [], "taken": 0}
    game = gw_start(HOLLOW)
    assert game.E("Ada") == "turn: Hollow"
    assert game.A("Hollow", "Cold grip", "Ada", 7, 7, 7, 2, 3, 4, 6, 6, 6, 6, 6, 6, 2) == (
        "Hollow Cold grip at Ada: (7,7,7,2,3,4) 3 successes vs 1 hit; "
        "Ada: (6,6,6,6) 4 successes blunt soak 3 (6,6,2) took 2, takes 2, 2/4; Ada Rattled on"
    )
    assert game.member("Ada").live.wounds["harm"].marks == ("knock", "knock")
    assert game.E("Hollow") == "round 2; turn: Ada"
    game.A("Ada", "Spade", "Hollow", 7, 7, 2, 2)
    assert game.last is not None
    attack = game.last.events[1]
    assert attack["pool"] == {"dice": 2, "target": 7, "penalty": -1}
    assert [(b["condition"], b["value"]) for b in attack["bonuses"]] == [("rattled", -1)]
    assert attack["modifier"] == 4
    unrolled = gw_start(HOLLOW, "gw1-soak-unrolled")
    unrolled.E("Ada")
    said = unrolled.A("Hollow", "Cold grip", "Ada", 7, 7, 7, 2, 3, 4, 6)
    assert "; Ada: (6) 1 successes blunt soak 3 took 3, takes 1, 3/4;" in said


def test_e33_initiative_every_round() -> None:
    ruleset = gw()
    game = Game(ruleset, (ada(ruleset),))
    game.S("Ada", RATS, 10, 1)
    assert game.E("Ada") == "turn: Rats"
    assert game.E("Rats", 1, 10) == ("round 2; initiative: Rats (10)+3=13, Ada (1)+2=3; turn: Rats")
    assert game.fight is not None and game.fight["order"] == ["rats", "ada"]
    bare = gw_start(RATS, "gw1-defense-0")
    bare.E("Ada")
    assert bare.A("Rats", "Gnaw", "Ada", 2, 3, 4, 5, 6) == (
        "Rats Gnaw at Ada: (2,3,4,5,6) 0 successes vs 1 miss"
    )


def test_e32_a_contest_thrown_as_pools() -> None:
    game = gw_start(RATS, "gw1-shove")
    assert game.A("Ada", "Shove", "Rats", 7, 8, 2, 7, 3) == (
        "Shove: Ada (7,8,2) 2 vs Rats (7,3) 1, Ada wins; Rats Rattled on"
    )
    assert game.last is not None
    contest = next(e for e in game.last.events if e["type"] == "contest")
    assert contest["attacker"]["total"] == 2
    assert contest["attacker"]["pool"] == {"dice": 3, "target": 7}
    assert contest["defender"]["total"] == 1
    assert contest["winner"] == "actor"
    assert [r["condition"] for r in game.c("rats")["tracked"]] == ["rattled"]
    held = gw_start(RATS, "gw1-shove")
    assert held.A("Ada", "contest:shove", "Rats", 7, 2, 2, 7, 3) == (
        "Shove: Ada (7,2,2) 1 vs Rats (7,3) 1, Rats holds"
    )
    assert held.c("rats")["tracked"] == []


def test_a_pool_fight_through_its_state_as_json() -> None:
    """A state carried through JSON resolves the next step identically (FIGHTS §3),
    soak and check numbers included; a soak that is not numbers is refused when read."""
    game = gw_start(HOLLOW)
    assert game.fight is not None
    game.fight = load_state(json.loads(json.dumps(game.fight)))
    assert game.c("hollow")["soak"] == {"all": 1, "byKind": {"knock": 3}}
    assert game.c("ada")["soak"] == {"byKind": {"knock": 3}}
    assert game.A("Ada", "Spade", "Hollow", 7, 8, 2, 3, 6, 6, 6).endswith("took 1, takes 1, 5/6")
    broken = json.loads(json.dumps(game.fight))
    broken["combatants"][1]["soak"] = {"all": "lots"}
    with pytest.raises(FightError):
        load_state(broken)


def test_pool_initiative_a_pool_save_and_one_mark_a_blow() -> None:
    ruleset = gw("gw1-more")
    game = Game(ruleset, (ada(ruleset),))
    assert 'now="initiative: Ada (7,8)=3, Rats (7,2,1)=1; round 1; turn: Ada"' in game.S(
        "Ada", RATS, 7, 8, 7, 2, 1
    )
    assert game.fight is not None and game.c("ada")["initiativeModifier"] == 2
    game.E("Ada")
    said = game.A("Rats", "Gnaw", "Ada", 7, 7, 7, 2, 3, 7, 2, 6, 6, 6)
    assert said == (
        "Rats Gnaw at Ada: (7,7,7,2,3) 3 successes vs 1 hit; "
        "Ada Steel: (7,2) 1 successes vs 2 failure; "
        "Ada: (6,6,6) 3 successes tearing, takes 3, 3/4"
    )
    assert game.member("Ada").live.wounds["harm"].marks == ("tear",)
    assert game.last is not None
    save = next(e for e in game.last.events if e["type"] == "save")
    assert save["pool"] == {"dice": 2, "target": 7}


def test_the_view_of_a_pool_fight_for_a_person() -> None:
    """``dicebound fight``'s lines: every option of a pool fight, a contest's included,
    with its forecast and odds."""
    from dicebound.edge.fight_command import fight_text
    from dicebound.fight.view import fight_view

    game = gw_start(RATS, "gw1-shove")
    assert game.fight is not None
    text = fight_text(fight_view(game.ruleset, game.fight, game.party))
    assert "Spade [attack:0:0] act, enemy 1; forecast: hit 0.719, average 1.0" in text
    assert "Shove [contest:shove] act, enemy 1; forecast: hit " in text
    assert "critical 0, drops 0 (0.0%); dealt 0: 1" in text


def test_a_summed_fight_on_a_wound_track() -> None:
    """Wound-track health is played beside a summed attack too: each point a knock or a
    tear, the levels left as health; a full track takes the member down."""
    game = gw_start(HOLLOW, "summed")
    game.E("Ada")
    said = game.A("Hollow", "Cold grip", "Ada", 5, 1, 2)
    assert said == (
        "Hollow Cold grip at Ada: (5)+6=11 vs 5 hit; Ada: (1,2)+0=3 blunt, takes 3, 1/4; "
        "Ada Rattled on"
    )
    assert game.member("Ada").live.wounds["harm"].marks == ("knock", "knock", "knock")
    game.E("Hollow")
    game.E("Ada")
    assert game.A("Hollow", "Cold grip", "Ada", 5, 3, 4).startswith(
        "Hollow Cold grip at Ada: (5)+6=11 vs 5 hit; Ada: (3,4)+0=7 blunt, takes 7, 0/4; "
    )
    assert game.c("ada")["down"]
