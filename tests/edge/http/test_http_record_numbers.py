"""Records numbered within their game, over real servers: SQLite, and two processes on
one PostgreSQL database writing one game at once. Every record a game holds has a
number from 1 to N exactly once, growing as its ids grow, whatever other games wrote
between; each answer, record and event carries the number its record was given.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from events_support import stored_events
from server_support import (
    all_records,
    client,
    logs_on_failure,
    ok,
    post_at_once,
    reserve_game,
    running,
)
from service_support import store_url_for

pytestmark = pytest.mark.server

PUSH = '[skill_check: skill="Push" difficulty="Steady"]'
SPEND_ONE = '[sheet: op="spend" pool="resolve" amount="1"]'
TEXTS = (PUSH, f"{PUSH} then {SPEND_ONE}", f"{SPEND_ONE} {PUSH} {PUSH}")
CLIENTS = 24


def _answered(answers: list[Any]) -> dict[int, int]:
    """Each record an answer names, by id: its number."""
    entries = [e for a in answers for e in (*a["results"], *a["sheet"])]
    return {e["id"]: e["number"] for e in entries if e["id"] is not None}


def _numbers_at_once(bases: list[str], db: str) -> None:
    """Game B first holds records, then game A takes checks from many clients at once over
    ``bases`` while B takes some too: each game's numbers are 1..N exactly once."""
    other, other_token = reserve_game(bases[0])
    with client(bases[0], other_token) as player:
        ok(player.post(f"/games/{other}/checks", json={"text": f"{PUSH} {PUSH}"}))
    game, token = reserve_game(bases[-1], resolve=40)
    bodies = [{"text": TEXTS[i % len(TEXTS)]} for i in range(CLIENTS)]
    with ThreadPoolExecutor(2) as both:  # B's checks among A's
        made = both.submit(post_at_once, bases, token, f"/games/{game}/checks", bodies)
        more = [{"text": PUSH}] * 6
        also = both.submit(post_at_once, bases, other_token, f"/games/{other}/checks", more)
        answers, also_answered = made.result(timeout=180), also.result(timeout=180)

    with client(bases[0], token) as player:
        stored = all_records(player, game)
    with client(bases[-1], other_token) as player:
        stored_other = all_records(player, other)
    count = sum(len(a["results"]) + len(a["sheet"]) for a in answers)
    assert count == CLIENTS // 3 * (1 + 2 + 3)
    by_id = sorted((r["id"], r["number"]) for r in stored)
    assert [n for _, n in by_id] == list(range(1, count + 1))  # once each, growing with ids
    assert _answered(answers) == dict(by_id)
    other_by_id = sorted((r["id"], r["number"]) for r in stored_other)
    assert [n for _, n in other_by_id] == list(range(1, 2 + 6 + 1))
    assert _answered(also_answered).items() <= dict(other_by_id).items()
    assert by_id[0][0] > 2  # the game's #1 is not the store's first record
    told = {e["id"]: e["number"] for _, kind, e in stored_events(db, game) if kind == "record"}
    assert told == dict(by_id)


@logs_on_failure
def test_a_game_s_records_are_numbered_from_one_on_sqlite(tmp_path: Path) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path) as [server]:
        _numbers_at_once([server.base], db)


@logs_on_failure
def test_two_processes_on_one_postgresql_number_a_game_s_records_once_each(
    tmp_path: Path,
) -> None:
    with store_url_for("postgresql", tmp_path) as db, running(db, tmp_path, count=2) as servers:
        _numbers_at_once([s.base for s in servers], db)
