"""The packaged fifth edition ruleset fights: its packaged characters Bram and Mira against
creatures of its bestiary, each step a ``[fight:]`` tag with forced faces and its exact
answer; and the menu's odds of one option agreeing with the resolver's own tally
(the enumeration of test_fight_odds)."""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from typing import Any

import pytest
from fight_fixtures import Game
from odds_support import as_fractions, menu_odds, resolver_tally

from dicebound.character import load_character
from dicebound.edge.files import read_character, read_ruleset
from dicebound.fight.state import summary
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character

BRAM, MIRA = "Bram Ironhand", "Mira Quickfoot"


def srd() -> Ruleset:
    return read_ruleset("dnd5e-srd")


def member(short: str, live: dict[str, Any] | None = None) -> Character:
    """A packaged character, as shipped or with its live state replaced."""
    if live is None:
        return read_character(srd(), f"dnd5e-srd/{short}")
    path = resources.files("dicebound.data") / "characters" / "dnd5e-srd" / f"{short}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["live"] = live
    return load_character(srd(), raw)


def first_fight() -> Game:
    """Bram and Mira against a goblin and a wolf: order Mira 18, Bram 12, Goblin 10,
    Wolf 5 (faces 12, 15, 8, 3 in input order)."""
    game = Game(srd(), (member("bram"), member("mira")))
    game.S(f"{BRAM}, {MIRA}", "Goblin, Wolf", 12, 15, 8, 3)
    return game


def test_the_packaged_ruleset_fights_and_its_bestiary_sits_in_its_tiers() -> None:
    ruleset = srd()
    assert (ruleset.version, ruleset.coverage["combat"]) == (2, True)
    combat = ruleset.combat
    assert combat is not None and combat.played and "combat" not in ruleset.not_played
    creatures = {entry: c for (catalog, entry), c in combat.creatures.items()}
    assert len(creatures) >= 8
    for name, creature in creatures.items():
        tier = combat.tier(creature.tier)
        assert tier is not None, name
        low, high = tier.health
        assert isinstance(creature.health, int) and low <= creature.health <= high, name


def test_a_first_fight_start_acts_and_victory() -> None:
    game = Game(srd(), (member("bram"), member("mira")))
    assert game.S(f"{BRAM}, {MIRA}", "Goblin, Wolf", 12, 15, 8, 3) == (
        f'[fight: op="start" party="{BRAM}, {MIRA}" enemies="Goblin, Wolf" result="ok" '
        f'now="initiative: {MIRA} (15)+3=18, {BRAM} (12)+0=12, Goblin (8)+2=10, Wolf (3)+2=5; '
        f'round 1; turn: {MIRA}" rolls="12|15|8|3" next="{MIRA}" forced="true"]'
    )
    # Shortsword: Dex +3 and proficiency +3 to hit; 1d6 + 3 piercing.
    assert game.A(MIRA, "Shortsword", "Goblin", 14, 4) == (
        f"{MIRA} Shortsword at Goblin: (14)+6=20 vs 15 hit; "
        "Goblin: (4)+3=7 piercing, takes 7, 0/7; Goblin is defeated"
    )
    assert game.E(MIRA) == f"turn: {BRAM}"
    assert game.A(BRAM, "Longsword", "Wolf", 11, 6) == (
        f"{BRAM} Longsword at Wolf: (11)+5=16 vs 13 hit; Wolf: (6)+3=9 slashing, takes 9, 2/11"
    )
    assert game.E(BRAM) == "turn: Wolf"  # the defeated goblin's turn is passed over
    # A natural 20 is a critical: the bite's 2d4 thrown twice, the flat once.
    assert game.A("Wolf", "Bite", BRAM, 20, 3, 2, 4, 1) == (
        f"Wolf Bite at {BRAM}: (20)+4=24 vs 18 critical; "
        f"{BRAM}: (3,2,4,1)+2=12 piercing critical, takes 12, 16/28"
    )
    assert game.member(BRAM).live.pools["hit_points"].value == 16
    assert game.E("Wolf") == f"round 2; turn: {MIRA}"
    answer = game.tag(f'op="act" who="{MIRA}" option="Shortsword" target="Wolf"', 9, 5)
    assert answer == (
        f'[fight: op="act" who="{MIRA}" option="attack:0:0" target="Wolf" result="ok" '
        f'now="{MIRA} Shortsword at Wolf: (9)+6=15 vs 13 hit; Wolf: (5)+3=8 piercing, '
        'takes 8, 0/11; Wolf is defeated; outcome victory" rolls="9|5" outcome="victory" '
        'forced="true"]'
    )
    assert game.fight is not None
    got = summary(game.ruleset, game.fight, game.party)
    assert (got["outcome"], got["rounds"]) == ("victory", 2)
    assert got["enemies"] == [
        {"id": "goblin", "name": "Goblin", "health": 0, "maxHealth": 7, "defeated": True},
        {"id": "wolf", "name": "Wolf", "health": 0, "maxHealth": 11, "defeated": True},
    ]


