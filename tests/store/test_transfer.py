"""A game carried between stores (docs/store-operations.md "A game carried between
stores"): ``db export-game`` writes it whole, ``db import-game`` loads it into another
store (SQLite to PostgreSQL and back), every record replayed before anything commits,
new tokens printed once; the file matches its shipped JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from dicebound.app import events
from dicebound.app.access import Access
from dicebound.app.errors import Conflict, Invalid
from dicebound.app.records import verify_record
from dicebound.app.transfer import RELOAD_REASON, import_game, read_game_file
from dicebound.edge.http import create_app
from dicebound.store import Store, open_store
from dicebound.store.game_file import game_file_schema
from events_support import stored_events
from http_api_support import DATA, Game, cli, cli_json, store_rows
from service_support import ADMIN_TOKEN, postgres_database
from transfer_support import LOCKPICK, MAUD, PEET, answer, played_game, record_ids

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.fixture
def sqlite_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'source.db'}")) as client:
        yield client


def _url(service: TestClient) -> str:
    store: Store = service.app.state.store  # type: ignore[attr-defined]
    return store.engine.url.render_as_string(hide_password=False)


def _verify_all(url: str, game: str) -> int:
    """Replay every record of a game in the store at ``url``; how many."""
    store = open_store(url)
    try:
        with store.read() as session:
            from dicebound.store.repo import Repo

            ids = [r.id for r in Repo(session).records(game, None, 100_000)]
            for record_id in ids:
                verified = verify_record(session, Access.local(), game, record_id)
                assert verified.verified, (record_id, verified.differences)
        return len(ids)
    finally:
        store.close()


def _comparable(file: dict[str, Any]) -> dict[str, Any]:
    """A game file without what a store gives anew: the records' ids, the time
    exported, the events' mark, when a packaged ruleset was stored."""
    records = [{k: v for k, v in r.items() if k != "id"} for r in file["records"]]
    rulesets = [{k: v for k, v in r.items() if k != "created"} for r in file["rulesets"]]
    left = ("records", "rulesets", "exported", "events_newest")
    rest = {k: v for k, v in file.items() if k not in left}
    return {**rest, "records": records, "rulesets": rulesets}


def test_a_game_goes_from_sqlite_to_postgresql_and_back_every_record_verified(
    sqlite_service: TestClient, tmp_path: Path
) -> None:
    game = played_game(sqlite_service)
    source = _url(sqlite_service)
    exported = cli("db", "export-game", game.id, "--db", source)
    first = json.loads(exported)
    assert len(first["records"]) == 9  # 3 texts: a check, a command applied, one refused
    assert first["events_newest"] == len(stored_events(source, game.id))
    (tmp_path / "game.json").write_text(exported)
    with postgres_database() as pg:
        made = cli_json("db", "import-game", str(tmp_path / "game.json"), "--db", pg)
        assert made["game"] == game.id and made["records"] == 9
        assert set(made["seats"]) == {MAUD}
        assert _verify_all(pg, game.id) == 9
        again = cli_json("db", "export-game", game.id, "--db", pg)
        assert again["events_newest"] == first["events_newest"] + 1
        (tmp_path / "back.json").write_text(json.dumps(again))
    back = f"sqlite:///{tmp_path / 'back.db'}"
    cli_json("db", "import-game", str(tmp_path / "back.json"), "--db", back)
    assert _verify_all(back, game.id) == 9
    third = cli_json("db", "export-game", game.id, "--db", back)
    assert _comparable(third) == _comparable(first)  # nothing lost or changed on the way


def test_the_new_tokens_play_the_game_and_the_party_reads_as_it_did(
    service: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = played_game(service)
    party = answer(service.get(game.path("party"), headers=game.headers))
    exported = cli("db", "export-game", game.id, "--db", _url(service))
    assert "dbg_" not in exported and "dbp_" not in exported  # never a token
    (tmp_path / "game.json").write_text(exported)
    target = f"sqlite:///{tmp_path / 'target.db'}"
    made = cli_json("db", "import-game", str(tmp_path / "game.json"), "--db", target)
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(target)) as moved:
        there = Game(game.id, made["token"], game.ruleset, game.version, game.characters)
        assert answer(moved.get(there.path("party"), headers=there.headers)) == party
        player = {"Authorization": f"Bearer {made['seats'][MAUD]}"}
        assert answer(moved.get(there.path("party"), headers=player)) == party
        assert moved.get(there.path("party"), headers=game.headers).status_code == 404
        ids = record_ids(moved, there)
        assert ids == sorted(int(v) for v in made["renumbered"].values())
        checked = answer(
            moved.post(
                there.path("checks"),
                json={"text": LOCKPICK, "seed": "7"},
                headers=there.headers,
            )
        )
        assert checked["results"][0]["id"] > max(ids)
        members = {
            m["name"]: m
            for m in answer(moved.get(there.path("party"), headers=there.headers))["characters"]
        }
        assert members[PEET]["records"]["checks"] == 4  # the tallies came along
        assert members[MAUD]["records"]["sheet"] == 6


