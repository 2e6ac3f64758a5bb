"""Checks through the HTTP service against the same server's ``/health``: the server's
CPU per request, its rate, and its latency, with a load that costs less than it.

For each store (SQLite, PostgreSQL) and each side (``--workers 1,2``: ``dicebound
serve --workers N``; ``--before TREE``: the source tree of an earlier dicebound, with
one worker; ``--bare`` runs it without uvloop and httptools, for a tree that predates
them) this starts a real server on a loopback port, makes games on the packaged fifth
edition SRD ruleset, and measures, at each ``--clients`` count (each client a
keep-alive connection of its own):

- ``check``: ``POST /games/{game}/checks`` with one tag, the store writing the record
  (one transaction: the game and characters locked, the record inserted, committed);
- ``health``: ``GET /health``, one ``SELECT 1`` through the same server and store;
- ``mixed`` (past one client): every client sends a check, then ``/health``, in turn,
  so both wait in the same queue: their p99s compare what a check adds to the wait
  every request has, where the separate cells compare two loads of different cost.

The sides are measured cell by cell in turn (interleaved), so a change in the
machine's load falls on all of them. Each cell prints requests per second, p50 and p99
latency in ms, and the CPU per request of the server (its processes' own clock, from
/proc, over the cell) and of the load generator.

The load generator is a process of its own (an asyncio client over raw sockets, with
uvloop where installed: a few tens of microseconds a request), pinned to the machine's
last core; the server is not pinned, but for the sides ``--pin`` adds (``N pinned``:
``dicebound serve --workers N --pin``). Its CPU per request is printed beside the
server's, to show the figures are the server's.

Goals (printed at the foot): at one client, a check at most 1 ms of server CPU and
``/health`` at most 0.5 ms; on PostgreSQL, 2 workers at least 1.6 times one worker's
checks a second at the most clients; at 20 clients, a check's p99 at most 1.2 times
``/health``'s, in the separate cells and in the mixed one.

Run: ``.venv/bin/python bench/http_checks.py --seconds 5 --backends sqlite,postgresql
--workers 1,2 [--before ../main-before/src]``
(PostgreSQL: ``--pg URL`` names a server's maintenance database, default
``DICEBOUND_BENCH_PG`` or ``postgresql+psycopg://postgres@127.0.0.1:5432/test``; a
scratch database is made there for each server and dropped at the end.)
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

RULESET = "dnd5e-srd"
CHARACTER = "mira"
TEXT = 'Mira eases the latch. [skill_check: skill="Stealth" dc="15"]'
DEFAULT_PG = os.environ.get(
    "DICEBOUND_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)

# the earlier dicebound's command line, with uvloop and httptools hidden from it
_BARE = (
    "import sys; sys.modules['uvloop'] = None; sys.modules['httptools'] = None; "
    "from dicebound.edge.cli import main; sys.exit(main(sys.argv[1:]))"
)


# ── a server process ─────────────────────────────────────────────────────────


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``python -m dicebound serve`` on a free loopback port, its log in a file.

    ``workers``: its ``--workers`` (None: the flag is not given, for a dicebound
    without it); ``src``: the source tree to run instead of this one, with uvloop and
    httptools hidden when ``bare``; ``pin``: ``--pin``, each process kept to a core;
    ``rate_limit``: its ``--rate-limit`` (0: none)."""

    def __init__(
        self,
        db_url: str,
        log: Path,
        token: str,
        *,
        workers: int | None = 1,
        src: Path | None = None,
        bare: bool = False,
        pin: bool = False,
        rate_limit: float = 0,
    ) -> None:
        self.port = _free_port()
        self.log = log
        self.db_url = db_url
        # any number of streams for one token: bench/events.py's subscribers share one
        env = {**os.environ, "DICEBOUND_ADMIN_TOKEN": token, "DICEBOUND_STREAMS_PER_TOKEN": "0"}
        if src is not None:
            env["PYTHONPATH"] = str(src)
        # no request-rate limit by default: twenty clients on one game's token measure
        # the service, not the 50 requests a second it allows a token by default
        head = [sys.executable, "-c", _BARE] if bare else [sys.executable, "-m", "dicebound"]
        command = [*head, "serve", "--db", db_url, "--rate-limit", f"{rate_limit:g}"]
        command += ["--port", str(self.port)]
        if workers is not None:
            command += ["--workers", str(workers)]
        if pin:
            command.append("--pin")
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

    def pids(self) -> list[int]:
        """The server's processes: the one started and its workers, if any."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            children = []
        return [pid, *(int(c) for c in children)]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


class Connection:
    """One keep-alive HTTP/1.1 connection (the standard library's), for setting up and
    for the other benches' light loads."""

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


# ── the load generator (a process of its own) ────────────────────────────────


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far, from /proc (NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _backends(db_url: str) -> list[int]:
    """PostgreSQL's backends serving ``db_url``'s database now (none on SQLite)."""
    if not db_url.startswith("postgresql"):
        return []
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    libpq = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [url.database],
        ).fetchall()
    return [int(pid) for (pid,) in rows]


def _request_bytes(method: str, path: str, token: str, body: object = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    data = b"" if body is None else json.dumps(body).encode()
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + data


def answer_head(head: bytes) -> tuple[int, int, bool]:
    """An answer's status line and headers (without the blank line): its status, its
    body's length, and whether the server closes the connection after it."""
    length, closing = 0, False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection" and value.strip().lower() == b"close":
            closing = True
    return int(head[9:12]), length, closing


class _Client(asyncio.Protocol):
    """One keep-alive connection sending its requests in turn, each as soon as the last
    is answered; latencies kept (by label) once the window opens, until it closes. An
    answer that says ``Connection: close`` (a worker over its share of connections)
    is followed by a new connection, whose time counts towards the next request."""

    def __init__(self, run: _Run, requests: list[tuple[str, bytes]]) -> None:
        self.run = run
        self.requests = requests
        self.turn = 0
        self.buffer = b""
        self.sent_at = 0.0
        self.again = False  # the server closes after this answer: connect again
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport's
        self.closed = run.loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        if self.again:  # the request waiting since the last answer goes now
            self.again = False
            transport.write(self.requests[self.turn % len(self.requests)][1])  # type: ignore[attr-defined]
        else:
            self._send()

    def _send(self) -> None:
        self.sent_at = time.perf_counter()
        self.transport.write(self.requests[self.turn % len(self.requests)][1])

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        status, length, closing = answer_head(self.buffer[:end])
        if len(self.buffer) < end + 4 + length:
            return
        self.buffer = self.buffer[end + 4 + length :]
        now = time.perf_counter()
        label = self.requests[self.turn % len(self.requests)][0]
        self.turn += 1
        run = self.run
        if run.opened <= self.sent_at and now <= run.closes:
            run.latencies[label].append(now - self.sent_at)
            run.errors[label] += status >= 300
        if now > run.closes:
            self.transport.close()
            return
        if closing:
            run.reconnects += 1
            self.again = True
            self.sent_at = now
            return  # the server closes; connection_lost connects again
        self._send()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.again and time.perf_counter() <= self.run.closes:
            self.buffer = b""
            self.run.loop.create_task(self.run.connect(self))
        elif not self.closed.done():
            self.closed.set_result(None)


class _Run:
    """The shared state of one cell's clients: the window and what was measured."""

    def __init__(self, loop: asyncio.AbstractEventLoop, labels: set[str], port: int) -> None:
        self.loop = loop
        self.port = port
        self.opened = float("inf")
        self.closes = float("inf")
        self.latencies: dict[str, list[float]] = {label: [] for label in labels}
        self.errors = dict.fromkeys(labels, 0)
        self.reconnects = 0

    async def connect(self, client: _Client) -> None:
        await self.loop.create_connection(lambda: client, "127.0.0.1", self.port)


async def _drive(spec: dict[str, Any]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    clients = [[(label, raw.encode("latin-1")) for label, raw in c] for c in spec["clients"]]
    run = _Run(loop, {label for c in clients for label, _ in c}, spec["port"])
    made = [_Client(run, requests) for requests in clients]
    for client in made:
        await run.connect(client)
    await asyncio.sleep(spec["warmup"])
    pids, db_pids = spec["pids"], _backends(spec["db"])  # the pool's, once warm
    cpu_before = sum(_cpu_seconds(p) for p in pids)
    db_before = sum(_cpu_seconds(p) for p in db_pids)
    own_before = time.process_time()
    run.opened = time.perf_counter()
    run.closes = run.opened + spec["seconds"]
    await asyncio.sleep(spec["seconds"])
    cpu = sum(_cpu_seconds(p) for p in pids) - cpu_before
    db = sum(_cpu_seconds(p) for p in db_pids) - db_before if db_pids else float("nan")
    own = time.process_time() - own_before
    await asyncio.wait_for(asyncio.gather(*(c.closed for c in made)), 60)
    return {
        "latencies": {k: [x * 1000 for x in v] for k, v in run.latencies.items()},
        "errors": run.errors,
        "seconds": spec["seconds"],
        "server_cpu": cpu,
        "db_cpu": db,
        "load_cpu": own,
        "reconnects": run.reconnects,
    }


def drive_main() -> int:
    """``--drive``: read a cell's spec (JSON) on standard input, run it, print JSON."""
    spec = json.loads(sys.stdin.read())
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {spec["core"]})
    try:
        import uvloop
    except ImportError:
        result = asyncio.run(_drive(spec))
    else:
        result = uvloop.run(_drive(spec))
    json.dump(result, sys.stdout)
    return 0


# ── measuring ────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Cell:
    backend: str
    side: str
    clients: int
    target: str  # check, health, mixed:check, mixed:health
    rate: float
    p50: float
    p99: float
    errors: int
    cpu_ms: float  # the server's CPU per request (all of the cell's requests)
    db_ms: float  # PostgreSQL's backends' (NaN on SQLite, whose work is the server's)
    load_ms: float  # the load generator's


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


def measure(
    server: Server, clients: Sequence[Sequence[tuple[str, bytes]]], seconds: float
) -> dict[str, Any]:
    """One cell: the load generator's process drives ``clients`` (each a connection
    sending its labelled requests in turn) for ``seconds`` after a warm-up."""
    spec = {
        "port": server.port,
        "pids": server.pids(),
        "db": server.db_url,
        "seconds": seconds,
        "warmup": 1.0,
        "core": max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0,
        "clients": [[(label, raw.decode("latin-1")) for label, raw in c] for c in clients],
    }
    done = subprocess.run(
        [sys.executable, __file__, "--drive"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=False,
        timeout=seconds + 120,
    )
    if done.returncode != 0:
        raise SystemExit(f"the load generator failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _cells(
    backend: str, side: str, clients: int, target: str, result: dict[str, Any]
) -> list[Cell]:
    latencies: dict[str, list[float]] = result["latencies"]
    total = sum(len(v) for v in latencies.values())
    cpu_ms = result["server_cpu"] * 1000 / max(total, 1)
    db_ms = result["db_cpu"] * 1000 / max(total, 1)
    load_ms = result["load_cpu"] * 1000 / max(total, 1)
    cells = []
    for label, values in sorted(latencies.items()):
        name = label if target != "mixed" else f"mixed:{label}"
        cells.append(
            Cell(
                backend,
                side,
                clients,
                name,
                len(values) / result["seconds"],
                _percentile(values, 0.50),
                _percentile(values, 0.99),
                result["errors"][label],
                cpu_ms,
                db_ms,
                load_ms,
            )
        )
    return cells


@dataclass(frozen=True)
class Side:
    name: str
    workers: int | None
    src: Path | None
    bare: bool = False
    pin: bool = False


def bench_backend(
    backend: str,
    store: Any,
    sides: Sequence[Side],
    counts: Sequence[int],
    seconds: float,
    shared: bool,
    logs: Path,
) -> list[Cell]:
    """Every cell of one store, the sides in turn, each on a store of its own."""
    admin = "bench-" + secrets.token_urlsafe(32)
    cells: list[Cell] = []
    with ExitStack() as stack:
        servers: dict[str, Server] = {}
        games: dict[str, list[tuple[str, str]]] = {}
        for side in sides:
            db_url = stack.enter_context(store())
            log = logs / f"server-{backend}-{side.name.replace(' ', '-')}.log"
            server = Server(
                db_url, log, admin, workers=side.workers, src=side.src, bare=side.bare, pin=side.pin
            )
            stack.callback(server.stop)
            server.wait()
            servers[side.name] = server
            games[side.name] = _setup_games(server.port, admin, 1 if shared else max(counts))
        for clients in counts:
            targets = ("health", "check", "mixed") if clients > 1 else ("health", "check")
            for target in targets:
                for side in sides:
                    requests = []
                    for i in range(clients):
                        game, token = games[side.name][0 if shared else i]
                        check = _request_bytes(
                            "POST", f"/games/{game}/checks", token, {"text": TEXT}
                        )
                        health = _request_bytes("GET", "/health", "")
                        turn = {
                            "health": [("health", health)],
                            "check": [("check", check)],
                            "mixed": [("check", check), ("health", health)],
                        }[target]
                        requests.append(turn)
                    result = measure(servers[side.name], requests, seconds)
                    made = _cells(backend, side.name, clients, target, result)
                    cells += made
                    for c in made:
                        print(
                            f"  {backend:<10} {side.name:<10} {clients:>3} clients  "
                            f"{c.target:<13} {c.rate:8.0f}/s  p99 {c.p99:7.1f} ms  "
                            f"cpu {c.cpu_ms:.3f} ms",
                            file=sys.stderr,
                        )
    return cells


def print_table(cells: Sequence[Cell], load: Sequence[tuple[str, str]]) -> None:
    print()
    print(
        f"{'store':<11}{'side':<11}{'clients':>7}  {'target':<14}{'req/s':>8}{'p50 ms':>8}"
        f"{'p99 ms':>8}{'errors':>7}{'server cpu':>11}{'db cpu':>8}{'load cpu':>9}"
        "  (cpu: ms a request)"
    )
    for c in cells:
        print(
            f"{c.backend:<11}{c.side:<11}{c.clients:>7}  {c.target:<14}{c.rate:>8.0f}"
            f"{c.p50:>8.2f}{c.p99:>8.2f}{c.errors:>7}{c.cpu_ms:>11.3f}{c.db_ms:>8.3f}"
            f"{c.load_ms:>9.3f}"
        )
    print()
    find = {(c.backend, c.side, c.clients, c.target): c for c in cells}
    sides = list(dict.fromkeys((c.backend, c.side) for c in cells))
    most = max(c.clients for c in cells)
    for backend, side in sides:
        one_check = find.get((backend, side, 1, "check"))
        one_health = find.get((backend, side, 1, "health"))
        if one_check and one_health:
            print(
                f"goal {backend} {side}, server CPU at 1 client: check {one_check.cpu_ms:.3f} ms "
                f"(≤ 1: {_yes(one_check.cpu_ms <= 1.0)}), /health {one_health.cpu_ms:.3f} ms "
                f"(≤ 0.5: {_yes(one_health.cpu_ms <= 0.5)})"
            )
        for pair in (("check", "health"), ("mixed:check", "mixed:health")):
            check, health = (find.get((backend, side, most, t)) for t in pair)
            if check and health and most > 1:
                ratio = check.p99 / health.p99
                print(
                    f"goal {backend} {side}, p99 at {most} clients, {pair[0]} / {pair[1]}: "
                    f"{ratio:.2f} (≤ 1.2: {_yes(ratio <= 1.2)})"
                )
    for pair in (("1 worker", "2 workers"), ("1 pinned", "2 pinned")):
        one, two = (find.get(("postgresql", s, most, "check")) for s in pair)
        if not (one and two):
            continue
        ratio = two.rate / one.rate
        print(
            f"goal postgresql checks/s at {most} clients, {pair[1]} / {pair[0]}: {ratio:.2f} "
            f"(≥ 1.6: {_yes(ratio >= 1.6)})"
        )
        # what the CPU per check allows on an idle machine of this many cores: one
        # worker is bound by its one core; two share every core with PostgreSQL and
        # the load generator
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2
        alone = 1000 / one.cpu_ms
        shared = min(2, cores) * 1000 / (two.cpu_ms + two.db_ms + two.load_ms)
        print(
            f"      the CPU per check allows, on {cores} idle cores: 1 worker ≤ {alone:.0f}/s, "
            f"2 workers ≤ {shared:.0f}/s ({shared / alone:.2f}×)"
        )
    for when, average in load:
        print(f"load average {when} the cells: {average}")


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def _load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per cell")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--clients", default="1,20", help="concurrent clients per cell, e.g. 1,20")
    parser.add_argument("--workers", default="1", help="the sides' --workers, e.g. 1,2")
    parser.add_argument(
        "--before", type=Path, default=None, help="an earlier dicebound's source tree (its src)"
    )
    parser.add_argument(
        "--bare", action="store_true", help="run --before without uvloop and httptools"
    )
    parser.add_argument(
        "--pin", action="store_true", help="beside each --workers side, the same with --pin"
    )
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--shared-game", action="store_true", help="every client in one game")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server logs here")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in ("sqlite", "postgresql")]
    if unknown:
        parser.error(f"unknown backend {unknown[0]!r}: sqlite or postgresql")
    counts = [int(c) for c in args.clients.split(",")]
    sides = []
    if args.before is not None:
        sides.append(Side("before", None if args.bare else 1, args.before.resolve(), args.bare))
    for n in (int(w) for w in args.workers.split(",")):
        sides.append(Side(f"{n} worker{'s' if n > 1 else ''}", n, None))
        if args.pin:
            sides.append(Side(f"{n} pinned", n, None, pin=True))

    cells: list[Cell] = []
    load = [("before", _load_average())]
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-logs-") as scratch:
        logs = args.log_dir or Path(scratch)
        logs.mkdir(parents=True, exist_ok=True)
        for backend in backends:

            def store(backend: str = backend) -> Any:
                return sqlite_store() if backend == "sqlite" else postgresql_store(args.pg)

            cells += bench_backend(
                backend, store, sides, counts, args.seconds, args.shared_game, logs
            )
    load.append(("after", _load_average()))
    print_table(cells, load)
    return 0


if __name__ == "__main__":
    sys.exit(drive_main() if sys.argv[1:] == ["--drive"] else main())
