"""A fight turn through ``POST /games/{game}/checks`` beside a check through the same
route, on the same server and game: the server's CPU per request of each, and their
ratio.

The game is the fight tests' F5 (``tests/fight/fight_fixtures.py``, read from
``../shared`` beside the repository) with Brenna and Corwin; the fight is A-start
(Brenna 22, Corwin 16, Snag 7, Rot 3). A **turn** is one text of two tags, the combatant
on turn acting and then ending its turn (``[fight: op="act" ...] [fight: op="end-turn"
...]``): Brenna swings her Longsword at Snag, Corwin dodges, Snag's Scimitar and Rot's
Bite go at Brenna. Each is sent with forced faces that miss (a 2), so nobody's health
moves and the fight turns round for ever: every request plays a real turn (its menu,
its attack, its budgets, the turn's end, the next turn's refills, two records and the
fight's state written in one transaction) and none ends the fight. The **check** is
``[skill_check: skill="Athletics" dc="15" who="Brenna"]`` with a seed.

The two are measured in blocks, in turn (interleaved, so a change in the machine's load
falls on both), one keep-alive connection, one request at a time; a block's CPU is the
server processes' own clock (from /proc) over the block. Printed: the median over the
blocks of CPU ms per request and wall ms per request of each, and the ratio of the CPU
medians. Goal: a fight turn at most 1.5 times a check's server CPU.

Run: ``.venv/bin/python bench/fight_http.py [--blocks 15] [--per-block 40]
[--backends sqlite,postgresql]``
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "fight")]

from fight_fixtures import BRENNA, CORWIN, _f5_doc  # noqa: E402
from http_checks import (  # noqa: E402
    DEFAULT_PG,
    Connection,
    Server,
    _cpu_seconds,
    postgresql_store,
    sqlite_store,
)

A_START = '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot"]'
CHECK = '[skill_check: skill="Athletics" dc="15" who="Brenna"]'
GOAL = 1.5


def _turn(who: str, option: str, target: str | None) -> str:
    aimed = f' target="{target}"' if target else ""
    return (
        f'[fight: op="act" who="{who}" option="{option}"{aimed}] [fight: op="end-turn" who="{who}"]'
    )


# the turns in initiative order, each with the faces it throws (a 2: every attack misses)
TURNS = [
    (_turn("Brenna", "Longsword", "Snag"), [2]),
    (_turn("Corwin", "standard:dodge", None), []),
    (_turn("Snag", "Scimitar", "Brenna"), [2]),
    (_turn("Rot", "Bite", "Brenna"), [2]),
]


def _post(conn: Connection, path: str, body: object) -> dict[str, object]:
    status, raw = conn.request("POST", path, body)
    if status not in (200, 201):
        raise SystemExit(f"POST {path}: {status} {raw[:400]!r}")
    answer: dict[str, object] = json.loads(raw)
    return answer


def _game(conn: Connection) -> tuple[str, str]:
    """A game on F5 with Brenna and Corwin, A-start played: its id and token."""
    ruleset = json.loads(_f5_doc())
    _post(conn, "/rulesets", ruleset)
    game = _post(conn, "/games", {"name": "A fight", "ruleset": ruleset["id"]})
    gm = Connection(conn.conn.port, str(game["token"]))
    for raw in (BRENNA, CORWIN):
        status, text = gm.request("PUT", f"/games/{game['id']}/characters/{raw['name']}", raw)
        if status != 201:
            raise SystemExit(f"PUT character: {status} {text[:300]!r}")
    started = _post(gm, f"/games/{game['id']}/checks", {"text": A_START, "faces": [20, 14, 5, 3]})
    steps = started["fight"]["steps"]  # type: ignore[index]
    if not steps[0]["ok"]:
        raise SystemExit(f"the fight did not start: {steps[0]}")
    gm.close()
    return str(game["id"]), str(game["token"])


def _block(
    server: Server, conn: Connection, bodies: list[dict[str, object]], path: str
) -> tuple[float, float]:
    """CPU ms and wall ms per request over one block of requests."""
    pids = server.pids()
    cpu = sum(_cpu_seconds(p) for p in pids)
    wall = time.perf_counter()
    for body in bodies:
        answer = _post(conn, path, body)
        fight = answer.get("fight") or {}
        for step in fight.get("steps", []):  # type: ignore[union-attr]
            if not step["ok"]:
                raise SystemExit(f"a turn was refused: {step['tag']}")
    wall = time.perf_counter() - wall
    cpu = sum(_cpu_seconds(p) for p in pids) - cpu
    return cpu * 1000 / len(bodies), wall * 1000 / len(bodies)


def bench(backend: str, db_url: str, blocks: int, per_block: int) -> float:
    admin = "dba_" + secrets.token_hex(24)
    with tempfile.TemporaryDirectory() as folder:
        server = Server(db_url, Path(folder) / "server.log", admin, workers=1)
        try:
            server.wait()
            conn = Connection(server.port, admin)
            game, token = _game(conn)
            conn.close()
            gm = Connection(server.port, token)
            path = f"/games/{game}/checks"
            turns = [{"text": TURNS[i % 4][0], "faces": TURNS[i % 4][1]} for i in range(per_block)]
            checks = [{"text": CHECK, "seed": f"bench-{i}"} for i in range(per_block)]
            _block(server, gm, checks, path)  # warm both up
            _block(server, gm, turns, path)
            measured: dict[str, list[tuple[float, float]]] = {"check": [], "fight turn": []}
            for _ in range(blocks):
                measured["check"].append(_block(server, gm, checks, path))
                measured["fight turn"].append(_block(server, gm, turns, path))
            gm.close()
        finally:
            server.stop()
    cpu = {side: statistics.median(c for c, _ in cells) for side, cells in measured.items()}
    print(f"\n{backend}: {blocks} blocks of {per_block} requests each, one client")
    print(f"  {'':<12}{'server CPU ms/req':>20}{'wall ms/req':>14}")
    for side, cells in measured.items():
        wall = statistics.median(w for _, w in cells)
        print(f"  {side:<12}{cpu[side]:>20.3f}{wall:>14.3f}")
    ratio = cpu["fight turn"] / cpu["check"]
    verdict = "ok" if ratio <= GOAL else "OVER"
    print(f"  a fight turn is {ratio:.2f}x a check's server CPU (goal at most {GOAL}x): {verdict}")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--per-block", type=int, default=40, help="a multiple of 4: whole rounds")
    parser.add_argument("--backends", default="sqlite")
    parser.add_argument("--pg", default=DEFAULT_PG)
    args = parser.parse_args()
    if args.per_block % 4:
        parser.error("--per-block must be a multiple of 4 (a block plays whole rounds)")
    for backend in args.backends.split(","):
        with ExitStack() as stack:
            url = stack.enter_context(
                sqlite_store() if backend == "sqlite" else postgresql_store(args.pg)
            )
            bench(backend, url, args.blocks, args.per_block)


if __name__ == "__main__":
    main()
