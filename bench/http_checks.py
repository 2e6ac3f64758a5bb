"""Checks per second through the HTTP service, against the same server's ``/health``.

For each store (SQLite, PostgreSQL) this starts a real ``dicebound serve`` process on
a loopback port, makes games on the packaged fifth edition SRD ruleset, and measures
side by side, at 1 and at 20 concurrent clients (threads, each with its own keep-alive
connection):

- ``check``: ``POST /games/{game}/checks`` with one tag, the store writing the record
  (one transaction: the game and characters locked, the record inserted, committed);
- ``health``: ``GET /health``, one ``SELECT 1`` through the same server and store.

Each cell runs ``--seconds`` after a short warm-up and prints requests per second and
p50 / p99 latency in milliseconds. Goal figures: a check at least half the rate of
``/health``; p99 under 50 ms at 20 clients on SQLite.

A check answers only once its commit is on disk, so at one client each check waits
for a disk flush that ``/health`` never does: the table's foot gives this machine's
flush latency (4 KB written and ``fdatasync``-ed), before and after the cells, to
read the one-client ratios by.

By default each client checks in a game of its own (a platform serves many tables);
``--shared-game`` puts every client in one game, where checks queue on the game's lock.

Run: ``.venv/bin/python bench/http_checks.py --seconds 5 --backends sqlite,postgresql``
(PostgreSQL: ``--pg URL`` names a server's maintenance database, default
``DICEBOUND_BENCH_PG`` or ``postgresql+psycopg://postgres@127.0.0.1:5432/test``; a
scratch database is made there and dropped at the end.)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from dicebound.edge.files import packaged_characters

RULESET = "dnd5e-srd"
CHARACTER = "mira"
TEXT = 'Mira eases the latch. [skill_check: skill="Stealth" dc="15"]'
DEFAULT_PG = os.environ.get(
    "DICEBOUND_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


# ── a server process ─────────────────────────────────────────────────────────


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``python -m dicebound serve`` on a free loopback port, its log in a file."""

    def __init__(self, db_url: str, log: Path, token: str) -> None:
        self.port = _free_port()
        self.log = log
        env = {**os.environ, "DICEBOUND_ADMIN_TOKEN": token}
        # no request-rate limit: twenty clients on one game's token measure the
        # service, not the 50 requests a second it allows a token by default
        command = [sys.executable, "-m", "dicebound", "serve", "--db", db_url, "--rate-limit", "0"]
        command += ["--port", str(self.port)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=out)

    def wait(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"dicebound serve exited: {self.log.read_text()[-2000:]}")
            try:
                status, _ = Connection(self.port, "").request("GET", "/health")
                if status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"dicebound serve did not answer within {timeout} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


