"""The page's tests' shared parts: a real service on SQLite per test module, and pages of
Debian's Chromium, one per module (``chrome``, in tests/conftest.py; ``web_support``
says how they are driven)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from service_support import ServerProcess, store_url_for
from web_support import DESKTOP, PHONE, open_page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("web")
    with (
        store_url_for("sqlite", folder) as url,
        ServerProcess(url, log=folder / "server.log") as running,
    ):
        yield running


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def page(request: pytest.FixtureRequest, chrome: Browser, server: ServerProcess) -> Iterator[Page]:
    """The page signed in as the admin, once at desktop and once at phone width; no
    browser error may have been logged by the end of the test."""
    opened = open_page(chrome, server, request.param)
    yield opened
    errors = opened.errors  # type: ignore[attr-defined]
    opened.close()
    assert errors == [], errors


@pytest.fixture
def opened() -> Iterator[list[Page]]:
    """The pages a test opens (it appends them), closed after it; none may have logged a
    browser error (``web_support.open_page`` collects them)."""
    pages: list[Page] = []
    yield pages
    for page in pages:
        errors = page.errors  # type: ignore[attr-defined]
        page.close()
        assert errors == [], errors
