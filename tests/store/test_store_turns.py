"""The SQLite writers of one process take turns first come, first served, before
asking SQLite for its write lock (whose busy wait would let an unlucky writer lose the
race for seconds under load); writers queued behind each other share one commit, each
whole or not at all, and none answers before that commit."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import event, text

from dicebound.store import open_store
from dicebound.store.db import _Turns
from dicebound.store.models import MetaRow


def _wait_until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.001)
    raise AssertionError("timed out")


def _queued(turns: _Turns, count: int) -> bool:
    return len(turns._waiting) == count


def test_waiters_are_handed_the_turn_in_order_of_arrival() -> None:
    turns = _Turns()
    assert turns.acquire(timeout=1)
    order: list[int] = []
    threads = []

    def writer(i: int) -> None:
        assert turns.acquire(timeout=10)
        order.append(i)
        turns.release()

    for i in range(8):
        thread = threading.Thread(target=writer, args=(i,))
        thread.start()
        threads.append(thread)
        _wait_until(functools.partial(_queued, turns, i + 1))  # queued in this order
    turns.release()
    for thread in threads:
        thread.join(10)
    assert order == list(range(8))
    assert turns.acquire(timeout=0.01)  # free again


def test_a_waiter_whose_turn_does_not_come_leaves_the_queue() -> None:
    turns = _Turns()
    assert turns.acquire(timeout=1)
    assert turns.acquire(timeout=0.05) is False
    assert not turns._waiting
    turns.release()
    assert turns.acquire(timeout=0.05)


def test_sqlite_writes_from_many_threads_all_commit(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'turns.db'}")
    try:
        with store.write() as session:
            session.execute(text("CREATE TABLE tally (n INTEGER)"))
            session.execute(text("INSERT INTO tally VALUES (0)"))

        def bump() -> None:
            for _ in range(20):
                with store.write() as session:
                    n = session.execute(text("SELECT n FROM tally")).scalar_one()
                    session.execute(text("UPDATE tally SET n = :n"), {"n": n + 1})

        threads = [threading.Thread(target=bump) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        with store.read() as session:
            assert session.execute(text("SELECT n FROM tally")).scalar_one() == 200
    finally:
        store.close()


# ── one commit for the writers queued behind each other ─────────────────────


class _Queue:
    """A store whose first writer holds the turn until let go, so that the writers
    started meanwhile queue behind it (and then share its transaction)."""

    def __init__(self, tmp_path: Path, ddl: tuple[str, ...]) -> None:
        self.store = open_store(f"sqlite:///{tmp_path / 'batch.db'}")
        with self.store.write() as session:
            for statement in ddl:
                session.execute(text(statement))
        self.commits = 0
        event.listen(self.store.engine, "commit", self._counted)
        self.let_go = threading.Event()
        self.outcomes: dict[str, str] = {}
        self.threads: list[threading.Thread] = []

    def _counted(self, _connection: object) -> None:
        self.commits += 1

    def writer(
        self,
        name: str,
        sql: str,
        *,
        hold: bool = False,
        fail: bool = False,
        clash: bool = False,
    ) -> None:
        """A writer running ``sql``; then, with ``fail``, raising, or, with ``clash``,
        adding a row whose key is taken (the session's flush fails at the end)."""

        def run() -> None:
            try:
                with self.store.write() as session:
                    session.execute(text(sql))
                    if hold:
                        self.let_go.wait(10)
                    if fail:
                        raise RuntimeError(name)
                    if clash:
                        session.add(MetaRow(key="admin_token_hash", value="taken"))
                self.outcomes[name] = "committed"
            except Exception as exc:
                self.outcomes[name] = type(exc).__name__

        thread = threading.Thread(target=run)
        queued = len(self.threads) - 1  # the first holds the turn; the rest queue
        thread.start()
        self.threads.append(thread)
        turns = self.store._turns
        assert turns is not None
        if hold:
            _wait_until(lambda: turns._busy)
        else:
            _wait_until(functools.partial(_queued, turns, queued + 1))

    def finish(self) -> list[tuple[object, ...]]:
        """Let the first writer go, wait for every writer; the rows of ``t``."""
        self.let_go.set()
        for thread in self.threads:
            thread.join(30)
        return self.rows()

    def rows(self) -> list[tuple[object, ...]]:
        with self.store.read() as session:
            return [tuple(r) for r in session.execute(text("SELECT n FROM t ORDER BY n"))]


def test_writers_queued_behind_each_other_share_one_commit(tmp_path: Path) -> None:
    queue = _Queue(tmp_path, ("CREATE TABLE t (n INTEGER)",))
    queue.writer("first", "INSERT INTO t VALUES (0)", hold=True)
    for n in range(1, 6):
        queue.writer(f"w{n}", f"INSERT INTO t VALUES ({n})")
    assert queue.finish() == [(n,) for n in range(6)]
    assert queue.commits == 1
    assert set(queue.outcomes.values()) == {"committed"}
    queue.store.close()


def test_a_writer_that_fails_in_a_shared_commit_leaves_nothing_and_the_others_all(
    tmp_path: Path,
) -> None:
    ddl = ("CREATE TABLE t (n INTEGER)", "INSERT INTO meta VALUES ('admin_token_hash', 'kept')")
    queue = _Queue(tmp_path, ddl)
    queue.writer("first", "INSERT INTO t VALUES (0)", hold=True)
    queue.writer("fails", "INSERT INTO t VALUES (1)", fail=True)
    queue.writer("second", "INSERT INTO t VALUES (2)")
    queue.writer("clashes", "INSERT INTO t VALUES (3)", clash=True)
    queue.writer("last", "INSERT INTO t VALUES (4)")
    assert queue.finish() == [(0,), (2,), (4,)]
    assert queue.outcomes == {
        "first": "committed",
        "fails": "RuntimeError",
        "second": "committed",
        "clashes": "IntegrityError",
        "last": "committed",
    }
    assert queue.commits == 1
    queue.store.close()


def test_a_shared_commit_that_fails_fails_every_writer_in_it_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    # a deferred foreign key is checked at COMMIT: the writer breaking it spoils the
    # commit, and no writer of that commit may answer that it committed
    ddl = (
        "CREATE TABLE parent (id INTEGER PRIMARY KEY)",
        "CREATE TABLE t (n INTEGER, parent INTEGER"
        " REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
    )
    queue = _Queue(tmp_path, ddl)
    queue.writer("first", "INSERT INTO t VALUES (0, NULL)", hold=True)
    queue.writer("breaks", "INSERT INTO t VALUES (1, 99)")
    queue.writer("last", "INSERT INTO t VALUES (2, NULL)")
    assert queue.finish() == []
    assert queue.outcomes == dict.fromkeys(("first", "breaks", "last"), "IntegrityError")
    # the store's connections are clean again: reads and the next writer start afresh
    for _ in range(8):
        assert queue.rows() == []
    with queue.store.write() as session:
        session.execute(text("INSERT INTO t VALUES (3, NULL)"))
    assert queue.rows() == [(3,)]
    queue.store.close()
