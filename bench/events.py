"""The game's events: fan-out latency from a check's commit to its delivery on every
subscriber's stream, and what 200 subscribers cost a check.

For each topology (one ``dicebound serve`` on SQLite; one on PostgreSQL; two on one
PostgreSQL database, where an event reaches the other process through LISTEN/NOTIFY) this
starts real service processes on loopback ports, makes one game on the packaged fifth
edition SRD ruleset with Mira in it, and opens 1, 50 and 200 subscribers on
``GET /games/{game}/events`` (spread over the processes; the subscribers run in a
process of their own, one loop over raw non-blocking sockets that only receives and
scans what comes, so that their reading takes as little of the machine's cores from
the service as a Python client can). Then:

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
- **A check's cost**: one writer makes checks back to back through the first process
  with no subscriber and with the most (200), ``--seconds`` for each, in ``--rounds``
  turns taken alternately (the subscribers opened again for each of theirs), so that
  whatever else the machine does weighs on both sides alike: checks per second, p50/p99
  latency, and the CPU time the service and the subscribers' process spent a check
  (read from /proc). Each turn starts with ``--events``/``--rounds`` checks at the
  pace, whose p50 is the paced one set beside it. Goal: with 200 subscribers within
  20% of none (in the rate and at the pace's p50). Where other work shares the
  machine, a turn's rate swings with it, so the goal's figures are also taken turn by
  turn: each turn with the most subscribers over the turn without any next to it
  (rate, and the service's CPU a check), their median and their spread (lowest to
  highest), and in how many turns the rate was within 20%.

Traffic goes to 127.0.0.1 only. Run: ``.venv/bin/python bench/events.py [--events 100]
[--gap 50] [--seconds 16] [--rounds 8] [--subscribers 1,50,200] [--backends sqlite,postgresql]``
(``--pg URL`` as in ``http_checks.py``: a scratch database is made there and dropped).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import secrets
import select
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

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
GATHER = 0.001  # s the subscribers wait after each read, so a wake-up reads many streams

# ── the subscribers (a process of their own) ────────────────────────────────

Seen = list[tuple[int, int, float]]  # (event id, record id, wall-clock second it arrived)

# a record event: its id, and its data's first field, the record's id (a literal line
# start, so that the scan is a fast search for "\nid: "; each scan starts at a "\n")
RECORD = re.compile(rb'\nid: (\d+)\nevent: record\ndata: \{"id":(\d+)')


class _Poller:
    """``select.epoll`` where there is one, else ``select.poll``: sockets ready to read."""

    def __init__(self) -> None:
        self.epoll = getattr(select, "epoll", None)
        self.poller: Any = self.epoll() if self.epoll else select.poll()

    def register(self, fd: int) -> None:
        self.poller.register(fd, select.EPOLLIN if self.epoll else select.POLLIN)

    def unregister(self, fd: int) -> None:
        self.poller.unregister(fd)

    def poll(self, seconds: float | None) -> list[tuple[int, int]]:
        if self.epoll:
            return self.poller.poll(-1 if seconds is None else seconds)  # type: ignore[no-any-return]
        return self.poller.poll(None if seconds is None else seconds * 1000)  # type: ignore[no-any-return]


def _open(port: int, path: str, token: str) -> tuple[socket.socket, bytes, str]:
    """One stream opened on a blocking socket: (the socket, the body's first bytes,
    "" or why it was refused)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=READY_WITHIN)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(65536)
        if not data:
            break
        head += data
    head, _, body = head.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0]
    if b" 200 " not in status:
        return sock, b"", f"{status.decode()}: {body[:2000].decode()}"
    return sock, body, ""


