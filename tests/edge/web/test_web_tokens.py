"""The web page with a token the service does not know (issue 23): it says so and lists
no game, where it used to show "no game yet" (test_web_seats.py tries the rest)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from service_support import ServerProcess, store_url_for
from web_support import DESKTOP, browser, new_game, open_page


def test_a_mistyped_token_is_told_and_lists_no_game(tmp_path: Path) -> None:
    with (
        browser() as chrome,
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as server,
    ):
        game = new_game(server, "dnd5e-srd", "mira")
        page = open_page(chrome, server, DESKTOP)  # the admin's token: the game is listed
        games = page.get_by_label("Game", exact=True)
        expect(games.locator(f'option[value="{game["id"]}"]')).to_have_count(1)

        page.get_by_label("Token").fill(game["token"] + "x")
        page.get_by_role("button", name="Use this token").click()
        expect(page.locator("#status")).to_contain_text("This token is not known here")
        expect(games.locator("option")).to_have_text(["(not signed in: the token is not known)"])
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()
