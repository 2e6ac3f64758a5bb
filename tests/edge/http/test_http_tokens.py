"""Tokens, start-up and the store's keys (issue 23), through the HTTP API on SQLite and
PostgreSQL and through real ``dicebound serve`` processes:

- a weak admin token (too short, or of too little variety) stops the service at start
  with one sentence, touching nothing;
- three processes starting together on a new PostgreSQL store all start, and none
  logs a traceback, a statement or a ruleset's text;
- a new admin token (a process started with another ``DICEBOUND_ADMIN_TOKEN``) reaches
  a running process within a few seconds, over HTTP and ``/mcp``;
- uploads of one ruleset version at the same moment answer 201 once, then 200 (same
  content) or 409 (other);
- ``GET /games`` with a token that is no one's is 401;
- a game's token is rotated (the old one stops at once, on every process) and a game
  is deleted with everything it holds;
- idempotency keys expire after 24 hours, and expired ones are deleted a bounded
  number per write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from dicebound.app.access import token_hash
from dicebound.edge.files import packaged_rulesets, ruleset_text
from dicebound.edge.http import create_app
from dicebound.errors import UsageError
from dicebound.store import open_store
from http_api_support import (
    STEALTH,
    bearer,
    execute,
    make_game,
    problem_of,
    records,
    store_rows,
    stored_value,
)
from mcp_support import Table, call, connect, run, seat_a_table
from repo_paths import CASES
from service_support import (
    ADMIN_TOKEN,
    JSON,
    ServerProcess,
    admin_headers,
    free_port,
    postgres_database,
    store_url_for,
)

RESERVE = CASES / "ruleset_reserve.json"
NEW_ADMIN_TOKEN = "dba_the-next-admin-token-after-a-leak"
NOBODY = "the token sent is neither the admin token, nor a game's token, nor a player's."
HOLD_SECONDS = 2.0  # how long a process may keep accepting an admin token replaced


def _hours_ago(hours: float) -> str:
    """A time as the store keeps times, ``hours`` ago."""
    when = datetime.now(UTC) - timedelta(hours=hours)
    return when.isoformat(timespec="microseconds").replace("+00:00", "Z")


@contextmanager
def _servers(url: str, tmp_path: Path, *tokens: str) -> Iterator[list[ServerProcess]]:
    """A server process per admin token, started in that order, stopped at the end;
    each log is printed when the test fails."""
    with ExitStack() as stack:
        servers = []
        for token in tokens:
            log = tmp_path / f"server-{len(list(tmp_path.glob('server-*.log'))) + 1}.log"
            server = ServerProcess(url, log=log, admin_token=token)
            stack.callback(server.stop)
            servers.append(server.start())
        try:
            yield servers
        except BaseException:
            for log in sorted(tmp_path.glob("server-*.log")):
                print(f"\n───── {log.name} ─────\n{log.read_text(errors='replace')[-20_000:]}")
            raise


# ── defect 5: a weak admin token ─────────────────────────────────────────────


@pytest.mark.parametrize(
    ("token", "sentence"),
    [
        (
            "a",
            "DICEBOUND_ADMIN_TOKEN is 1 character long, and an admin token needs at least 32 "
            "so that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'.",
        ),
        (
            "x" * 31,
            "DICEBOUND_ADMIN_TOKEN is 31 characters long, and an admin token needs at least 32 "
            "so that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'.",
        ),
        (
            "a" * 32,
            "DICEBOUND_ADMIN_TOKEN is made of 1 different character, and an admin token needs "
            "at least 10 so that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'.",
        ),
        (
            "9f86d081884c7d659a2feaa0c55ad015",
            "DICEBOUND_ADMIN_TOKEN holds about 116 bits by the variety of its characters (its "
            "length times their Shannon entropy), and an admin token needs at least 128 so "
            "that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'.",
        ),
    ],
    ids=["one character", "31 characters", "32 times a", "32 hex digits"],
)
@pytest.mark.empty_store  # "not even migrated" is read off a store with no schema
def test_a_weak_admin_token_stops_the_app_before_the_store_is_touched(
    store_url: str, monkeypatch: pytest.MonkeyPatch, token: str, sentence: str
) -> None:
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", token)
    with pytest.raises(UsageError) as refused, TestClient(create_app(store_url)):
        pass
    assert str(refused.value) == sentence
    store = open_store(store_url, migrate=False)
    try:
        assert store.revision() is None, "the store was not even migrated"
    finally:
        store.close()
    enough = "abcdefghijklmnopqrstuvwxyzABCDEF"  # 32 characters, none twice: 160 bits
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", enough)
    with TestClient(create_app(store_url)) as client:
        assert client.get("/games", headers=bearer(enough)).json() == []


def test_dicebound_serve_refuses_a_weak_admin_token_in_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "never-made.db"
    command = [sys.executable, "-m", "dicebound", "serve", "--db", f"sqlite:///{db}"]
    command += ["--port", str(free_port())]
    env = {**os.environ, "DICEBOUND_ADMIN_TOKEN": "a"}
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("dicebound serve started with the admin token 'a'")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("dicebound: DICEBOUND_ADMIN_TOKEN is 1 character long, ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not db.exists()


# ── defect 2: processes starting together on a new PostgreSQL store ─────────


def test_three_processes_start_together_on_a_new_postgresql_store(tmp_path: Path) -> None:
    """Each copies the packaged rulesets and stores the admin token's hash at once:
    none dies, and no log holds a traceback, a statement or a ruleset's text."""
    with postgres_database() as url, ExitStack() as stack:
        servers = [ServerProcess(url, log=tmp_path / f"server-{i}.log") for i in range(3)]
        for server in servers:
            stack.callback(server.stop)
        gate = threading.Barrier(len(servers))

        def start(server: ServerProcess) -> ServerProcess:
            gate.wait()
            return server.start(timeout=60)

        with ThreadPoolExecutor(len(servers)) as pool:
            started = list(pool.map(start, servers))
        for server in started:
            health = httpx.get(server.base + "/health", timeout=10)
            assert health.json()["store"] == "postgresql"
            listed = httpx.get(server.base + "/rulesets", timeout=10).json()
            assert len(listed) == len(packaged_rulesets())
        logs = [s.log_path.read_text(errors="replace") for s in servers]
    # a ruleset's own words, which only its text holds
    texts = [json.loads(ruleset_text(r)[0])["coverage"]["summary"] for r in packaged_rulesets()]
    for log in logs:
        assert "Traceback" not in log and "Error" not in log, log
        assert "INSERT" not in log, log
        assert not [t for t in texts if t in log], log


