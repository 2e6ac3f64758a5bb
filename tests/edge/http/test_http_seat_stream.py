"""The seat filter on a live stream (docs/service.md "The event stream"): real uvicorn
processes, real Server-Sent Events, SQLite and PostgreSQL.

A stream that is caught up is served from its process's feed (the game's recent events,
read once for every stream of that game), not from the store; the filter must hold
there too. A player's open stream receives no seat made or revoked for another
character, while the game master's stream, open beside it, receives each one; a change
every seat may read, committed after them, reaches both, so the player's stream was
live all along. When the player's own seat is revoked, its stream ends and its token
reads nothing more. On PostgreSQL the streams are held by one process and the writes
go through another, so the events cross processes by ``LISTEN``/``NOTIFY``.
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
            peets = ok(gm.post(_seat(game, PEET)), 201)["token"]
            master = Subscriber(streams, game, gm_token).start()
            player = Subscriber(streams, game, peets).start()
            _live(master)
            _live(player)

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
