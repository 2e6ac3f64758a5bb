"""The page's tests' shared parts: a real service on SQLite and Debian's Chromium, one
each per test module (``web_support`` says how they are driven)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

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
