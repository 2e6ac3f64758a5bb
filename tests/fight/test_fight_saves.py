"""FIGHTS §7.4 and §7.5: a save is the attack roll's dice plus the save number and
what conditions add; it succeeds at the difficulty or more; ``failsSaves`` fails it
with no dice; it leans from own-saves effects, modifiers with a mode, and a dodge.
An action's save halves or negates; a clause's own save halves or skips it; an amount
with no roll to hit is thrown once for every target. Forced faces throughout."""

from __future__ import annotations

from typing import Any

import pytest
from rules_fixtures import spitter_first


def _live(*conditions: str) -> dict[str, Any]:
    return {"pools": {"hp": {"value": 60}}, "conditions": list(conditions)}


SAVE_CASES = [
    pytest.param(
        "Spit",
        "Brenna, Corwin",
        (),
        (5, 3, 4, 18),
        "Brenna Dexterity save: (5)+2=7 vs 13 failure; Brenna: (3,4)+0=7 acid, takes 7, 53/60; "
        "Corwin Dexterity save: (18)+2=20 vs 13 success; Corwin: (3,4)+0=3 acid saved, "
        "takes 3, 35/38",
        id="half-on-a-save-amount-thrown-once-for-every-target",
    ),
    pytest.param(
        "Spit",
        "Brenna",
        (),
        (13, 6, 6),
        "Brenna Dexterity save: (13)+2=15 vs 13 success; Brenna: (6,6)+0=6 acid saved, "
        "takes 6, 54/60",
        id="success-at-the-difficulty-or-more",
    ),
    pytest.param(
        "Wail",
        "Brenna, Corwin",
        (),
        (12, 18),
        "Brenna Wisdom save: (12)+0=12 vs 12 success; Corwin Wisdom save: (18)+4=22 vs 12 success",
        id="negates-no-damage-no-condition-nothing-thrown",
    ),
    pytest.param(
        "Spit",
        "Brenna",
        ("paralyzed",),
        (3, 4),
        "Brenna Dexterity save: fails automatically; Brenna: (3,4)+0=7 acid, takes 7, 53/60",
        id="fails-saves-no-dice",
    ),
    pytest.param(
        "Spit",
        "Brenna",
        ("restrained",),
        (15, 5, 3, 4),
        "Brenna Dexterity save: (15,5)+2=7 vs 13 failure (disadvantage); Brenna: (3,4)+0=7 "
        "acid, takes 7, 53/60",
        id="own-saves-disadvantage-narrowed-to-its-save",
    ),
    pytest.param(
        "Wail",
        "Brenna",
        ("restrained",),
        (15,),
        "Brenna Wisdom save: (15)+0=15 vs 12 success",
        id="a-narrowed-effect-leaves-other-saves-normal",
    ),
    pytest.param(
        "Wail",
        "Brenna",
        ("deafened",),
        (12, 3),
        "Brenna Wisdom save: (12)+0 -2 (Deafened) +3 (Deafened)=13 vs 12 success",
        id="modifiers-to-saves-flat-narrowed-and-dice-thrown-after",
    ),
    pytest.param(
        "Wail",
        "Brenna",
        ("deafened",),
        (10, 3, 2, 2),
        "Brenna Wisdom save: (10)+0 -2 (Deafened) +3 (Deafened)=11 vs 12 failure; Brenna: "
        "(2,2)+0=4 psychic, takes 4, 56/60; Brenna Frightened on",
        id="a-failed-save-takes-the-blow-and-the-condition",
    ),
]


@pytest.mark.parametrize(("option", "targets", "conditions", "faces", "now"), SAVE_CASES)
def test_an_actions_save(
    option: str, targets: str, conditions: tuple[str, ...], faces: tuple[int, ...], now: str
) -> None:
    game = spitter_first(_live(*conditions))
    assert game.A("Spitter", option, targets, *faces) == now


