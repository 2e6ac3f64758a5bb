"""Records read by their number within their game (issue 44): a new game's first record
is #1 in History and on its card, however many records other games hold (its id, the
store's, is higher); a record brought to another page by a live event reads the same.
At desktop and phone width (the ``page`` fixture)."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from service_support import ServerProcess, admin_headers
from web_support import api, new_game, open_page, pick_game

pytestmark = pytest.mark.server

MIRA = "Mira Quickfoot"
STEALTH = '[skill_check: skill="Stealth" dc="15"]'
SPEND = '[sheet: op="damage" pool="hp" amount="1"]'


def _resolve(page: Page, text: str) -> None:
    page.get_by_label("Game Master text").fill(text)
    page.get_by_role("button", name="Resolve").click()


def test_a_new_game_s_first_record_reads_one_though_its_id_is_higher(
    page: Page, server: ServerProcess, chrome: Browser, opened: list[Page]
) -> None:
    earlier = new_game(server, "dnd5e-srd", "mira")
    for _ in range(3):  # another game's records first: the store's ids move on
        made = httpx.post(
            f"{server.base}/games/{earlier['id']}/checks",
            json={"text": STEALTH},
            headers=admin_headers(),
        )
        assert made.status_code == 200, made.text
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    _resolve(page, f"Mira slips in. {STEALTH} She is cut. {SPEND}")
    history = page.locator("#history > li")
    expect(history).to_have_count(2)
    first, second = api(server, f"/games/{game['id']}/records")["records"][::-1]
    assert (first["number"], second["number"]) == (1, 2)
    assert first["id"] > 3  # the store's id, past the other game's records
    expect(history.nth(1)).to_have_text(re.compile(rf"^#1 {MIRA}: Stealth, .* Show card #1$"))
    expect(history.nth(0)).to_have_text(re.compile(rf"^#2 {MIRA}: sheet, .* Show card #2$"))
    expect(history.nth(1)).to_have_attribute("data-record", str(first["id"]))
    cards = page.locator("article.card")
    expect(cards.locator("h3 .record-number")).to_have_text(["#1", "#2"])
    expect(page.get_by_role("heading", name=re.compile(r"^#1 "))).to_be_visible()

    page.get_by_role("button", name="Show card #1").click()
    expect(cards).to_have_count(1)
    expect(cards).to_have_attribute("data-record", str(first["id"]))
    expect(cards.locator("h3 .record-number")).to_have_text("#1")
    expect(page.get_by_text(f"#{first['id']} ", exact=False)).to_have_count(0)

    # another page of the game: the record a live event brings reads its number too
    other = open_page(chrome, server, page.viewport_size, token=game["token"])  # type: ignore[arg-type]
    opened.append(other)
    pick_game(other, game)
    expect(other.locator("#live")).to_have_attribute("data-mode", "on")
    _resolve(page, STEALTH)
    expect(other.locator("#history > li").first).to_contain_text(f"#3 {MIRA}: Stealth")
    expect(other.locator("article.card h3 .record-number")).to_have_text("#3")
