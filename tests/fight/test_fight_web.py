"""A game with fights on the page (FIGHTS §15.3, its first part): each fight step is a
line of History (`#N who: fight, op, done` or `refused: reason`) and a card drawn from
its record's card, with the tag, the result, each event's line and a Verify button;
the count of steps played is said after Resolve. The tracker itself is not built. In a
real Chromium against a real ``dicebound serve``."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from fight_service_support import A_START, new_game
from playwright.sync_api import expect

from service_support import ServerProcess
from web_support import DESKTOP, browser, open_page, pick_game

pytestmark = pytest.mark.server


def test_fight_steps_are_lines_of_history_and_cards(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'web.db'}"
    with (
        ServerProcess(url, log=tmp_path / "server.log") as server,
        httpx.Client(base_url=server.base, timeout=30) as http,
        browser() as chrome,
    ):
        game_id, _ = new_game(http)
        page = open_page(chrome, server, DESKTOP)
        pick_game(page, {"id": game_id})
        page.get_by_label("Game Master text").fill(f'{A_START} [fight: op="end"] [fight: op="end"]')
        page.get_by_role("button", name="Resolve").click()
        expect(page.locator("#status")).to_contain_text("2 fight step(s) played, 1 refused.")
        history = page.locator("#history > li")
        expect(history).to_have_count(3)
        expect(history.nth(2)).to_have_text(
            re.compile(r"^#1 fight: fight, start, done Show card #1$")
        )
        expect(history.nth(0)).to_have_text(
            re.compile(r"^#3 fight: fight, end, refused: encounter-over Show card #3$")
        )
        cards = page.locator("article.card.fight")
        expect(cards).to_have_count(3)
        expect(cards.nth(0)).to_contain_text("initiative: ")
        cards.nth(0).get_by_role("button", name="Verify").click()
        expect(cards.nth(0).locator(".verdict")).to_contain_text("Verified")
        assert page.errors == []  # type: ignore[attr-defined]
