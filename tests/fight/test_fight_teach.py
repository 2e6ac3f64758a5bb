"""The Game Master's lesson teaches fights only where the ruleset fights (FIGHTS §15.1):
the tag's ops, the opponents' grammar, the tiers and the bestiary's first 60 names."""

from __future__ import annotations

from dicebound.edge.files import read_character, read_ruleset
from dicebound.fight.teach import BESTIARY_NAMES, fight_lesson
from dicebound.lesson import gm_lesson
from dicebound.values import replace


def test_a_ruleset_that_fights_teaches_the_fight_tag_its_tiers_and_bestiary() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    mira = read_character(ruleset, "mira")
    lesson = gm_lesson(ruleset, party=[mira])
    taught = lesson[lesson.index("Fights:") : lesson.index("The party:")]
    assert '[fight: op="start" enemies="Kobold x2, Giant Rat"]' in taught
    assert f'[fight: op="act" who="{mira.name}" option="<an option>"' in taught
    assert f'[fight: op="end-turn" who="{mira.name}"]' in taught
    assert '[fight: op="flee"]' in taught and '[fight: op="end"]' in taught
    assert '[fight: op="pass" who="Name" window="w1"]' in taught
    assert "- cr_1_8: Challenge 1/8 (health 3-12, defense 12, hit +3" in taught
    assert "Goblin (bestiary/goblin, cr_1_4)" in taught and "Ogre (bestiary/ogre, cr_2)." in taught


def test_a_ruleset_without_a_combat_block_is_taught_no_fight() -> None:
    ruleset = read_ruleset("blades")
    assert ruleset.combat is None
    assert fight_lesson(ruleset) == ""
    assert "[fight:" not in gm_lesson(ruleset)


def test_the_bestiary_is_named_up_to_sixty() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    combat = ruleset.combat
    assert combat is not None
    (one,) = [c for c in combat.creatures.values() if c.entry == "goblin"]
    many = {("bestiary", f"goblin-{i}"): one for i in range(BESTIARY_NAMES + 5)}
    crowded = replace(ruleset, combat=replace(combat, creatures=many))
    taught = fight_lesson(crowded)
    assert taught.count("(bestiary/goblin, cr_1_4)") == BESTIARY_NAMES
    assert ", and 5 more." in taught
