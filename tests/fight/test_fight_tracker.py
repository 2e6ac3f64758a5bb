"""The fight on the page (FIGHTS §15.3): the initiative tracker (the order, the round,
whose turn it is, each combatant's health, the defeated crossed out) and the menu of the
combatant on turn for a seat that may choose for it: each option with its cost, its
chance to hit as a percentage with the exact fraction on hover, its damage as a chart,
targets limited to the legal ones; a choice sent from the page plays a step; a player's
seat sees the menu only on its own character's turn, drawn again from the live events.
At desktop and phone width, audited by axe-core, in a real Chromium against a real
``dicebound serve``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from fight_service_support import A_START, new_game
from playwright.sync_api import Browser, expect

from http_api_support import bearer
from service_support import ServerProcess
from web_support import DESKTOP, PHONE, browser, open_page, pick_game, shoot_schemes

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("tracker")
    with ServerProcess(f"sqlite:///{folder / 'web.db'}", log=folder / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
def chrome() -> Iterator[Browser]:
    with browser() as launched:
        yield launched


@pytest.fixture
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=30) as client:
        yield client


def _started(http: httpx.Client) -> tuple[str, str]:
    """A new game on F5 with A-start played (order Brenna 22, Corwin 16, Snag 7, Rot 3)."""
    game, token = new_game(http)
    started = http.post(
        f"/games/{game}/checks",
        json={"text": A_START, "faces": [20, 14, 5, 3]},
        headers=bearer(token),
    )
    assert started.status_code == 200, started.text
    assert started.json()["fight"]["steps"][0]["ok"] is True
    return game, token


def _view(http: httpx.Client, game: str, token: str) -> dict[str, Any]:
    answer = http.get(f"/games/{game}/fight", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    view: dict[str, Any] = answer.json()
    return view


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_tracker_and_the_menu_mid_fight(
    viewport: dict[str, int], server: ServerProcess, chrome: Browser, http: httpx.Client
) -> None:
    game, token = _started(http)
    page = open_page(chrome, server, viewport)
    pick_game(page, {"id": game})
    fight = page.get_by_role("region", name="Fight")
    expect(fight).to_be_visible()
    expect(page.locator("#fight-round")).to_have_text("Round 1: Brenna's turn.")
    # the order, each with its initiative and health; the one on turn marked current
    lines = page.get_by_role("list", name="Initiative order").locator("> li")
    expect(lines).to_have_count(4)
    expect(lines.nth(0)).to_contain_text("Brenna (party, initiative 22) on turn")
    expect(lines.nth(0)).to_contain_text("60 / 60")
    expect(lines.nth(0)).to_have_attribute("aria-current", "true")
    expect(lines.nth(1)).to_contain_text("Corwin (party, initiative 16)")
    expect(lines.nth(2)).to_contain_text("Snag (opponent, initiative 7)")
    expect(lines.nth(2)).to_contain_text("12 / 12")
    expect(lines.nth(3)).to_contain_text("Rot (opponent, initiative 3)")
    expect(page.get_by_role("meter", name="Snag's health")).to_have_attribute("value", "12")

    # Brenna's menu: the Longsword at Snag (the first legal target), then at Rot
    menu = page.get_by_role("group", name="Brenna: choose")
    longsword = menu.locator("li.option", has_text="Longsword")
    expect(longsword.locator(".label")).to_have_text("Longsword (action)")
    target = longsword.get_by_label("Target of Longsword")
    targets = target.locator("option")
    assert targets.evaluate_all("o => o.map(x => x.value)") == ["Snag", "Rot"]
    hit = longsword.locator(".odds .chance").first
    expect(hit).to_have_text("75%")
    expect(hit).to_have_attribute("title", "exactly 3/4")
    expect(longsword.locator(".odds")).to_contain_text("drops Snag")
    chart = longsword.locator(".damage-chart[role=img]")
    expect(chart).to_be_visible()
    expect(chart).to_have_attribute(
        "aria-label", re.compile(r"^Damage to Snag, each amount's chance: 0: 1/4, 5: 7/80, ")
    )
    expect(chart.locator(".bar").first).to_have_attribute("title", "0 damage: exactly 1/4")
    target.select_option("Rot")
    expect(hit).to_have_text("80%")
    expect(hit).to_have_attribute("title", "exactly 4/5")
    # help aims at an ally: Corwin alone
    helping = menu.locator("li.option", has_text="help")
    assert helping.get_by_label("Target of help").locator("option").evaluate_all(
        "o => o.map(x => x.value)"
    ) == ["Corwin"]
    shoot_schemes(page, f"fight-tracker-{viewport['width']}")
    found = [
        f"{v['id']} ({v['impact']}): {v['help']}"
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert found == [], found

    # the Longsword swung at Rot from the page: a step played and its card drawn; the
    # tracker then shows what the service holds
    longsword.get_by_role("button", name="Longsword: act").click()
    expect(page.locator("#status")).to_contain_text("Fight: act: done.")
    expect(page.locator("article.card.fight")).to_have_count(1)
    rot = next(e for e in _view(http, game, token)["summary"]["enemies"] if e["name"] == "Rot")
    expect(lines.nth(3)).to_contain_text(f"{rot['health']} / 14")
    # End turn: Corwin's turn, his menu
    page.get_by_role("group", name="Brenna: choose").get_by_role("button", name="End turn").click()
    expect(page.locator("#fight-round")).to_have_text("Round 1: Corwin's turn.")
    expect(lines.nth(1)).to_have_attribute("aria-current", "true")
    expect(page.get_by_role("group", name="Corwin: choose")).to_be_visible()
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def test_a_players_seat_sees_its_own_menu_on_its_own_turn(
    server: ServerProcess, chrome: Browser, http: httpx.Client
) -> None:
    game, token = _started(http)
    seat = http.post(f"/games/{game}/characters/Corwin/seat", headers=bearer(token))
    assert seat.status_code in (200, 201), seat.text
    page = open_page(chrome, server, DESKTOP, token=seat.json()["token"])
    pick_game(page, {"id": game})
    expect(page.locator("#fight-round")).to_have_text("Round 1: Brenna's turn.")
    expect(page.get_by_role("list", name="Initiative order").locator("> li")).to_have_count(4)
    # Brenna's turn: not this seat's to choose
    expect(page.locator("#fight-menu")).to_be_hidden()
    # the game master ends Brenna's turn elsewhere: the event brings Corwin's menu
    ended = http.post(
        f"/games/{game}/fight", json={"op": "end-turn", "who": "Brenna"}, headers=bearer(token)
    )
    assert ended.status_code == 200 and ended.json()["ok"] is True, ended.text
    expect(page.locator("#fight-round")).to_have_text("Round 1: Corwin's turn.")
    expect(page.get_by_role("group", name="Corwin: choose")).to_be_visible()
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def test_a_game_without_a_fight_shows_no_tracker(
    server: ServerProcess, chrome: Browser, http: httpx.Client
) -> None:
    game, _ = new_game(http)
    page = open_page(chrome, server, DESKTOP)
    pick_game(page, {"id": game})
    expect(page.get_by_role("heading", name="Party")).to_be_visible()
    expect(page.locator("#fight")).to_be_hidden()
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def test_an_open_window_is_the_menu_until_it_is_answered(
    server: ServerProcess, chrome: Browser, http: httpx.Client
) -> None:
    """A hit held by a window on Gravewatch (E32's Brace): the page shows the window's
    question, the asked warden's answers and Pass; Pass lets the hit land and the turn
    goes on."""
    from test_fight_windows import bracing_ada_file, bracing_doc

    from service_support import admin_headers

    ruleset = bracing_doc()
    stored = http.post("/rulesets", json=ruleset, headers=admin_headers())
    assert stored.status_code in (200, 201), stored.text
    made = http.post(
        "/games", json={"name": "A vigil", "ruleset": ruleset["id"]}, headers=admin_headers()
    )
    game, token = made.json()["id"], made.json()["token"]
    put = http.put(f"/games/{game}/characters/Ada", json=bracing_ada_file(), headers=bearer(token))
    assert put.status_code == 201, put.text
    for body in (
        {"op": "start", "enemies": "Rats (night/grave-rats)", "faces": [10, 1]},
        {"op": "end-turn", "who": "Ada"},
        {
            "op": "act",
            "who": "Rats",
            "option": "Gnaw",
            "targets": ["Ada"],
            "faces": [7, 7, 2, 3, 4],
        },
    ):
        step = http.post(f"/games/{game}/fight", json=body, headers=bearer(token))
        assert step.status_code == 200 and step.json()["ok"], step.text
    page = open_page(chrome, server, DESKTOP)
    pick_game(page, {"id": game})
    menu = page.get_by_role("group", name="Ada: answer window w1")
    expect(menu).to_be_visible()
    expect(menu.locator(".window-banner")).to_have_text(
        "Window w1: Ada may answer with a reaction to a hit, or pass."
    )
    expect(menu.locator("li.option .label")).to_have_text(["Brace (quick)"])
    menu.get_by_role("button", name="Pass").click()
    expect(page.locator("#status")).to_contain_text("Fight: pass: done.")
    expect(page.locator("#fight-round")).to_have_text("Round 1: Rats's turn.")
    expect(page.locator(".window-banner")).to_have_count(0)
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()
