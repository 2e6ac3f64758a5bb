"""The dice cards a player reads, in a real Chromium against a real ``dicebound serve``,
at desktop and phone width: each die's final face and what happened to it, told by a
glyph and a line style (never by colour alone) and explained in the key; symbol dice
as glyphs on a die of their colour; a raised die as ``from → to``; the modifier's parts
and the band's own text; a spend the pool could not cover; and no record syntax on any
card. The faces are forced, so each card is known before it is drawn."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from http_api_support import character_file
from service_support import ServerProcess, admin_headers
from web_support import api, new_game, pick_game, put_character, shoot

pytestmark = pytest.mark.server

RECORD_SYNTAX = re.compile(r'\||@|="|\b[a-z]+_[a-z_]+\b|\b[a-z]+:[+\-]?\d')


def _resolve(
    page: Page, server: ServerProcess, game: dict[str, Any], text: str, faces: list[int]
) -> Locator:
    """The text resolved with forced faces (through the API, as a table's other screen
    would), and its card as the page draws it from the game's events."""
    answer = httpx.post(
        server.base + f"/games/{game['id']}/checks",
        json={"text": text, "faces": faces},
        headers=admin_headers(),
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["errors"] == [], body["errors"]
    record_id = body["results"][0]["id"]
    card = page.locator(f'#cards article.card[data-record="{record_id}"]')
    expect(card).to_be_visible()
    return card


def _no_record_syntax(card: Locator) -> None:
    text = card.inner_text()
    assert not RECORD_SYNTAX.search(text), text
    for label in card.locator("li.die").evaluate_all(
        "ds => ds.map(d => d.getAttribute('aria-label'))"
    ):
        assert not RECORD_SYNTAX.search(label), label


def _lines(card: Locator) -> dict[str, str]:
    terms = card.locator("dl dt").all_inner_texts()
    texts = card.locator("dl dd").all_inner_texts()
    return dict(zip(terms, texts, strict=True))


def _width(page: Page) -> int:
    return page.viewport_size["width"] if page.viewport_size else 0


def _fits(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth") <= _width(page)


def test_a_pool_card_marks_every_die_without_colour(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "wod-pool", "lucia")
    pick_game(page, game)
    text = (
        '[skill_check: skill="Stealth" difficulty="Standard" explode="10" '
        'spend="willpower_points:1"]'
    )
    card = _resolve(page, server, game, text, [10, 4, 10, 3, 1, 8, 6, 7, 2])
    _no_record_syntax(card)
    lines = _lines(card)
    assert lines["Dice"] == "7 dice + 2 added by tens: 10, 4, 10, 3, 1, 8, 6, 7, 2"
    assert lines["Pool"] == "7 dice: 4 Dexterity + 3 Stealth (3 dots)"
    assert lines["Willpower points"] == "1 success bought (1 point)"
    dice = card.locator("li.die")
    expect(dice).to_have_count(9)
    # every die says what happened to it in words, and shows it by a glyph
    labels = dice.evaluate_all("ds => ds.map(d => d.getAttribute('aria-label'))")
    assert labels[0] == "10, counted, exploded: one more die thrown"
    assert labels[1] == "4, not counted"
    assert labels[4] == "1, cancels a success"
    assert labels[6] == "6, cancelled by a low die"
    assert labels[7] == "7, counted, added by an exploding die"
    badges = dice.locator(".badges").all_inner_texts()
    assert badges[:2] == ["✓✹", "–"] and badges[4] == "✗" and badges[6] == "⊘"
    # not colour alone: a counted die's border is solid, one not counted is dashed, a
    # cancelled face is struck through
    style = dice.evaluate_all(
        "ds => ds.map(d => [getComputedStyle(d).borderTopStyle,"
        " getComputedStyle(d.querySelector('.face')).textDecorationLine])"
    )
    assert style[0][0] == "solid" and style[1][0] == "dashed"
    assert style[6][1] == "line-through"
    key = card.locator(".die-key li")
    expect(key).to_contain_text(["✓ counted", "– not counted"])
    for mark in (
        "cancels a success",
        "cancelled",
        "exploded: one more die",
        "added by an exploding die",
    ):
        expect(card.locator(".die-key")).to_contain_text(mark)
    _fits(page)
    shoot(page, "cards-pool")


def test_a_spend_the_pool_cannot_cover_says_so_on_the_card(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "wod-pool")
    lucia = character_file("wod-pool", "lucia")
    lucia["live"] = {"pools": {"willpower_points": {"value": 0}}}
    put_character(server, game, lucia)
    pick_game(page, game)
    text = '[skill_check: skill="Firearms" difficulty="Standard" use="Pistols" spend="willpower_points:1"]'
    card = _resolve(page, server, game, text, [6, 2, 2, 2, 2, 2, 2, 2])
    _no_record_syntax(card)
    lines = _lines(card)
    assert lines["Not paid"] == (
        "Willpower points: 1 point asked, nothing spent: Lucia Marchetti held 0, "
        "not enough to cover it"
    )
    assert lines["Specialty"] == "Pistols: tens add a die"
    shoot(page, "cards-not-paid")


def test_a_d20_card_shows_the_modifiers_parts(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    card = _resolve(
        page, server, game, '[skill_check: skill="Stealth" dc="15" mode="advantage"]', [4, 12]
    )
    _no_record_syntax(card)
    lines = _lines(card)
    assert lines["Modifier"] == "+9: +3 Dexterity, +6 Stealth (Expertise)"
    assert lines["Total"] == "12 + 9 = 21 against DC 15"
    dice = card.locator("li.die")
    expect(dice.nth(0)).to_have_attribute("aria-label", "4, dropped")
    expect(dice.nth(1)).to_have_attribute("aria-label", "12, kept")
    shoot(page, "cards-d20")


def test_a_band_card_says_what_the_band_means(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "blades", "silk")
    pick_game(page, game)
    card = _resolve(
        page, server, game, '[skill_check: skill="Prowl" difficulty="Action roll"]', [3, 5, 6]
    )
    _no_record_syntax(card)
    expect(card.locator(".outcome")).to_have_text("Full success")
    expect(card.locator(".means")).to_have_text("It goes as the player hoped.")
    expect(card.locator("li.die.counts")).to_have_count(1)
    expect(card.locator("li.die.counts")).to_have_attribute("data-shown", "6")


def test_symbol_dice_show_glyphs_in_their_dies_colour(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "genesys", "kira")
    pick_game(page, game)
    card = _resolve(
        page, server, game, '[skill_check: skill="Cool" difficulty="Average"]', [4, 2, 7, 1]
    )
    _no_record_syntax(card)
    dice = card.locator("li.die")
    expect(dice).to_have_count(4)
    # no face number anywhere on a symbol die: its symbols, or "blank"
    faces = dice.locator(".face").all_inner_texts()
    assert faces == ["✶✶", "✶", "▼▼", "blank"]
    assert not any(ch.isdigit() for face in faces for ch in face)
    expect(dice.nth(0)).to_have_attribute("aria-label", "Ability, Success, Success")
    expect(dice.nth(3)).to_have_attribute("aria-label", "Difficulty, blank")
    # each die in its own colour, its glyphs drawn in the ink that colour takes
    colours = dice.evaluate_all(
        "ds => ds.map(d => [getComputedStyle(d).backgroundColor, getComputedStyle(d).color])"
    )
    assert colours[0] == colours[1] and colours[2] == colours[3] and colours[0] != colours[2]
    assert colours[0][0] != "rgb(255, 255, 255)"
    expect(card.locator(".die-key")).to_contain_text("✶ Success")
    expect(card.locator(".die-key")).to_contain_text("▼ Threat")
    assert _lines(card)["Threat"] == "A side cost, whatever the outcome."
    _fits(page)
    shoot(page, "cards-symbols")


def test_a_step_pool_card_shows_each_raise_from_to(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "advanced-resolution", "peet")
    pick_game(page, game)
    text = (
        '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
    )
    card = _resolve(page, server, game, text, [5, 1, 6])
    _no_record_syntax(card)
    dice = card.locator("li.die")
    expect(dice.nth(0).locator(".face")).to_have_text("5 → 6")
    expect(dice.nth(0)).to_have_attribute(
        "aria-label",
        "Talent d10, 5 → 6, reached the target 6, raised from 5 to 6 by the Quality modifier",
    )
    # the dice that reached the target are marked, the one below it too
    assert dice.evaluate_all("ds => ds.map(d => d.classList.contains('counts'))") == [
        True,
        False,
        True,
    ]
    expect(card.locator(".die-key")).to_contain_text("reached the target")
    expect(card.locator(".die-key")).to_contain_text("below the target")
    lines = _lines(card)
    assert lines["Effort"] == "2 dice reached the target 6"
    assert lines["Offer"] == "Triumph for 5 more points of Body, Mind or Luck"

    # a raise after the roll: the raised die reads from → to, and says what paid for it
    card.get_by_label("Spend from").select_option("luck")
    card.get_by_label("points").fill("5")
    card.get_by_role("button", name="Raise").click()
    raised = page.locator(f'#cards article.card[data-record="{card.get_attribute("data-record")}"]')
    expect(raised.locator(".outcome")).to_have_text("Triumph (critical success)")
    expect(raised.locator("li.die").nth(1).locator(".face")).to_have_text("1 → 6")
    _no_record_syntax(raised)
    assert _lines(raised)["After"] == "Luck, 5 points spent after the roll to raise die 2"
    record = api(server, f"/games/{game['id']}/records/{card.get_attribute('data-record')}")
    assert record["attrs"]["after"] == "luck:5@2"  # the record keeps its own spelling
    _fits(page)
    shoot(page, "cards-step")


def test_a_sheet_commands_card_reads_in_words(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "wod-pool", "lucia")
    pick_game(page, game)
    page.get_by_label("Game Master text").fill(
        'She pays. [sheet: op="spend" pool="willpower_points" amount="1"] '
        'And again. [sheet: op="spend" pool="willpower_points" amount="9"]'
    )
    page.get_by_role("button", name="Resolve").click()
    cards = page.locator("#cards article.card.sheet")
    expect(cards).to_have_count(2)
    done, refused = cards.all()
    expect(done.locator(".outcome")).to_have_text("Done: 3/5")
    expect(refused.locator(".outcome")).to_have_text("Refused: not enough left")
    for card in (done, refused):
        _no_record_syntax(card)
    assert _lines(done) == {
        "Asked": "spend Willpower points 1",
        "Changed": "Lucia Marchetti: Willpower points 4 → 3",
    }
    assert _lines(refused) == {"Asked": "spend Willpower points 9"}
