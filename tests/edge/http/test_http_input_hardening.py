"""Input the service refuses (issue 23, defects 1, 10, 11 and 12), each a regression row:

- a ruleset is checked in time linear in its size: its problems placed in one scan of
  the text, the first 200 listed and the rest counted, the work abandoned past its
  processor budget or when its client goes away; a raw body only as JSON (415);
- no value is coerced: ``true`` is never 1, ``"6"`` never 6; one seed rule everywhere;
- a character name its own URL could not reach is refused, and so is a path that is not
  UTF-8 once percent-decoded;
- a number longer than Python reads is refused in dicebound's words.

Routes that touch the store run on SQLite and PostgreSQL; ``/rulesets/check`` keeps
nothing, so it runs on one store.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from starlette.requests import Request

from dicebound import jsontext
from dicebound.app import characters, games, rulesets
from dicebound.app.access import Access
from dicebound.app.seeds import SEED_RULE
from dicebound.compiler import load_ruleset_text
from dicebound.edge.files import ruleset_text
from dicebound.edge.http import create_app
from dicebound.edge.http.problems import HttpProblem
from dicebound.edge.http.routes import rulesets as ruleset_routes
from dicebound.edge.mcp import Seat, build_server
from dicebound.errors import RulesetInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.problems import did_you_mean, hints_bounded
from dicebound.store import open_store
from dicebound.views import problems_with_lines
from http_api_support import (
    STEALTH,
    Game,
    character_file,
    cli,
    make_game,
    problem_of,
    store_rows,
)
from mcp_support import call
from repo_paths import REPO
from service_support import ADMIN_TOKEN, JSON, ServerProcess, admin_headers, store_url_for

LIMIT = 256 * 1024
MIRA = "Mira Quickfoot"


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The application over one SQLite store, for ``/rulesets/check`` (it keeps nothing)."""
    folder = tmp_path_factory.mktemp("checker")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
        with TestClient(create_app(f"sqlite:///{folder / 'check.db'}")) as client:
            yield client


def _check(client: TestClient, text: str, **headers: str) -> Any:
    return client.post("/rulesets/check", content=text, headers={**JSON, **headers})


# ── the worst files the format allows ────────────────────────────────────────


