"""The page audited by axe-core (through ``axe-playwright-python``) in a real Chromium
against a real ``dicebound serve``: every tab, with what a table puts on it (cards with
dice and an offer to answer, a ruleset's problems, the odds' charts, a sheet), at desktop
and phone width, light and dark. No serious or critical violation may be found; the
screenshots of each tab in each scheme are kept with the others."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from dicebound.edge.files import ruleset_text
from http_api_support import LUCIA_SPENDS
from service_support import ServerProcess
from web_support import DESKTOP, PHONE, new_game, open_page, pick_game, shoot, show_tab

pytestmark = pytest.mark.server

MAUD = "Maud Harrowgate"
# a step-pool check that leaves an offer to raise (seed turn2-0): the card holds a form
DUEL = f'The captain draws. [skill_check: skill="Martial/Swordplay" difficulty="Rare" who="{MAUD}"]'
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def games(server: ServerProcess) -> dict[str, dict[str, Any]]:
    return {
        "pool": new_game(server, "wod-pool", "lucia"),
        "steps": new_game(server, "advanced-resolution", "maud"),
    }


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


def _resolve(page: Page, text: str, seed: str) -> None:
    page.get_by_label("Game Master text").fill(text)
    page.get_by_label("Seed", exact=False).fill(seed)
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("article.card").first).to_be_visible()


def _blocking(axe: Axe, page: Page, where: str) -> list[str]:
    """Each serious or critical violation axe finds on the page as it is, one line each."""
    found = axe.run(page).response["violations"]
    return [
        f"{where}: {v['id']} ({v['impact']}) {v['help']}: "
        + "; ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        for v in found
        if v["impact"] in BLOCKING
    ]


def _audit(axe: Axe, page: Page, where: str, shot: str | None = None) -> list[str]:
    """``_blocking`` in the light scheme and in the dark one (the page left light), each
    scheme's screenshot kept as ``shot``-light and ``shot``-dark when named."""
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        assert dark == (scheme == "dark")
        found += _blocking(axe, page, f"{where} {scheme}")
        if shot:
            shoot(page, f"{shot}-{scheme}")
    page.emulate_media(color_scheme="light")
    return found


# each state is audited in both schemes, so the page is walked once per width
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_violation_on_any_tab(
    viewport: dict[str, int],
    chrome: Browser,
    server: ServerProcess,
    games: dict[str, dict[str, Any]],
    axe: Axe,
    opened: list[Page],
) -> None:
    page = open_page(chrome, server, viewport)
    opened.append(page)
    where = f"{viewport['width']}px"
    found: list[str] = []

    # Play: a dice pool's card (hits, tens, a spend), then a card with an offer to raise,
    # with "Make a game" open
    pick_game(page, games["pool"])
    _resolve(page, LUCIA_SPENDS, "42")
    found += _audit(axe, page, f"{where} Play, a pool's card")
    pick_game(page, games["steps"])
    _resolve(page, DUEL, "turn2-0")
    expect(page.locator("article.card form.raise")).to_be_visible()
    page.get_by_text("Make a game").click()
    found += _audit(axe, page, f"{where} Play, an offer", "axe-play")

    # Author: a ruleset with a problem listed
    show_tab(page, "Author")
    broken = ruleset_text("advanced-resolution")[0].replace(
        '"max": 4, "default": 1', '"max": "four", "default": 1', 1
    )
    page.get_by_label("Ruleset file", exact=True).fill(broken)
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator("#problems button").first).to_be_visible()
    found += _audit(axe, page, f"{where} Author", "axe-author")

    # Balance: the character's odds drawn
    show_tab(page, "Balance")
    page.get_by_label("Character", exact=True).select_option(MAUD)
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#charts figure").first).to_be_visible()
    # with the first chart's table of every chance open
    page.locator("#charts details.chances summary").first.click()
    expect(page.locator("#charts .chances-table").first).to_be_visible()
    found += _audit(axe, page, f"{where} Balance", "axe-balance")

    # Sheet: the character's form
    show_tab(page, "Sheet")
    page.get_by_label("Character to edit").select_option(MAUD)
    expect(page.get_by_label("Character name")).to_have_value(MAUD)
    found += _audit(axe, page, f"{where} Sheet", "axe-sheet")

    assert found == [], "\n".join(found)
