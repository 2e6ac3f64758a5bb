"""FIGHTS §16's worked examples of ability rows (spells and knacks) through the pure
fight core, answers compared exactly with forced faces: a scaled cantrip (E5), an area
with a save and its price through the sheet (E12), an upcast (E13), temporary points
and a row that lands by itself (E14), a held condition and concentration (E15, E16), a
heal that revives (E18), clauses with their own saves (E23), an area with no roll
(E27) and prices through the sheet (E28); then the exact odds of rows (a save that
halves, clauses with their own saves, a scaled cantrip, a heal) agreeing with every face
sequence the resolver asks for."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from fight_fixtures import (
    BRENNA,
    CORWIN,
    WREN,
    Game,
    _compiled,
    _em_doc,
    a_start,
    character,
    em,
    f5,
    f5_doc,
    juno,
)
from odds_support import as_fractions, outcome_of
from test_fight_ember_roads import e_start

from dicebound.character import load_character
from dicebound.dice import ForcedFaces
from dicebound.errors import UsageError
from dicebound.fight import load_state, step
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.menu import offered
from dicebound.fight.tag import FightTag
from dicebound.sheet import SheetView
from oracles import enumerate_throws


def _menu(game: Game, ident: str) -> list[dict[str, Any]]:
    assert game.fight is not None
    return offered(
        Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(()))), game.c(ident)
    )


def _hp(value: int) -> dict[str, Any]:
    return {"pools": {"hp": {"value": value}}}


def _pool(game: Game, name: str, pool: str) -> tuple[int, int]:
    """A pool's value (read as the sheet reads it, so an untouched pool is full) and its
    temporary points."""
    member = game.member(name)
    got = member.live.pools.get(pool)
    return SheetView(game.ruleset, member).pool_value(pool), got.temp if got else 0


def test_e5_a_scaled_cantrip_against_a_resistance() -> None:
    game = a_start()
    game.A("Brenna", "Longsword", "Snag", 12, 5)
    assert game.E("Brenna") == "turn: Corwin"
    menu = _menu(game, "corwin")
    rows = [o for o in menu if o["kind"] == "ability"]
    assert [o["label"] for o in rows] == [
        "Fire Bolt",
        "Fireball",
        "Mending Light",
        "Hold Fast",
        "Ward",
        "Spirit Lash",
    ]  # Slumber unprepared, Shield a reaction
    fireball = rows[1]
    assert fireball["cost"] == [{"pool": "slots_3", "label": "3rd-level slots", "amount": 1}]
    assert fireball["payWith"] == ["slots_4"]
    assert rows[5]["budget"] == "bonus"
    fire_bolt = next(a for a in game.c("corwin")["actions"] if a["id"] == "ability:0:0")
    assert fire_bolt["damage"]["count"] == 2  # scaled at level 7
    text = game.tag('op="act" who="Corwin" option="Fire Bolt" target="Snag"', 15, 4, 6)
    assert 'option="ability:0:0"' in text
    assert game.now('op="act" who="Corwin" option="Fire Bolt" target="Snag"') == (
        "refused:no-budget"
    )
    assert game.last is not None
    now = text[text.index('now="') + 5 : text.index('" rolls=')]
    assert now == (
        "Corwin Fire Bolt at Snag: (15)+7=22 vs 13 hit; Snag: (4,6)+0=10 fire (resist), "
        "takes 5, 0/12; Snag is defeated"
    )
    assert game.fight is not None and game.fight["outcome"] == "ongoing"
    assert game.E("Corwin") == "turn: Rot"  # Snag stepped over


def _e12_start() -> Game:
    game = Game(f5(), (character(CORWIN),))
    game.S("Corwin", "Snag, Rot, Husk", 20, 5, 3, 2)
    return game


def test_e12_an_area_with_a_save_and_its_price() -> None:
    game = _e12_start()
    faces = (5, 3, 3, 3, 3, 3, 3, 3, 3, 18, 4)
    assert game.A("Corwin", "Fireball", "Snag, Rot, Husk", *faces) == (
        "Corwin spends 1 3rd-level slots; Snag Dexterity save: (5)+2=7 vs 15 failure; Snag: "
        "(3,3,3,3,3,3,3,3)+0=24 fire (resist), takes 12, 0/12; Snag is defeated; Rot Dexterity "
        "save: (18)+1=19 vs 15 success; Rot: (3,3,3,3,3,3,3,3)+0=12 fire saved (vulnerable), "
        "takes 24, 0/14; Rot is defeated; Husk Dexterity save: (4)+0=4 vs 15 failure; Husk: "
        "(3,3,3,3,3,3,3,3)+0=24 fire (immune), takes 0, 20/20"
    )
    assert game.last is not None
    spend = next(e for e in game.last.events if e["type"] == "spend")
    assert {k: spend[k] for k in ("pool", "label", "amount")} == {
        "pool": "slots_3",
        "label": "3rd-level slots",
        "amount": 1,
    }
    assert [e["type"] for e in game.last.events][:3] == ["budget", "spend", "save"]
    assert _pool(game, "Corwin", "slots_3") == (2, 0)
    assert {"who": "Corwin", "what": "pool slots_3", "from": 3, "to": 2} in game.last.changes


def test_e13_an_upcast_and_its_refusals() -> None:
    game = _e12_start()
    body = 'op="act" who="Corwin" option="Fireball" target="Snag" pay="slots_4"'
    assert game.now(body, 5, 2, 2, 2, 2, 2, 2, 2, 2, 6) == (
        "Corwin spends 1 4th-level slots; Snag Dexterity save: (5)+2=7 vs 15 failure; Snag: "
        "(2,2,2,2,2,2,2,2,6)+0=22 fire (resist), takes 11, 1/12"
    )
    assert _pool(game, "Corwin", "slots_4") == (0, 0)
    assert _pool(game, "Corwin", "slots_3") == (3, 0)
    fresh = _e12_start()
    low = 'op="act" who="Corwin" option="Fireball" target="Snag" pay="slots_1"'
    assert fresh.now(low) == "refused:bad-pool"
    assert fresh.A("Corwin", "Fireball", "Snag, Rot, Husk, Corwin") == "refused:bad-target"
    empty = Game(f5(), (character(CORWIN, {"pools": {"slots_3": {"value": 0}}}),))
    empty.S("Corwin", "Snag", 20, 5)
    assert "ability:0:1" not in [o["id"] for o in _menu(empty, "corwin")]
    said = empty.tag('op="act" who="Corwin" option="Fireball" target="Snag"')
    assert 'option="ability:0:1"' in said and 'reason="insufficient"' in said


def test_e14_temporary_points_and_a_row_that_lands_by_itself() -> None:
    game = Game(f5(), (character(CORWIN),))
    game.S("Corwin", "Rot", 20, 3)
    assert game.tag('op="act" who="Corwin" option="Ward"', 4) == (
        '[fight: op="act" who="Corwin" option="ability:0:4" target="Corwin" result="ok" '
        'now="Corwin spends 1 1st-level slots; Corwin gains (4)+4=8 temporary" rolls="4" '
        'next="Corwin" forced="true"]'
    )
    assert game.A("Corwin", "Spirit Lash", "Rot", 5) == "Rot: (5)+0=5 radiant, takes 5, 9/14"
    assert game.last is not None
    assert "attack" not in [e["type"] for e in game.last.events]
    game.E("Corwin")
    assert game.A("Rot", "Bite", "Corwin", 15, 6) == (
        "Rot Bite at Corwin: (15)+3=18 vs 12 hit; Corwin: (6)+1=7 piercing, takes 7 "
        "(7 temporary), 38/38"
    )
    assert _pool(game, "Corwin", "hp") == (38, 1)


def _e15_start() -> Game:
    game = Game(f5(), (character(CORWIN),))
    game.S("Corwin", "Husk, Snag, Rot", 20, 2, 5, 3)
    assert game.fight is not None and game.fight["order"] == ["corwin", "snag", "rot", "husk"]
    return game


def test_e15_a_held_condition_and_concentration() -> None:
    husk = _e15_start()
    assert husk.A("Corwin", "Hold Fast", "Husk", 4) == (
        "Corwin spends 1 2nd-level slots; Corwin concentration on Hold Fast started; Husk "
        "Wisdom save: (4)+0=4 vs 15 failure; Husk immune to Paralyzed"
    )
    game = _e15_start()
    assert game.A("Corwin", "Hold Fast", "Snag", 5) == (
        "Corwin spends 1 2nd-level slots; Corwin concentration on Hold Fast started; Snag "
        "Wisdom save: (5)-1=4 vs 15 failure; Snag Paralyzed on"
    )
    assert game.member("Corwin").live.text["concentration"] == "Hold Fast"
    game.E("Corwin")
    assert [o["label"] for o in _menu(game, "snag")] == ["End turn"]
    assert game.A("Snag", "Scimitar", "Corwin") == "refused:cannot-act"
    assert game.E("Snag", 3) == "Snag Wisdom save: (3)-1=2 vs 15 failure; turn: Rot"
    assert game.c("snag")["tracked"][0]["rounds"] == 9
    assert game.A("Rot", "Bite", "Corwin", 15, 6, 4) == (
        "Rot Bite at Corwin: (15)+3=18 vs 12 hit; Corwin: (6)+1=7 piercing, takes 7, 31/38; "
        "Corwin Constitution save: (4)+1=5 vs 10 failure; Snag Paralyzed off (concentration); "
        "Corwin concentration on Hold Fast ended (damage)"
    )
    assert game.c("snag")["tracked"] == []
    assert game.member("Corwin").live.text.get("concentration", "") == ""


def _e16(corwin: Any) -> Game:
    game = Game(f5(), (corwin,))
    game.S("Corwin", "Snag, Rot", 20, 5, 3)
    game.A("Corwin", "Hold Fast", "Snag", 5)
    game.E("Corwin")
    game.E("Snag", 3)
    return game


def test_e16_replaced_and_down_ends_it() -> None:
    game = _e16(character(CORWIN))
    game.E("Rot")
    assert game.A("Corwin", "Hold Fast", "Rot", 5) == (
        "Corwin spends 1 2nd-level slots; Snag Paralyzed off (concentration); Corwin "
        "concentration on Hold Fast ended (replaced); Corwin concentration on Hold Fast "
        "started; Rot Wisdom save: (5)+0=5 vs 15 failure; Rot Paralyzed on"
    )
    low = _e16(character(CORWIN, _hp(3)))
    assert low.A("Rot", "Bite", "Corwin", 18, 8) == (
        "Rot Bite at Corwin: (18)+3=21 vs 12 hit; Corwin: (8)+1=9 piercing, takes 9, 0/38; "
        "Snag Paralyzed off (concentration); Corwin concentration on Hold Fast ended (down); "
        "Corwin Unconscious on; Corwin is down, dying; outcome defeat"
    )


def test_e18_healed_from_zero() -> None:
    game = Game(f5(), (character(CORWIN), character(BRENNA, _hp(0))))
    game.S("Corwin, Brenna", "Rot", 20, 10, 3)
    assert game.A("Corwin", "Mending Light", "Brenna", 5) == (
        "Corwin spends 1 1st-level slots; Brenna heals (5)+4=9, 9/60; Brenna Unconscious off "
        "(revived); Brenna is back up, 9"
    )


def _wren(creature: str, *faces: int) -> Game:
    game = Game(f5(), (character(WREN),))
    game.S("Wren", f"Clawed thing (fixtures/{creature})", 20, 1)
    game.A("Wren", "Ember Lash", "Clawed thing", *faces)
    return game


def test_e23_clauses_each_with_its_type_and_save() -> None:
    game = _wren("hide", 15, 4, 3, 5)
    assert game.last is not None
    assert [e["type"] for e in game.last.events] == [
        "budget",
        "attack",
        "damage",
        "damage",
        "save",
        "damage",
    ]
    assert game.last.events[1]["total"] == 22
    bare = _wren("bare", 15, 6, 2, 19)
    assert bare.last is not None
    lines = _now_of(game), _now_of(bare)
    assert lines[0] == (
        "Wren Ember Lash at Clawed thing: (15)+7=22 vs 1 hit; Clawed thing: (4)+0=4 piercing, "
        "takes 4, 86/90; Clawed thing: (3)+0=3 fire (resist), takes 1, 85/90; Clawed thing "
        "Constitution save: (5)+0=5 vs 12 failure; Clawed thing: 4 poison (immune), takes 0, "
        "85/90"
    )
    assert lines[1].endswith(
        ": (6)+0=6 piercing, takes 6, 84/90; Clawed thing: (2)+0=2 fire, takes 2, 82/90; "
        "Clawed thing Constitution save: (19)+0=19 vs 12 success; Clawed thing: 2 poison "
        "saved, takes 2, 80/90"
    )


def _now_of(game: Game) -> str:
    from dicebound.fight.lines import event_lines

    assert game.last is not None
    return "; ".join(event_lines(game.last.events))


def test_e27_an_area_with_no_roll() -> None:
    game = e_start()
    assert game.A("Juno", "Coldfire Toss", "Ash-hound, Cinder-hound", 3, 4) == (
        "Ash-hound: (3,4)+0=7 coldfire, takes 7, 13/20; Ash-hound Shaken on; Cinder-hound: "
        "(3,4)+0=7 coldfire, takes 7, 13/20; Cinder-hound Shaken on"
    )
    for who in ("Juno", "Pell", "Ash-hound"):
        game.E(who)
    assert game.E("Cinder-hound").startswith("round 2")
    shaken = game.c("cinder-hound")["tracked"]
    assert [(x["condition"], x["rounds"]) for x in shaken] == [("shaken", 1)]
    assert game.A("Juno", "Road axe", "Cinder-hound", 4, 3, 2).endswith(
        "; Cinder-hound Shaken off (damage)"
    )


def test_e27_with_an_attack_roll_it_can_miss() -> None:
    doc = json.loads(_em_doc())
    knacks = next(c for c in doc["catalogs"] if c["id"] == "knacks")
    toss = next(e for e in knacks["entries"] if e["id"] == "coldfire-toss")
    toss["mechanics"]["attackRoll"] = True
    ruleset = _compiled(json.dumps(doc))
    game = Game(ruleset, (juno(ruleset=ruleset),))
    game.S("Juno", "Ash-hound (hounds/hound), Cinder-hound (hounds/hound)", 6, 5, 1, 1, 1, 1)
    assert game.A("Juno", "Coldfire Toss", "Ash-hound", 1, 1) == (
        "Juno Coldfire Toss at Ash-hound: (1,1)+0=2 vs 6 miss"
    )


def test_e28_prices_through_the_sheet() -> None:
    game = e_start()
    assert game.A("Juno", "Hold the Line", "Pell") == "Juno spends 1 Luck; Pell gains 2 temporary"
    assert _pool(game, "Juno", "luck")[0] == 2
    broke = Game(em(), (juno({"pools": {"luck": {"value": 0}}}),))
    broke.S("Juno", "Ash-hound (hounds/hound)", 6, 5, 1, 1)
    assert "Hold the Line" not in [o["label"] for o in _menu(broke, "juno")]
    assert broke.A("Juno", "Hold the Line", "Juno") == "refused:insufficient"
    ember = e_start()
    assert ember.A("Juno", "Last Ember", "Pell") == (
        "Juno spends 1 Grit; Juno spends 1 Last Ember; Pell heals 3, 6/6"
    )
    assert _pool(ember, "Juno", "grit")[0] == 7
    assert _pool(ember, "Juno", "tricks:last ember")[0] == 0


# -- exact odds of the rows, agreeing with the resolver (FIGHTS §14) ----------------------


def _small_doc(critical: str) -> str:
    """F5 thrown on a four-sided attack die (saves too), spells saved against 5 and
    Fireball at 2d4, so every face sequence of a row can be enumerated."""
    doc: dict[str, Any] = json.loads(f5_doc())
    combat = doc["combat"]
    combat["attackRoll"]["dice"] = {"count": 1, "sides": 4}
    combat["attackRoll"]["critical"] = critical
    combat["abilities"][0]["saveDifficulty"] = {"const": 5}
    spells = next(c for c in doc["catalogs"] if c["id"] == "spells")
    fireball = next(e for e in spells["entries"] if e["id"] == "fireball")
    fireball["mechanics"]["amount"] = {"dice": "2d4"}
    clauses = next(c for c in doc["catalogs"] if c["id"] == "clauses")
    clauses["entries"][0]["mechanics"]["plus"][1]["save"]["difficulty"] = 4
    return json.dumps(doc)


def _small(critical: str, caster: dict[str, Any], enemies: str, *faces: int) -> Game:
    ruleset = _compiled(_small_doc(critical))
    game = Game(ruleset, (load_character(ruleset, caster),))
    game.S(caster["name"], enemies, *faces)
    return game


def _tally(game: Game, who: str, option: str, target: str) -> dict[str, Any]:
    """The resolver's own odds of ``option`` at ``target`` over every face sequence,
    the action's save (the first save ``target`` makes) tallied beside the rest."""
    tag = FightTag((0, 0), f'op="act" who="{who}" option="{option}" target="{target}"')

    def run(dice: Any) -> tuple[bool, bool, int, bool, bool]:
        result = step(game.ruleset, game.fight, game.party, tag, dice)
        saves = [e for e in result.events if e["type"] == "save" and e["targetId"] == target]
        return (*outcome_of(result, target), bool(saves) and saves[0]["success"])

    tally: dict[str, Any] = {k: Fraction(0) for k in ("hit", "critical", "drops", "save")}
    dealt: dict[int, Fraction] = {}
    for (landed, critical, amount, drops, saved), p in enumerate_throws(run).items():
        for key, yes in (("hit", landed), ("critical", critical), ("drops", drops)):
            tally[key] += p if yes else 0
        tally["save"] += p if saved else 0
        dealt[amount] = dealt.get(amount, Fraction(0)) + p
    tally["dealt"] = dealt
    return tally


