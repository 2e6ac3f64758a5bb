"""The fast lane of ``POST /games/{game}/checks`` (edge/http/lane.py) answers as the
FastAPI route does: the same bytes and headers for a plain check, the same problem for
every refusal, whether the lane words it (through the app's handlers) or hands the
request on. A body sent as ``application/check+json`` is JSON to FastAPI but never
taken by the lane: it is the route's answer to compare with."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.edge.http import lane as lane_module
from dicebound.edge.http.threads import Threads
from http_api_support import STEALTH, Game, make_game, problem_of, without_ids

ROUTE_ONLY = "application/check+json"


@pytest.fixture
def lane_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The games the lane resolved a check of, in order."""
    calls: list[str] = []
    resolve = lane_module.resolve

    def counted(store: Any, caller: Any, game: str, **fields: Any) -> bytes:
        calls.append(game)
        return resolve(store, caller, game, **fields)

    monkeypatch.setattr(lane_module, "resolve", counted)
    yield calls


def _post(client: TestClient, game: Game, body: object, content_type: str, **headers: str) -> Any:
    return client.post(
        game.path("checks"),
        content=json.dumps(body),  # ASCII: a lone surrogate goes as its escape
        headers={**game.headers, "Content-Type": content_type, **headers},
    )


def _same_answer(lane: Any, route: Any) -> None:
    assert lane.status_code == route.status_code == 200, (lane.text, route.text)
    assert without_ids(lane.json()) == without_ids(route.json())
    own = ("content-length", "x-request-id")  # the id: each request's own
    assert {k: v for k, v in lane.headers.items() if k not in own} == {
        k: v for k, v in route.headers.items() if k not in own
    }


@pytest.mark.parametrize(
    "options",
    [{"seed": "lane-1"}, {"seed": 42}, {"faces": [17]}, {"seed": "7", "choose": "fail"}],
    ids=["a seed", "a whole-number seed", "faces", "a choice"],
)
def test_the_lane_answers_a_plain_check_as_the_route(
    service: TestClient, lane_calls: list[str], options: dict[str, Any]
) -> None:
    by_lane = make_game(service, "dnd5e-srd", "mira")
    by_route = make_game(service, "dnd5e-srd", "mira")
    body = {"text": STEALTH, **options}
    lane = _post(service, by_lane, body, "application/json")
    route = _post(service, by_route, body, ROUTE_ONLY)
    assert lane_calls == [by_lane.id]
    _same_answer(lane, route)
    assert lane.headers["x-content-type-options"] == "nosniff"
    assert lane.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ({"text": STEALTH, "seed": "1", "faces": [3]}, {}),  # the route's own refusal
        ({"text": STEALTH, "dice": 3}, {}),  # an unknown key
        ({"text": STEALTH, "seed": True}, {}),
        ({"text": STEALTH, "seed": "two words"}, {}),
        ({"text": STEALTH, "faces": [True]}, {}),
        ({"text": STEALTH, "faces": "17"}, {}),
        ({"text": STEALTH, "choose": "maybe"}, {}),
        ({"text": 7}, {}),
        ({"text": "\ud800"}, {}),  # a lone surrogate, escaped in the JSON
        ([STEALTH], {}),
        ({"text": STEALTH}, {"Idempotency-Key": "k" * 201}),
        ({"text": '[skill_check: skill="Flying" dc="10"]', "seed": "1"}, {}),  # nothing rolls
    ],
    ids=[
        "seed and faces",
        "unknown key",
        "seed true",
        "seed with a space",
        "a face true",
        "faces a string",
        "an unknown choice",
        "text a number",
        "a lone surrogate",
        "a list",
        "a key too long",
        "nothing resolved",
    ],
)
def test_a_refusal_is_the_routes_whichever_takes_it(
    service: TestClient, body: object, headers: dict[str, str]
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    lane = _post(service, game, body, "application/json", **headers)
    route = _post(service, game, body, ROUTE_ONLY, **headers)
    assert (lane.status_code, lane.json()) == (route.status_code, route.json())
    # the same headers, each request's own id apart
    assert lane.headers.keys() == route.headers.keys()
    assert {k: v for k, v in lane.headers.items() if k != "x-request-id"} == {
        k: v for k, v in route.headers.items() if k != "x-request-id"
    }
    if lane.status_code != 200:
        problem_of(lane, lane.status_code)


def test_a_check_the_store_refuses_is_answered_by_the_apps_handlers(
    service: TestClient, lane_calls: list[str]
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    other = make_game(service, "dnd5e-srd", "mira")
    # another game's token, and a game that is not there: refused inside the check
    stranger = Game(game.id, other.token, game.ruleset, game.version, game.characters)
    for asked in (stranger, Game("nowhere", game.token, "", 0, ())):
        lane = _post(service, asked, {"text": STEALTH}, "application/json")
        route = _post(service, asked, {"text": STEALTH}, ROUTE_ONLY)
        assert (lane.status_code, lane.json()) == (route.status_code, route.json())
        problem_of(lane, 404)
    assert lane_calls == [game.id, "nowhere"]


def test_a_retry_through_the_lane_answers_the_same_and_pays_once(
    service: TestClient, lane_calls: list[str]
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    key = {"Idempotency-Key": "lane-retry"}
    first = _post(service, game, {"text": STEALTH}, "application/json", **key)
    again = _post(service, game, {"text": STEALTH}, "application/json", **key)
    by_route = _post(service, game, {"text": STEALTH}, ROUTE_ONLY, **key)
    assert first.status_code == 200, first.text
    assert first.content == again.content == by_route.content
    other = _post(service, game, {"text": STEALTH, "seed": "9"}, "application/json", **key)
    assert "another request" in problem_of(other, 422)["detail"]
    assert len(lane_calls) == 3


# ── the threads ──────────────────────────────────────────────────────────────


def _run(threads: Threads, work: Callable[[], Any]) -> Any:
    async def go() -> Any:
        return await threads.run(work)

    return asyncio.run(go())


def test_threads_give_the_works_result_or_raise_its_error() -> None:
    threads = Threads(2)
    assert _run(threads, lambda: threading.current_thread().name).startswith("dicebound-check")

    def fails() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        _run(threads, fails)
    threads.stop()


def test_threads_run_as_many_at_once_as_they_may_and_queue_the_rest() -> None:
    threads = Threads(3)
    running: list[int] = []
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal most
        with lock:
            running.append(1)
            most = max(most, len(running))
        time.sleep(0.05)
        with lock:
            running.pop()

    async def go() -> None:
        await asyncio.gather(*(threads.run(work) for _ in range(8)))
        await asyncio.gather(*(threads.run(work) for _ in range(8)))

    asyncio.run(go())
    assert most == 3
    threads.stop()


def test_a_cancelled_trip_raises_at_once_and_the_work_runs_its_course() -> None:
    threads = Threads(1)
    ended = threading.Event()

    def slow() -> str:
        time.sleep(0.2)
        ended.set()
        return "dropped"

    async def go() -> None:
        trip = asyncio.ensure_future(threads.run(slow))
        await asyncio.sleep(0.05)
        trip.cancel()
        with pytest.raises(asyncio.CancelledError):
            await trip
        assert not ended.is_set()  # the shutdown answers now, not after the work
        assert await threads.run(lambda: "next") == "next"  # the one thread, once free
        assert ended.is_set()

    asyncio.run(go())
    threads.stop()
