"""The Play tab's rests, damage and heal, in a real Chromium against a real
``dicebound serve``: each control writes a ``[sheet:]`` command and sends it through
``POST /games/{game}/checks``; the outcome is said beside the control, the party panel
shows what changed until the next text, and the history lists the sheet records beside
the checks. The packaged wod-pool has a pool (Willpower points), a wound track of three
kinds (Health) and two rests (a night's rest heals bashing harm, the end of the story
gives Willpower back)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from dicebound.sheet_commands.reasons import REASONS
from http_api_support import character_file
from repo_paths import REPO
from service_support import ServerProcess, store_url_for
from web_support import (
    DESKTOP,
    PHONE,
    UNNAMED_CONTROLS,
    api,
    browser,
    new_game,
    open_page,
    pick_game,
    put_character,
    shoot,
)

LUCIA = "Lucia Marchetti"
TOBIAS = "Tobias Grell"
OX = 'Tam "Ox" Reed'  # Tobias under a name a tag cannot carry (a double quote)


def _game(server: ServerProcess) -> dict[str, Any]:
    game = new_game(server, "wod-pool", "lucia", "tobias")
    put_character(server, game, {**character_file("wod-pool", "tobias"), "name": OX})
    return game


def _records(server: ServerProcess, game: dict[str, Any]) -> list[dict[str, Any]]:
    page: dict[str, list[dict[str, Any]]] = api(server, f"/games/{game['id']}/records?limit=100")
    return page["records"]


@pytest.mark.server
def test_rest_damage_and_heal_from_the_play_tab(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as server,
        browser() as chrome,
    ):
        game = _game(server)
        page = open_page(chrome, server, DESKTOP)
        pick_game(page, game)
        lucia = page.locator(f'#party [data-character="{LUCIA}"]')
        willpower = lucia.locator('[data-pool="willpower_points"] .value')
        health = lucia.locator('[data-track="health"] .value')
        expect(willpower).to_have_text("4")  # her file has spent one
        changes = page.locator("#change-list li")
        said = page.locator("#harm-outcome")
        history = page.locator("#history > li")

        # damage a pool through the form: the value drops and the change shows
        expect(page.get_by_label("Who", exact=True)).to_have_value(LUCIA)  # the first one
        page.get_by_label("Pool or track").select_option(label="Willpower points (4/5)")
        expect(page.get_by_label("Kind of harm")).to_be_hidden()
        page.get_by_label("Amount").fill("2")
        page.get_by_role("button", name="Damage", exact=True).click()
        expect(said).to_have_text(f"Done: {LUCIA}, 2/5.")
        expect(willpower).to_have_text("2")
        expect(changes).to_have_text([f"{LUCIA}: Willpower points 4 → 2"])
        expect(lucia.locator(".changed")).to_have_count(1)
        newest = _records(server, game)[0]
        assert (newest["kind"], newest["who"], newest["ok"], newest["now"]) == (
            "sheet",
            LUCIA,
            True,
            "2/5",
        )
        assert 'op="damage" pool="willpower_points" amount="2"' in newest["tag"]
        row = history.first
        expect(row).to_have_attribute("data-kind", "sheet")
        expect(row).to_have_text(
            f"#{newest['number']} {LUCIA}: sheet, damage Willpower points 2, done: 2/5"
            f" Show card #{newest['number']}"
        )
        # its card is the service's: the command and its outcome, no dice; it verifies
        row.get_by_role("button", name=f"Show card #{newest['number']}").click()
        card = page.locator(f'article.card[data-record="{newest["id"]}"]')
        expect(card.locator("h3")).to_have_text(f"#{newest['number']} Sheet command — {LUCIA}")
        expect(card.locator(".outcome")).to_have_text("Done: 2/5")
        expect(card.locator("li.die")).to_have_count(0)
        card.get_by_role("button", name="Verify").click()
        expect(card.locator(".verdict")).to_have_text(
            "Verified: applying the command again to the party as it stood gives this record."
        )

        # refused: spend more than the pool has; the reason beside the control, no change
        page.get_by_label("Amount").fill("3")
        page.get_by_role("button", name="Spend", exact=True).click()
        expect(said).to_have_text("Refused: insufficient (not enough left). Nothing changed.")
        expect(said).to_have_class("said refused")
        expect(willpower).to_have_text("2")
        expect(changes).to_have_text(["Nothing on the sheets changed."])
        refused = _records(server, game)[0]
        assert (refused["kind"], refused["ok"], refused["reason"]) == (
            "sheet",
            False,
            "insufficient",
        )
        expect(history.first).to_contain_text("spend Willpower points 3, refused: insufficient")
        stored = api(server, f"/games/{game['id']}/characters/{LUCIA}")["live"]
        assert stored["pools"]["willpower_points"]["value"] == 2

        # a wound track: its kinds offered, marks by the keyboard (Enter is Damage)
        page.get_by_label("Pool or track").select_option("wounds:health")
        kind = page.get_by_label("Kind of harm")
        expect(kind).to_be_visible()
        expect(page.get_by_role("button", name="Spend", exact=True)).to_be_hidden()
        expect(kind).to_have_value("bashing")  # the track's first kind
        page.get_by_label("Amount").fill("2")
        page.get_by_label("Amount").press("Enter")
        expect(said).to_have_text(f"Done: {LUCIA}, Health 2/7 Hurt.")
        expect(health).to_have_text("/, /")
        expect(changes).to_have_text([f"{LUCIA}: Health unmarked → /, /"])
        kind.select_option("")  # any kind, lightest first: a heal is a negative amount
        page.get_by_label("Amount").fill("1")
        page.get_by_role("button", name="Heal", exact=True).click()
        expect(said).to_have_text(f"Done: {LUCIA}, Health 1/7 Bruised.")
        expect(health).to_have_text("/")
        assert 'track="health" amount="-1"' in _records(server, game)[0]["tag"]
        expect(history.first).to_contain_text(f"{LUCIA}: sheet, heal Health 1, done: Health 1/7")
        assert page.evaluate(UNNAMED_CONTROLS) == []
        shoot(page, "play-sheet-commands")

        # one button per rest; the party rests, and only what the rest names comes back
        expect(page.locator("#rest-buttons button")).to_have_text(
            ["A night's rest", "End of the story"]
        )
        expect(page.get_by_label("Who rests")).to_have_value("")  # the whole party
        page.get_by_role("button", name="A night's rest").click()
        rest_said = page.locator("#rest-outcome")
        expect(rest_said).to_contain_text(f"Done: party, {LUCIA} A night's rest: Health 0/7")
        expect(health).to_have_text("unmarked")
        expect(willpower).to_have_text("2")  # a night's rest gives no Willpower back
        expect(changes).to_have_text(  # Tobias's file has a lethal and a bashing mark
            [f"{LUCIA}: Health / → unmarked"] + [f"{n}: Health X, / → X" for n in (TOBIAS, OX)]
        )
        rest = _records(server, game)[0]
        assert (rest["kind"], rest["who"], rest["ok"]) == ("sheet", "party", True)
        expect(history.first).to_contain_text("party: sheet, rest A night's rest, done:")
        page.get_by_label("Who rests").select_option(LUCIA)
        page.get_by_role("button", name="End of the story").click()
        expect(rest_said).to_have_text(f"Done: {LUCIA}, End of the story: Willpower points 5/5.")
        expect(changes).to_have_text([f"{LUCIA}: Willpower points 2 → 5"])

        # a name the tag cannot carry is refused in the form, and nothing is sent
        before = len(_records(server, game))
        page.get_by_label("Who", exact=True).select_option(OX)
        page.get_by_label("Pool or track").select_option("pool:willpower_points")
        page.get_by_role("button", name="Damage", exact=True).click()
        expect(said).to_contain_text("holds a double quote or a square bracket")
        assert len(_records(server, game)) == before

        # a Game Master text's sheet command shows its change in the same panel
        page.get_by_label("Game Master text").fill(
            f'A knife. [sheet: op="damage" track="health" kind="lethal" amount="1" who="{LUCIA}"]'
        )
        page.get_by_role("button", name="Resolve").click()
        expect(page.locator("#status")).to_contain_text("1 sheet command(s) applied, 0 refused")
        expect(changes).to_have_text([f"{LUCIA}: Health unmarked → X"])
        expect(lucia.locator('.changed[data-track="health"]')).to_have_count(1)
        shoot(page, "play-sheet-changes")
        page.set_viewport_size(PHONE)  # the forms fit a phone's screen
        page.get_by_label("Pool or track").select_option("wounds:health")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(page, "play-sheet-commands")
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()


def test_the_page_has_words_for_every_refusal_reason_and_no_other() -> None:
    script = (REPO / "src/dicebound/edge/web/static/words.js").read_text(encoding="utf-8")
    block = script[script.index("const REASONS = {") : script.index("};")]
    named = re.findall(r'^\s+"?([a-z-]+)"?: "', block, flags=re.MULTILINE)
    assert sorted(named) == sorted(REASONS) and len(named) == len(set(named))