def _agrees(game: Game, who: str, option: str, target: str) -> dict[str, Any]:
    odds = _menu_odds(game, who, option)[target]
    mine = as_fractions(odds)
    tally = _tally(game, who, option, target)
    if "save" not in mine:
        del tally["save"]
    assert mine == tally
    return mine


def _menu_odds(game: Game, who: str, option: str) -> dict[str, Any]:
    found = next(o for o in _menu(game, who) if o["id"] == option)
    odds: dict[str, Any] = found["odds"]
    return odds


@pytest.mark.parametrize("creature", ["hide", "bare"])
@pytest.mark.parametrize("critical", ["double-dice", "max-dice"])
def test_e23_clause_odds_agree_with_the_resolver(creature: str, critical: str) -> None:
    game = _small(critical, WREN, f"Clawed thing (fixtures/{creature})", 4, 1)
    mine = _agrees(game, "wren", "ability:0:0", "clawed-thing")
    assert (mine["hit"], mine["critical"]) == (Fraction(3, 4), Fraction(1, 4))


@pytest.mark.parametrize("target", ["snag", "rot", "husk"])
def test_e12_area_save_odds_agree_with_the_resolver(target: str) -> None:
    game = _small("double-dice", CORWIN, "Snag, Rot, Husk", 4, 1, 1, 1)
    mine = _agrees(game, "corwin", "ability:0:1", target)
    assert mine["hit"] == 1 and mine["critical"] == 0
    assert mine["save"] == {"snag": Fraction(1, 2), "rot": Fraction(1, 4), "husk": 0}[target]