def _subscribe(ports: Sequence[int], game: str, token: str, count: int, pipe: Pipe) -> None:
    """``count`` subscribers in one loop over raw non-blocking sockets: each read is a
    ``recv``, its bytes kept with the time the poll returned (every byte it reports had
    arrived by then, at most ``GATHER`` before: after each round of reads the loop
    waits that long, so that the next wakes once for many streams), and scanned for
    their events only once the writer names the last record (after the checks measured,
    so that the scan's CPU is not taken from the service meanwhile). As light as a
    client can be in Python, so that the two cores go to the service."""
    path = f"/games/{game}/events"
    opened = [_open(ports[i % len(ports)], path, token) for i in range(count)]
    pipe.send([refused for _, _, refused in opened if refused])
    socks = [sock for sock, _, _ in opened]
    seen: list[Seen] = [[] for _ in range(count)]
    tails = [b""] * count
    unread: list[list[tuple[float, bytes]]] = [[] for _ in range(count)]  # not yet scanned
    by_fd = {sock.fileno(): i for i, sock in enumerate(socks)}
    poller = _Poller()
    for i, (sock, body, _) in enumerate(opened):
        sock.setblocking(False)
        poller.register(sock.fileno())
        tails[i] = _scan(b"\n" + body, time.time(), seen[i])
    poller.register(pipe.fileno())
    last: int | None = None
    deadline = 0.0
    while True:
        ready = poller.poll(None if last is None else 0.05)
        now = time.time()
        for fd, _ in ready:
            i = by_fd.get(fd)
            if i is None:  # the writer names the last record: drain, then report
                last = pipe.recv()
                deadline = time.monotonic() + DRAIN_WITHIN
                for j, kept in enumerate(unread):
                    for at, data in kept:
                        tails[j] = _scan(tails[j] + data if tails[j] else data, at, seen[j])
                    kept.clear()
                continue
            try:
                data = socks[i].recv(1 << 18)
            except BlockingIOError:
                continue
            if not data:
                poller.unregister(fd)
                continue
            if last is None:
                unread[i].append((now, data))
            else:
                tails[i] = _scan(tails[i] + data if tails[i] else data, now, seen[i])
        if ready:  # let what is on its way come in: one wake-up reads many streams
            time.sleep(GATHER)
        if last is not None and (
            time.monotonic() > deadline or all(s and s[-1][1] >= last for s in seen)
        ):
            break
    for sock in socks:
        sock.close()
    pipe.send(seen)


def _scan(data: bytes, now: float, seen: Seen) -> bytes:
    """Keep the record events of ``data``'s whole frames; gives what follows the last
    whole frame (the start of the next), from the line break before it."""
    cut = data.rfind(b"\n\n")
    if cut < 0:
        return data
    seen.extend((int(event), int(record), now) for event, record in RECORD.findall(data, 0, cut))
    return data[cut + 1 :]


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
    paced: float  # p50 ms of the checks made at the pace in the same turns
    turns: tuple[tuple[float, float], ...] = ()  # each turn's (checks/s, service CPU ms a check)


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
    """Every cell of one topology: paced with no subscriber and each count, then flat
    out with none and with the most, in turns."""
    admin = "bench-" + secrets.token_urlsafe(32)
    fan_outs: list[FanOut] = []
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
        for count in [0, *args.subscribers]:
            subscribers = Subscribers(ports, game, token, count) if count else None
            try:
                checks = paced(conns, game, args.events, args.gap / 1000)
                seen = subscribers.collect(checks[-1].record) if subscribers else []
            finally:
                if subscribers:
                    subscribers.close()
            stamps = created(conns[0], game, checks[0].record - 1)
            fan_outs.append(_fan_out(topology, processes, checks, seen, stamps))
            print(f"  {topology}: {count} subscribers done", file=sys.stderr)
        costs = _costs(
            topology, [s.process.pid for s in servers], conns[0], ports, game, token, args
        )
        print(f"  {topology}: a check's cost done", file=sys.stderr)
    return fan_outs, costs


