"""Legitimate checks under a flood of invented tokens (issue 40, defect 4): their p95
quiet and under the flood, for each side, side by side in one run.

The flood sends ``POST /games/{game}/checks``, each request with a new token no one
holds and a large body. Before issue 40 the service read each body whole (and parsed
it) before the route answered 404, and charged such a request to no bucket, so the
flood ran as fast as it liked; now it is answered before its body is read and charged
to its address (50 a second by default, then 429). Beside it, the same flood without
a token (answered 401 before its body, and charged to its address, on both sides):
what any flood of requests costs the service, the floor an invented token should no
longer rise above.

For each side (this tree; ``--before TREE``, the source tree of an earlier dicebound,
run by a server process of its own), in turn, ``--rounds`` times: a real ``dicebound
serve`` (one worker, SQLite, the default rate limit of 50 a second) on a loopback
port, a game on the packaged fifth edition SRD ruleset with Mira in it, then three
windows of ``--seconds`` each:

- quiet: one legitimate client (the game's token, one keep-alive connection) makes a
  check every ``--gap`` ms, under its token's rate, and keeps each one's latency;
- no token: the same client, while a process of its own sends the flood without a
  token at ``--flood-rate`` requests a second (0: as fast as answers come) over
  ``--connections`` keep-alive connections (one the server closes is opened again),
  each body ``--body`` KB of JSON (a check's text the route would parse), at most
  ``--flood-requests`` in all;
- invented: the same flood, each request with a new invented token.

Prints for each side and window the legitimate checks' p50, p95 and p99 in ms (and
the statuses of any not answered 200), the server's CPU over the window (its own
clock, from /proc) as a share of one core, the flood's rate, the server's CPU per
flood request and the flood's answers by status; then each side's medians side by
side. On a machine shared with other work the p95s swing from round to round: take
several rounds (``--rounds``), and read the CPU per flood request beside them.

Traffic goes to 127.0.0.1 only. Run: ``.venv/bin/python bench/token_flood.py
[--before ../main/src] [--seconds 5] [--rounds 3] [--flood-rate 100]`` (a flood as
fast as its answers come by default; ``--flood-rate 100``: the pace of the issue's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from http_checks import (
    TEXT,
    Connection,
    Server,
    _cpu_seconds,
    _percentile,
    _setup_games,
    answer_head,
    sqlite_store,
)

RATE_LIMIT = 50.0  # the service's default: the flood meets the limit it would meet
WARMUP = 0.5  # s the flood runs before the legitimate client's window opens


# ── the flood (a process of its own) ─────────────────────────────────────────


class _Flood:
    """The flood's shared state: its schedule (request ``n`` is due ``n / rate`` after
    the start), its deadline, and the answers it had."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.port: int = spec["port"]
        self.invented: bool = spec["invented"]
        self.path = f"/games/{spec['game']}/checks"
        text = "x" * (spec["body_kb"] * 1000 - len('{"text": ""}'))
        self.body = json.dumps({"text": text}).encode("ascii")
        self.rate: float = spec["rate"]
        self.most: int = spec["most"]
        self.started = time.perf_counter()
        self.ends = self.started + spec["seconds"]
        self.sent = 0
        self.statuses: Counter[int] = Counter()
        self.reconnects = 0

    def request(self) -> bytes:
        """The next request: a new invented token (or none), the large body."""
        token = f"Authorization: Bearer dbg_{secrets.token_urlsafe(32)}\r\n"
        head = (
            f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{token if self.invented else ''}"
            f"Content-Type: application/json\r\nContent-Length: {len(self.body)}\r\n\r\n"
        )
        return head.encode("ascii") + self.body

    async def turn(self) -> bool:
        """Wait for the next request's time; False once the flood is over."""
        if self.sent >= self.most or time.perf_counter() >= self.ends:
            return False
        due = self.started + self.sent / self.rate if self.rate > 0 else 0.0
        self.sent += 1
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        return time.perf_counter() < self.ends