def test_e5_the_scaled_cantrip_odds_agree_with_the_resolver() -> None:
    game = _small("max-dice", CORWIN, "Snag, Rot", 4, 1, 1)
    _agrees(game, "corwin", "ability:0:0", "rot")  # 2d10 fire, vulnerable
    _agrees(game, "corwin", "ability:0:5", "snag")  # Spirit Lash lands by itself


def test_a_heal_weighs_its_amount() -> None:
    game = Game(f5(), (character(CORWIN), character(BRENNA, _hp(0))))
    game.S("Corwin, Brenna", "Rot", 20, 10, 3)
    menu = {o["id"]: o for o in _menu(game, "corwin")}
    light = menu["ability:0:2"]
    assert light["forecast"] == {"averageDamage": 8.5}
    eighth = "1/8"
    assert light["odds"]["brenna"] == {"heals": {str(n): eighth for n in range(5, 13)}}
    assert "odds" not in menu["ability:0:3"]  # Hold Fast deals nothing and heals nothing


def test_a_fight_with_rows_round_trips_through_json_and_plays_on() -> None:
    game = _e15_start()
    game.A("Corwin", "Hold Fast", "Snag", 5)
    assert game.fight is not None
    read = load_state(json.loads(json.dumps(game.fight)))
    assert read == game.fight
    game.fight = read
    game.E("Corwin")
    assert game.E("Snag", 3) == "Snag Wisdom save: (3)-1=2 vs 15 failure; turn: Rot"


