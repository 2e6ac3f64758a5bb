"""Starting a fight (FIGHTS §5): the enemies grammar, tier blocks, a proposal clamped to
its tier, health dice, and the refusals (not-played where this core does not play)."""

from __future__ import annotations

import json
from typing import Any

from fight_fixtures import BRENNA, Game, character, f5

from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces
from dicebound.fight import step
from dicebound.fight.opponents import split_entries
from dicebound.fight.tag import FightTag
from shared_files import shared_path


def _game() -> Game:
    return Game(f5(), (character(BRENNA),))


def test_a_name_with_no_creature_is_the_lowest_tier_block_and_says_so() -> None:
    game = _game()
    answer = game.S("Brenna", "Bandit", 10, 4)
    assert "adjusted Bandit: creature Bandit -> tier cr_0" in answer
    bandit = game.c("bandit")
    assert bandit["health"] == {"value": 7, "max": 7, "temp": 0}  # max(1, (1+13)//2)
    assert bandit["defense"] == 12
    strike = bandit["actions"][0]
    assert (strike["id"], strike["label"], strike["toHit"]) == ("strike", "Bandit: attack", 2)
    assert strike["damage"] == {"count": 0, "sides": 0, "flat": 2, "type": None}


def test_a_tier_spec_and_copies() -> None:
    game = _game()
    game.S("Brenna", "Rat x3 (tier cr_1_4)", 10, 1, 2, 3)
    assert [c["name"] for c in game.fight["combatants"]][1:] == ["Rat 1", "Rat 2", "Rat 3"]  # type: ignore[index]
    assert game.c("rat-2")["health"]["max"] == 14
    assert game.fight is not None and game.fight["adjustments"] == []


def test_a_proposal_is_clamped_to_its_tier() -> None:
    game = _game()
    answer = game.S(
        "Brenna", "Brute (tier cr_1_8; health 40; defense 19; hit 9; damage 3d10+4 fire)", 10, 1
    )
    brute = game.c("brute")
    assert brute["health"]["max"] == 13
    assert brute["defense"] == 14
    assert brute["actions"][0]["toHit"] == 6
    # 3d10+4 (avg 20.5) shaved to within 5: 1d10+4 (9.5) -> 1d10+0 (5.5) -> 1d8 (4.5)
    assert brute["actions"][0]["damage"] == {"count": 1, "sides": 8, "flat": 0, "type": "fire"}
    assert "adjusted Brute: health 40 -> 13" in answer
    assert "adjusted Brute: damage 3d10+4 -> 1d8" in answer


def test_health_dice_are_thrown_after_initiative() -> None:
    game = _game()
    game.S("Brenna", "Lurker (creatures/thorn-lurker)", 10, 7, 1, 2, 3)
    lurker = game.c("lurker")
    assert lurker["initiativeRoll"] == [7]
    assert lurker["health"]["max"] == 1 + 2 + 3 + 3


def test_a_sequence_plays_its_parts_in_order_for_one_budget() -> None:
    game = _game()
    game.S("Brenna", "Lurker (creatures/thorn-lurker)", 1, 20, 1, 1, 1)
    assert game.A("Lurker", "Claw and snare", "Brenna", 2, 3) == (
        "Lurker Barbed claw at Brenna: (2)+4=6 vs 18 miss; "
        "Lurker Snare vine at Brenna: (3)+4=7 vs 18 miss"
    )
    assert game.c("lurker")["budgets"]["action"] == 0
    said = game.tag('op="act" who="Lurker" option="Barbed claw" target="Brenna"')
    assert said.endswith('reason="no-budget"]')


def test_grammar_refusals() -> None:
    assert split_entries("a (b, c), d") == ["a (b, c)", "d"]
    assert split_entries("a (b") is None
    for enemies in ("Brenna", "Rot, rot", "Rat x13", "Rat x1", "(x)", "Rat x12, Bat x9"):
        assert (
            _game().now(f'op="start" party="Brenna" enemies="{enemies}"') == "refused:malformed"
        ), enemies


def test_initiative_as_a_resource_is_refused_in_words() -> None:
    doc: dict[str, Any] = json.loads(shared_path("marinara", "gravewatch.json").read_text("utf-8"))
    initiative = doc["combat"]["initiative"]
    initiative.pop("each")
    initiative.pop("modifier")
    initiative.pop("dice")
    initiative["pool"] = {"abilityMod": "nerve"}
    initiative["resource"] = {
        "base": 10,
        "styles": [{"id": "press", "label": "Press", "takes": {}}],
    }
    ruleset = compile_ruleset(doc, capability_api="1.70")
    result = step(ruleset, None, (), FightTag((0, 0), 'op="start" enemies="Rats"'), ForcedFaces(()))
    assert (result.ok, result.reason) == (False, "not-played")
    assert result.message is not None and result.message.startswith(
        "Initiative as a resource (initiative.resource) is not played yet"
    )


def test_a_ruleset_without_combat() -> None:
    from dicebound.packaged import data_text

    ruleset = compile_ruleset(json.loads(data_text("rulesets/blades.json")))
    assert ruleset.combat is None
    result = step(ruleset, None, (), FightTag((0, 0), 'op="flee"'), ForcedFaces(()))
    assert result.reason == "no-combat"
