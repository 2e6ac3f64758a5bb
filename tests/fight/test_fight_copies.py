"""What a step may change: a text's pass hands its steps its own fight to change in
place (``owned``), and nothing else is ever changed: not the caller's fight, not a fight
a refused step was given, not one whose sheets a refused step had to reconcile."""

from __future__ import annotations

import json

from fight_fixtures import BRENNA, CORWIN, a_start, character

from dicebound.dice import ForcedFaces
from dicebound.fight import step
from dicebound.fight.tag import FightTag
from dicebound.tagpass import resolve_text

ACT = 'op="act" who="Brenna" option="Longsword" target="Snag"'


def test_a_text_never_changes_the_fight_it_was_given() -> None:
    game = a_start()
    assert game.fight is not None
    before = json.dumps(game.fight)
    text = f'[fight: {ACT}] [fight: op="end-turn"] [fight: op="end-turn"]'
    report = resolve_text(game.ruleset, game.party, text, faces=[12, 5], fight=game.fight)
    assert all(s.ok for _, s in report.fight_steps)
    assert json.dumps(game.fight) == before
    assert report.fight is not None and report.fight["turn"] != game.fight["turn"]


def test_an_owned_fight_is_changed_in_place_and_a_refusal_leaves_it() -> None:
    game = a_start()
    fight = json.loads(json.dumps(game.fight))
    refused = step(
        game.ruleset,
        fight,
        game.party,
        FightTag((0, 0), 'op="act" who="Brenna" option="Longsword" target="Nobody"'),
        ForcedFaces(()),
        owned=True,
    )
    assert not refused.ok and refused.reason == "bad-target"
    assert fight == game.fight
    kept = step(
        game.ruleset, fight, game.party, FightTag((0, 0), ACT), ForcedFaces((12, 5)), owned=True
    )
    assert kept.ok and kept.fight is fight
    assert next(c for c in fight["combatants"] if c["id"] == "snag")["health"]["value"] == 3


def test_a_refused_step_that_reconciled_the_sheets_leaves_an_owned_fight_as_it_was() -> None:
    game = a_start()
    fight = json.loads(json.dumps(game.fight))
    # Brenna's sheet went to 0 between tags: the step reconciles her down, then refuses.
    party = (character(BRENNA, {"pools": {"hp": {"value": 0}}}), character(CORWIN))
    refused = step(
        game.ruleset,
        fight,
        party,
        FightTag((0, 0), ACT.replace("Snag", "Nobody")),
        ForcedFaces(()),
        owned=True,
    )
    assert not refused.ok
    assert fight == game.fight
    brenna = next(c for c in fight["combatants"] if c["id"] == "brenna")
    assert not brenna["down"]