def test_a_broken_row_in_a_state_is_refused() -> None:
    game = _e15_start()
    assert game.fight is not None
    broken = json.loads(json.dumps(game.fight))
    broken["combatants"][0]["actions"][2]["heal"] = {"count": "two"}
    with pytest.raises(UsageError, match="heal"):
        load_state(broken)


def test_a_free_row_gives_its_budget_back_and_spends_its_counter() -> None:
    raw = json.loads(json.dumps(BRENNA))
    mark = "feats/second-effort"
    raw["sheet"]["build"]["lists"]["features"] = [{"name": "Second Effort", "_catalog": mark}]
    raw["sheet"]["build"]["lists"]["counters"] = [
        {"name": "Second Effort", "max": 1, "recharge": "short", "_catalog": mark}
    ]
    game = Game(f5(), (character(raw),))
    game.S("Brenna", "Rot", 20, 1)
    game.A("Brenna", "Longsword", "Rot", 2)
    effort = next(o for o in _menu(game, "brenna") if o["label"] == "Second Effort")
    assert "budget" not in effort and effort["targets"] == {"side": "self", "count": 0}
    assert effort["cost"] == [
        {"pool": "counters:second effort", "label": "Second Effort", "amount": 1}
    ]
    assert game.A("Brenna", "Second Effort") == "Brenna spends 1 Second Effort"
    assert game.c("brenna")["budgets"]["action"] == 1
    assert game.A("Brenna", "Longsword", "Rot", 2) == "Brenna Longsword at Rot: (2)+7=9 vs 12 miss"
    assert game.A("Brenna", "Second Effort") == "refused:insufficient"  # no use left


