"""``[fight:]`` tags in the one pass (FIGHTS §4, §15.1): in text order with checks and
sheet commands, one seed count over the text, ``[combat:]`` read as a start, the fight
carried between texts, and ``check --json``'s ``"fight"``."""

from __future__ import annotations

import json

from fight_fixtures import BRENNA, CORWIN, character, f5

from dicebound.fight import load_state
from dicebound.tagpass import resolve_text

PARTY = (character(BRENNA), character(CORWIN))
A_START = '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot"]'


def test_e37_the_first_combat_tag_is_a_start_and_later_ones_are_text() -> None:
    text = (
        '[combat: enemies="Snag:1:12:4:13:10, Rot:1:14:3:12:10"] '
        '[combat: enemies="Husk:1:20:3:11:10"]'
    )
    report = resolve_text(f5(), PARTY, text, faces=[20, 14, 5, 3])
    assert report.text == (
        '[fight: op="start" via="combat" party="Brenna, Corwin" enemies="Snag, Rot" '
        'result="ok" now="initiative: Brenna (20)+2=22, Corwin (14)+2=16, Snag (5)+2=7, Rot '
        '(3)+0=3; round 1; turn: Brenna" rolls="20|14|5|3" next="Brenna" forced="true"] '
        '[combat: enemies="Husk:1:20:3:11:10"]'
    )


def test_e21_a_fight_carried_between_texts_answers_as_one_text() -> None:
    one = resolve_text(f5(), PARTY, A_START, faces=[20, 14, 5, 3])
    assert one.fight is not None
    carried = load_state(json.loads(json.dumps(one.fight)))
    act = '[fight: op="act" who="Brenna" option="Longsword" target="Snag"]'
    two = resolve_text(f5(), one.party, act, faces=[12, 5], fight=carried)
    together = resolve_text(f5(), PARTY, A_START + " " + act, faces=[20, 14, 5, 3, 12, 5])
    assert together.text.endswith(two.text)
    assert two.fight == together.fight
    assert two.fight_summary == together.fight_summary


def test_tags_resolve_in_text_order_with_sheet_commands() -> None:
    text = (
        A_START + ' [sheet: op="damage" who="Brenna" pool="hp" amount=60] '
        '[fight: op="end-turn" who="Brenna"]'
    )
    report = resolve_text(f5(), PARTY, text, faces=[20, 14, 5, 3])
    # the fight reconciles the sheet command at its next tag: Brenna goes down, dying
    assert "Brenna Unconscious on; Brenna is down, dying; turn: Corwin" in report.text
    fight = report.to_json()["fight"]
    assert isinstance(fight, dict)
    assert [s["ok"] for s in fight["steps"]] == [True, True]  # type: ignore[index, union-attr]
    assert fight["summary"]["party"][0]["dying"] is True  # type: ignore[index]


def test_one_seed_count_over_checks_and_fight_tags() -> None:
    text = (
        A_START + ' [skill_check: skill="athletics" dc=10 who="Brenna"] [fight: op="flee"] '
        '[fight: op="start" party="Brenna" enemies="Rot"]'
    )
    seeded = resolve_text(f5(), PARTY, text, seed="s")
    assert len(seeded.results) == 1
    assert seeded.text.count('seed="s"]') == 1 and seeded.text.endswith('seed="s-3"]')
    again = resolve_text(f5(), PARTY, text, seed="s")
    assert again.text == seeded.text and again.fight == seeded.fight


def test_json_always_has_fight() -> None:
    plain = resolve_text(f5(), PARTY, "no tags here", seed="1").to_json()
    assert plain["fight"] == {"steps": [], "state": None, "summary": None}
    refused = resolve_text(f5(), PARTY, '[fight: op="flee"]', seed="1").to_json()
    step = refused["fight"]["steps"][0]  # type: ignore[index]
    assert step["tag"] == '[fight: op="flee" result="refused" reason="no-fight"]'
    assert (step["ok"], step["reason"], step["events"], step["faces"]) == (
        False,
        "no-fight",
        [],
        [],
    )


def test_the_41st_fight_tag_is_too_many() -> None:
    text = " ".join(['[fight: op="flee"]'] * 41)
    report = resolve_text(f5(), PARTY, text, seed="1")
    assert report.text.endswith('[fight: op="flee" result="refused" reason="too-many"]')
    assert report.text.count('reason="no-fight"') == 40


def test_a_surface_that_keeps_no_fight_refuses_every_fight_tag_in_words() -> None:
    text = A_START + ' [skill_check: skill="athletics" dc=10 who="Brenna"]'
    report = resolve_text(f5(), PARTY, text, seed="s", fights_played=False)
    assert report.text.startswith(
        '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot" result="refused" '
        'reason="not-played"]'
    )
    _, step = report.fight_steps[0]
    assert step.message is not None and step.message.startswith(
        "Fights are not kept where this text was resolved"
    )
    assert report.fight is None
    assert 'seed="s-1"' in report.text  # the refused fight tag still took seed s
