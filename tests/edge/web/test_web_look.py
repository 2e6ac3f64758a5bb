"""How the page looks, in a real Chromium against a real ``dicebound serve``: light and
dark from the style sheet's own custom properties (and no colour written anywhere else
in it), the game row and the sticky status bar at phone width (nothing ever sits under
the bar), a sentence in place of every empty list saying what to do next, and the
Resolve box's example tag taken from the picked game's ruleset, for every packaged one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from dicebound.edge.web import STATIC
from http_api_support import DATA, LUCIA_SPENDS, bearer
from service_support import ADMIN_TOKEN, ServerProcess, admin_headers, store_url_for
from web_support import DESKTOP, PHONE, api, new_game, open_page, pick_game, shoot, show_tab

pytestmark = pytest.mark.server

CSS = (STATIC / "app.css").read_text(encoding="utf-8")
LUCIA = "Lucia Marchetti"


def _open(
    opened: list[Page],
    chrome: Browser,
    server: ServerProcess,
    viewport: dict[str, int],
    scheme: str = "light",
    token: str = ADMIN_TOKEN,
) -> Page:
    page = open_page(chrome, server, viewport, token)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    opened.append(page)
    return page


def _resolve(page: Page, text: str) -> None:
    before = page.locator("#history li").count()
    page.get_by_label("Game Master text").fill(text)
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#history li")).not_to_have_count(before)


# ── colours: custom properties, light and dark ───────────────────────────────

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_DARK = re.compile(
    r"@media\s*\(\s*prefers-color-scheme:\s*dark\s*\)\s*\{\s*:root\s*\{([^{}]*)\}\s*\}"
)
_LIGHT = re.compile(r"(?<![\w-]):root\s*\{([^{}]*)\}")
_PROPERTY = re.compile(r"(--[\w-]+)\s*:\s*([^;]+);")
_COLOUR = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\("
    r"|\b(?:white|black|red|green|blue|gr[ae]y|silver|maroon|purple|fuchsia|lime|olive"
    r"|yellow|navy|teal|aqua|orange|pink|brown|gold)\b",
    re.I,
)


def _declared(block: str) -> dict[str, str]:
    return {name: value.strip() for name, value in _PROPERTY.findall(block)}


def test_every_colour_in_the_style_sheet_is_a_custom_property_set_for_light_and_dark() -> None:
    css = _COMMENT.sub("", CSS)
    dark_block = _DARK.search(css)
    assert dark_block, "no @media (prefers-color-scheme: dark) { :root { ... } } block"
    rest = css.replace(dark_block.group(0), "")
    light_block = _LIGHT.search(rest)
    assert light_block, "no :root block for light"
    light, dark = _declared(light_block.group(1)), _declared(dark_block.group(1))
    assert "color-scheme: light dark" in light_block.group(1)

    # colours are written in the two blocks only, as custom properties
    rest = rest.replace(light_block.group(0), "")
    declarations = [
        d.strip() for block in re.findall(r"\{([^{}]*)\}", rest) for d in block.split(";")
    ]
    written = [d for d in declarations if _COLOUR.search(d.split(":", 1)[-1])]
    assert written == [], f"colours written outside the custom properties: {written}"
    # every property used is set for light; dark sets only those, and the page's own
    used = set(re.findall(r"var\((--[\w-]+)", css))
    assert used - set(light) == set(), "used but never set"
    assert set(dark) - set(light) == set(), "set for dark only"
    page = {"--bg", "--surface", "--ink", "--muted", "--line", "--accent", "--on-accent"}
    assert page <= set(dark)
    assert all(light[name] != dark[name] for name in page)


_LUMINANCE = """
(colour) => {
  const [r, g, b] = colour.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => v / 255)
    .map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