# ── defect 3: a new admin token reaches the processes already running ────────


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_new_admin_token_reaches_a_running_process_within_seconds(
    tmp_path: Path, backend: str
) -> None:
    old, new = bearer(ADMIN_TOKEN), bearer(NEW_ADMIN_TOKEN)
    with (
        store_url_for(backend, tmp_path) as url,
        _servers(url, tmp_path, ADMIN_TOKEN) as (running,),
    ):
        table: Table = seat_a_table(running, "dnd5e-srd", "mira")
        assert httpx.get(running.base + "/games", headers=old).status_code == 200
        # the token leaked: a process is started with a new one, which stores its hash
        with _servers(url, tmp_path, NEW_ADMIN_TOKEN) as (later,):
            rotated = time.monotonic()
            assert httpx.get(later.base + "/games", headers=new).status_code == 200
            problem_of(httpx.get(later.base + "/games", headers=old), 401)
        while httpx.get(running.base + "/games", headers=old).status_code == 200:
            assert time.monotonic() - rotated < HOLD_SECONDS + 1, "the old token still works"
            time.sleep(0.05)
        refused = httpx.get(running.base + "/games", headers=old)
        assert problem_of(refused, 401)["detail"] == NOBODY
        making = httpx.post(running.base + "/games", json={"name": "x", "ruleset": "dnd5e-srd"})
        problem_of(making, 401)
        making = httpx.post(
            running.base + "/games", json={"name": "x", "ruleset": "dnd5e-srd"}, headers=old
        )
        problem_of(making, 403)
        assert httpx.get(running.base + f"/games/{table.id}", headers=new).status_code == 200

        async def through_mcp(token: str) -> str | None:
            query = f"?game={table.id}"
            async with connect("http", table, token=token, query=query) as client:
                answer = await call(client, "character", {"name": "Mira Quickfoot"})
                return answer.error

        assert run(lambda: through_mcp(NEW_ADMIN_TOKEN)) is None
        assert run(lambda: through_mcp(ADMIN_TOKEN)) == (
            f'Error executing tool character: no game "{table.id}" is here.'
        )


