"""Real parts for the web page's tests: Debian's Chromium driven by Playwright (with
``executable_path``: Playwright cannot download its own browsers here) against a real
``dicebound serve``, and the folder the screenshots are kept in.

- ``DICEBOUND_ARTIFACTS`` names the folder CI keeps (default ``test-artifacts`` in the
  project); screenshots go to its ``screenshots/``.
- Where no Chromium is installed the tests skip and say why, unless
  ``DICEBOUND_REQUIRE_BROWSER=1`` (set by ``.ci/run`` once it has installed one).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from http_api_support import bearer, character_file
from service_support import ADMIN_TOKEN, ServerProcess, admin_headers

CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# A page on a loaded machine (a CI run's workers, servers and browsers on two cores) can
# take seconds to draw what it draws in milliseconds alone: an assertion waits this long
# for the page to come to the state it expects, and still fails when it never does.
expect.set_options(timeout=15_000)

ARTIFACTS = Path(
    os.environ.get("DICEBOUND_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts")
)


# the visible controls that no label, aria-label or text names (the list must be empty)
UNNAMED_CONTROLS = """
() => [...document.querySelectorAll('input, select, textarea, button, [role="tab"]')]
  .filter(c => c.checkVisibility())
  .filter(c => !(c.labels && c.labels.length) && !c.getAttribute('aria-label')
               && !c.getAttribute('aria-labelledby') && !(c.textContent || '').trim())
  .map(c => c.outerHTML.slice(0, 120))
"""


def chromium_or_skip() -> str:
    found = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    if found is None:
        reason = f"no Chromium at {CHROMIUM} or on PATH (.ci/run installs Debian's package)"
        if os.environ.get("DICEBOUND_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + " and DICEBOUND_REQUIRE_BROWSER=1")
        pytest.skip(reason)
    return found


@contextmanager
def browser() -> Iterator[Browser]:
    """Debian's Chromium, for one test module (the ``chrome`` fixture) or one test.
    Playwright's sync API holds an event loop in the thread while it runs, so it is
    closed again before any other test: one kept for the whole run would make every
    later ``asyncio.run`` of the same worker fail."""
    executable = chromium_or_skip()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def shoot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """A full-page screenshot under the artifacts folder, named for the part and width
    (or the screen alone: what a sticky bar covers shows only there)."""
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    path = folder / f"{name}-{width}px.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000
    return path


def shoot_schemes(page: Page, name: str, *, full_page: bool = True) -> list[Path]:
    """``shoot`` in the light scheme and the dark one (the page left light)."""
    shots = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        shots.append(shoot(page, f"{name}-{scheme}", full_page=full_page))
    page.emulate_media(color_scheme="light")
    return shots


def open_page(
    chrome: Browser, server: ServerProcess, viewport: dict[str, int], token: str = ADMIN_TOKEN
) -> Page:
    """The page in a browser context of its own, signed in with ``token`` (the admin's
    unless told), every browser error collected."""
    page = chrome.new_page(viewport=viewport)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # a refused request is logged by the browser itself; the page shows its sentence
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.base + "/")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Use this token").click()
    expect(page.locator("#status")).to_contain_text("Token in use")
    return page


def new_game(server: ServerProcess, ruleset: str, *characters: str) -> dict[str, Any]:
    made = httpx.post(
        server.base + "/games",
        json={"name": f"Table of {ruleset}", "ruleset": ruleset},
        headers=admin_headers(),
    )
    assert made.status_code == 201, made.text
    game: dict[str, Any] = made.json()
    for short in characters:
        put_character(server, game, character_file(ruleset, short))
    return game


def put_character(server: ServerProcess, game: dict[str, Any], file: dict[str, Any]) -> None:
    """A new character in a game, by its file, with the game's token."""
    put = httpx.put(
        server.base + f"/games/{game['id']}/characters/{file['name']}",
        json=file,
        headers=bearer(game["token"]),
    )
    assert put.status_code == 201, put.text


def api(server: ServerProcess, path: str) -> Any:
    answer = httpx.get(server.base + path, headers=admin_headers())
    assert answer.status_code == 200, answer.text
    return answer.json()


def pick_game(page: Page, game: dict[str, Any]) -> None:
    page.get_by_role("button", name="Refresh").click()
    page.get_by_label("Game", exact=True).select_option(game["id"])
    expect(page.locator("#status")).to_contain_text("Playing")


def show_tab(page: Page, name: str) -> None:
    """A tab clicked, and its panel shown."""
    page.get_by_role("tab", name=name).click()
    expect(page.get_by_role("tabpanel", name=name)).to_be_visible()
