"""The page at the table (issue 26): two browser contexts on one game, the game master's
and a player's seat, each following the game's events. What one does shows in the other
within a second, without a reload; the player's view holds only what the seat may do.
And the page's event-stream reader, fed chunks cut where a network may cut them."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from http_api_support import bearer
from service_support import ServerProcess
from web_support import DESKTOP, UNNAMED_CONTROLS, new_game, open_page, pick_game, shoot

pytestmark = pytest.mark.server

MAUD = "Maud Harrowgate"
# a step-pool check that leaves a raise open (seed turn2-0: a Sacrifice, 2 points buy a
# Success), after a sheet command that takes one point of Body
TEXT = (
    f'[sheet: op="damage" pool="body" amount="1" who="{MAUD}"] The captain draws. '
    f'[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="{MAUD}"]'
)
SOON = 1_000  # ms: what "at once" means at the table


def _pool(page: Page, pool: str) -> Any:
    return page.locator(f'[data-character="{MAUD}"] [data-pool="{pool}"] .value')


def _following(page: Page, game: dict[str, Any]) -> None:
    expect(page.get_by_label("Game", exact=True)).to_have_value(game["id"])
    expect(page.locator("#live")).to_have_attribute("data-mode", "on")
    expect(_pool(page, "body")).to_have_text("7")


def test_a_roll_shows_at_the_players_seat_and_the_raise_at_the_game_masters(
    chrome: Browser, server: ServerProcess
) -> None:
    game = new_game(server, "advanced-resolution", "maud")
    made = httpx.post(
        f"{server.base}/games/{game['id']}/characters/{quote(MAUD)}/seat",
        headers=bearer(game["token"]),
    )
    assert made.status_code == 201, made.text
    gm = open_page(chrome, server, DESKTOP, token=game["token"])
    pick_game(gm, game)
    seat = made.json()["token"]
    player = open_page(chrome, server, DESKTOP, token=seat)
    _following(gm, game)
    _following(player, game)  # the seat's one game is picked by itself

    # the player's view: no Game Master's control, the seat named, every control labelled
    expect(player.locator("#seat")).to_have_text(f"Seat: {MAUD}'s player")
    for hidden in ("#check-form", "#rest-form", "#new-game", "#tab-balance", "#tab-sheet"):
        expect(player.locator(hidden)).to_be_hidden()
    assert player.evaluate(UNNAMED_CONTROLS) == []

    # the game master resolves: the player's page shows both cards and the pool, unasked
    gm.get_by_label("Game Master text").fill(TEXT)
    gm.get_by_label("Seed (optional, replays a roll)").fill("turn2-0")
    gm.get_by_role("button", name="Resolve").click()
    expect(gm.locator("#status")).to_contain_text("1 check(s) resolved")  # committed
    check = gm.locator("article.card:not(.sheet)")
    record_id = check.get_attribute("data-record")
    seen = player.locator(f'#cards article[data-record="{record_id}"]')
    expect(seen).to_be_visible(timeout=SOON)
    expect(_pool(player, "body")).to_have_text("6", timeout=SOON)
    expect(player.locator("#cards article.sheet")).to_have_count(1, timeout=SOON)
    expect(player.locator(f'#history [data-record="{record_id}"]')).to_be_visible(timeout=SOON)
    expect(seen.locator(".outcome")).to_have_text("Sacrifice")
    assert player.locator("#cards").get_attribute("aria-live") == "polite"
    shoot(player, "live-player-offer")

    # the player raises from their own seat: the game master's card and pool follow
    seen.get_by_label("Spend from").select_option("body")
    seen.get_by_label("points").fill("2")
    seen.get_by_role("button", name="Raise").click()
    expect(player.locator("#status")).to_contain_text(f"{MAUD}'s body 6 → 4")  # committed
    answered = gm.locator(f'#cards article[data-record="{record_id}"]')
    expect(answered.locator(".outcome")).to_have_text("Success", timeout=SOON)
    expect(answered.get_by_role("button", name="Raise")).to_have_count(0)
    expect(_pool(gm, "body")).to_have_text("4", timeout=SOON)
    shoot(gm, "live-game-master-answered")

    # what the seat may not do (the service refuses it) is not shown: Author saves nothing
    expect(player.get_by_role("tab", name="Author")).to_be_hidden()
    refused = httpx.post(f"{server.base}/rulesets", headers=bearer(seat), json={})
    assert refused.status_code == 403, refused.text

    for page in (gm, player):
        errors = page.errors  # type: ignore[attr-defined]
        page.close()
        assert errors == [], errors


# ── the stream's reader (sse.js) ─────────────────────────────────────────────

# (id, the chunks as they arrive, the events read: [id, kind, data])
STREAMS: list[tuple[str, list[str], list[list[Any]]]] = [
    ("one event", ["id: 1\nevent: record\ndata: {}\n\n"], [["1", "record", "{}"]]),
    (
        "cut anywhere, even inside a CR LF",
        ["id: 7\r", "\nevent: ans", 'wer\r\ndata: {"a"', ": 1}\r", "\n\r\n"],
        [["7", "answer", '{"a": 1}']],
    ),
    ("lines that end at a lone CR", ["id: 2\revent: seat\rdata: x\r\r"], [["2", "seat", "x"]]),
    ("data lines join with LF", ["data: a\ndata:b\ndata\n\n"], [[None, "message", "a\nb\n"]]),
    (
        "a keep-alive comment is no event",
        [": keep-alive\n\n", "id: 3\nevent: reload\ndata: {}\n\n"],
        [["3", "reload", "{}"]],
    ),
    (
        "an id without data is kept for the next event",
        ["id: 9\n\n", "event: record\ndata: 1\n\n"],
        [["9", "record", "1"]],
    ),
    ("no blank line yet: nothing sent", ["id: 4\nevent: record\ndata: {}\n"], []),
    ("one space after the colon is taken off", ["data:  two\n\n"], [[None, "message", " two"]]),
]


@pytest.mark.parametrize(
    ("chunks", "events"), [s[1:] for s in STREAMS], ids=[s[0] for s in STREAMS]
)
def test_the_page_reads_an_event_stream_as_the_standard_says(
    chrome: Browser, server: ServerProcess, chunks: list[str], events: list[list[Any]]
) -> None:
    page = chrome.new_page()
    page.goto(server.base + "/")
    read = page.evaluate(
        """async (chunks) => {
          const { EventStream } = await import("/static/sse.js");
          const stream = new EventStream();
          return chunks.flatMap((c) => stream.push(c)).map((e) => [e.id, e.kind, e.data]);
        }""",
        chunks,
    )
    page.close()
    assert read == events, json.dumps(read)