"""

# every colour a visible element is drawn in (text, background, a frame) that is not one
# of the scheme's custom properties; a chart's bands and the legend's swatches keep the
# ruleset's colours and are left out
_FOREIGN = """
(names) => {
  const probe = document.createElement('i');
  document.body.append(probe);
  const palette = new Set(names.map(name => {
    probe.style.color = `var(${name})`;
    return getComputedStyle(probe).color;
  }));
  probe.remove();
  const drawn = (c) => c !== 'rgba(0, 0, 0, 0)';
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.checkVisibility() || e.closest('.swatch, svg')) continue;
    const style = getComputedStyle(e);
    const used = [style.color, style.backgroundColor];
    for (const side of ['Top', 'Right', 'Bottom', 'Left'])
      if (style[`border${side}Style`] !== 'none' && parseFloat(style[`border${side}Width`]) > 0)
        used.push(style[`border${side}Color`]);
    for (const colour of used.filter(drawn))
      if (!palette.has(colour)) out.push(`${colour}: ${e.outerHTML.slice(0, 80)}`);
  }
  return [...new Set(out)];
}
"""

_CONTRAST = f"""
(e) => {{
  const luminance = {_LUMINANCE};
  let under = e;
  while (under && /rgba\\(0, 0, 0, 0\\)|, 0\\)$/.test(getComputedStyle(under).backgroundColor))
    under = under.parentElement;
  const back = luminance(getComputedStyle(under || document.body).backgroundColor);
  const fore = luminance(getComputedStyle(e).color);
  return (Math.max(back, fore) + 0.05) / (Math.min(back, fore) + 0.05);
}}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_takes_the_schemes_colours_everywhere(
    scheme: str, chrome: Browser, server: ServerProcess, opened: list[Page]
) -> None:
    game = new_game(server, "wod-pool", "lucia")
    page = _open(opened, chrome, server, DESKTOP, scheme)
    pick_game(page, game)
    _resolve(page, LUCIA_SPENDS)
    page.get_by_text("Make a game").click()
    show_tab(page, "Balance")
    page.get_by_label("Character", exact=True).select_option(LUCIA)
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#charts figure").first).to_be_visible()
    show_tab(page, "Play")

    # the page's background is the property the scheme sets, and it is light or dark
    root = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bg')")
    body = page.evaluate("getComputedStyle(document.body).backgroundColor")
    hexed = "#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", body)[:3])
    assert hexed == root.strip()
    luminance = page.evaluate(f"({_LUMINANCE})('{body}')")
    assert (luminance < 0.05) if scheme == "dark" else (luminance > 0.9)
    # every colour drawn on every tab is one of the scheme's properties
    names = sorted(_declared(_LIGHT.search(_COMMENT.sub("", CSS)).group(1)))  # type: ignore[union-attr]
    for tab in ("Play", "Author", "Balance", "Sheet"):
        show_tab(page, tab)
        assert page.evaluate(_FOREIGN, names) == [], tab
    show_tab(page, "Play")

    # text on what it sits on: AA (4.5:1) for the page's kinds of text
    kinds = {
        "body text": "#party-heading",
        "a button": "#resolve",
        "a quiet button": "#history button",
        "the selected tab": "#tab-play",
        "a tab": "#tab-author",
        "the status bar": "#status",
        "a field": "#gm-text",
        "a card's term": "article.card dt",
        # (a cancelled die is drawn on light stripes, a gradient that has no background
        # colour to read, so the reading would fall through to the dark card behind it)
        "a die": "article.card .die:not(.cancelled)",
        "what the text changed": "#changes li",
        "the live sign": "#live",
    }
    for kind, selector in kinds.items():
        ratio = page.locator(selector).first.evaluate(_CONTRAST)
        assert ratio >= 4.5, f"{kind} ({selector}): {ratio:.2f} in {scheme}"
    shoot(page, f"look-{scheme}")


# ── layout: the game row and the status bar ──────────────────────────────────

_BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_game_row_keeps_its_controls_together_on_one_screen(
    viewport: dict[str, int], chrome: Browser, server: ServerProcess, opened: list[Page]
) -> None:
    made = httpx.post(
        server.base + "/games",
        json={"name": "The long night " + "of the drowned lantern " * 8, "ruleset": "dnd5e-srd"},
        headers=admin_headers(),
    )
    assert made.status_code == 201, made.text
    page = _open(opened, chrome, server, viewport)
    pick_game(page, made.json())
    row = page.get_by_role("region", name="Which game")
    label, picker, refresh, live = (
        row.locator(s).evaluate(_BOX)
        for s in ('label[for="game"]', "#game", "#refresh-games", "#live")
    )
    # the label, the picker and Refresh on one line, in that order, all on the screen
    assert label[2] <= picker[0] and picker[2] <= refresh[0] <= refresh[2] <= viewport["width"]
    middle = (picker[1] + picker[3]) / 2
    assert label[1] < middle < label[3] and refresh[1] < middle < refresh[3]
    assert live[0] >= 0 and live[2] <= viewport["width"]
    if viewport is DESKTOP:  # the live sign too
        assert live[1] < middle < live[3]
    else:  # on a phone it takes the next line, and the row two lines at most
        assert live[1] >= picker[3] - 1
        assert row.evaluate(_BOX)[3] - row.evaluate(_BOX)[1] < 100
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    shoot(page, "look-game-row")


