"""The packaged dice-pool ruleset fights: wod-pool v2's ``combat`` block with its
bestiary, and the packaged characters Lucia and Tobias with their weapons, played
through ``dicebound.resolve_text`` with forced faces (FIGHTS §7.3, §7.6, §7.7); and
the exact odds of one of their options agreeing with the resolver's own tally (§14)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from fight_fixtures import Game
from odds_support import as_fractions, menu_odds, resolver_tally

from dicebound import resolve_text
from dicebound.edge.files import read_character, read_ruleset
from dicebound.sheet import Character

WOD = read_ruleset("wod-pool")
LUCIA = "Lucia Marchetti"
TOBIAS = "Tobias Grell"
BESTIARY = next(c for c in WOD.raw["catalogs"] if c["id"] == "bestiary")["entries"]


def packaged_party() -> tuple[Character, ...]:
    return (read_character(WOD, "wod-pool/lucia"), read_character(WOD, "wod-pool/tobias"))


class Table:
    """A game on the packaged ruleset: each step one text through ``resolve_text``,
    on the fight and the party the step before left."""

    def __init__(self) -> None:
        self.party = packaged_party()
        self.fight: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []

    def say(self, tag: str, *faces: int) -> str:
        report = resolve_text(WOD, self.party, tag, faces=faces, fight=self.fight)
        ((_, step),) = report.fight_steps
        assert step.ok, step.reason
        self.fight, self.party, self.events = report.fight, report.party, list(step.events)
        return report.text

    def c(self, ident: str) -> dict[str, Any]:
        assert self.fight is not None
        return next(x for x in self.fight["combatants"] if x["id"] == ident)

    def wounds(self, name: str) -> Sequence[str]:
        member = next(m for m in self.party if m.name == name)
        return member.live.wounds["health"].marks

    def of(self, kind: str) -> dict[str, Any]:
        return next(e for e in self.events if e["type"] == kind)


def started() -> Table:
    """Lucia and Tobias against the sewer rats and a street thug; faces 7, 3 for the
    party, 2, 9 for the opponents."""
    table = Table()
    table.say('[fight: op="start" enemies="Sewer rats, Street thug"]', 7, 3, 2, 9)
    return table


def test_the_packaged_ruleset_is_version_2_and_fights_in_pools() -> None:
    assert (WOD.id, WOD.version) == ("wod-pool", 2)
    assert WOD.coverage["combat"] is True
    assert WOD.combat is not None and WOD.raw["combat"]["kind"] == "dice-pool"
    assert {c["id"]: c.get("holds") for c in WOD.raw["catalogs"]}["bestiary"] == "creatures"
    assert len(BESTIARY) >= 6


def test_a_start_throws_one_die_plus_dexterity_and_wits() -> None:
    table = Table()
    assert table.say('[fight: op="start" enemies="Sewer rats, Street thug"]', 7, 3, 2, 9) == (
        '[fight: op="start" party="Lucia Marchetti, Tobias Grell" enemies="Sewer rats, '
        'Street thug" result="ok" now="initiative: Lucia Marchetti (7)+8=15, Street thug '
        "(9)+4=13, Tobias Grell (3)+5=8, Sewer rats (2)+4=6; round 1; turn: Lucia "
        'Marchetti" rolls="7|3|2|9" next="Lucia Marchetti" forced="true"]'
    )
    assert table.fight is not None
    assert table.fight["order"] == ["lucia-marchetti", "street-thug", "tobias-grell", "sewer-rats"]
    rats = table.c("sewer-rats")
    assert rats["health"] == {"value": 3, "max": 3, "temp": 0}
    assert table.c("street-thug")["soak"] == {"all": 0, "byKind": {"bashing": 2}}


def test_a_pool_attack_hits_and_marks_the_opponent() -> None:
    table = started()
    faces = (6, 7, 8, 2, 3, 4, 5, 9, 6, 6, 6, 1, 2, 3, 4)
    assert table.say(
        '[fight: op="act" who="Lucia Marchetti" option="Pistol" target="Sewer rats"]', *faces
    ) == (
        '[fight: op="act" who="Lucia Marchetti" option="attack:0:0" target="Sewer rats" '
        'result="ok" now="Lucia Marchetti Pistol at Sewer rats: (6,7,8,2,3,4,5,9) 4 successes '
        "vs 1 hit; Sewer rats: (6,6,6,1,2,3,4) 3 successes lethal, takes 3, 0/3; Sewer rats is "
        'defeated" rolls="6|7|8|2|3|4|5|9|6|6|6|1|2|3|4" next="Lucia Marchetti" forced="true"]'
    )
    attack = table.of("attack")
    assert (attack["total"], attack["defense"]) == (4, 1)
    assert attack["pool"] == {"dice": 8, "target": 6}
    damage = table.of("damage")
    assert damage["pool"]["target"] == 6 and damage["pool"]["successes"] == 3
    assert table.c("sewer-rats")["defeated"] is True


def test_a_creature_marks_a_characters_health_track_through_the_sheet() -> None:
    table = started()
    table.say('[fight: op="end-turn" who="Lucia Marchetti"]')
    text = table.say(
        '[fight: op="act" who="Street thug" option="Knife" target="Lucia Marchetti"]',
        *(8, 6, 2, 3, 4, 6, 7, 2, 9),
    )
    assert 'now="Street thug Knife at Lucia Marchetti: (8,6,2,3,4) 2 successes vs 1 hit; ' in text
    assert "Lucia Marchetti: (6,7,2,9) 3 successes lethal, takes 3, 4/7" in text
    # A knife is lethal harm: Stamina soaks bashing only, so nothing came off.
    assert "soak" not in text
    assert table.wounds(LUCIA) == ("lethal", "lethal", "lethal")
    # Injured: the track's penalty now takes a die off her pistol's eight.
    table.say('[fight: op="end-turn" who="Street thug"]')
    table.say('[fight: op="end-turn" who="Tobias Grell"]')
    table.say('[fight: op="end-turn" who="Sewer rats"]', 5, 5, 5, 5)
    table.say(
        '[fight: op="act" who="Lucia Marchetti" option="Pistol" target="Street thug"]',
        *(2, 3, 4, 5, 2, 3, 4),
    )
    assert table.of("attack")["pool"] == {"dice": 7, "target": 6, "penalty": -1}


def test_stamina_soaks_bashing_and_the_opponent_its_own() -> None:
    table = started()
    table.say('[fight: op="end-turn" who="Lucia Marchetti"]')
    table.say('[fight: op="end-turn" who="Street thug"]')
    # Tobias: Dexterity 2, no Melee, Hurt (-1): one die.
    text = table.say(
        '[fight: op="act" who="Tobias Grell" option="Blackthorn cane" target="Street thug"]',
        *(8, 6, 8, 3, 6, 1),
    )
    assert (
        'now="Tobias Grell Blackthorn cane at Street thug: (8) 1 successes vs 1 hit; Street '
        'thug: (6,8,3) 2 successes bashing soak 2 (6,1) took 1, takes 1, 6/7"'
    ) in text
    assert table.of("attack")["pool"] == {"dice": 1, "target": 6, "penalty": -1}
    assert table.c("street-thug")["health"]["value"] == 6


def test_a_ghouls_bashing_blow_is_soaked_by_tobias_stamina() -> None:
    table = Table()
    table.say(f'[fight: op="start" party="{TOBIAS}" enemies="Ghoul"]', 1, 10)
    text = table.say(
        '[fight: op="act" who="Ghoul" option="Tire iron" target="Tobias Grell"]',
        *(7, 7, 2, 3, 4, 5, 6, 6, 6, 6, 2, 6, 6, 3),
    )
    assert (
        'now="Ghoul Tire iron at Tobias Grell: (7,7,2,3,4,5) 2 successes vs 1 hit; Tobias '
        'Grell: (6,6,6,6,2) 4 successes bashing soak 3 (6,6,3) took 2, takes 2, 3/7"'
    ) in text
    assert table.wounds(TOBIAS) == ("lethal", "bashing", "bashing", "bashing")


def test_a_fight_on_the_packaged_ruleset_ends_in_victory() -> None:
    table = started()
    table.say(
        '[fight: op="act" who="Lucia Marchetti" option="Pistol" target="Sewer rats"]',
        *(6, 7, 8, 2, 3, 4, 5, 9, 6, 6, 6, 1, 2, 3, 4),
    )
    table.say('[fight: op="end-turn" who="Lucia Marchetti"]')
    table.say('[fight: op="end-turn" who="Street thug"]')
    table.say('[fight: op="end-turn" who="Tobias Grell"]', 5, 5, 5)
    faces = (9, 9, 9, 9, 9, 9, 9, 9, 6, 6, 6, 6, 6, 6, 6, 1, 1, 1, 1)
    assert table.say(
        '[fight: op="act" who="Lucia Marchetti" option="Pistol" target="Street thug"]', *faces
    ) == (
        '[fight: op="act" who="Lucia Marchetti" option="attack:0:0" target="Street thug" '
        'result="ok" now="Lucia Marchetti Pistol at Street thug: (9,9,9,9,9,9,9,9) 8 '
        "successes vs 1 hit; Street thug: (6,6,6,6,6,6,6,1,1,1,1) 7 successes lethal, "
        'takes 7, 0/7; Street thug is defeated; outcome victory" rolls="9|9|9|9|9|9|9|9|6|'
        '6|6|6|6|6|6|1|1|1|1" outcome="victory" forced="true"]'
    )
    assert table.fight is not None and table.fight["outcome"] == "victory"


@pytest.mark.parametrize("entry", BESTIARY, ids=[e["id"] for e in BESTIARY])
def test_every_creature_of_the_bestiary_starts_a_fight(entry: dict[str, Any]) -> None:
    """Each creature, found by its label, fights as written: never clamped."""
    table = Table()
    table.say(f'[fight: op="start" party="{LUCIA}" enemies="Foe ({entry["label"]})"]', 5, 5)
    assert table.fight is not None and table.fight["adjustments"] == []
    foe, creature = table.c("foe"), entry["creature"]
    assert (foe["block"]["entry"], foe["block"]["tier"]) == (entry["id"], creature["tier"])
    assert foe["health"]["max"] == creature["health"] and foe["defense"] == creature["defense"]
    assert [a["id"] for a in foe["actions"]] == [a["id"] for a in creature["actions"]]
    assert foe["initiative"] == 5 + creature["initiativeModifier"]


def _tobias_fists(target: str) -> dict[str, Any]:
    """The menu's odds of Tobias's fists at ``target``, checked against the resolver's
    own tally over every face sequence it asks for (FIGHTS §14's agreement)."""
    game = Game(WOD, packaged_party())
    game.S(TOBIAS, "Sewer rats, Street thug", 10, 1, 1)
    odds = menu_odds(game, "tobias-grell", "attack:0:1")
    assert odds is not None
    mine = as_fractions(odds[target])
    tally = resolver_tally(game, "tobias-grell", "attack:0:1", target)
    assert (mine["hit"], mine["critical"], mine["dealt"], mine["drops"]) == (
        tally["hit"],
        tally["critical"],
        tally["dealt"],
        tally["drops"],
    )
    return mine


def test_tobias_fists_at_the_rats_agree_with_the_resolver() -> None:
    """One die (Dexterity 2, no Brawl, Hurt) at the rats, who soak nothing."""
    mine = _tobias_fists("sewer-rats")
    # One die at six: a 6 or better hits, and no other die can cancel it.
    assert mine["hit"] == Fraction(1, 2) and mine["critical"] == 0
    # Two damage dice at six: none, one or both.
    assert mine["dealt"] == {0: Fraction(5, 8), 1: Fraction(1, 4), 2: Fraction(1, 8)}
    assert mine["drops"] == 0


def test_tobias_fists_at_the_thug_agree_with_the_resolver_through_soak() -> None:
    """The thug soaks bashing with two dice thrown against six."""
    mine = _tobias_fists("street-thug")
    # A hit (1/2), both damage dice land (1/4) and neither soak die does (1/4).
    assert mine["dealt"][2] == Fraction(1, 2) * Fraction(1, 4) * Fraction(1, 4)
    # Soak past the count takes the count and no more: one success soaked by one or two.
    assert mine["dealt"] == {0: Fraction(27, 32), 1: Fraction(1, 8), 2: Fraction(1, 32)}


def test_an_opponent_by_tier_strikes_with_automatic_bashing_successes() -> None:
    """No creature by that name: the tier's plain block (FIGHTS §5.2), health the middle
    of its band and damage the middle of its round as automatic successes, untyped, so
    bashing by ``damageKinds.default`` and soaked by Stamina."""
    table = Table()
    text = table.say(
        f'[fight: op="start" party="{LUCIA}" enemies="Vandal (tier street), Drunk"]', 5, 5, 5
    )
    assert "adjusted Drunk: creature Drunk -> tier nuisance" in text
    assert table.c("vandal")["health"] == {"value": 6, "max": 6, "temp": 0}
    table.say('[fight: op="end-turn"]')
    text = table.say(
        f'[fight: op="act" who="Vandal" option="strike" target="{LUCIA}"]', 6, 2, 3, 4, 5, 7, 1
    )
    assert (
        'now="Vandal Vandal: attack at Lucia Marchetti: (6,2,3,4,5) 1 successes vs 1 hit; '
        'Lucia Marchetti: 2 successes (2 automatic) soak 2 (7,1) took 1, takes 1, 6/7"'
    ) in text
    assert table.wounds(LUCIA) == ("bashing",)
