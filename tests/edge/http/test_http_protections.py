"""The service against slow, greedy or nosy clients (issue 23): real ``dicebound serve``
processes on loopback ports, spoken to over raw sockets where the point is what a
client does byte by byte.

- Headers must be whole within the header timeout, a body within the body timeout
  (408 and the connection closed); a connection that sends nothing is closed too;
  headers past 16 KB are refused (431). Each guard of the HTTP protocol is tested on
  both parsers the service runs: httptools (the default) and h11 (``--http h11``).
- A route that needs a token refuses a request without one (and ``POST /rulesets`` a
  token that is not the admin's, and a game's route a token no one holds) before
  reading its body.
- Past the concurrency limit the answer is 503; past a token's request rate, or its
  game's, 429 with ``Retry-After``, and other tokens go on; tokens no one holds are
  charged to their address (issue 40).
- One client address holds a few connections at most (the rest answered 429 as they
  are accepted), so it cannot take the concurrency limit from everyone; behind a
  trusted proxy, a few requests in flight per address it names. One token holds a few
  streams at most (a game's events and ``GET /mcp`` alike); the next is refused (429).
- Every answer says ``X-Content-Type-Options: nosniff``; ``/docs`` is a page of the
  service's own that loads nothing from anywhere.

Every test is bounded in time (small timeouts configured) and talks to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import html.parser
import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from http_api_support import STEALTH, bearer, make_game, problem_of
from service_support import ServerProcess, admin_headers, store_url_for

# ── helpers ──────────────────────────────────────────────────────────────────

TIGHT = {"DICEBOUND_HEADER_TIMEOUT": "1", "DICEBOUND_BODY_TIMEOUT": "2"}
SLACK = 2.0  # seconds past a timeout a loaded two-core machine may take to act on it


PARSERS = ["httptools", "h11"]


@pytest.fixture(scope="module", params=PARSERS)
def tight(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server on SQLite with a 1 s header timeout and a 2 s body timeout, on each
    HTTP parser."""
    folder = tmp_path_factory.mktemp(f"tight-{request.param}")
    env = {**TIGHT, "DICEBOUND_HTTP": request.param}
    with (
        store_url_for("sqlite", folder) as url,
        ServerProcess(url, log=folder / "server.log", env=env) as running,
    ):
        yield running


def _connect(server: ServerProcess) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def _closed(sock: socket.socket) -> bool:
    """Whether the server has closed the connection (no wait)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True


def _wait_closed(sock: socket.socket, within: float) -> float:
    """Seconds until the server closes ``sock``; fails past ``within``."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        if _closed(sock):
            return time.monotonic() - start
        time.sleep(0.02)
    pytest.fail(f"the connection was still open after {within} s")


