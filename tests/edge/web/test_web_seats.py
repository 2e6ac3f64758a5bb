"""Seats and tokens on the page, in a real Chromium against a real ``dicebound serve``,
at desktop and phone width, done by clicks and typing as a person would:

- the game master makes a player's seat from the Sheet tab and reads its token once, in
  a modal dialog (focus inside it, Copy, Escape closes it and focus goes back), then
  revokes it, and the token stops; "Make a game" shows the game's token the same way;
- a player edits their own character's notes (and only theirs), a change to the sheet
  while they type loses nothing, the game master's page shows the notes as saved, and
  what the seat may not use is hidden or disabled with the reason beside it;
- a token the service does not know is said to be not known, lists no game, and is not
  kept for the next visit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from http_api_support import bearer, character_file
from seats_support import RULESET, upload_seats_ruleset
from service_support import ADMIN_TOKEN, ServerProcess, admin_headers
from web_support import DESKTOP, PHONE, UNNAMED_CONTROLS, new_game, open_page, shoot

pytestmark = pytest.mark.server

MAUD, PEET = "Maud Harrowgate", "Sneeky Peet"
SOON = 2_000  # ms: an event from another page


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def viewport(request: pytest.FixtureRequest) -> dict[str, int]:
    return dict(request.param)


@pytest.fixture
def pages() -> Iterator[list[Page]]:
    """The pages a test opens: closed at its end, each with no browser error."""
    opened: list[Page] = []
    yield opened
    for page in opened:
        errors = page.errors  # type: ignore[attr-defined]
        page.close()
        assert errors == [], errors


def _open(
    pages: list[Page], chrome: Browser, server: ServerProcess, viewport: dict[str, int], token: str
) -> Page:
    page = open_page(chrome, server, viewport, token=token)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
    pages.append(page)
    return page


def _games_of(server: ServerProcess, token: str) -> httpx.Response:
    return httpx.get(server.base + "/games", headers=bearer(token))


def _fits(page: Page) -> None:
    if page.viewport_size and page.viewport_size["width"] == PHONE["width"]:
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def _read_token(page: Page, dialog: Locator, name: str) -> str:
    """The token the dialog shows, after checking it is a modal with focus inside, the
    warning said, and Copy puts it on the clipboard."""
    expect(dialog).to_be_visible()
    expect(dialog).to_have_accessible_name(name)
    assert page.evaluate("() => document.getElementById('token-dialog').matches(':modal')")
    expect(dialog.get_by_role("button", name="Copy")).to_be_focused()
    expect(dialog).to_contain_text("Shown only once")
    token = dialog.locator("code").inner_text()
    dialog.get_by_role("button", name="Copy").click()
    expect(dialog.get_by_role("status")).to_have_text("Copied.")
    assert page.evaluate("() => navigator.clipboard.readText()") == token
    assert page.evaluate(UNNAMED_CONTROLS) == []
    _fits(page)
    return token


# ── the game master's side: a seat made, shown once, revoked ───────────────────


def test_the_game_master_makes_a_seat_reads_its_token_once_and_revokes_it(
    chrome: Browser, server: ServerProcess, viewport: dict[str, int], pages: list[Page]
) -> None:
    game = new_game(server, "advanced-resolution", "peet", "maud")
    gm = _open(pages, chrome, server, viewport, game["token"])
    expect(gm.get_by_label("Game", exact=True)).to_have_value(game["id"])
    expect(gm.locator("#seat")).to_have_text("Seat: the game master")
    expect(gm.get_by_text("Make a game")).to_be_hidden()  # the admin's alone

    gm.get_by_role("tab", name="Sheet").click()
    seats = gm.get_by_role("region", name="Players' seats")
    expect(seats.locator("li")).to_have_count(2)
    make = seats.get_by_role("button", name=f"Make a seat for {MAUD}")
    make.click()
    dialog = gm.get_by_role("dialog")
    token = _read_token(gm, dialog, f"{MAUD}'s seat")
    assert token.startswith("dbp_")
    shoot(gm, "seats-token-dialog")

    gm.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(make).to_be_focused()  # back where the person was
    # The browser hands focus back as the dialog shuts, a task before its "close" event
    # (where the page forgets the token) runs: wait for that event, then read the page.
    expect(gm.locator("#token-dialog-value")).to_be_empty()
    assert token not in gm.content()  # shown once: gone from the page
    row = seats.locator(f'li[data-seat="{MAUD}"]')
    expect(row).to_contain_text("Seat made.")
    (entry,) = _games_of(server, token).json()
    assert entry["seat"] == {"kind": "player", "character": MAUD}

    # the player signs in with it; the game master revokes: the token stops everywhere
    player = _open(pages, chrome, server, viewport, token)
    expect(player.locator("#seat")).to_have_text(f"Seat: {MAUD}'s player")
    expect(player.locator("#live")).to_have_attribute("data-mode", "on")
    seats.get_by_role("button", name=f"Revoke {MAUD}'s seat").click()
    row.get_by_role("button", name="Yes, revoke it").click()
    expect(row.get_by_role("status")).to_have_text(
        f"Revoked: {MAUD}'s player's token stopped working."
    )
    expect(row).to_contain_text("No seat: revoked.")
    assert _games_of(server, token).status_code == 401
    expect(player.locator("#status")).to_have_text(
        f"Live updates stopped: this page's token no longer holds {MAUD}'s seat (revoked or "
        "replaced); ask the Game Master for a new one.",
        timeout=10_000,
    )
    expect(player.locator("#live")).to_have_attribute("data-mode", "off")

    # revoked: no seat is left to revoke, so none is offered
    expect(seats.get_by_role("button", name=f"Revoke {MAUD}'s seat")).to_be_hidden()
    expect(seats.locator(f'li[data-seat="{PEET}"] .seat-state')).to_have_text("")
    assert gm.evaluate(UNNAMED_CONTROLS) == []
    _fits(gm)
    shoot(gm, "seats-revoked")


def test_make_a_game_shows_the_games_token_in_the_dialog_not_the_status_line(
    chrome: Browser, server: ServerProcess, viewport: dict[str, int], pages: list[Page]
) -> None:
    admin = _open(pages, chrome, server, viewport, ADMIN_TOKEN)
    expect(admin.locator("#author-save")).to_be_enabled()
    name = f"Dialog at {viewport['width']}px"
    admin.get_by_text("Make a game").click()
    admin.get_by_label("Game name").fill(name)
    admin.get_by_label("Ruleset", exact=True).select_option("advanced-resolution@1")
    made = admin.get_by_role("button", name="Make the game")
    made.click()
    dialog = admin.get_by_role("dialog")
    token = _read_token(admin, dialog, f'"{name}" is made')
    assert token.startswith("dbg_")
    expect(admin.locator("#status")).to_have_text(
        f'Made "{name}": its game master\'s token is in the dialog, shown once.'
    )
    shoot(admin, "seats-game-token-dialog")

    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    # the form closed once the game was made: focus is back on its summary
    expect(made).to_be_hidden()
    expect(admin.locator("#new-game summary")).to_be_focused()
    expect(admin.locator("#token-dialog-value")).to_be_empty()  # the "close" event ran
    assert token not in admin.content()
    (entry,) = _games_of(server, token).json()
    assert (entry["name"], entry["seat"]["kind"]) == (name, "game-master")
    assert admin.get_by_label("Game", exact=True).input_value() == entry["id"]


# ── the player's side: their own notes, and only what the seat may use ─────────


def _notes_game(server: ServerProcess) -> dict[str, Any]:
    """A game of the seats ruleset (a live text field, Notes) with Peet and Maud."""
    with httpx.Client(base_url=server.base, timeout=30) as http:
        upload_seats_ruleset(http.request)
        made = http.post(
            "/games", json={"name": "Notes", "ruleset": RULESET}, headers=admin_headers()
        )
        assert made.status_code == 201, made.text
        game: dict[str, Any] = made.json()
        for short in ("peet", "maud"):
            file = character_file("advanced-resolution", short)
            put = http.put(
                f"/games/{game['id']}/characters/{quote(file['name'])}",
                json=file,
                headers=bearer(game["token"]),
            )
            assert put.status_code == 201, put.text
        seat = http.post(
            f"/games/{game['id']}/characters/{quote(MAUD)}/seat", headers=bearer(game["token"])
        )
        assert seat.status_code == 201, seat.text
    return {**game, "seat": seat.json()["token"]}


def _character(server: ServerProcess, game: dict[str, Any], name: str) -> Any:
    answer = httpx.get(
        server.base + f"/games/{game['id']}/characters/{quote(name)}", headers=admin_headers()
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_player_edits_their_own_notes_and_sees_only_what_the_seat_may_use(
    chrome: Browser, server: ServerProcess, viewport: dict[str, int], pages: list[Page]
) -> None:
    game = _notes_game(server)
    gm = _open(pages, chrome, server, viewport, game["token"])
    player = _open(pages, chrome, server, viewport, game["seat"])
    for page in (gm, player):
        expect(page.locator("#live")).to_have_attribute("data-mode", "on")

    # the seat's view: the Game Master's controls hidden, and why
    expect(player.locator("#seat-says")).to_contain_text(
        f"You hold {MAUD}'s seat: you follow the table as it plays"
    )
    for hidden in ("#check-form", "#rest-form", "#new-game", "#tab-balance", "#tab-sheet"):
        expect(player.locator(hidden)).to_be_hidden()
    notes = player.get_by_role("region", name="Notes")
    expect(notes.get_by_label("Whose notes")).to_be_hidden()  # no one else is offered
    expect(notes).to_contain_text(f"{MAUD}'s notes: your seat edits these alone")
    expect(player.get_by_role("tab", name="Author")).to_be_hidden()  # a seat saves no ruleset
    assert player.evaluate(UNNAMED_CONTROLS) == []

    # the player types; the game master changes Maud's pool meanwhile: nothing is lost
    field = notes.get_by_label("Notes", exact=True)
    field.fill("Owes the ferryman two silver.")
    revision = _character(server, game, MAUD)["revision"]
    patched = httpx.patch(
        server.base + f"/games/{game['id']}/characters/{quote(MAUD)}/live",
        json={"pools": {"luck": 4}},
        headers={**bearer(game["token"]), "If-Match": str(revision)},
    )
    assert patched.status_code == 200, patched.text
    luck = player.locator(f'[data-character="{MAUD}"] [data-pool="luck"] .value')
    expect(luck).to_have_text("4", timeout=SOON)
    expect(field).to_have_value("Owes the ferryman two silver.")
    notes.get_by_role("button", name="Save the notes").click()
    expect(notes.get_by_role("status")).to_have_text(f"Saved {MAUD}'s notes.")
    stored = _character(server, game, MAUD)["live"]
    assert stored["text"] == {"notes": "Owes the ferryman two silver."}
    assert stored["pools"]["luck"]["value"] == 4
    shoot(player, "seats-player-notes")

    # the game master's page shows the notes as saved, and may edit anyone's
    gm_notes = gm.get_by_role("region", name="Notes")
    whose = gm_notes.get_by_label("Whose notes")
    expect(whose.locator("option")).to_have_text([PEET, MAUD])
    whose.select_option(MAUD)
    expect(gm_notes.get_by_label("Notes", exact=True)).to_have_value(
        "Owes the ferryman two silver.", timeout=SOON
    )
    # saved again unchanged: nothing is sent
    notes.get_by_role("button", name="Save the notes").click()
    expect(notes.get_by_role("status")).to_have_text("Nothing to save: the notes read as saved.")
    assert _character(server, game, MAUD)["revision"] == revision + 2

    # both write the same field: the player's text stays, told what saving does
    field.fill("Paid the ferryman.")
    gm_notes.get_by_label("Notes", exact=True).fill("Still owes the ferryman.")
    gm_notes.get_by_role("button", name="Save the notes").click()
    expect(gm_notes.get_by_role("status")).to_have_text(f"Saved {MAUD}'s notes.")
    expect(notes.get_by_role("status")).to_have_text(
        f"{MAUD}'s Notes changed meanwhile; saving puts what you wrote in its place.",
        timeout=SOON,
    )
    expect(field).to_have_value("Paid the ferryman.")
    notes.get_by_role("button", name="Save the notes").click()
    expect(notes.get_by_role("status")).to_have_text(f"Saved {MAUD}'s notes.")
    assert _character(server, game, MAUD)["live"]["text"] == {"notes": "Paid the ferryman."}
    expect(gm_notes.get_by_label("Notes", exact=True)).to_have_value(
        "Paid the ferryman.", timeout=SOON
    )
    _fits(player)


# ── a token the service does not know ──────────────────────────────────────────


def test_a_token_not_known_is_said_so_and_nothing_reads_as_signed_in(
    chrome: Browser, server: ServerProcess, viewport: dict[str, int], pages: list[Page]
) -> None:
    game = new_game(server, "advanced-resolution", "maud")
    page = _open(pages, chrome, server, viewport, ADMIN_TOKEN)
    games = page.get_by_label("Game", exact=True)
    expect(games.locator(f'option[value="{game["id"]}"]')).to_have_count(1)
    expect(page.get_by_text("Make a game")).to_be_visible()

    page.get_by_label("Token").fill(game["token"] + "x")
    page.get_by_role("button", name="Use this token").click()
    not_known = (
        "This token is not known here: it is not the admin token, a game's token or a "
        "player's seat (mistyped, or replaced or revoked since). Nothing is signed in; only "
        "the rulesets can be read."
    )
    expect(page.locator("#signin-said")).to_have_text(not_known)
    expect(page.locator("#status")).to_have_text(not_known)
    expect(page.get_by_label("Token")).to_have_attribute("aria-invalid", "true")
    expect(games.locator("option")).to_have_text(["(not signed in: the token is not known)"])
    for gone in ("#seat", "#new-game", "#notes", "#check-form", "#rest-form", "#tab-sheet"):
        expect(page.locator(gone)).to_be_hidden()
    expect(page.locator("#party li")).to_have_count(0)
    assert page.evaluate("() => sessionStorage.getItem('dicebound-token')") is None
    shoot(page, "seats-token-not-known")

    # the next visit starts signed out, not with the refused token
    page.reload()
    expect(page.get_by_label("Token")).to_have_value("")
    expect(games.locator("option")).to_have_text(["(use a token, then pick a game)"])

    # the right token signs in again
    page.get_by_label("Token").fill(ADMIN_TOKEN)
    page.get_by_role("button", name="Use this token").click()
    expect(page.locator("#signin-said")).to_have_text("Signed in with the admin token.")
    expect(page.get_by_label("Token")).not_to_have_attribute("aria-invalid", "true")
    expect(games.locator(f'option[value="{game["id"]}"]')).to_have_count(1)
    _fits(page)
