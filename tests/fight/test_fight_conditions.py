"""FIGHTS §8.2, §8.5, §8.1, §6.3: applying a condition (the sheet's ``condition on``
for a party member, a tracked record with its clock, save and source), the repeated
save and the rounds counted down at the holder's turn end (or start), one-use
conditions spent by the next save, attack or blow, conditions that end when their
source goes down, and a source its condition forbids as a target. Forced faces."""

from __future__ import annotations

from typing import Any

import pytest
from rules_fixtures import spitter_first

from dicebound.dice import ForcedFaces
from dicebound.fight.conditions import apply_condition
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.lines import event_lines


def test_applying_writes_the_sheet_and_keeps_the_clock() -> None:
    game = spitter_first()
    assert game.A("Spitter", "Snare", "Brenna", 15, 3) == (
        "Spitter Snare at Brenna: (15)+4=19 vs 18 hit; Brenna: (3)+1=4 slashing, takes 4, "
        "56/60; Brenna Restrained on"
    )
    assert game.member("Brenna").live.conditions == ("restrained",)
    assert game.c("brenna")["tracked"] == [
        {
            "condition": "restrained",
            "rounds": None,
            "saveEnds": {"save": "str_save", "at": "turn-end"},
            "difficulty": 12,
            "source": "spitter",
        }
    ]
    assert game.last is not None
    assert {"who": "Brenna", "what": "condition restrained", "from": False, "to": True} in (
        game.last.changes
    )


def test_an_immune_target_takes_nothing() -> None:
    game = spitter_first(enemies="Spitter (trials/spitter), Stone (trials/stone)")
    assert game.fight is not None
    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    stone = game.c("stone")
    wail = next(a for a in game.c("spitter")["actions"] if a["id"] == "wail")
    apply_condition(work, game.c("spitter"), stone, wail["applies"][0], 12)
    assert event_lines(work.events) == ["Stone immune to Frightened"]
    assert stone["tracked"] == []


CLOCK_CASES = [
    pytest.param(
        "Snare",
        (15, 3),
        [
            (4, "Brenna Strength save: (4)+7=11 vs 12 failure; turn: Corwin"),
            (
                5,
                "Brenna Strength save: (5)+7=12 vs 12 success; Brenna Restrained off (save); "
                "turn: Corwin",
            ),
        ],
        id="until-save-a-repeated-save-at-turn-end",
    ),
    pytest.param(
        "Wail",
        (1, 2, 2),
        [
            (2, "Brenna Wisdom save: (2)+0=2 vs 12 failure; turn: Corwin"),
            (2, "Brenna Wisdom save: (2)+0=2 vs 12 failure; turn: Corwin"),
            (
                2,
                "Brenna Wisdom save: (2)+0=2 vs 12 failure; Brenna Frightened off (expired); "
                "turn: Corwin",
            ),
        ],
        id="rounds-counted-down-after-the-save-off-at-none-left",
    ),
]


@pytest.mark.parametrize(("option", "faces", "rounds"), CLOCK_CASES)
def test_clocks_at_the_holders_turn_end(
    option: str, faces: tuple[int, ...], rounds: list[tuple[int, str]]
) -> None:
    game = spitter_first()
    game.A("Spitter", option, "Brenna", *faces)
    for n, (face, now) in enumerate(rounds):
        if n:
            assert game.E("Corwin") == f"round {n + 1}; turn: Spitter"
        assert game.E("Spitter") == "turn: Brenna"
        assert game.E("Brenna", face) == now
    assert game.c("brenna")["tracked"] == []
    assert game.member("Brenna").live.conditions == ()


def test_rounds_left_after_a_failed_save() -> None:
    game = spitter_first()
    game.A("Spitter", "Wail", "Brenna", 1, 2, 2)
    game.E("Spitter")
    game.E("Brenna", 2)
    assert game.c("brenna")["tracked"][0]["rounds"] == 2


def test_a_turn_start_clock_runs_at_the_holders_turn_start() -> None:
    game = spitter_first()
    assert game.A("Spitter", "Daze", "Brenna", 15).endswith("Brenna Blinded on")
    assert game.c("brenna")["tracked"][0]["clock"] == "turn-start"
    assert game.E("Spitter") == "turn: Brenna; Brenna Blinded off (expired)"


ONE_USE_CASES = [
    pytest.param(
        "Trip",
        ("Spitter", "Brenna", "Corwin"),
        ("Spitter", "Spark", 3),
        "Spitter Spark at Brenna: (3)+4=7 vs 18 miss; Brenna Prone off (spent)",
        id="attacked-spent-by-the-next-attack-roll-against-it-even-a-miss",
    ),
    pytest.param(
        "Taunt",
        ("Spitter",),
        ("Brenna", "Longsword", 3, 12, 5),
        "Brenna Longsword at Spitter: (3,12)+7=10 vs 10 hit (disadvantage); Spitter: "
        "(5)+4=9 slashing, takes 9, 11/20; Brenna Blinded off (spent)",
        id="own-attack-spent-once-its-holders-blow-is-over",
    ),
    pytest.param(
        "Lure",
        ("Spitter", "Brenna", "Corwin"),
        ("Spitter", "Spit", 15, 5, 3, 4),
        "Brenna Dexterity save: (15,5)+2=7 vs 13 failure (disadvantage); Brenna Restrained "
        "off (spent); Brenna: (3,4)+0=7 acid, takes 7, 53/60",
        id="own-save-spent-by-its-holders-next-save",
    ),
]


