"""A game's events as the store keeps them (docs/service.md "The event stream"), on
SQLite and PostgreSQL: each change writes its events in its own transaction, in the
order things happened (a text's records in text order, then each character it
changed), ids counting up per game; each event's data is what the routes answered at
that moment; a refused change writes none; the newest 1000 are kept; a deleted game's
go with it; where a stream resumes (every kept event after the client's last, or a
reload when that is older than the oldest kept, or newer than the newest); and when a
process's read for its streams asks who may still read the game (when told to, and
whenever a seat was made or revoked since its last)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.app import events
from dicebound.app.access import Access, GameMaster
from dicebound.app.errors import Invalid, NotFound
from dicebound.store import open_store
from events_support import stored_events
from http_api_support import Game, make_game, store_rows
from service_support import admin_headers

PEET, MAUD = "Sneeky Peet", "Maud Harrowgate"
LOCKPICK = (
    '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
)
MAUD_SPENDS = f'[sheet: op="spend" pool="luck" amount="1" who="{MAUD}"]'
OPEN_OFFER = [5, 1, 6]  # Peet's lockpick with these faces leaves a raise open


def _json(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def _party(service: TestClient, game: Game) -> dict[str, Any]:
    members = _json(service.get(game.path("party"), headers=game.headers))["characters"]
    return {m["name"]: m for m in members}


def _record(service: TestClient, game: Game, record_id: int) -> Any:
    return _json(service.get(game.path("records", record_id), headers=game.headers))


def _new_events(store_url: str, game: Game, seen: int) -> list[tuple[int, str, Any]]:
    return [e for e in stored_events(store_url, game.id) if e[0] > seen]


def test_each_change_is_told_in_commit_order_with_what_the_routes_answered(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet", "maud")
    party = _party(service, game)
    assert stored_events(store_url, game.id) == [
        (1, "character", party[PEET]),
        (2, "character", party[MAUD]),
    ]

    # a text: its check and its sheet command in text order, then the character changed
    checked = _json(
        service.post(
            game.path("checks"),
            json={"text": f"{LOCKPICK} {MAUD_SPENDS}", "faces": OPEN_OFFER},
            headers=game.headers,
        )
    )
    check_id, command_id = checked["results"][0]["id"], checked["sheet"][0]["id"]
    assert _new_events(store_url, game, 2) == [
        (3, "record", _record(service, game, check_id)),
        (4, "record", _record(service, game, command_id)),
        (5, "character", _party(service, game)[MAUD]),
    ]

    # the raise after the roll: the record as it now reads, then the roller who paid
    _json(
        service.post(
            game.path("records", check_id, "after"),
            json={"pool": "luck", "points": 5},
            headers=game.headers,
        )
    )
    answered = _record(service, game, check_id)
    assert answered["answered"] == {"pool": "luck", "points": 5}
    assert _new_events(store_url, game, 5) == [
        (6, "answer", answered),
        (7, "character", _party(service, game)[PEET]),
    ]

    # a patch, then a character put again
    patched = service.patch(
        game.path("characters", MAUD, "live"),
        json={"pools": {"luck": 6}},
        headers={**game.headers, "If-Match": '"2"'},
    )
    _json(patched)
    assert _new_events(store_url, game, 7) == [(8, "character", _party(service, game)[MAUD])]
    peet = _json(service.get(game.character(PEET), headers=game.headers))
    _json(
        service.put(
            game.character(PEET), json={"name": PEET, "sheet": peet["sheet"]}, headers=game.headers
        )
    )
    assert _new_events(store_url, game, 8) == [(9, "character", _party(service, game)[PEET])]


def test_a_check_that_changes_nothing_tells_only_its_records(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    text = f"{LOCKPICK} and again {LOCKPICK}"
    checked = _json(
        service.post(game.path("checks"), json={"text": text, "seed": "3"}, headers=game.headers)
    )
    ids = [r["id"] for r in checked["results"]]
    assert [(e[1], e[2]["id"]) for e in _new_events(store_url, game, 1)] == [
        ("record", ids[0]),
        ("record", ids[1]),
    ]


REFUSED = [
    pytest.param(
        "checks", {"text": LOCKPICK, "faces": [1]}, {}, 422, id="forced faces that do not fit"
    ),
    pytest.param("checks", {"text": "x" * 40_000}, {}, 413, id="a text past its size"),
    pytest.param(
        "characters/Sneeky Peet/live",
        {"pools": {"luck": 1}},
        {"If-Match": '"7"'},
        412,
        id="a stale patch",
    ),
    pytest.param(
        "characters/Nobody/live",
        {"pools": {"luck": 1}},
        {"If-Match": '"1"'},
        404,
        id="no such character",
    ),
]


@pytest.mark.parametrize(("path", "body", "headers", "status"), REFUSED)
def test_a_refused_change_tells_nothing(
    service: TestClient,
    store_url: str,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
    status: int,
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    before = store_rows(store_url)
    send = service.patch if path.endswith("/live") else service.post
    answer = send(game.path(path), json=body, headers={**game.headers, **headers})
    assert answer.status_code == status, answer.text
    assert store_rows(store_url) == before


def test_an_answer_refused_tells_nothing(service: TestClient, store_url: str) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    checked = _json(
        service.post(
            game.path("checks"), json={"text": LOCKPICK, "faces": OPEN_OFFER}, headers=game.headers
        )
    )
    after = game.path("records", checked["results"][0]["id"], "after")
    _json(service.post(after, json={"pool": "luck", "points": 5}, headers=game.headers))
    before = store_rows(store_url)
    again = service.post(after, json={"pool": "luck", "points": 1}, headers=game.headers)
    assert again.status_code == 409, again.text
    assert store_rows(store_url) == before


# ── where a stream starts ────────────────────────────────────────────────────


def _catch_up(store_url: str, game: Game, after: int | None) -> events.CaughtUp:
    store = open_store(store_url)
    try:
        with store.read() as session:
            return events.catch_up(session, Access(game.token, False), game.id, after)
    finally:
        store.close()


def test_a_stream_resumes_after_the_clients_last_event_or_is_told_to_reload(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet", "maud")
    for n in range(3):
        _json(
            service.post(
                game.path("checks"), json={"text": LOCKPICK, "seed": str(n)}, headers=game.headers
            )
        )
    # events 1..5 kept: a new stream starts after the newest; a resumed one after its last
    master = GameMaster(game.id)
    assert _catch_up(store_url, game, None) == events.CaughtUp((), None, 5, master)
    assert [e.id for e in _catch_up(store_url, game, 2).events] == [3, 4, 5]
    assert _catch_up(store_url, game, 5) == events.CaughtUp((), None, 5, master)
    assert [e.id for e in _catch_up(store_url, game, 0).events] == [1, 2, 3, 4, 5]
    ahead = _catch_up(store_url, game, 6)
    assert (ahead.events, ahead.newest) == ((), 5)
    assert ahead.reload == (
        "event 6 is newer than this game's newest (5): reload the game, then read on from here."
    )


def test_a_game_keeps_its_newest_thousand_events_and_a_stream_behind_them_reloads(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    other = make_game(service, "advanced-resolution", "peet")
    twenty = " ".join([LOCKPICK] * 20)
    for n in range(51):  # 1 put + 51 texts of 20 checks, none paying: events 1..1021
        checked = service.post(
            game.path("checks"), json={"text": twenty, "seed": str(n)}, headers=game.headers
        )
        _json(checked)
    assert [e[0] for e in stored_events(store_url, game.id)] == list(range(22, 1022))

    assert [e.id for e in _catch_up(store_url, game, 21).events] == list(range(22, 1022))
    behind = _catch_up(store_url, game, 20)
    assert (behind.events, behind.newest) == ((), 1021)
    assert behind.reload == (
        "the events after 20 are no longer kept (the oldest kept is 22): reload the game, "
        "then read on from here."
    )

    deleted = service.delete(f"/games/{game.id}", headers=admin_headers())
    assert deleted.status_code == 204, deleted.text
    assert stored_events(store_url, game.id) == []
    assert [e[0] for e in stored_events(store_url, other.id)] == [1]


def test_only_a_seat_of_the_game_may_read_its_events(service: TestClient, store_url: str) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    other = make_game(service, "advanced-resolution", "peet")
    store = open_store(store_url)
    try:
        with store.read() as session, pytest.raises(NotFound):
            events.catch_up(session, Access(other.token, False), game.id, None)
    finally:
        store.close()


def test_a_poll_asks_who_may_read_the_game_when_told_to_or_when_a_seat_changed(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    seat = _json(service.post(game.character(PEET) + "/seat", headers=game.headers), 201)
    callers = {"master": Access(game.token, False), "player": Access(seat["token"], False)}
    store = open_store(store_url)

    def poll(after: int | None, recheck: bool) -> events.Polled:
        with store.read() as session:
            return events.poll(session, game.id, callers, after, recheck=recheck)

    try:
        # events 1 (Peet put) and 2 (his seat made)
        assert poll(2, recheck=False) == events.Polled(None, (), 2)
        both = {"master": True, "player": True}
        assert poll(2, recheck=True) == events.Polled(both, (), 2)
        assert poll(1, recheck=False).allowed == both  # a seat made since: asked
        revoked = service.delete(game.character(PEET) + "/seat", headers=game.headers)
        assert revoked.status_code == 204, revoked.text
        after_revoke = poll(2, recheck=False)
        assert after_revoke.allowed == {"master": True, "player": False}
        assert [(e.id, e.kind) for e in after_revoke.events] == [(3, "seat")]
        assert poll(3, recheck=False) == events.Polled(None, (), 3)
        first = poll(None, recheck=False)  # the first read always asks
        assert first == events.Polled({"master": True, "player": False}, (), 3)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("sent", "read"),
    [(None, None), ("", None), ("0", 0), (" 42 ", 42), ("000017", 17)],
    ids=["none", "empty", "zero", "spaces around", "leading zeros"],
)
def test_a_last_event_id_is_a_whole_number(sent: str | None, read: int | None) -> None:
    assert events.last_event_id(sent) == read


@pytest.mark.parametrize(
    "sent",
    ["-1", "1.5", "abc", "١٢", "9" * 19],
    ids=["negative", "decimal", "letters", "arabic digits", "too long"],
)
def test_a_last_event_id_that_is_no_id_is_refused(sent: str) -> None:
    with pytest.raises(Invalid, match="is not one this service sent"):
        events.last_event_id(sent)
