"""The page's tests' shared parts: a real service on SQLite and Debian's Chromium, one
each per test module (``web_support`` says how they are driven)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from service_support import ServerProcess, store_url_for
from web_support import browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("web")
    with (
        store_url_for("sqlite", folder) as url,
        ServerProcess(url, log=folder / "server.log") as running,
    ):
        yield running


@pytest.fixture(scope="module")
def chrome() -> Iterator[Browser]:
    with browser() as launched:
        yield launched


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
