"""The web page at ``/``, in a real Chromium driven by Playwright against a real
``dicebound serve``: each part done by clicks and typing as a person would, asserting
what the page shows against what the API says; screenshots of every part at desktop
and phone width; labels, roles and focus order checked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from dicebound.edge.files import ruleset_text
from http_api_support import LUCIA_SPENDS
from repo_paths import REPO
from service_support import ServerProcess, admin_headers
from web_support import (
    PHONE,
    UNNAMED_CONTROLS,
    api,
    new_game,
    pick_game,
    shoot,
)

pytestmark = pytest.mark.server

MAUD = "Maud Harrowgate"
DUEL = '[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="Maud Harrowgate"]'
SNEAK = '[skill_check: skill="Scoundrel/Sneak" difficulty="Normal" who="Maud Harrowgate"]'


def _tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    expect(page.get_by_role("tabpanel", name=name)).to_be_visible()


def _pool(page: Page, who: str, pool: str) -> Any:
    return page.locator(f'[data-character="{who}"] [data-pool="{pool}"] .value')


# ── play ─────────────────────────────────────────────────────────────────────


def test_play_a_scene(page: Page, server: ServerProcess) -> None:
    width = page.viewport_size["width"] if page.viewport_size else 0
    # make a game from a packaged ruleset, by the form
    page.get_by_text("Make a game").click()
    page.get_by_label("Game name").fill(f"The vault at {width}px")
    page.get_by_label("Ruleset", exact=True).select_option("advanced-resolution@1")
    page.get_by_role("button", name="Make the game").click()
    # the game's token is shown once, in a dialog (test_web_seats.py tries it whole)
    expect(page.get_by_role("dialog").locator("code")).to_contain_text("dbg_")
    page.keyboard.press("Escape")
    chosen = page.get_by_label("Game", exact=True).input_value()
    game = api(server, f"/games/{chosen}")
    assert game["name"] == f"The vault at {width}px" and game["characters"] == []

    maud = json.loads(
        (REPO / "src/dicebound/data/characters/advanced-resolution/maud.json").read_text()
    )
    put = httpx.put(
        server.base + f"/games/{chosen}/characters/{MAUD}", json=maud, headers=admin_headers()
    )
    assert put.status_code == 201
    pick_game(page, {"id": chosen})
    expect(_pool(page, MAUD, "body")).to_have_text("7")

    # a check with a raise after the roll: the card shows every face, the pool drops
    page.get_by_label("Game Master text").fill(f"The captain draws. {DUEL}")
    page.get_by_label("Seed (optional, replays a roll)").fill("turn2-0")
    page.get_by_role("button", name="Resolve").click()
    card = page.locator("article.card").first
    expect(card).to_contain_text("Sacrifice")
    record_id = card.get_attribute("data-record")
    record = api(server, f"/games/{chosen}/records/{record_id}")
    faces = card.locator("li.die").evaluate_all("dice => dice.map(d => d.dataset.face)")
    assert faces == record["attrs"]["rolls"].split("|")
    card_lines = api(server, f"/games/{chosen}/records/{record_id}/card")["plain"]
    terms = card.locator("dl dt").all_text_contents()
    assert terms == [term for term, _ in card_lines if term != "Means"] and "Seed" in terms
    expect(card.locator("dl")).to_contain_text("turn2-0 (the same seed replays this roll)")
    expect(page.locator("#rewritten")).to_contain_text('seed="turn2-0"')
    shoot(page, "play-offer")

    card.get_by_label("Spend from").select_option("body")
    card.get_by_label("points").fill("2")
    card.get_by_role("button", name="Raise").click()
    expect(_pool(page, MAUD, "body")).to_have_text("5")
    expect(page.locator("#status")).to_contain_text("Maud Harrowgate's body 7 → 5")
    raised = page.locator(f'article.card[data-record="{record_id}"]')
    expect(raised.locator(".outcome")).to_have_text("Success")
    expect(raised.locator("li.die").nth(2)).to_have_attribute(
        "aria-label",
        "Training d10, 6 → 8, reached the target 8, raised from 6 to 8 by the points spent "
        "after the roll",
    )
    raised.get_by_role("button", name="Verify").click()
    expect(raised.locator(".verdict")).to_have_text(
        "Verified: replaying the seed gives this record."
    )

    # a Sacrifice answered with a button
    page.get_by_label("Game Master text").fill(f"They slip out. {SNEAK}")
    page.get_by_label("Seed (optional, replays a roll)").fill("turn3-0")
    page.get_by_role("button", name="Resolve").click()
    open_card = page.locator("article.card.open").first
    expect(open_card).to_be_visible()
    sacrifice_id = open_card.get_attribute("data-record")
    open_card.get_by_role("button", name="Succeed at a cost").click()
    expect(page.locator("#status")).to_contain_text("Sacrifice")
    assert api(server, f"/games/{chosen}/records/{sacrifice_id}")["answered"] == {
        "choose": "succeed"
    }

    # the history, newest first, paged by ten
    page.get_by_label("Seed (optional, replays a roll)").fill("")
    page.get_by_label("Game Master text").fill(" ".join([DUEL] * 10))
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#status")).to_contain_text("10 check(s) resolved")
    history = page.locator("#history > li")
    expect(history).to_have_count(10)
    page.get_by_role("button", name="Older records").click()
    expect(history).to_have_count(12)
    shown = [int(i) for i in history.evaluate_all("items => items.map(i => i.dataset.record)")]
    stored = [r["id"] for r in api(server, f"/games/{chosen}/records?limit=100")["records"]]
    assert shown == stored and shown == sorted(shown, reverse=True)
    expect(page.get_by_role("button", name="Older records")).to_be_hidden()
    shoot(page, "play")


def test_a_spend_on_the_tag_is_paid_and_every_die_says_what_it_did(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "wod-pool", "lucia")
    pick_game(page, game)
    lucia = "Lucia Marchetti"
    before = int(_pool(page, lucia, "willpower_points").inner_text())
    expect(page.locator(f'[data-character="{lucia}"] [data-track="health"]')).to_have_text(
        "Health: unmarked"
    )
    page.get_by_label("Game Master text").fill(LUCIA_SPENDS)
    page.get_by_label("Seed (optional, replays a roll)").fill("42")
    page.get_by_role("button", name="Resolve").click()
    expect(_pool(page, lucia, "willpower_points")).to_have_text(str(before - 1))
    card = page.locator("article.card").first
    record = api(server, f"/games/{game['id']}/records/{card.get_attribute('data-record')}")
    threshold = int(record["attrs"]["threshold"])
    dice = card.locator("li.die")
    labels = dice.evaluate_all("dice => dice.map(d => d.getAttribute('aria-label'))")
    faces = record["attrs"]["rolls"].split("|")
    assert [label.split(", ")[0] for label in labels] == faces
    for face, label in zip(faces, labels, strict=True):
        words = label.split(", ")
        counted = "counted" in words or "counts twice" in words or "cancelled by a low die" in words
        assert counted == (int(face) >= threshold), label
    expect(card.locator(".die-key")).to_contain_text("counted")
    shoot(page, "play-pool")


# ── author ───────────────────────────────────────────────────────────────────


def test_author_a_ruleset(page: Page, server: ServerProcess, tmp_path: Path) -> None:
    _tab(page, "Author")
    page.get_by_label("Start from").select_option("advanced-resolution@1")
    page.get_by_role("button", name="Load", exact=True).click()
    editor = page.get_by_label("Ruleset file", exact=True)
    expect(editor).to_have_value(ruleset_text("advanced-resolution")[0])

    broken = ruleset_text("advanced-resolution")[0].replace(
        '"max": 4, "default": 1', '"max": "four", "default": 1', 1
    )
    line = broken[: broken.index('"four"')].count("\n") + 1
    editor.fill(broken)
    page.get_by_role("button", name="Check", exact=True).click()
    problem = page.locator("#problems button").first
    expect(problem).to_have_text(re.compile(rf"^Line {line}: sheet\.abilities\[0\]\.max: "))
    editor.evaluate("e => e.setSelectionRange(0, 0)")
    problem.click()
    expect(editor).to_be_focused()
    cursor_line = editor.evaluate("e => e.value.slice(0, e.selectionStart).split('\\n').length")
    assert cursor_line == line
    shoot(page, "author-problems")

    # fixed, under a new id, it is valid, teaches its gm text, and is saved
    width = page.viewport_size["width"] if page.viewport_size else 0
    fixed = ruleset_text("advanced-resolution")[0].replace(
        '"id": "advanced-resolution"', f'"id": "house-rules-{width}"', 1
    )
    editor.fill(fixed)
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator("#status")).to_contain_text(f"(house-rules-{width} v1) is valid")
    expect(page.locator("#problems li")).to_have_count(0)
    expect(page.locator("#taught")).to_contain_text("Checks in Advanced Resolution")
    page.get_by_role("button", name="Save as a new version").click()
    expect(page.locator("#status")).to_contain_text(f"Saved house-rules-{width} version 1")
    assert any(r["id"] == f"house-rules-{width}" for r in api(server, "/rulesets"))

    # a game made from a pasted ruleset: the file is uploaded first, then played
    pasted = ruleset_text("advanced-resolution")[0].replace(
        '"id": "advanced-resolution"', f'"id": "pasted-{width}"', 1
    )
    _tab(page, "Play")
    page.get_by_text("Make a game").click()
    page.get_by_label("Game name").fill(f"Pasted at {width}px")
    page.get_by_label("Or paste a ruleset file (uploaded first)").fill(pasted)
    page.get_by_role("button", name="Make the game").click()
    expect(page.get_by_role("dialog")).to_contain_text("Shown only once")
    page.get_by_role("dialog").get_by_role("button", name="Close").click()
    made = api(server, f"/games/{page.get_by_label('Game', exact=True).input_value()}")
    assert (made["ruleset"], made["version"]) == (f"pasted-{width}", 1)
    _tab(page, "Author")

    # an uploaded file is read into the editor and checked at once
    upload = tmp_path / "genesys.json"
    upload.write_text(ruleset_text("genesys")[0])
    page.get_by_label("Upload a file").set_input_files(str(upload))
    expect(page.locator("#status")).to_contain_text("(genesys v1) is valid")
    expect(editor).to_have_value(ruleset_text("genesys")[0])
    shoot(page, "author")


# ── balance ──────────────────────────────────────────────────────────────────


def test_balance_a_character(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    _tab(page, "Balance")
    page.get_by_label("Character", exact=True).select_option("Mira Quickfoot")
    page.get_by_role("button", name="Show the odds").click()
    report = api(server, f"/games/{game['id']}/report?character=Mira%20Quickfoot")
    charts = page.locator("#charts figure")
    expect(charts).to_have_count(len(report["rows"]))
    first = charts.first
    expect(first.locator("g.step")).to_have_count(len(report["steps"]))
    cell = report["rows"][0]["cells"][0]
    titles = first.locator("g.step").first.locator("rect title").all_text_contents()
    bands = [o["label"] for o in report["outcomes"]]
    expected = [
        f"{report['steps'][0]['label']}, {bands[i]}: {p}"
        for i, p in enumerate(cell["probabilities"])
        if p != "0"
    ]
    assert [t.rsplit(" (", 1)[0] for t in titles] == expected
    expect(page.locator("#legend")).to_contain_text(bands[0])
    shoot(page, "balance")

    # what if: advantage moves the chance at every step, as /odds says
    page.get_by_label("What if: check").select_option(index=0)
    page.get_by_label("with these tag attributes").fill('mode="advantage"')
    page.get_by_role("button", name="Show the change").click()
    expect(page.locator(".whatif-change")).to_be_visible()
    row = report["rows"][0]
    for step, base in zip(report["steps"], row["cells"], strict=True):
        tag = base["tag"].replace("]", ' mode="advantage"]')
        odds = httpx.post(
            server.base + f"/games/{game['id']}/odds",
            json={"tag": tag, "who": "Mira Quickfoot"},
            headers=admin_headers(),
        ).json()
        expect(page.locator(".whatif-change")).to_contain_text(
            f"{step['label']}: {base['success']} → {odds['success']}"
        )
    shoot(page, "balance-whatif")


# ── sheet ────────────────────────────────────────────────────────────────────


def test_a_sheet_from_the_rulesets_declarations(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd")
    pick_game(page, game)
    _tab(page, "Sheet")
    ruleset = json.loads(ruleset_text("dnd5e-srd")[0])
    abilities = ruleset["sheet"]["abilities"]
    for ability in abilities:
        control = page.get_by_label(f"{ability['label']} ({ability['min']} to {ability['max']})")
        expect(control).to_have_attribute("min", str(ability["min"]))
        expect(control).to_have_attribute("max", str(ability["max"]))
    skill = ruleset["sheet"]["skills"][0]
    tiers = page.get_by_label(skill["label"], exact=True).locator("option").all_text_contents()
    assert tiers == [t["label"] for t in ruleset["resolution"]["proficiencyTiers"]]

    width = page.viewport_size["width"] if page.viewport_size else 0
    name = f"Test Hero {width}"
    page.get_by_label("Character name").fill(name)
    strength = abilities[0]
    control = page.get_by_label(f"{strength['label']} ({strength['min']} to {strength['max']})")
    control.fill("99")  # out of range: the browser holds the form, as the import would
    page.get_by_role("button", name="Save the character").click()
    assert control.evaluate("c => !c.checkValidity()")
    control.fill("15")
    page.get_by_label(skill["label"], exact=True).select_option("proficient")
    page.get_by_label("Inspiration points").fill("5")  # over its maximum of 1
    page.get_by_role("button", name="Save the character").click()
    expect(page.locator("#sheet-problems li").first).to_contain_text("inspiration")
    expect(page.get_by_label("Inspiration points")).to_have_attribute("aria-invalid", "true")
    shoot(page, "sheet-problems")

    page.get_by_label("Inspiration points").fill("")
    page.get_by_role("button", name="Save the character").click()
    expect(page.locator("#status")).to_contain_text(f"Saved {name} (revision 1)")
    stored = api(server, f"/games/{game['id']}/characters/{name}")
    assert stored["sheet"]["build"]["abilities"][strength["id"]] == 15
    assert stored["sheet"]["build"]["skills"][skill["id"]] == "proficient"
    _tab(page, "Play")
    expect(page.locator(f'[data-character="{name}"]')).to_be_visible()
    _tab(page, "Sheet")
    shoot(page, "sheet")


# ── accessibility ────────────────────────────────────────────────────────────

_FOCUSABLE = """
() => [...document.querySelectorAll('a[href], summary, input, select, textarea, button, [tabindex]')]
  .filter(c => c.checkVisibility() && c.tabIndex >= 0 && !c.disabled)
  .map(c => c.id || c.textContent.trim())
"""


def test_labels_roles_and_focus_order(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    for name in ("Play", "Author", "Balance", "Sheet"):
        _tab(page, name)
        assert page.evaluate(UNNAMED_CONTROLS) == [], name
        expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tablist")).to_have_count(1)
    expect(page.get_by_role("main")).to_have_count(1)
    expect(page.get_by_role("navigation")).to_have_count(1)

    # arrows move between the tabs, as the tabs pattern says
    page.get_by_role("tab", name="Sheet").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Play")).to_be_focused()
    expect(page.get_by_role("tabpanel", name="Play")).to_be_visible()

    # Tab walks the controls in the order they are on the page
    page.locator("#token").focus()
    order = page.evaluate(_FOCUSABLE)
    start = order.index("token")
    walked = []
    for _ in range(8):
        page.keyboard.press("Tab")
        walked.append(
            page.evaluate(
                "() => document.activeElement.id || document.activeElement.textContent.trim()"
            )
        )
    assert walked == order[start + 1 : start + 9]

    # nothing wider than a phone's screen
    if page.viewport_size and page.viewport_size["width"] == PHONE["width"]:
        for name in ("Play", "Author", "Balance", "Sheet"):
            _tab(page, name)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