def test_a_client_that_followed_the_game_elsewhere_is_told_to_reload(
    service: TestClient, tmp_path: Path
) -> None:
    game = played_game(service)
    newest = len(stored_events(_url(service), game.id))
    (tmp_path / "game.json").write_text(cli("db", "export-game", game.id, "--db", _url(service)))
    target = f"sqlite:///{tmp_path / 'target.db'}"
    cli_json("db", "import-game", str(tmp_path / "game.json"), "--db", target)
    assert stored_events(target, game.id) == [(newest + 1, "reload", {"reason": RELOAD_REASON})]
    store = open_store(target)
    try:
        with store.read() as session:
            at_mark = events.catch_up(session, Access.local(), game.id, newest)
            older = events.catch_up(session, Access.local(), game.id, newest - 3)
    finally:
        store.close()
    assert [(e.id, e.kind) for e in at_mark.events] == [(newest + 1, "reload")]
    assert older.reload is not None and "no longer kept" in older.reload


def _exported(service: TestClient, game: Game) -> dict[str, Any]:
    return cli_json("db", "export-game", game.id, "--db", _url(service))


def _import(url: str, file: dict[str, Any]) -> None:
    store = open_store(url)
    try:
        with store.write() as session:
            import_game(session, Access.local(), read_game_file(json.dumps(file)), NOW)
    finally:
        store.close()


def test_a_record_that_does_not_replay_refuses_the_import_and_writes_nothing(
    service: TestClient, tmp_path: Path
) -> None:
    file = _exported(service, played_game(service))
    tampered = file["records"][3]
    assert tampered["kind"] == "check"
    tampered["result"]["outcome"] = "Legendary"
    target = f"sqlite:///{tmp_path / 'target.db'}"
    open_store(target).close()
    before = store_rows(target)
    with pytest.raises(Invalid, match=f"record {tampered['id']} of the game file does not replay"):
        _import(target, file)
    assert store_rows(target) == before


def test_an_import_is_refused_over_a_game_of_the_same_id_or_another_ruleset_file(
    service: TestClient, tmp_path: Path
) -> None:
    file = _exported(service, played_game(service))
    with pytest.raises(Conflict, match="holds a game"):
        _import(_url(service), file)
    target = f"sqlite:///{tmp_path / 'target.db'}"
    _import(target, file)
    other = json.loads(json.dumps(file))
    other["game"]["id"] = "elsewhere"
    other["rulesets"][0]["digest"] = "0" * 64
    with pytest.raises(Conflict, match="other content"):
        _import(target, other)


def test_the_file_matches_its_shipped_schema_and_a_file_that_does_not_is_refused(
    service: TestClient,
) -> None:
    shipped = json.loads((DATA / "game.schema.json").read_text())
    assert shipped == game_file_schema()  # the shipped schema is the models'
    assert json.loads(cli("db", "game-schema")) == shipped
    file = _exported(service, played_game(service, texts=1))
    jsonschema.Draft202012Validator(shipped).validate(file)
    broken = {**file, "version": 2, "records": [{**file["records"][0], "kind": "dice"}]}
    errors = list(jsonschema.Draft202012Validator(shipped).iter_errors(broken))
    assert len(errors) == 2
    with pytest.raises(Invalid, match=r"version: .*records\.0\.kind"):
        read_game_file(json.dumps(broken))
    with pytest.raises(Invalid, match="not JSON"):
        read_game_file("{")
    # a stamp of the right shape that no calendar holds is refused at reading, as the
    # schema's other refusals are, not when the store is written (it once answered 500)
    no_such_time = {
        **file,
        "rulesets": [{**file["rulesets"][0], "created": "0000-00-00T00:00:00.000000Z"}],
    }
    with pytest.raises(
        Invalid, match=r"rulesets\.0\.created: .*0000-00-00T00:00:00\.000000Z is not a time"
    ):
        read_game_file(json.dumps(no_such_time))
    lacking = {**file, "rulesets": []}
    jsonschema.Draft202012Validator(shipped).validate(lacking)  # the schema cannot say...
    with pytest.raises(Invalid, match="lacks the ruleset versions"):  # ...the import does
        _import(_url(service), {**lacking, "game": {**file["game"], "id": "other"}})


@pytest.mark.parametrize(
    ("tamper", "refusal"),
    [
        (lambda f: f["rulesets"][0].update(digest="0" * 64), "does not match its digest"),
        (lambda f: f["rulesets"][0].update(content="{"), "does not load"),
        (
            lambda f: f["rulesets"].append({**f["rulesets"][0], "version": 99}),
            "never played: advanced-resolution version 99",
        ),
        (lambda f: f["game"].update(layers=["no-such-layer"]), "layers do not play"),
        (
            lambda f: f["characters"][0]["live"].update(pools={"luck": "lots"}),
            f"character {PEET} does not load",
        ),
        (lambda f: f["characters"].append(f["characters"][0]), f'character "{PEET}" twice'),
    ],
    ids=["digest", "ruleset", "extra ruleset", "layers", "character", "twice"],
)
def test_a_file_whose_parts_do_not_agree_is_refused_before_anything_is_written(
    service: TestClient, tmp_path: Path, tamper: Any, refusal: str
) -> None:
    file = _exported(service, played_game(service, texts=1))
    tamper(file)
    target = f"sqlite:///{tmp_path / 'target.db'}"
    open_store(target).close()
    before = store_rows(target)
    with pytest.raises(Invalid, match=refusal):
        _import(target, file)
    assert store_rows(target) == before
