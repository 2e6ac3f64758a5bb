"""The Play tab's rests, damage and heal, in a real Chromium against a real
``dicebound serve``: each control writes a ``[sheet:]`` command and sends it through
``POST /games/{game}/checks``; the outcome is said beside the control, the party panel
shows what changed until the next text, and the history lists the sheet records beside
the checks. Hearthstead (``tests/cases``) has a pool with a buffer, a wound track of two
kinds and a rest; the test adds a second rest so the page draws one button per rest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from dicebound.sheet_commands.reasons import REASONS
from http_api_support import bearer
from repo_paths import REPO
from service_support import ServerProcess, admin_headers, store_url_for
from web_support import DESKTOP, PHONE, UNNAMED_CONTROLS, api, browser, open_page, pick_game, shoot

WREN = "Wren"
OX = 'Tam "Ox" Reed'  # a double quote cannot be written into a tag
NIGHT = {
    "id": "night",
    "label": "A night's sleep",
    "restore": [{"track": "weariness", "to": "min"}, {"pool": "warmth", "to": "max"}],
    "clear": {"conditions": "all"},
}


def _hearth_game(server: ServerProcess) -> dict[str, Any]:
    file = json.loads((REPO / "tests/cases/ruleset_hearth.json").read_text(encoding="utf-8"))
    file["rests"] = [*file["rests"], NIGHT]
    stored = httpx.post(server.base + "/rulesets", json=file, headers=admin_headers())
    assert stored.status_code == 201, stored.text
    made = httpx.post(
        server.base + "/games",
        json={"name": "The hearth", "ruleset": file["id"], "version": file["version"]},
        headers=admin_headers(),
    )
    assert made.status_code == 201, made.text
    game: dict[str, Any] = made.json()
    for name in (WREN, OX):
        put = httpx.put(
            server.base + f"/games/{game['id']}/characters/{name}",
            json={"name": name, "sheet": {"v": 1, "build": {}}},
            headers=bearer(game["token"]),
        )
        assert put.status_code == 201, put.text
    return game


def _value(page: Page, who: str, what: str, key: str) -> Any:
    return page.locator(f'#party [data-character="{who}"] [data-{what}="{key}"] .value')


def _records(server: ServerProcess, game: dict[str, Any]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = api(server, f"/games/{game['id']}/records?limit=100")["records"]
    return records


@pytest.mark.server
def test_rest_damage_and_heal_from_the_play_tab(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as server,
        browser() as chrome,
    ):
        game = _hearth_game(server)
        page = open_page(chrome, server, DESKTOP)
        pick_game(page, game)
        grit = _value(page, WREN, "pool", "grit")
        expect(grit).to_have_text("7")
        changes = page.locator("#change-list li")
        harm_said = page.locator("#harm-outcome")
        history = page.locator("#history > li")

        # damage a pool through the form: the value drops and the change shows
        expect(page.get_by_label("Who", exact=True)).to_have_value(WREN)  # the first one
        page.get_by_label("Pool or track").select_option(label="Grit (7/7)")
        expect(page.get_by_label("Kind of harm")).to_be_hidden()
        page.get_by_label("Amount").fill("3")
        page.get_by_role("button", name="Damage", exact=True).click()
        expect(harm_said).to_have_text("Done: Wren, 4/7.")
        expect(grit).to_have_text("4")
        expect(changes).to_have_text(["Wren: Grit 7 → 4"])
        expect(page.locator(f'#party [data-character="{WREN}"] .changed')).to_have_count(1)
        newest = _records(server, game)[0]
        assert (newest["kind"], newest["who"], newest["ok"], newest["now"]) == (
            "sheet",
            WREN,
            True,
            "4/7",
        )
        assert 'op="damage" pool="grit" amount="3"' in newest["tag"]
        expect(history.first).to_have_attribute("data-kind", "sheet")
        expect(history.first).to_have_text(
            f"#{newest['id']} Wren: sheet, damage grit 3, done: 4/7 Show card #{newest['id']}"
        )
        # its card is the service's: the command and its outcome, no dice; it verifies
        history.first.get_by_role("button", name=f"Show card #{newest['id']}").click()
        card = page.locator(f'article.card[data-record="{newest["id"]}"]')
        expect(card.locator("h3")).to_have_text("Sheet command — Wren")
        expect(card.locator(".outcome")).to_have_text("Done: 4/7")
        expect(card.locator("li.die")).to_have_count(0)
        card.get_by_role("button", name="Verify").click()
        expect(card.locator(".verdict")).to_have_text(
            "Verified: applying the command again to the party as it stood gives this record."
        )

        # refused: spend more than the pool has; the reason beside the control, no change
        page.get_by_label("Amount").fill("9")
        page.get_by_role("button", name="Spend", exact=True).click()
        expect(harm_said).to_have_text("Refused: insufficient (not enough left). Nothing changed.")
        expect(harm_said).to_have_class("said refused")
        expect(grit).to_have_text("4")
        expect(changes).to_have_text(["Nothing on the sheets changed."])
        refused = _records(server, game)[0]
        assert (refused["kind"], refused["ok"], refused["reason"]) == (
            "sheet",
            False,
            "insufficient",
        )
        expect(history.first).to_contain_text("refused: insufficient")
        stored = api(server, f"/games/{game['id']}/characters/{WREN}")["live"]
        assert stored["pools"]["grit"]["value"] == 4

        # a wound track: its kinds offered, marks by the keyboard (Enter is Damage)
        page.get_by_label("Pool or track").select_option("wounds:weariness")
        kind = page.get_by_label("Kind of harm")
        expect(kind).to_be_visible()
        expect(page.get_by_role("button", name="Spend", exact=True)).to_be_hidden()
        kind.select_option("ache")
        page.get_by_label("Amount").fill("2")
        page.get_by_label("Amount").press("Enter")
        expect(harm_said).to_have_text("Done: Wren, Weariness 2/5.")
        weariness = page.locator(f'#party [data-character="{WREN}"] [data-track="weariness"]')
        expect(weariness.locator(".value")).to_have_text("A, A")
        expect(changes).to_have_text(["Wren: Weariness unmarked → A, A"])
        kind.select_option("")  # any kind, lightest first: heal by a negative amount
        page.get_by_label("Amount").fill("1")
        page.get_by_role("button", name="Heal", exact=True).click()
        expect(harm_said).to_have_text("Done: Wren, Weariness 1/5.")
        expect(weariness.locator(".value")).to_have_text("A")
        assert 'track="weariness" amount="-1"' in _records(server, game)[0]["tag"]
        expect(history.first).to_contain_text("Wren: sheet, heal weariness 1, done: Weariness 1/5")
        assert page.evaluate(UNNAMED_CONTROLS) == []
        shoot(page, "play-sheet-commands")

        # one button per rest; the party rests, and only what the rest names comes back
        rests = page.locator("#rest-buttons button")
        expect(rests).to_have_text(["Supper", "A night's sleep"])
        page.get_by_label("Who rests").select_option(label="The whole party")
        page.get_by_role("button", name="Supper").click()
        rest_said = page.locator("#rest-outcome")
        expect(rest_said).to_contain_text("Done: party, Wren Supper: Grit 7/7")
        expect(grit).to_have_text("7")
        expect(changes).to_have_text(["Wren: Grit 4 → 7"])
        expect(weariness.locator(".value")).to_have_text("A")  # Supper heals no weariness
        rest = _records(server, game)[0]
        assert (rest["kind"], rest["who"], rest["ok"]) == ("sheet", "party", True)
        expect(history.first).to_contain_text("party: sheet, rest supper, done:")

        # a name the tag cannot carry is refused in the form, and nothing is sent
        before = len(_records(server, game))
        page.get_by_label("Who", exact=True).select_option(OX)
        page.get_by_label("Pool or track").select_option("pool:grit")
        page.get_by_role("button", name="Damage", exact=True).click()
        expect(harm_said).to_contain_text("holds a double quote or a square bracket")
        assert len(_records(server, game)) == before

        # a Game Master text's sheet command shows its change in the same panel
        page.get_by_label("Game Master text").fill(
            f'The rain. [sheet: op="condition" condition="soaked" who="{WREN}"]'
        )
        page.get_by_role("button", name="Resolve").click()
        expect(page.locator("#status")).to_contain_text("1 sheet command(s) applied, 0 refused")
        expect(changes).to_have_text(["Wren: Soaked on"])
        expect(page.locator(f'#party [data-character="{WREN}"] .conditions.changed')).to_have_text(
            "Conditions: Soaked"
        )
        shoot(page, "play-sheet-changes")
        page.set_viewport_size(PHONE)  # the forms fit a phone's screen
        page.get_by_label("Pool or track").select_option("wounds:weariness")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(page, "play-sheet-commands")
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()


def test_the_page_has_words_for_every_refusal_reason_and_no_other() -> None:
    script = (REPO / "src/dicebound/edge/web/static/words.js").read_text(encoding="utf-8")
    block = script[script.index("const REASONS = {") : script.index("};")]
    named = re.findall(r'^\s+"?([a-z-]+)"?: "', block, flags=re.MULTILINE)
    assert sorted(named) == sorted(REASONS) and len(named) == len(set(named))