def _keys_written_twice(size: int) -> str:
    """As many objects as fit, each writing one key twice (the issue's 19 KB file)."""
    item = '{"k": 0, "k": 0}'
    return '{"sheet": [' + ", ".join([item] * ((size - 20) // (len(item) + 2))) + "]}"


def _wrong_values(size: int) -> str:
    """A packaged ruleset whose abilities are all ``1``: a problem every two bytes."""
    raw = json.loads(ruleset_text("pbta-2d6")[0])
    raw["sheet"]["abilities"] = []
    text = json.dumps(raw, separators=(",", ":"))
    room = size - len(text) - 2
    return text.replace('"abilities":[]', '"abilities":[' + ",".join(["1"] * (room // 2)) + "]")


def _unknown_keys(size: int) -> str:
    text = ruleset_text("pbta-2d6")[0].rstrip().removesuffix("}")
    count = (size - len(text) - 2) // 14
    return text + "," + ",".join(f'"zq{i:07d}":0' for i in range(count)) + "}"


def _problems(text: str) -> list[Any]:
    with pytest.raises(RulesetInvalid) as refused:
        load_ruleset_text(text)
    return list(refused.value.problems)


def test_a_files_problems_are_placed_in_one_scan_of_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's 19 KB file of 1,000 keys written twice took 10 to 12 s: each problem
    was placed by a scan of the whole text of its own."""
    text = _keys_written_twice(19 * 1024)
    problems = _problems(text)
    assert len(problems) > 1000
    scans = []
    scanner = jsontext._Scanner

    class Counted(scanner):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            scans.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(jsontext, "_Scanner", Counted)
    placed = problems_with_lines(text, problems)
    assert len(scans) == 1
    assert placed[0] == {**problems[0].to_json(), "line": 1, "column": 13}
    assert [p["column"] for p in placed[:3]] == [13, 31, 49]  # each first "k" of its object


@pytest.mark.parametrize(
    "build", [_wrong_values, _keys_written_twice, _unknown_keys], ids=lambda f: f.__name__
)
def test_the_worst_file_of_256_kb_is_answered_with_200_problems_and_the_rest_counted(
    checker: TestClient, build: Any
) -> None:
    text = build(LIMIT)
    assert LIMIT - 40 < len(text.encode()) <= LIMIT
    problems = _problems(text)
    answer = _check(checker, text)
    assert answer.status_code == 200, answer.text  # not 503: well within its budget
    body = answer.json()
    assert body["ok"] is False and body["gm"] is None
    assert body["problems"] == problems_with_lines(text, problems[:200])
    assert body["omitted"] == len(problems) - 200 > 10_000


def _deep(depth: int, size: int = LIMIT) -> str:
    """Keys written twice at the bottom of objects nested ``depth`` deep: each problem's
    path as long as the nesting (900 deep took 2 s and 200 MB before nesting was
    bounded)."""
    item = '{"k": 0, "k": 0}'
    head, tail = '{"a": ' * depth + "[", "]" + "}" * depth
    return head + ", ".join([item] * ((size - len(head) - len(tail)) // (len(item) + 2))) + tail


def test_a_file_nested_past_100_deep_is_refused_before_its_problems_are_walked(
    checker: TestClient,
) -> None:
    assert read_json("[" * 100 + "]" * 100)[1] == []
    with pytest.raises(Unreadable, match=r"more than 100 objects and lists deep"):
        read_json("[" * 101 + "]" * 101)
    deepest = _check(checker, _deep(98)).json()  # 98 objects, a list, its objects: 100
    assert deepest["problems"][0]["code"] == "duplicate-key"
    assert deepest["problems"][0]["path"] == ".".join(["a"] * 98) + "[0].k"  # 100 long
    for depth in (99, 900):
        body = _check(checker, _deep(depth)).json()
        assert (body["problems"], body["omitted"]) == (
            [
                {
                    "path": "$",
                    "code": "not-json",
                    "message": "is nested too deeply to read (more than 100 objects and lists "
                    "deep).",
                    "line": 1,
                    "column": 1,
                }
            ],
            0,
        )


def test_a_valid_file_omits_nothing(checker: TestClient) -> None:
    body = _check(checker, ruleset_text("advanced-resolution")[0]).json()
    assert (body["ok"], body["problems"], body["omitted"]) == (True, [], 0)


def test_a_check_past_its_processor_budget_is_abandoned_with_503(
    checker: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ruleset_routes, "CHECK_SECONDS", 0.0)
    for text in (_wrong_values(LIMIT), ruleset_text("advanced-resolution")[0]):
        body = problem_of(_check(checker, text), 503)
        assert body["detail"] == (
            "checking the ruleset was stopped: it took more than 0 seconds of the processor. "
            "Try again, or check the file a part at a time."
        )


def test_checks_take_turns_and_one_past_those_waiting_is_refused(checker: TestClient) -> None:
    """One check at a time (the worst three at once took ``/health`` from 4 to 280 ms
    at the median), and at most eight waiting: the next is told at once."""
    valid = ruleset_text("advanced-resolution")[0]
    assert _check(checker, valid).status_code == 200
    turns = checker.app.state.ruleset_checks  # type: ignore[attr-defined]
    assert (turns.limiter.total_tokens, turns.most, turns.now) == (1, 9, 0)
    turns.now = turns.most  # as if nine were running or waiting
    try:
        body = problem_of(_check(checker, valid), 503)
    finally:
        turns.now = 0
    assert body["detail"] == (
        "9 ruleset checks are already running or waiting here; try again in a moment."
    )
    assert _check(checker, valid).status_code == 200 and turns.now == 0


def test_the_work_stops_at_its_next_checkpoint_once_its_client_is_gone() -> None:
    """A real Starlette request whose client disconnects while a real worker thread
    works: the thread's next checkpoint raises, so it stops instead of finishing."""
    gone, stopped = threading.Event(), threading.Event()
    checkpoints: list[int] = []

    def work(checkpoint: Any) -> str:
        threading.Timer(0.1, gone.set).start()  # the client leaves a moment after
        try:
            for _ in range(10_000):  # 100 s, were it never stopped
                checkpoints.append(1)
                checkpoint()
                time.sleep(0.01)
            return "finished"
        finally:
            stopped.set()

    async def receive() -> dict[str, Any]:  # as a server's: the disconnect once it comes
        if gone.is_set():
            return {"type": "http.disconnect"}
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    request = Request({"type": "http", "method": "POST", "headers": []}, receive)

    async def ask() -> None:
        with pytest.raises(HttpProblem) as refused:
            await ruleset_routes.within_budget(60.0, request, work)
        assert refused.value.status == 503 and "its client went away" in refused.value.detail

    anyio.run(ask)
    assert stopped.wait(5) and len(checkpoints) < 1000


# ── a raw body only as JSON ──────────────────────────────────────────────────

NOT_JSON = {
    "no type": None,
    "text/plain": "text/plain;charset=UTF-8",
    "a form": "application/x-www-form-urlencoded",
    "multipart": "multipart/form-data; boundary=x",
    "JSON text as text": "text/json",
}


def _raw_routes(game: Game) -> list[tuple[str, str, dict[str, str], bytes]]:
    mira = json.dumps(character_file("dnd5e-srd", "mira")).encode()
    ruleset = ruleset_text("advanced-resolution")[0].replace(
        '"id": "advanced-resolution"', '"id": "house-rules"', 1
    )
    return [
        ("POST", "/rulesets/check", {}, ruleset.encode()),
        ("POST", "/rulesets", admin_headers(), ruleset.encode()),
        ("PUT", game.character(MIRA), game.headers, mira),
    ]


def test_a_raw_body_is_read_only_when_it_says_it_is_json(
    service: TestClient, store_url: str
) -> None:
    """A page on any site may make a browser post a form, text or an untyped body here
    without asking first; a JSON body it may not. Each is 415 and changes nothing."""
    game = make_game(service, "dnd5e-srd")
    routes = _raw_routes(game)
    before = store_rows(store_url)
    for method, path, headers, body in routes:
        for name, sent in NOT_JSON.items():
            typed = {} if sent is None else {"Content-Type": sent}
            got = service.request(method, path, content=body, headers={**headers, **typed})
            detail = problem_of(got, 415)["detail"]
            said = f'it was sent as "{sent}"' if sent else "it was sent with none"
            assert detail.startswith("send the ") and detail.endswith(f"; {said}."), name
    assert store_rows(store_url) == before
    for (method, path, headers, body), sent in zip(
        routes,
        ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"],
        strict=True,
    ):
        got = service.request(method, path, content=body, headers={**headers, "Content-Type": sent})
        assert got.status_code in (200, 201), got.text


def test_the_web_page_sends_every_body_as_json() -> None:
    """The page's one way to the API sets the type for every body it sends (its
    browser tests then play each route through it); the event stream's fetch sends none."""
    static = REPO / "src/dicebound/edge/web/static"
    script = "\n".join(module.read_text() for module in sorted(static.glob("*.js")))
    calls = [call.split(")", 1)[0] for call in script.split("fetch(")[1:]]
    assert len(calls) == 2 and [call for call in calls if "body" in call] == [
        "path, { method, headers, body: payload }"
    ]
    assert 'if (body !== undefined) {\n    headers["Content-Type"] = "application/json";' in script


# ── no value is coerced ──────────────────────────────────────────────────────


def test_a_bool_or_a_numeric_string_is_never_read_as_a_number(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    if_match = {**game.headers, "If-Match": "1"}
    live = game.character(MIRA) + "/live"
    check = {"text": STEALTH}
    refused = [
        ("PATCH", live, {"pools": {"inspiration": True}}, "body.pools.inspiration: a pool is"),
        ("PATCH", live, {"pools": {"inspiration": "1"}}, "body.pools.inspiration: a pool is"),
        ("PATCH", live, {"pools": {"inspiration": {"value": True}}}, ".value: Input should"),
        ("PATCH", live, {"pools": {"inspiration": {"value": 1, "temp": "1"}}}, ".temp: Input"),
        ("PATCH", live, {"tracks": {"exhaustion": False}}, "body.tracks.exhaustion: Input"),
        ("POST", game.path("checks"), {**check, "seed": True}, "body.seed: a seed is"),
        ("POST", game.path("checks"), {**check, "seed": 4.0}, "body.seed: a seed is"),
        ("POST", game.path("checks"), {**check, "faces": [True]}, "body.faces[0]: Input"),
        ("POST", game.path("checks"), {**check, "faces": ["6"]}, "body.faces[0]: Input"),
        ("POST", "/roll", {"ruleset": "genesys", "dice": "1 ability", "seed": True}, "seed"),
        ("POST", "/roll", {"ruleset": "genesys", "dice": "1 ability", "version": True}, "vers"),
        ("POST", "/games", {"name": "g", "ruleset": "dnd5e-srd", "version": True}, "version"),
        ("POST", game.path("odds"), {"tag": STEALTH, "after": {"pool": "x", "points": True}}, "p"),
        ("POST", game.path("records", 1, "after"), {"pool": "x", "points": True}, "points"),
    ]
    service.post(game.path("checks"), json={**check, "seed": "1"}, headers=game.headers)
    before = store_rows(store_url)
    for method, path, body, says in refused:
        headers = admin_headers() if path == "/games" else if_match
        detail = problem_of(service.request(method, path, json=body, headers=headers), 422)
        assert says in detail["detail"], (body, detail)
    assert store_rows(store_url) == before


BAD_SEEDS = [True, False, 1.5, 4.0, "", "a seed", "x" * 201, "é", [1], {"n": 1}, 10**201]


def test_one_seed_rule_for_every_route(service: TestClient, store_url: str) -> None:
    """``/checks`` read its seed by a rule that ``/roll`` did not; now one rule reads
    every seed, and ``12`` is the seed ``"12"`` wherever it is sent."""
    game = make_game(service, "dnd5e-srd", "mira")
    before = store_rows(store_url)
    roll = {"ruleset": "genesys", "dice": "2 ability vs 1 difficulty"}
    for seed in BAD_SEEDS:
        for path, body in ((game.path("checks"), {"text": STEALTH}), ("/roll", roll)):
            got = service.post(path, json={**body, "seed": seed}, headers=game.headers)
            assert problem_of(got, 422)["detail"].startswith(f"body.seed: {SEED_RULE}"), seed
    assert store_rows(store_url) == before
    thrown = [service.post("/roll", json={**roll, "seed": s}).json() for s in (12, "12")]
    assert thrown[0] == thrown[1] and thrown[0]["seed"] == "12"


def test_one_seed_rule_for_every_tool(store_url: str) -> None:
    """The MCP tools, through the SDK's own client on the server in process: the same
    rule, and a bool given for a number is refused, not read as 1."""
    store = open_store(store_url)
    try:
        with store.write() as session:
            rulesets.sync_packaged_rulesets(session)
            made = games.create_game(session, Access.local(), "t", "genesys", None, [])
            game = str(made["id"])
            kira = json.dumps(character_file("genesys", "kira")).encode()
            characters.put_character(session, Access.local(), game, "Kira Vance", kira)
        seat = Seat(store, Access.local(), game)
        tools = build_server(lambda ctx: seat)
        check = '[skill_check: skill="Cool" difficulty="Average"]'

        async def calls() -> list[str | None]:
            async with Client(tools) as client:
                errors = []
                for seed in BAD_SEEDS:
                    for tool, arguments in (
                        ("resolve_checks", {"text": check}),
                        ("roll_dice", {"dice": "1 ability"}),
                    ):
                        answer = await call(client, tool, {**arguments, "seed": seed})
                        errors.append(answer.error)
                for tool, arguments in (
                    ("resolve_checks", {"text": check, "faces": [True]}),
                    ("settle_after_roll", {"record": True, "choose": "fail"}),
                    ("list_records", {"limit": True}),
                ):
                    errors.append((await call(client, tool, arguments)).error)
                return errors

        before = store_rows(store_url)
        errors = anyio.run(calls)
        assert store_rows(store_url) == before
    finally:
        store.close()
    assert all(error is not None for error in errors), errors
    assert all(SEED_RULE in str(error) for error in errors[: 2 * len(BAD_SEEDS)])
    assert all("valid integer" in str(error) for error in errors[2 * len(BAD_SEEDS) :])


# ── names a URL can reach ────────────────────────────────────────────────────


def test_a_character_name_its_url_cannot_reach_is_refused(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    headers = {**game.headers, **JSON}
    for name in (".", ".."):
        escaped = "%2E" * len(name)  # a client would drop the segment itself
        body = json.dumps({**character_file("dnd5e-srd", "mira"), "name": name})
        refused = problem_of(
            service.put(game.character(escaped), content=body, headers=headers), 422
        )
        assert refused["detail"].startswith("a character's name is part of its address")
        assert refused["problems"] == [
            {
                "path": "name",
                "code": "bad-name",
                "message": f'"{name}" cannot be part of a URL path.',
            }
        ]
    for path in ("%FF", "Mira%C3", "a%ED%A0%80b"):  # a bad byte, a cut sequence, a surrogate
        refused = problem_of(service.put(game.character(path), content=b"{}", headers=headers), 422)
        assert refused["detail"].startswith("the path is not UTF-8 text once its %-escapes")
        problem_of(service.get(game.character(path), headers=headers), 422)
    assert store_rows(store_url) == before
    made = service.put(game.character("Ma%C3%AFa"), content=b"{}", headers=headers)
    assert made.json() == {"name": "Maïa", "revision": 1}


INVISIBLE = {
    "Mira\u200b": "U+200B ZERO WIDTH SPACE, an invisible format character",
    "Mi\u00adra": "U+00AD SOFT HYPHEN, an invisible format character",
    "\ufeffMira": "U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible format character",
    "Mira\u202earim": "U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control character",
}


def test_a_name_with_an_invisible_or_bidirectional_character_is_refused_at_put(
    service: TestClient, store_url: str
) -> None:
    """Each was put (201) and listed, and then every route on it answered 404."""
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    headers = {**game.headers, **JSON}
    for name, said in INVISIBLE.items():
        body = json.dumps({**character_file("dnd5e-srd", "mira"), "name": name})
        put = service.put(game.character(quote(name, safe="")), content=body, headers=headers)
        refused = problem_of(put, 422)
        shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)
        assert refused["detail"] == (
            "a character's name is what the table reads and part of its address, so it may "
            "hold no control, format or bidirectional character, nor any space but the "
            f'plain one; "{shown}" holds {said}.'
        )
        assert refused["problems"] == [
            {"path": "name", "code": "bad-name", "message": f'"{shown}" holds {said}.'}
        ]
    assert store_rows(store_url) == before
    assert service.get(game.path(), headers=game.headers).json()["characters"] == []
    made = service.put(game.character("Mira%20Vale"), content=b"{}", headers=headers)
    assert made.json() == {"name": "Mira Vale", "revision": 1}  # the plain space is one


def test_a_real_server_refuses_them_as_sent(tmp_path: Path) -> None:
    """Through uvicorn, which builds the path itself from the bytes on the wire (no
    client in between to normalise ``..`` or re-encode a byte)."""
    with ExitStack() as stack:
        url = stack.enter_context(store_url_for("sqlite", tmp_path))
        up = stack.enter_context(ServerProcess(url, log=tmp_path / "log"))
        connection = http.client.HTTPConnection("127.0.0.1", up.port, timeout=30)
        stack.callback(connection.close)

        def send(method: str, path: str, body: bytes, token: str) -> tuple[int, Any]:
            headers = {"Authorization": f"Bearer {token}", **JSON}
            connection.request(method, path, body=body, headers=headers)
            answer = connection.getresponse()
            return answer.status, json.loads(answer.read())

        status, made = send("POST", "/games", b'{"name": "g", "ruleset": "dnd5e-srd"}', ADMIN_TOKEN)
        assert status == 201
        where = f"/games/{made['id']}/characters/"
        for name in ("..", "%2e", "%FF"):
            status, refused = send("PUT", where + name, b"{}", made["token"])
            assert status == 422 and refused["status"] == 422, (name, refused)
        status, game = send("GET", f"/games/{made['id']}", b"", made["token"])
        assert (status, game["characters"]) == (200, [])


def test_db_new_game_refuses_a_name_no_url_reaches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "slash.json"
    file.write_text(json.dumps({**character_file("dnd5e-srd", "mira"), "name": "Ann/Bo"}))
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    args = ["db", "new-game", "--db", db, "--name", "g", "--ruleset", "dnd5e-srd"]
    assert cli(*args, "--character", str(file), code=1) == ""
    assert 'may not be "." or ".." nor hold "/"; "Ann/Bo" is refused.' in capsys.readouterr().err


# ── numbers longer than Python reads ─────────────────────────────────────────


@given(st.integers(4301, 6000), st.sampled_from(["", "-"]), st.integers(0, 3))
def test_a_number_past_4300_digits_is_told_in_dicebounds_words(
    digits: int, sign: str, lines_before: int
) -> None:
    text = "\n" * lines_before + '{"a": ' + sign + "7" * digits + "}"
    with pytest.raises(Unreadable) as refused:
        read_json(text)
    column = 7 + len(sign)
    assert str(refused.value) == (
        f"holds a number of more than {sys.get_int_max_str_digits():,} digits at line "
        f"{lines_before + 1}, column {column}, longer than dicebound reads."
    )


LONG = "1" * 5000


def test_a_number_past_4300_digits_anywhere(
    service: TestClient, store_url: str, tmp_path: Path
) -> None:
    """In a character file, a ruleset (uploaded, checked, or validated by the command
    line) and a JSON body: never Python's sentence about its interpreter."""
    game = make_game(service, "dnd5e-srd")
    before = store_rows(store_url)
    said = []
    said.append(
        problem_of(
            service.put(
                game.character(MIRA),
                content='{"live": {"pools": {"inspiration": ' + LONG + "}}}",
                headers={**game.headers, **JSON},
            ),
            422,
        )["detail"]
    )
    ruleset = '{"id": "x", "version": ' + LONG + "}"
    said.append(
        problem_of(
            service.post("/rulesets", content=ruleset, headers={**admin_headers(), **JSON}), 422
        )["problems"][0]["message"]
    )
    said.append(_check(service, ruleset).json()["problems"][0]["message"])
    said.append(
        problem_of(
            service.post(
                game.path("checks"),
                content='{"text": "x", "seed": ' + LONG + "}",
                headers={**game.headers, **JSON},
            ),
            400,
        )["detail"]
    )
    file = tmp_path / "long.json"
    file.write_text(ruleset)
    said.append(cli("validate", str(file), code=1))
    assert store_rows(store_url) == before
    for sentence in said:
        assert "more than 4,300 digits" in sentence and "sys." not in sentence, sentence


# ── a hint's cost is bounded per file ────────────────────────────────────────


@given(
    st.text("abAB_", min_size=1, max_size=6),
    st.lists(st.text("abAB_", min_size=1, max_size=6), max_size=6),
)
def test_did_you_mean_suggests_what_difflib_would(name: str, choices: list[str]) -> None:
    import difflib

    close = difflib.get_close_matches(name, choices, 1, 0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        close = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), 1, 0.6)]
    expected = f' Did you mean "{close[0]}"?' if close else ""
    assert did_you_mean(name, choices) == expected
    with hints_bounded():
        assert did_you_mean(name, choices) == expected


def test_a_files_hints_stop_once_their_work_is_spent_and_every_problem_is_still_found() -> None:
    known = ["ability", *(f"zq{i:05d}" for i in range(399))]
    with hints_bounded():
        hints = [did_you_mean(f"abiltiy{i}", known) for i in range(100)]
    assert hints[0] == hints[9] == ' Did you mean "ability"?'
    assert hints[-1] == ""  # spent: the problem is still found, only without a hint
    text = _unknown_keys(LIMIT)
    problems = _problems(text)
    unknown = [p for p in problems if p.code == "unknown-key"]
    assert len(unknown) == text.count('"zq')
