"""The HTTP API's games (docs/service.md), on SQLite and PostgreSQL: making one, its characters
(put, read, refused with their problems, size-limited), their live state behind
If-Match, the Game Master's text as ``gm`` prints it and odds as ``odds --json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.character import load_character
from dicebound.edge.files import read_ruleset
from dicebound.errors import CharacterInvalid
from dicebound.lesson import gm_lesson
from http_api_support import (
    CASES,
    Game,
    bearer,
    character_file,
    cli,
    cli_json,
    live,
    make_game,
    problem_of,
    store_rows,
)
from service_support import JSON, admin_headers

MIRA = "Mira Quickfoot"
BRAM = "Bram Ironhand"


# ── making and reading a game ────────────────────────────────────────────────


def test_a_game_is_made_by_the_admin_and_read_with_its_token(service: TestClient) -> None:
    made = service.post(
        "/games", json={"name": "  Saltmarsh  ", "ruleset": "dnd5e-srd"}, headers=admin_headers()
    )
    assert made.status_code == 201
    body = made.json()
    assert set(body) == {"id", "token", "ruleset", "version", "layers"}
    assert (body["ruleset"], body["version"], body["layers"]) == ("dnd5e-srd", 2, [])
    assert body["token"] and body["token"] != body["id"]
    for headers in (bearer(body["token"]), admin_headers()):
        got = service.get(f"/games/{body['id']}", headers=headers)
        assert got.status_code == 200
        assert got.json() == {
            "id": body["id"],
            "name": "Saltmarsh",
            "ruleset": "dnd5e-srd",
            "version": 2,
            "layers": [],
            "characters": [],
        }
    other = service.post(
        "/games", json={"name": "Other", "ruleset": "dnd5e-srd"}, headers=admin_headers()
    )
    assert other.json()["id"] != body["id"] and other.json()["token"] != body["token"]


def test_a_games_characters_are_listed_in_the_order_they_were_put(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira", "bram")
    assert service.get(game.path(), headers=game.headers).json()["characters"] == [MIRA, BRAM]
    # putting Mira again keeps her place
    assert (
        service.put(
            game.character(MIRA), json=character_file("dnd5e-srd", "mira"), headers=game.headers
        ).status_code
        == 200
    )
    assert service.get(game.path(), headers=game.headers).json()["characters"] == [MIRA, BRAM]


_UNMADE: dict[str, tuple[dict[str, Any], str]] = {
    "unknown ruleset": (
        {"name": "g", "ruleset": "dnd5e-srdd"},
        'no ruleset "dnd5e-srdd" is stored. Did you mean "dnd5e-srd"?',
    ),
    "unknown version": (
        {"name": "g", "ruleset": "dnd5e-srd", "version": 3},
        'the ruleset "dnd5e-srd" has no version 3.',
    ),
    "unknown layer": (
        {"name": "g", "ruleset": "dnd5e-srd", "layers": ["grim"]},
        '"grim" is not a layer of Fifth Edition SRD (layers: none).',
    ),
    "blank name": ({"name": "   ", "ruleset": "dnd5e-srd"}, "a game needs a name."),
    "a newline in the name": (
        {"name": "two\nlines", "ruleset": "dnd5e-srd"},
        "a game's name is one line of text, without control characters.",
    ),
    "a NUL in the name": (
        {"name": "nul\u0000", "ruleset": "dnd5e-srd"},
        "a game's name is one line of text, without control characters.",
    ),
}


def test_a_game_that_cannot_be_made_is_422(service: TestClient, store_url: str) -> None:
    before = store_rows(store_url)
    for name, (body, detail) in _UNMADE.items():
        refused = service.post("/games", json=body, headers=admin_headers())
        assert problem_of(refused, 422)["detail"] == detail, name
    assert store_rows(store_url) == before


def test_making_a_game_needs_the_admin_token(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    body = {"name": "Mine", "ruleset": "dnd5e-srd"}
    assert problem_of(service.post("/games", json=body), 401)["detail"] == (
        "only the admin token may make a game, and no token was sent."
    )
    assert problem_of(service.post("/games", json=body, headers=game.headers), 403)["detail"] == (
        "only the admin token may make a game; the token sent is not it."
    )
    assert store_rows(store_url) == before


def _layered(tmp_path: Path) -> Path:
    raw = json.loads((CASES / "ruleset_degrees.json").read_text())
    raw["layers"] = [
        {"id": "grim", "label": "Grim", "difficultyLadder": [{"label": "Easy", "dc": 14}]},
        {"id": "words", "label": "Only words", "gm": {"guidance": "Narrate gently."}},
    ]
    path = tmp_path / "layered.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_game_plays_its_layers_as_the_command_line_does(
    service: TestClient, tmp_path: Path
) -> None:
    path = _layered(tmp_path)
    assert (
        service.post(
            "/rulesets", content=path.read_bytes(), headers={**admin_headers(), **JSON}
        ).status_code
        == 201
    )
    made = service.post(
        "/games",
        json={"name": "g", "ruleset": "degrees-test", "layers": ["grim", "words", "grim"]},
        headers=admin_headers(),
    )
    assert made.status_code == 201 and made.json()["layers"] == ["grim", "words"]
    game = Game(made.json()["id"], made.json()["token"], "degrees-test", 1, ("Ada",))
    assert service.put(game.character("Ada"), json={}, headers=game.headers).status_code == 201
    ada = tmp_path / "ada.json"
    ada.write_text('{"name": "Ada"}', encoding="utf-8")
    tag = "[skill_check: skill=Sneak difficulty=Easy]"
    expected = cli_json(
        "check",
        "--ruleset",
        str(path),
        "--character",
        str(ada),
        "--layer",
        "grim",
        "--layer",
        "words",
        "--faces",
        "10",
        "--json",
        tag,
    )
    answer = service.post(
        game.path("checks"), json={"text": tag, "faces": [10]}, headers=game.headers
    ).json()
    assert answer["results"][0]["attrs"]["dc"] == "14"
    stored = ("id", "number")  # the store's, not the command line's
    assert [{k: v for k, v in r.items() if k not in stored} for r in answer["results"]] == expected[
        "results"
    ]
    lesson = cli(
        "gm", "--ruleset", str(path), "--layer", "grim", "--layer", "words", "--character", str(ada)
    )
    assert service.get(
        game.path("gm"), params={"character": "Ada"}, headers=game.headers
    ).json() == {"text": lesson.removesuffix("\n")}


# ── characters ───────────────────────────────────────────────────────────────


def test_a_character_is_made_201_then_replaced_200_with_the_next_revision(
    service: TestClient,
) -> None:
    game = make_game(service, "dnd5e-srd")
    file = character_file("dnd5e-srd", "mira")
    made = service.put(game.character(MIRA), json=file, headers=game.headers)
    assert made.status_code == 201
    assert made.json() == {"name": MIRA, "revision": 1}
    assert made.headers["etag"] == '"1"'
    got = service.get(game.character(MIRA), headers=game.headers)
    assert got.json() == {
        "name": MIRA,
        "sheet": file["sheet"],
        "live": {"pools": {"inspiration": {"value": 1}}},
        "revision": 1,
    }
    assert got.headers["etag"] == '"1"'
    file["sheet"]["build"]["abilities"]["dex"] = 18
    file["live"] = {}
    replaced = service.put(game.character(MIRA), json=file, headers=game.headers)
    assert replaced.status_code == 200
    assert replaced.json() == {"name": MIRA, "revision": 2}
    again = live(service, game, MIRA)
    assert again == {"name": MIRA, "sheet": file["sheet"], "live": {}, "revision": 2}


def test_a_character_file_without_a_name_takes_the_paths(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd")
    file = character_file("dnd5e-srd", "bram")
    del file["name"]
    assert service.put(game.character("Bram"), json=file, headers=game.headers).status_code == 201
    assert live(service, game, "Bram")["name"] == "Bram"


_BAD_CHARACTERS: dict[str, Any] = {
    "an unknown skill": {"sheet": {"v": 1, "build": {"skills": {"flying": "proficient"}}}},
    "an ability out of range and an unknown tier": {
        "sheet": {"v": 1, "build": {"abilities": {"dex": 99}, "skills": {"stealth": "godlike"}}}
    },
    "a pool above its maximum": {"live": {"pools": {"inspiration": {"value": 9}}}},
    "an unknown pool": {"live": {"pools": {"mana": {"value": 1}}}},
}


def test_a_refused_character_lists_its_problems(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    for name, changes in _BAD_CHARACTERS.items():
        file = {"name": MIRA, **changes}
        with pytest.raises(CharacterInvalid) as refused:
            load_character(read_ruleset("dnd5e-srd"), file)
        expected = [p.to_json() for p in refused.value.problems]
        put = service.put(game.character(MIRA), json=file, headers=game.headers)
        body = problem_of(put, 422)
        assert body["problems"] == expected, name
        assert body["detail"] == f"the character was refused: {len(expected)} problem(s).", name
        assert store_rows(store_url) == before, name


def test_a_file_naming_another_character_than_the_path_is_422(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    file = character_file("dnd5e-srd", "mira")
    body = problem_of(service.put(game.character("Mira"), json=file, headers=game.headers), 422)
    assert (
        body["detail"]
        == 'the file names "Mira Quickfoot" but the path names "Mira": they must agree.'
    )
    assert body["problems"] == [
        {"path": "name", "code": "name-mismatch", "message": 'is "Mira Quickfoot", not "Mira".'}
    ]
    assert store_rows(store_url) == before


def _padded_character(size: int) -> bytes:
    file = json.dumps(character_file("dnd5e-srd", "mira")).encode("utf-8")
    return file[:-1] + b" " * (size - len(file)) + b"}"


def test_a_character_of_64_kb_is_taken_and_one_byte_more_is_413(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd")
    at_limit = _padded_character(64 * 1024)
    assert len(at_limit) == 65536
    assert (
        service.put(
            game.character(MIRA), content=at_limit, headers={**game.headers, **JSON}
        ).status_code
        == 201
    )
    before = store_rows(store_url)
    over = service.put(
        game.character(MIRA),
        content=_padded_character(64 * 1024 + 1),
        headers={**game.headers, **JSON},
    )
    assert problem_of(over, 413)["detail"] == (
        "the body is over 65,536 bytes: a character may be at most 65,536 bytes (64 KB)."
    )
    assert store_rows(store_url) == before


def test_an_unknown_character_is_404(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    body = problem_of(service.get(game.character("Mira Quickfot"), headers=game.headers), 404)
    assert (
        body["detail"]
        == '"Mira Quickfot" is not a character of this game. Did you mean "Mira Quickfoot"?'
    )
    patched = service.patch(
        game.character("Nobody") + "/live",
        json={"pools": {}},
        headers={**game.headers, "If-Match": '"1"'},
    )
    problem_of(patched, 404)


# ── the live state ───────────────────────────────────────────────────────────


def _patch(client: TestClient, game: Game, body: Any, if_match: str | None) -> Any:
    headers = {**game.headers, **({"If-Match": if_match} if if_match is not None else {})}
    return client.patch(game.character(MIRA) + "/live", json=body, headers=headers)


def test_a_patch_with_the_current_revision_changes_the_live_state(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    etag = service.get(game.character(MIRA), headers=game.headers).headers["etag"]
    assert etag == '"1"'
    done = _patch(service, game, {"pools": {"inspiration": 0}, "conditions": ["poisoned"]}, etag)
    assert done.status_code == 200
    assert done.json() == {
        "revision": 2,
        "live": {"pools": {"inspiration": {"value": 0}}, "conditions": ["poisoned"]},
    }
    assert done.headers["etag"] == '"2"'
    stored = live(service, game, MIRA)
    assert (stored["revision"], stored["live"]) == (2, done.json()["live"])
    # a weak ETag and a bare number are read the same way
    assert _patch(service, game, {"pools": {"inspiration": 1}}, 'W/"2"').json()["revision"] == 3
    assert _patch(service, game, {"conditions": []}, "3").json() == {
        "revision": 4,
        "live": {"pools": {"inspiration": {"value": 1}}},
    }


_REFUSED_PATCHES: dict[str, tuple[dict[str, Any], str | None, int, str | None]] = {
    "stale revision": (
        {"pools": {"inspiration": 0}},
        '"1"',
        412,
        "Mira Quickfoot is at revision 2, not 1: read it again and retry.",
    ),
    "no If-Match": (
        {"pools": {"inspiration": 0}},
        None,
        428,
        "send If-Match with the revision you read (2), so a change made meanwhile is not overwritten.",
    ),
    "above the maximum": (
        {"pools": {"inspiration": 5}},
        '"2"',
        422,
        "the live state was refused: 1 problem(s).",
    ),
    "below the minimum": (
        {"pools": {"inspiration": -1}},
        '"2"',
        422,
        "the live state was refused: 1 problem(s).",
    ),
    "unknown pool": (
        {"pools": {"mana": 1}},
        '"2"',
        422,
        "the live state was refused: 1 problem(s).",
    ),
    "unknown key": (
        {"spells": {"slots": 1}},
        '"2"',
        422,
        "body.spells: Extra inputs are not permitted.",
    ),
    "not a number": ({"pools": {"inspiration": "full"}}, '"2"', 422, None),
}


def test_a_refused_patch_changes_nothing(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    assert _patch(service, game, {"pools": {"inspiration": 1}}, '"1"').status_code == 200
    before = store_rows(store_url)
    for name, (body, if_match, status, detail) in _REFUSED_PATCHES.items():
        problem = problem_of(_patch(service, game, body, if_match), status)
        if detail is not None:
            assert problem["detail"] == detail, name
        if detail == "the live state was refused: 1 problem(s).":
            (item,) = problem["problems"]
            pool = next(iter(body["pools"]))
            assert item["path"] == f"live.pools.{pool}" + (
                ".value" if pool == "inspiration" else ""
            ), name
        assert store_rows(store_url) == before, name
    assert live(service, game, MIRA)["revision"] == 2


# ── the Game Master's text and odds ──────────────────────────────────────────


@pytest.mark.parametrize(
    ("ruleset", "short"),
    [("dnd5e-srd", "mira"), ("advanced-resolution", "peet"), ("wod-pool", "lucia")],
)
def test_gm_answers_what_the_command_line_prints(
    service: TestClient, ruleset: str, short: str
) -> None:
    game = make_game(service, ruleset, short)
    name = game.characters[0]
    plain = service.get(game.path("gm"), headers=game.headers)
    assert plain.status_code == 200
    # without a character: the sheet commands and every member's sheet, and no chances
    rules = read_ruleset(ruleset)
    party = [load_character(rules, character_file(ruleset, short))]
    assert plain.json() == {"text": gm_lesson(rules, party=party)}
    for_one = service.get(game.path("gm"), params={"character": name}, headers=game.headers)
    assert for_one.json() == {
        "text": cli("gm", "--ruleset", ruleset, "--character", short).removesuffix("\n")
    }
    assert for_one.json() != plain.json()


def test_gm_without_a_character_teaches_every_member_of_the_party(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira", "bram")
    text = service.get(game.path("gm"), headers=game.headers).json()["text"]
    assert "chance of success" not in text
    assert f'- who="{BRAM}": whose sheet it is; leave it out for the player ({MIRA}).' in text
    party = text.split("\n\nThe party:\n", 1)[1]
    assert party.startswith(f"{MIRA}:\n") and f"\n{BRAM}:\n" in party


def test_gm_for_an_unknown_character_is_422(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    body = problem_of(
        service.get(game.path("gm"), params={"character": "Mira Quickfot"}, headers=game.headers),
        422,
    )
    assert (
        body["detail"]
        == '"Mira Quickfot" is not a character of this game. Did you mean "Mira Quickfoot"?'
    )


@pytest.mark.parametrize(
    ("ruleset", "characters", "body", "argv"),
    [
        (
            "dnd5e-srd",
            ("mira", "bram"),
            {"tag": '[skill_check: skill="Stealth" dc="15"]'},
            ["--character", "mira"],
        ),
        (
            "dnd5e-srd",
            ("mira", "bram"),
            {"tag": 'skill="Athletics" dc="14" mode=advantage', "who": BRAM},
            ["--character", "bram"],
        ),
        (
            "advanced-resolution",
            ("peet",),
            {"tag": 'skill="Scoundrel/Lockpick" difficulty="Rare" quality="agility"'},
            ["--character", "peet"],
        ),
        (
            "advanced-resolution",
            ("peet",),
            {
                "tag": 'skill="Scoundrel/Lockpick" difficulty="Rare"',
                "after": {"pool": "luck", "points": 3},
            },
            ["--character", "peet", "--after", "luck:3"],
        ),
        (
            "wod-pool",
            ("lucia",),
            {"tag": 'skill="Stealth" difficulty="Routine"'},
            ["--character", "lucia"],
        ),
        (
            "genesys",
            ("kira",),
            {"tag": 'skill="Cool" difficulty="Average"'},
            ["--character", "kira"],
        ),
    ],
    ids=[
        "the first character",
        "who= another",
        "step-pool",
        "step-pool with a spend after",
        "dice-pool",
        "symbol-pool",
    ],
)
def test_odds_answer_as_odds_json(
    service: TestClient,
    ruleset: str,
    characters: tuple[str, ...],
    body: dict[str, Any],
    argv: list[str],
) -> None:
    game = make_game(service, ruleset, *characters)
    expected = cli_json("odds", "--ruleset", ruleset, *argv, "--json", body["tag"])
    got = service.post(game.path("odds"), json=body, headers=game.headers)
    assert got.status_code == 200
    assert got.json() == expected


@pytest.mark.parametrize(
    ("characters", "body", "detail"),
    [
        ((), {"tag": 'skill="Stealth" dc="15"'}, "this game has no characters yet: put one first."),
        (
            ("mira",),
            {"tag": 'skill="Stealth" dc="15"', "who": "Bram"},
            '"Bram" is not a character of this game.',
        ),
        (("mira",), {"tag": 'skill="Flying" dc="15"'}, None),
        (("mira",), {"tag": 'dc="15"'}, None),
    ],
    ids=["no characters", "unknown who", "unknown skill", "no skill"],
)
def test_odds_that_cannot_be_computed_are_422(
    service: TestClient, characters: tuple[str, ...], body: dict[str, Any], detail: str | None
) -> None:
    game = make_game(service, "dnd5e-srd", *characters)
    problem = problem_of(service.post(game.path("odds"), json=body, headers=game.headers), 422)
    if detail is not None:
        assert problem["detail"] == detail
