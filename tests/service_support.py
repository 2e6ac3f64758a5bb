"""Real parts for the service's tests: PostgreSQL databases and uvicorn processes.

- ``DICEBOUND_TEST_PG`` names the PostgreSQL server's maintenance database (default
  ``postgresql+psycopg://postgres@127.0.0.1:5432/test``); each test store gets a
  database of its own there, dropped afterwards. Where no server answers, the tests
  that need one skip and say why, unless ``DICEBOUND_REQUIRE_PG=1`` (set by
  ``.ci/run``): then they fail, because CI must test PostgreSQL.
- ``ServerProcess`` runs ``dicebound serve`` in a real process on a free loopback port.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from server_zygote import ForkedServer, forked_server, zygote_wanted
from store_templates import migrated_postgres_database, migrated_sqlite_store

PG_ADMIN_URL = os.environ.get(
    "DICEBOUND_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
# The service refuses an admin token under 32 characters: this one is long enough.
ADMIN_TOKEN = "dba_test-admin-token-long-enough-to-be-taken"


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def postgres_or_skip() -> None:
    """Skip (or, where PostgreSQL is required, fail) when no server answers."""
    try:
        with psycopg.connect(_libpq(PG_ADMIN_URL), connect_timeout=3):
            return
    except psycopg.Error as exc:
        reason = f"no PostgreSQL at {make_url(PG_ADMIN_URL)!r}: {str(exc).strip()}"
        if os.environ.get("DICEBOUND_REQUIRE_PG") == "1":
            pytest.fail(reason + " (DICEBOUND_REQUIRE_PG=1: CI must test PostgreSQL)")
        pytest.skip(reason)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database for one test; its URL. Dropped afterwards."""
    postgres_or_skip()
    name = f"dicebound_t_{secrets.token_hex(6)}"
    with psycopg.connect(_libpq(PG_ADMIN_URL), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with psycopg.connect(_libpq(PG_ADMIN_URL), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def store_url_for(backend: str, tmp_path: Path, *, migrated: bool = True) -> Iterator[str]:
    """A fresh store's URL: ``sqlite`` (a file in ``tmp_path``) or ``postgresql``, at
    the newest schema with no rows (``store_templates``), or with no schema at all
    (``migrated=False``) for a test of what opening a new store does."""
    if backend == "sqlite":
        path = tmp_path / "dicebound.db"
        yield migrated_sqlite_store(path) if migrated else f"sqlite:///{path}"
    elif migrated:
        postgres_or_skip()
        with migrated_postgres_database(PG_ADMIN_URL) as url:
            yield url
    else:
        with postgres_database() as url:
            yield url


PORT_CLASSES = 8
"""Loopback ports are dealt by ``(port >> 1) % PORT_CLASSES`` (Linux hands ``bind`` odd
ports, so the number itself would deal every one to the same class): the last class is
the TypeScript client's tests' (clients/typescript/harness, run beside these by
.ci/run), the others go round this run's workers (in rounds of eight where there are
more than seven workers)."""


def free_port() -> int:
    """A loopback port free now, of this worker's own: a port is free between its
    release here and the server's bind, and another worker (or the TypeScript client's
    tests) asking then must never be handed the same one, nor find this worker's server
    on it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    mine = int(worker.removeprefix("gw")) % workers
    rounds = -(-workers // (PORT_CLASSES - 1))  # enough classes for every worker
    for _ in range(10_000):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        dealt = (port >> 1) % (PORT_CLASSES * rounds)
        if dealt % PORT_CLASSES != PORT_CLASSES - 1 and _rank(dealt) % workers == mine:
            return port
    raise RuntimeError(f"no free loopback port of worker {worker}'s own was found")


def _rank(dealt: int) -> int:
    """A class's place among the classes the workers share (the last of every eight,
    the TypeScript client's, left out)."""
    return dealt - dealt // PORT_CLASSES


class ServerProcess:
    """``dicebound serve`` in a real process on a free loopback port; ``env`` adds to
    (or overrides) its environment, such as the service's limits, and ``args`` to its
    flags."""

    def __init__(
        self,
        db_url: str,
        *,
        log: Path,
        env: Mapping[str, str] | None = None,
        admin_token: str = ADMIN_TOKEN,
        args: Sequence[str] = (),
    ) -> None:
        self.db_url = db_url
        self.env = dict(env or {})
        self.args = tuple(args)  # more flags of ``dicebound serve``
        self.admin_token = admin_token
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self.process: subprocess.Popen[bytes] | ForkedServer | None = None

    def start(self, timeout: float = 60.0) -> ServerProcess:
        env = {**os.environ, "DICEBOUND_ADMIN_TOKEN": self.admin_token, **self.env}
        command: Sequence[str] = [
            sys.executable,
            "-m",
            "dicebound",
            "serve",
            "--db",
            self.db_url,
            "--port",
            str(self.port),
            *self.args,
        ]
        if zygote_wanted(self.args, env):  # forked from a process with the imports done
            self.process = forked_server(command[3:], env, self.log_path)
        else:
            with self.log_path.open("ab") as log:  # the child keeps its own descriptor
                self.process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"dicebound serve exited with {self.process.returncode}: "
                    + self.log_path.read_text(errors="replace")[-2000:]
                )
            try:
                if httpx.get(self.base + "/health", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"dicebound serve did not answer within {timeout} s")

    def kill(self) -> None:
        """SIGKILL: no chance to finish anything."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def admin_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


JSON = {"Content-Type": "application/json"}
"""The type a raw JSON body is sent with: the routes that read a file refuse any other."""


@contextmanager
def sqlite_server(folder: Path) -> Iterator[ServerProcess]:
    """A real ``dicebound serve`` on a SQLite store in ``folder``, its log beside it."""
    with (
        store_url_for("sqlite", folder) as url,
        ServerProcess(url, log=folder / "server.log") as running,
    ):
        yield running
