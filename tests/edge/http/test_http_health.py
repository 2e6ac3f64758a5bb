"""``/health`` asks the store from the event loop on a connection of its own
(``edge/http/probe.py``): on PostgreSQL, a connection the server closed is replaced
without a failed answer, and a store that does not answer is a 503 problem document,
also when the guard is the first to ask it (whose a token is, before the route). Real
PostgreSQL databases, the application in process."""

from __future__ import annotations

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from dicebound.edge.http import create_app
from http_api_support import bearer, problem_of
from service_support import ADMIN_TOKEN, PG_ADMIN_URL, postgres_database

pytestmark = pytest.mark.postgres


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _terminate_backends(database: str) -> int:
    with psycopg.connect(_libpq(PG_ADMIN_URL), autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_health_asks_again_on_a_new_connection_when_its_own_was_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with postgres_database() as url, TestClient(create_app(url)) as client:
        assert client.get("/health").json()["store"] == "postgresql"
        database = make_url(url).database
        assert database is not None
        assert _terminate_backends(database) >= 1  # the probe's among them
        for _ in range(3):
            answered = client.get("/health")
            assert answered.status_code == 200, answered.text


def test_health_is_503_when_the_store_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with postgres_database() as url, TestClient(create_app(url)) as client:
        assert client.get("/health").status_code == 200
        database = make_url(url).database
        with psycopg.connect(_libpq(PG_ADMIN_URL), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        refused = problem_of(client.get("/health"), 503)
        assert refused["title"] == "Unavailable"
        assert refused["detail"] == "the store is busy or unreachable; retry shortly."


def test_the_guard_answers_503_when_the_store_does_not_answer_whose_a_token_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The guard reads the store for a token it holds no game of (issue 40): a store that
    does not answer is the route's 503, not a 500."""
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with postgres_database() as url, TestClient(create_app(url)) as client:
        database = make_url(url).database
        with psycopg.connect(_libpq(PG_ADMIN_URL), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        refused = client.post("/games/g1/checks", json={"text": "x"}, headers=bearer("dbg_x"))
        assert problem_of(refused, 503)["detail"] == (
            "the store is busy or unreachable; retry shortly."
        )