def test_a_bare_standard_permission_is_kept_but_not_played() -> None:
    raw = json.loads(json.dumps(BRENNA))
    quick = {"name": "Quick Hands", "_catalog": "feats/quick-hands"}
    raw["sheet"]["build"]["lists"]["features"] = [quick]
    game = Game(f5(), (character(raw),))
    game.S("Brenna", "Rot", 20, 1)
    assert "Quick Hands" not in [o["label"] for o in _menu(game, "brenna")]
    assert game.A("Brenna", "Quick Hands") == "refused:not-played"
    assert game.last is not None and game.last.message is not None
    assert "standard actions be taken on another budget" in game.last.message


def test_e25_labels_and_prices_of_knacks() -> None:
    menu = _menu(e_start(), "juno")
    assert [(o["label"], o["id"]) for o in menu] == [
        ("Road axe", "attack:0:0"),
        ("Last Ember", "ability:0:1"),
        ("Coldfire Toss", "ability:0:2"),
        ("Hold the Line", "ability:0:3"),
        ("dodge", "standard:dodge"),
        ("help", "standard:help"),
        ("End turn", "end-turn"),
    ]
    by_label = {o["label"]: o for o in menu}
    assert by_label["Hold the Line"]["cost"] == [{"pool": "luck", "label": "Luck", "amount": 1}]
    assert by_label["Last Ember"]["cost"] == [
        {"pool": "grit", "label": "Grit", "amount": 1},
        {"pool": "tricks:last ember", "label": "Last Ember", "amount": 1},
    ]
    assert not any("payWith" in o for o in menu)