def _answer(sock: socket.socket) -> tuple[int, http.client.HTTPMessage, bytes]:
    """Read one HTTP answer off a raw socket."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, response.headers, response.read()


def _head(method: str, path: str, length: int, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {length}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    lines.append("Content-Type: application/json")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


def _problem(status: int, headers: http.client.HTTPMessage, body: bytes) -> dict[str, Any]:
    assert headers["Content-Type"].startswith("application/problem+json"), headers
    assert headers.get_all("X-Content-Type-Options") == ["nosniff"]
    document: dict[str, Any] = json.loads(body)
    assert document["status"] == status
    assert document["detail"].endswith(".")
    return document


# ── header and body timeouts ────────────────────────────────────────────────


def _drip_until_closed(sock: socket.socket, text: bytes, most: float) -> float:
    """Send ``text`` a byte every 50 ms until the server closes; the seconds it took."""
    start = time.monotonic()
    for i in range(len(text)):
        if time.monotonic() - start > most:
            break
        try:
            sock.sendall(text[i : i + 1])
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - start
        if _closed(sock):
            return time.monotonic() - start
        time.sleep(0.05)
    pytest.fail(f"headers sent a byte at a time kept the connection for {most} s")


SLOW_HEADERS = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 400


def test_headers_sent_a_byte_at_a_time_are_cut_off(tight: ServerProcess) -> None:
    with _connect(tight) as sock:
        took = _drip_until_closed(sock, SLOW_HEADERS, most=1 + SLACK + 2)
    assert 0.8 <= took <= 1 + SLACK


def test_a_kept_alive_connection_drips_its_next_headers_in_vain(tight: ServerProcess) -> None:
    with _connect(tight) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status, _, _ = _answer(sock)
        assert status == 200
        took = _drip_until_closed(sock, SLOW_HEADERS, most=1 + SLACK + 2)
    assert took <= 1 + SLACK


def test_a_connection_that_sends_nothing_is_closed(tight: ServerProcess) -> None:
    with _connect(tight) as sock:
        assert 0.8 <= _wait_closed(sock, 1 + SLACK) <= 1 + SLACK


def test_a_stalled_body_is_answered_408_and_the_connection_closed(tight: ServerProcess) -> None:
    with _connect(tight) as sock:
        sock.sendall(_head("POST", "/rulesets/check", 1000) + b'{"id": "sl')
        start = time.monotonic()
        status, headers, body = _answer(sock)
        took = time.monotonic() - start
        assert status == 408
        assert _problem(408, headers, body)["detail"] == (
            "the request body did not arrive within 2 seconds; send it again, faster."
        )
        assert headers["Connection"] == "close"
        assert 1.8 <= took <= 2 + SLACK
        _wait_closed(sock, SLACK)


def test_an_unwanted_body_cannot_hold_the_connection(tight: ServerProcess) -> None:
    """Answered before its body, a request whose body never comes is closed after the
    body timeout: the server does not wait for bytes it would only throw away."""
    with _connect(tight) as sock:
        sock.sendall(_head("GET", "/health", 5000))
        status, _, _ = _answer(sock)
        assert status == 200
        assert _wait_closed(sock, 2 + SLACK) >= 1.8


def test_a_malformed_request_is_a_problem_document(tight: ServerProcess) -> None:
    with _connect(tight) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, headers, body = _answer(sock)
    assert status == 400
    assert _problem(400, headers, body)["detail"] == "the request is not valid HTTP/1.1."


TOO_LONG = "the request line and headers are over 16,384 bytes; send fewer or shorter."


def test_headers_past_16_kb_are_refused_and_the_connection_closed(tight: ServerProcess) -> None:
    """Refused as soon as 16 KB have come without the headers' end: neither parser
    gathers headers without bound while waiting for their blank line."""
    with _connect(tight) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20_000)
        status, headers, body = _answer(sock)
        assert status == 431
        assert _problem(431, headers, body)["detail"] == TOO_LONG
        assert headers["Connection"] == "close"
        _wait_closed(sock, SLACK)


def test_long_headers_sent_in_pieces_are_refused_on_a_kept_alive_connection(
    tight: ServerProcess,
) -> None:
    with _connect(tight) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _answer(sock)[0] == 200
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        status = None
        for _ in range(10):  # 40 KB in all, at most
            try:
                sock.sendall(b"X-Piece: " + b"b" * 4000 + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            if select.select([sock], [], [], 0.2)[0]:
                status, headers, body = _answer(sock)
                break
        assert status == 431
        assert _problem(431, headers, body)["detail"] == TOO_LONG
        _wait_closed(sock, SLACK)


def test_headers_just_under_16_kb_are_answered(tight: ServerProcess) -> None:
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 15_000 + b"\r\n\r\n"
    with _connect(tight) as sock:
        for _ in range(2):  # and again on the same connection
            sock.sendall(head)
            assert _answer(sock)[0] == 200


# ── the token before the body ───────────────────────────────────────────────


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def token_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServerProcess, str, str]]:
    """A server with a 2 s body timeout, a game and its token; on both stores."""
    folder = tmp_path_factory.mktemp(f"token-{request.param}")
    with (
        store_url_for(request.param, folder) as url,
        ServerProcess(url, log=folder / "server.log", env=TIGHT) as running,
    ):
        made = httpx.post(
            running.base + "/games",
            json={"name": "Early", "ruleset": "dnd5e-srd"},
            headers=admin_headers(),
        )
        assert made.status_code == 201, made.text
        yield running, made.json()["id"], made.json()["token"]


BIG = 200_000

REFUSED_BEFORE_THE_BODY = [
    ("POST", "/rulesets", None, 401, "only the admin token may upload a ruleset, and no token was sent."),
    ("POST", "/rulesets", "game", 403, "only the admin token may upload a ruleset; the token sent is not it."),
    ("POST", "/rulesets", "forged", 403, "only the admin token may upload a ruleset; the token sent is not it."),
    ("POST", "/games", None, 401, "only the admin token may make a game, and no token was sent."),
    ("POST", "/games", "game", 403, "only the admin token may make a game; the token sent is not it."),
    ("PUT", "/games/{game}/characters/Mira", None, 401, "this needs the game's token or the admin token."),
    ("POST", "/games/{game}/checks", None, 401, "this needs the game's token or the admin token."),
    ("POST", "/games/{game}/odds", None, 401, "this needs the game's token or the admin token."),
    ("POST", "/games/{game}/records/1/after", None, 401, "this needs the game's token or the admin token."),
    ("PATCH", "/games/{game}/characters/Mira/live", None, 401, "this needs the game's token or the admin token."),
    ("POST", "/games/{game}/checks", "forged", 404, 'no game "{game}" is here.'),
    ("POST", "/games/{game}/odds", "forged", 404, 'no game "{game}" is here.'),
    ("PUT", "/games/{game}/characters/Mira", "forged", 404, 'no game "{game}" is here.'),
    ("POST", "/games/{game}/records/1/after", "forged", 404, 'no game "{game}" is here.'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "path", "token", "status", "detail"),
    REFUSED_BEFORE_THE_BODY,
    ids=[f"{m} {p} {t or 'no'} token" for m, p, t, _, _ in REFUSED_BEFORE_THE_BODY],
)
def test_a_token_is_refused_before_its_body_is_read(
    token_server: tuple[ServerProcess, str, str],
    method: str,
    path: str,
    token: str | None,
    status: int,
    detail: str,
) -> None:
    server, game, game_token = token_server
    sent = {"game": f"Bearer {game_token}", "forged": "Bearer dbg_forged"}
    headers = {"Authorization": sent[token]} if token else {}
    with _connect(server) as sock:
        # the headers only: the answer must come without a byte of the 200 KB body
        sock.sendall(_head(method, path.format(game=game), BIG, headers))
        got, answer_headers, body = _answer(sock)
        assert got == status
        assert _problem(status, answer_headers, body)["detail"] == detail.format(game=game)
        if status == 401:
            assert answer_headers["WWW-Authenticate"] == "Bearer"


def test_the_admin_token_is_let_through_to_send_its_body(
    token_server: tuple[ServerProcess, str, str],
) -> None:
    server, _, _ = token_server
    with _connect(server) as sock:
        sock.sendall(_head("POST", "/rulesets", BIG, admin_headers()))
        got, _, body = _answer(sock)  # the body is awaited, in vain
    assert got == 408, body


# ── the concurrency limit ───────────────────────────────────────────────────


@pytest.mark.parametrize("parser", PARSERS)
def test_past_the_concurrency_limit_the_answer_is_503(tmp_path: Path, parser: str) -> None:
    env = {
        "DICEBOUND_LIMIT_CONCURRENCY": "3",
        "DICEBOUND_HEADER_TIMEOUT": "30",
        "DICEBOUND_HTTP": parser,
    }
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log", env=env) as server,
    ):
        held = [_connect(server), _connect(server)]
        try:
            deadline = time.monotonic() + 5
            answer = httpx.get(server.base + "/health")
            while answer.status_code != 503 and time.monotonic() < deadline:
                time.sleep(0.05)
                answer = httpx.get(server.base + "/health")
            document = problem_of(answer, 503)
            assert document["detail"] == (
                "the service is at its limit of 3 connections at once; retry shortly."
            )
            assert answer.headers["retry-after"] == "1"
            assert answer.headers["x-content-type-options"] == "nosniff"
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 5
        while httpx.get(server.base + "/health").status_code != 200:
            assert time.monotonic() < deadline, "the limit outlived the connections"
            time.sleep(0.05)


# ── what one address or one token holds open ────────────────────────────────

NOT_LOOPBACK = {"FORWARDED_ALLOW_IPS": "192.0.2.1"}  # no proxy on 127.0.0.1: its peers count


@contextlib.contextmanager
def _serving(tmp_path: Path, env: dict[str, str]) -> Iterator[ServerProcess]:
    """One server on SQLite, for one test, with ``env``."""
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log", env=env) as server,
    ):
        yield server


def _connect_from(server: ServerProcess, source: str) -> socket.socket:
    """A connection from another loopback address (Linux answers all of 127.0.0.0/8)."""
    sock = socket.socket()
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def _address_refused(sock: socket.socket, most: int) -> None:
    status, headers, body = _answer(sock)
    assert status == 429
    assert _problem(429, headers, body)["detail"] == (
        f"this address already holds {most} connections or requests open, the most one "
        "address may at once; close one, or retry shortly."
    )
    assert headers["Retry-After"] == "1"


@pytest.mark.parametrize("parser", PARSERS)
def test_one_address_cannot_take_every_connection(tmp_path: Path, parser: str) -> None:
    """Eight connections from one address that send half their headers, under a
    concurrency limit of six: three are held, the rest refused as they are accepted, so
    another address is answered; a place freed is taken again."""
    env = {
        **NOT_LOOPBACK,
        "DICEBOUND_LIMIT_CONCURRENCY": "6",
        "DICEBOUND_LIMIT_PER_ADDRESS": "3",
        "DICEBOUND_HEADER_TIMEOUT": "30",
        "DICEBOUND_HTTP": parser,
    }
    with _serving(tmp_path, env) as server:
        held = [_connect(server) for _ in range(8)]
        try:
            for sock in held:
                with contextlib.suppress(OSError):  # a refused one may be closed already
                    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.")
            refused: list[socket.socket] = []
            deadline = time.monotonic() + 5
            while len(refused) < 5 and time.monotonic() < deadline:
                refused = select.select(held, [], [], 0.1)[0]
            assert len(refused) == 5
            for sock in refused:
                _address_refused(sock, 3)
                _wait_closed(sock, SLACK)
            with _connect_from(server, "127.0.0.2") as other:
                other.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert _answer(other)[0] == 200
            with _connect(server) as again:  # still three held: refused
                again.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                _address_refused(again, 3)
            kept = [sock for sock in held if sock not in refused]
            kept[0].close()
            deadline = time.monotonic() + 5
            while httpx.get(server.base + "/health").status_code != 200:
                assert time.monotonic() < deadline, "the address's place was not given back"
                time.sleep(0.05)
        finally:
            for sock in held:
                sock.close()


def _slow_body(server: ServerProcess, forwarded: str) -> socket.socket:
    """A request in flight until the test closes it: its body never ends."""
    sock = _connect(server)
    sock.sendall(_head("POST", "/rulesets/check", 1000, {"X-Forwarded-For": forwarded}) + b"{")
    return sock


@pytest.mark.parametrize("parser", PARSERS)
def test_behind_a_trusted_proxy_each_address_it_names_is_held_to_its_requests(
    tmp_path: Path, parser: str
) -> None:
    """Through the proxy on 127.0.0.1 (uvicorn's default), whose own connections are not
    counted, each client address it names in X-Forwarded-For holds two requests at most
    in flight, slow bodies as streams; another address, and the proxy itself, go on."""
    env = {"DICEBOUND_LIMIT_PER_ADDRESS": "2", "DICEBOUND_HTTP": parser}
    with _serving(tmp_path, env) as server:
        held = [_slow_body(server, "203.0.113.7") for _ in range(2)]
        try:
            time.sleep(0.3)  # both requests are in, waiting for their bodies
            with _slow_body(server, "198.51.100.1, 203.0.113.7") as third:
                _address_refused(third, 2)
            with httpx.Client(base_url=server.base) as proxy:
                other = proxy.get("/health", headers={"X-Forwarded-For": "203.0.113.8"})
                assert other.status_code == 200
                assert proxy.get("/health").status_code == 200  # the proxy's own
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 5
        again = {"X-Forwarded-For": "203.0.113.7"}
        while httpx.get(server.base + "/health", headers=again).status_code != 200:
            assert time.monotonic() < deadline, "the address's requests were not given back"
            time.sleep(0.05)


def _open_stream(server: ServerProcess, path: str, token: str) -> socket.socket:
    sock = _connect(server)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {token}\r\n\r\n".encode("ascii")
    )
    return sock


def _stream_status(sock: socket.socket) -> int:
    """The status of a stream's answer (its head only: a stream never ends)."""
    head = sock.recv(65536)
    assert head.startswith(b"HTTP/1.1 "), head
    return int(head[9:12])


def _game(server: ServerProcess, name: str) -> tuple[str, str]:
    """A new game's id and token."""
    made = httpx.post(
        server.base + "/games", json={"name": name, "ruleset": "blades"}, headers=admin_headers()
    )
    assert made.status_code == 201, made.text
    return made.json()["id"], made.json()["token"]


@pytest.mark.parametrize("parser", PARSERS)
def test_one_token_holds_a_few_streams_events_and_mcp_alike(tmp_path: Path, parser: str) -> None:
    """Two streams held by a game's token, an event stream and ``GET /mcp``: its third,
    of either kind, is refused; another game's token is not, nor the admin token (the
    operator's); a stream closed frees its place."""
    from service_support import ADMIN_TOKEN

    env = {"DICEBOUND_STREAMS_PER_TOKEN": "2", "DICEBOUND_HTTP": parser}
    with _serving(tmp_path, env) as server:
        (game, token), (other, others) = _game(server, "Streams"), _game(server, "Others")
        events = f"/games/{game}/events"
        held = [_open_stream(server, events, token), _open_stream(server, "/mcp", token)]
        try:
            assert [_stream_status(sock) for sock in held] == [200, 200]
            for path in (events, "/mcp"):  # the third, of either kind
                with _open_stream(server, path, token) as third:
                    status, headers, body = _answer(third)
                    assert status == 429, body
                    assert _problem(429, headers, body)["detail"] == (
                        "this token already holds 2 streams open (a game's events, or "
                        "/mcp), the most one token may at once; close one, then retry."
                    )
            held.append(_open_stream(server, f"/games/{other}/events", others))
            held += [_open_stream(server, events, ADMIN_TOKEN) for _ in range(3)]
            assert [_stream_status(sock) for sock in held[2:]] == [200] * 4
            held.pop(0).close()
            deadline = time.monotonic() + 5
            while True:
                with _open_stream(server, events, token) as again:
                    if _stream_status(again) == 200:
                        break
                assert time.monotonic() < deadline, "a closed stream's place was not given back"
                time.sleep(0.05)
        finally:
            for sock in held:
                sock.close()


# ── the request rate ────────────────────────────────────────────────────────


def test_a_token_past_its_rate_gets_429_and_other_tokens_go_on(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log", env={"DICEBOUND_RATE_LIMIT": "1"}) as s,
    ):
        games = []
        for name in ("One", "Two"):
            time.sleep(1.05)  # the admin's bucket holds one request
            made = httpx.post(
                s.base + "/games", json={"name": name, "ruleset": "blades"}, headers=admin_headers()
            )
            assert made.status_code == 201, made.text
            games.append(made.json())
        time.sleep(1.05)  # every bucket full again
        one, two = (bearer(g["token"]) for g in games)
        with httpx.Client(base_url=s.base) as client:
            answered = client.get(f"/games/{games[0]['id']}", headers=one)
            assert answered.status_code == 200
            assert "server" not in answered.headers  # the server does not name itself
            refused = client.get(f"/games/{games[0]['id']}", headers=one)
            assert problem_of(refused, 429)["detail"] == (
                "this token has sent more than 1 request a second; wait as Retry-After says."
            )
            assert refused.headers["retry-after"] == "1"
            assert client.get(f"/games/{games[1]['id']}", headers=two).status_code == 200
            for _ in range(5):  # never limited
                assert client.get("/health").status_code == 200
            time.sleep(1.05)
            assert client.get(f"/games/{games[0]['id']}", headers=one).status_code == 200


def test_a_bucket_holds_a_seconds_worth_refills_at_the_rate_and_forgets_when_full() -> None:
    from dicebound.edge.http.guards import TokenBuckets

    buckets = TokenBuckets(rate=4)
    assert [buckets.take("k", 10.0) for _ in range(4)] == [0.0] * 4
    assert buckets.take("k", 10.0) == pytest.approx(0.25)  # refused: costs nothing
    assert buckets.take("k", 10.25) == 0.0  # one request refilled
    assert buckets.take("other", 10.25) == 0.0
    buckets.take("late", 20.0)  # the others have been full for seconds: forgotten
    assert set(buckets.buckets) == {"late"}
    slow = TokenBuckets(rate=0.5)  # under one a second: a bucket of one
    assert (slow.take("k", 0.0), slow.take("k", 0.0)) == (0.0, pytest.approx(2.0))


def test_requests_without_a_token_share_their_address_rate(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dicebound.edge.http import create_app
    from dicebound.edge.http.guards import Guards
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url, guards=Guards(rate_limit=1))) as client:
        assert client.get("/rulesets").status_code == 200
        refused = client.post("/rulesets/check", content=b"{}")  # another route, one bucket
        assert problem_of(refused, 429)["detail"] == (
            "this address has sent more than 1 request a second; wait as Retry-After says."
        )
        assert refused.headers["retry-after"] == "1"
        assert client.get("/games", headers=admin_headers()).status_code == 200  # its own


