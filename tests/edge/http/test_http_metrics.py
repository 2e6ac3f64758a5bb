"""``GET /metrics`` (issue 45): Prometheus' text format, read with ``prometheus_client``'s
own parser, from real ``dicebound serve`` processes on loopback.

- The admin token alone reads it (401 without a token and with a game's), and it is
  never rate limited.
- Requests are counted by route template, method and status, with their durations;
  checks and sheet commands resolved and refused by reason; rate-limit refusals by
  bucket; open event streams; the pool's connections in use; the process's start and
  version. No label holds a game id or a token.
- Under ``--workers 2`` every scrape, whichever process answers it, reports the two
  processes' counts as one set; a worker killed leaves its counts and takes its gauges
  with it; the files' directory is removed when the service stops.
- The store gone (PostgreSQL's database dropped): its faults are counted, and the
  scrape still answers.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from server_support import client, logs_on_failure, ok, reserve_game, running
from service_support import (
    ADMIN_TOKEN,
    PG_ADMIN_URL,
    ServerProcess,
    admin_headers,
    postgres_database,
    store_url_for,
)

pytestmark = pytest.mark.server

PUSH = '[skill_check: skill="Push" difficulty="Steady"]'
UNKNOWN = '[skill_check: skill="Juggle" difficulty="Steady"]'
OVERSPEND = '[sheet: op="spend" pool="resolve" amount="99"]'
SPEND = '[sheet: op="spend" pool="resolve" amount="1"]'
CHECKS = "/games/{game}/checks"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(base: str) -> tuple[str, Samples]:
    """The scrape's text and its samples, by name and labels."""
    answer = httpx.get(base + "/metrics", headers=admin_headers(), timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return answer.text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` that holds ``labels`` (and any others)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


@logs_on_failure
def test_metrics_answer_the_admin_alone_and_count_what_the_service_did(tmp_path: Path) -> None:
    env = {"DICEBOUND_RATE_LIMIT": "3"}
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path, env=env) as [server]:
        base = server.base
        game, token = reserve_game(base, resolve=5)
        assert httpx.get(base + "/metrics").status_code == 401
        refused = httpx.get(base + "/metrics", headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 401, refused.text
        assert refused.headers["content-type"] == "application/problem+json"
        _, before = scrape(base)
        time.sleep(1.2)  # the token's bucket full again
        with client(base, token) as player:
            answer = ok(
                player.post(
                    f"/games/{game}/checks",
                    json={"text": f"{PUSH} {PUSH} {UNKNOWN} {SPEND} {OVERSPEND}"},
                )
            )
            assert len(answer["results"]) == 2 and len(answer["errors"]) == 1
            refused_whole = player.post(
                f"/games/{game}/checks", json={"text": PUSH, "seed": "1", "faces": [1]}
            )
            assert refused_whole.status_code == 422
            statuses = [player.get(f"/games/{game}/records").status_code for _ in range(6)]
        assert 429 in statuses
        time.sleep(1.2)
        called = httpx.post(  # a check through MCP is counted as one through HTTP
            base + "/mcp",
            headers={
                "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {token}",
            },
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "resolve_checks", "arguments": {"text": PUSH}},
            },
            timeout=30,
        )
        assert called.status_code == 200 and "error" not in called.json(), called.text
        assert not called.json()["result"].get("isError"), called.text
        for _ in range(8):  # past the rate many times over: a scrape is never limited
            text, after = scrape(base)

        def grew(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)

        assert grew("dicebound_http_requests_total", route=CHECKS, method="POST", status="200") == 1
        assert grew("dicebound_http_requests_total", route=CHECKS, method="POST", status="422") == 1
        assert (
            grew("dicebound_http_request_duration_seconds_count", route=CHECKS, method="POST") == 2
        )
        assert grew("dicebound_http_request_duration_seconds_sum", route=CHECKS, method="POST") > 0
        assert grew("dicebound_checks_total", result="resolved", reason="") == 3
        assert grew("dicebound_checks_total", result="refused", reason="unresolved") == 1
        assert grew("dicebound_checks_total", result="refused", reason="request") == 1
        assert grew("dicebound_sheet_commands_total", result="applied", reason="") == 1
        assert grew("dicebound_sheet_commands_total", result="refused", reason="insufficient") == 1
        limited = statuses.count(429)
        assert (
            grew("dicebound_rate_limit_refusals_total", bucket="token")
            + grew("dicebound_rate_limit_refusals_total", bucket="game")
            == limited
        )
        assert (
            value(
                after,
                "dicebound_http_requests_total",
                route="/games/{game}/records",
                method="GET",
                status="429",
            )
            == limited
        )
        assert (
            value(
                after, "dicebound_http_requests_total", route="/metrics", method="GET", status="401"
            )
            == 2
        )
        assert value(after, "dicebound_build_info", version=_version(base)) == 1
        started = value(after, "dicebound_process_start_time_seconds")
        assert time.time() - 120 < started <= time.time()
        assert value(after, "dicebound_store_pool_connections_in_use") >= 1  # /health's own
        for fault in ("lost", "busy", "full", "refused"):
            assert ("dicebound_store_faults_total", frozenset({("fault", fault)})) in after
        # labels of bounded sets: a route's template, never a game or a token
        assert game not in text and token not in text and ADMIN_TOKEN not in text


def _version(base: str) -> str:
    version: str = httpx.get(base + "/health").json()["version"]
    return version


@logs_on_failure
def test_open_event_streams_are_a_gauge(tmp_path: Path) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path) as [server]:
        game, token = reserve_game(server.base)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.base, headers=headers, timeout=30) as streams:
            with (
                streams.stream("GET", f"/games/{game}/events"),
                streams.stream("GET", f"/games/{game}/events"),
            ):
                _, samples = _once(
                    server.base, lambda s: value(s, "dicebound_event_streams_open") == 2
                )
                assert value(samples, "dicebound_event_games_followed") == 1
            _once(server.base, lambda s: value(s, "dicebound_event_streams_open") == 0)


def _once(base: str, holds: object, within: float = 10.0) -> tuple[str, Samples]:
    """The first scrape for which ``holds(samples)``, within ``within`` seconds."""
    assert callable(holds)
    deadline = time.monotonic() + within
    while True:
        text, samples = scrape(base)
        if holds(samples):
            return text, samples
        assert time.monotonic() < deadline, text
        time.sleep(0.1)


# ── several processes, one set ───────────────────────────────────────────────


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(child) for child in text.split()]


def _live_pids(samples: Samples) -> set[str]:
    return {
        dict(labels)["pid"]
        for name, labels in samples
        if name == "dicebound_process_start_time_seconds"
    }


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads Linux's /proc")
@logs_on_failure
def test_workers_report_one_set_and_clean_up(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with store_url_for("sqlite", tmp_path) as db:
        server = ServerProcess(
            db, log=tmp_path / "server-1.log", env={"TMPDIR": str(scratch)}, args=["--workers", "2"]
        )
        with server:
            assert server.process is not None
            deadline = time.monotonic() + 30
            while len(workers := _children(server.process.pid)) != 2:
                assert time.monotonic() < deadline
                time.sleep(0.1)
            [made] = list(scratch.glob("dicebound-metrics-*"))
            _, before = _once(server.base, lambda s: len(_live_pids(s)) == 2)
            assert _live_pids(before) == {str(pid) for pid in workers}
            for _ in range(40):  # a new connection each: the kernel deals them to both
                assert httpx.get(server.base + "/health").status_code == 200
            health = {"route": "/health", "method": "GET", "status": "200"}
            counts = []
            for _ in range(6):  # whichever process answers, the same set
                _, after = scrape(server.base)
                counts.append(
                    value(after, "dicebound_http_requests_total", **health)
                    - value(before, "dicebound_http_requests_total", **health)
                )
            assert counts == [40] * 6
            # a worker killed: a new one in its place, its counts kept, its gauges gone
            os.kill(workers[0], signal.SIGKILL)
            deadline = time.monotonic() + 30
            while len(now := _children(server.process.pid)) != 2 or workers[0] in now:
                assert time.monotonic() < deadline
                time.sleep(0.1)
            _, later = _once(server.base, lambda s: _live_pids(s) == {str(p) for p in now})
            assert value(later, "dicebound_http_requests_total", **health) >= value(
                after, "dicebound_http_requests_total", **health
            )
        assert not made.exists()


# ── the store gone ───────────────────────────────────────────────────────────


@pytest.fixture
def pg_url() -> Iterator[str]:
    with postgres_database() as url:
        yield url


@logs_on_failure
def test_store_faults_are_counted_and_the_scrape_still_answers(pg_url: str, tmp_path: Path) -> None:
    with running(pg_url, tmp_path) as [server]:
        game, token = reserve_game(server.base)
        _, before = scrape(server.base)
        assert total(before, "dicebound_store_faults_total") == 0
        libpq = make_url(PG_ADMIN_URL).set(drivername="postgresql")
        with psycopg.connect(libpq.render_as_string(hide_password=False), autocommit=True) as pg:
            pg.execute(f'DROP DATABASE "{make_url(pg_url).database}" WITH (FORCE)')
        time.sleep(2.5)  # past the admin hash's hold: the scrape must not need the store
        with client(server.base, token) as player:
            failed = player.post(f"/games/{game}/checks", json={"text": PUSH})
        assert failed.status_code == 503, failed.text
        assert httpx.get(server.base + "/ready").status_code == 503
        _, after = scrape(server.base)
        assert total(after, "dicebound_store_faults_total") >= 2
        assert (
            value(after, "dicebound_http_requests_total", route=CHECKS, method="POST", status="503")
            == 1
        )