# the element at the middle of `e` is `e` itself (or inside it): nothing covers it
_UNCOVERED = """
e => {
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (y < 0 || y > innerHeight) return `off the screen at ${y}`;
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === e || e.contains(hit)) ? null : (hit ? hit.outerHTML.slice(0, 80) : 'nothing');
}
"""

_LAST_CONTROL = """
() => {
  const panel = document.querySelector('[role="tabpanel"]:not([hidden])');
  const all = [...panel.querySelectorAll('input, select, textarea, button, summary')]
    .filter(c => c.checkVisibility());
  return all[all.length - 1];
}
"""


def test_nothing_sits_under_the_status_bar_on_a_phone(
    chrome: Browser, server: ServerProcess, opened: list[Page]
) -> None:
    game = new_game(server, "wod-pool", "lucia")
    for _ in range(3):
        httpx.post(
            server.base + f"/games/{game['id']}/checks",
            json={"text": LUCIA_SPENDS},
            headers=bearer(game["token"]),
        )
    page = _open(opened, chrome, server, PHONE)
    pick_game(page, game)
    _resolve(page, LUCIA_SPENDS)
    status = page.locator("#status")
    # a long sentence: the bar holds it in 6rem at most, scrolling inside
    status.evaluate("s => { s.textContent = 'A long sentence of the service. '.repeat(40); }")
    assert status.evaluate("s => s.getBoundingClientRect().height") <= 96.5

    # scrolled to the bottom, every tab's last control shows above the bar
    for tab in ("Play", "Author", "Balance", "Sheet"):
        show_tab(page, tab)
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        last = page.evaluate_handle(_LAST_CONTROL)
        assert last.evaluate(_UNCOVERED) is None, tab

    # the keyboard walks every control of the Play tab: each one it reaches shows whole
    show_tab(page, "Play")
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#tab-play").focus()
    covered = []
    for _ in range(80):
        page.keyboard.press("Tab")
        focused = page.evaluate_handle("document.activeElement")
        if focused.evaluate("e => e === document.body || e.id === 'status'"):
            break
        where = focused.evaluate(_UNCOVERED)
        if where is not None:
            covered.append((focused.evaluate("e => e.id || e.textContent.trim()"), where))
    assert covered == []
    shoot(page, "look-status-bar")


# ── empty states ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_each_empty_list_says_what_to_do_next(
    viewport: dict[str, int], chrome: Browser, tmp_path: Path
) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as server,
    ):
        pages: list[Page] = []
        try:
            _walk_the_empty_states(pages, chrome, server, viewport)
        finally:
            for page in pages:
                errors = page.errors  # type: ignore[attr-defined]
                page.close()
                assert errors == [], errors


