"""The application's and the store's part of a check, without HTTP: ``run_checks``
through a real ``Store`` (one ``store.write()`` transaction a call, as the route opens
it), timed per call in wall and CPU time, on SQLite and PostgreSQL, beside the same
call on an earlier dicebound (``--before TREE``).

Cases (``--cases``):

- ``check``: one ``skill_check`` by Mira on the packaged fifth edition SRD (the text
  ``bench/http_checks.py`` sends);
- ``sheet``: ``bench/sheet_commands.py``'s whole text, forty ``[sheet:]`` commands and
  five checks, on Marinara's fifth edition example (``../shared/marinara``);
- ``checks5``: that text's five checks alone, on the same game: ``sheet``'s rate over
  this one's is the ratio ``bench/sheet_commands.py`` (b) asks at least 0.8 of.

Each side (this tree; ``--before``: another source tree, its ``src``) runs in a process
of its own, with a store of its own, and the sides take turns a round at a time (each
round ``--calls`` calls of every case), so a change in the machine's load falls on
both. Printed per store, case and side: the median and p90 ms of wall time a call, the
mean CPU ms a call (the process's own clock; the database server's is not counted),
and calls a second.

``--profile CASE``: instead, cProfile this tree's ``run_checks`` on CASE (SQLite, or
``--backends postgresql``) and print the top functions.

Run: ``PYTHONPATH=src .venv/bin/python bench/app_checks.py [--before /tmp/before/src]
[--backends sqlite,postgresql] [--cases check,sheet,checks5] [--rounds 8] [--calls 50]``
(``--pg URL`` as in ``http_checks.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from http_checks import DEFAULT_PG, postgresql_store, sqlite_store  # noqa: E402

CHECK_TEXT = 'Mira eases the latch. [skill_check: skill="Stealth" dc="15"]'


def _percentile(values: Sequence[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


# ── one side: a process that sets up its games, then runs calls when asked ───


def _setup(url: str) -> dict[str, Callable[[], object]]:
    """Open (and migrate) the store, make a game per ruleset with its party; a call
    per case, each one ``run_checks`` in its own write transaction."""
    from dicebound.app.access import Access
    from dicebound.app.characters import put_character
    from dicebound.app.checks import run_checks
    from dicebound.app.games import create_game
    from dicebound.app.rulesets import put_ruleset, sync_packaged_rulesets
    from dicebound.store.db import open_store
    from sheet_commands import CHECKS_ONLY, FULL, MARINARA_5E, MIRA, TAM

    store = open_store(url)
    admin = Access("", True)
    with store.write() as session:
        sync_packaged_rulesets(session)
    with store.write() as session:
        put_ruleset(session, admin, MARINARA_5E.read_text(encoding="utf-8"))
    raw = json.loads(MARINARA_5E.read_text(encoding="utf-8"))
    folder = resources.files("dicebound.data") / "characters" / "dnd5e-srd"
    mira_srd = json.loads((folder / "mira.json").read_text(encoding="utf-8"))

    def game(ruleset: str, characters: Sequence[dict[str, Any]]) -> tuple[str, Access]:
        with store.write() as session:
            made = create_game(session, admin, "bench", ruleset, None, [])
        gm = Access(str(made["token"]), False)
        for character in characters:
            body = json.dumps(character).encode()
            with store.write() as session:
                put_character(session, gm, str(made["id"]), str(character["name"]), body)
        return str(made["id"]), gm

    srd_game, srd_gm = game("dnd5e-srd", [mira_srd])
    five_game, five_gm = game(str(raw["id"]), [MIRA, TAM])

    def call(game_id: str, gm: Access, text: str) -> Callable[[], object]:
        def run() -> object:
            with store.write() as session:
                return run_checks(
                    session,
                    gm,
                    game_id,
                    text=text,
                    seed=None,
                    faces=None,
                    choose=None,
                    idempotency_key=None,
                )

        return run

    return {
        "check": call(srd_game, srd_gm, CHECK_TEXT),
        "sheet": call(five_game, five_gm, FULL),
        "checks5": call(five_game, five_gm, CHECKS_ONLY),
    }


def _time(run: Callable[[], object], calls: int) -> dict[str, list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(calls):
        c0, t0 = time.process_time(), time.perf_counter()
        run()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return {"wall": wall, "cpu": cpu}


def child(url: str) -> int:
    """Serve ``CASE CALLS`` lines on stdin with one JSON line of timings each."""
    runs = _setup(url)
    for run in runs.values():  # warm-up: caches filled, statements compiled
        for _ in range(20):
            run()
    print("ready", flush=True)
    for line in sys.stdin:
        case, calls = line.split()
        print(json.dumps(_time(runs[case], int(calls))), flush=True)
    return 0


# ── the parent: the sides in turn ────────────────────────────────────────────


class Side:
    def __init__(self, name: str, src: Path, url: str) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--child", url],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline().strip()
        if ready != "ready":
            raise SystemExit(f"the {name} side did not start (it said {ready!r})")

    def ask(self, case: str, calls: int) -> dict[str, list[float]]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{case} {calls}\n")
        self.process.stdin.flush()
        took: dict[str, list[float]] = json.loads(self.process.stdout.readline())
        return took

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@contextmanager
def _store(backend: str, pg: str) -> Iterator[str]:
    with sqlite_store() if backend == "sqlite" else postgresql_store(pg) as url:
        yield url


def compare(args: argparse.Namespace) -> int:
    trees = [("before", args.before.resolve())] if args.before else []
    trees.append(("after", HERE.parent / "src"))
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    rows = []
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        with ExitStack() as stack:
            sides = []
            for name, src in trees:
                url = stack.enter_context(_store(backend, args.pg))
                side = Side(name, src, url)
                stack.callback(side.stop)
                sides.append(side)
            took = {(s.name, c): {"wall": [], "cpu": []} for s in sides for c in cases}
            for _ in range(args.rounds):
                for case in cases:
                    for side in sides:
                        for key, values in side.ask(case, args.calls).items():
                            took[side.name, case][key] += values
            for case in cases:
                for side in sides:
                    wall, cpu = took[side.name, case]["wall"], took[side.name, case]["cpu"]
                    rows.append(
                        (
                            backend,
                            case,
                            side.name,
                            statistics.median(wall),
                            _percentile(wall, 0.9),
                            statistics.fmean(cpu),
                            1000 * len(wall) / sum(wall),
                        )
                    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"run_checks through a real Store, {args.rounds} rounds of {args.calls} calls a case")
    print(
        f"{'store':<12}{'case':<9}{'side':<8}{'p50 ms':>8}{'p90 ms':>8}{'cpu ms':>8}{'calls/s':>9}"
    )
    for backend, case, side, p50, p90, cpu, rate in rows:
        print(f"{backend:<12}{case:<9}{side:<8}{p50:>8.2f}{p90:>8.2f}{cpu:>8.2f}{rate:>9.0f}")
    for backend in dict.fromkeys(r[0] for r in rows):
        for side in dict.fromkeys(r[2] for r in rows):
            rate = {r[1]: r[6] for r in rows if r[0] == backend and r[2] == side}
            if "sheet" in rate and "checks5" in rate:
                print(
                    f"{backend} {side}: the whole sheet text at {rate['sheet'] / rate['checks5']:.2f}"
                    " of the five checks' rate"
                )
    print(f"load average at the end: {load}, {os.cpu_count()} CPUs")
    return 0


def profile(args: argparse.Namespace) -> int:
    import cProfile
    import pstats

    backend = args.backends.split(",")[0].strip()
    with _store(backend, args.pg) as url:
        run = _setup(url)[args.profile]
        for _ in range(20):
            run()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.rounds * args.calls):
            run()
        profiler.disable()
    stats = pstats.Stats(profiler).sort_stats(args.sort)
    stats.print_stats(args.top)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--before", type=Path, default=None, help="an earlier tree's src")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--cases", default="check,sheet,checks5")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50, help="calls of each case a round")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--profile", metavar="CASE", help="cProfile this tree on CASE")
    parser.add_argument("--sort", default="cumulative", help="the profile's order")
    parser.add_argument("--top", type=int, default=60, help="functions the profile prints")
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)
    if args.profile:
        return profile(args)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
