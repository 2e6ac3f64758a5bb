"""Shared fixtures.

``marinara_dir`` is the folder of Marinara's reference rulesets, read (never copied) by
the tests that check real files import unchanged. It lives beside the repository, at
``<repo>/../shared/marinara``; every test that reads that shared folder asks for it
through ``shared_path``, which skips and says why where it is absent, except in CI
(``CI=true``), where the folder is always laid beside the clone and its absence fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from shared_files import SHARED_DIR, shared_path

if TYPE_CHECKING:
    from fastapi.testclient import TestClient
    from playwright.sync_api import Browser

# No per-example deadline: CI shares two cores with nothing else to spare, and a slow
# example is not a wrong one. Failures still print the blob that reproduces them.
# ``dicebound`` (the default run) tries a quarter of the examples Hypothesis would;
# ``deep`` (``pytest --hypothesis-profile=deep``, run by the fuzz campaign) tries every
# example a test asks for. ``examples.examples(n)`` scales a test's own count alike.
settings.register_profile("dicebound", deadline=None, print_blob=True, max_examples=25)
settings.register_profile("deep", deadline=None, print_blob=True, max_examples=100)
settings.load_profile("dicebound")

# Compiled rulesets are cached on disk (dicebound.edge.ruleset_cache): the tests, and the
# commands they run, keep theirs in a folder of this run's own, never the user's cache.
_TEST_CACHE = tempfile.mkdtemp(prefix="dicebound-test-cache-")
os.environ["DICEBOUND_CACHE_DIR"] = _TEST_CACHE

# The request rate per token (default 50 a second) is held far above what any test
# sends, in process (``service``) and in the servers the tests start (they inherit the
# environment); tests/edge/http/test_http_protections.py tests the limit itself at a small rate.
os.environ.setdefault("DICEBOUND_RATE_LIMIT", "100000")


def pytest_sessionfinish() -> None:
    shutil.rmtree(_TEST_CACHE, ignore_errors=True)
    from service_support import PG_ADMIN_URL
    from store_templates import drop_templates

    drop_templates(PG_ADMIN_URL)


# What the fast inner loop (``pytest -m "not browser and not service"``) leaves out,
# found by where a test lives and what it asks for, so no test has to remember a mark.
_BROWSER_FOLDERS = ("edge/web",)
_SERVICE_FOLDERS = ("edge/http", "edge/mcp", "edge/cli", "store", "app", "project")
_SERVICE_FIXTURES = {"store_url", "service", "server"}
_SERVICE_MARKS = {"server", "postgres", "release"}
_TESTS = Path(__file__).parent


def _module_scoped(item: pytest.Item) -> bool:
    """Whether a test asks for a fixture made once per module (a server, a browser)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope == "module" for chain in defs for d in chain)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test that drives Chromium and ``service`` every other test
    that needs a store, a server or a process of its own; the tests of a module that
    share a module-scoped fixture in one ``xdist_group`` (``--dist loadgroup``), so one
    worker makes it once."""
    for item in items:
        if _module_scoped(item):
            item.add_marker(pytest.mark.xdist_group(item.path.relative_to(_TESTS).as_posix()))
        folder = item.path.parent.relative_to(_TESTS).as_posix()
        names = set(getattr(item, "fixturenames", ()))
        if folder.startswith(_BROWSER_FOLDERS) or "chrome" in names:
            item.add_marker(pytest.mark.browser)
        elif (
            folder.startswith(_SERVICE_FOLDERS)
            or names & _SERVICE_FIXTURES
            or {mark.name for mark in item.iter_markers()} & _SERVICE_MARKS
        ):
            item.add_marker(pytest.mark.service)


MARINARA_DIR = SHARED_DIR / "marinara"


@pytest.fixture
def marinara_dir() -> Path:
    """The folder of Marinara's example rulesets (see ``shared_path``)."""
    return shared_path("marinara")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store's URL, once on SQLite and once on PostgreSQL: at the newest schema
    with no rows (``store_templates``), or with no schema at all for a test marked
    ``empty_store``."""
    from service_support import store_url_for

    migrated = request.node.get_closest_marker("empty_store") is None
    with store_url_for(request.param, tmp_path, migrated=migrated) as url:
        yield url


@pytest.fixture
def service(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The application over a fresh store, through FastAPI's test client (in process)."""
    from fastapi.testclient import TestClient

    from dicebound.edge.http import create_app
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url)) as client:
        yield client


@pytest.fixture(scope="module")
def chrome() -> Iterator[Browser]:
    """Debian's Chromium, one per test module (``web_support.browser``): a test that asks
    for it is marked ``browser``."""
    from web_support import browser

    with browser() as launched:
        yield launched