def _costs(
    topology: str,
    servers: Sequence[int | None],
    conn: Connection,
    ports: Sequence[int],
    game: str,
    token: str,
    args: argparse.Namespace,
) -> list[Cost]:
    """Checks back to back with no subscriber and with the most, in ``--rounds`` turns
    of each (first one, then the other, alternately), so that what else the machine
    does weighs on both alike; each side's figures over all its turns. Each turn
    starts with a few checks at the pace, for the paced p50 measured alike."""
    most = max(args.subscribers)
    window = args.seconds / args.rounds
    rushes: dict[int, list[Check]] = {0: [], most: []}
    turns: dict[int, list[tuple[float, float]]] = {0: [], most: []}
    at_pace: dict[int, list[float]] = {0: [], most: []}
    cpu = {0: [0.0, 0.0], most: [0.0, 0.0]}  # CPU seconds: the service's, the subscribers'
    missed = 0
    for turn in range(args.rounds):
        for count in (0, most) if turn % 2 == 0 else (most, 0):
            subscribers = Subscribers(ports, game, token, count) if count else None
            try:
                checks = paced([conn], game, max(10, args.events // args.rounds), args.gap / 1000)
                at_pace[count] += [c.ms for c in checks]
                groups = (servers, [subscribers.process.pid if subscribers else None])
                before = [_cpu_of(group) for group in groups]
                rush = flat_out(conn, game, window)
                spent = [_cpu_of(group) - then for group, then in zip(groups, before, strict=True)]
                for i, seconds in enumerate(spent):
                    cpu[count][i] += seconds
                rate = len(rush) / (sum(c.ms for c in rush) / 1000)
                turns[count].append((rate, spent[0] * 1000 / len(rush)))
                if subscribers:
                    seen = subscribers.collect(rush[-1].record)
                    got = [{record for _, record, _ in deliveries} for deliveries in seen]
                    missed += sum(1 for s in got for c in checks + rush if c.record not in s)
            finally:
                if subscribers:
                    subscribers.close()
            rushes[count] += rush
    costs = []
    for count, rush in rushes.items():
        ms = [c.ms for c in rush]
        rate = len(rush) / (sum(ms) / 1000)
        p50, p99 = _percentile(ms, 0.5), _percentile(ms, 0.99)
        per_check = [seconds * 1000 / len(rush) for seconds in cpu[count]]
        paced_p50 = _percentile(at_pace[count], 0.5)
        costs.append(
            Cost(
                topology,
                count,
                rate,
                p50,
                p99,
                missed if count else 0,
                *per_check,
                paced_p50,
                tuple(turns[count]),
            )
        )
    return costs


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
    print(
        f"A check's cost: one writer, checks back to back for {args.seconds:g} s a side, "
        f"in {args.rounds} turns each"
    )
    print(
        f"{'topology':<16}{'subs':>5}{'checks/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'missed':>8}"
        f"{'service cpu ms/check':>22}{'subscribers cpu':>17}{'paced p50':>11}"
    )
    for c in costs:
        print(
            f"{c.topology:<16}{c.subscribers:>5}{c.rate:>10.0f}{c.p50:>9.1f}{c.p99:>9.1f}"
            f"{c.missed:>8}{c.server_cpu:>22.1f}"
            f"{f'{c.client_cpu:.1f}' if c.subscribers else '-':>17}{c.paced:>11.1f}"
        )
    print(f"({os.cpu_count()} CPUs: the service and the subscribers' process share them)")
    print()
    for topology in dict.fromkeys(c.topology for c in costs):
        none, most = [c for c in costs if c.topology == topology]
        rate = most.rate / none.rate
        slower = most.paced / none.paced
        cpu = most.server_cpu / none.server_cpu
        pairs = list(zip(none.turns, most.turns, strict=True))
        rates = sorted(m[0] / n[0] for n, m in pairs)
        cpus = sorted(m[1] / n[1] for n, m in pairs)
        print(
            f"goal {topology}, {most.subscribers} subscribers beside none, within 20%: "
            f"rate {rate:.2f} ({'yes' if rate >= 0.8 else 'NO'}), "
            f"paced p50 {slower:.2f} ({'yes' if slower <= 1.2 else 'NO'}); "
            f"service CPU a check {cpu:.2f}"
        )
        print(
            f"  turn by turn: rate median {statistics.median(rates):.2f} "
            f"({rates[0]:.2f}-{rates[-1]:.2f}; within 20% in {sum(r >= 0.8 for r in rates)} "
            f"of {len(rates)}), service CPU a check median {statistics.median(cpus):.2f} "
            f"({cpus[0]:.2f}-{cpus[-1]:.2f})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100, help="paced checks per cell")
    parser.add_argument("--gap", type=float, default=50.0, help="ms between paced checks")
    parser.add_argument(
        "--seconds", type=float, default=16.0, help="back-to-back seconds, for each side"
    )
    parser.add_argument(
        "--rounds", type=int, default=8, help="turns each side's back-to-back seconds are cut in"
    )
    parser.add_argument("--subscribers", default="1,50,200", help="subscriber counts")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server logs here")
    args = parser.parse_args(argv)
    args.subscribers = sorted({int(n) for n in args.subscribers.split(",")})
    if not 1 <= args.events <= 10_000 or not 0 < args.seconds <= 120:
        parser.error("--events is 1 to 10000 and --seconds up to 120: this bench is bounded")
    if not 1 <= args.rounds <= 20:
        parser.error("--rounds is 1 to 20")
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
