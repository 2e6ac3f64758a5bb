"""Backups of a SQLite store (docs/store-operations.md "Backups"): ``db backup`` copies
the store while a real server answers a burst of checks, and the copy restored holds
every record acknowledged before the backup began, each of which replays;
``db restore`` refuses a store any process has open, and a file that is no store."""

from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dicebound.app.access import Access
from dicebound.app.records import verify_record
from dicebound.store import StoreError, open_store
from dicebound.store.backup import StoreInUse, backup_sqlite, restore_sqlite
from dicebound.store.repo import Repo
from http_api_support import cli
from server_support import client, logs_on_failure, ok, reserve_game, running

PUSH = '[skill_check: skill="Push" difficulty="Steady"]'  # pays nothing: one record
CHECKS_MOST = 600  # per thread: the burst is bounded whatever happens
BURST_SECONDS = 60.0


def _records(url: str, game: str) -> list[int]:
    store = open_store(url)
    try:
        with store.read() as session:
            return [r.id for r in Repo(session).records(game, None, 100_000)]
    finally:
        store.close()


def _verified(url: str, game: str, ids: list[int]) -> int:
    store = open_store(url)
    try:
        with store.read() as session:
            for record_id in ids:
                verified = verify_record(session, Access.local(), game, record_id)
                assert verified.verified, (record_id, verified.differences)
    finally:
        store.close()
    return len(ids)


@pytest.mark.server
@logs_on_failure
def test_a_backup_during_a_burst_of_checks_restores_every_acknowledged_record(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'live.db'}"
    acknowledged: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()
    with running(db, tmp_path) as [server]:
        game, token = reserve_game(server.base)

        def burst() -> None:
            deadline = time.monotonic() + BURST_SECONDS
            with client(server.base, token) as player:
                for _ in range(CHECKS_MOST):
                    if stop.is_set() or time.monotonic() > deadline:
                        return
                    answer = ok(player.post(f"/games/{game}/checks", json={"text": PUSH}))
                    with lock:
                        acknowledged.extend(r["id"] for r in answer["results"])

        with ThreadPoolExecutor(2) as pool:
            running_bursts = [pool.submit(burst) for _ in range(2)]
            while len(acknowledged) < 50 and not all(b.done() for b in running_bursts):
                time.sleep(0.01)
            with lock:
                before = set(acknowledged)
            cli("db", "backup", str(tmp_path / "backup.db"), "--db", db)
            with lock:
                during = set(acknowledged) - before
            time.sleep(0.2)  # the burst goes on after the copy
            stop.set()
            for made in running_bursts:
                made.result(timeout=60)
        with pytest.raises(StoreInUse, match="in use by another process"):
            restore_sqlite(tmp_path / "backup.db", db)  # the server still has it open
    restored = f"sqlite:///{tmp_path / 'restored.db'}"
    cli("db", "restore", str(tmp_path / "backup.db"), "--db", restored)
    kept = set(_records(restored, game))
    assert before <= kept  # every record acknowledged before the backup began
    assert kept <= set(acknowledged)  # and nothing else than what was acknowledged
    assert len(set(acknowledged) - kept) > 0  # the burst went on after the copy
    assert _verified(restored, game, sorted(kept)) == len(kept)
    print(
        f"\nbackup during a burst: {len(before)} acknowledged before it began, "
        f"{len(during)} while it ran, {len(acknowledged)} in all; "
        f"{len(kept)} in the backup restored, each verified"
    )


def test_restore_refuses_a_store_open_elsewhere_and_a_file_that_is_no_store(
    tmp_path: Path,
) -> None:
    live = f"sqlite:///{tmp_path / 'live.db'}"
    open_store(live).close()
    backup_sqlite(live, tmp_path / "copy.db")
    held = sqlite3.connect(tmp_path / "live.db")  # any connection that has it open
    held.execute("SELECT 1 FROM alembic_version").fetchall()
    before = (tmp_path / "live.db").read_bytes()
    try:
        with pytest.raises(StoreInUse):
            restore_sqlite(tmp_path / "copy.db", live)
    finally:
        held.close()
    assert (tmp_path / "live.db").read_bytes() == before
    assert restore_sqlite(tmp_path / "copy.db", live) is not None  # once it is let go
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a dicebound store"):
        restore_sqlite(tmp_path / "junk.db", live)
    with pytest.raises(StoreError, match="pg_dump"):
        backup_sqlite("postgresql+psycopg://nobody@127.0.0.1/none", tmp_path / "x.db")
    newer = sqlite3.connect(tmp_path / "copy.db")
    newer.execute("UPDATE alembic_version SET version_num = '9999'")
    newer.commit()
    newer.close()
    with pytest.raises(StoreError, match="newer dicebound"):
        restore_sqlite(tmp_path / "copy.db", live)
