"""The page as a new user meets it, in a real Chromium against a real ``dicebound
serve``: a game made with its packaged characters, a character file imported, lists and
wound marks edited, one record per Resolve however often it is pressed, every action
busy while it runs, refusals beside what caused them and no stale result left, the game
kept over a reload, the seed used once. Each at desktop and phone width, screenshots
kept; and a new user's walk from an empty store to a resolved check, in few actions."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from dicebound.edge.files import ruleset_text
from http_api_support import character_file
from service_support import ADMIN_TOKEN, ServerProcess, admin_headers, store_url_for
from web_support import DESKTOP, PHONE, api, new_game, open_page, pick_game, shoot, show_tab

pytestmark = pytest.mark.server

MIRA = "Mira Quickfoot"
LUCIA = "Lucia Marchetti"
STEALTH = '[skill_check: skill="Stealth" dc="15"]'


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def page(
    request: pytest.FixtureRequest, chrome: Browser, server: ServerProcess, opened: list[Page]
) -> Page:
    shown = open_page(chrome, server, request.param)
    opened.append(shown)
    return shown


def _width(page: Page) -> int:
    return page.viewport_size["width"] if page.viewport_size else 0


def _status(page: Page) -> Locator:
    return page.locator("#status")


def _playing_mira(page: Page, server: ServerProcess) -> dict[str, Any]:
    """A new 5e game with Mira in its party, picked on the page."""
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    return game


def _resolve(page: Page, text: str) -> None:
    page.get_by_label("Game Master text").fill(text)
    page.get_by_role("button", name="Resolve").click()


def _records(server: ServerProcess, game: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api(server, f"/games/{game['id']}/records?limit=100")["records"]
    return found


class Held:
    """Requests to one route held in flight until the test lets them go, so what the
    page shows while it waits is seen without a clock."""

    def __init__(self, page: Page, pattern: str, method: str = "POST") -> None:
        self.routes: list[Route] = []
        self.page, self.pattern, self.method = page, pattern, method
        page.route(pattern, self._catch)

    def _catch(self, route: Route) -> None:
        if route.request.method == self.method:
            self.routes.append(route)
        else:
            route.continue_()

    def wait(self, count: int = 1) -> Route:
        """The ``count``-th request held, once it is."""
        for _ in range(400):  # the route's handler runs as Playwright's loop turns
            if len(self.routes) >= count:
                return self.routes[count - 1]
            self.page.wait_for_timeout(25)
        raise AssertionError(f"no request {count} to {self.pattern}")

    def release(self) -> None:
        for route in self.routes:
            route.continue_()
        self.routes.clear()
        self.page.unroute(self.pattern, self._catch)


# ── 1. bringing characters in ────────────────────────────────────────────────


def test_a_new_game_starts_with_the_packaged_characters_ticked(
    page: Page, server: ServerProcess
) -> None:
    page.get_by_text("Make a game").click()
    page.get_by_label("Game name").fill(f"Rogues at {_width(page)}px")
    page.get_by_label("Ruleset", exact=True).select_option("dnd5e-srd@2")
    offered = page.locator("#new-game-choices input[type=checkbox]")
    expect(offered).to_have_count(2)
    assert [c["name"] for c in api(server, "/rulesets/dnd5e-srd/characters")] == [
        "Bram Ironhand",
        MIRA,
    ]
    page.get_by_label(MIRA, exact=True).check()
    shoot(page, "new-game-characters")
    page.get_by_role("button", name="Make the game").click()
    page.get_by_role("dialog").get_by_role("button", name="Close").click()
    expect(page.locator(f'[data-character="{MIRA}"]')).to_be_visible()
    chosen = page.get_by_label("Game", exact=True).input_value()
    assert api(server, f"/games/{chosen}")["characters"] == [MIRA]
    # the first Resolve finds its character
    _resolve(page, STEALTH)
    expect(page.locator("article.card")).to_have_count(1)
    expect(_status(page)).to_contain_text("1 check(s) resolved")

    # a ruleset without packaged characters says where to bring them in
    file = json.loads(ruleset_text("dnd5e-srd")[0])
    file.update({"id": f"bare-{_width(page)}", "version": 1, "name": "Bare"})
    stored = httpx.post(server.base + "/rulesets", json=file, headers=admin_headers())
    assert stored.status_code == 201
    page.reload()  # the rulesets are read again; the token is kept for the tab
    page.get_by_text("Make a game").click()
    page.get_by_label("Ruleset", exact=True).select_option(f"bare-{_width(page)}@1")
    expect(page.locator("#new-game-choices")).to_contain_text("no packaged characters")


def _with_line(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_the_sheet_tab_imports_a_character_file_pasted_or_uploaded(
    page: Page, server: ServerProcess, tmp_path: Path
) -> None:
    game = new_game(server, "wod-pool")
    pick_game(page, game)
    show_tab(page, "Sheet")
    page.get_by_text("Import a character file").click()
    lucia = json.dumps(character_file("wod-pool", "lucia"), indent=2)
    broken = lucia.replace('"dexterity": 4', '"dexterity": 9')
    pasted = page.get_by_label("Or paste a character file")
    pasted.fill(broken)
    page.get_by_role("button", name="Import the character").click()
    problem = page.locator("#import-problems button").first
    line = _with_line(broken, '"dexterity": 9')
    expect(problem).to_have_text(
        re.compile(rf"^Line {line}: sheet\.build\.abilities\.dexterity: .*maximum 5")
    )
    expect(page.locator("#sheet .refusal")).to_contain_text("nothing was imported")
    problem.click()
    expect(pasted).to_be_focused()
    cursor = pasted.evaluate("e => e.value.slice(0, e.selectionStart).split('\\n').length")
    assert cursor == line
    assert api(server, f"/games/{game['id']}")["characters"] == []
    shoot(page, "sheet-import-problems")

    pasted.fill(lucia)
    page.get_by_role("button", name="Import the character").click()
    expect(_status(page)).to_contain_text(f"Imported {LUCIA} (revision 1)")
    expect(page.locator("#import-problems li")).to_have_count(0)
    expect(page.locator("#sheet .refusal")).to_have_count(0)
    expect(page.get_by_label("Character to edit")).to_have_value(LUCIA)
    expect(page.get_by_label("Character name")).to_have_value(LUCIA)

    upload = tmp_path / "tobias.json"
    upload.write_text(json.dumps(character_file("wod-pool", "tobias")))
    page.get_by_label("Upload a character file").set_input_files(str(upload))
    expect(_status(page)).to_contain_text("Imported Tobias Grell (revision 1)")
    assert api(server, f"/games/{game['id']}")["characters"] == [LUCIA, "Tobias Grell"]
    assert (
        api(server, f"/games/{game['id']}/characters/{LUCIA}")["sheet"]
        == json.loads(lucia)["sheet"]
    )
    shoot(page, "sheet-import")


def test_the_sheet_form_edits_lists_and_wound_marks(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "wod-pool", "lucia")
    pick_game(page, game)
    show_tab(page, "Sheet")
    page.get_by_label("Character to edit").select_option(LUCIA)
    expect(page.get_by_label("Specialty 1")).to_have_value("Pistols")
    expect(page.get_by_label("Ability 1")).to_have_value("firearms")
    page.get_by_role("button", name="Add to Specialties").click()
    expect(page.get_by_label("Specialty 2")).to_be_focused()
    page.get_by_label("Specialty 2").fill("Rooftops")
    page.get_by_label("Ability 2").select_option(label="Athletics")
    page.get_by_label("Health mark 1").select_option("bashing")
    page.get_by_label("Health mark 2").select_option("lethal")
    shoot(page, "sheet-lists-wounds")
    page.get_by_role("button", name="Save the character").click()
    expect(_status(page)).to_contain_text(f"Saved {LUCIA} (revision 2)")
    stored = api(server, f"/games/{game['id']}/characters/{LUCIA}")
    assert stored["sheet"]["build"]["lists"]["specialties"] == [
        {"name": "Pistols", "ability": "firearms", "_catalog": "specialties/specialty"},
        {"name": "Rooftops", "ability": "athletics"},
    ]
    assert stored["live"]["wounds"] == {"health": {"marks": ["lethal", "bashing"]}}
    show_tab(page, "Play")
    expect(page.locator(f'[data-character="{LUCIA}"] [data-track="health"] .value')).to_have_text(
        "X, /"
    )

    # read back as stored, a row taken out and the marks cleared
    show_tab(page, "Sheet")
    page.get_by_label("Character to edit").select_option(LUCIA)
    expect(page.get_by_label("Health mark 1")).to_have_value("lethal")
    page.get_by_role("button", name="Remove Specialties row 1").click()
    expect(page.get_by_label("Specialty 1")).to_have_value("Rooftops")
    page.get_by_label("Health mark 1").select_option("")
    page.get_by_label("Health mark 2").select_option("")
    page.get_by_role("button", name="Save the character").click()
    expect(_status(page)).to_contain_text(f"Saved {LUCIA} (revision 3)")
    stored = api(server, f"/games/{game['id']}/characters/{LUCIA}")
    assert stored["sheet"]["build"]["lists"] == {
        "specialties": [{"name": "Rooftops", "ability": "athletics"}],
        "weapons": character_file("wod-pool", "lucia")["sheet"]["build"]["lists"]["weapons"],
    }
    assert "wounds" not in stored["live"]

    # a required cell left empty: the browser holds the form, nothing is saved
    page.get_by_label("Specialty 1").fill("")
    page.get_by_role("button", name="Save the character").click()
    assert page.get_by_label("Specialty 1").evaluate("c => !c.checkValidity()")
    assert api(server, f"/games/{game['id']}/characters/{LUCIA}")["revision"] == 3


def test_the_sheet_form_edits_5e_attacks(page: Page, server: ServerProcess) -> None:
    """The issue's other list: a 5e character's attacks, each column in its own control
    (a checkbox for a yes/no column, a choice for an enum, dice as text)."""
    mira = "Mira Quickfoot"
    game = new_game(server, "dnd5e-srd", "mira")
    pick_game(page, game)
    show_tab(page, "Sheet")
    page.get_by_label("Character to edit").select_option(mira)
    expect(page.get_by_label("Weapon or attack 1")).to_have_value("Shortsword")
    expect(page.get_by_label("Damage 2", exact=True)).to_have_value("1d6")
    page.get_by_role("button", name="Add to Attacks").click()
    page.get_by_label("Weapon or attack 3").fill("Dagger")
    page.get_by_label("Ability 3").select_option("dex")
    page.get_by_label("Damage 3", exact=True).fill("1d4")
    page.get_by_label("Proficient 3").uncheck()
    page.get_by_role("button", name="Save the character").click()
    expect(_status(page)).to_contain_text(f"Saved {mira} (revision 2)")
    attacks = api(server, f"/games/{game['id']}/characters/{mira}")["sheet"]["build"]["lists"][
        "attacks"
    ]
    assert [row["name"] for row in attacks] == ["Shortsword", "Shortbow", "Dagger"]
    assert {k: attacks[2][k] for k in ("ability", "damage", "proficient")} == {
        "ability": "dex",
        "damage": "1d4",
        "proficient": False,
    }


def test_a_pool_that_starts_empty_reads_empty_when_left_blank(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "dnd5e-srd")
    pick_game(page, game)
    show_tab(page, "Sheet")
    name = f"Blank Pools {_width(page)}"
    page.get_by_label("Character name").fill(name)
    expect(page.get_by_label("Inspiration points (blank: empty)")).to_have_value("")
    expect(page.get_by_label("Hit points (blank: full)")).to_have_value("")
    page.get_by_role("button", name="Save the character").click()
    expect(_status(page)).to_contain_text(f"Saved {name} (revision 1)")
    party = {m["name"]: m for m in api(server, f"/games/{game['id']}/party")["characters"]}
    pools = {p["key"]: (p["value"], p["max"]) for p in party[name]["state"]["pools"]}
    assert pools["inspiration"] == (0, 1)  # as the form said: blank is empty
    assert pools["hit_points"][0] == pools["hit_points"][1]  # and blank is full
    show_tab(page, "Play")
    expect(page.locator(f'[data-character="{name}"] [data-pool="inspiration"]')).to_have_text(
        "Inspiration 0/1"
    )


# ── 2. one record per Resolve ────────────────────────────────────────────────


def test_a_double_click_on_resolve_makes_one_record(page: Page, server: ServerProcess) -> None:
    game = _playing_mira(page, server)
    page.get_by_label("Game Master text").fill(STEALTH)
    keys: list[str | None] = []
    page.on(
        "request",
        lambda r: (
            keys.append(r.headers.get("idempotency-key")) if r.url.endswith("/checks") else None
        ),
    )
    page.get_by_role("button", name="Resolve").dblclick()
    expect(page.locator("article.card")).to_have_count(1)
    expect(_status(page)).to_contain_text("1 check(s) resolved")
    assert len(_records(server, game)) == 1
    assert len(keys) == 1 and keys[0]

    # held in flight: the button is disabled, and a press meanwhile sends nothing
    held = Held(page, "**/checks")
    page.get_by_role("button", name="Resolve").click()
    held.wait()
    expect(page.get_by_role("button", name="Resolve")).to_be_disabled()
    page.get_by_label("Game Master text").press("Control+Enter")
    page.locator("#check-form").evaluate("f => f.requestSubmit()")
    shoot(page, "resolve-in-flight")
    held.release()
    expect(page.get_by_role("button", name="Resolve")).to_be_enabled()
    expect(page.locator("article.card")).to_have_count(1)
    assert len(_records(server, game)) == 2
    assert len(keys) == 2 and keys[1] != keys[0]  # a new text sent: a new key

    # a request the connection dropped is sent again with its key: still one record
    page.route("**/checks", lambda route: route.abort(), times=1)
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#check-form + .refusal")).to_contain_text("No answer from the service")
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("article.card")).to_have_count(1)
    expect(page.locator("#check-form + .refusal")).to_have_count(0)
    assert len(keys) == 4 and keys[2] == keys[3] != keys[1]
    assert len(_records(server, game)) == 3


# ── 3. busy while working ────────────────────────────────────────────────────


def test_every_action_shows_it_is_busy_while_it_runs(page: Page, server: ServerProcess) -> None:
    game = new_game(server, "dnd5e-srd", "mira")

    def busy_while_held(pattern: str, method: str, act: Any, control: Locator) -> None:
        held = Held(page, pattern, method)
        act()
        held.wait()
        expect(control).to_have_attribute("aria-busy", "true")
        expect(_status(page)).to_have_attribute("aria-busy", "true")
        held.release()
        expect(control).not_to_have_attribute("aria-busy", "true")
        expect(_status(page)).not_to_have_attribute("aria-busy", "true")

    refresh = page.get_by_role("button", name="Refresh")
    busy_while_held("**/games", "GET", refresh.click, refresh)
    choose = page.get_by_label("Game", exact=True)
    busy_while_held(
        f"**/games/{game['id']}/party", "GET", lambda: choose.select_option(game["id"]), choose
    )
    page.get_by_label("Game Master text").fill(STEALTH)
    busy_while_held(
        "**/checks",
        "POST",
        page.get_by_role("button", name="Resolve").click,
        page.locator("#check-form"),
    )
    show_tab(page, "Author")
    page.get_by_label("Start from").select_option("dnd5e-srd@2")
    page.get_by_role("button", name="Load", exact=True).click()
    check = page.get_by_role("button", name="Check", exact=True)
    busy_while_held("**/rulesets/check", "POST", check.click, check)
    expect(_status(page)).to_contain_text("is valid")


# ── 4. balance with no game picked ───────────────────────────────────────────


def test_balance_with_no_game_picked_says_to_pick_one(page: Page, server: ServerProcess) -> None:
    new_game(server, "dnd5e-srd", "mira")
    new_game(server, "wod-pool", "lucia")  # two games: none is picked for the user
    page.get_by_role("button", name="Refresh").click()
    expect(page.get_by_label("Game", exact=True)).to_have_value("")
    show_tab(page, "Balance")
    page.get_by_role("button", name="Show the odds").click()
    beside = page.locator("#balance .refusal")
    expect(beside).to_contain_text("Pick a game first")
    expect(_status(page)).to_contain_text("Pick a game first")
    shoot(page, "balance-no-game")


# ── 5. a syntax error at its line ────────────────────────────────────────────


def test_a_json_syntax_error_in_author_is_placed_at_its_line(page: Page) -> None:
    show_tab(page, "Author")
    lines = ruleset_text("dnd5e-srd")[0].split("\n")
    at = next(i for i in range(170, len(lines)) if lines[i].endswith(","))
    lines[at] = lines[at][:-1]  # a comma left out: the next line is where it breaks
    editor = page.get_by_label("Ruleset file", exact=True)
    editor.fill("\n".join(lines))
    page.get_by_role("button", name="Check", exact=True).click()
    problem = page.locator("#problems button")
    expect(problem).to_have_count(1)
    expect(problem).to_have_text(re.compile(rf"^Line {at + 2}: \$: is not JSON: "))
    expect(problem).to_contain_text(f"at line {at + 2}, column")
    editor.evaluate("e => e.setSelectionRange(0, 0)")
    problem.click()
    cursor = editor.evaluate("e => e.value.slice(0, e.selectionStart).split('\\n').length")
    assert cursor == at + 2
    shoot(page, "author-syntax-error")


# ── 7. errors leave nothing stale ────────────────────────────────────────────


def test_errors_leave_no_stale_result_and_say_what_was_wrong(
    page: Page, server: ServerProcess
) -> None:
    _playing_mira(page, server)
    _resolve(page, STEALTH)
    expect(page.locator("article.card")).to_have_count(1)
    text = page.get_by_label("Game Master text")

    # a text the service refuses (too long): the old card goes, the refusal is beside
    text.fill("x" * 33_000 + STEALTH)
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#check-form + .refusal")).to_contain_text("at most")
    expect(page.locator("article.card")).to_have_count(0)
    expect(page.locator("#rewritten")).to_have_text("")
    shoot(page, "refused-text")

    # no tag, or a tag written wrong: said so, with how a tag is written
    for written in ("The guard looks away.", '[skill_check skill="Stealth" dc="15"]'):
        text.fill(written)
        page.get_by_role("button", name="Resolve").click()
        expect(page.locator("#no-tag")).to_contain_text("No tag was found in the text")
        expect(page.locator("#no-tag")).to_contain_text('[skill_check: name="value"')
        expect(page.locator("#no-tag code")).to_contain_text("[skill_check: skill=")
        expect(_status(page)).to_contain_text("No tag was found")
        expect(page.locator("#check-form + .refusal")).to_have_count(0)
    page.locator("#no-tag summary").click()
    expect(page.locator("#no-tag li").first).to_contain_text('skill="Name"')
    shoot(page, "no-tag")
    text.fill(STEALTH)
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator("#no-tag")).to_be_hidden()

    # a ruleset pasted into Make a game: its problems listed at their lines
    broken = ruleset_text("dnd5e-srd")[0].replace('"max": 30', '"max": "thirty"', 1)
    page.get_by_text("Make a game").click()
    page.get_by_label("Game name").fill("Broken")
    page.get_by_label("Or paste a ruleset file (uploaded first)").fill(broken)
    expect(page.locator("#new-game-characters")).to_be_hidden()
    page.get_by_role("button", name="Make the game").click()
    listed = page.locator("#new-game-problems button").first
    line = _with_line(broken, '"thirty"')
    expect(listed).to_have_text(re.compile(rf"^Line {line}: sheet\.abilities\[0\]\.max: "))
    expect(page.locator("#new-game-form + .refusal")).to_contain_text("no game was made")
    listed.click()
    expect(page.get_by_label("Or paste a ruleset file (uploaded first)")).to_be_focused()
    shoot(page, "new-game-problems")


# ── 9. the game over a reload and a sign-out ─────────────────────────────────


def test_a_reload_keeps_the_game_and_signing_out_clears_it(
    page: Page, server: ServerProcess
) -> None:
    game = new_game(server, "dnd5e-srd", "mira")
    new_game(server, "wod-pool")  # more than one game: the pick is the user's
    pick_game(page, game)
    _resolve(page, STEALTH)
    expect(page.locator("#history > li")).to_have_count(1)
    page.reload()
    expect(page.get_by_label("Game", exact=True)).to_have_value(game["id"])
    expect(page.locator(f'[data-character="{MIRA}"]')).to_be_visible()
    expect(page.locator("#history > li")).to_have_count(1)

    show_tab(page, "Balance")
    page.get_by_label("Character", exact=True).select_option(MIRA)
    page.get_by_role("button", name="Show the odds").click()
    expect(page.locator("#charts figure").first).to_be_visible()
    show_tab(page, "Play")

    page.get_by_label("Token").fill("")
    page.get_by_role("button", name="Use this token").click()
    expect(_status(page)).to_contain_text("No token")
    expect(page.get_by_label("Game", exact=True)).to_have_value("")
    expect(page.locator("#party > li")).to_have_count(0)
    expect(page.locator("#history > li")).to_have_count(0)
    expect(page.locator("article.card")).to_have_count(0)
    expect(page.locator("#charts figure")).to_have_count(0)
    expect(page.locator("#sheet-form *")).to_have_count(0)
    shoot(page, "signed-out")
    page.reload()
    expect(page.locator("#party > li")).to_have_count(0)


# ── 10. a card from the history, alone ───────────────────────────────────────


def test_show_card_from_the_history_shows_that_card_alone(
    page: Page, server: ServerProcess
) -> None:
    game = _playing_mira(page, server)
    _resolve(page, f"First. {STEALTH}")
    expect(page.locator("#history > li")).to_have_count(1)
    _resolve(page, f'Second. [skill_check: skill="Nowhere" dc="15"] {STEALTH}')
    expect(page.locator("#tag-errors li")).to_have_count(1)
    first, number = (_records(server, game)[-1][k] for k in ("id", "number"))
    page.get_by_role("button", name=f"Show card #{number}").click()
    expect(page.locator("article.card")).to_have_count(1)
    expect(page.locator("article.card")).to_have_attribute("data-record", str(first))
    # the record text is that record's own tag, not the text resolved last
    expect(page.locator("#rewritten")).to_have_text(_records(server, game)[-1]["tag"])
    expect(page.locator("#tag-errors li")).to_have_count(0)
    shoot(page, "history-card")


# ── 11. the seed, used once; Ctrl+Enter ──────────────────────────────────────


def test_the_seed_is_used_once_and_ctrl_enter_resolves(page: Page, server: ServerProcess) -> None:
    game = _playing_mira(page, server)
    seed = page.get_by_label("Seed (optional, replays a roll): used once, then cleared")
    expect(seed).to_have_attribute("aria-describedby", "seed-hint")
    expect(page.locator("#seed-hint")).to_contain_text("The same seed throws the same dice")
    seed.fill("table-7")
    page.get_by_label("Game Master text").fill(STEALTH)
    page.get_by_label("Game Master text").press("Control+Enter")
    expect(page.locator("article.card")).to_have_count(1)
    expect(seed).to_have_value("")
    # the card shows before the form has finished (the history is read after it), and
    # Ctrl+Enter on a busy form is ignored, as a second press is: wait for it to be done
    expect(page.locator("#check-form")).not_to_have_attribute("aria-busy", "true")
    page.get_by_label("Game Master text").press("Control+Enter")
    expect(page.locator("#history > li")).to_have_count(2)
    first, second = reversed(_records(server, game))
    assert first["seed"] == "table-7" and second["seed"] != "table-7"
    shoot(page, "seed-used-once")


# ── the walk: an empty store to a resolved check ─────────────────────────────

MOST_ACTIONS = 12


class Walk:
    """A person's clicks and typing, counted."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.actions = 0

    def click(self, target: Locator) -> None:
        self.actions += 1
        target.click()

    def type(self, target: Locator, text: str) -> None:
        self.actions += 1
        target.fill(text)

    def choose(self, target: Locator, value: str) -> None:
        self.actions += 1
        target.select_option(value)


