"""Retention (docs/store-operations.md "Retention"), on SQLite and PostgreSQL, with the
clock passed in: events, idempotency keys and refused sheet commands' records older
than kept are pruned in batches; each game's newest event stays, so its ids go on and
a client behind the oldest kept is told to reload; records of checks, and of commands
applied, are never pruned, and each still replays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.app import events
from dicebound.app.access import Access
from dicebound.app.records import verify_record
from dicebound.errors import UsageError
from dicebound.store import Store
from dicebound.store.repo import Repo
from dicebound.store.retention import Pruned, Retention, prune
from events_support import stored_events
from http_api_support import cli, cli_json, execute, stored_value
from transfer_support import LOCKPICK, MAUD, answer, played_game


def _store(service: TestClient) -> Store:
    store: Store = service.app.state.store  # type: ignore[attr-defined]
    return store


def _records(store: Store, game: str) -> list[Any]:
    with store.read() as session:
        return [Repo(session).record(game, r.id) for r in Repo(session).records(game, None, 1000)]


@pytest.mark.parametrize("batch", [2, 500])
def test_what_is_older_than_kept_goes_in_batches_and_the_history_of_checks_stays(
    service: TestClient, store_url: str, batch: int
) -> None:
    store = _store(service)
    game = played_game(service)
    keyed = {**game.headers, "Idempotency-Key": "one-retry"}
    answer(service.post(game.path("checks"), json={"text": LOCKPICK}, headers=keyed))
    now = datetime.now(UTC)
    held = stored_events(store_url, game.id)
    before = _records(store, game.id)
    refused = [r for r in before if r.kind == "sheet" and r.result["ok"] is False]
    assert len(refused) >= 3
    retention = Retention(batch=batch)

    assert prune(store, now + timedelta(days=29), retention) == Pruned(0, 1, 0)
    assert stored_events(store_url, game.id) == held  # a month of play is kept
    assert len(_records(store, game.id)) == len(before)

    gone = prune(store, now + timedelta(days=31), retention)
    assert gone == Pruned(len(held) - 1, 0, len(refused))
    assert stored_events(store_url, game.id) == held[-1:]  # the newest stays
    after = _records(store, game.id)
    assert [r.id for r in after] == [r.id for r in before if r not in refused]
    with store.read() as session:
        for record in after:
            assert verify_record(session, Access.local(), game.id, record.id).verified
    party = answer(service.get(game.path("party"), headers=game.headers))["characters"]
    maud = next(m for m in party if m["name"] == MAUD)
    assert maud["records"]["sheet"] == sum(1 for r in after if r.kind == "sheet")
    assert prune(store, now + timedelta(days=31), retention) == Pruned(0, 0, 0)


def test_ids_go_on_after_a_prune_and_a_client_behind_the_oldest_kept_reloads(
    service: TestClient, store_url: str
) -> None:
    store = _store(service)
    game = played_game(service, texts=1)
    newest = stored_events(store_url, game.id)[-1][0]
    prune(store, datetime.now(UTC) + timedelta(days=31))
    answer(service.post(game.path("checks"), json={"text": LOCKPICK}, headers=game.headers))
    assert [e[0] for e in stored_events(store_url, game.id)] == [newest, newest + 1]
    with store.read() as session:
        behind = events.catch_up(session, Access.local(), game.id, newest - 2)
        current = events.catch_up(session, Access.local(), game.id, newest)
    assert behind.reload is not None and f"the oldest kept is {newest}" in behind.reload
    assert current.reload is None and [e.id for e in current.events] == [newest + 1]


def test_keys_past_their_day_go_and_a_key_within_it_still_answers_the_same(
    service: TestClient, store_url: str
) -> None:
    store = _store(service)
    game = played_game(service, texts=1)
    keyed = {**game.headers, "Idempotency-Key": "kept"}
    first = answer(service.post(game.path("checks"), json={"text": LOCKPICK}, headers=keyed))
    now = datetime.now(UTC)
    assert prune(store, now + timedelta(hours=23)).keys == 0
    again = answer(service.post(game.path("checks"), json={"text": LOCKPICK}, headers=keyed))
    assert again == first
    assert prune(store, now + timedelta(hours=25)).keys == 1
    assert stored_value(store_url, "SELECT count(*) FROM idempotency") == 0


def test_the_retention_is_read_from_the_environment_and_refuses_what_is_no_retention() -> None:
    assert Retention.from_environ({}) == Retention(30.0, 30.0, 500)
    assert Retention.from_environ(
        {
            "DICEBOUND_KEEP_EVENTS_DAYS": "7",
            "DICEBOUND_KEEP_REFUSED_DAYS": " 90 ",
            "DICEBOUND_PRUNE_BATCH": "50",
        }
    ) == Retention(7.0, 90.0, 50)
    with pytest.raises(UsageError, match="DICEBOUND_KEEP_EVENTS_DAYS must be a number"):
        Retention.from_environ({"DICEBOUND_KEEP_EVENTS_DAYS": "a month"})
    with pytest.raises(UsageError, match="more than 0 days"):
        Retention(events_days=0)
    with pytest.raises(UsageError, match="batch"):
        Retention(batch=0)


def test_db_prune_prunes_the_store_with_the_retention_given(
    service: TestClient, store_url: str
) -> None:
    game = played_game(service, texts=1)
    held = stored_events(store_url, game.id)
    long_ago = "2000-01-01T00:00:00.000000Z"
    execute(store_url, "UPDATE events SET created = :t", t=long_ago)
    execute(store_url, "UPDATE records SET created = :t", t=long_ago)
    assert cli_json("db", "prune", "--db", store_url, "--refused-days", "36500") == {
        "events": len(held) - 1,
        "keys": 0,
        "refused": 0,
    }
    assert cli_json("db", "prune", "--db", store_url, "--batch", "1") == {
        "events": 0,
        "keys": 0,
        "refused": 1,
    }
    assert cli("db", "prune", "--db", store_url, "--batch", "0", code=2) == ""
