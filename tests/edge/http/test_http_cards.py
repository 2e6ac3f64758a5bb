"""The dice card in a player's words, through ``GET .../records/{id}/card`` on SQLite,
with forced faces: one check of each kind (a d20 sum, a World of Darkness pool, Blades'
highest die, Call of Cthulhu's roll against, Genesys' symbol dice, Advanced
Resolution's step pool). Every card keeps the terminal's lines and faces as they were,
and adds ``plain`` lines in which no record syntax is left, every die as the page
shows it, the modifier's parts and the band's own text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.views import card_json
from http_api_support import Game, character_file, make_game
from service_support import ADMIN_TOKEN, store_url_for

# what a record writes and a player should never have to read: a value list
# (``0|+2|+2``), a die index (``@3``), an id joined by underscores, ``pool:N``, ``key="``
RECORD_SYNTAX = re.compile(r'\||@|="|\b[a-z]+_[a-z_]+\b|\b[a-z]+:[+\-]?\d')


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from dicebound.edge.http import create_app

    folder: Path = tmp_path_factory.mktemp("cards")
    with (
        pytest.MonkeyPatch.context() as patch,
        store_url_for("sqlite", folder) as url,
    ):
        patch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
        with TestClient(create_app(url)) as made:
            yield made


def _card(client: TestClient, game: Game, text: str, faces: list[int]) -> dict[str, Any]:
    answer = client.post(
        game.path("checks"), json={"text": text, "faces": faces}, headers=game.headers
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["errors"] == [], body["errors"]
    (result,) = body["results"]
    card = client.get(game.path("records", result["id"], "card"), headers=game.headers)
    assert card.status_code == 200, card.text
    got: dict[str, Any] = card.json()
    got["record"] = result
    return got


def _plain(card: dict[str, Any]) -> dict[str, str]:
    """The plain lines by term (a term written twice keeps both, joined)."""
    lines: dict[str, str] = {}
    for term, text in card["plain"]:
        lines[term] = f"{lines[term]} / {text}" if term in lines else text
    return lines


def _no_record_syntax(card: dict[str, Any]) -> None:
    for term, text in card["plain"]:
        assert not RECORD_SYNTAX.search(f"{term} {text}"), (term, text)
    for die in card["shown"]:
        for said in die["says"]:
            assert not RECORD_SYNTAX.search(said["words"]), said


def _old_fields_kept(card: dict[str, Any]) -> None:
    """The terminal's card is still there, face for face."""
    rolls = card["record"]["attrs"]["rolls"].split("|")
    assert [d["face"] for d in card["dice"]] == rolls
    assert set(card["dice"][0]) == {"face", "die", "marks"}
    assert card["lines"][0][0] == "Dice" and card["title"]
    assert len(card["shown"]) == len(card["dice"])


def test_a_d20_card_says_the_modifiers_parts(client: TestClient) -> None:
    game = make_game(client, "dnd5e-srd", "mira")
    card = _card(client, game, '[skill_check: skill="Stealth" dc="15" mode="advantage"]', [4, 12])
    _old_fields_kept(card)
    _no_record_syntax(card)
    lines = _plain(card)
    assert card["shape"] == "sum"
    assert card["modifier"] == [
        {"amount": "+3", "label": "Dexterity"},
        {"amount": "+6", "label": "Stealth (Expertise)"},
    ]
    assert lines["Modifier"] == "+9: +3 Dexterity, +6 Stealth (Expertise)"
    assert lines["Total"] == "12 + 9 = 21 against DC 15"
    assert lines["Dice"] == "1d20 twice, with advantage: 4, 12; the higher kept, 12"
    assert [(d["face"], d["counted"], [s["mark"] for s in d["says"]]) for d in card["shown"]] == [
        ("4", False, ["dropped"]),
        ("12", True, ["kept"]),
    ]
    assert lines["Result"] == "Success" and lines["Faces"] == "forced (not a random roll)"


