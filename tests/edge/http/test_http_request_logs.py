"""Logs a machine reads (issue 45): every request's id, kept from a sane
``X-Request-ID`` or made, echoed in the answer and on every log line of the request,
an MCP call's included; ``--log-format json`` (``DICEBOUND_LOG_FORMAT``) one JSON
object per line, text by default; never a token or a note. Each test reads the log of
a real ``dicebound serve``."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from dicebound.edge.http.threads import Threads
from dicebound.edge.logs import REQUEST
from server_support import client, logs_on_failure, ok, reserve_game, running
from service_support import ADMIN_TOKEN, store_url_for

pytestmark = pytest.mark.server

PUSH = '[skill_check: skill="Push" difficulty="Steady"]'
# the words around a check's tags: a Game Master's or a player's, which no line repeats
NOTE = "words-no-log-may-hold-7f3a"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _lines(log: Path, wanted: int, holds: Any, within: float = 10.0) -> list[str]:
    """The log's lines once ``wanted`` of them satisfy ``holds`` (the server writes
    its access line just after the answer)."""
    deadline = time.monotonic() + within
    while True:
        lines = log.read_text().splitlines()
        if sum(1 for line in lines if holds(line)) >= wanted:
            return lines
        assert time.monotonic() < deadline, "\n".join(lines[-30:])
        time.sleep(0.05)


def _mcp_unknown_prompt(base: str, token: str, rid: str) -> None:
    """An MCP call (a prompt that is not there) whose handling logs a warning."""
    answer = httpx.post(
        base + "/mcp",
        headers={**MCP_HEADERS, "Authorization": f"Bearer {token}", "X-Request-ID": rid},
        json={"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "nope"}},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert "error" in answer.json(), answer.text
    assert answer.headers["x-request-id"] == rid


@logs_on_failure
def test_json_lines_carry_each_request_id_route_status_and_game(tmp_path: Path) -> None:
    env = {"DICEBOUND_LOG_FORMAT": "json"}
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path, env=env) as [server]:
        game, token = reserve_game(server.base)
        with client(server.base, token) as player:
            kept = player.post(
                f"/games/{game}/checks",
                json={"text": f"{NOTE} {PUSH}"},
                headers={"X-Request-ID": "chk-1.a"},
            )
            made = player.post(
                f"/games/{game}/checks",
                json={"text": PUSH},
                headers={"X-Request-ID": "no spaces, " + "x" * 200},
            )
        assert kept.status_code == made.status_code == 200
        assert kept.headers["x-request-id"] == "chk-1.a"
        assert re.fullmatch(r"[0-9a-f]{16}", made.headers["x-request-id"])
        _mcp_unknown_prompt(server.base, token, "mcp-call-9")
        lines = _lines(server.log_path, 1, lambda line: '"mcp-call-9"' in line and "/mcp" in line)
    records = []
    for line in lines:
        if line.startswith("dicebound: "):  # the start-up's own lines, before any request
            continue
        records.append(json.loads(line))  # every other line is one JSON object
    [check] = [r for r in records if r["request_id"] == "chk-1.a"]
    assert check["logger"] == "dicebound.access" and check["level"] == "INFO"
    assert check["route"] == "/games/{game}/checks" and check["method"] == "POST"
    assert check["status"] == 200 and check["game"] == game
    assert check["duration_ms"] > 0
    assert datetime.fromisoformat(check["time"]).year >= 2026
    [other] = [r for r in records if r["request_id"] == made.headers["x-request-id"]]
    assert other["route"] == "/games/{game}/checks"
    # the MCP call: its own warning, logged in the SDK's task, and its access line
    mcp = [r for r in records if r["request_id"] == "mcp-call-9"]
    assert {r["logger"] for r in mcp} == {"dicebound.mcp", "dicebound.access"}, mcp
    assert any("prompt refused" in r["message"] for r in mcp)
    text = "\n".join(lines)
    for secret in (token, ADMIN_TOKEN, NOTE):
        assert secret not in text


@logs_on_failure
def test_text_lines_are_the_default_and_name_their_request(tmp_path: Path) -> None:
    env = {"DICEBOUND_ACCESS_LOG": "on"}  # off by default in text, as the log was
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path, env=env) as [server]:
        game, token = reserve_game(server.base)
        with client(server.base, token) as player:
            ok(
                player.post(
                    f"/games/{game}/checks",
                    json={"text": f"{NOTE} {PUSH}"},
                    headers={"X-Request-ID": "txt-42"},
                )
            )
        _mcp_unknown_prompt(server.base, token, "mcp-txt-7")
        lines = _lines(server.log_path, 2, lambda line: "request=" in line and "-" in line)
        lines = _lines(server.log_path, 1, lambda line: "/mcp" in line and "mcp-txt-7" in line)
    [check] = [line for line in lines if line.endswith("request=txt-42")]
    assert re.search(
        rf" INFO dicebound\.access: POST /games/{{game}}/checks 200 [0-9.]+ ms game={game} ", check
    ), check
    assert any("prompt refused" in line and line.endswith("request=mcp-txt-7") for line in lines)
    assert not any(line.startswith("{") for line in lines)
    text = "\n".join(lines)
    for secret in (token, ADMIN_TOKEN, NOTE):
        assert secret not in text


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--log-format", "xml"], {}, '--log-format must be "text" or "json"; it is "xml".'),
        ([], {"DICEBOUND_LOG_FORMAT": "yaml"}, 'DICEBOUND_LOG_FORMAT must be "text" or "json"'),
        ([], {"DICEBOUND_METRICS": "maybe"}, 'DICEBOUND_METRICS must be "on" or "off"'),
        ([], {"DICEBOUND_ACCESS_LOG": "loud"}, 'DICEBOUND_ACCESS_LOG must be "on" or "off"'),
    ],
)
def test_a_bad_log_format_or_switch_is_refused_before_the_store(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    db = tmp_path / "never.db"
    done = subprocess.run(
        [sys.executable, "-m", "dicebound", "serve", "--db", str(db), "--port", "1", *args],
        env={"PATH": "/usr/bin:/bin", "DICEBOUND_ADMIN_TOKEN": ADMIN_TOKEN, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert not db.exists()


@logs_on_failure
@pytest.mark.parametrize(
    "env",
    [{"DICEBOUND_LOG_FORMAT": "json", "DICEBOUND_ACCESS_LOG": "off"}, {}],
    ids=["off", "text"],
)
def test_the_access_log_is_off_when_asked_and_by_default_in_text(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path, env=env) as [server]:
        for _ in range(3):
            assert httpx.get(server.base + "/health").status_code == 200
        time.sleep(0.5)
    assert "dicebound.access" not in server.log_path.read_text()


def test_the_check_threads_run_in_the_requests_context() -> None:
    """A check's work on the lane's threads logs with its request's id."""

    async def run() -> str | None:
        threads = Threads(2)
        REQUEST.set("thread-1")
        try:
            return await threads.run(REQUEST.get)
        finally:
            threads.stop()

    assert asyncio.run(run()) == "thread-1"
