"""The game's events: fan-out latency from a check's commit to its delivery on every
subscriber's stream, and what 200 subscribers cost a check.

For each topology (one ``dicebound serve`` on SQLite; one on PostgreSQL; two on one
PostgreSQL database, where an event reaches the other process through LISTEN/NOTIFY) this
starts real service processes on loopback ports, makes one game on the packaged fifth
edition SRD ruleset with Mira in it, and opens 1, 50 and 200 subscribers on
``GET /games/{game}/events`` (spread over the processes; the subscribers run in a
process of their own, one asyncio loop on raw sockets, so their reading does not slow
the writer). Then:

- **Fan-out** (paced): one writer makes ``--events`` checks, one every ``--gap`` ms
  (alternating between the processes), each ``POST /games/{game}/checks`` with one tag.
  For every check and every subscriber, the time its ``record`` event arrived is taken
  against two clocks that bracket the commit: the record's ``created`` (the service's
  clock, read in the transaction just before its writes and its commit: an upper bound
  of commit→delivery) and the moment the writer had its answer (just after the commit:
  negative when the event beat the writer's own answer). p50 and p99 of each, over all
  deliveries; with two processes, also p99 of the deliveries made by the process that
  did not write. Every subscriber must get every check once, in order: ``missed``
  counts the deliveries that did not come, ``disorder`` those out of order or twice.
  The writer's check latency at that pace is beside it.
- **A check's cost**: one writer makes checks back to back for ``--seconds`` with no
  subscriber and with the most (200): checks per second and p50/p99 latency. Goal: with
  200 subscribers within 20% of none (in the rate and at the pace's p50).

Traffic goes to 127.0.0.1 only. Run: ``.venv/bin/python bench/events.py [--events 100]
[--gap 50] [--seconds 5] [--subscribers 1,50,200] [--backends sqlite,postgresql]``
(``--pg URL`` as in ``http_checks.py``: a scratch database is made there and dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import secrets
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection as Pipe
from pathlib import Path

from http_checks import (
    DEFAULT_PG,
    TEXT,
    Connection,
    Server,
    _cpu_seconds,
    _percentile,
    _setup_games,
    postgresql_store,
    sqlite_store,
)

nan = float("nan")
READY_WITHIN = 60.0  # s for every subscriber's stream to open
DRAIN_WITHIN = 15.0  # s after the last check for every subscriber to have it
RECORD_ID = re.compile(rb'"id":\s*(\d+)')

# ── the subscribers (a process of their own) ────────────────────────────────

Seen = list[tuple[int, int, float]]  # (event id, record id, wall-clock second it arrived)


async def _follow(port: int, path: str, token: str, opened: asyncio.Queue[str], seen: Seen) -> None:
    """One subscriber: the stream read off a raw socket (chunked or not), each ``record``
    event's ids kept with the time its last byte arrived."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    )
    writer.write(head.encode())
    await writer.drain()
    status = await reader.readline()
    headers = b""
    while (line := await reader.readline()) not in (b"\r\n", b""):
        headers += line.lower()
    if b" 200 " not in status:
        await opened.put(f"{status.decode().strip()}: {(await reader.read(2000)).decode()}")
        return
    await opened.put("")
    chunked = b"transfer-encoding: chunked" in headers
    buffer = b""
    try:
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    return
                data = await reader.readexactly(size + 2)
                data = data[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
            now = time.time()
            buffer = (buffer + data).replace(b"\r\n", b"\n")
            *blocks, buffer = buffer.split(b"\n\n")
            for block in blocks:
                _keep(block, now, seen)
    finally:
        writer.close()


def _keep(block: bytes, now: float, seen: Seen) -> None:
    fields = dict(
        line.split(b":", 1) for line in block.split(b"\n") if b":" in line and line[:1] != b":"
    )
    if fields.get(b"event", b"").strip() != b"record":
        return
    found = RECORD_ID.search(fields.get(b"data", b""))
    if found:
        seen.append((int(fields[b"id"]), int(found.group(1)), now))


async def _subscribers(ports: Sequence[int], game: str, token: str, count: int, pipe: Pipe) -> None:
    path = f"/games/{game}/events"
    opened: asyncio.Queue[str] = asyncio.Queue()
    seen: list[Seen] = [[] for _ in range(count)]
    tasks = [
        asyncio.create_task(_follow(ports[i % len(ports)], path, token, opened, seen[i]))
        for i in range(count)
    ]
    refusals = [await asyncio.wait_for(opened.get(), READY_WITHIN) for _ in range(count)]
    pipe.send([r for r in refusals if r])
    last = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    deadline = time.monotonic() + DRAIN_WITHIN
    while time.monotonic() < deadline and not all(s and s[-1][1] >= last for s in seen):
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    pipe.send(seen)


def _subscribe(ports: Sequence[int], game: str, token: str, count: int, pipe: Pipe) -> None:
    asyncio.run(_subscribers(ports, game, token, count, pipe))


class Subscribers:
    """``count`` subscribers in a child process: opened on entering, their deliveries
    read by ``collect`` once the writer names the last record."""

    def __init__(self, ports: Sequence[int], game: str, token: str, count: int) -> None:
        self.pipe, theirs = multiprocessing.get_context("fork").Pipe()
        self.process = multiprocessing.get_context("fork").Process(
            target=_subscribe, args=(ports, game, token, count, theirs), daemon=True
        )
        self.process.start()
        if not self.pipe.poll(READY_WITHIN + 5):
            raise SystemExit(f"{count} subscribers did not open within {READY_WITHIN} s")
        refused = self.pipe.recv()
        if refused:
            raise SystemExit(f"{len(refused)} subscribers refused: {refused[0]}")

    def collect(self, last: int) -> list[Seen]:
        self.pipe.send(last)
        if not self.pipe.poll(DRAIN_WITHIN + 30):
            raise SystemExit("the subscribers did not report")
        seen: list[Seen] = self.pipe.recv()
        self.process.join(10)
        return seen

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
            self.process.join(10)


# ── the writer ───────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Check:
    record: int
    writer: int  # the index of the process it was sent to
    sent: float  # wall-clock seconds
    answered: float
    ms: float


def _check(conn: Connection, game: str, writer: int) -> Check:
    sent, t0 = time.time(), time.perf_counter()
    status, body = conn.request("POST", f"/games/{game}/checks", {"text": TEXT})
    ms = (time.perf_counter() - t0) * 1000
    if status != 200:
        raise SystemExit(f"a check answered {status}: {body[:500]!r}")
    return Check(json.loads(body)["results"][0]["id"], writer, sent, time.time(), ms)


def _fresh(conns: Sequence[Connection]) -> None:
    """Each connection opened again at its next request: one left idle longer than the
    server's keep-alive (5 s) was closed at its end."""
    for conn in conns:
        conn.close()


def paced(conns: Sequence[Connection], game: str, events: int, gap: float) -> list[Check]:
    """``events`` checks, one every ``gap`` seconds, through each process in turn."""
    _fresh(conns)
    made = []
    start = time.perf_counter()
    for i in range(events):
        wait = start + i * gap - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        made.append(_check(conns[i % len(conns)], game, i % len(conns)))
    return made


def flat_out(conn: Connection, game: str, seconds: float) -> list[Check]:
    """Checks back to back through one process for ``seconds``."""
    _fresh([conn])
    made = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        made.append(_check(conn, game, 0))
    return made


def created(conn: Connection, game: str, since: int) -> dict[int, float]:
    """Each record's ``created`` after record ``since``, as wall-clock seconds."""
    found: dict[int, float] = {}
    before = ""
    while True:
        status, body = conn.request("GET", f"/games/{game}/records?limit=100{before}")
        assert status == 200, body
        page = json.loads(body)
        for record in page["records"]:
            found[record["id"]] = datetime.fromisoformat(record["created"]).timestamp()
        if page["next"] is None or page["records"][-1]["id"] <= since:
            return found
        before = f"&before={page['next']}"


# ── a cell ───────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class FanOut:
    topology: str
    subscribers: int
    from_write: tuple[float, float]  # p50, p99 ms
    from_answer: tuple[float, float]
    other_p99: float  # p99 ms of the deliveries by the process that did not write
    missed: int
    disorder: int
    check: tuple[float, float]  # the writer's p50, p99 ms at that pace


@dataclass(frozen=True)
class Cost:
    topology: str
    subscribers: int
    rate: float
    p50: float
    p99: float
    missed: int
    server_cpu: float  # CPU ms the service processes spent a check (Linux; else NaN)
    client_cpu: float  # CPU ms the subscribers' process spent a check


def _fan_out(
    topology: str, processes: int, checks: list[Check], seen: list[Seen], stamps: dict[int, float]
) -> FanOut:
    """The paced checks' deliveries; subscriber ``i`` follows process ``i % processes``."""
    by_record = {c.record: c for c in checks}
    from_write, from_answer, other = [], [], []
    missed = disorder = 0
    for i, deliveries in enumerate(seen):
        got: dict[int, float] = {}
        last_event = 0
        for event, record, at in deliveries:
            disorder += event <= last_event or record in got
            last_event = event
            got.setdefault(record, at)
        missed += sum(1 for r in by_record if r not in got)
        for record, check in by_record.items():
            if record not in got:
                continue
            from_write.append((got[record] - stamps[record]) * 1000)
            from_answer.append((got[record] - check.answered) * 1000)
            if processes > 1 and check.writer != i % processes:
                other.append(from_write[-1])
    ms = [c.ms for c in checks]
    return FanOut(
        topology,
        len(seen),
        (_percentile(from_write, 0.5), _percentile(from_write, 0.99)),
        (_percentile(from_answer, 0.5), _percentile(from_answer, 0.99)),
        _percentile(other, 0.99),
        missed,
        disorder,
        (_percentile(ms, 0.5), _percentile(ms, 0.99)),
    )


def _cpu_of(pids: Sequence[int | None]) -> float:
    """CPU seconds so far of the processes named (None: none)."""
    return sum(_cpu_seconds(pid) for pid in pids if pid)


def bench_topology(
    topology: str, db_url: str, processes: int, args: argparse.Namespace, logs: Path
) -> tuple[list[FanOut], list[Cost]]:
    """Every cell of one topology: paced with no subscriber and each count, and flat out
    with none and the most."""
    admin = "bench-" + secrets.token_hex(16)
    fan_outs: list[FanOut] = []
    costs: list[Cost] = []
    with ExitStack() as stack:
        servers = []
        for i in range(processes):  # one at a time: the first migrates the store
            server = Server(db_url, logs / f"server-{topology.replace(' ', '-')}-{i}.log", admin)
            stack.callback(server.stop)
            server.wait()
            servers.append(server)
        ports = [s.port for s in servers]
        [(game, token)] = _setup_games(ports[0], admin, 1)
        conns = [Connection(port, token) for port in ports]
        for conn in conns:
            stack.callback(conn.close)
        paced(conns, game, 10, 0)  # warm-up
        most = max(args.subscribers)
        for count in [0, *args.subscribers]:
            subscribers = Subscribers(ports, game, token, count) if count else None
            try:
                checks = paced(conns, game, args.events, args.gap / 1000)
                rush: list[Check] = []
                if count in (0, most):
                    groups: tuple[list[int | None], ...] = (
                        [s.process.pid for s in servers],
                        [subscribers.process.pid if subscribers else None],
                    )
                    before = [_cpu_of(group) for group in groups]
                    rush = flat_out(conns[0], game, args.seconds)
                    cpu = [
                        (_cpu_of(group) - then) * 1000 / len(rush)
                        for group, then in zip(groups, before, strict=True)
                    ]
                seen = subscribers.collect((rush or checks)[-1].record) if subscribers else []
            finally:
                if subscribers:
                    subscribers.close()
            stamps = created(conns[0], game, checks[0].record - 1)
            fan_outs.append(_fan_out(topology, processes, checks, seen, stamps))
            if rush:
                got = [{record for _, record, _ in deliveries} for deliveries in seen]
                missed = sum(1 for s in got for c in rush if c.record not in s)
                ms = [c.ms for c in rush]
                rate = len(rush) / (sum(ms) / 1000)
                p50, p99 = _percentile(ms, 0.5), _percentile(ms, 0.99)
                costs.append(Cost(topology, count, rate, p50, p99, missed, *cpu))
            print(f"  {topology}: {count} subscribers done", file=sys.stderr)
    return fan_outs, costs


def print_tables(
    fan_outs: Sequence[FanOut], costs: Sequence[Cost], args: argparse.Namespace
) -> None:
    print()
    print(f"Fan-out: {args.events} checks, one every {args.gap:g} ms (ms; '-' where none)")
    print(
        f"{'topology':<16}{'subs':>5}{'write→ p50':>12}{'p99':>8}{'answer→ p50':>13}{'p99':>8}"
        f"{'other p99':>11}{'missed':>8}{'disorder':>10}{'check p50':>11}{'p99':>8}"
    )

    def ms(x: float, width: int) -> str:
        return f"{'-' if x != x else f'{x:.1f}':>{width}}"

    for f in fan_outs:
        print(
            f"{f.topology:<16}{f.subscribers:>5}{ms(f.from_write[0], 12)}{ms(f.from_write[1], 8)}"
            f"{ms(f.from_answer[0], 13)}{ms(f.from_answer[1], 8)}{ms(f.other_p99, 11)}"
            f"{f.missed:>8}{f.disorder:>10}{ms(f.check[0], 11)}{ms(f.check[1], 8)}"
        )
    print()
    print(f"A check's cost: one writer, checks back to back for {args.seconds:g} s")
    print(
        f"{'topology':<16}{'subs':>5}{'checks/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'missed':>8}"
        f"{'service cpu ms/check':>22}{'subscribers cpu':>17}"
    )
    for c in costs:
        print(
            f"{c.topology:<16}{c.subscribers:>5}{c.rate:>10.0f}{c.p50:>9.1f}{c.p99:>9.1f}"
            f"{c.missed:>8}{c.server_cpu:>22.1f}"
            f"{f'{c.client_cpu:.1f}' if c.subscribers else '-':>17}"
        )
    print(f"({os.cpu_count()} CPUs: the service and the subscribers' process share them)")
    print()
    for topology in dict.fromkeys(c.topology for c in costs):
        none, most = [c for c in costs if c.topology == topology]
        paced_none, paced_most = (
            f.check[0]
            for f in fan_outs
            if f.topology == topology and f.subscribers in (0, most.subscribers)
        )
        rate = most.rate / none.rate
        slower = paced_most / paced_none
        print(
            f"goal {topology}, {most.subscribers} subscribers beside none, within 20%: "
            f"rate {rate:.2f} ({'yes' if rate >= 0.8 else 'NO'}), "
            f"paced p50 {slower:.2f} ({'yes' if slower <= 1.2 else 'NO'})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100, help="paced checks per cell")
    parser.add_argument("--gap", type=float, default=50.0, help="ms between paced checks")
    parser.add_argument("--seconds", type=float, default=5.0, help="back-to-back seconds")
    parser.add_argument("--subscribers", default="1,50,200", help="subscriber counts")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server logs here")
    args = parser.parse_args(argv)
    args.subscribers = sorted({int(n) for n in args.subscribers.split(",")})
    if not 1 <= args.events <= 10_000 or not 0 < args.seconds <= 120:
        parser.error("--events is 1 to 10000 and --seconds up to 120: this bench is bounded")
    if args.subscribers[0] < 1 or args.subscribers[-1] > 400:
        parser.error("--subscribers are 1 to 400")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    topologies = [("sqlite", 1)] * ("sqlite" in backends)
    topologies += [("postgresql", 1), ("postgresql", 2)] * ("postgresql" in backends)
    fan_outs: list[FanOut] = []
    costs: list[Cost] = []
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-logs-") as scratch:
        logs = args.log_dir or Path(scratch)
        logs.mkdir(parents=True, exist_ok=True)
        for backend, processes in topologies:
            topology = f"{backend} {processes} proc"
            store = sqlite_store() if backend == "sqlite" else postgresql_store(args.pg)
            with store as db_url:
                found = bench_topology(topology, db_url, processes, args, logs)
            fan_outs += found[0]
            costs += found[1]
    print_tables(fan_outs, costs, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
