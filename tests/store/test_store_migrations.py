"""The store's schema under Alembic, on SQLite and PostgreSQL: a store left at the
first revision, with rows in it, is migrated on open and its rows still play; a store
stamped by a newer dicebound is refused with a sentence and left alone; and the
migrations build exactly the tables the models declare."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from dicebound.edge.http import create_app
from dicebound.store import Store, StoreError, open_store
from dicebound.store.db import _alembic_config, head_revision
from dicebound.store.models import Base, dumps
from dicebound.store.repo import Game, NewCheck, NewSheetCommand, Repo, snapshot_head
from http_api_support import (
    STEALTH,
    bearer,
    character_file,
    cli_json,
    ruleset_file,
    store_rows,
    stored_value,
)
from service_support import ADMIN_TOKEN

NOW = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
GAME_TOKEN = "dbg_made-before-the-upgrade"
pytestmark = pytest.mark.empty_store  # these tests open new stores themselves
MIRA = "Mira Quickfoot"


@pytest.fixture
def bare(store_url: str) -> Iterator[Store]:
    """The store at ``store_url``, opened without migrating it."""
    store = open_store(store_url, migrate=False)
    try:
        yield store
    finally:
        store.close()


def _differences(store: Store) -> list[object]:
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_the_head_is_0011() -> None:
    assert head_revision() == "0011"


def test_a_fresh_store_migrates_to_the_models_exactly(store_url: str) -> None:
    store = open_store(store_url)
    try:
        assert store.revision() == "0011"
        assert _differences(store) == []
    finally:
        store.close()


def test_opening_twice_migrates_once_and_keeps_everything(store_url: str) -> None:
    open_store(store_url).close()
    before = store_rows(store_url)
    again = open_store(store_url)
    try:
        assert again.revision() == "0011"
    finally:
        again.close()
    assert store_rows(store_url) == before


def test_a_0001_store_with_rows_is_upgraded_on_open_and_still_plays(
    bare: Store, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare.upgrade("0001")
    assert bare.revision() == "0001"
    tables = set(inspect(bare.engine).get_table_names())
    assert {"games", "characters", "records", "rulesets", "meta"} <= tables
    assert "idempotency" not in tables

    mira = character_file("dnd5e-srd", "mira")
    # the game is pinned to the packaged version, which the upgraded store keeps
    packaged = ruleset_file("dnd5e-srd")["version"]
    thrown = cli_json(
        "check", "--ruleset", "dnd5e-srd", "--character", "mira", "--seed", "42", "--json", STEALTH
    )["results"][0]
    snapshot = {
        "name": MIRA,
        "sheet": mira["sheet"],
        "live": {"pools": {"inspiration": {"value": 1}}},
    }
    when = "2025-01-02T03:04:05.000006Z"
    with bare.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO games (id, name, ruleset_id, ruleset_version, layers, token_hash,"
                " created) VALUES ('0ld0ld0ld0ld0ld0', 'Old game', 'dnd5e-srd', :v, '[]', :h, :t)"
            ),
            {"h": hashlib.sha256(GAME_TOKEN.encode()).hexdigest(), "t": when, "v": packaged},
        )
        connection.execute(
            text(
                "INSERT INTO characters (game_id, name, position, sheet, live, revision, updated)"
                " VALUES ('0ld0ld0ld0ld0ld0', :n, 0, :s, :l, 3, :t)"
            ),
            {
                "n": MIRA,
                "s": json.dumps(mira["sheet"]),
                "l": json.dumps(snapshot["live"]),
                "t": when,
            },
        )
        connection.execute(
            text(
                "INSERT INTO records (game_id, created, who, ask, result, seed, faces, choose,"
                " ruleset_id, ruleset_version, layers, sheet, answer, answer_sheet) VALUES"
                " ('0ld0ld0ld0ld0ld0', :t, :n, :a, :r, '42', NULL, NULL, 'dnd5e-srd', :v, '[]',"
                " :s, NULL, NULL)"
            ),
            {
                "t": when,
                "v": packaged,
                "n": MIRA,
                "a": STEALTH,
                "r": json.dumps(thrown),
                "s": json.dumps(snapshot),
            },
        )
        (old_id,) = connection.execute(text("SELECT id FROM records")).one()

    upgraded = open_store(store_url)
    try:
        assert upgraded.revision() == "0011"
        assert _differences(upgraded) == []
    finally:
        upgraded.close()

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url)) as client:
        headers = bearer(GAME_TOKEN)
        game = client.get("/games/0ld0ld0ld0ld0ld0", headers=headers)
        assert game.status_code == 200
        assert game.json() == {
            "id": "0ld0ld0ld0ld0ld0",
            "name": "Old game",
            "ruleset": "dnd5e-srd",
            "version": packaged,
            "layers": [],
            "characters": [MIRA],
        }
        character = client.get(f"/games/0ld0ld0ld0ld0ld0/characters/{MIRA}", headers=headers).json()
        assert character == {
            "name": MIRA,
            "sheet": mira["sheet"],
            "live": snapshot["live"],
            "revision": 3,
        }
        record = client.get(f"/games/0ld0ld0ld0ld0ld0/records/{old_id}", headers=headers).json()
        assert {k: record[k] for k in thrown} == thrown
        assert record["kind"] == "check"  # every record made before 0005 was a check
        assert (record["created"], record["seed"], record["answered"]) == (when, "42", None)
        verified = client.get(f"/games/0ld0ld0ld0ld0ld0/records/{old_id}/verify", headers=headers)
        assert verified.json() == {"verified": True, "differences": []}

        # new rows go beside the old ones: ids after the old record, the new table in use
        key = {**headers, "Idempotency-Key": "after-the-upgrade"}
        body = {"text": STEALTH, "seed": "42"}
        first = client.post("/games/0ld0ld0ld0ld0ld0/checks", json=body, headers=key)
        assert first.status_code == 200
        assert (
            client.post("/games/0ld0ld0ld0ld0ld0/checks", json=body, headers=key).json()
            == first.json()
        )
        (new,) = first.json()["results"]
        assert new["id"] > old_id
        assert {k: new[k] for k in thrown} == thrown
        listed = client.get("/games/0ld0ld0ld0ld0ld0/records", headers=headers).json()
        assert [r["id"] for r in listed["records"]] == [new["id"], old_id]
        replayed = client.get(
            f"/games/0ld0ld0ld0ld0ld0/records/{new['id']}/verify", headers=headers
        )
        assert replayed.json() == {"verified": True, "differences": []}
        # the tallies (0008) began from the records already there: the old one counts
        party = client.get("/games/0ld0ld0ld0ld0ld0/party", headers=headers).json()
        (member,) = party["characters"] if isinstance(party, dict) else party
        assert member["records"] == {"checks": 2, "sheet": 0}


def test_a_store_from_a_newer_dicebound_is_refused_and_left_alone(store_url: str) -> None:
    open_store(store_url).close()
    store = open_store(store_url, migrate=False)
    try:
        with store.engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        store.close()
    before = store_rows(store_url)
    with pytest.raises(StoreError) as refused:
        open_store(store_url)
    assert str(refused.value) == (
        "this store's schema is at revision 9999, made by a newer dicebound; this one knows "
        "revisions up to 0011. Upgrade dicebound to open it."
    )
    assert store_rows(store_url) == before
    again = open_store(store_url, migrate=False)
    try:
        assert again.revision() == "9999"
    finally:
        again.close()


def test_going_back_to_0008_writes_each_snapshot_s_sheet_whole_again(store_url: str) -> None:
    """Downgraded, every record's cards hold their sheets in full again, as 0008's code
    reads them, and the kept texts go; upgraded again, the records read the same."""
    game = Game("g1", "A game", "dnd5e-srd", 1, [], "0" * 64)
    sheet = dumps({"v": 1, "build": {"fields": {"level": 3}}})
    card = f"{snapshot_head('Mira', sheet)}{{}}}}"
    whole = {"name": "Mira", "sheet": json.loads(sheet), "live": {}}
    store = open_store(store_url)
    try:
        with store.write() as session:
            repo = Repo(session)
            repo.add_game(game, NOW)
            repo.add_member(game.id, "Mira", sheet, "{}", NOW)
            records: list[NewCheck | NewSheetCommand] = [
                NewCheck("Mira", STEALTH, {}, "42", None, None, card),
                NewSheetCommand("Mira", "[sheet: op=x]", {}, 1, [card, '{"name":"Tam"}']),
            ]
            ids = [w.id for w in repo.add_records(game, NOW, records)]
        with store.engine.begin() as connection:
            command.downgrade(_alembic_config(connection), "0008")
        assert "sheet_texts" not in inspect(store.engine).get_table_names()
        kept = [
            stored_value(store_url, "SELECT sheet FROM records WHERE id = :i", i=i) for i in ids
        ]
        assert [json.loads(k) for k in kept] == [
            whole,
            {"number": 1, "party": [whole, {"name": "Tam"}]},
        ]
        store.upgrade()
        with store.read() as session:
            rows = [Repo(session).record(game.id, i) for i in ids]
        assert [r.sheet for r in rows if r is not None] == [json.loads(k) for k in kept]
    finally:
        store.close()


def _numbers(store: Store) -> list[tuple[str, int, int]]:
    """(game, id, number) of every record, by id."""
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT game_id, id, number FROM records ORDER BY id"))
        return [(g, int(i), int(n)) for g, i, n in rows]


def test_0010_numbers_each_game_s_records_in_id_order_and_its_kept_answers(
    bare: Store,
) -> None:
    """Upgraded from 0009, the records of two games written in turn are numbered within
    their game in id order, each game goes on from its last, and an answer kept for an
    idempotency key names each record's number after its id. Going back to 0009 keeps
    every record; upgraded again, the numbers are the same."""
    bare.upgrade("0009")
    games = ("aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb")
    record = (
        "INSERT INTO records (game_id, created, who, ask, result, seed, faces, choose,"
        " ruleset_id, ruleset_version, layers, sheet, answer, answer_sheet, kind) VALUES"
        " (:g, :t, 'Mira', '\"[x]\"', '{}', '42', NULL, NULL, 'r', 1, '[]', '{}', NULL, NULL,"
        " 'check')"
    )
    when = "2025-01-02T03:04:05.000006Z"
    with bare.engine.begin() as connection:
        for game in games:
            connection.execute(
                text(
                    "INSERT INTO games (id, name, ruleset_id, ruleset_version, layers,"
                    " token_hash, created) VALUES (:g, 'G', 'r', 1, '[]', :g, :t)"
                ),
                {"g": game, "t": when},
            )
        for game in (games[0], games[1], games[0], games[0], games[1]):
            connection.execute(text(record), {"g": game, "t": when})
        kept = {
            "text": "x",
            "results": [{"tag": "a", "id": 3}, {"tag": "b", "id": 4}],
            "errors": [],
            "sheet": [{"id": 1, "tag": "c"}, {"id": None, "tag": "d"}],
        }
        connection.execute(
            text(
                "INSERT INTO idempotency (game_id, key, digest, answer, created)"
                " VALUES (:g, 'k', 'd', :a, :t)"
            ),
            {"g": games[0], "a": dumps(kept), "t": when},
        )
    bare.upgrade()
    assert bare.revision() == "0011"
    a, b = games
    numbered = [(a, 1, 1), (b, 2, 1), (a, 3, 2), (a, 4, 3), (b, 5, 2)]
    assert _numbers(bare) == numbered
    with bare.write() as session:
        repo = Repo(session)
        game = Game(b, "G", "r", 1, [], b)
        made = repo.add_records(game, NOW, [NewCheck("Mira", "[x]", {}, "1", None, None, "{}")])
        assert [w.number for w in made] == [3]
        answer = repo.kept(a, "k")
    assert answer is not None and answer.answer == {
        "text": "x",
        "results": [{"tag": "a", "id": 3, "number": 2}, {"tag": "b", "id": 4, "number": 3}],
        "errors": [],
        "sheet": [{"id": 1, "number": 1, "tag": "c"}, {"id": None, "number": None, "tag": "d"}],
    }
    with bare.engine.begin() as connection:
        command.downgrade(_alembic_config(connection), "0009")
    assert "number" not in {c["name"] for c in inspect(bare.engine).get_columns("records")}
    bare.upgrade()
    assert _numbers(bare) == [*numbered, (b, 6, 3)]