class Connection:
    """One keep-alive HTTP/1.1 connection (the standard library's: a light client, so
    the two cores go to the server rather than to the load)."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        self.conn.request(method, path, body=data, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.conn.close()


# ── stores ───────────────────────────────────────────────────────────────────


@contextmanager
def sqlite_store() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-") as folder:
        yield f"sqlite:///{Path(folder) / 'bench.db'}"


@contextmanager
def postgresql_store(admin_url: str) -> Iterator[str]:
    import psycopg
    from sqlalchemy.engine import make_url

    libpq = make_url(admin_url).set(drivername="postgresql").render_as_string(False)
    name = f"dicebound_bench_{secrets.token_hex(4)}"
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ── measuring ────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Cell:
    backend: str
    clients: int
    target: str
    rate: float
    p50: float
    p99: float
    errors: int
    cpu_ms: float  # the server process's CPU time per request (Linux), else NaN


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far, from /proc (NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Call = Callable[[Connection], int]


def _measure(
    port: int, pid: int, calls: Sequence[tuple[str, Call]], seconds: float
) -> tuple[float, list[float], int, float]:
    """Run each client's call in a loop for ``seconds`` (after a short warm-up);
    (requests per second, latencies in ms, non-2xx answers, server CPU ms a request)."""
    clients = len(calls)
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    start = threading.Barrier(clients + 1)
    begin_at: list[float] = [0.0]
    stop = threading.Event()

    def run(i: int) -> None:
        token, call = calls[i]
        conn = Connection(port, token)
        try:
            for _ in range(5):  # warm-up: the connection open, the caches filled
                call(conn)
            start.wait()
            while not stop.is_set():
                t0 = time.perf_counter()
                status = call(conn)
                t1 = time.perf_counter()
                if t0 >= begin_at[0]:
                    latencies[i].append((t1 - t0) * 1000)
                    if status >= 300:
                        errors[i] += 1
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    begin_at[0] = time.perf_counter()
    cpu_before = _cpu_seconds(pid)
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - begin_at[0]
    cpu = _cpu_seconds(pid) - cpu_before
    for thread in threads:
        thread.join()
    flat = [x for per in latencies for x in per]
    return len(flat) / elapsed, flat, sum(errors), cpu * 1000 / max(len(flat), 1)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def _setup_games(port: int, admin: str, count: int) -> list[tuple[str, str]]:
    """``count`` games on the SRD ruleset, each with Mira; (game id, token) each."""
    folder = resources.files("dicebound.data") / "characters" / RULESET
    mira = json.loads((folder / f"{CHARACTER}.json").read_text(encoding="utf-8"))
    conn = Connection(port, admin)
    games = []
    for i in range(count):
        status, body = conn.request("POST", "/games", {"name": f"bench {i}", "ruleset": RULESET})
        assert status == 201, body
        made = json.loads(body)
        player = Connection(port, made["token"])
        name = quote(mira["name"], safe="")
        status, body = player.request("PUT", f"/games/{made['id']}/characters/{name}", mira)
        assert status == 201, body
        player.close()
        games.append((made["id"], made["token"]))
    conn.close()
    return games


def bench_backend(
    backend: str, db_url: str, counts: Sequence[int], seconds: float, shared: bool, log: Path
) -> list[Cell]:
    admin = "bench-" + secrets.token_hex(16)
    server = Server(db_url, log, admin)
    cells: list[Cell] = []
    try:
        server.wait()
        games = _setup_games(server.port, admin, 1 if shared else max(counts))

        def health(conn: Connection) -> int:
            return conn.request("GET", "/health")[0]

        def check_in(game: str) -> Call:
            def check(conn: Connection) -> int:
                return conn.request("POST", f"/games/{game}/checks", {"text": TEXT})[0]

            return check

        for clients in counts:
            for target in ("health", "check"):
                calls: list[tuple[str, Call]] = []
                for i in range(clients):
                    game, token = games[0 if shared else i]
                    calls.append((token, health if target == "health" else check_in(game)))
                rate, latencies, errors, cpu_ms = _measure(
                    server.port, server.process.pid, calls, seconds
                )
                cells.append(
                    Cell(
                        backend,
                        clients,
                        target,
                        rate,
                        _percentile(latencies, 0.50),
                        _percentile(latencies, 0.99),
                        errors,
                        cpu_ms,
                    )
                )
                print(
                    f"  {backend:<10} {clients:>3} clients  {target:<6} {rate:8.0f}/s",
                    file=sys.stderr,
                )
    finally:
        server.stop()
    return cells


def disk_flush_ms(folder: Path, times: int = 40) -> tuple[float, float]:
    """p50 and p90 milliseconds of one 4 KB write flushed to disk in ``folder``."""
    path = folder / "flush.probe"
    took = []
    flush = getattr(os, "fdatasync", os.fsync)  # fdatasync is not on every system
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for i in range(times):
            os.pwrite(fd, b"x" * 4096, (i % 8) * 4096)
            t0 = time.perf_counter()
            flush(fd)
            took.append((time.perf_counter() - t0) * 1000)
    finally:
        os.close(fd)
        path.unlink()
    took.sort()
    return took[len(took) // 2], took[len(took) * 9 // 10]


def print_table(cells: Sequence[Cell], flushes: Sequence[tuple[str, float, float]] = ()) -> None:
    print()
    print(
        f"{'store':<11}{'clients':>8}  {'target':<8}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'errors':>8}{'cpu ms/req':>12}{'check/health':>14}"
    )
    health = {(c.backend, c.clients): c.rate for c in cells if c.target == "health"}
    for c in cells:
        ratio = f"{c.rate / health[(c.backend, c.clients)]:.2f}" if c.target == "check" else ""
        print(
            f"{c.backend:<11}{c.clients:>8}  {c.target:<8}{c.rate:>9.0f}{c.p50:>9.1f}"
            f"{c.p99:>9.1f}{c.errors:>8}{c.cpu_ms:>12.2f}{ratio:>14}"
        )
    print()
    for c in cells:
        if c.target != "check":
            continue
        half = c.rate >= health[(c.backend, c.clients)] / 2
        goal = f"check ≥ half of /health: {'yes' if half else 'NO'}"
        if c.backend == "sqlite" and c.clients == 20:
            goal += f"; p99 < 50 ms: {'yes' if c.p99 < 50 else 'NO'}"
        print(f"goal {c.backend} at {c.clients} clients: {goal}")
    for when, p50, p90 in flushes:
        print(f"disk flush {when} the cells: p50 {p50:.2f} ms, p90 {p90:.2f} ms")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per cell")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--clients", default="1,20", help="concurrent clients per cell, e.g. 1,20")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--shared-game", action="store_true", help="every client in one game")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server logs here")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in ("sqlite", "postgresql")]
    if unknown:
        parser.error(f"unknown backend {unknown[0]!r}: sqlite or postgresql")
    counts = [int(c) for c in args.clients.split(",")]
    assert CHARACTER in packaged_characters(RULESET)

    cells: list[Cell] = []
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-logs-") as scratch:
        logs = args.log_dir or Path(scratch)
        logs.mkdir(parents=True, exist_ok=True)
        flushes = [("before", *disk_flush_ms(Path(scratch)))]
        for backend in backends:
            store = sqlite_store() if backend == "sqlite" else postgresql_store(args.pg)
            with store as db_url:
                log = logs / f"server-{backend}.log"
                cells += bench_backend(backend, db_url, counts, args.seconds, args.shared_game, log)
        flushes.append(("after", *disk_flush_ms(Path(scratch))))
    print_table(cells, flushes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
