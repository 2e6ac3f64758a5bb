"""Start-up and tokens at the level of the service and the store, on SQLite and
PostgreSQL, each process played by a ``Store`` of its own in a thread: the start-up
writes run from several at once, two uploads of one ruleset version race, and the
admin token's hash held by a process is read again once it is a few seconds old."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import NullPool

from dicebound.app import access, rulesets
from dicebound.app.access import Access, token_hash
from dicebound.app.errors import Refusal
from dicebound.edge.files import packaged_rulesets
from dicebound.edge.http.app import prepare_store
from dicebound.edge.http.problems import status_of
from dicebound.errors import UsageError
from dicebound.store import Store, open_store
from http_api_support import stored_value
from repo_paths import CASES
from service_support import ADMIN_TOKEN

RESERVE = (CASES / "ruleset_reserve.json").read_text()
THREADS = 4
NEW_ADMIN_TOKEN = "dba_the-next-admin-token-after-a-leak"


@pytest.fixture
def stores(store_url: str) -> Iterator[list[Store]]:
    """``THREADS`` stores on one new database, as as many processes would hold."""
    opened: list[Store] = []
    try:
        for _ in range(THREADS):
            opened.append(open_store(store_url))
        yield opened
    finally:
        for store in opened:
            store.close()


def _at_once(stores: list[Store], work: Callable[[Store], Any]) -> list[Any]:
    """``work(store)`` in a thread per store, all let go at the same instant."""
    gate = threading.Barrier(len(stores))

    def run(store: Store) -> Any:
        gate.wait()
        return work(store)

    with ThreadPoolExecutor(len(stores)) as pool:
        return list(pool.map(run, stores))


def _count(url: str, sql: str) -> int:
    count: int = stored_value(url, sql)
    return count


# ── defect 2: start-up writes from several processes at once ─────────────────


def test_start_up_writes_from_several_processes_at_once_all_succeed(
    stores: list[Store], store_url: str
) -> None:
    said = [io.StringIO() for _ in stores]
    hashes = _at_once(
        stores,
        lambda s: prepare_store(s, admin_token=ADMIN_TOKEN, say=said[stores.index(s)]),
    )
    assert hashes == [token_hash(ADMIN_TOKEN)] * len(stores)
    assert [out.getvalue() for out in said] == [""] * len(stores)
    assert _count(store_url, "SELECT count(*) FROM rulesets") == len(packaged_rulesets())
    kept = stored_value(store_url, "SELECT value FROM meta WHERE key = 'admin_token_hash'")
    assert kept == token_hash(ADMIN_TOKEN)


def test_without_an_admin_token_processes_starting_together_make_one(
    stores: list[Store], store_url: str
) -> None:
    said = [io.StringIO() for _ in stores]
    hashes = _at_once(
        stores, lambda s: prepare_store(s, admin_token=None, say=said[stores.index(s)])
    )
    kept = stored_value(store_url, "SELECT value FROM meta WHERE key = 'admin_token_hash'")
    assert hashes == [kept] * len(stores)
    printed = [out.getvalue() for out in said if out.getvalue()]
    assert len(printed) == 1, "only the process whose token was kept prints it"
    token = printed[0].split()[-1]
    assert token.startswith("dba_") and token_hash(token) == kept


# ── defect 4: two uploads of one ruleset version at the same moment ──────────


def _upload(store: Store, content: str) -> tuple[dict[str, object], bool] | int:
    try:
        with store.write() as session:
            return rulesets.put_ruleset(session, Access.local(), content)
    except Refusal as exc:
        return status_of(exc)


def _wait_for_a_lock_wait(url: str, backend: str) -> None:
    """PostgreSQL: until a transaction waits on a row lock (the second upload waits on
    the first's uncommitted row). SQLite: the second waits for the write lock."""
    if backend == "sqlite":
        time.sleep(0.3)
        return
    engine = create_engine(url, poolclass=NullPool)
    sql = text(
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with engine.connect() as connection:
                if connection.execute(sql).scalar_one():
                    return
            time.sleep(0.02)
        raise AssertionError("the second upload never waited on the first")
    finally:
        engine.dispose()


@pytest.mark.parametrize("same", [True, False], ids=["same content", "other content"])
def test_an_upload_racing_another_of_its_version_answers_as_if_it_came_after(
    stores: list[Store], store_url: str, same: bool
) -> None:
    """The second upload reads nothing stored, then meets the first's uncommitted row:
    it waits, and answers 200 (same content) or 409 (other), never a failed insert."""
    other = json.dumps({**json.loads(RESERVE), "name": "Reserve, renamed"})
    first, second = stores[:2]
    backend = "sqlite" if first.is_sqlite else "postgresql"
    with ThreadPoolExecutor(1) as pool:
        with first.write() as session:
            made = rulesets.put_ruleset(session, Access.local(), RESERVE)
            session.flush()  # the row is in the table, not yet committed
            racing = pool.submit(_upload, second, RESERVE if same else other)
            _wait_for_a_lock_wait(store_url, backend)
        answer = racing.result(timeout=30)
    assert made == ({"id": "reserve-test", "version": 1}, True)
    assert answer == (({"id": "reserve-test", "version": 1}, False) if same else 409)
    kept = stored_value(store_url, "SELECT content FROM rulesets WHERE id = 'reserve-test'")
    assert kept == RESERVE


@pytest.mark.parametrize("same", [True, False], ids=["same content", "other content"])
def test_uploads_of_one_version_from_several_processes_at_once(
    stores: list[Store], store_url: str, same: bool
) -> None:
    texts = [
        RESERVE if same else json.dumps({**json.loads(RESERVE), "name": f"Reserve {i}"})
        for i in range(len(stores))
    ]
    answers = _at_once(stores, lambda s: _upload(s, texts[stores.index(s)]))
    made = [a for a in answers if isinstance(a, tuple) and a[1]]
    assert len(made) == 1, answers
    others = [a for a in answers if not (isinstance(a, tuple) and a[1])]
    expected: tuple[dict[str, object], bool] | int = (
        ({"id": "reserve-test", "version": 1}, False) if same else 409
    )
    assert others == [expected] * (len(stores) - 1)
    assert _count(store_url, "SELECT count(*) FROM rulesets WHERE id = 'reserve-test'") == 1


# ── defect 3: the admin token's hash, read again every few seconds ───────────


def test_the_admin_hash_is_held_then_read_again_from_the_store(
    stores: list[Store],
) -> None:
    from dicebound.edge.http.deps import AdminHash

    first, later = stores[:2]
    known = prepare_store(first, admin_token=ADMIN_TOKEN, say=io.StringIO())
    held = AdminHash(first, known, seconds=0.5)
    assert held() == token_hash(ADMIN_TOKEN)
    # another process starts with a new token: this one holds the old hash a moment
    prepare_store(later, admin_token=NEW_ADMIN_TOKEN, say=io.StringIO())
    assert held() == token_hash(ADMIN_TOKEN)
    time.sleep(0.6)
    assert held() == token_hash(NEW_ADMIN_TOKEN)
    assert asyncio.run(held.current()) == token_hash(NEW_ADMIN_TOKEN)
    prepare_store(later, admin_token=ADMIN_TOKEN, say=io.StringIO())
    time.sleep(0.6)
    assert asyncio.run(held.current()) == token_hash(ADMIN_TOKEN)


# ── defect 5: a weak admin token ─────────────────────────────────────────────


@pytest.mark.parametrize(
    ("token", "sentence"),
    [
        ("a", "DICEBOUND_ADMIN_TOKEN is 1 character long"),
        ("x" * 31, "DICEBOUND_ADMIN_TOKEN is 31 characters long"),
        ("dba_" + "x" * 24 + " " + "y" * 10, "DICEBOUND_ADMIN_TOKEN must be printable ASCII"),
        ("z" * 32, "DICEBOUND_ADMIN_TOKEN is made of 1 different character"),
    ],
)
def test_a_weak_admin_token_is_refused_before_anything_is_written(
    store_url: str, token: str, sentence: str
) -> None:
    store = open_store(store_url)
    try:
        with pytest.raises(UsageError, match=sentence), store.write() as session:
            access.ensure_admin_token(session, token)
        with store.read() as session:
            assert access.admin_token_hash(session) is None
        enough = "abcdefghijklmnopqrstuvwxyzABCDEF"  # 32 characters, none twice: 160 bits
        with store.write() as session:
            assert access.ensure_admin_token(session, enough) == (token_hash(enough), None)
    finally:
        store.close()


def test_a_store_error_never_carries_the_statements_parameters(store_url: str) -> None:
    """What a client sent, or a whole ruleset's text, must not reach a log through an
    error's message."""
    secret = "a ruleset's whole text, which has no place in a log"
    store = open_store(store_url)
    insert = text("INSERT INTO meta (key, value) VALUES ('twice', :v)")
    try:
        with pytest.raises(IntegrityError) as failed, store.engine.begin() as connection:
            connection.execute(insert, {"v": secret})
            connection.execute(insert, {"v": secret})
    finally:
        store.close()
    assert "INSERT INTO meta" in str(failed.value)
    assert secret not in str(failed.value)