@pytest.mark.parametrize(("applying", "ends", "acting", "now"), ONE_USE_CASES)
def test_one_use_conditions(
    applying: str, ends: tuple[str, ...], acting: tuple[Any, ...], now: str
) -> None:
    """FIGHTS §8.5 ``endsAfter``: put on by a hit, not spent by that same blow."""
    game = spitter_first()
    assert game.A("Spitter", applying, "Brenna", 15).endswith(" on")
    assert game.c("brenna")["tracked"][0]["endsAfter"]
    for who in ends:
        game.E(who)
    who, option, *faces = acting
    target = "Spitter" if who == "Brenna" else "Brenna"
    assert game.A(who, option, target, *faces) == now
    assert game.c("brenna")["tracked"] == []


def test_a_condition_ends_when_its_source_goes_down() -> None:
    game = spitter_first()
    game.A("Spitter", "Grab", "Brenna", 15)
    game.E("Spitter")
    assert game.A("Brenna", "Longsword", "Spitter", 20, 8, 8) == (
        "Brenna Longsword at Spitter: (20)+7=27 vs 10 critical; Spitter: (8,8)+4=20 slashing "
        "critical, takes 20, 0/20; Brenna Grappled off (expired); Spitter is defeated; "
        "outcome victory"
    )
    assert game.member("Brenna").live.conditions == ()


def test_a_source_its_condition_forbids_is_no_target() -> None:
    game = spitter_first(enemies="Spitter (trials/spitter), Stone (trials/stone)")
    game.A("Spitter", "Charm", "Brenna", 15)
    assert game.c("brenna")["tracked"][0]["source"] == "spitter"
    game.E("Spitter")
    game.E("Stone")
    assert game.A("Brenna", "Longsword", "Spitter") == "refused:bad-target"
    assert game.A("Brenna", "Longsword", "Stone", 2, 2) == (
        "Brenna Longsword at Stone: (2)+7=9 vs 5 hit; Stone: (2)+4=6 slashing, takes 6, 24/30"
    )


def _live(*conditions: str) -> dict[str, Any]:
    return {"pools": {"hp": {"value": 60}}, "conditions": list(conditions)}


def test_a_sheet_condition_with_no_record_has_no_clock() -> None:
    game = spitter_first(_live("restrained"))
    game.E("Spitter")
    assert game.E("Brenna") == "turn: Corwin"
    assert game.member("Brenna").live.conditions == ("restrained",)


def test_conditions_and_their_clocks_carry_through_json() -> None:
    """A state carried through JSON between steps answers exactly as one kept in hand."""
    import json

    from dicebound.fight import load_state

    steps: list[tuple[str, tuple[int, ...]]] = [
        ('op="act" who="Spitter" option="Wail" target="Brenna, Corwin"', (1, 2, 2, 3)),
        ('op="end-turn"', ()),
        ('op="end-turn"', (2,)),
        ('op="end-turn"', (5,)),
        ('op="end-turn"', ()),
        ('op="end-turn"', (19,)),
    ]
    kept, carried = spitter_first(), spitter_first()
    for body, faces in steps:
        assert carried.fight is not None
        carried.fight = load_state(json.loads(json.dumps(carried.fight)))
        assert kept.tag(body, *faces) == carried.tag(body, *faces)
    assert kept.fight == carried.fight
    assert kept.fight is not None
    rounds = [[x["rounds"] for x in c["tracked"]] for c in kept.fight["combatants"]]
    assert rounds == [[], [2], []]  # Brenna saved it off; Corwin failed once


def test_a_condition_a_sheet_command_took_off_drops_its_clock() -> None:
    """The sheet is the member's truth: no save is thrown for a condition it no longer
    holds."""
    from dicebound.sheet_commands.apply import apply_request
    from dicebound.sheet_commands.model import Applied, SheetRequest

    game = spitter_first()
    game.A("Spitter", "Snare", "Brenna", 15, 3)
    game.E("Spitter")
    done = apply_request(
        game.ruleset,
        game.member("Brenna"),
        SheetRequest(op="condition", who="Brenna", condition="restrained", on=False),
    )
    assert isinstance(done, Applied)
    game.party = (done.character, game.member("Corwin"))
    assert game.E("Brenna") == "turn: Corwin"
    assert game.c("brenna")["tracked"] == []