def test_a_natural_1_misses_whatever_the_bonus() -> None:
    game = first_fight()
    assert game.A(MIRA, "Shortsword", "Goblin", 1) == (
        f"{MIRA} Shortsword at Goblin: (1)+6=7 vs 15 miss"
    )


def test_down_dying_death_saves_and_a_natural_20_revives() -> None:
    game = Game(srd(), (member("bram"), member("mira", {"pools": {"hit_points": {"value": 3}}})))
    game.S(f"{BRAM}, {MIRA}", "Orc", 1, 2, 10)
    assert game.fight is not None and game.fight["order"] == [
        "orc",
        "mira-quickfoot",
        "bram-ironhand",
    ]
    assert game.A("Orc", "Greataxe", MIRA, 13, 5) == (
        f"Orc Greataxe at {MIRA}: (13)+5=18 vs 15 hit; {MIRA}: (5)+3=8 slashing, takes 8, 0/33; "
        f"{MIRA} Unconscious on; {MIRA} is down, dying"
    )
    assert game.E("Orc", 7) == f"turn: {MIRA}; {MIRA} death save (7) vs 10: failure"
    live = game.member(MIRA).live
    assert (live.conditions, dict(live.tracks)) == (("unconscious",), {"death_save_failures": 1})
    assert game.E(MIRA) == f"turn: {BRAM}"
    assert game.E(BRAM) == "round 2; turn: Orc"
    # Unconscious: attacks against her lean to advantage, and a hit while down is a failure.
    assert game.A("Orc", "Greataxe", MIRA, 16, 4, 6) == (
        f"Orc Greataxe at {MIRA}: (16,4)+5=21 vs 15 hit (advantage); "
        f"{MIRA}: (6)+3=9 slashing, takes 9, 0/33"
    )
    assert dict(game.member(MIRA).live.tracks) == {"death_save_failures": 2}
    assert game.E("Orc", 20) == (
        f"turn: {MIRA}; {MIRA} heals 1, 1/33; {MIRA} Unconscious off (revived); "
        f"{MIRA} is back up, 1; {MIRA} death save (20) vs 10: revived"
    )
    live = game.member(MIRA).live
    assert (live.pools["hit_points"].value, live.conditions, dict(live.tracks)) == (1, (), {})


def test_the_spiders_web_restrains_until_a_strength_save_and_recharges() -> None:
    game = Game(srd(), (member("bram"), member("mira")))
    game.S(f"{BRAM}, {MIRA}", "Giant Spider", 2, 3, 19)
    assert game.A("Giant Spider", "Web", BRAM, 18) == (
        f"Giant Spider Web at {BRAM}: (18)+5=23 vs 18 hit; {BRAM} Restrained on"
    )
    assert game.member(BRAM).live.conditions == ("restrained",)
    assert game.E("Giant Spider") == f"turn: {MIRA}"
    assert game.E(MIRA) == f"turn: {BRAM}"
    # Restrained: his own attacks lean to disadvantage.
    assert game.A(BRAM, "Longsword", "Giant Spider", 10, 16, 7) == (
        f"{BRAM} Longsword at Giant Spider: (10,16)+5=15 vs 14 hit (disadvantage); "
        "Giant Spider: (7)+3=10 slashing, takes 10, 16/26"
    )
    assert game.E(BRAM, 9, 5) == (
        f"{BRAM} Strength save: (9)+5=14 vs 12 success; {BRAM} Restrained off (save); "
        "round 2; turn: Giant Spider; Web recharge (5) vs 5: back"
    )
    assert game.member(BRAM).live.conditions == ()


def test_the_spiders_bite_adds_poison_a_constitution_save_halves() -> None:
    game = Game(srd(), (member("bram"), member("mira")))
    game.S(f"{BRAM}, {MIRA}", "Giant Spider", 2, 3, 19)
    assert game.A("Giant Spider", "Bite", BRAM, 15, 5, 13, 4, 8) == (
        f"Giant Spider Bite at {BRAM}: (15)+5=20 vs 18 hit; {BRAM}: (5)+3=8 piercing, "
        f"takes 8, 20/28; {BRAM} Constitution save: (13)+4=17 vs 11 success; "
        f"{BRAM}: (4,8)+0=6 poison saved, takes 6, 14/28"
    )


@pytest.mark.parametrize(("target", "hit"), [("goblin", Fraction(3, 5)), ("wolf", Fraction(7, 10))])
def test_odds_of_the_shortsword_agree_with_the_resolver(target: str, hit: Fraction) -> None:
    game = first_fight()
    odds = menu_odds(game, "mira-quickfoot", "attack:0:0")
    assert odds is not None and list(odds) == ["goblin", "wolf"]
    mine = as_fractions(odds[target])
    assert mine == resolver_tally(game, "mira-quickfoot", "attack:0:0", target)
    # +6 against Armor Class 15 (13): 9 (7) or more of 20; a natural 20 is the critical.
    assert (mine["hit"], mine["critical"]) == (hit, Fraction(1, 20))