def test_a_save_event_carries_its_numbers() -> None:
    game = spitter_first(_live("deafened"))
    game.A("Spitter", "Wail", "Brenna", 12, 3)
    assert game.last is not None
    save = next(e for e in game.last.events if e["type"] == "save")
    assert {k: save[k] for k in ("save", "rolls", "kept", "modifier", "total", "difficulty")} == {
        "save": "wis_save",
        "rolls": [12],
        "kept": 12,
        "modifier": 0,
        "total": 13,
        "difficulty": 12,
    }
    assert save["success"] is True and save["mode"] == "normal"
    assert [b["value"] for b in save["bonuses"]] == [-2, 3]
    assert save["bonuses"][1]["rolls"] == [3]


def test_a_dodge_leans_its_saves_toward_advantage() -> None:
    """Advantage on a save in standardEffects.dodge.saves while dodging."""
    game = spitter_first()
    game.E("Spitter")
    game.A("Brenna", "dodge")
    game.E("Brenna")
    game.E("Corwin")
    assert game.A("Spitter", "Spit", "Brenna", 4, 14, 2, 2) == (
        "Brenna Dexterity save: (4,14)+2=16 vs 13 success (advantage); Brenna: (2,2)+0=2 "
        "acid saved, takes 2, 58/60"
    )


CLAUSE_CASES = [
    pytest.param(
        (),
        (15, 2, 5, 3),
        "Spitter Venom at Brenna: (15)+3=18 vs 18 hit; Brenna: (2)+0=2 piercing, takes 2, "
        "58/60; Brenna Constitution save: (5)+6=11 vs 11 success; Brenna: (3)+0=1 poison "
        "saved, takes 1, 57/60; Brenna: 2 fire, takes 2, 55/60",
        id="a-clause-halved-by-its-own-save-a-flat-clause-after",
    ),
    pytest.param(
        (),
        (15, 2, 4, 6),
        "Spitter Venom at Brenna: (15)+3=18 vs 18 hit; Brenna: (2)+0=2 piercing, takes 2, "
        "58/60; Brenna Constitution save: (4)+6=10 vs 11 failure; Brenna: (6)+0=6 poison, "
        "takes 6, 52/60; Brenna: 2 fire, takes 2, 50/60",
        id="a-failed-clause-save-takes-it-whole",
    ),
    pytest.param(
        ("deafened",),
        (15, 2, 1, 12, 2, 3),
        "Spitter Venom at Brenna: (15)+3=18 vs 18 hit; Brenna: (2)+0=2 piercing, takes 2, "
        "58/60; Brenna Constitution save: (1,12)+6 +2 (Deafened)=20 vs 11 success "
        "(advantage); Brenna: (3)+0=1 poison saved, takes 1, 57/60; Brenna: 2 fire, takes 2, "
        "55/60",
        id="a-mode-modifier-leans-the-clause-save-its-dice-after-both-throws",
    ),
    pytest.param(
        (),
        (2,),
        "Spitter Venom at Brenna: (2)+3=5 vs 18 miss",
        id="a-miss-throws-no-clause",
    ),
]


@pytest.mark.parametrize(("conditions", "faces", "now"), CLAUSE_CASES)
def test_clauses_each_with_its_own_save(
    conditions: tuple[str, ...], faces: tuple[int, ...], now: str
) -> None:
    game = spitter_first(_live(*conditions))
    assert game.A("Spitter", "Venom", "Brenna", *faces) == now
    assert game.last is not None
    if len(faces) > 1:
        kinds = [e["type"] for e in game.last.events]
        assert kinds == ["budget", "attack", "damage", "save", "damage", "damage"]


def test_a_block_action_that_does_nothing_is_refused_in_words() -> None:
    game = spitter_first()
    assert game.A("Spitter", "Stare") == "refused:not-played"
    assert game.last is not None and game.last.message is not None
    assert "neither deals damage nor applies a condition" in game.last.message


def test_the_forecast_averages_the_first_amount_and_its_clauses() -> None:
    """FIGHTS §14: 1d4 (2.5) + 1d6 (3.5) + 2 = 8; a save-only action has no hit chance."""
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import offered

    game = spitter_first()
    assert game.fight is not None
    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    menu = {o["id"]: o for o in offered(work, game.c("spitter"))}
    assert menu["venom"]["forecast"] == {"hitChance": 0.3, "averageDamage": 8.0}
    assert menu["spit"]["forecast"] == {"averageDamage": 7.0}
    assert "forecast" not in menu["trip"]
    assert "stare" not in menu
