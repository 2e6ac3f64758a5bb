"""What counting ``/metrics`` (and writing the access log) costs a check, side by side.

Three ``dicebound serve`` processes run at once, each on a SQLite store of its own
(``--backend postgresql``: a scratch PostgreSQL database each), differing only in what
they count and write:

- ``off``: ``DICEBOUND_METRICS=off``, ``DICEBOUND_ACCESS_LOG=off``;
- ``metrics``: the metrics on (the default), the access log off;
- ``metrics+log``: both on (the defaults), the log written to a file.

Each makes a game on the packaged fifth edition SRD ruleset, then the sides are
driven in turn, round after round (so a change in the machine's load falls on all),
each round ``--checks`` checks of one tag over one kept-alive connection. A side's
figure is its server's own CPU (``/proc``, user and system) over the round, divided by
its checks: the median over ``--rounds`` rounds is printed, with what each side adds
to ``off``. The goal (issue 45): metrics under 5% of a check's server CPU.

A server's CPU clock counts in ticks of 10 ms and a busy machine moves a check's cost
by more than 5% from round to round, so the bench also times what the metrics add to a
check alone, in a process of its own (its request counted and timed, its result
counted: ``Metrics.answered`` and ``Metrics.resolved``), in one process's mode and in
the mode of ``--workers`` (values in files), and sets it beside the ``off`` side's
check.

Run: ``.venv/bin/python bench/metrics_cost.py [--rounds 8] [--checks 300]
[--backend sqlite|postgresql]``
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
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from urllib.parse import quote

RULESET = "dnd5e-srd"
CHARACTER = "mira"
TEXT = 'Mira eases the latch. [skill_check: skill="Stealth" dc="15"]'
TOKEN = "dba_bench-" + secrets.token_hex(16)
SIDES = {
    "off": {"DICEBOUND_METRICS": "off", "DICEBOUND_ACCESS_LOG": "off"},
    "metrics": {"DICEBOUND_METRICS": "on", "DICEBOUND_ACCESS_LOG": "off"},
    "metrics+log": {"DICEBOUND_METRICS": "on", "DICEBOUND_ACCESS_LOG": "on"},
}
GOAL = 0.05  # of a check's server CPU
DEFAULT_PG = os.environ.get(
    "DICEBOUND_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Side:
    """One server, its game and a kept-alive connection to it."""

    def __init__(self, name: str, db_url: str, log: Path) -> None:
        self.name = name
        self.port = _free_port()
        env = {**os.environ, "DICEBOUND_ADMIN_TOKEN": TOKEN, **SIDES[name]}
        command = [sys.executable, "-m", "dicebound", "serve", "--db", db_url]
        command += ["--port", str(self.port), "--workers", "1", "--rate-limit", "0"]
        with log.open("ab") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
        self.log = log
        self.cpu: list[float] = []  # ms of server CPU a check, each round

    def request(self, token: str, method: str, path: str, body: object = None) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            return self._send(conn, token, method, path, body)
        finally:
            conn.close()

    @staticmethod
    def _send(
        conn: http.client.HTTPConnection, token: str, method: str, path: str, body: object
    ) -> bytes:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=headers)
        answer = conn.getresponse()
        read = answer.read()
        if answer.status >= 300:
            raise SystemExit(f"{method} {path} answered {answer.status}: {read[:300]!r}")
        return read

    def ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{self.name}: serve exited: {self.log.read_text()[-2000:]}")
            try:
                self.request("", "GET", "/health")
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit(f"{self.name}: serve did not answer within {timeout} s")

    def make_game(self) -> None:
        folder = resources.files("dicebound.data") / "characters" / RULESET
        mira = json.loads((folder / f"{CHARACTER}.json").read_text(encoding="utf-8"))
        made = json.loads(self.request(TOKEN, "POST", "/games", {"name": "b", "ruleset": RULESET}))
        self.game, self.token = made["id"], made["token"]
        name = quote(mira["name"], safe="")
        self.request(self.token, "PUT", f"/games/{self.game}/characters/{name}", mira)

    def round(self, checks: int) -> None:
        """``checks`` checks over one connection; the server's CPU a check, kept."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        path = f"/games/{self.game}/checks"
        self._send(conn, self.token, "POST", path, {"text": TEXT})  # the connection warm
        before = _cpu_seconds(self.process.pid)
        for _ in range(checks):
            self._send(conn, self.token, "POST", path, {"text": TEXT})
        spent = _cpu_seconds(self.process.pid) - before
        conn.close()
        self.cpu.append(spent / checks * 1000)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()


