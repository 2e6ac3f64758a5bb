"""Sheet commands: a Game Master's text of forty ``[sheet:]`` commands and five checks,
through the public API and through a real service, side by side with its parts.

The ruleset is Marinara's fifth edition example (``../shared/marinara``, beside the
repository), which has every thing a command names: hit points with a temporary
buffer, spell slots in a group, pact slots, hit dice, counters on list rows, tracks,
conditions, a text note, rests and a catalog. The party is Mira (a level-5 caster with
Ki, Luck and Second Effort counters) and Tam the Bold. The forty commands are a mix a
long scene writes: spend, restore and its alias heal, pool damage, temp, track,
condition (one for the party), state, note, rest (short, then long for the party) and
use (and its alias cast), a few of them refused as a model's slips are; the five checks
stand among them, each after the commands before it. The long rest and the closing
commands bring every pool, track and condition back, so the text can be played again
and again on a stored party and reads the same each time.

(a) Through ``dicebound.resolve_text``: milliseconds per text, median and p90, for the
    forty commands and five checks, beside the five checks alone and the forty commands
    alone (one run, the three in turn, a fresh seed each time). Goal: the whole text
    under 5 ms.
(b) Through ``POST /games/{game}/checks`` on a real ``dicebound serve`` (loopback, one
    client, SQLite; PostgreSQL too when 127.0.0.1:5432 answers): texts per second and
    p50/p99 for the whole text beside the five checks alone, interleaved in one run, each
    request one transaction writing its records (45 or 5). Goal: within 20% of each
    other.

Run: ``.venv/bin/python bench/sheet_commands.py [--texts 300] [--requests 200]
[--seconds 30] [--backends sqlite,postgresql]`` (``--pg URL`` as in ``http_checks.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from urllib.parse import quote, urlsplit

from http_checks import DEFAULT_PG, Connection, Server, postgresql_store, sqlite_store

from dicebound import compile_ruleset, load_character, resolve_text
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character

MARINARA_5E = Path(__file__).resolve().parents[2] / "shared" / "marinara"
MARINARA_5E /= "ruleset-5e-2014.example.json"

MIRA: dict[str, object] = {
    "name": "Mira",
    "sheet": {
        "v": 1,
        "build": {
            "abilities": {"dex": 16, "wis": 15, "con": 13},
            "skills": {"stealth": "expertise", "perception": "proficient"},
            "fields": {
                "level": 5,
                "class": "Monk",
                "hp_max": 31,
                "spellcasting_ability": "wis",
                "slots_max_1": 4,
                "slots_max_2": 3,
                "slots_max_3": 2,
                "pact_slots_max": 2,
            },
            "lists": {
                "counters": [
                    {"name": "Ki", "max": 5, "recharge": "short"},
                    {"name": "Luck", "max": 3, "recharge": "long"},
                    {
                        "name": "Second Effort",
                        "max": 1,
                        "recharge": "short",
                        "_catalog": "feats/second-effort",
                    },
                ],
                "features": [
                    {"name": "Second Effort", "_catalog": "feats/second-effort"},
                ],
            },
        },
    },
}
TAM: dict[str, object] = {
    "name": "Tam the Bold",
    "sheet": {"v": 1, "build": {"abilities": {"str": 16}, "fields": {"level": 3, "hp_max": 28}}},
}

COMMANDS: tuple[str, ...] = (
    '[sheet: op="spend" pool="1st-level slots" amount="1"]',
    '[sheet: op="damage" pool="hp" amount="7"]',
    '[sheet: op="temp" pool="Hit points" amount="5"]',
    '[sheet: op="damage" pool="hp" amount="9" who="Tam the Bold"]',
    '[sheet: op="condition" condition="Poisoned"]',
    '[sheet: op="note" field="concentration" value="Bless"]',
    '[sheet: op="track" track="Exhaustion" by="1"]',
    '[sheet: op="use" name="Second Effort"]',
    '[sheet: op="spend" pool="Ki" amount="2"]',
    '[sheet: op="heal" pool="hp" amount="4" who="tam the bold"]',
    '[sheet: op="cast" spell="Second Effort"]',  # refused: insufficient
    '[sheet: op="spend" pool="slots_2" amount="1"]',
    '[sheet: op="state" state="Stance" value="Reckless"]',  # refused: no such state
    '[sheet: op="condition" condition="poisoned" state="off"]',
    '[sheet: op="spend" pool="Hit dice" amount="1"]',
    '[sheet: op="restore" pool="hp" amount="6"]',
    '[sheet: op="track" track="death_save_failures" by="1" who="Tam the Bold"]',
    '[sheet: op="condition" condition="Prone" who="party"]',
    '[sheet: op="spend" pool="Pact Magic slots" amount="1"]',
    '[sheet: op="rest" rest="short"]',
    '[sheet: op="spend" pool="Luck" amount="1"]',
    '[sheet: op="damage" pool="hp" amount="12"]',
    '[sheet: op="spend" pool="3rd-level slots" amount="3"]',  # refused: insufficient
    '[sheet: op="note" field="Concentrating on" value="Hold Person"]',
    '[sheet: op="track" track="death_save_successes" to="2" who="Tam the Bold"]',
    '[sheet: op="condition" condition="Frightened" who="Tam the Bold"]',
    '[sheet: op="spend" pool="Ki" amount="1"]',
    '[sheet: op="temp" pool="hp" amount="8" who="Tam the Bold"]',
    '[sheet: op="damage" pool="hp" amount="5" who="Tam the Bold"]',
    '[sheet: op="use" name="Second Effort"]',
    '[sheet: op="spend" pool="hit points" amount="2" who="Nobody"]',  # refused: no such card
    '[sheet: op="condition" condition="Prone" state="off" who="party"]',
    '[sheet: op="condition" condition="frightened" state="remove" who="Tam the Bold"]',
    '[sheet: op="track" track="Exhaustion" by="1"]',
    '[sheet: op="rest" rest="Long rest" who="party"]',
    '[sheet: op="track" track="Exhaustion" to="0"]',
    '[sheet: op="temp" pool="hp" amount="0"]',
    '[sheet: op="temp" pool="hp" amount="0" who="Tam the Bold"]',
    '[sheet: op="restore" pool="Hit dice" amount="5"]',
    '[sheet: op="spend" pool="slots_9" amount="1"]',  # refused: no 9th-level slots
)
CHECKS: tuple[str, ...] = (
    '[skill_check: skill="Stealth" dc="15"]',
    '[skill_check: skill="Athletics" dc="12" who="Tam the Bold"]',
    '[skill_check: skill="Perception" dc="13"]',
    '[skill_check: skill="Arcana" dc="10" mode="advantage"]',
    '[skill_check: skill="Survival" dc="14" who="Tam the Bold"]',
)
PROSE = ("Mira slips through the rain.", "Tam grunts.", "The bridge sways.", "They press on.")


def _text(commands: Sequence[str], checks: Sequence[str]) -> str:
    """Prose with the commands, and a check after every eighth command (or alone)."""
    parts = []
    for i, command in enumerate(commands):
        parts += [PROSE[i % len(PROSE)], command]
        if (i + 1) % 8 == 0 and checks:
            parts.append(checks[(i // 8) % len(checks)])
    if not commands:
        for i, check in enumerate(checks):
            parts += [PROSE[i % len(PROSE)], check]
    return " ".join(parts)


FULL = _text(COMMANDS, CHECKS)
CHECKS_ONLY = _text((), CHECKS)
COMMANDS_ONLY = _text(COMMANDS, ())


def _table() -> tuple[Ruleset, list[Character], dict[str, object]]:
    if not MARINARA_5E.exists():
        raise SystemExit(
            f"{MARINARA_5E} is absent: this bench plays Marinara's fifth edition example "
            "(no packaged ruleset declares rests)."
        )
    raw = json.loads(MARINARA_5E.read_text(encoding="utf-8"))
    ruleset = compile_ruleset(raw)
    return ruleset, [load_character(ruleset, MIRA), load_character(ruleset, TAM)], raw


def _percentile(values: Sequence[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


# ── (a) resolve_text ─────────────────────────────────────────────────────────


def _timed(ruleset: Ruleset, party: list[Character], text: str, seed: int) -> float:
    """Milliseconds ``resolve_text`` takes on ``text`` with ``seed``."""
    t0 = time.perf_counter()
    resolve_text(ruleset, party, text, seed=str(seed))
    return (time.perf_counter() - t0) * 1000


def bench_api(
    ruleset: Ruleset, party: list[Character], texts: int
) -> list[tuple[str, float, float]]:
    """Median and p90 ms per text of each text through ``resolve_text``, the three in
    turn, each call with its own seed."""
    cases = (
        ("40 commands + 5 checks", FULL),
        ("5 checks alone", CHECKS_ONLY),
        ("40 commands alone", COMMANDS_ONLY),
    )
    report = resolve_text(ruleset, party, FULL, seed="0")
    assert len(report.sheet) == len(COMMANDS) and len(report.results) == len(CHECKS), report
    refused = [o.reason for o in report.sheet if not o.ok]
    print(
        f"  the whole text: {len(report.sheet)} commands ({len(refused)} refused: "
        f"{', '.join(sorted({str(r) for r in refused}))}), {len(report.results)} checks",
        file=sys.stderr,
    )
    took: dict[str, list[float]] = {name: [] for name, _ in cases}
    for i in range(10):  # warm-up: memos filled, code paths loaded
        for _, text in cases:
            resolve_text(ruleset, party, text, seed=str(i))
    for i in range(texts):
        for name, text in cases:
            took[name].append(_timed(ruleset, party, text, i))
    return [(name, statistics.median(ms), _percentile(ms, 0.9)) for name, ms in took.items()]


# ── (b) through the service ──────────────────────────────────────────────────


def _pg_answers(url: str) -> bool:
    parts = urlsplit(url.replace("postgresql+psycopg", "postgresql"))
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5432), 2):
            return True
    except OSError:
        return False


def backends(names: str, pg: str) -> list[tuple[str, Callable[[], AbstractContextManager[str]]]]:
    """Each store named in ``names`` (``sqlite,postgresql``) that can be reached, with
    a maker of a fresh database of it (a context giving its URL); PostgreSQL is left
    out, with a line on standard error, when nothing answers at ``pg``."""
    chosen: list[tuple[str, Callable[[], AbstractContextManager[str]]]] = []
    for backend in [b.strip() for b in names.split(",") if b.strip()]:
        if backend == "postgresql" and not _pg_answers(pg):
            print("  postgresql: nothing answers at 127.0.0.1:5432; left out", file=sys.stderr)
            continue
        chosen.append(
            (backend, sqlite_store if backend == "sqlite" else lambda: postgresql_store(pg))
        )
    return chosen


def _setup_game(port: int, admin: str, raw: dict[str, object]) -> tuple[str, str]:
    conn = Connection(port, admin)
    status, body = conn.request("POST", "/rulesets", raw)
    assert status in (200, 201), body
    status, body = conn.request("POST", "/games", {"name": "bench", "ruleset": raw["id"]})
    assert status == 201, body
    made = json.loads(body)
    conn.close()
    player = Connection(port, made["token"])
    for character in (MIRA, TAM):
        name = quote(str(character["name"]), safe="")
        status, body = player.request("PUT", f"/games/{made['id']}/characters/{name}", character)
        assert status == 201, body
    player.close()
    return made["id"], made["token"]


def bench_service(
    backend: str, db_url: str, requests: int, seconds: float, log: Path
) -> list[tuple[str, str, float, float, float, int]]:
    """(backend, text, texts/s, p50 ms, p99 ms, non-2xx) for the whole text and the
    checks alone, sent in turn on one keep-alive connection."""
    admin = "bench-" + secrets.token_urlsafe(32)
    server = Server(db_url, log, admin)
    rows = []
    try:
        server.wait()
        _, raw = _table()[1:]
        game, token = _setup_game(server.port, admin, raw)
        conn = Connection(server.port, token)
        cases = (("40 commands + 5 checks", FULL), ("5 checks alone", CHECKS_ONLY))
        status, body = conn.request("POST", f"/games/{game}/checks", {"text": FULL})
        answer = json.loads(body)
        assert status == 200 and len(answer.get("sheet", ())) == len(COMMANDS), body[:2000]
        for _ in range(5):  # warm-up
            for _, text in cases:
                conn.request("POST", f"/games/{game}/checks", {"text": text})
        took: dict[str, list[float]] = {name: [] for name, _ in cases}
        errors = dict.fromkeys(took, 0)
        deadline = time.monotonic() + seconds
        for _ in range(requests):
            if time.monotonic() > deadline:
                break
            for name, text in cases:
                t0 = time.perf_counter()
                status, _ = conn.request("POST", f"/games/{game}/checks", {"text": text})
                took[name].append((time.perf_counter() - t0) * 1000)
                errors[name] += status >= 300
        conn.close()
        for name, ms in took.items():
            rows.append(
                (
                    backend,
                    name,
                    1000 * len(ms) / sum(ms),
                    _percentile(ms, 0.5),
                    _percentile(ms, 0.99),
                    errors[name],
                )
            )
        print(f"  {backend}: {len(took[cases[0][0]])} requests of each text", file=sys.stderr)
    finally:
        server.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="texts of each kind in (a)")
    parser.add_argument("--requests", type=int, default=200, help="requests of each text in (b)")
    parser.add_argument("--seconds", type=float, default=30.0, help="at most this long per store")
    parser.add_argument("--backends", default="sqlite,postgresql", help="sqlite,postgresql")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL maintenance database URL")
    parser.add_argument("--no-service", action="store_true", help="(a) only")
    args = parser.parse_args(argv)
    ruleset, party, _ = _table()
    print(
        f"text: {len(FULL):,} characters, {len(COMMANDS)} commands, {len(CHECKS)} checks",
        file=sys.stderr,
    )

    api = bench_api(ruleset, party, args.texts)
    load_after_api = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    service: list[tuple[str, str, float, float, float, int]] = []
    if not args.no_service:
        with tempfile.TemporaryDirectory(prefix="dicebound-bench-logs-") as logs:
            for backend, fresh_store in backends(args.backends, args.pg):
                with fresh_store() as db_url:
                    log = Path(logs) / f"server-{backend}.log"
                    service += bench_service(backend, db_url, args.requests, args.seconds, log)

    print()
    print(f"(a) resolve_text, {args.texts} texts of each")
    print(f"{'text':<26}{'median ms':>11}{'p90 ms':>9}")
    for name, median, p90 in api:
        print(f"{name:<26}{median:>11.2f}{p90:>9.2f}")
    whole = api[0][1]
    print(f"goal: the whole text under 5 ms (median): {'yes' if whole < 5 else 'NO'}")
    print(f"load average when (a) ended: {load_after_api}, {os.cpu_count()} CPUs")
    if service:
        print()
        print("(b) POST /games/{game}/checks, one client, the two texts in turn")
        print(f"{'store':<12}{'text':<26}{'texts/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
        for backend, name, rate, p50, p99, errors in service:
            print(f"{backend:<12}{name:<26}{rate:>9.0f}{p50:>9.1f}{p99:>9.1f}{errors:>8}")
        for backend in dict.fromkeys(row[0] for row in service):
            full, alone = (row[2] for row in service if row[0] == backend)
            within = full >= 0.8 * alone
            print(
                f"goal {backend}: the whole text within 20% of the checks alone: "
                f"{full / alone:.2f} of its rate, {'yes' if within else 'NO'}"
            )
        print(f"load average when (b) ended: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