def test_limits_come_from_flags_else_the_environment_else_defaults() -> None:
    from dicebound.edge.http.guards import Guards
    from dicebound.errors import UsageError

    assert Guards.resolve({}, {}) == Guards(
        header_timeout=10,
        body_timeout=30,
        limit_concurrency=500,
        limit_per_address=64,
        streams_per_token=4,
        rate_limit=50,
        shutdown_timeout=8,
    )
    chosen = Guards.resolve({"streams_per_token": "0"}, {"DICEBOUND_LIMIT_PER_ADDRESS": "3"})
    assert (chosen.streams_per_token, chosen.limit_per_address) == (0, 3)
    environ = {"DICEBOUND_RATE_LIMIT": "7.5", "DICEBOUND_BODY_TIMEOUT": "4"}
    chosen = Guards.resolve({"rate_limit": "0", "body_timeout": None}, environ)
    assert (chosen.rate_limit, chosen.body_timeout) == (0, 4)
    for flags, env, sentence in (
        ({}, {"DICEBOUND_RATE_LIMIT": "lots"}, "DICEBOUND_RATE_LIMIT must be a number of "
         'requests a second, 0 or more (0: no limit); it is "lots".'),
        ({"rate_limit": "-1"}, {}, "--rate-limit must be a number of requests a second, "
         '0 or more (0: no limit); it is "-1".'),
        ({"header_timeout": "0"}, {}, "--header-timeout must be a number of seconds above 0; "
         'it is "0".'),
        ({"body_timeout": "nan"}, {}, "--body-timeout must be a number of seconds above 0; "
         'it is "nan".'),
        ({}, {"DICEBOUND_LIMIT_CONCURRENCY": "2.5"}, "DICEBOUND_LIMIT_CONCURRENCY must be a "
         'whole number of connections, 0 or more (0: no limit); it is "2.5".'),
        ({"limit_per_address": "-3"}, {}, "--limit-per-address must be a whole number of "
         'connections, 0 or more (0: no limit); it is "-3".'),
        ({}, {"DICEBOUND_STREAMS_PER_TOKEN": "many"}, "DICEBOUND_STREAMS_PER_TOKEN must be a "
         'whole number of streams, 0 or more (0: no limit); it is "many".'),
    ):  # fmt: skip
        with pytest.raises(UsageError) as refused:
            Guards.resolve(flags, env)
        assert str(refused.value) == sentence