@pytest.fixture
def empty_server(tmp_path: Path) -> Iterator[ServerProcess]:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as running,
    ):
        yield running


VERSIONS = {"wod-pool": 2}
"""The packaged rulesets the walks take past their first version."""

WALKS = {
    "dnd5e-srd": (MIRA, STEALTH),
    "wod-pool": (LUCIA, '[skill_check: skill="Firearms" difficulty="Routine"]'),
    "advanced-resolution": (
        "Maud Harrowgate",
        '[skill_check: skill="Martial/Swordplay" difficulty="Rare"]',
    ),
}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("ruleset", list(WALKS))
def test_a_new_user_walks_from_an_empty_store_to_a_resolved_check(
    chrome: Browser, empty_server: ServerProcess, ruleset: str, viewport: dict[str, int]
) -> None:
    assert api(empty_server, "/games") == []
    page = chrome.new_page(viewport=viewport)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(empty_server.base + "/")
    walk = Walk(page)
    character, tag = WALKS[ruleset]
    walk.type(page.get_by_label("Token"), ADMIN_TOKEN)
    walk.click(page.get_by_role("button", name="Use this token"))
    walk.click(page.get_by_text("Make a game"))
    walk.type(page.get_by_label("Game name"), "Our table")
    version = json.loads(ruleset_text(ruleset)[0])["version"]
    walk.choose(page.get_by_label("Ruleset", exact=True), f"{ruleset}@{version}")
    walk.click(page.get_by_label(character))
    walk.click(page.get_by_role("button", name="Make the game"))
    # the game's token, shown once in a dialog, is read and the dialog closed
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Shown only once")
    walk.click(dialog.get_by_role("button", name="Close"))
    expect(page.locator(f'[data-character="{character}"]')).to_be_visible()
    walk.type(page.get_by_label("Game Master text"), tag)
    walk.click(page.get_by_role("button", name="Resolve"))
    card = page.locator("article.card")
    expect(card).to_have_count(1)
    expect(card.locator(".outcome")).not_to_be_empty()
    (made,) = api(empty_server, "/games")
    assert len(_records(empty_server, made)) == 1
    shoot(page, f"walk-{ruleset}")
    page.close()
    assert errors == [], errors
    assert walk.actions <= MOST_ACTIONS, f"{walk.actions} actions"
