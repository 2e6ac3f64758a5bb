"""The seat filter on a live stream (docs/service.md "The event stream"): real uvicorn
processes, real Server-Sent Events, SQLite and PostgreSQL.

A stream that is caught up is served from its process's feed (the game's recent events,
read once for every stream of that game), not from the store; the filter must hold
there too. A player's open stream receives no seat made or revoked for another
character, while the game master's stream, open beside it, receives each one; a change
every seat may read, committed after them, reaches both, so the player's stream was
live all along. When the player's own seat is revoked, its stream ends and its token
reads nothing more. On PostgreSQL the streams are held by one process and the writes
go through another, so the events cross processes by ``LISTEN``/``NOTIFY``. The ids a
player reads grow with a gap where an event was not its, and nothing is lost.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from events_support import Received, Subscriber
from http_api_support import bearer, character_file
from server_support import client, logs_on_failure, ok, running
from service_support import admin_headers, store_url_for

pytestmark = pytest.mark.server

KEEPALIVE = 0.5
PEET, MAUD = "Sneeky Peet", "Maud Harrowgate"


@pytest.fixture(autouse=True)
def quick_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers started here send a keep-alive every half second."""
    monkeypatch.setenv("DICEBOUND_KEEPALIVE", str(KEEPALIVE))


def _table(base: str) -> tuple[str, str]:
    """A step-pool game with Peet and Maud; (game id, game master's token)."""
    with httpx.Client(base_url=base, headers=admin_headers(), timeout=30) as admin:
        game = ok(
            admin.post("/games", json={"name": "Seats", "ruleset": "advanced-resolution"}), 201
        )
    with client(base, game["token"]) as gm:
        for short in ("peet", "maud"):
            file = character_file("advanced-resolution", short)
            ok(gm.put(f"/games/{game['id']}/characters/{file['name']}", json=file), 201)
    return game["id"], game["token"]


def _seat(game: str, name: str) -> str:
    return f"/games/{game}/characters/{quote(name)}/seat"


def _live(subscriber: Subscriber) -> None:
    """Wait for two keep-alives: the stream has read what it was owed, and its process's
    feed has read the game, so what is committed from now on is served from the feed."""
    deadline = time.monotonic() + 10
    while len(subscriber.comments) < 2:
        assert not subscriber.ended.is_set(), f"the stream ended: {subscriber.body}"
        assert time.monotonic() < deadline, "no keep-alive came"
        time.sleep(0.02)


def _watched(
    gm: httpx.Client, streams: str, game: str, gm_token: str
) -> tuple[str, Subscriber, Subscriber]:
    """Peet's seat made, then the game master's stream and Peet's open at ``streams``
    and live; Peet's token and the two streams."""
    peets: str = ok(gm.post(_seat(game, PEET)), 201)["token"]
    master = Subscriber(streams, game, gm_token).start()
    player = Subscriber(streams, game, peets).start()
    _live(master)
    _live(player)
    return peets, master, player


def _seats(events: list[Received]) -> list[tuple[str, bool]]:
    return [(e.data["character"], e.data["made"]) for e in events if e.kind == "seat"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@logs_on_failure
def test_a_players_open_stream_gets_no_other_seats_change_and_ends_when_its_seat_is_revoked(
    backend: str, tmp_path: Path
) -> None:
    count = 2 if backend == "postgresql" else 1
    with store_url_for(backend, tmp_path) as db, running(db, tmp_path, count) as servers:
        streams, writes = servers[0].base, servers[-1].base
        game, gm_token = _table(writes)
        with client(writes, gm_token) as gm:
            peets, master, player = _watched(gm, streams, game, gm_token)

            # Maud's seat made and revoked, then Maud's pool changed (every seat reads it)
            ok(gm.post(_seat(game, MAUD)), 201)
            assert gm.delete(_seat(game, MAUD)).status_code == 204
            maud = ok(gm.get(f"/games/{game}/characters/{quote(MAUD)}"))
            patched = gm.patch(
                f"/games/{game}/characters/{quote(MAUD)}/live",
                json={"pools": {"luck": 3}},
                headers={"If-Match": str(maud["revision"])},
            )
            ok(patched)

            kinds = ["seat", "seat", "character"]
            seen = master.wait_for(lambda got: [e.kind for e in got] == kinds)
            assert _seats(seen) == [(MAUD, True), (MAUD, False)]
            (changed,) = player.wait_for(lambda got: len(got) >= 1)
            assert (changed.id, changed.kind) == (seen[2].id, "character")
            assert changed.data["name"] == MAUD

            # Peet's own seat revoked: the master is told, the player's stream ends
            assert gm.delete(_seat(game, PEET)).status_code == 204
            seen = master.wait_for(lambda got: len(_seats(got)) == 3)
            assert _seats(seen)[-1] == (PEET, False)
            assert player.ended.wait(10), "the revoked seat's stream did not end"
            assert player.error is None and player.status == 200
            assert [e.kind for e in player.received()] == ["character"]
            assert not master.ended.is_set()
            master.close()

        with httpx.Client(base_url=streams, headers=bearer(peets), timeout=30) as revoked:
            assert revoked.get(f"/games/{game}/events").status_code == 404
            assert revoked.get("/games").status_code == 401


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@logs_on_failure
def test_a_players_event_ids_grow_with_a_gap_where_an_event_was_not_its_and_nothing_is_lost(
    backend: str, tmp_path: Path
) -> None:
    """docs/service.md "The event stream": ids count per game, so a player's stream skips
    the id of an event its seat is not shown (another player's seat made); the ids it
    reads still grow, the gap is no loss, and resuming from either side of it sends
    exactly what the player may read."""
    with store_url_for(backend, tmp_path) as db, running(db, tmp_path, 1) as servers:
        base = servers[0].base
        game, gm_token = _table(base)
        with client(base, gm_token) as gm:
            peets, master, player = _watched(gm, base, game, gm_token)

            def luck(value: int) -> None:
                where = f"/games/{game}/characters/{quote(MAUD)}"
                revision = ok(gm.get(where))["revision"]
                ok(
                    gm.patch(
                        f"{where}/live",
                        json={"pools": {"luck": value}},
                        headers={"If-Match": str(revision)},
                    )
                )

            luck(3)
            ok(gm.post(_seat(game, MAUD)), 201)  # not Peet's to see
            luck(2)
            every = master.wait_for(lambda got: len(got) == 3)
            assert [e.kind for e in every] == ["character", "seat", "character"]
            ids = [e.id for e in every]
            assert ids == list(range(ids[0], ids[0] + 3))  # the game's ids: no gap
            seen = player.wait_for(lambda got: len(got) == 2)
            assert [e.id for e in seen] == [ids[0], ids[2]]  # growing, the seat's id skipped
            assert [e.data for e in seen] == [every[0].data, every[2].data]  # nothing lost
            master.close()
            player.close()

        for last in (ids[0], ids[1]):  # resumed before the gap, or from an id it never read
            resumed = Subscriber(base, game, peets, last_event_id=last).start()
            (again,) = resumed.wait_for(lambda got: len(got) >= 1)
            assert (again.id, again.data) == (ids[2], every[2].data)
            time.sleep(2 * KEEPALIVE)
            assert len(resumed.received()) == 1
            resumed.close()
