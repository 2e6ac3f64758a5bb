"""The Balance tab in a real Chromium against a real ``dicebound serve``, at desktop and
phone width: charts drawn at the width they are shown at (no text under 12 px, nothing
wider than the screen), band abbreviations that never read the same, step labels that
fit, a step's exact fractions shown on a tap as well as on hover, and a what-if that
draws before and after bars with percentages and warns about an attribute the ruleset's
checks do not take."""

from __future__ import annotations

from fractions import Fraction

import pytest
from playwright.sync_api import Browser, Page, expect

from service_support import ServerProcess
from web_support import PHONE, api, new_game, pick_game, shoot

pytestmark = pytest.mark.server

# every text drawn in a chart or its legend: its size on screen and whether it overflows
# its own chart
TEXT_SIZES = """
() => [...document.querySelectorAll('#balance svg text, #legend, .whatif-table, .band-detail')]
  .filter(t => t.getBoundingClientRect().width > 0)
  .map(t => parseFloat(getComputedStyle(t).fontSize) * (t.ownerSVGElement
    ? t.ownerSVGElement.getBoundingClientRect().width / t.ownerSVGElement.viewBox.baseVal.width
    : 1))
"""

LABELS_INSIDE = """
() => [...document.querySelectorAll('#balance svg text.step-label')].filter(t => {
  const box = t.getBoundingClientRect(), svg = t.ownerSVGElement.getBoundingClientRect();
  return box.left < svg.left - 0.5 || box.right > svg.right + 0.5;
}).map(t => t.textContent)
"""


def _width(page: Page) -> int:
    return page.viewport_size["width"] if page.viewport_size else 0


def _show(page: Page, who: str) -> None:
    page.get_by_role("tab", name="Balance").click()
    page.get_by_label("Character", exact=True).select_option(who)
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#charts figure").first).to_be_visible()


def test_the_charts_read_on_a_phone(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "fate-core", "ines")
    pick_game(page, game)
    _show(page, "Ines Caldera")
    report = api(server, f"/games/{game['id']}/report?character=Ines%20Caldera")
    expect(page.locator("#charts figure")).to_have_count(len(report["rows"]))
    sizes = page.evaluate(TEXT_SIZES)
    assert sizes and min(sizes) >= 12 - 0.01, min(sizes)
    assert page.evaluate(LABELS_INSIDE) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= _width(page)
    # every step's label is drawn whole ("Legendary" and "Mediocre" fit)
    first = page.locator("#charts figure").first
    shown = first.locator("text.step-label").all_text_contents()
    assert shown == [s["label"] for s in report["steps"]]
    # the bands' abbreviations never read the same ("Succeed with style", "Succeed")
    legend = page.locator("#legend > span").all_inner_texts()
    short = [text.split(" = ")[0] for text in legend]
    assert len(set(short)) == len(short) == len(report["outcomes"])
    assert [text.split(" = ")[1] for text in legend] == [o["label"] for o in report["outcomes"]]
    shoot(page, "balance-charts")


def test_a_tap_shows_a_steps_exact_fractions(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    _show(page, "Mira Quickfoot")
    report = api(server, f"/games/{game['id']}/report?character=Mira%20Quickfoot")
    step = report["steps"][2]
    cell = report["rows"][0]["cells"][2]
    first = page.locator("#charts figure").first
    target = first.locator(f'g.step[data-step="{step["label"]}"] rect').first
    target.click()
    bands = [o["label"] for o in report["outcomes"]]
    words = [
        f"{bands[i]} {p} ({round(float(Fraction(p)) * 100)}%)"
        for i, p in enumerate(cell["probabilities"])
        if p != "0"
    ]
    expect(first.locator(".band-detail")).to_have_text(f"{step['label']}: {', '.join(words)}")
    expect(target).to_have_class("picked")
    # the keyboard reaches the same: Enter on a focused step
    other = first.locator("g.step").nth(0)
    other.focus()
    page.keyboard.press("Enter")
    expect(first.locator(".band-detail")).to_contain_text(f"{report['steps'][0]['label']}: ")
    shoot(page, "balance-tap")


def test_a_phone_tap_shows_the_fractions(chrome: Browser, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    context = chrome.new_context(viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        page.goto(server.base + "/")
        page.get_by_label("Token").fill(server.admin_token)
        page.get_by_role("button", name="Use this token").click()
        pick_game(page, game)
        _show(page, "Mira Quickfoot")
        first = page.locator("#charts figure").first
        first.locator("g.step").nth(1).locator("rect").first.tap()
        expect(first.locator(".band-detail")).to_contain_text("/")
    finally:
        context.close()


def test_what_if_draws_before_and_after_and_warns(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    _show(page, "Mira Quickfoot")
    report = api(server, f"/games/{game['id']}/report?character=Mira%20Quickfoot")
    page.get_by_label("What if: check").select_option(index=0)
    page.get_by_label("with these tag attributes").fill('mode="advantage"')
    page.get_by_role("button", name="Show the change").click()
    chart = page.locator("#whatif-chart figure")
    expect(chart).to_be_visible()
    expect(page.locator(".whatif-warning")).to_have_count(0)
    # each step has a bar before and a bar after, each band with its percentage
    steps = chart.locator("g.step")
    expect(steps).to_have_count(len(report["steps"]))
    names = steps.first.locator("text.bar-name").all_text_contents()
    assert names == ["before", "after"]
    assert chart.locator("text.on-band").first.text_content().endswith("%")  # type: ignore[union-attr]
    rows = page.locator(".whatif-table tbody tr")
    expect(rows).to_have_count(len(report["steps"]))
    medium = page.locator('.whatif-table tr[data-step="Medium"]')
    before = medium.locator("td.before").inner_text()
    after = medium.locator("td.after").inner_text()
    assert before.endswith("%") and after.endswith("%")
    assert float(after.rstrip("%")) > float(before.rstrip("%"))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= _width(page)
    sizes = page.evaluate(TEXT_SIZES)
    assert min(sizes) >= 12 - 0.01
    shoot(page, "balance-whatif-before-after")

    # an attribute the ruleset does not offer is named, and so is what it does offer
    page.get_by_label("with these tag attributes").fill('threshold="5"')
    page.get_by_role("button", name="Show the change").click()
    warning = page.locator(".whatif-warning")
    expect(warning).to_contain_text('This ruleset\'s checks do not take "threshold"')
    expect(warning).to_contain_text("They take: dc, difficulty, with, mode.")
    shoot(page, "balance-whatif-warning")


def test_balance_with_no_character_says_so(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd")
    pick_game(page, game)
    page.get_by_role("tab", name="Balance").click()
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#status")).to_contain_text("Pick a character first")