def test_serve_refuses_a_bad_limit_before_touching_the_store(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    run = subprocess.run(
        [sys.executable, "-m", "dicebound", "serve", "--db", str(db), "--rate-limit", "fast"],
        env={**os.environ, "DICEBOUND_HEADER_TIMEOUT": "2"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr == (
        "dicebound: --rate-limit must be a number of requests a second, 0 or more "
        '(0: no limit); it is "fast".\n'
    )
    assert not db.exists()


# ── headers on every answer, and /docs ──────────────────────────────────────


def test_every_kind_of_answer_says_nosniff(service: TestClient) -> None:
    answers = {
        "JSON": service.get("/health"),
        "the page": service.get("/"),
        "a static file": service.get("/static/app.js"),
        "a missing static file": service.get("/static/nothing.js"),
        "the docs": service.get("/docs"),
        "the OpenAPI document": service.get("/openapi.json"),
        "a stored ruleset": service.get("/rulesets/blades"),
        "404": service.get("/nowhere"),
        "405": service.delete("/health"),
        "401": service.post("/games", json={}),
        "422": service.post("/games", json={"name": 3}, headers=admin_headers()),
        "413": service.post("/rulesets/check", content=b" " * 600_000),
    }
    for what, answer in answers.items():
        assert answer.headers.get_list("x-content-type-options") == ["nosniff"], what
        assert answer.headers.get_list("referrer-policy") == ["no-referrer"], what
    assert answers["JSON"].status_code == 200


class _Links(html.parser.HTMLParser):
    """Every URL a page names in an attribute, and whether it has a script."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.urls += [v or "" for k, v in attrs if k in ("src", "href", "action", "srcset")]


def test_docs_is_a_page_of_the_services_own(service: TestClient) -> None:
    page = service.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    links = _Links()
    links.feed(page.text)
    assert links.scripts == 0
    assert links.urls
    for url in links.urls:  # this page, this service, or the empty icon
        assert url == "data:," or (url.startswith(("#", "/")) and not url.startswith("//")), url
    document = service.get("/openapi.json").json()
    for path, operations in document["paths"].items():
        for method in operations:
            assert f"{method.upper()} {path}" in page.text.replace("&#x27;", "'"), (method, path)
    for gone in ("/redoc", "/docs/oauth2-redirect"):
        assert service.get(gone).status_code == 404, gone


def test_docs_in_a_browser_fetch_only_from_the_service(tight: ServerProcess) -> None:
    from web_support import browser

    with browser() as chrome:
        page = chrome.new_page()
        asked: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: asked.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(tight.base + "/docs")
        assert page.locator("h1").inner_text().startswith("dicebound")
        page.close()
    assert asked and all(url.startswith(tight.base + "/") for url in asked), asked
    assert errors == []


def test_tokens_no_one_holds_are_limited_by_their_address(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new invented token for each request buys no new bucket: each refused token (401)
    is charged to its address, and past its rate the address is refused (429) before
    its next token is looked at."""
    from dicebound.edge.http import create_app
    from dicebound.edge.http.guards import Guards
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url, guards=Guards(rate_limit=2))) as client:
        answers = [
            client.get("/games", headers=bearer(f"invented-{n}")).status_code for n in range(4)
        ]
        assert answers == [401, 401, 429, 429]
        refused = client.get("/games", headers=bearer("invented-5"))
        assert problem_of(refused, 429)["detail"] == (
            "this address, with tokens no one holds, has sent more than 2 requests a second; "
            "wait as Retry-After says."
        )
        time.sleep(1.05)  # the address's bucket refills
        assert client.get("/games", headers=admin_headers()).status_code == 200


def test_invented_tokens_on_a_games_routes_are_charged_to_their_address(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token no one holds on a game's route (issue 40, defect 4) is answered 404 before
    its body is read, as the route would, and charged to its address: inventing a token
    for each request buys no bucket, and past the address's rate the answer is 429. A
    token the process found in a game goes on, also once it must be read again (its
    game is held for 2 seconds)."""
    from dicebound.edge.http import create_app
    from dicebound.edge.http.guards import Guards
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url, guards=Guards(rate_limit=2))) as client:
        game = make_game(client, "dnd5e-srd")
        assert client.get(game.path(), headers=game.headers).status_code == 200
        answers = [
            client.post(game.path("checks"), json={"text": STEALTH}, headers=bearer(f"dbg_{n}"))
            for n in range(4)
        ]
        assert [a.status_code for a in answers] == [404, 404, 429, 429]
        assert problem_of(answers[0], 404)["detail"] == f'no game "{game.id}" is here.'
        assert problem_of(answers[2], 429)["detail"] == (
            "this address, with tokens no one holds, has sent more than 2 requests a second; "
            "wait as Retry-After says."
        )
        assert client.get(game.path(), headers=game.headers).status_code == 200
        time.sleep(2.05)  # the game's token is read again; the address's bucket is full
        for n in range(3):
            client.post(game.path("checks"), json={"text": STEALTH}, headers=bearer(f"dbg_{n}"))
        assert client.get(game.path(), headers=game.headers).status_code == 200


def test_a_games_tokens_share_the_games_rate(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's own token and its players' seats are charged to one bucket per game as well
    as one per token (issue 40, defect 10): a new token for each few requests, or a
    request from each seat, buys no more than the game's rate. The admin's token and
    another game's go on."""
    from dicebound.edge.http import create_app
    from dicebound.edge.http.guards import Guards
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url, guards=Guards(rate_limit=3))) as client:
        game = make_game(client, "dnd5e-srd", "mira")
        made = client.post(
            game.path("characters", "Mira Quickfoot", "seat"), headers=admin_headers()
        )
        seat = bearer(made.json()["token"])
        time.sleep(1.05)  # every bucket full again
        other = make_game(client, "dnd5e-srd", name="Another game")
        rotated = client.post(game.path("token"), headers=game.headers)  # the game's 1st
        token = bearer(rotated.json()["token"])
        assert client.get(game.path(), headers=token).status_code == 200  # 2nd
        assert client.get(game.path(), headers=seat).status_code == 200  # 3rd
        refused = client.get(game.path(), headers=seat)  # the seat's 2nd, the game's 4th
        assert problem_of(refused, 429)["detail"] == (
            "this token's game has sent more than 3 requests a second; wait as Retry-After says."
        )
        assert client.post(game.path("token"), headers=token).status_code == 429
        assert client.get(game.path(), headers=admin_headers()).status_code == 200
        assert client.get(other.path(), headers=other.headers).status_code == 200
        time.sleep(1.05)
        assert client.get(game.path(), headers=seat).status_code == 200


