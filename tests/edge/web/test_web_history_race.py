"""A check made while a player's page reloads (issue 44, item 1): the page's History is
merged by record id, whatever order its first read and the live event arrive in. Each
interleaving is forced: the history's answer held back until the event is drawn, and the
event held back until the history is drawn."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from http_api_support import bearer
from service_support import ServerProcess
from web_support import DESKTOP, PHONE, new_game, open_page, shoot_schemes

pytestmark = pytest.mark.server

MAUD = "Maud Harrowgate"
CHECK = f'[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="{MAUD}"]'
FRESH_HISTORY = re.compile(r"/games/[^/]+/records\?limit=10$")
RULESET = re.compile(r"/rulesets/[^/]+\?version=\d+$")


def _resolve(server: ServerProcess, game: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{server.base}/games/{game['id']}/checks",
        json={"text": CHECK},
        headers=bearer(game["token"]),
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["results"][0]
    return result


def _seat(server: ServerProcess) -> tuple[dict[str, Any], str]:
    game = new_game(server, "advanced-resolution", "maud")
    made = httpx.post(
        f"{server.base}/games/{game['id']}/characters/{quote(MAUD)}/seat",
        headers=bearer(game["token"]),
    )
    assert made.status_code == 201, made.text
    return game, made.json()["token"]


def _history_ids(page: Page) -> list[int]:
    ids: list[int] = page.locator("#history > li").evaluate_all(
        "lines => lines.map(li => Number(li.dataset.record))"
    )
    return ids


def _until(page: Page, done: Any) -> None:
    """Waits (a few seconds at most) until ``done()`` holds; the page's routes are
    handled meanwhile."""
    for _ in range(100):
        if done():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page did not ask what was awaited")


def _event_of(server: ServerProcess, game: dict[str, Any], record_id: int) -> str:
    """The service's own `record` event of a record, as its stream sends it (read from
    the game's first event on)."""
    headers = {**bearer(game["token"]), "Last-Event-ID": "0"}
    url = f"{server.base}/games/{game['id']}/events"
    with httpx.stream("GET", url, headers=headers, timeout=10) as stream:
        event: list[str] = []
        for line in stream.iter_lines():
            if line:
                event.append(line)
                continue
            fields = dict(part.split(": ", 1) for part in event if not part.startswith(":"))
            event = []
            if fields.get("event") == "record" and json.loads(fields["data"])["id"] == record_id:
                return "\n".join(f"{k}: {v}" for k, v in fields.items()) + "\n\n"
    raise AssertionError(f"no record event for #{record_id}")


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def table(
    request: pytest.FixtureRequest, chrome: Browser, server: ServerProcess, opened: list[Page]
) -> tuple[dict[str, Any], Page, dict[str, Any]]:
    """A game with one record, and its player's page (at desktop and phone width)
    listing it: the game, the page, the record."""
    game, seat = _seat(server)
    first = _resolve(server, game)
    player = open_page(chrome, server, request.param, token=seat)
    opened.append(player)
    expect(player.locator(f'#history [data-record="{first["id"]}"]')).to_be_visible()
    return game, player, first


def test_a_record_made_while_the_history_loads_stays_when_its_answer_comes_late(
    server: ServerProcess, table: tuple[dict[str, Any], Page, dict[str, Any]]
) -> None:
    game, player, first = table

    # On a reload the page reads its history twice: once when its stream opens, and once
    # when the game is picked, after its ruleset is read. The ruleset is held, so the
    # stream's read comes first; then the game's read is answered at once but delivered
    # only after the event of a record the game master makes meanwhile.
    reads: list[tuple[Route, Any]] = []
    rulesets: list[Route] = []
    player.route(FRESH_HISTORY, lambda route: reads.append((route, route.fetch())))
    player.route(RULESET, lambda route: rulesets.append(route))
    player.reload()
    _until(player, lambda: len(reads) == 1 and len(rulesets) == 1)
    expect(player.locator("#live")).to_have_attribute("data-mode", "on")
    reads[0][0].fulfill(response=reads[0][1])  # the stream's read: handled, events flow
    rulesets[0].continue_()
    player.unroute(RULESET)
    _until(player, lambda: len(reads) == 2)
    second = _resolve(server, game)
    expect(player.locator(f'#cards [data-record="{second["id"]}"]')).to_be_visible()
    expect(player.locator(f'#history [data-record="{second["id"]}"]')).to_be_visible()
    reads[1][0].fulfill(response=reads[1][1])  # the game's read, from before the record
    player.unroute(FRESH_HISTORY)
    expect(player.locator("#status")).to_contain_text("Playing")
    player.wait_for_timeout(300)  # every held answer drawn
    assert _history_ids(player) == [second["id"], first["id"]]
    # a later event does not bring the record back either: it was never lost
    third = _resolve(server, game)
    expect(player.locator(f'#history [data-record="{third["id"]}"]')).to_be_visible()
    assert _history_ids(player) == [third["id"], second["id"], first["id"]]
    shoot_schemes(player, "history-race-player")


def test_a_record_whose_event_comes_after_the_history_read_is_listed_once(
    server: ServerProcess, table: tuple[dict[str, Any], Page, dict[str, Any]]
) -> None:
    game, player, first = table

    # the record is made as the page reloads; its stream is held until the history
    # (which lists the record) is drawn, then answered with the record's own event
    held: list[Route] = []
    events = re.compile(r"/games/[^/]+/events$")
    player.route(events, lambda route: held.append(route))
    second = _resolve(server, game)
    player.reload()
    expect(player.locator("#status")).to_contain_text("Playing")
    expect(player.locator(f'#history [data-record="{second["id"]}"]')).to_be_visible()
    assert held, "the page asked for its events"
    held[0].fulfill(
        status=200,
        headers={"Content-Type": "text/event-stream"},
        body=_event_of(server, game, second["id"]),
    )
    player.unroute(events)
    expect(player.locator(f'#cards [data-record="{second["id"]}"]')).to_be_visible()
    assert _history_ids(player) == [second["id"], first["id"]]