@contextmanager
def _stores(backend: str, count: int, pg: str) -> Iterator[list[str]]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="dicebound-bench-") as folder:
            yield [f"sqlite:///{Path(folder) / f'side{i}.db'}" for i in range(count)]
        return
    import psycopg
    from sqlalchemy.engine import make_url

    libpq = make_url(pg).set(drivername="postgresql").render_as_string(False)
    names = [f"dicebound_bench_{secrets.token_hex(4)}" for _ in range(count)]
    with psycopg.connect(libpq, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield [make_url(pg).set(database=n).render_as_string(hide_password=False) for n in names]
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


ANSWER = {"results": [{"id": 1}], "errors": [], "sheet": []}  # what ``resolved`` reads


def alone(calls: int) -> float:
    """Microseconds of CPU the metrics add to one check, counted ``calls`` times."""
    from dicebound.edge.http.metrics import Metrics

    metrics = Metrics("bench")
    route = "/games/{game}/checks"
    metrics.answered(route, "POST", 200, 0.001)  # the series made, as after a first check
    started = time.process_time()
    for _ in range(calls):
        metrics.answered(route, "POST", 200, 0.0012)
        metrics.resolved(ANSWER)
    return (time.process_time() - started) / calls * 1e6


def _alone_in(multiprocess: bool, calls: int) -> float:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="dicebound-metrics-") as folder:
        if multiprocess:
            env["PROMETHEUS_MULTIPROC_DIR"] = folder
        done = subprocess.run(
            [sys.executable, __file__, "--alone", str(calls)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return float(done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--checks", type=int, default=300, help="checks a side, each round")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL's maintenance database")
    parser.add_argument("--alone", type=int, help=argparse.SUPPRESS)  # the timing's own process
    args = parser.parse_args(argv)
    if args.alone:
        print(f"{alone(args.alone):.3f}")
        return 0
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="dicebound-logs-") as logs:
        urls = stack.enter_context(_stores(args.backend, len(SIDES), args.pg))
        sides = [
            Side(name, url, Path(logs) / f"{name}.log")
            for name, url in zip(SIDES, urls, strict=True)
        ]
        for side in sides:
            stack.callback(side.stop)
        for side in sides:
            side.ready()
            side.make_game()
        for side in sides:  # each warm: its caches filled, its threads started
            side.round(max(20, args.checks // 10))
            side.cpu.clear()
        for n in range(args.rounds):
            order = sides if n % 2 == 0 else sides[::-1]
            for side in order:
                side.round(args.checks)
        load = os.getloadavg()[0]
        base = statistics.median(sides[0].cpu)
        print(
            f"{args.backend}: {args.rounds} rounds of {args.checks} checks a side "
            f"(load average {load:.1f})"
        )
        print(f"{'side':<12} {'server CPU a check (median)':>28} {'spread':>16} {'vs off':>9}")
        for side in sides:
            mid = statistics.median(side.cpu)
            spread = f"{min(side.cpu):.3f}–{max(side.cpu):.3f}"
            more = (mid - base) / base
            print(f"{side.name:<12} {mid:>25.3f} ms {spread:>16} {more:>+8.1%}")
        cost = (statistics.median(sides[1].cpu) - base) / base
        verdict = "met" if cost < GOAL else "NOT met"
        print(f"goal: metrics under {GOAL:.0%} of a check's server CPU: {cost:+.1%}, {verdict}")
        for mode, multi in (("one process", False), ("--workers (files)", True)):
            micro = _alone_in(multi, 200_000)
            share = micro / 1000 / base
            verdict = "met" if share < GOAL else "NOT met"
            print(
                f"the metrics alone, {mode}: {micro:.1f} µs a check, "
                f"{share:.1%} of the off side's {base:.3f} ms: {verdict}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
