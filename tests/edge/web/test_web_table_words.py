"""The rest of the table's first hour on the page (issue 44): a sheet command whose
``who=`` names nobody is told the party's full names on its card, a pool's points are
said once and counted in English, the status line says what the tab shown did (one line
on a phone, a warning gone once fixed), and every band of a chart keeps a label and its
exact chance in a table under the chart. Each at desktop and phone width."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from http_api_support import character_file
from service_support import ServerProcess
from web_support import api, new_game, pick_game, put_character, shoot_schemes, show_tab

pytestmark = pytest.mark.server

MIRA, BRAM = "Mira Quickfoot", "Bram Ironhand"
PLAYING = "Playing Table of dnd5e-srd."  # what the game row says once one is picked


def _resolve(page: Page, text: str) -> None:
    page.get_by_label("Game Master text").fill(text)
    page.get_by_role("button", name="Resolve").click()


def _clear_cards(page: Page) -> None:
    """A text with no tag resolved, and its answer (no card) drawn: a card opened from
    History afterwards is not cleared by an answer still on its way."""
    _resolve(page, "No tag.")
    expect(page.locator("#status")).to_contain_text("No tag was found")
    expect(page.locator("article.card")).to_have_count(0)


def _width(page: Page) -> int:
    return page.viewport_size["width"] if page.viewport_size else 0


def _odds(page: Page, server: ServerProcess, ruleset: str, short: str) -> dict[str, Any]:
    """A new game of one character, picked, with its odds shown on Balance."""
    game = new_game(server, ruleset, short)
    pick_game(page, game)
    show_tab(page, "Balance")
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#charts figure").first).to_be_visible()
    return game


def _party(server: ServerProcess, game: dict[str, Any]) -> list[str]:
    return [m["name"] for m in api(server, f"/games/{game['id']}/party")["characters"]]


# ── a value the ruleset does not know ────────────────────────────────────────


def test_a_tag_value_the_ruleset_does_not_know_is_said_on_the_card(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    _resolve(page, '[skill_check: skill="Stealth" dc="15" mode="sideways"]')
    card = page.locator("article.card").first
    expect(card).to_be_visible()
    note = card.locator("dt", has_text="Note").locator("xpath=following-sibling::dd[1]")
    expect(note).to_contain_text('mode="sideways" is not a mode')
    # the same card opened again from History says it too
    record = api(server, f"/games/{game['id']}/records?limit=1")["records"][0]
    assert record["notes"] and "sideways" in record["notes"][0]
    _clear_cards(page)
    page.locator("#history button").first.click()
    expect(page.locator("article.card dd", has_text="sideways")).to_be_visible()


# ── who= that names nobody ───────────────────────────────────────────────────


def test_a_sheet_command_naming_nobody_shows_the_partys_full_names(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "dnd5e-srd", "bram", "mira")
    pick_game(page, game)
    first, second = _party(server, game)
    _resolve(page, '[sheet: who="Mira" op="damage" pool="hit_points" amount="1"]')
    card = page.locator("article.card.sheet")
    expect(card).to_have_count(1)
    expect(card.locator(".outcome")).to_have_text(
        'Refused: nobody in the party is called "Mira". Write who= with a full name: '
        f'"{first}" or "{second}", or "party"'
    )
    # the same card opened again from History
    record = api(server, f"/games/{game['id']}/records?limit=1")["records"][0]
    assert record["reason"] == "unknown-character"
    _clear_cards(page)
    page.get_by_role("button", name=f"Show card #{record['number']}").click()
    expect(page.locator("article.card.sheet .outcome")).to_contain_text(
        f'a full name: "{first}" or "{second}"'
    )

    # two cards answering to one name, three members, none: the words the card takes
    said = page.evaluate(
        """async () => {
          const { reasonSentence } = await import('/static/words.js');
          return [
            reasonSentence('ambiguous-character', 'Ola', ['Ola', 'ola', 'Tam Reed']),
            reasonSentence('unknown-character', null, ['A b', 'C d', 'E f']),
            reasonSentence('unknown-character', 'X', []),
            reasonSentence('insufficient', 'X', ['A b']),
          ];
        }"""
    )
    assert said == [
        'two characters answer to "Ola". Write who= with a full name: "Ola", "ola" or "Tam Reed", or "party"',
        'the command names nobody. Write who= with a full name: "A b", "C d" or "E f", or "party"',
        "no such character: the game has no characters yet",
        "not enough left",
    ]


# ── points said once, and counted ────────────────────────────────────────────


def test_a_pools_points_are_said_once_and_counted_in_english(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "wod-pool", "lucia")
    pick_game(page, game)
    show_tab(page, "Sheet")
    page.get_by_label("Character to edit").select_option(index=1)
    expect(page.get_by_label("Willpower points (blank: full)")).to_be_visible()
    body = page.locator("body").inner_text()
    assert "points points" not in body.lower()

    said = page.evaluate(
        """async () => {
          const { counted, inPoints } = await import('/static/words.js');
          return [counted(1, 'point'), counted(-1, 'point'), counted(0, 'point'),
                  counted(2.5, 'point'), counted(1, 'entry', 'entries'),
                  inPoints('Willpower points'), inPoints('Hit Points '), inPoints('Luck'),
                  inPoints('Fate point')];
        }"""
    )
    assert said == [
        "1 point",
        "-1 point",
        "0 points",
        "2.5 points",
        "1 entry",
        "Willpower points",
        "Hit Points ",
        "Luck points",
        "Fate point",
    ]


# ── the status line ──────────────────────────────────────────────────────────


def test_the_status_line_says_what_the_tab_shown_did(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    status = page.locator("#status")
    _resolve(page, '[skill_check: skill="Stealth" dc="15"]')
    expect(status).to_contain_text("1 check(s) resolved")
    show_tab(page, "Balance")
    expect(status).to_have_text(PLAYING)  # the page's, not Play's
    page.get_by_role("button", name="Show the odds").click()
    expect(status).to_contain_text(f"checks for {MIRA}")
    show_tab(page, "Author")
    expect(status).to_have_text(PLAYING)
    show_tab(page, "Play")
    expect(status).to_contain_text("1 check(s) resolved")
    show_tab(page, "Balance")
    expect(status).to_contain_text(f"checks for {MIRA}")
    # the game row speaks for the page: picked again, every tab reads it
    pick_game(page, game)
    expect(status).to_have_text(PLAYING)
    show_tab(page, "Play")
    expect(status).to_have_text(PLAYING)


def test_a_warning_goes_once_it_no_longer_holds(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd")
    pick_game(page, game)
    status = page.locator("#status")
    show_tab(page, "Balance")
    page.get_by_role("button", name="Show the odds").click()
    expect(status).to_contain_text("Pick a character first")
    # another tab: not its warning
    show_tab(page, "Sheet")
    expect(status).not_to_contain_text("Pick a character first")
    # a character joins (from elsewhere: the live update draws it): fixed
    expect(page.locator("#live")).to_have_attribute("data-mode", "on")
    put_character(server, game, character_file("dnd5e-srd", "mira"))
    expect(page.locator(f'#party [data-character="{MIRA}"]')).to_have_count(1)
    show_tab(page, "Balance")
    expect(status).not_to_contain_text("Pick a character first")
    expect(status).to_have_text(PLAYING)

    # a token the service does not know: said until a known one is used
    page.get_by_label("Token").fill("not-a-token")
    page.get_by_role("button", name="Use this token").click()
    expect(status).to_contain_text("This token is not known here")
    show_tab(page, "Play")
    expect(status).to_contain_text("This token is not known here")  # the page's own


LONG_WHAT_IF = 'threshold="5" reroll="ones" and then some words'


def test_the_status_bar_never_grows_over_a_phones_content(
    page: Page, server: ServerProcess
) -> None:
    _odds(page, server, "dnd5e-srd", "mira")
    page.get_by_label("with these tag attributes").fill(LONG_WHAT_IF)
    page.get_by_role("button", name="Show the change").click()
    status = page.locator("#status")
    expect(status).to_contain_text("They take: dc, difficulty, with, mode.")
    more = page.get_by_role("button", name="More")
    height = status.evaluate("s => s.getBoundingClientRect().height")
    bar = page.locator("#status-bar").evaluate("s => s.getBoundingClientRect().height")
    if _width(page) < 640:
        # one line on a phone, however long the sentence; the whole of it one tap away
        assert height <= 26 and bar <= 44, (height, bar)
        expect(more).to_be_visible()
        page.locator("#whatif-chart figure").scroll_into_view_if_needed()
        shoot_schemes(page, "table-status-bar-folded", full_page=False)
        more.click()
        less = page.get_by_role("button", name="Less")
        expect(less).to_have_attribute("aria-expanded", "true")
        whole = status.evaluate("s => s.scrollHeight <= s.clientHeight + 1")
        assert whole and status.evaluate("s => s.getBoundingClientRect().height") > 2 * height
        shoot_schemes(page, "table-status-bar-open", full_page=False)
        less.click()
        expect(more).to_have_attribute("aria-expanded", "false")
        assert status.evaluate("s => s.getBoundingClientRect().height") <= 26
    else:
        # the desktop's bar holds the sentence whole, in a few lines at most
        assert height <= 84, height
        assert status.evaluate("s => s.scrollHeight <= s.clientHeight + 1")
        expect(more).to_be_hidden()
        page.locator("#whatif-chart figure").scroll_into_view_if_needed()
        shoot_schemes(page, "table-status-bar", full_page=False)
    # the content stays readable: the last control of the tab shows above the bar
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    last = page.locator("#whatif-chart summary").last
    box = last.bounding_box()
    top = page.locator("#status-bar").bounding_box()
    assert box is not None and top is not None and box["y"] + box["height"] <= top["y"]
    # a short sentence: no More
    page.get_by_role("button", name="Show the odds").click()
    expect(status).to_contain_text(f"checks for {MIRA}")
    expect(more).to_be_hidden()


# ── charts: every band labelled, every chance in a table ─────────────────────

# for every step's bar: the bands drawn, and those a label names (on the band, or on the
# line under the bar)
BANDS_AND_LABELS = """
figure => [...figure.querySelectorAll('g.step')].map(g => [
  [...g.querySelectorAll('rect[data-band]')].map(r => r.dataset.band),
  [...g.querySelectorAll('text.on-band[data-band], text.small-bands tspan[data-band]')]
    .map(t => t.dataset.band),
])
"""


def test_every_band_keeps_a_label_and_its_exact_chance_in_a_table(
    page: Page, server: ServerProcess
) -> None:
    # Fate's 4dF: a band of 1 in 81 is a sliver at any width
    game = _odds(page, server, "fate-core", "ines")
    figures = page.locator("#charts figure")
    report = api(server, f"/games/{game['id']}/report?character=Ines%20Caldera")
    bands = [o["label"] for o in report["outcomes"]]
    unlabelled = []
    for at, row in enumerate(report["rows"][:6]):
        for drawn, named in figures.nth(at).evaluate(BANDS_AND_LABELS):
            if sorted(drawn) != sorted(named):
                unlabelled.append((row["label"], drawn, named))
    assert unlabelled == []
    # the slivers are named under their bars
    assert page.locator("#charts text.small-bands").count() > 0

    # the first chart's table: every step, every band, the exact fraction and its percentage
    first = figures.first
    first.get_by_text("Every chance, exactly (a table)").click()
    table = first.get_by_role("table")
    expect(table).to_be_visible()
    heads = table.locator("thead th").all_inner_texts()
    assert heads[0] == "Step" and [h.rsplit(" (", 1)[0] for h in heads[1:]] == bands
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(report["steps"]))
    for step, cell, line in zip(
        report["steps"], report["rows"][0]["cells"], rows.all(), strict=True
    ):
        assert line.locator("th").inner_text() == step["label"]
        for band, p in zip(bands, cell["probabilities"], strict=True):
            got = line.locator(f'td[data-band="{band}"]')
            assert got.locator(".exact").inner_text() == p
            shown = float(got.locator(".pct").inner_text().strip("()%"))
            assert abs(shown - float(Fraction(p)) * 100) <= 0.5, (step["label"], band, p)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= _width(page)
    # the chart's last steps and its table on one screen
    first.locator("details.chances").evaluate("d => d.scrollIntoView({block: 'end'})")
    shoot_schemes(page, "table-chart-chances", full_page=False)
