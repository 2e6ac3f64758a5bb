"""Helpers for the event stream's tests: a subscriber reading ``GET /games/{game}/events``
on a thread of its own (each event with the moment it arrived), and a game's events as
the store keeps them."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool


@dataclass(frozen=True)
class Received:
    """One event as the stream sent it, and when it arrived (``time.monotonic``, and
    ``time.time`` to set beside a time the server wrote)."""

    id: int
    kind: str
    data: Any
    at: float
    wall: float


@dataclass
class Subscriber:
    """One client of a game's event stream, read on a thread of its own until it ends,
    until ``close()``, or after ``stop_after`` events (a client that drops mid-stream).
    ``last_event_id`` is sent as ``Last-Event-ID``; ``after`` as ``?after=``."""

    base: str
    game: str
    token: str
    last_event_id: int | None = None
    after: int | None = None
    stop_after: int | None = None
    events: list[Received] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    status: int | None = None
    body: str = ""
    error: BaseException | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    _opened: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, timeout: float = 10.0) -> Subscriber:
        """Connect, and return once the answer's status is in (the stream has begun:
        every event committed from now on is owed to it)."""
        threading.Thread(target=self._read, daemon=True).start()
        assert self._opened.wait(timeout), "the stream's answer did not begin in time"
        if self.error is not None:
            raise self.error
        return self

    def close(self) -> None:
        """Stop reading at the next line (a keep-alive comes within its interval)."""
        self._stop.set()

    def received(self) -> list[Received]:
        with self._lock:
            return list(self.events)

    def wait_for(
        self, done: Callable[[list[Received]], bool], timeout: float = 10.0
    ) -> list[Received]:
        """The events so far, once ``done`` says they are enough (or fails after
        ``timeout`` seconds, naming what came)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.received()
            if done(got):
                return got
            if self.ended.is_set() and not done(self.received()):
                break
            time.sleep(0.01)
        got = self.received()
        assert done(got), (
            f"the stream sent {[(e.id, e.kind) for e in got]} (ended: {self.ended.is_set()})"
        )
        return got

    def wait_count(self, count: int, timeout: float = 10.0) -> list[Received]:
        return self.wait_for(lambda got: len(got) >= count, timeout)

    def _read(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        params = {"after": str(self.after)} if self.after is not None else {}
        try:
            with (
                httpx.Client(base_url=self.base, headers=headers, timeout=60) as client,
                client.stream("GET", f"/games/{self.game}/events", params=params) as answer,
            ):
                self.status = answer.status_code
                if answer.status_code != 200:
                    self.body = answer.read().decode()
                    return
                self._opened.set()
                self._parse(answer)
        except BaseException as exc:
            self.error = exc
        finally:
            self._opened.set()
            self.ended.set()

    def _parse(self, answer: httpx.Response) -> None:
        lines: dict[str, str] = {}
        for line in answer.iter_lines():
            if self._stop.is_set():
                return
            if line.startswith(":"):
                self.comments.append(line)
            elif line:
                name, _, value = line.partition(":")
                lines[name] = value.removeprefix(" ")
            elif lines:
                data = json.loads(lines["data"])
                event = Received(
                    int(lines["id"]), lines["event"], data, time.monotonic(), time.time()
                )
                lines = {}
                with self._lock:
                    self.events.append(event)
                if self.stop_after is not None and len(self.events) >= self.stop_after:
                    return


def stored_events(url: str, game: str) -> list[tuple[int, str, Any]]:
    """A game's events as the store keeps them: (id, kind, data), oldest first."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT id, kind, payload FROM events WHERE game_id = :g ORDER BY id"),
                {"g": game},
            )
            return [(int(r.id), r.kind, json.loads(r.payload)) for r in rows]
    finally:
        engine.dispose()