def test_a_band_says_its_own_text(client: TestClient) -> None:
    game = make_game(client, "blades", "silk")
    card = _card(client, game, '[skill_check: skill="Prowl" difficulty="Action roll"]', [3, 5, 6])
    _old_fields_kept(card)
    _no_record_syntax(card)
    assert card["shape"] == "highest"
    assert card["band"] == {"label": "Full success", "text": "It goes as the player hoped."}
    assert _plain(card)["Means"] == "It goes as the player hoped."
    assert [(d["face"], d["counted"]) for d in card["shown"]] == [
        ("3", False),
        ("5", False),
        ("6", True),
    ]


def test_a_roll_against_says_what_it_needed(client: TestClient) -> None:
    game = make_game(client, "coc7e", "frank")
    card = _card(client, game, '[skill_check: skill="Spot Hidden" difficulty="Regular"]', [23])
    _old_fields_kept(card)
    _no_record_syntax(card)
    lines = _plain(card)
    assert card["shape"] == "against"
    assert lines["Total"] == "23, needs 50 or less"
    assert card["band"] is not None and card["band"]["text"] == lines["Means"] != ""
    # a bonus die (its d10 showing 1 reads 10): the lower tens are kept, 13
    text = '[skill_check: skill="Spot Hidden" difficulty="Regular" bonus="1"]'
    bonus = _card(client, game, text, [23, 1])
    _no_record_syntax(bonus)
    assert _plain(bonus)["Bonus"] == "1 bonus die"
    assert [(d["face"], d["counted"], [s["words"] for s in d["says"]]) for d in bonus["shown"]] == [
        ("23", False, ["its tens replaced"]),
        ("10", True, ["kept: its tens make 13"]),
    ]


def test_a_world_of_darkness_pool_in_its_own_words(client: TestClient) -> None:
    game = make_game(client, "wod-pool", "lucia")
    # seven dice, two tens: each adds a die (a 7, a 2); a 1 cancels a success
    text = '[skill_check: skill="Stealth" difficulty="Standard" explode="10" spend="willpower_points:1"]'
    card = _card(client, game, text, [10, 4, 10, 3, 1, 8, 6, 7, 2])
    _old_fields_kept(card)
    _no_record_syntax(card)
    lines = _plain(card)
    assert card["shape"] == "pool"
    assert lines["Dice"] == "7 dice + 2 added by tens: 10, 4, 10, 3, 1, 8, 6, 7, 2"
    assert lines["Pool"] == "7 dice: 4 Dexterity + 3 Stealth (3 dots)"
    assert lines["Willpower points"] == "1 success bought (1 point)"
    assert lines["Paid"] == "Willpower points 4 → 3"
    says = [[s["mark"] for s in d["says"]] for d in card["shown"]]
    assert says[0] == ["counted", "exploded"]
    assert says[4] == ["cancels"]
    assert says[7] == ["counted", "added"]
    assert says[8] == ["not-counted", "added"]
    # the 1 took one success away: the lowest counted face reads cancelled
    cancelled = [d["face"] for d in card["shown"] if "cancelled" in [s["mark"] for s in d["says"]]]
    assert cancelled == ["6"]
    counted = sum(1 for d in card["shown"] if d["counted"])
    assert counted + 1 == int(card["record"]["attrs"]["total"])  # one bought with Willpower


def test_a_specialty_is_named(client: TestClient) -> None:
    game = make_game(client, "wod-pool", "lucia")
    text = '[skill_check: skill="Firearms" difficulty="Standard" use="Pistols"]'
    card = _card(client, game, text, [10, 2, 3, 4, 5, 6, 7, 8, 9])
    _no_record_syntax(card)
    lines = _plain(card)
    assert lines["Specialty"] == "Pistols: tens add a die"
    assert lines["Dice"].startswith("8 dice + 1 added by tens")


def test_a_spend_the_pool_cannot_cover_says_so(client: TestClient) -> None:
    game = make_game(client, "wod-pool")
    lucia = character_file("wod-pool", "lucia")
    lucia["live"] = {"pools": {"willpower_points": {"value": 0}}}
    put = client.put(game.character(lucia["name"]), json=lucia, headers=game.headers)
    assert put.status_code == 201, put.text
    text = '[skill_check: skill="Stealth" difficulty="Standard" spend="willpower_points:1"]'
    card = _card(client, game, text, [6, 6, 2, 2, 2, 2, 2])
    _no_record_syntax(card)
    lines = _plain(card)
    assert lines["Not paid"] == (
        "Willpower points: 1 point asked, nothing spent: Lucia Marchetti held 0, "
        "not enough to cover it"
    )
    assert "Paid" not in lines and "Willpower points" not in lines


