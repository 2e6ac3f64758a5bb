"""The table's first hour on the page (issue 44): who rolls, the plain tracks of the
damage form, the record text folded under each card, the words a new table reads, the
records numbered within their game, the status line, the charts on a phone and the
seats. Each at desktop and phone width (the ``page`` fixture)."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from http_api_support import bearer
from service_support import ADMIN_TOKEN, ServerProcess
from web_support import api, new_game, open_page, pick_game, shoot_schemes

pytestmark = pytest.mark.server

MIRA, BRAM = "Mira Quickfoot", "Bram Ironhand"


def _resolve(page: Page, text: str) -> None:
    page.get_by_label("Game Master text").fill(text)
    page.get_by_role("button", name="Resolve").click()


# ── who rolls ────────────────────────────────────────────────────────────────

# (the text, the roller picked, the text written)
WRITTEN = [
    (
        '[skill_check: skill="Stealth" dc="15"]',
        MIRA,
        f'[skill_check: skill="Stealth" dc="15" who="{MIRA}"]',
    ),
    (
        f"[skill_check: skill=Stealth,who='{BRAM}', dc=15] and [SKILL_CHECK: skill=\"a]b\"]",
        MIRA,
        f'[skill_check: skill=Stealth who="{MIRA}", dc=15] and [SKILL_CHECK: skill="a]b" who="{MIRA}"]',
    ),
    (
        '[skill_check: skill="Stealth" mode]',
        MIRA,
        f'[skill_check: skill="Stealth" mode who="{MIRA}"]',
    ),
    (
        'a quote never closed [skill_check: skill="Stealth]',
        MIRA,
        'a quote never closed [skill_check: skill="Stealth]',
    ),
    (
        '[sheet: op="damage" pool="hp" amount="1"]',
        MIRA,
        '[sheet: op="damage" pool="hp" amount="1"]',
    ),
    ('[skill_check: skill="Stealth"]', "", '[skill_check: skill="Stealth"]'),
]


def test_the_roller_is_written_into_each_check_tag_as_the_lexer_reads_it(page: Page) -> None:
    for text, who, written in WRITTEN:
        got = page.evaluate(
            "async ([text, who]) => (await import('/static/roller.js')).withRoller(text, who)",
            [text, who],
        )
        assert got == written, text


def test_the_game_master_picks_who_rolls(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "bram", "mira")
    pick_game(page, game)
    roller = page.get_by_label("Who rolls")
    expect(roller.locator("option")).to_have_count(3)
    text = page.get_by_label("Game Master text")
    text.fill(
        'Mira creeps past the guards. [skill_check: skill="Stealth" dc="15"] '
        f'[skill_check: skill="Perception" dc="10" who="{BRAM}"]'
    )
    roller.select_option(MIRA)
    expect(text).to_have_value(
        f'Mira creeps past the guards. [skill_check: skill="Stealth" dc="15" who="{MIRA}"] '
        f'[skill_check: skill="Perception" dc="10" who="{MIRA}"]'
    )
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#status")).to_contain_text("2 check(s) resolved, 0 refused")
    expect(page.locator("#history > li")).to_have_count(2)
    for line in page.locator("#history > li").all():
        expect(line).to_contain_text(f"{MIRA}:")
    shoot_schemes(page, "table-who-picker")

    # a text written after the pick is written for the one picked before it is sent
    _resolve(page, '[skill_check: skill="Stealth" dc="15"]')
    expect(page.locator("#history > li")).to_have_count(3)
    expect(page.locator("#history > li").first).to_contain_text(f"{MIRA}:")
    expect(text).to_have_value(f'[skill_check: skill="Stealth" dc="15" who="{MIRA}"]')


# ── plain tracks on the damage form ──────────────────────────────────────────

BRANNOCH = "Brannoch Hale"


def test_a_plain_track_is_damaged_and_healed_from_the_form(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "genesys", "brannoch")
    pick_game(page, game)
    page.get_by_label("Who", exact=True).select_option(BRANNOCH)
    what = page.get_by_label("Pool or track")
    # his file has taken four wounds
    expect(what.locator("option")).to_have_text(
        ["Wounds (track, 4 of 0-16)", "Strain (track, 0 of 0-11)"]
    )
    what.select_option("track:strain")
    expect(page.locator("#harm-track-hint")).to_be_visible()
    expect(page.get_by_role("button", name="Spend")).to_be_hidden()
    expect(page.get_by_label("Kind of harm")).to_be_hidden()
    page.get_by_label("Amount").fill("3")
    said = page.locator("#harm-outcome")
    page.get_by_role("button", name="Damage", exact=True).click()
    expect(said).to_have_text(f"Done: {BRANNOCH}, Strain 3.")
    strain = page.locator(f'[data-character="{BRANNOCH}"] [data-track="strain"] .value')
    expect(strain).to_have_text("3")
    page.get_by_label("Amount").fill("1")
    page.get_by_role("button", name="Heal").click()
    expect(said).to_have_text(f"Done: {BRANNOCH}, Strain 2.")
    expect(strain).to_have_text("2")
    # the command written is the track op, as a Game Master would write it
    expect(page.locator("#history > li").first).to_contain_text("sheet")
    records = api(server, f"/games/{game['id']}/records?limit=2")["records"]
    assert [r["tag"] for r in records] == [
        f'[sheet: who="{BRANNOCH}" op="track" track="strain" by="-1" result="ok" now="Strain 2"]',
        f'[sheet: who="{BRANNOCH}" op="track" track="strain" by="3" result="ok" now="Strain 3"]',
    ]


# ── the record text, folded ──────────────────────────────────────────────────

GENESYS_CHECK = f'Brannoch shoulders the gate. [skill_check: skill="Athletics" difficulty="Average" who="{BRANNOCH}"]'


def _folded(page: Page) -> None:
    """The record text is there, closed, and says the tag written back when opened."""
    box = page.locator("#record-text")
    expect(box).to_be_visible()
    expect(box).not_to_have_attribute("open", "")
    expect(page.locator("#rewritten")).to_be_hidden()
    box.get_by_text("Record text").click()
    expect(page.locator("#rewritten")).to_be_visible()
    expect(page.locator("#rewritten")).to_contain_text("symbolDetails=")
    box.get_by_text("Record text").click()


def test_the_record_text_is_folded_under_the_cards_and_never_empty(
    page: Page, server: ServerProcess, chrome: Browser, opened: list[Page]
) -> None:
    game = new_game(server, "genesys", "brannoch")
    pick_game(page, game)
    _resolve(page, GENESYS_CHECK)
    expect(page.locator("#status")).to_contain_text("1 check(s) resolved")
    _folded(page)
    expect(page.locator("#rewritten")).to_contain_text("Brannoch shoulders the gate.")
    # the card stands above the fold on a phone: the record text no longer pushes it down
    card = page.locator("article.card").first
    assert card.bounding_box()["y"] < page.locator("#record-text").bounding_box()["y"] + 80
    shoot_schemes(page, "table-folded-record")

    # a card opened from History: its own tag
    record = api(server, f"/games/{game['id']}/records?limit=1")["records"][0]
    _resolve(page, "No tag here.")
    expect(page.locator("#status")).to_contain_text("No tag was found")
    expect(page.locator("#rewritten")).to_have_text("No tag here.")
    page.get_by_role("button", name=f"Show card #{record['number']}").click()
    _folded(page)
    expect(page.locator("#rewritten")).to_have_text(record["tag"])

    # a player's page, the card brought by a live event
    seat = httpx.post(
        f"{server.base}/games/{game['id']}/characters/{quote(BRANNOCH)}/seat",
        headers=bearer(game["token"]),
    ).json()["token"]
    player = open_page(chrome, server, page.viewport_size, token=seat)  # type: ignore[arg-type]
    opened.append(player)
    expect(player.locator("#live")).to_have_attribute("data-mode", "on")
    _resolve(page, GENESYS_CHECK)
    expect(player.locator("article.card")).to_have_count(1)
    _folded(player)


# ── the words a new table reads ──────────────────────────────────────────────


def test_a_new_table_is_told_where_tokens_come_from_and_given_an_example(
    page: Page, server: ServerProcess
) -> None:
    # signed out, the sign-in says where the admin token comes from
    hint = page.locator("#token-hint")
    expect(hint).to_be_hidden()  # signed in: said already
    page.get_by_label("Token").fill("")
    page.get_by_role("button", name="Use this token").click()
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("printed once, by dicebound serve")
    expect(hint).to_contain_text("DICEBOUND_ADMIN_TOKEN")
    expect(page.get_by_label("Token")).to_have_accessible_description(re.compile("printed once"))
    expect(page.locator("#no-games")).not_to_contain_text("Sheet tab")
    page.get_by_label("Token").fill(ADMIN_TOKEN)
    page.get_by_role("button", name="Use this token").click()
    expect(hint).to_be_hidden()

    # Make a game closes and clears once the game is made
    form = page.locator("#new-game")
    page.get_by_text("Make a game").click()
    page.get_by_label("Game name").fill("A first table")
    page.get_by_label("Ruleset", exact=True).select_option("dnd5e-srd@2")
    page.get_by_label(MIRA, exact=True).check()
    page.get_by_role("button", name="Make the game").click()
    page.get_by_role("dialog").get_by_role("button", name="Close").click()
    expect(page.locator(f'[data-character="{MIRA}"]')).to_be_visible()
    expect(form).not_to_have_attribute("open", "")
    expect(page.get_by_label("Game name")).to_have_value("")
    expect(page.locator("#new-game-choices input:checked")).to_have_count(0)

    # one click writes an example check of a skill the first character has
    page.get_by_role("button", name="Write an example check").click()
    text = page.get_by_label("Game Master text")
    expect(text).to_have_value(
        f'Narrate, then call for a check: [skill_check: skill="Stealth" difficulty="Medium" who="{MIRA}"]'
    )
    expect(text).to_be_focused()
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#status")).to_contain_text("1 check(s) resolved, 0 refused")


# ── seats ────────────────────────────────────────────────────────────────────


def test_revoke_is_offered_only_for_a_seat_and_asked_again(
    page: Page, server: ServerProcess, chrome: Browser, opened: list[Page]
) -> None:
    game = new_game(server, "dnd5e-srd", "bram", "mira")
    pick_game(page, game)
    page.get_by_role("tab", name="Sheet").click()
    seats = page.get_by_role("region", name="Players' seats")
    expect(seats.locator("li")).to_have_count(2)
    expect(seats.get_by_role("button", name="Revoke the seat")).to_have_count(0)  # none yet
    seats.get_by_role("button", name=f"Make a seat for {MIRA}").click()
    dialog = page.get_by_role("dialog")
    token = dialog.locator("#token-dialog-value").inner_text()
    dialog.get_by_role("button", name="Close").click()
    revoke = seats.get_by_role("button", name=f"Revoke {MIRA}'s seat")
    expect(revoke).to_be_visible()
    expect(seats.get_by_role("button", name=f"Revoke {BRAM}'s seat")).to_be_hidden()

    # asked again: kept, the token still plays
    revoke.click()
    asked = seats.get_by_role(
        "group", name=f"Revoke {MIRA}'s seat? Their player is stopped at once."
    )
    expect(asked).to_be_visible()
    expect(revoke).to_be_hidden()
    asked.get_by_role("button", name="Keep the seat").click()
    expect(asked).to_be_hidden()
    expect(revoke).to_be_focused()

    # the player's page shows no Author tab (a seat saves no ruleset)
    player = open_page(chrome, server, page.viewport_size, token=token)  # type: ignore[arg-type]
    opened.append(player)
    expect(player.locator("#seat")).to_have_text(f"Seat: {MIRA}'s player")
    expect(player.get_by_role("tab", name="Author")).to_be_hidden()
    expect(player.get_by_role("tab", name="Play")).to_be_visible()

    revoke.click()
    asked.get_by_role("button", name="Yes, revoke it").click()
    expect(seats.locator(f'li[data-seat="{MIRA}"]')).to_contain_text("No seat: revoked.")
    expect(revoke).to_be_hidden()
    expect(player.locator("#live")).to_have_attribute("data-mode", "off", timeout=10_000)
