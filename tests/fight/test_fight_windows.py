"""Windows (FIGHTS §9.2, §10.1): a question a fight keeps open for combatants other
than the one acting. E34 (a window between turns, for a signature action the rats'
point buys: asked, passed, asked again before a round that throws initiative again)
and E32's held hit (Ada's Brace answers a hit, the hit checked again against her
defense now and missing, Braced spent), plus the refusals a window gives and a window
carried through a fight file."""

from __future__ import annotations

import json
from typing import Any

from fight_fixtures import Game
from pool_fixtures import ADA_BUILD, VARIANTS, _gw1, gw, gw_doc, gw_start

from dicebound.character import load_character
from dicebound.fight.state import load_state
from dicebound.fight.view import fight_view, options_of

RATS_AND_HOLLOW = "Rats (night/grave-rats), Hollow (night/hollow-warden)"


def _night(doc: dict[str, Any]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = next(c for c in doc["catalogs"] if c["id"] == "night")[
        "entries"
    ]
    return entries


def _skitter(doc: dict[str, Any]) -> None:
    """E34: the rats hold one signature point and Skitter, a signature action for it."""
    rats = next(e for e in _night(doc) if e["id"] == "grave-rats")["creature"]
    rats["signaturePoints"] = 1
    rats["actions"].append(
        {
            "id": "skitter",
            "name": "Skitter",
            "budget": "act",
            "signature": {"cost": 1},
            "toHit": 5,
            "damage": {"dice": "1d10"},
        }
    )


def _gw1_skitter(doc: dict[str, Any]) -> None:
    _gw1(doc)
    _skitter(doc)


def _gw1_brace(doc: dict[str, Any]) -> None:
    """E32's Braced: a condition braced (+2 defense) and a charm Brace, a reaction to a
    hit on the quick budget that braces the warden for a round, until attacked."""
    _gw1(doc)
    doc["sheet"]["live"]["conditions"].append({"id": "braced", "label": "Braced"})
    doc["combat"]["conditions"].append(
        {"condition": "braced", "modifiers": [{"to": "defense", "flat": 2}]}
    )
    charms = next(c for c in doc["catalogs"] if c["id"] == "charms")
    charms["entries"].append(
        {
            "id": "brace",
            "label": "Brace",
            "rows": [{"list": "charms", "values": {"name": "Brace"}}],
            "mechanics": {
                "kind": "buff",
                "targets": "self",
                "budget": "quick",
                "reaction": {"on": "hit"},
                "applies": [
                    {"condition": "braced", "duration": {"rounds": 1}, "endsAfter": "attacked"}
                ],
                "cost": [{"pool": "resolve", "amount": 1}],
            },
        }
    )


VARIANTS["gw-skitter"] = _skitter
VARIANTS["gw1-skitter"] = _gw1_skitter
VARIANTS["gw1-brace"] = _gw1_brace


def bracing_doc() -> dict[str, Any]:
    """GW1 with Brace (``gw1-brace``), as a ruleset file under an id of its own (a
    process keeps one compiled ruleset per id and version, as a store keeps one file:
    the service tests of one worker may hold Gravewatch itself)."""
    doc: dict[str, Any] = json.loads(gw_doc())
    _gw1_brace(doc)
    doc["id"] = "gravewatch-brace"
    return doc


def bracing_ada_file() -> dict[str, Any]:
    """Ada's character file, knowing only Brace."""
    build = json.loads(json.dumps(ADA_BUILD))
    build["lists"]["charms"] = [{"name": "Brace", "_catalog": "charms/brace"}]
    return {"name": "Ada", "sheet": {"v": 1, "build": build}}


def _bracing_ada() -> Game:
    """S(GW1 + Brace; Ada (knowing only Brace); Rats; 10,1), then E(Ada)."""
    ruleset = gw("gw1-brace")
    member = load_character(ruleset, bracing_ada_file())
    game = Game(ruleset, (member,))
    game.S("Ada", "Rats (night/grave-rats)", 10, 1)
    game.E("Ada")
    return game


def test_e34_a_window_between_turns_asked_passed_and_asked_again() -> None:
    game = gw_start(RATS_AND_HOLLOW, "gw-skitter", 10, 1, 1)
    assert game.fight is not None and game.fight["order"] == ["ada", "rats", "hollow"]
    ended = game.tag('op="end-turn" who="Ada"')
    assert 'now="window w1 asks Rats"' in ended and 'next="window w1: Rats"' in ended
    window = game.fight["window"]
    assert window["kind"] == "signature" and window["waiting"] == ["rats"]
    assert window["trigger"] == {"kind": "between-turns", "nextActorId": "rats"}
    assert [
        o["label"] for o in options_of(game.ruleset, game.fight, game.party, game.c("rats"))
    ] == [
        "Skitter",
        "Pass",
    ]
    assert game.now('op="pass" who="Rats" window="w1"') == "Rats passes; turn: Rats"
    assert game.fight["window"] is None and game.fight["windows"] == 1
    assert game.now('op="end-turn" who="Rats"') == "turn: Hollow"
    assert game.now('op="end-turn" who="Hollow"') == "window w2 asks Rats"
    assert game.fight["window"]["trigger"] == {"kind": "between-turns", "nextActorId": ""}


def test_e34_on_gw1_the_window_names_the_next_actor() -> None:
    game = gw_start(RATS_AND_HOLLOW, "gw1-skitter", 10, 1, 1)
    game.E("Ada")
    game.tag('op="pass" who="Rats" window="w1"')
    game.E("Rats")
    assert game.now('op="end-turn" who="Hollow"') == "window w2 asks Rats"
    assert game.fight is not None
    assert game.fight["window"]["trigger"] == {"kind": "between-turns", "nextActorId": "ada"}


def test_a_signature_action_bought_in_the_window() -> None:
    game = gw_start(RATS_AND_HOLLOW, "gw1-skitter", 10, 1, 1)
    game.E("Ada")
    answer = game.tag(
        'op="act" who="Rats" option="Skitter" target="Ada" window="w1"', 2, 3, 4, 5, 6
    )
    assert 'option="skitter" target="Ada" window="w1" result="ok"' in answer
    assert game.last is not None
    lines = game.last.events
    assert [e["type"] for e in lines][:2] == ["signature", "attack"]
    assert lines[0]["points"] == 0
    assert game.fight is not None and game.fight["window"] is None
    assert game.fight["order"][game.fight["turn"]] == "rats"  # the next turn began
    assert 'next="Rats"' in answer
    # the rats' own turn began and gave their point back
    assert game.c("rats")["signature"] == {"points": 1, "max": 1}


def test_a_window_refuses_others_an_end_turn_and_a_stale_id() -> None:
    game = gw_start(RATS_AND_HOLLOW, "gw-skitter", 10, 1, 1)
    game.E("Ada")
    before = json.dumps(game.fight)
    assert game.tag('op="end-turn" who="Rats"').endswith('reason="window-open"]')
    assert game.tag('op="act" who="Hollow" option="Cold grip" target="Ada"').endswith(
        'reason="window-open"]'
    )
    assert game.tag('op="pass" who="Rats" window="w9"').endswith('reason="stale-window"]')
    # an answer is one of the window's: Gnaw is the rats' turn's, not the window's
    assert game.tag('op="act" who="Rats" option="Gnaw" target="Ada"').endswith(
        'reason="unknown-option"]'
    )
    assert json.dumps(game.fight) == before


def test_e32_a_held_hit_braced_against_and_checked_again() -> None:
    game = _bracing_ada()
    assert game.now('op="act" who="Rats" option="Gnaw" target="Ada"', 7, 7, 2, 3, 4) == (
        "Rats Gnaw at Ada: (7,7,2,3,4) 2 successes vs 1 hit; window w1 asks Ada"
    )
    assert game.fight is not None and game.fight["window"]["kind"] == "reaction"
    answer = game.tag('op="act" who="Ada" option="Brace" window="w1"')
    assert (
        'now="Ada spends 1 Resolve; Ada Braced on; recheck Gnaw at Ada: 2 vs 3 miss; Ada Braced off (spent)"'
        in answer
    )
    assert 'next="Rats"' in answer
    assert game.last is not None and not any(e["type"] == "damage" for e in game.last.events)
    assert game.c("ada")["limits"]["resolve"]["spent"] == 1


def test_a_held_hit_let_pass_lands() -> None:
    game = _bracing_ada()
    game.tag('op="act" who="Rats" option="Gnaw" target="Ada"', 7, 7, 2, 3, 4)
    now = game.now('op="pass" window="w1"', 6, 6)
    assert now.startswith("Ada passes; recheck Gnaw at Ada: 2 vs 1 hit; Ada: (6,6")


def test_an_open_window_is_carried_through_a_fight_file() -> None:
    game = _bracing_ada()
    game.tag('op="act" who="Rats" option="Gnaw" target="Ada"', 7, 7, 2, 3, 4)
    assert game.fight is not None
    carried = load_state(json.loads(json.dumps(game.fight)))
    assert carried["window"] == game.fight["window"]
    view = fight_view(game.ruleset, carried, game.party)
    assert view["window"]["asking"] == "Ada"
    assert [o["label"] for o in view["window"]["options"]] == ["Brace", "Pass"]