async def _answer(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """An answer's status, and whether the server closes the connection after it."""
    status, length, closing = answer_head((await reader.readuntil(b"\r\n\r\n"))[:-4])
    await reader.readexactly(length)
    return status, closing


async def _flood_connection(flood: _Flood) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", flood.port)
    try:
        while await flood.turn():
            writer.write(flood.request())
            try:
                status, closing = await _answer(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                status, closing = 0, True  # closed without an answer
            flood.statuses[status] += 1
            if closing:
                writer.close()
                flood.reconnects += 1
                reader, writer = await asyncio.open_connection("127.0.0.1", flood.port)
            else:
                await writer.drain()
    finally:
        writer.close()


async def _flood(spec: dict[str, Any]) -> dict[str, Any]:
    flood = _Flood(spec)
    await asyncio.gather(*(_flood_connection(flood) for _ in range(spec["connections"])))
    seconds = time.perf_counter() - flood.started
    answered = sum(flood.statuses.values())
    return {
        "rate": answered / seconds,
        "statuses": {str(k): v for k, v in sorted(flood.statuses.items())},
        "reconnects": flood.reconnects,
    }


def flood_main(spec: str) -> int:
    """``--flood SPEC``: run the flood its JSON describes, print what it had as JSON."""
    json.dump(asyncio.run(_flood(json.loads(spec))), sys.stdout)
    return 0


# ── measuring ────────────────────────────────────────────────────────────────


WINDOWS = ("quiet", "no token", "invented")


@dataclass(frozen=True)
class Window:
    side: str
    name: str  # one of WINDOWS
    latencies: list[float]  # the legitimate checks', ms
    failed: Counter[int]  # legitimate checks not answered 200, by status
    server_cpu: float  # the server's CPU seconds a second of the window
    flood: dict[str, Any] | None  # the flood's rate and answers

    def p(self, q: float) -> float:
        return _percentile(self.latencies, q)

    def flood_ms(self) -> float:
        """The server's CPU (ms) per flood request: its CPU over the window (the
        legitimate checks' few included) by the flood's rate; NaN without a flood."""
        if self.flood is None or not self.flood["rate"]:
            return float("nan")
        return self.server_cpu * 1000 / float(self.flood["rate"])


def _checks(
    conn: Connection, path: str, seconds: float, gap: float
) -> tuple[list[float], Counter[int]]:
    """A check every ``gap`` seconds for ``seconds``: latencies (ms), and the statuses of
    those not answered 200."""
    latencies: list[float] = []
    failed: Counter[int] = Counter()
    start = time.perf_counter()
    n = 0
    while (due := start + n * gap) < start + seconds:
        n += 1
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        sent = time.perf_counter()
        status, _ = conn.request("POST", path, {"text": TEXT})
        latencies.append((time.perf_counter() - sent) * 1000)
        if status != 200:
            failed[status] += 1
    return latencies, failed


def measure_side(side: str, src: Path | None, args: argparse.Namespace, logs: Path) -> list[Window]:
    """A server of ``side`` (``src``: its source tree), quiet then flooded."""
    admin = "bench-" + secrets.token_urlsafe(32)
    with sqlite_store() as url:
        server = Server(url, logs / f"{side}.log", admin, src=src, rate_limit=RATE_LIMIT)
        try:
            server.wait()
            ((game, token),) = _setup_games(server.port, admin, 1)
            conn = Connection(server.port, token)
            path = f"/games/{game}/checks"
            _checks(conn, path, 1.0, args.gap / 1000)  # warm: the first checks compile
            windows = []
            for name in WINDOWS:
                flooding = None
                if name != "quiet":
                    spec = {
                        "port": server.port,
                        "game": game,
                        "invented": name == "invented",
                        "body_kb": args.body,
                        "rate": args.flood_rate,
                        "most": args.flood_requests,
                        "connections": args.connections,
                        "seconds": args.seconds + WARMUP,
                    }
                    flooding = subprocess.Popen(
                        [sys.executable, __file__, "--flood", json.dumps(spec)],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    time.sleep(WARMUP)
                pids = server.pids()
                cpu = sum(_cpu_seconds(p) for p in pids)
                began = time.perf_counter()
                latencies, failed = _checks(conn, path, args.seconds, args.gap / 1000)
                busy = (sum(_cpu_seconds(p) for p in pids) - cpu) / (time.perf_counter() - began)
                flood = None
                if flooding is not None:
                    out, _ = flooding.communicate(timeout=args.seconds + 60)
                    if flooding.returncode != 0:
                        raise SystemExit("the flood failed")
                    flood = json.loads(out)
                windows.append(Window(side, name, latencies, failed, busy, flood))
            conn.close()
            return windows
        finally:
            server.stop()


def _statuses(counts: Mapping[Any, int]) -> str:
    return ", ".join(f"{status}: {n}" for status, n in sorted(counts.items()))


def print_table(windows: Sequence[Window]) -> None:
    print(
        f"{'side':<7} {'window':<9} {'checks':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'not 200':>8} {'server CPU':>10}  flood"
    )
    for w in windows:
        flood = ""
        if w.flood is not None:
            answers = _statuses(w.flood["statuses"])
            flood = (
                f"{w.flood['rate']:.0f}/s, {w.flood_ms():.2f} ms of server CPU each "
                f"({answers}; {w.flood['reconnects']} reconnects)"
            )
        print(
            f"{w.side:<7} {w.name:<9} {len(w.latencies):>6} {w.p(0.50):>7.1f} {w.p(0.95):>7.1f} "
            f"{w.p(0.99):>7.1f} {_statuses(w.failed) or '-':>8} {w.server_cpu:>10.0%}  {flood}"
        )
    print()
    for side in dict.fromkeys(w.side for w in windows):
        cells = {
            name: [w for w in windows if w.side == side and w.name == name] for name in WINDOWS
        }
        p95 = {name: statistics.median(w.p(0.95) for w in got) for name, got in cells.items()}
        cpu = {name: statistics.median(w.server_cpu for w in got) for name, got in cells.items()}
        each = {name: statistics.median(w.flood_ms() for w in got) for name, got in cells.items()}
        print(
            f"{side}, medians of {len(cells['quiet'])} rounds: legitimate checks' p95 "
            f"{p95['quiet']:.1f} ms quiet, {p95['no token']:.1f} ms under the flood without a "
            f"token, {p95['invented']:.1f} ms under the flood of invented tokens; server CPU "
            f"{cpu['quiet']:.0%}, {cpu['no token']:.0%}, {cpu['invented']:.0%}; a flood "
            f"request {each['no token']:.2f} ms of server CPU without a token, "
            f"{each['invented']:.2f} ms with an invented one"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="each window's seconds")
    parser.add_argument("--rounds", type=int, default=1, help="each side measured this often")
    parser.add_argument("--gap", type=float, default=50.0, help="ms between legitimate checks")
    parser.add_argument("--body", type=int, default=500, help="KB in each flood request")
    parser.add_argument(
        "--flood-rate", type=float, default=0.0, help="the flood's requests a second (0: no pace)"
    )
    parser.add_argument("--flood-requests", type=int, default=20000, help="the flood's most")
    parser.add_argument("--connections", type=int, default=4, help="the flood's connections")
    parser.add_argument(
        "--before", type=Path, default=None, help="an earlier dicebound's source tree (its src)"
    )
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server logs here")
    args = parser.parse_args(argv)
    sides: list[tuple[str, Path | None]] = [("after", None)]
    if args.before is not None:
        sides.insert(0, ("before", args.before.resolve()))
    windows: list[Window] = []
    with tempfile.TemporaryDirectory(prefix="dicebound-bench-logs-") as scratch:
        logs = args.log_dir or Path(scratch)
        logs.mkdir(parents=True, exist_ok=True)
        for _ in range(args.rounds):
            for side, src in sides:
                windows += measure_side(side, src, args, logs)
    print_table(windows)
    return 0


if __name__ == "__main__":
    sys.exit(flood_main(sys.argv[2]) if sys.argv[1:2] == ["--flood"] else main())