def _walk_the_empty_states(
    pages: list[Page], chrome: Browser, server: ServerProcess, viewport: dict[str, int]
) -> None:
    page = _open(pages, chrome, server, viewport)
    no_games, party, history = (
        page.locator(s) for s in ("#no-games", "#party-empty", "#history-empty")
    )
    # a new store: no game, and the page says how to start one
    expect(no_games).to_be_visible()
    expect(no_games).to_contain_text("No game yet: make one just below")
    expect(party).to_be_hidden()
    expect(history).to_be_hidden()
    shoot(page, "empty-no-game")

    # a game with no one in it: the party and the history say what to do
    game = new_game(server, "wod-pool")
    page.get_by_role("button", name="Refresh").click()
    expect(page.locator("#status")).to_contain_text("Playing")
    expect(no_games).to_be_hidden()
    expect(party).to_be_visible()
    expect(party).to_contain_text("add a character on the Sheet tab")
    expect(history).to_be_visible()
    expect(history).to_contain_text("write a text with a check tag")
    expect(history).to_contain_text("press Resolve")
    shoot(page, "empty-party")

    # a character: the party's sentence goes; a check: the history's goes
    lucia = json.loads((DATA / "characters/wod-pool/lucia.json").read_text())
    put = httpx.put(
        server.base + f"/games/{game['id']}/characters/{quote(LUCIA)}",
        json=lucia,
        headers=bearer(game["token"]),
    )
    assert put.status_code == 201, put.text
    pick_game(page, game)
    expect(page.locator(f'[data-character="{LUCIA}"]')).to_be_visible()
    expect(party).to_be_hidden()
    expect(history).to_be_visible()
    _resolve(page, LUCIA_SPENDS)
    expect(history).to_be_hidden()

    # Author: a valid ruleset's empty problem list says so, and what to do with the file
    show_tab(page, "Author")
    none = page.locator("#problems-none")
    expect(none).to_be_hidden()
    page.get_by_label("Start from").select_option("wod-pool@2")
    page.get_by_role("button", name="Load", exact=True).click()
    editor = page.get_by_label("Ruleset file", exact=True)
    expect(editor).not_to_have_value("")
    page.get_by_role("button", name="Check", exact=True).click()
    expect(none).to_be_visible()
    expect(none).to_contain_text("No problems: the file is valid. Save it as a new version")
    expect(page.locator("#problems li")).to_have_count(0)
    shoot(page, "empty-problems")
    editor.fill(editor.input_value().replace('"id": "wod-pool"', '"id": 7', 1))
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator("#problems li").first).to_be_visible()
    expect(none).to_be_hidden()

    # a player's seat in a game with no record yet: the history's sentence, without the
    # Game Master's part (a seat cannot resolve a text)
    other = new_game(server, "wod-pool", "lucia")
    seat = httpx.post(
        server.base + f"/games/{other['id']}/characters/{quote(LUCIA)}/seat",
        headers=bearer(other["token"]),
    )
    assert seat.status_code == 201, seat.text
    player = _open(pages, chrome, server, viewport, token=seat.json()["token"])
    expect(player.get_by_label("Game", exact=True)).to_have_value(other["id"])
    expect(player.locator(f'[data-character="{LUCIA}"]')).to_be_visible()
    said = player.locator("#history-empty")
    expect(said).to_be_visible()
    assert said.inner_text() == (
        "Nothing resolved in this game yet. Every check and sheet command is listed here."
    )
    expect(player.locator("#party-empty")).to_be_hidden()
    expect(player.locator("#no-games")).to_be_hidden()


# ── the Resolve box's example tag ────────────────────────────────────────────


def _packaged() -> list[tuple[dict[str, Any], list[str]]]:
    """Every packaged ruleset's file, and the short names of its packaged characters."""
    return [
        (
            json.loads(path.read_text(encoding="utf-8")),
            sorted(c.stem for c in (DATA / "characters" / path.stem).glob("*.json")),
        )
        for path in sorted((DATA / "rulesets").glob("*.json"))
    ]


def test_the_example_tag_names_the_picked_rulesets_first_skill_and_resolves(
    chrome: Browser, server: ServerProcess, opened: list[Page]
) -> None:
    packaged = _packaged()
    assert len(packaged) >= 15
    games = [(ruleset, new_game(server, ruleset["id"], *shorts)) for ruleset, shorts in packaged]
    page = _open(opened, chrome, server, PHONE)
    box = page.get_by_label("Game Master text")
    for ruleset, game in games:  # all made before the page opened: listed, no Refresh
        page.get_by_label("Game", exact=True).select_option(game["id"])
        expect(page.locator("#status")).to_have_text(f"Playing Table of {ruleset['id']}.")
        skill = ruleset["sheet"]["skills"][0]["label"]
        ladder = ruleset["resolution"]["difficultyLadder"]
        middle = ladder[(len(ladder) - 1) // 2]["label"]
        tag = f'[skill_check: skill="{skill}" difficulty="{middle}"]'
        expect(box).to_have_attribute("placeholder", re.compile(re.escape(tag) + "$"))
        # the example as written, for each packaged character: at least one resolves it
        # (an old-school fighter cannot open locks untrained, its thief can)
        example = box.get_attribute("placeholder") or ""
        answers = []
        for member in api(server, f"/games/{game['id']}/party")["characters"]:
            answer = httpx.post(
                server.base + f"/games/{game['id']}/checks",
                json={"text": example.replace("]", f' who="{member["name"]}"]')},
                headers=bearer(game["token"]),
            )
            assert answer.status_code == 200, answer.text
            answers.append(answer.json())
        resolved = [a for a in answers if a["errors"] == [] and len(a["results"]) == 1]
        assert resolved, (ruleset["id"], answers)
        assert resolved[0]["results"][0]["attrs"]["skill"] == skill
