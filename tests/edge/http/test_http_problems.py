"""Every refusal is an RFC 9457 problem document (``application/problem+json`` with
``title``, ``status`` and ``detail``), never a 500 and never a traceback: bad JSON,
wrong types, unknown keys, unknown names, bad paths, text no store keeps. On SQLite
and PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from http_api_support import STEALTH, make_game, problem_of, records, store_rows
from service_support import ADMIN_TOKEN, admin_headers

JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Bad:
    method: str
    path: str  # {game} and {record} filled in
    status: int
    json: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    admin: bool = False
    detail: str | None = None


GROUPS: dict[str, dict[str, Bad]] = {
    "making a game": {
        "POST /games: not JSON": Bad(
            "POST", "/games", 422, content=b'{"name": ', headers=JSON, admin=True
        ),
        "POST /games: an empty body": Bad(
            "POST", "/games", 422, content=b"", headers=JSON, admin=True
        ),
        "POST /games: a list": Bad("POST", "/games", 422, json=[], admin=True),
        "POST /games: a name that is a number": Bad(
            "POST",
            "/games",
            422,
            json={"name": 5, "ruleset": "dnd5e-srd"},
            admin=True,
            detail="body.name: Input should be a valid string.",
        ),
        "POST /games: layers as a string": Bad(
            "POST",
            "/games",
            422,
            json={"name": "g", "ruleset": "dnd5e-srd", "layers": "grim"},
            admin=True,
        ),
        "POST /games: a negative version": Bad(
            "POST",
            "/games",
            422,
            json={"name": "g", "ruleset": "dnd5e-srd", "version": -1},
            admin=True,
        ),
        "POST /games: an unknown key": Bad(
            "POST",
            "/games",
            422,
            json={"name": "g", "ruleset": "dnd5e-srd", "colour": "red"},
            admin=True,
            detail="body.colour: Extra inputs are not permitted.",
        ),
        "POST /games: no ruleset": Bad(
            "POST",
            "/games",
            422,
            json={"name": "g"},
            admin=True,
            detail="body.ruleset: Field required.",
        ),
    },
    "rulesets and rolls": {
        "POST /rulesets: not UTF-8": Bad(
            "POST",
            "/rulesets",
            422,
            content=b'{"id": "\xff"}',
            headers=JSON,
            admin=True,
            detail="the ruleset is not UTF-8 text (byte 8).",
        ),
        "GET /rulesets/{id}: a version that is no number": Bad(
            "GET", "/rulesets/dnd5e-srd?version=two", 422
        ),
        "POST /roll: an unknown key": Bad(
            "POST", "/roll", 422, json={"ruleset": "genesys", "dice": "1 ability", "sides": 6}
        ),
        "POST /roll: no dice": Bad("POST", "/roll", 422, json={"ruleset": "genesys"}),
    },
    "checks": {
        "POST checks: not JSON": Bad(
            "POST", "/games/{game}/checks", 422, content=b"{text", headers=JSON
        ),
        "POST checks: text as a number": Bad(
            "POST",
            "/games/{game}/checks",
            422,
            json={"text": 5},
            detail="body.text: Input should be a valid string.",
        ),
        "POST checks: no text": Bad("POST", "/games/{game}/checks", 422, json={"seed": "1"}),
        "POST checks: an unknown key": Bad(
            "POST",
            "/games/{game}/checks",
            422,
            json={"text": STEALTH, "sed": "1"},
            detail="body.sed: Extra inputs are not permitted.",
        ),
        "POST checks: choose maybe": Bad(
            "POST", "/games/{game}/checks", 422, json={"text": STEALTH, "choose": "maybe"}
        ),
        "POST checks: faces as words": Bad(
            "POST", "/games/{game}/checks", 422, json={"text": STEALTH, "faces": ["six"]}
        ),
        "POST checks: a seed as a list": Bad(
            "POST", "/games/{game}/checks", 422, json={"text": STEALTH, "seed": [1]}
        ),
        "POST checks: an Idempotency-Key of 201 characters": Bad(
            "POST",
            "/games/{game}/checks",
            422,
            json={"text": STEALTH},
            headers={"Idempotency-Key": "k" * 201},
        ),
        "POST checks: a list": Bad("POST", "/games/{game}/checks", 422, json=[STEALTH]),
    },
    "characters and their live state": {
        "PUT a character: not JSON": Bad(
            "PUT",
            "/games/{game}/characters/Ada",
            422,
            content=b'{"sheet": }',
            headers=JSON,
            detail="the character file is not JSON: Expecting value at line 1, column 11.",
        ),
        "PUT a character: a list": Bad(
            "PUT",
            "/games/{game}/characters/Ada",
            422,
            json=[],
            detail="the character file must be a JSON object.",
        ),
        "PUT a character: not UTF-8": Bad(
            "PUT",
            "/games/{game}/characters/Ada",
            422,
            content=b"\xfe{}",
            headers=JSON,
            detail="the character file is not UTF-8 text (byte 0).",
        ),
        "PUT a character: a key written twice": Bad(
            "PUT",
            "/games/{game}/characters/Ada",
            422,
            content=b'{"live": {}, "live": {}}',
            headers=JSON,
            detail="the character file writes a key twice.",
        ),
        "PUT a character: a sheet that is a string": Bad(
            "PUT", "/games/{game}/characters/Ada", 422, json={"sheet": "strong"}
        ),
        "PUT a character: a NUL in the name": Bad(
            "PUT", "/games/{game}/characters/A%00da", 422, json={}
        ),
        "PATCH the live state: not JSON": Bad(
            "PATCH",
            "/games/{game}/characters/Mira Quickfoot/live",
            422,
            content=b"{",
            headers={**JSON, "If-Match": '"1"'},
        ),
        "PATCH the live state: pools as a list": Bad(
            "PATCH",
            "/games/{game}/characters/Mira Quickfoot/live",
            422,
            json={"pools": ["inspiration"]},
            headers={"If-Match": '"1"'},
        ),
        "PATCH the live state: an unknown character": Bad(
            "PATCH",
            "/games/{game}/characters/Nobody/live",
            404,
            json={},
            headers={"If-Match": '"1"'},
        ),
        "GET an unknown character": Bad(
            "GET",
            "/games/{game}/characters/Nobody",
            404,
            detail='"Nobody" is not a character of this game.',
        ),
    },
    "odds and the GM's text": {
        "POST odds: no tag": Bad("POST", "/games/{game}/odds", 422, json={"who": "Mira Quickfoot"}),
        "POST odds: an unknown who": Bad(
            "POST", "/games/{game}/odds", 422, json={"tag": STEALTH, "who": "Nobody"}
        ),
        "POST odds: an unknown skill": Bad(
            "POST", "/games/{game}/odds", 422, json={"tag": '[skill_check: skill="Flying" dc="3"]'}
        ),
        "POST odds: after with no points": Bad(
            "POST",
            "/games/{game}/odds",
            422,
            json={"tag": STEALTH, "after": {"pool": "inspiration"}},
        ),
        "GET the GM's text for an unknown character": Bad(
            "GET", "/games/{game}/gm?character=Nobody", 422
        ),
    },
    "records and answers": {
        "GET the records: a limit that is no number": Bad(
            "GET", "/games/{game}/records?limit=all", 422
        ),
        "GET the records: before 0": Bad("GET", "/games/{game}/records?before=0", 422),
        "GET a record: an id that is no number": Bad("GET", "/games/{game}/records/first", 422),
        "GET a record: id 0": Bad("GET", "/games/{game}/records/0", 422),
        "GET a record: an unknown id": Bad("GET", "/games/{game}/records/999999", 404),
        "POST after: points as a string": Bad(
            "POST",
            "/games/{game}/records/{record}/after",
            422,
            json={"pool": "inspiration", "points": "all"},
        ),
        "POST after: choose maybe": Bad(
            "POST", "/games/{game}/records/{record}/after", 422, json={"choose": "maybe"}
        ),
    },
    "paths and methods": {
        "GET a path that is not there": Bad(
            "GET", "/nowhere", 404, detail="there is nothing at this path."
        ),
        "PATCH a game": Bad(
            "PATCH",
            "/games/{game}",
            405,
            detail="this path does not take PATCH; it takes GET, DELETE.",
        ),
        "PUT /rulesets": Bad("PUT", "/rulesets", 405, json={}),
    },
}


@pytest.mark.parametrize("cases", list(GROUPS.values()), ids=list(GROUPS))
def test_a_bad_request_is_a_problem_document_and_writes_nothing(
    service: TestClient, store_url: str, cases: dict[str, Bad]
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    (result,) = service.post(
        game.path("checks"), json={"text": STEALTH, "seed": "1"}, headers=game.headers
    ).json()["results"]
    before = store_rows(store_url)
    for name, bad in cases.items():
        path = bad.path.format(game=game.id, record=result["id"])
        headers = {**(admin_headers() if bad.admin else game.headers), **bad.headers}
        if bad.content is not None:
            got = service.request(bad.method, path, content=bad.content, headers=headers)
        elif bad.json is not None:
            got = service.request(bad.method, path, json=bad.json, headers=headers)
        else:
            got = service.request(bad.method, path, headers=headers)
        assert got.status_code == bad.status, f"{name}: {got.text}"
        body = problem_of(got, bad.status)
        assert body["type"] == "about:blank"
        if bad.detail is not None:
            assert body["detail"] == bad.detail, name
        for item in body.get("problems") or []:
            assert set(item) == {"path", "code", "message"}, name
            assert all(isinstance(v, str) and v for v in item.values()), name
        assert store_rows(store_url) == before, name


_ODD_TEXT = {
    "a NUL inside a tag": (
        '{"text": "[skill_check: skill=Stealth dc=15 note=\\"a\\u0000b\\"]", "seed": "1"}',
        200,
    ),
    "a NUL outside the tags": (
        '{"text": "\\u0000 [skill_check: skill=Stealth dc=15]", "seed": "1"}',
        200,
    ),
    "a lone surrogate inside a tag": (
        '{"text": "[skill_check: skill=Stealth dc=15 note=a\\ud800]", "seed": "1"}',
        422,
    ),
    "a lone surrogate outside the tags": (
        '{"text": "oh \\ud800 [skill_check: skill=Stealth dc=15]", "seed": "1"}',
        422,
    ),
    "a lone surrogate in the skill": (
        '{"text": "[skill_check: skill=Ste\\ud800alth dc=15]", "seed": "1"}',
        422,
    ),
}


def test_text_no_store_can_keep_is_refused_whole_or_kept_whole(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    for name, (raw, status) in _ODD_TEXT.items():
        before = store_rows(store_url)
        got = service.post(
            game.path("checks"), content=raw.encode(), headers={**game.headers, **JSON}
        )
        assert got.status_code == status, f"{name}: {got.text}"
        if status == 422:
            assert problem_of(got, 422)["detail"] == (
                "the request holds text that is not valid Unicode (a lone surrogate or a bad byte)."
            ), name
            assert store_rows(store_url) == before, name
        else:
            (result,) = got.json()["results"]
            assert records(service, game)[0]["id"] == result["id"], name
            assert len(store_rows(store_url)["records"]) == len(before["records"]) + 1, name


_ODD_FILES = {
    "a game name with a lone surrogate": (
        "POST",
        "/games",
        b'{"name": "a\\ud800", "ruleset": "dnd5e-srd"}',
        422,
    ),
    "a character field with a lone surrogate": (
        "PUT",
        "/games/{game}/characters/Ada",
        b'{"sheet": {"v": 1, "build": {"fields": {"x\\ud800": 1}}}}',
        422,
    ),
    "a character field value with a NUL": (
        "PUT",
        "/games/{game}/characters/Ada",
        b'{"sheet": {"v": 1, "build": {"fields": {"class": "a\\u0000"}}}}',
        201,
    ),
    "an odds tag with a lone surrogate": (
        "POST",
        "/games/{game}/odds",
        b'{"tag": "[skill_check: skill=Stealth dc=15 x=\\ud800]"}',
        200,
    ),
    "a ruleset with a lone surrogate": ("POST", "/rulesets", b'{"id": "x\\ud800"}', 422),
}


def test_odd_text_elsewhere_is_never_a_500(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    for name, (method, path, raw, status) in _ODD_FILES.items():
        headers = {**(admin_headers() if "{game}" not in path else game.headers), **JSON}
        got = service.request(method, path.format(game=game.id), content=raw, headers=headers)
        assert got.status_code == status, f"{name}: {got.text}"
        if status >= 400:
            problem_of(got, status)


def test_a_store_busy_past_its_timeout_answers_503_not_422(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's "database is locked" (another writer held the file past the busy
    timeout) is the store being unavailable, not the request's fault."""
    import sqlite3

    from dicebound.edge.http import create_app
    from dicebound.store import db as store_db

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    monkeypatch.setattr(store_db, "_BUSY_MS", 50)
    path = tmp_path / "busy.db"
    with TestClient(create_app(f"sqlite:///{path}")) as client:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            answer = client.post(
                "/games",
                json={"name": "x", "ruleset": "dnd5e-srd"},
                headers=admin_headers(),
            )
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    assert answer.status_code == 503, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
