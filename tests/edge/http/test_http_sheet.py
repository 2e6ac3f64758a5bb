"""``[sheet:]`` commands through the service (docs/service.md "Sheet commands"), on SQLite
and PostgreSQL: resolved with the checks of one text in text order, in one transaction;
every command within the text's forty, applied or refused, a record of kind ``sheet``
among the checks' records, ids growing in text order; the live state written and its
revision raised; a wound marked before a check in that check's penalty; refusals that
change nothing; the 41st command on refused ``too-many`` and stored as nothing (a text
of 4,096 commands writes forty records); idempotent retries; a sheet record read,
carded, refused an answer and verified by replay (and not, once tampered with); and 50
clients spending one pool of 20 at once through two service processes on one
PostgreSQL database.

The ruleset is Marinara's Gravewatch (a wound track whose penalty rides on every check),
read from the shared folder and uploaded unchanged; its wardens are blank sheets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.character import load_character
from dicebound.compiler import load_ruleset_text
from dicebound.edge.http.problems import AsciiJSONResponse
from dicebound.edge.schemas import CheckOut
from dicebound.tagpass import resolve_text
from http_api_support import (
    Game,
    bearer,
    execute,
    live,
    problem_of,
    records,
    store_rows,
    stored_value,
    without_ids,
)
from server_support import (
    client,
    logs_on_failure,
    ok,
    pool_value,
    post_at_once,
    reserve_game,
    running,
)
from service_support import JSON, admin_headers, store_url_for
from shared_files import shared_path

ASH, BO = "Ash", "Bo"
WARD = '[skill_check: skill="Ward" difficulty="Plain work"]'
TEAR_TWO = '[sheet: op="damage" track="harm" kind="tear" amount="2"]'
SPEND_ONE = '[sheet: op="spend" pool="resolve" amount="1"]'
RESTORE_ONE = '[sheet: op="restore" pool="resolve" amount="1"]'


def _gravewatch_text() -> str:
    return shared_path("marinara", "gravewatch.json").read_text(encoding="utf-8")


def _gravewatch_game(service: TestClient, *names: str) -> Game:
    """Gravewatch uploaded as Marinara wrote it, a game of it, and blank wardens."""
    uploaded = service.post(
        "/rulesets", content=_gravewatch_text().encode(), headers={**admin_headers(), **JSON}
    )
    assert uploaded.status_code in (200, 201), uploaded.text
    made = service.post(
        "/games", json={"name": "Barrow", "ruleset": "gravewatch"}, headers=admin_headers()
    )
    assert made.status_code == 201, made.text
    game = made.json()
    for name in names:
        put = service.put(
            f"/games/{game['id']}/characters/{name}",
            json={"name": name},
            headers=bearer(game["token"]),
        )
        assert put.status_code == 201, put.text
    return Game(game["id"], game["token"], "gravewatch", game["version"], names)


def _resolve(service: TestClient, game: Game, text: str, **body: Any) -> dict[str, Any]:
    got = service.post(
        game.path("checks"), json={"text": text, "seed": "5", **body}, headers=game.headers
    )
    assert got.status_code == 200, got.text
    answer: dict[str, Any] = got.json()
    return answer


def _verify(service: TestClient, game: Game, record_id: int) -> dict[str, Any]:
    got = service.get(game.path("records", record_id, "verify"), headers=game.headers)
    assert got.status_code == 200, got.text
    verified: dict[str, Any] = got.json()
    return verified


def _library(text: str, *names: str) -> dict[str, Any]:
    """What the core itself says of ``text`` for blank wardens, seed 5."""
    ruleset = load_ruleset_text(_gravewatch_text())
    party = [load_character(ruleset, {"name": name}) for name in names]
    said: dict[str, Any] = resolve_text(ruleset, party, text, seed="5").to_json()
    return said


# ── one text, checks and sheet commands, in text order ───────────────────────


MIXED = [
    ("sheet", f"Ash is cut. {TEAR_TWO}"),
    ("check", f" She wards the gate. {WARD}"),
    ("sheet", ' Bo steadies her. [sheet: op="spend" pool="resolve" amount="1" who="Bo"]'),
    ("sheet", ' A spend from nothing. [sheet: op="spend" pool="lantern oil" amount="1"]'),
    ("check", ' Bo listens. [skill_check: skill="Ward" difficulty="Plain work" who="Bo"]'),
    ("sheet", ' The watch rests. [sheet: op="rest" rest="breather" who="party"]'),
]


def test_a_mixed_text_answers_as_the_library_and_records_each_tag_in_text_order(
    service: TestClient,
) -> None:
    game = _gravewatch_game(service, ASH, BO)
    text = "".join(piece for _, piece in MIXED)
    got = service.post(game.path("checks"), json={"text": text, "seed": "5"}, headers=game.headers)
    assert got.status_code == 200, got.text
    answer = got.json()
    assert without_ids(answer) == _library(text, ASH, BO)
    # byte for byte what the answer's model writes (the route builds it without pydantic)
    modelled = CheckOut.model_validate(answer).model_dump(mode="json", by_alias=True)
    assert got.content == AsciiJSONResponse(modelled).body

    # every tag a record, in text order: the ids of checks and commands interleave
    answered = sorted(
        [("check", r["id"]) for r in answer["results"]]
        + [("sheet", c["id"]) for c in answer["sheet"]],
        key=lambda kind_id: kind_id[1],
    )
    assert [kind for kind, _ in answered] == [kind for kind, _ in MIXED]
    stored = records(service, game)[::-1]
    assert [(r["kind"], r["id"]) for r in stored] == answered
    # numbered within the game in the same order, as the answer numbers them
    assert [r["number"] for r in stored] == list(range(1, len(MIXED) + 1))
    numbers = {e["id"]: e["number"] for e in (*answer["results"], *answer["sheet"])}
    assert numbers == {r["id"]: r["number"] for r in stored}

    by_id = {r["id"]: r for r in stored}
    first = by_id[answer["sheet"][0]["id"]]
    created = first.pop("created")
    assert created.endswith("Z")
    assert first == {
        "id": answer["sheet"][0]["id"],
        "number": [kind for kind, _ in MIXED].index("sheet") + 1,
        "kind": "sheet",
        "who": ASH,
        "tag": answer["sheet"][0]["tag"],
        "ask": TEAR_TWO,
        "ok": True,
        "now": "Harm 2/4 Winded",
        "reason": None,
        "changes": [
            {
                "who": ASH,
                "what": "wounds harm",
                "from": {"marks": [], "overflow": 0},
                "to": {"marks": ["tear", "tear"], "overflow": 0},
            }
        ],
        "ruleset": "gravewatch",
        "version": game.version,
    }
    refused = by_id[answer["sheet"][2]["id"]]
    assert (refused["ok"], refused["reason"], refused["changes"]) == (False, "unknown-pool", [])
    assert service.get(game.path("records", first["id"]), headers=game.headers).json() == {
        **first,
        "created": created,
    }
    for record in stored:
        assert _verify(service, game, record["id"]) == {"verified": True, "differences": []}

    # the live state as the text left it: the breather mends knocks, not tears; Bo paid
    ash, bo = live(service, game, ASH), live(service, game, BO)
    assert ash["live"] == {"wounds": {"harm": {"marks": ["tear", "tear"]}}}
    assert ash["revision"] == 2
    assert bo["live"] == {"pools": {"resolve": {"value": 3}}}
    assert bo["revision"] == 2


def test_a_wound_marked_before_a_check_is_in_its_penalty_and_one_after_is_not(
    service: TestClient,
) -> None:
    game = _gravewatch_game(service, ASH)
    before = _resolve(service, game, f"{TEAR_TWO} {WARD}")
    (hurt,) = before["results"]
    assert (hurt["attrs"]["penalty"], hurt["attrs"]["dice"]) == ("-1", "1d10")

    again = _gravewatch_game(service, ASH)
    after = _resolve(service, again, f"{WARD} {TEAR_TWO}")
    (whole,) = after["results"]
    assert "penalty" not in whole["attrs"] and whole["attrs"]["dice"] == "2d10"
    assert live(service, again, ASH)["live"] == {"wounds": {"harm": {"marks": ["tear", "tear"]}}}
    # the next text's check finds the wound the last one left
    (next_check,) = _resolve(service, again, WARD)["results"]
    assert next_check["attrs"]["penalty"] == "-1"


# ── refusals ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("tag", "reason"),
    [
        ('[sheet: op="spend" pool="resolve" amount="5"]', "insufficient"),
        ('[sheet: op="spend" pool="lantern oil" amount="1"]', "unknown-pool"),
        ('[sheet: op="spend" pool="resolve" amount="0"]', "bad-amount"),
        ('[sheet: op="spend" pool="resolve" amount="1" who="Nobody"]', "unknown-character"),
        ('[sheet: op="rest" rest="nap"]', "unknown-rest"),
        ('[sheet: op="damage" track="harm" kind="bite" amount="1"]', "unknown-kind"),
        ("[sheet: op=juggle]", "malformed"),
    ],
    ids=[
        "insufficient",
        "unknown-pool",
        "bad-amount",
        "unknown-character",
        "unknown-rest",
        "unknown-kind",
        "malformed",
    ],
)
def test_a_refused_command_is_a_record_and_changes_no_live_state(
    service: TestClient, store_url: str, tag: str, reason: str
) -> None:
    game = _gravewatch_game(service, ASH)
    _resolve(service, game, SPEND_ONE)  # Ash holds 3 of 4
    characters = store_rows(store_url)["characters"]
    answer = _resolve(service, game, f"Nothing happens. {tag}")
    (command,) = answer["sheet"]
    assert (command["ok"], command["now"], command["reason"]) == (False, None, reason)
    assert f'result="refused" reason="{reason}"' in command["tag"]
    assert store_rows(store_url)["characters"] == characters  # no live state, no revision
    record = service.get(game.path("records", command["id"]), headers=game.headers).json()
    assert (record["kind"], record["ask"], record["ok"], record["reason"], record["changes"]) == (
        "sheet",
        tag,
        False,
        reason,
        [],
    )
    assert _verify(service, game, command["id"])["verified"] is True


def test_a_check_that_does_not_resolve_leaves_the_commands_applied_and_recorded(
    service: TestClient,
) -> None:
    game = _gravewatch_game(service, ASH)
    answer = _resolve(service, game, f'[skill_check: skill="Flying"] {SPEND_ONE}')
    assert answer["results"] == [] and len(answer["errors"]) == 1
    (command,) = answer["sheet"]
    assert command["ok"] is True and command["now"] == "3/4"
    assert [r["kind"] for r in records(service, game)] == ["sheet"]
    assert live(service, game, ASH)["live"] == {"pools": {"resolve": {"value": 3}}}


def test_a_request_that_cannot_be_done_writes_no_command_either(
    service: TestClient, store_url: str
) -> None:
    game = _gravewatch_game(service, ASH)
    before = store_rows(store_url)
    body = {"text": f"{SPEND_ONE} {WARD}", "faces": [7, 7, 7]}  # one face too many
    problem_of(service.post(game.path("checks"), json=body, headers=game.headers), 422)
    assert store_rows(store_url) == before


def test_the_41st_command_is_refused_too_many_stored_as_nothing_and_not_a_check_tag(
    service: TestClient,
) -> None:
    game = _gravewatch_game(service, ASH)
    text = " ".join([SPEND_ONE] + [RESTORE_ONE] * 39 + [SPEND_ONE] + [WARD] * 20)
    answer = _resolve(service, game, text)
    assert len(answer["results"]) == 20  # twenty check tags: the limit, not past it
    commands = answer["sheet"]
    assert len(commands) == 41
    assert all(c["ok"] for c in commands[:40])
    assert (commands[40]["ok"], commands[40]["reason"]) == (False, "too-many")
    assert commands[40]["id"] is None  # answered and written back, never recorded
    assert commands[40]["tag"] in answer["text"] and 'reason="too-many"' in commands[40]["tag"]
    assert live(service, game, ASH)["live"] == {}  # spent one, restored it, the last refused
    kept = records(service, game)
    assert len(kept) == 60 and sum(r["kind"] == "sheet" for r in kept) == 40
    assert _verify(service, game, commands[39]["id"])["verified"] is True
    # a 21st check tag is still past the limit, however many commands stand beside it
    problem_of(
        service.post(game.path("checks"), json={"text": f"{text} {WARD}"}, headers=game.headers),
        413,
    )


def test_a_text_of_thousands_of_commands_stores_forty_records_and_their_events(
    service: TestClient, store_url: str
) -> None:
    game = _gravewatch_game(service, ASH)
    before = store_rows(store_url)
    flood = "[sheet:]" * (32 * 1024 // len("[sheet:]"))  # 4,096 commands in 32 KB
    commands = _resolve(service, game, flood)["sheet"]
    assert len(commands) == 4096
    assert all(c["reason"] == "malformed" for c in commands[:40])
    assert {c["reason"] for c in commands[40:]} == {"too-many"}
    ids = [c["id"] for c in commands]
    assert None not in ids[:40] and set(ids[40:]) == {None}
    after = store_rows(store_url)
    assert len(after["records"]) - len(before["records"]) == 40
    assert len(after["events"]) - len(before["events"]) == 40  # one per record; no state moved
    assert sorted(r[0] for r in after["records"]) == sorted(ids[:40])


def test_an_idempotent_retry_answers_the_same_and_pays_once(service: TestClient) -> None:
    game = _gravewatch_game(service, ASH)
    headers = {**game.headers, "Idempotency-Key": "turn-7"}
    body = {"text": f"{SPEND_ONE} {WARD} {SPEND_ONE}", "seed": "5"}
    first = service.post(game.path("checks"), json=body, headers=headers)
    again = service.post(game.path("checks"), json=body, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert [c["now"] for c in first.json()["sheet"]] == ["3/4", "2/4"]
    assert live(service, game, ASH)["live"] == {"pools": {"resolve": {"value": 2}}}
    assert len(records(service, game)) == 3


# ── a sheet record read, carded, answered, verified ──────────────────────────


def test_a_sheet_record_takes_no_answer_and_has_a_small_card(service: TestClient) -> None:
    game = _gravewatch_game(service, ASH)
    (command,) = _resolve(service, game, TEAR_TWO)["sheet"]
    refused = problem_of(
        service.post(
            game.path("records", command["id"], "after"),
            json={"choose": "fail"},
            headers=game.headers,
        ),
        422,
    )
    assert refused["detail"] == (
        f"record {command['id']} is a sheet command, not a check: it threw no dice, so there "
        "is nothing to answer after the roll."
    )
    card = service.get(game.path("records", command["id"], "card"), headers=game.headers).json()
    assert card == {
        "id": command["id"],
        "number": 1,
        "title": "Sheet command — Ash",
        "lines": [
            ["Command", TEAR_TWO],
            ["Result", "ok: Harm 2/4 Winded"],
            [
                "Changed",
                'Ash\'s wounds harm {"marks":[],"overflow":0} → '
                '{"marks":["tear","tear"],"overflow":0}',
            ],
        ],
        "dice": [],
        "seed": None,
        "offer": None,
        # a player's card (shape, plain lines, shown dice, modifier, band) is a check's
        "shape": None,
        "plain": None,
        "shown": None,
        "modifier": None,
        "band": None,
    }


def _tamper_result(result: dict[str, Any]) -> None:
    result["now"] = "4/4"


def _tamper_changes(result: dict[str, Any]) -> None:
    result["changes"] = []


def _tamper_ok(result: dict[str, Any]) -> None:
    result["ok"] = False


TAMPERED = [
    ("the outcome's now", "result", _tamper_result, ["now"]),
    ("the changes", "result", _tamper_changes, ["changes"]),
    ("applied or refused", "result", _tamper_ok, ["ok"]),
]


@pytest.mark.parametrize(
    ("column", "edit", "fields"), [t[1:] for t in TAMPERED], ids=[t[0] for t in TAMPERED]
)
def test_a_tampered_sheet_record_no_longer_verifies(
    service: TestClient, store_url: str, column: str, edit: Any, fields: list[str]
) -> None:
    game = _gravewatch_game(service, ASH)
    (command,) = _resolve(service, game, SPEND_ONE)["sheet"]
    assert _verify(service, game, command["id"]) == {"verified": True, "differences": []}
    kept = json.loads(
        stored_value(store_url, f"SELECT {column} FROM records WHERE id = :i", i=command["id"])
    )
    edit(kept)
    execute(
        store_url,
        f"UPDATE records SET {column} = :v WHERE id = :i",
        v=json.dumps(kept),
        i=command["id"],
    )
    verified = _verify(service, game, command["id"])
    assert verified["verified"] is False
    assert [d["field"] for d in verified["differences"]] == fields


SPENT = {"number": 1, "party": [{"name": ASH, "live": {"pools": {"resolve": {"value": 0}}}}]}
SPEND_TWO = '[sheet: op="spend" pool="resolve" amount="2"]'


REFUSED = ["tag", "ok", "now", "reason", "changes"]


@pytest.mark.parametrize(
    ("column", "value", "fields"),
    [
        ("sheet", SPENT, REFUSED),  # Ash had spent everything: the spend is refused now
        ("sheet", {"number": 41, "party": [{"name": ASH}]}, REFUSED),  # too many
        ("ask", SPEND_TWO, ["tag", "now", "changes"]),
        ("sheet", {"party": 7}, ["tag"]),  # a party that does not read: no replay at all
    ],
    ids=["the party as it stood", "its number in its text", "the ask", "a party unread"],
)
def test_a_sheet_record_replays_from_what_it_keeps(
    service: TestClient, store_url: str, column: str, value: object, fields: list[str]
) -> None:
    game = _gravewatch_game(service, ASH)
    (command,) = _resolve(service, game, SPEND_ONE)["sheet"]
    sql = f"UPDATE records SET {column} = :v WHERE id = :i"
    execute(store_url, sql, v=json.dumps(value), i=command["id"])
    verified = _verify(service, game, command["id"])
    assert verified["verified"] is False
    assert [d["field"] for d in verified["differences"]] == fields


# ── many clients at once, over two processes ─────────────────────────────────

CLIENTS = 50
POOL = 20
SPEND_TAG = SPEND_ONE


def _sheet_spends_at_once(bases: list[str]) -> None:
    """50 clients at once over ``bases``, each spending one point of Ann's 20 by command."""
    game, token = reserve_game(bases[0], resolve=POOL)
    bodies = [{"text": SPEND_TAG} for _ in range(CLIENTS)]
    answers = post_at_once(bases, token, f"/games/{game}/checks", bodies)
    commands = [a["sheet"][0] for a in answers]
    paid = [c for c in commands if c["ok"]]
    refused = [c for c in commands if not c["ok"]]
    assert len(paid) == POOL, f"{len(paid)} commands paid from a pool of {POOL}"
    assert sorted(c["now"] for c in paid) == sorted(f"{n}/{POOL}" for n in range(POOL))
    assert len(refused) == CLIENTS - POOL
    assert {c["reason"] for c in refused} == {"insufficient"}

    with client(bases[-1], token) as player:
        assert pool_value(player, game, "Ann", "resolve") == 0
        stored = ok(player.get(f"/games/{game}/records", params={"limit": 100}))["records"]
    assert sorted(r["id"] for r in stored) == sorted(c["id"] for c in commands)
    assert {r["kind"] for r in stored} == {"sheet"}
    changes = [r["changes"] for r in stored if r["ok"]]
    assert sorted(c[0]["from"] for c in changes) == list(range(1, POOL + 1))
    assert all(
        c == [{"who": "Ann", "what": "pool resolve", "from": c[0]["from"], "to": c[0]["from"] - 1}]
        for c in changes
    )


