"""The SQLite writers of one process take turns first come, first served, before
asking SQLite for its write lock (whose busy wait would let an unlucky writer lose the
race for seconds under load)."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from pathlib import Path

from dicebound.store import open_store
from dicebound.store.db import _Turns


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
    from sqlalchemy import text

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