# ── defect 4: uploads of one ruleset version at the same moment ──────────────


@pytest.mark.parametrize("same", [True, False], ids=["same content", "other content"])
def test_uploads_of_one_version_at_the_same_moment(
    service: TestClient, store_url: str, same: bool
) -> None:
    count = 6
    file = json.loads(RESERVE.read_text())
    bodies = [json.dumps(file if same else {**file, "name": f"Reserve {i}"}) for i in range(count)]
    gate = threading.Barrier(count)

    def upload(body: str) -> int:
        gate.wait()
        return service.post(
            "/rulesets", content=body, headers={**admin_headers(), **JSON}
        ).status_code

    with ThreadPoolExecutor(count) as pool:
        statuses = sorted(pool.map(upload, bodies))
    assert statuses == ([200] * (count - 1) if same else []) + [201] + (
        [] if same else [409] * (count - 1)
    )
    kept = stored_value(store_url, "SELECT content FROM rulesets WHERE id = 'reserve-test'")
    assert kept in bodies


# ── defect 8: a token that is no one's ───────────────────────────────────────


def test_listing_games_with_a_token_that_is_no_ones_is_401(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd")
    assert [g["id"] for g in service.get("/games", headers=game.headers).json()] == [game.id]
    for token in ("dbg_nobody", game.token + "x", ADMIN_TOKEN.upper()):
        refused = service.get("/games", headers=bearer(token))
        assert problem_of(refused, 401)["detail"] == NOBODY
        assert refused.headers["www-authenticate"] == "Bearer"
    # the admin sees every game, even none
    assert service.get("/games", headers=admin_headers()).status_code == 200


# ── a game's token, rotated ──────────────────────────────────────────────────


def test_a_games_token_is_rotated_by_its_own_token_then_by_the_admin(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    rotated = service.post(game.path("token"), headers=game.headers)
    assert rotated.status_code == 200
    (token,) = rotated.json().values()
    assert token.startswith("dbg_") and token != game.token
    stored = stored_value(store_url, "SELECT token_hash FROM games WHERE id = :g", g=game.id)
    assert stored == token_hash(token)
    assert token not in json.dumps(store_rows(store_url))  # only its hash is kept

    # the old token stops at once: as any token that is not this game's
    old = game.headers
    assert problem_of(service.get(game.path(), headers=old), 404)["detail"] == (
        f'no game "{game.id}" is here.'
    )
    problem_of(service.post(game.path("checks"), json={"text": STEALTH}, headers=old), 404)
    problem_of(service.post(game.path("token"), headers=old), 404)
    assert problem_of(service.get("/games", headers=old), 401)["detail"] == NOBODY
    assert service.get(game.path(), headers=bearer(token)).json()["characters"] == [
        "Mira Quickfoot"
    ]
    thrown = service.post(game.path("checks"), json={"text": STEALTH}, headers=bearer(token))
    assert thrown.status_code == 200

    by_admin = service.post(game.path("token"), headers=admin_headers())
    assert by_admin.status_code == 200
    newest = by_admin.json()["token"]
    problem_of(service.get(game.path(), headers=bearer(token)), 404)
    assert service.get(game.path(), headers=bearer(newest)).status_code == 200
    assert len(records(service, replace(game, token=newest))) == 1


def test_rotating_a_games_token_needs_its_token_or_the_admins(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    other = make_game(service, "dnd5e-srd", name="Another game")
    before = store_rows(store_url)
    problem_of(service.post(game.path("token")), 401)
    assert problem_of(service.post(game.path("token"), headers=other.headers), 404)["detail"] == (
        f'no game "{game.id}" is here.'
    )
    problem_of(service.post("/games/0123456789abcdef/token", headers=admin_headers()), 404)
    assert store_rows(store_url) == before
    assert service.get(game.path(), headers=game.headers).status_code == 200


def test_a_rotated_token_stops_at_once_on_every_process(tmp_path: Path) -> None:
    with postgres_database() as url, _servers(url, tmp_path, ADMIN_TOKEN, ADMIN_TOKEN) as (a, b):
        table = seat_a_table(a, "dnd5e-srd", "mira")
        path = f"/games/{table.id}"
        assert httpx.get(b.base + path, headers=bearer(table.token)).status_code == 200
        rotated = httpx.post(a.base + path + "/token", headers=bearer(table.token))
        assert rotated.status_code == 200, rotated.text
        token = rotated.json()["token"]
        # no wait: the other process reads the game's token hash on every request
        problem_of(httpx.get(b.base + path, headers=bearer(table.token)), 404)
        problem_of(httpx.get(b.base + "/games", headers=bearer(table.token)), 401)
        assert httpx.get(b.base + path, headers=bearer(token)).status_code == 200

        async def through_mcp(sent: str) -> str | None:
            async with connect("http", Table(b, table.id, sent, table.characters)) as client:
                return (await call(client, "character", {"name": "Mira Quickfoot"})).error

        assert run(lambda: through_mcp(token)) is None
        assert run(lambda: through_mcp(table.token)) == (
            "Error executing tool character: the token sent is no game's token."
        )


# ── a game, deleted ──────────────────────────────────────────────────────────


def _rows_of(rows: dict[str, list[tuple[Any, ...]]], game: str) -> dict[str, int]:
    """How many rows of each table belong to ``game`` (its id is in the row)."""
    return {table: sum(game in row for row in found) for table, found in rows.items()}


def test_deleting_a_game_deletes_everything_it_holds_and_nothing_else(
    service: TestClient, store_url: str
) -> None:
    doomed = make_game(service, "dnd5e-srd", "mira", "bram", name="Doomed")
    kept = make_game(service, "dnd5e-srd", "mira", name="Kept")
    for game in (doomed, kept):
        keyed = {**game.headers, "Idempotency-Key": "first"}
        thrown = service.post(game.path("checks"), json={"text": STEALTH}, headers=keyed)
        assert thrown.status_code == 200
        seated = service.post(game.character("Mira Quickfoot") + "/seat", headers=game.headers)
        assert seated.status_code == 201
    before = store_rows(store_url)
    assert _rows_of(before, doomed.id) == {
        "meta": 0,
        "rulesets": 0,
        "games": 1,
        "characters": 2,
        "records": 1,
        "idempotency": 1,
        "seats": 1,
        "events": 4,  # two characters put, one record, one seat made
        "sheet_texts": 2,  # each character's sheet
    }

    gone = service.delete(doomed.path(), headers=admin_headers())
    assert gone.status_code == 204 and gone.content == b""
    after = store_rows(store_url)
    assert set(_rows_of(after, doomed.id).values()) == {0}
    assert {t: [r for r in rows if doomed.id not in r] for t, rows in before.items()} == after

    problem_of(service.get(doomed.path(), headers=admin_headers()), 404)
    problem_of(service.get(doomed.path(), headers=doomed.headers), 404)
    assert problem_of(service.get("/games", headers=doomed.headers), 401)["detail"] == NOBODY
    assert [g["id"] for g in service.get("/games", headers=admin_headers()).json()] == [kept.id]
    assert problem_of(service.delete(doomed.path(), headers=admin_headers()), 404)["detail"] == (
        f'no game "{doomed.id}" is here.'
    )
    assert len(records(service, kept)) == 1


def test_only_the_admin_deletes_a_game(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    before = store_rows(store_url)
    assert problem_of(service.delete(game.path()), 401)["detail"] == (
        "only the admin token may delete a game, and no token was sent."
    )
    for token in (game.token, "dbg_nobody"):
        refused = service.delete(game.path(), headers=bearer(token))
        assert problem_of(refused, 403)["detail"] == (
            "only the admin token may delete a game; the token sent is not it."
        )
    assert store_rows(store_url) == before


# ── idempotency keys, kept 24 hours ──────────────────────────────────────────


def test_a_key_older_than_24_hours_is_a_new_request(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    keyed = {**game.headers, "Idempotency-Key": "retry-me"}
    body = {"text": STEALTH, "seed": "7"}
    first = service.post(game.path("checks"), json=body, headers=keyed).json()
    assert service.post(game.path("checks"), json=body, headers=keyed).json() == first

    # 23 hours on, a retry still answers the same
    execute(store_url, "UPDATE idempotency SET created = :t", t=_hours_ago(23.9))
    assert service.post(game.path("checks"), json=body, headers=keyed).json() == first
    assert len(records(service, game)) == 1

    # past 24 hours the key is forgotten: the same body is thrown again, another works
    execute(store_url, "UPDATE idempotency SET created = :t", t=_hours_ago(24.1))
    again = service.post(game.path("checks"), json=body, headers=keyed).json()
    assert [r["id"] for r in again["results"]] != [r["id"] for r in first["results"]]
    assert len(records(service, game)) == 2
    assert service.post(game.path("checks"), json=body, headers=keyed).json() == again
    execute(store_url, "UPDATE idempotency SET created = :t", t=_hours_ago(25))
    other = service.post(game.path("checks"), json={"text": STEALTH}, headers=keyed)
    assert other.status_code == 200
    assert stored_value(store_url, "SELECT count(*) FROM idempotency") == 1


def test_expired_keys_are_deleted_a_bounded_number_per_write(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    other = make_game(service, "dnd5e-srd", "mira", name="Another game")
    rows = [
        {"g": g.id, "k": f"old-{g.id}-{i}", "t": _hours_ago(25 + i / 100)}
        for i in range(75)
        for g in (game, other)
    ]
    rows += [{"g": game.id, "k": f"fresh-{i}", "t": _hours_ago(1)} for i in range(5)]
    engine = create_engine(store_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO idempotency (game_id, key, digest, answer, created)"
                    " VALUES (:g, :k, 'x', '{}', :t)"
                ),
                rows,
            )
    finally:
        engine.dispose()

    def expired() -> int:
        count: int = stored_value(
            store_url, "SELECT count(*) FROM idempotency WHERE created < :t", t=_hours_ago(24)
        )
        return count

    assert expired() == 150
    unkeyed = service.post(game.path("checks"), json={"text": STEALTH}, headers=game.headers)
    assert unkeyed.status_code == 200 and expired() == 150  # only a key written sweeps
    for n, left in ((1, 50), (2, 0), (3, 0)):
        keyed = {**game.headers, "Idempotency-Key": f"new-{n}"}
        assert service.post(game.path("checks"), json={"text": STEALTH}, headers=keyed).is_success
        assert expired() == left  # the oldest 100, any game's, each time
    assert stored_value(store_url, "SELECT count(*) FROM idempotency") == 5 + 3
