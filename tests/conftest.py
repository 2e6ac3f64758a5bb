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

# No per-example deadline: CI shares two cores with nothing else to spare, and a slow
# example is not a wrong one. Failures still print the blob that reproduces them.
settings.register_profile("dicebound", deadline=None, print_blob=True)
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


MARINARA_DIR = SHARED_DIR / "marinara"


@pytest.fixture
def marinara_dir() -> Path:
    """The folder of Marinara's example rulesets (see ``shared_path``)."""
    return shared_path("marinara")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty store's URL, once on SQLite and once on PostgreSQL."""
    from service_support import store_url_for

    with store_url_for(request.param, tmp_path) as url:
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