@pytest.mark.server
@logs_on_failure
def test_fifty_commands_spend_one_pool_of_twenty_on_sqlite(tmp_path: Path) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path) as [server]:
        _sheet_spends_at_once([server.base])


@pytest.mark.server
@logs_on_failure
def test_fifty_commands_two_processes_one_postgresql_pool_of_twenty(tmp_path: Path) -> None:
    with store_url_for("postgresql", tmp_path) as db, running(db, tmp_path, count=2) as servers:
        _sheet_spends_at_once([s.base for s in servers])


def test_the_party_view_counts_each_members_checks_and_sheet_commands(
    service: TestClient,
) -> None:
    game = _gravewatch_game(service, ASH, BO)
    _resolve(
        service,
        game,
        f'{WARD} {TEAR_TWO} [sheet: op="spend" pool="resolve" amount="1" who="{BO}"] '
        '[sheet: op="rest" rest="vigil" who="party"] [sheet: op="spend" pool="nope" amount="1"]',
    )
    party = service.get(f"/games/{game.id}/party", headers=bearer(game.token))
    assert party.status_code == 200, party.text
    counts = {m["name"]: m["records"] for m in party.json()["characters"]}
    # Ash rolled the check and took the tear and the refused spend; Bo spent; both rested
    assert counts == {ASH: {"checks": 1, "sheet": 3}, BO: {"checks": 0, "sheet": 2}}
