"""``GET /ready`` (issue 45): 200 while the store answers and its schema is the
revision this process serves, else 503 (what Kubernetes and load balancers read as
down), never rate limited; ``/health`` unchanged. Against a real ``dicebound serve``."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from dicebound.store.db import head_revision
from server_support import logs_on_failure, running
from service_support import store_url_for

pytestmark = pytest.mark.server

NEWER = "ffffffffffff"  # a revision a newer dicebound's migration would stamp


def _stamp(db: Path, revision: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))


def _until(base: str, status: int, within: float = 10.0) -> httpx.Response:
    deadline = time.monotonic() + within
    while True:
        answer = httpx.get(base + "/ready", timeout=10)
        if answer.status_code == status:
            return answer
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


@logs_on_failure
def test_ready_follows_the_schema_and_health_does_not(tmp_path: Path) -> None:
    env = {"DICEBOUND_RATE_LIMIT": "1"}
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path, env=env) as [server]:
        base = server.base
        ready = [httpx.get(base + "/ready") for _ in range(10)]  # past the rate: never limited
        assert [r.status_code for r in ready] == [200] * 10
        assert ready[0].json() == httpx.get(base + "/health").json()
        _stamp(tmp_path / "dicebound.db", NEWER)
        behind = _until(base, 503)
        assert behind.headers["content-type"] == "application/problem+json"
        assert behind.headers["retry-after"] == "5"
        assert behind.json()["detail"].startswith(
            f"the store's schema is at revision {NEWER}, not {head_revision()}"
        )
        assert httpx.get(base + "/health").status_code == 200  # alive, not ready
        _stamp(tmp_path / "dicebound.db", head_revision())
        _until(base, 200)