def test_symbol_dice_show_their_symbols_never_a_number(client: TestClient) -> None:
    game = make_game(client, "genesys", "kira")
    # two ability dice (faces 4: two successes, 2: one) against two difficulty dice
    # (7: two threats, 1: blank)
    card = _card(client, game, '[skill_check: skill="Cool" difficulty="Average"]', [4, 2, 7, 1])
    _old_fields_kept(card)
    _no_record_syntax(card)
    assert card["shape"] == "symbol"
    shown = card["shown"]
    assert [d["die"] for d in shown] == ["Ability", "Ability", "Difficulty", "Difficulty"]
    assert [d["role"] for d in shown] == ["pool", "pool", "difficulty", "difficulty"]
    assert [[s["label"] for s in d["symbols"]] for d in shown] == [
        ["Success", "Success"],
        ["Success"],
        ["Threat", "Threat"],
        [],
    ]
    glyphs = {s["label"]: s["glyph"] for d in shown for s in d["symbols"]}
    assert glyphs == {"Success": "✶", "Threat": "▼"}
    assert not any(ch.isdigit() for d in shown for s in d["symbols"] for ch in s["glyph"])
    lines = _plain(card)
    assert lines["Symbols"] == "3 Success, 2 Threat"
    assert lines["Threat"] == "A side cost, whatever the outcome."


def test_a_step_pool_shows_each_raise_from_to(client: TestClient) -> None:
    game = make_game(client, "advanced-resolution", "peet")
    text = (
        '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
    )
    card = _card(client, game, text, [5, 1, 6])
    _old_fields_kept(card)
    _no_record_syntax(card)
    assert card["shape"] == "step"
    talent, first, second = card["shown"]
    assert (talent["die"], talent["was"], talent["face"], talent["counted"]) == (
        "Talent d10",
        "5",
        "6",
        True,
    )
    assert [s["words"] for s in talent["says"]] == [
        "reached the target 6",
        "raised from 5 to 6 by the Quality modifier",
    ]
    assert (first["face"], first["was"], first["counted"]) == ("1", None, False)
    assert (second["face"], second["counted"]) == ("6", True)
    lines = _plain(card)
    assert lines["Dice"] == "Talent d10 5 → 6, Training d6 1, Training d6 6"
    assert lines["Effort"] == "2 dice reached the target 6"
    assert lines["Offer"] == "Triumph for 5 more points of Body, Mind or Luck"
    # the record keeps its own spelling for the terminal
    also = dict(card["lines"])["Also"]
    assert "raises +1|0|0" in also

    # a raise after the roll: what paid for it, in words
    answered = client.post(
        game.path("records", card["record"]["id"], "after"),
        json={"pool": "luck", "points": 5},
        headers=game.headers,
    )
    assert answered.status_code == 200, answered.text
    after = client.get(game.path("records", card["record"]["id"], "card"), headers=game.headers)
    again = after.json()
    again["record"] = answered.json()
    _no_record_syntax(again)
    lines = _plain(again)
    assert lines["After"] == "Luck, 5 points spent after the roll to raise die 2"
    assert again["shown"][1]["was"] == "1" and again["shown"][1]["face"] == "6"
    assert lines["Paid"] == "Luck 6 → 1"


def test_a_pool_claims_nothing_of_its_dice_without_the_rollers_account() -> None:
    attrs = [
        ("skill", "Ward"),
        ("dc", "1"),
        ("rolls", "10|4|1"),
        ("total", "1"),
        ("resolution", "successes"),
        ("result", "success"),
        ("dice", "3d10"),
        ("threshold", "6"),
    ]
    told = card_json(attrs, who="Bram", outcome="Success", die_marks=[("hit",), (), ("cancels",)])
    assert [d["counted"] for d in told["shown"]] == [False, False, False]  # the 1 took the 10
    blind = card_json(attrs, who="Bram", outcome="Success")
    assert [(d["counted"], d["says"]) for d in blind["shown"]] == [(None, [])] * 3
    assert dict(blind["plain"])["Count"] == "1 success, 1 needed"