def test_a_revoked_seats_token_is_charged_to_its_address_once_the_process_forgets_it(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process holds a token's game for 2 seconds (its rate and the refusal before the
    body need it on every request): a revoked seat is refused at once by its routes,
    and within 2 seconds as a token no one holds, before its body and on its address."""
    from dicebound.edge.http import create_app
    from dicebound.edge.http.guards import Guards
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(store_url, guards=Guards(rate_limit=2))) as client:
        game = make_game(client, "dnd5e-srd", "mira")
        seat = game.path("characters", "Mira Quickfoot", "seat")
        made = client.post(seat, headers=admin_headers())
        player = bearer(made.json()["token"])
        assert client.get(game.path(), headers=player).status_code == 200
        time.sleep(1.05)
        assert client.delete(seat, headers=admin_headers()).status_code == 204
        assert client.get(game.path(), headers=player).status_code == 404  # at once
        time.sleep(2.05)  # forgotten: now a token no one holds, charged to the address
        odds = game.path("odds")  # an empty body would be 422 from the route
        assert problem_of(client.post(odds, json={}, headers=player), 404)["detail"] == (
            f'no game "{game.id}" is here.'
        )
        assert client.get(game.path(), headers=player).status_code == 404
        assert problem_of(client.get(game.path(), headers=player), 429)["detail"].startswith(
            "this address, with tokens no one holds, "
        )
