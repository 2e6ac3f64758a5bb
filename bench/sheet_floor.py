"""What the sheet-command rate goal leaves for forty commands, beside what their parts
cost at the least they could cost.

The goal (``sheet_commands.py`` part b): a text of forty ``[sheet:]`` commands and five
checks through ``POST /games/{game}/checks`` at the rate of the five checks alone,
within 20%. A rate within 20% is a time per text within 1.25 times, so the forty
commands, every part of them together (reading the tags, applying them, their records,
their events, the answer), may add at most a quarter of the five checks' own time.
This puts beside that budget:

(a) the budget: a quarter of the five checks' p50 through a real service, measured
    here (``sheet_commands.bench_service``, one client, the two texts in turn);
(b) the core alone: what the forty commands add to ``resolve_text`` (the whole text's
    median less the five checks' median), no storage at all;
(c) the storage floor: forty more rows in the ``records`` table and forty more in
    ``events`` of a real store, inserted in the one transaction a request commits, by
    the database driver's cheapest bulk write (SQLite's ``executemany``, PostgreSQL's
    ``COPY``; no ORM, no JSON encoding, rows as small as a record could be: its result
    and a two-field snapshot and event), less
    the same for five rows. SQLite as the service opens it (WAL, ``synchronous=FULL``);
    PostgreSQL on 127.0.0.1:5432 when it answers.

(b) + (c) is the least the forty commands could add with one stored row per record and
one event per record, as the service's contract has them; it is printed against (a).

Run: ``.venv/bin/python bench/sheet_floor.py [--texts 300] [--requests 150]
[--rounds 300] [--backends sqlite,postgresql]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from http_checks import DEFAULT_PG

from dicebound.app import games
from dicebound.app.access import Access
from dicebound.app.rulesets import sync_packaged_rulesets
from dicebound.store.db import open_store
from sheet_commands import _table, backends, bench_api, bench_service

RESULT = (
    '{"tag":"[sheet: who=\\"Mira\\" op=\\"spend\\" pool=\\"hp\\" amount=\\"1\\" '
    'result=\\"ok\\" now=\\"hp 30/31\\"]","who":"Mira","ok":true,"now":"hp 30/31",'
    '"reason":null,"changes":[{"who":"Mira","what":"hp","from":31,"to":30}]}'
)
"""A sheet record's result as small as one is: one change."""
SNAPSHOT = '{"number":1,"party":[{"name":"Mira"}]}'
PAYLOAD = '{"id":1,"kind":"sheet"}'
ASK = '[sheet: op="spend" pool="hp" amount="1"]'


_RECORD_COLUMNS = (
    "game_id, kind, created, who, ask, result, ruleset_id, ruleset_version, layers, sheet"
)
_EVENT_COLUMNS = "game_id, id, kind, payload, created"


def _insert(cursor: Any, game: str, first_event: int, rows: int, sqlite: bool) -> None:
    """``rows`` records and their events, each table in the driver's cheapest bulk
    write: SQLite's ``executemany`` (one statement prepared, stepped in C), PostgreSQL's
    ``COPY ... FROM STDIN`` (no statement to plan, rows streamed)."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record = (game, "sheet", now, "Mira", ASK, RESULT, "5e", 1, "[]", SNAPSHOT)
    events = [(game, first_event + i, "record", PAYLOAD, now) for i in range(rows)]
    if sqlite:
        cursor.executemany(
            f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [record] * rows,
        )
        cursor.executemany(f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?)", events)
        return
    with cursor.copy(f"COPY records ({_RECORD_COLUMNS}) FROM STDIN") as copy:
        for _ in range(rows):
            copy.write_row(record)
    with cursor.copy(f"COPY events ({_EVENT_COLUMNS}) FROM STDIN") as copy:
        for event in events:
            copy.write_row(event)


def storage_floor(db_url: str, rounds: int) -> dict[int, float]:
    """Median ms of one transaction writing 5 and 45 minimal records with their events,
    the two in turn, on a fresh store at ``db_url``."""
    store = open_store(db_url)
    try:
        with store.write() as session:
            sync_packaged_rulesets(session)
        with store.write() as session:
            made = games.create_game(session, Access.local(), "floor", "dnd5e-srd", None, [])
        game = str(made["id"])
        sqlite = db_url.startswith("sqlite")
        raw = store.engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert driver is not None
            took: dict[int, list[float]] = {5: [], 45: []}
            next_event = 1
            for round_ in range(rounds + 10):
                for rows in took:
                    t0 = time.perf_counter()
                    cursor = driver.cursor()
                    if sqlite:
                        cursor.execute("BEGIN IMMEDIATE")
                    _insert(cursor, game, next_event, rows, sqlite)
                    driver.commit()
                    if round_ >= 10:  # the first ten warm the file and the caches
                        took[rows].append((time.perf_counter() - t0) * 1000)
                    next_event += rows
        finally:
            raw.close()
    finally:
        store.close()
    return {rows: statistics.median(ms) for rows, ms in took.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="texts of each kind in (b)")
    parser.add_argument("--requests", type=int, default=150, help="requests of each text in (a)")
    parser.add_argument("--rounds", type=int, default=300, help="transactions of each size in (c)")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    args = parser.parse_args(argv)
    ruleset, party, _ = _table()
    api = {name: median for name, median, _ in bench_api(ruleset, party, args.texts)}
    core = api["40 commands + 5 checks"] - api["5 checks alone"]
    print(f"(b) the core: forty commands add {core:.3f} ms to resolve_text (median)")
    print()
    header = f"{'store':<11}{'5 checks p50':>13}{'budget':>8}{'core':>7}{'floor':>7}{'sum':>7}"
    lines = [header + "  within the budget"]
    with tempfile.TemporaryDirectory(prefix="dicebound-floor-") as logs:
        for backend, fresh_store in backends(args.backends, args.pg):
            with fresh_store() as db_url:
                log = Path(logs) / f"server-{backend}.log"
                rows = bench_service(backend, db_url, args.requests, 60.0, log)
            five = next(p50 for _, name, _, p50, _, _ in rows if name == "5 checks alone")
            with fresh_store() as url:
                floor_ms = storage_floor(url, args.rounds)
            floor = floor_ms[45] - floor_ms[5]
            budget = five / 4
            print(
                f"(c) {backend}: one transaction of 5 minimal records and events "
                f"{floor_ms[5]:.3f} ms, of 45 {floor_ms[45]:.3f} ms (median)"
            )
            total = core + floor
            verdict = "yes" if total <= budget else f"NO ({total / budget:.1f} times it)"
            lines.append(
                f"{backend:<11}{five:>13.2f}{budget:>8.2f}{core:>7.2f}{floor:>7.2f}"
                f"{total:>7.2f}  {verdict}"
            )
    print()
    print("ms per text: the budget is a quarter of the 5 checks' p50 (a rate within 20%);")
    print("core (b) and floor (c) are what forty commands add at the least")
    print("\n".join(lines))
    print("load average:", ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
