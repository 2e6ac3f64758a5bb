"""What the web page reads, through the HTTP API on SQLite and PostgreSQL: the games a
token may see, the party's pools and tracks as numbers, a character's report, a
record's dice card, and a ruleset checked without being stored (each problem with the
line and column where its path is written)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from dicebound.edge.files import read_character, read_ruleset, ruleset_text
from dicebound.jsontext import line_of, places_of
from dicebound.report import build_report
from dicebound.teach import offered_attributes
from dicebound.views import report_json
from http_api_support import LUCIA_SPENDS, bearer, make_game, problem_of
from service_support import JSON, admin_headers


def test_the_games_a_token_may_see(service: TestClient) -> None:
    first = make_game(service, "dnd5e-srd", name="First")
    second = make_game(service, "wod-pool", name="Second")
    everything = service.get("/games", headers=admin_headers()).json()
    assert [g["id"] for g in everything] == [first.id, second.id]
    assert everything[0] == {
        "id": first.id,
        "name": "First",
        "ruleset": "dnd5e-srd",
        "version": 2,
        "layers": [],
        "seat": {"kind": "admin", "character": None},
    }
    own = service.get("/games", headers=second.headers).json()
    assert [(g["id"], g["seat"]) for g in own] == [
        (second.id, {"kind": "game-master", "character": None})
    ]
    # a player's token lists its seat's game, saying whose seat it holds
    third = make_game(service, "advanced-resolution", "maud", name="Third")
    made = service.post(third.path("characters", "Maud Harrowgate", "seat"), headers=third.headers)
    assert made.status_code == 201, made.text
    seated = service.get("/games", headers=bearer(made.json()["token"])).json()
    assert [(g["id"], g["seat"]) for g in seated] == [
        (third.id, {"kind": "player", "character": "Maud Harrowgate"})
    ]
    problem_of(service.get("/games", headers=bearer("dbg_nobody")), 401)
    problem_of(service.get("/games"), 401)


def test_the_party_reads_every_pool_with_its_value_and_maximum(service: TestClient) -> None:
    game = make_game(service, "advanced-resolution", "maud", "peet")
    party = service.get(game.path("party"), headers=game.headers).json()["characters"]
    maud, peet = party
    assert maud["name"] == "Maud Harrowgate" and maud["revision"] == 1
    # Body and Luck as the file sets them; Mind untouched, so full
    assert maud["state"]["pools"] == [
        {"key": "body", "label": "Body", "value": 7, "max": 10},
        {"key": "mind", "label": "Mind", "value": 10, "max": 10},
        {"key": "luck", "label": "Luck", "value": 2, "max": 6},
    ]
    assert maud["live"] == {"pools": {"luck": {"value": 2}, "body": {"value": 7}}}
    assert peet["name"] == "Sneeky Peet" and peet["live"] == {}
    blades = make_game(service, "blades", "silk")
    (silk,) = service.get(blades.path("party"), headers=blades.headers).json()["characters"]
    declared = json.loads(ruleset_text("blades")[0])["sheet"]["live"]["tracks"]
    assert [t["id"] for t in silk["state"]["tracks"]] == [
        t["id"] for t in declared if not t.get("kinds")
    ]
    assert silk["state"]["tracks"][0] == {
        "id": "trauma",
        "label": "Trauma",
        "value": 0,
        "min": 0,
        "max": 4,
    }
    assert silk["state"]["wounds"] == [
        {"id": "harm", "label": "Harm", "marks": [], "boxes": 6, "overflow": 0, "penalty": 0}
    ]


def test_the_report_is_the_reports(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    answer = service.get(game.path("report?character=Mira%20Quickfoot"), headers=game.headers)
    assert answer.status_code == 200
    ruleset = read_ruleset("dnd5e-srd")
    expected = report_json(
        build_report(ruleset, read_character(ruleset, "mira")), offered_attributes(ruleset)
    )
    assert answer.json() == expected
    assert expected["attributes"] == ["skill", "dc", "difficulty", "who", "with", "mode"]
    first = expected["rows"][0]["cells"][0]
    assert len(first["probabilities"]) == len(expected["outcomes"])
    problem_of(service.get(game.path("report?character=Nobody"), headers=game.headers), 422)


def test_a_card_shows_every_face_and_what_the_roller_did(service: TestClient) -> None:
    game = make_game(service, "wod-pool", "lucia")
    checked = service.post(
        game.path("checks"), json={"text": LUCIA_SPENDS, "seed": "42"}, headers=game.headers
    ).json()
    (result,) = checked["results"]
    card = service.get(game.path("records", result["id"], "card"), headers=game.headers).json()
    assert [d["face"] for d in card["dice"]] == result["attrs"]["rolls"].split("|")
    threshold = int(result["attrs"]["threshold"])
    for die in card["dice"]:
        assert ("hit" in die["marks"] or "doubled" in die["marks"]) == (
            int(die["face"]) >= threshold
        )
        assert ("cancels" in die["marks"]) == (die["face"] == "1")
    assert card["lines"][0][0] == "Dice" and card["seed"] == "42"
    assert card["title"].endswith("Lucia Marchetti")
    problem_of(service.get(game.path("records", 999, "card"), headers=game.headers), 404)


def test_a_ruleset_is_checked_without_being_stored(service: TestClient) -> None:
    text = ruleset_text("advanced-resolution")[0]
    broken = text.replace('"max": 4, "default": 1', '"max": "four", "default": 1', 1)
    before = service.get("/rulesets").json()
    answer = service.post("/rulesets/check", content=broken, headers=JSON).json()
    (problem,) = answer["problems"]
    line = broken[: broken.index('"max": "four"')].count("\n") + 1
    assert problem["path"] == "sheet.abilities[0].max" and problem["line"] == line
    assert answer["ok"] is False and answer["gm"] is None
    fine = service.post("/rulesets/check", content=text, headers=JSON).json()
    assert fine["ok"] is True and fine["problems"] == []
    assert fine["gm"].startswith("Checks in Advanced Resolution")
    assert (fine["id"], fine["version"]) == ("advanced-resolution", 1)
    assert service.get("/rulesets").json() == before  # nothing stored
    not_json = service.post("/rulesets/check", content="{", headers=JSON).json()
    assert not_json["ok"] is False and not_json["problems"][0]["line"] == 1
    problem_of(
        service.post("/rulesets/check", content=" " * (257 * 1024) + "{}", headers=JSON), 413
    )


# ── where a path is written ──────────────────────────────────────────────────

_TEXT = '{\n  "a": 1,\n  "b": [\n    {"x": "y\\"z"},\n    {"x": 2}\n  ],\n  "c": {"d": true}\n}'


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ((), (1, 1)),
        (("a",), (2, 3)),
        (("b",), (3, 3)),
        (("b", 0), (4, 5)),
        (("b", 1, "x"), (5, 6)),
        (("c", "d"), (7, 9)),
        (("c", "missing"), (7, 3)),  # a missing key: where its object is written
        (("nowhere", 3), (1, 1)),
    ],
)
def test_line_of_finds_where_a_path_is_written(
    path: tuple[Any, ...], place: tuple[int, int]
) -> None:
    assert line_of(_TEXT, path) == place


def test_line_of_places_what_comes_before_a_break() -> None:
    assert line_of('{"a": [1, 2', ("a", 1)) == (1, 11)
    assert line_of('{"a": [1, 2', ("a", 5)) == (1, 2)
    assert line_of("", ("a",)) == (1, 1)
    assert line_of("[" * 5000, (0,) * 300) == (1, 201)  # scanning stops 200 deep, never raises


# JSON text as an author might write it: keys from a few letters (so some repeat in one
# object), any spacing, escapes; each with every path it writes and a few it does not.
_SPACING = st.sampled_from(["", " ", "\n", "\n  ", "\t", "\r\n "])
_KEYS = st.sampled_from(["a", "b", "\\u0061", "c\\\\d", "é"])


@st.composite
def _json_text(draw: st.DrawFn, depth: int = 0) -> tuple[str, list[tuple[Any, ...]]]:
    """A JSON text (a value, with keys maybe repeated) and the paths below it."""
    shape = draw(st.sampled_from(["leaf", "list", "object"] if depth < 3 else ["leaf"]))
    if shape == "leaf":
        return draw(st.sampled_from(["1", "-2.5e3", "true", "null", '"x"', '"y\\"z"'])), []
    parts, paths = [], []
    count = draw(st.integers(0, 4))
    for i in range(count):
        text, below = draw(_json_text(depth + 1))
        if shape == "list":
            parts.append(draw(_SPACING) + text)
            paths += [(i,), *((i, *p) for p in below)]
        else:
            written = draw(_KEYS)
            key = json.loads(f'"{written}"')
            parts.append(f'{draw(_SPACING)}"{written}"{draw(_SPACING)}:{draw(_SPACING)}{text}')
            paths += [(key,), *((key, *p) for p in below)]
    opening, closing = ("[", "]") if shape == "list" else ("{", "}")
    return opening + ",".join(parts) + draw(_SPACING) + closing, paths


@given(_json_text(), st.lists(st.sampled_from(["a", "zz", 0, 7]), max_size=3))
def test_places_of_places_every_path_in_one_pass_as_line_of_does(
    written: tuple[str, list[tuple[Any, ...]]], missing: list[Any]
) -> None:
    text, paths = written
    asked = [(), *paths, *((*p, *missing) for p in paths), tuple(missing)]
    assert places_of(text, asked) == {path: line_of(text, path) for path in asked}


def test_places_of_places_a_broken_text_as_line_of_does() -> None:
    for text in ['{"a": [1, 2', "", "[" * 5000, '{"a": "\\q", "b": 1}', '{"a"  1}']:
        asked = [(), ("a",), ("a", 1), ("a", 5), ("b",), (0,) * 300]
        assert places_of(text, asked) == {path: line_of(text, path) for path in asked}
