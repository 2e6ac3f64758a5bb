"""The HTTP API's rulesets, /health and /roll (docs/service.md), on SQLite and PostgreSQL:
listing, reading, uploading (admin only; a stored version never changes; a refused
file lists the same problems as ``validate --json``), games pinned to the version
they were made on, and ``roll`` answering as ``roll --json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.edge.files import packaged_rulesets
from http_api_support import (
    DATA,
    STEALTH,
    bearer,
    cli,
    cli_json,
    make_game,
    problem_of,
    ruleset_file,
    store_rows,
    without_ids,
)
from service_support import JSON, admin_headers

PACKAGED = packaged_rulesets()


def _house(**changes: Any) -> dict[str, Any]:
    """A ruleset of its own id, made from the packaged D&D file."""
    file = ruleset_file("dnd5e-srd")
    file.update({"id": "house-d20", "name": "House d20", **changes})
    return file


def _text(file: dict[str, Any]) -> str:
    return json.dumps(file, indent=2, ensure_ascii=False)


def _listed(client: TestClient) -> list[dict[str, Any]]:
    got = client.get("/rulesets")
    assert got.status_code == 200
    listed: list[dict[str, Any]] = got.json()
    return listed


# ── /health and reading ──────────────────────────────────────────────────────


def test_health_names_the_store_and_the_version(service: TestClient, store_url: str) -> None:
    from dicebound.app.version import dicebound_version

    got = service.get("/health")
    assert got.status_code == 200
    assert got.json() == {
        "ok": True,
        "store": "sqlite" if store_url.startswith("sqlite") else "postgresql",
        "version": dicebound_version(),
    }


BUMPED = {"wod-pool": 2}
"""The packaged rulesets past their first version (each bump a new stored version)."""


def test_every_packaged_ruleset_is_listed_without_a_token(service: TestClient) -> None:
    listed = _listed(service)
    assert len(PACKAGED) == 15
    assert [(r["id"], r["version"]) for r in listed] == [(r, BUMPED.get(r, 1)) for r in PACKAGED]
    for entry in listed:
        file = ruleset_file(entry["id"])
        assert entry == {
            "id": file["id"],
            "version": file["version"],
            "name": file["name"],
            "kind": file["resolution"]["kind"],
            "packaged": True,
        }


def test_every_packaged_ruleset_reads_back_as_its_file(service: TestClient) -> None:
    for ruleset_id in PACKAGED:
        file = (DATA / "rulesets" / f"{ruleset_id}.json").read_text(encoding="utf-8")
        newest = service.get(f"/rulesets/{ruleset_id}")
        assert newest.status_code == 200, ruleset_id
        assert newest.headers["content-type"].startswith("application/json")
        assert newest.text == file, ruleset_id
        version = BUMPED.get(ruleset_id, 1)
        assert service.get(f"/rulesets/{ruleset_id}", params={"version": version}).text == file


_UNKNOWN = {
    "unknown id": ("/rulesets/nope", {}, 'no ruleset "nope" is stored.'),
    "a near miss is named": (
        "/rulesets/dnd5e-sdr",
        {},
        'no ruleset "dnd5e-sdr" is stored. Did you mean "dnd5e-srd"?',
    ),
    "unknown version of a known id": (
        "/rulesets/dnd5e-srd",
        {"version": 2},
        'the ruleset "dnd5e-srd" has no version 2.',
    ),
}


def test_an_unknown_ruleset_is_404(service: TestClient) -> None:
    for name, (path, params, detail) in _UNKNOWN.items():
        assert problem_of(service.get(path, params=params), 404)["detail"] == detail, name


# ── uploading ────────────────────────────────────────────────────────────────


def test_an_upload_is_stored_listed_and_read_back_as_sent(service: TestClient) -> None:
    text = _text(_house())
    made = service.post("/rulesets", content=text, headers={**admin_headers(), **JSON})
    assert made.status_code == 201
    assert made.json() == {"id": "house-d20", "version": 1}
    assert {
        "id": "house-d20",
        "version": 1,
        "name": "House d20",
        "kind": "dice-sum",
        "packaged": False,
    } in _listed(service)
    assert len(_listed(service)) == 16
    assert service.get("/rulesets/house-d20").text == text


def test_the_same_content_again_is_200_and_changes_nothing(
    service: TestClient, store_url: str
) -> None:
    file = _house()
    assert (
        service.post(
            "/rulesets", content=_text(file), headers={**admin_headers(), **JSON}
        ).status_code
        == 201
    )
    before = store_rows(store_url)
    # the same document, written differently (no indent, keys in another order)
    again = json.dumps(dict(reversed(list(file.items()))))
    repeat = service.post("/rulesets", content=again, headers={**admin_headers(), **JSON})
    assert repeat.status_code == 200
    assert repeat.json() == {"id": "house-d20", "version": 1}
    assert store_rows(store_url) == before


@pytest.mark.parametrize(
    "ruleset_id", ["house-d20", "dnd5e-srd"], ids=["an uploaded one", "a packaged one"]
)
def test_other_content_under_a_stored_id_and_version_is_409(
    service: TestClient, store_url: str, ruleset_id: str
) -> None:
    if ruleset_id == "house-d20":
        service.post("/rulesets", content=_text(_house()), headers={**admin_headers(), **JSON})
    stored = service.get(f"/rulesets/{ruleset_id}").text
    before = store_rows(store_url)
    other = json.loads(stored)
    other["name"] = "Something else"
    body = problem_of(service.post("/rulesets", json=other, headers=admin_headers()), 409)
    assert f'version 1 of "{ruleset_id}" is already stored with other content' in body["detail"]
    assert service.get(f"/rulesets/{ruleset_id}").text == stored
    assert store_rows(store_url) == before


_BROKEN: dict[str, str] = {
    "an unknown kind and an unknown key": _text(
        _house(resolution={**ruleset_file("dnd5e-srd")["resolution"], "kind": "dice-summ"}, bogus=1)
    ),
    "not JSON": '{"id": "house-d20",\n  "version": 1,,}',
    "a list, not an object": "[1, 2]",
    "a key written twice": '{"id": "a", "id": "b"}',
    "an empty object": "{}",
}


@pytest.mark.parametrize("text", list(_BROKEN.values()), ids=list(_BROKEN))
def test_a_refused_ruleset_lists_the_problems_validate_json_lists(
    service: TestClient, store_url: str, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    validated = cli_json("validate", "--json", str(path), code=1)
    assert validated["ok"] is False and validated["problems"]
    before = store_rows(store_url)
    body = problem_of(
        service.post("/rulesets", content=text, headers={**admin_headers(), **JSON}), 422
    )
    assert body["problems"] == validated["problems"]
    assert body["detail"] == f"the ruleset was refused: {len(validated['problems'])} problem(s)."
    assert store_rows(store_url) == before


def test_uploading_needs_the_admin_token(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd")
    text = _text(_house())
    before = store_rows(store_url)
    anonymous = service.post("/rulesets", content=text, headers=JSON)
    assert problem_of(anonymous, 401)["detail"] == (
        "only the admin token may upload a ruleset, and no token was sent."
    )
    assert anonymous.headers["www-authenticate"] == "Bearer"
    for token in (game.token, "not-a-token-at-all"):
        refused = problem_of(
            service.post("/rulesets", content=text, headers={**bearer(token), **JSON}), 403
        )
        assert (
            refused["detail"]
            == "only the admin token may upload a ruleset; the token sent is not it."
        )
    assert store_rows(store_url) == before


def _padded(size: int) -> str:
    """A valid ruleset file of exactly ``size`` bytes."""
    file = _house(**{"$comment": ""})
    short = len(_text(file).encode("utf-8"))
    file["$comment"] = "x" * (size - short)
    text = _text(file)
    assert len(text.encode("utf-8")) == size
    return text


def test_a_ruleset_of_256_kb_is_taken_and_one_byte_more_is_413(
    service: TestClient, store_url: str
) -> None:
    at_limit = service.post(
        "/rulesets", content=_padded(256 * 1024), headers={**admin_headers(), **JSON}
    )
    assert at_limit.status_code == 201, at_limit.text
    before = store_rows(store_url)
    over = _padded(256 * 1024 + 1).replace('"version": 1', '"version": 2')
    body = problem_of(
        service.post("/rulesets", content=over, headers={**admin_headers(), **JSON}), 413
    )
    assert body["detail"] == (
        "the body is over 262,144 bytes: a ruleset may be at most 262,144 bytes (256 KB)."
    )
    assert store_rows(store_url) == before


# ── games keep their version ─────────────────────────────────────────────────


def test_a_game_keeps_the_version_it_was_made_on(service: TestClient, tmp_path: Path) -> None:
    old = make_game(service, "dnd5e-srd", "mira")
    # version 2 rolls Stealth with Strength: Mira's modifier falls from +9 to +5
    newer = ruleset_file("dnd5e-srd")
    newer["version"] = 2
    for skill in newer["sheet"]["skills"]:
        if skill["id"] == "stealth":
            skill["ability"] = "str"
    path = tmp_path / "dnd5e-srd-2.json"
    path.write_text(_text(newer), encoding="utf-8")
    made = service.post("/rulesets", content=path.read_text(), headers={**admin_headers(), **JSON})
    assert made.status_code == 201 and made.json() == {"id": "dnd5e-srd", "version": 2}
    assert [(r["version"], r["packaged"]) for r in _listed(service) if r["id"] == "dnd5e-srd"] == [
        (1, True),
        (2, False),
    ]
    assert json.loads(service.get("/rulesets/dnd5e-srd").text)["version"] == 2
    assert json.loads(service.get("/rulesets/dnd5e-srd?version=1").text)["version"] == 1

    pinned = make_game(service, "dnd5e-srd", "mira", version=1)
    latest = make_game(service, "dnd5e-srd", "mira")
    assert (old.version, pinned.version, latest.version) == (1, 1, 2)
    on_v1 = cli_json(
        "check", "--ruleset", "dnd5e-srd", "--character", "mira", "--seed", "5", "--json", STEALTH
    )
    mira = str(DATA / "characters" / "dnd5e-srd" / "mira.json")
    on_v2 = cli_json(
        "check", "--ruleset", str(path), "--character", mira, "--seed", "5", "--json", STEALTH
    )
    assert on_v1["results"][0]["attrs"]["modifier"] == "9"
    assert on_v2["results"][0]["attrs"]["modifier"] == "5"
    for game, expected in ((old, on_v1), (pinned, on_v1), (latest, on_v2)):
        answer = service.post(
            game.path("checks"), json={"text": STEALTH, "seed": "5"}, headers=game.headers
        )
        assert answer.status_code == 200
        assert without_ids(answer.json()) == expected
        assert service.get(game.path(), headers=game.headers).json()["version"] == game.version
        record = answer.json()["results"][0]["id"]
        assert (
            service.get(game.path("records", record), headers=game.headers).json()["version"]
            == game.version
        )
        verified = service.get(game.path("records", record, "verify"), headers=game.headers)
        assert verified.json() == {"verified": True, "differences": []}


# ── /roll ────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("dice", "seed"),
    [
        ("2 ability 1 proficiency vs 2 difficulty", "42"),
        ("3 ability 1 boost vs 1 challenge 1 setback", "7"),
    ],
    ids=["pool against difficulty", "with boost, challenge and setback"],
)
def test_roll_answers_as_roll_json(service: TestClient, dice: str, seed: str) -> None:
    expected = cli_json("roll", "--ruleset", "genesys", "--seed", seed, "--json", dice)
    got = service.post("/roll", json={"ruleset": "genesys", "dice": dice, "seed": seed})
    assert got.status_code == 200
    assert got.json() == expected
    as_number = service.post("/roll", json={"ruleset": "genesys", "dice": dice, "seed": int(seed)})
    assert as_number.json() == expected


def test_roll_without_a_seed_names_the_seed_that_replays_it(service: TestClient) -> None:
    dice = "2 ability 2 proficiency vs 3 difficulty"
    first = service.post("/roll", json={"ruleset": "genesys", "dice": dice})
    assert first.status_code == 200
    seed = first.json()["seed"]
    replay = service.post("/roll", json={"ruleset": "genesys", "dice": dice, "seed": seed})
    assert replay.json() == first.json()
    assert first.json() == cli_json("roll", "--ruleset", "genesys", "--seed", seed, "--json", dice)


def test_roll_refusals(service: TestClient) -> None:
    unknown = service.post("/roll", json={"ruleset": "genesis", "dice": "1 ability"})
    assert (
        problem_of(unknown, 422)["detail"]
        == 'no ruleset "genesis" is stored. Did you mean "genesys"?'
    )
    bad_dice = service.post("/roll", json={"ruleset": "genesys", "dice": "2 wombat"})
    assert "wombat" in problem_of(bad_dice, 422)["detail"]
    cli("roll", "--ruleset", "genesys", "2 wombat", code=2)
