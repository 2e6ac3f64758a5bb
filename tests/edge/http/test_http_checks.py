"""The HTTP API's checks and records (docs/service.md), on SQLite and PostgreSQL: a check
answers as ``check --json`` and writes one record per result, whole or not at all;
limits; the history, newest first; replays; the step-pool's answer after the roll
(the rule's own example); idempotent retries."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.edge.http.problems import AsciiJSONResponse
from dicebound.edge.schemas import CheckOut
from dicebound.store import open_store
from dicebound.store.repo import Repo
from http_api_support import (
    AS_CLI,
    LOCKPICK,
    LUCIA_SPENDS,
    STEALTH,
    Game,
    character_file,
    cli_check,
    cli_json,
    execute,
    live,
    make_game,
    problem_of,
    records,
    store_rows,
    stored_value,
    without_ids,
)

PEET = "Sneeky Peet"
LUCIA = "Lucia Marchetti"


def _check(client: TestClient, game: Game, **body: Any) -> Any:
    return client.post(game.path("checks"), json=body, headers=game.headers)


def _ok(client: TestClient, game: Game, **body: Any) -> dict[str, Any]:
    got = _check(client, game, **body)
    assert got.status_code == 200, got.text
    answer: dict[str, Any] = got.json()
    return answer


# ── a check answers as the command line ──────────────────────────────────────


@pytest.mark.parametrize(
    ("ruleset", "characters", "text", "options"),
    [
        *(case[1:] for case in AS_CLI),
        ("wod-pool", ("lucia",), f"Lucía: {LUCIA_SPENDS}", {"seed": "42"}),
    ],
    ids=[*(case[0] for case in AS_CLI), "a spend, text beyond ASCII"],
)
def test_a_check_answers_as_check_json_and_writes_its_records(
    service: TestClient,
    ruleset: str,
    characters: tuple[str, ...],
    text: str,
    options: dict[str, Any],
) -> None:
    game = make_game(service, ruleset, *characters)
    expected = cli_check(ruleset, characters, text, options)
    got = _check(service, game, text=text, **options)
    assert got.status_code == 200, got.text
    answer = got.json()
    assert without_ids(answer) == expected
    # byte for byte what the answer's model writes (the route builds it without pydantic)
    modelled = CheckOut.model_validate(answer).model_dump(mode="json", by_alias=True)
    assert got.content == AsciiJSONResponse(modelled).body
    assert got.headers["content-type"] == "application/json"
    ids = [r["id"] for r in answer["results"]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    stored = records(service, game)
    assert [r["id"] for r in stored] == ids[::-1]
    for result, record in zip(answer["results"], stored[::-1], strict=True):
        assert {k: record[k] for k in result} == result
        assert record["seed"] == result["attrs"].get("seed")
    for result in answer["results"]:
        for change in result["changes"]:
            pools = live(service, game, change["who"])["live"]["pools"]
            assert pools[change["pool"]]["value"] == change["to"]


def test_a_record_keeps_the_rollers_sheet_as_put_and_live_state_as_it_stood(
    service: TestClient, store_url: str
) -> None:
    """The record's snapshot names the sheet as put by its digest (the sheet's text kept
    once in the game's ``sheet_texts``) beside the live state as it stood; read back,
    it is the whole character file."""
    game = make_game(service, "wod-pool", "lucia")
    before = live(service, game, LUCIA)
    (result,) = _ok(service, game, text=LUCIA_SPENDS, seed="42")["results"]
    assert result["changes"]  # the live state moved after the record's snapshot
    sheet_text = json.dumps(before["sheet"], separators=(",", ":"))
    digest = hashlib.sha256(sheet_text.encode()).hexdigest()
    kept = stored_value(store_url, "SELECT sheet FROM records WHERE id = :i", i=result["id"])
    assert kept == json.dumps(
        {"name": LUCIA, "sheet_digest": digest, "live": before["live"]}, separators=(",", ":")
    )
    body = "SELECT body FROM sheet_texts WHERE game_id = :g AND digest = :d"
    assert stored_value(store_url, body, g=game.id, d=digest) == sheet_text
    store = open_store(store_url)
    try:
        with store.read() as session:
            row = Repo(session).record(game.id, result["id"])
    finally:
        store.close()
    assert row is not None
    assert row.sheet == {"name": LUCIA, "sheet": before["sheet"], "live": before["live"]}


def test_each_tag_of_a_seeded_text_has_its_own_seed(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    answer = _ok(service, game, text=f"{STEALTH} {STEALTH} {STEALTH}", seed=42)
    assert [r["attrs"]["seed"] for r in answer["results"]] == ["42", "42-1", "42-2"]
    assert (
        _ok(service, game, text=f"{STEALTH} {STEALTH} {STEALTH}", seed="42")["text"]
        == answer["text"]
    )


def test_a_check_without_a_seed_writes_the_seed_that_replays_it(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    text = f"{STEALTH} then {STEALTH}"
    first = _ok(service, game, text=text)
    seed = first["results"][0]["attrs"]["seed"]
    assert first["results"][1]["attrs"]["seed"] == f"{seed}-1"
    assert _ok(service, game, text=text, seed=seed)["text"] == first["text"]
    for result in first["results"]:
        verified = service.get(game.path("records", result["id"], "verify"), headers=game.headers)
        assert verified.json() == {"verified": True, "differences": []}


# ── limits and refusals of a check ───────────────────────────────────────────


def test_a_text_of_32_kb_is_taken_and_one_byte_more_is_413(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    limit = 32 * 1024
    text = STEALTH + "é" * ((limit - len(STEALTH)) // 2)
    assert len(text.encode("utf-8")) == limit
    assert len(_ok(service, game, text=text, seed=1)["results"]) == 1
    before = store_rows(store_url)
    over = problem_of(_check(service, game, text=text + "!", seed=1), 413)
    assert over["detail"] == (
        "the text is 32,769 bytes; a check's text may be at most 32,768 bytes (32 KB)."
    )
    odds = service.post(game.path("odds"), json={"tag": text + "!"}, headers=game.headers)
    problem_of(odds, 413)
    assert store_rows(store_url) == before


def test_twenty_tags_are_taken_and_twenty_one_are_413(service: TestClient, store_url: str) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    assert len(_ok(service, game, text=" ".join([STEALTH] * 20), seed=1)["results"]) == 20
    before = store_rows(store_url)
    body = problem_of(_check(service, game, text=" ".join([STEALTH] * 21), seed=1), 413)
    assert body["detail"] == "the text holds 21 check tags; one text may hold at most 20."
    assert store_rows(store_url) == before


@pytest.mark.parametrize(
    ("ruleset", "short", "text", "options", "detail"),
    [
        (
            "dnd5e-srd",
            "mira",
            STEALTH,
            {"seed": "1", "faces": [12]},
            "give a seed or faces, not both.",
        ),
        (
            "advanced-resolution",
            "peet",
            LOCKPICK,
            {"faces": [5, 1, 6, 1]},
            "1 forced face(s) were left over: the checks threw 3.",
        ),
        (
            "wod-pool",
            "lucia",
            f"{LUCIA_SPENDS} and again {LUCIA_SPENDS}",
            {"faces": [6] * 8},
            "the forced faces do not fit the checks (the forced faces ran out: the check needed a die number 9 (a d10) but only 8 face(s) were given); nothing was written.",
        ),
        ("dnd5e-srd", "mira", f"{STEALTH} {STEALTH}", {"faces": [12]}, None),
        ("dnd5e-srd", "mira", STEALTH, {"faces": [21]}, None),
        (
            "dnd5e-srd",
            "mira",
            STEALTH,
            {"seed": "two words"},
            "body.seed: a seed is 1 to 200 printable ASCII characters without spaces, or a whole number.",
        ),
    ],
    ids=[
        "a seed and faces together",
        "faces left over",
        "faces run out in the second tag, after the first paid",
        "faces run out at the second tag's first die",
        "a face the die lacks",
        "a seed with a space",
    ],
)
def test_a_refused_check_writes_nothing(
    service: TestClient,
    store_url: str,
    ruleset: str,
    short: str,
    text: str,
    options: dict[str, Any],
    detail: str | None,
) -> None:
    game = make_game(service, ruleset, short)
    before = store_rows(store_url)
    body = problem_of(_check(service, game, text=text, **options), 422)
    if detail is not None:
        assert body["detail"] == detail
    assert store_rows(store_url) == before
    assert records(service, game) == []
    assert live(service, game, game.characters[0])["revision"] == 1


def test_a_check_with_a_spend_pays_and_records_in_one_go(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "wod-pool", "lucia")
    answer = _ok(service, game, text=LUCIA_SPENDS, seed="42")
    (result,) = answer["results"]
    assert result["changes"] == [{"who": LUCIA, "pool": "willpower_points", "from": 4, "to": 3}]
    lucia = live(service, game, LUCIA)
    assert (lucia["revision"], lucia["live"]["pools"]["willpower_points"]) == (2, {"value": 3})
    (record,) = records(service, game)
    assert (record["id"], record["changes"]) == (result["id"], result["changes"])
    # the next check sees what the first paid
    again = _ok(service, game, text=LUCIA_SPENDS, seed="43")
    assert again["results"][0]["changes"][0]["from"] == 3


def test_a_spend_the_pool_cannot_pay_is_left_out_and_nothing_is_paid(
    service: TestClient, store_url: str, tmp_path: Path
) -> None:
    game = make_game(service, "wod-pool", "lucia")
    patched = service.patch(
        game.character(LUCIA) + "/live",
        json={"pools": {"willpower_points": 0}},
        headers={**game.headers, "If-Match": '"1"'},
    )
    assert patched.status_code == 200
    before = store_rows(store_url)
    answer = _ok(service, game, text=LUCIA_SPENDS, seed="42")
    file = character_file("wod-pool", "lucia")
    file["live"]["pools"]["willpower_points"]["value"] = 0
    path = tmp_path / "lucia.json"
    path.write_text(json.dumps(file), encoding="utf-8")
    expected = cli_json(
        "check",
        "--ruleset",
        "wod-pool",
        "--character",
        str(path),
        "--seed",
        "42",
        "--json",
        LUCIA_SPENDS,
    )
    assert without_ids(answer) == expected
    (result,) = answer["results"]
    assert "spend" not in result["attrs"] and result["changes"] == []
    after = store_rows(store_url)
    assert after["characters"] == before["characters"]
    assert len(after["records"]) == len(before["records"]) + 1


# ── the history ──────────────────────────────────────────────────────────────


def test_records_page_newest_first(service: TestClient) -> None:
    other = make_game(service, "dnd5e-srd", "mira")
    _ok(service, other, text=STEALTH, seed=1)
    game = make_game(service, "dnd5e-srd", "mira")
    ids = [r["id"] for r in _ok(service, game, text=" ".join([STEALTH] * 5), seed=7)["results"]]
    _ok(service, other, text=STEALTH, seed=2)

    def page(**params: int) -> tuple[list[int], int | None]:
        got = service.get(game.path("records"), params=params, headers=game.headers)
        assert got.status_code == 200
        return [r["id"] for r in got.json()["records"]], got.json()["next"]

    assert page() == (ids[::-1], None)
    assert page(limit=2) == ([ids[4], ids[3]], ids[3])
    assert page(limit=2, before=ids[3]) == ([ids[2], ids[1]], ids[1])
    assert page(limit=2, before=ids[1]) == ([ids[0]], None)
    assert page(limit=5) == (ids[::-1], None)
    assert page(limit=4) == (ids[:0:-1], ids[1])
    assert page(before=ids[0]) == ([], None)
    assert page(limit=100) == (ids[::-1], None)
    for limit in (0, 101):
        problem_of(
            service.get(game.path("records"), params={"limit": limit}, headers=game.headers), 422
        )


def test_a_record_reads_back_whole(service: TestClient) -> None:
    game = make_game(service, "dnd5e-srd", "mira", "bram")
    (result,) = _ok(service, game, text=STEALTH, seed="42")["results"]
    got = service.get(game.path("records", result["id"]), headers=game.headers)
    assert got.status_code == 200
    record = got.json()
    created = record.pop("created")
    assert created.endswith("Z") and created[:4].isdigit() and "T" in created
    assert record == {
        **result,
        "kind": "check",
        "offer": None,
        "seed": "42",
        "ruleset": "dnd5e-srd",
        "version": 2,
        "answered": None,
    }
    assert problem_of(
        service.get(game.path("records", result["id"] + 1000), headers=game.headers), 404
    )["detail"] == (f"no record {result['id'] + 1000} is in this game.")


def test_verify_says_a_tampered_record_no_longer_replays(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    (result,) = _ok(service, game, text=STEALTH, seed="42")["results"]
    verify = game.path("records", result["id"], "verify")
    assert service.get(verify, headers=game.headers).json() == {"verified": True, "differences": []}
    forged = {
        **{k: v for k, v in result.items() if k != "id"},
        "outcome": "Failure",
        "success": False,
    }
    execute(
        store_url,
        "UPDATE records SET result = :r WHERE id = :i",
        r=json.dumps(forged),
        i=result["id"],
    )
    got = service.get(verify, headers=game.headers).json()
    assert got["verified"] is False
    assert sorted(got["differences"], key=lambda d: d["field"]) == [
        {"field": "outcome", "stored": "Failure", "replayed": "Success"},
        {"field": "success", "stored": False, "replayed": True},
    ]


# ── after the roll: the rule's own example ───────────────────────────────────


def test_the_rules_example_through_the_api(service: TestClient, store_url: str) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    (result,) = _ok(service, game, text=LOCKPICK, faces=[5, 1, 6])["results"]
    assert (result["outcome"], result["success"], result["choice"]) == ("Success", True, None)
    assert result["attrs"]["offer"] == "Triumph: 5 from body, mind or luck"
    record_path = game.path("records", result["id"])
    record = service.get(record_path, headers=game.headers).json()
    assert record["offer"] == "Triumph: 5 from body, mind or luck"
    assert record["answered"] is None

    before = store_rows(store_url)
    short = service.post(
        record_path + "/after", json={"pool": "luck", "points": 4}, headers=game.headers
    )
    assert problem_of(short, 422)["detail"] == (
        "luck:4 buys nothing: the cheapest raise that adds EFFORT costs 5 Luck, so nothing was paid."
    )
    assert store_rows(store_url) == before
    assert live(service, game, PEET)["live"] == {}  # Luck still at its 6
    assert service.get(record_path, headers=game.headers).json() == record

    paid = service.post(
        record_path + "/after", json={"pool": "luck", "points": 5}, headers=game.headers
    )
    assert paid.status_code == 200
    body = paid.json()
    expected = cli_json(
        "check",
        "--ruleset",
        "advanced-resolution",
        "--character",
        "peet",
        "--faces",
        "5,1,6",
        "--after",
        "luck:5",
        "--json",
        LOCKPICK,
    )["results"][0]
    luck = [{"who": PEET, "pool": "luck", "from": 6, "to": 1}]
    assert {k: body[k] for k in expected} == expected
    assert (body["outcome"], body["success"], body["critical"]) == ("Triumph", True, "success")
    assert body["attrs"]["after"] == "luck:5@2" and "offer" not in body["attrs"]
    assert (body["paid"], body["changes"], body["offer"]) == (luck, luck, None)
    assert body["answered"] == {"pool": "luck", "points": 5}
    assert (body["id"], body["created"], body["seed"]) == (record["id"], record["created"], None)
    peet = live(service, game, PEET)
    assert (peet["live"], peet["revision"]) == ({"pools": {"luck": {"value": 1}}}, 2)
    stored = service.get(record_path, headers=game.headers).json()
    assert stored == {k: v for k, v in body.items() if k != "paid"}

    settled = store_rows(store_url)
    again = service.post(
        record_path + "/after", json={"pool": "luck", "points": 5}, headers=game.headers
    )
    assert problem_of(again, 409)["detail"] == (
        f"record {record['id']} was already answered; an answer is accepted once."
    )
    assert problem_of(
        service.post(record_path + "/after", json={"choose": "succeed"}, headers=game.headers), 409
    )
    assert store_rows(store_url) == settled
    verified = service.get(record_path + "/verify", headers=game.headers)
    assert verified.json() == {"verified": True, "differences": []}


def test_a_sacrifice_is_chosen_once(service: TestClient, store_url: str) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    text = '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon"]'
    (result,) = _ok(service, game, text=text, faces=[1, 1, 6])["results"]
    assert (result["outcome"], result["success"], result["choice"]) == ("Sacrifice", False, "open")
    record_path = game.path("records", result["id"])
    chosen = service.post(record_path + "/after", json={"choose": "succeed"}, headers=game.headers)
    assert chosen.status_code == 200
    body = chosen.json()
    expected = cli_json(
        "check",
        "--ruleset",
        "advanced-resolution",
        "--character",
        "peet",
        "--faces",
        "1,1,6",
        "--choose",
        "succeed",
        "--json",
        text,
    )["results"][0]
    assert {k: body[k] for k in expected} == expected
    assert (body["outcome"], body["success"], body["choice"]) == ("Sacrifice", True, "succeed")
    assert (body["paid"], body["changes"], body["answered"]) == ([], [], {"choose": "succeed"})
    assert live(service, game, PEET)["revision"] == 1  # nothing paid, nothing changed
    settled = store_rows(store_url)
    again = service.post(record_path + "/after", json={"choose": "fail"}, headers=game.headers)
    problem_of(again, 409)
    assert store_rows(store_url) == settled
    assert service.get(record_path, headers=game.headers).json()["choice"] == "succeed"
    assert service.get(record_path + "/verify", headers=game.headers).json()["verified"] is True


def test_a_choice_made_with_the_check_cannot_be_made_again(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    text = '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon"]'
    (result,) = _ok(service, game, text=text, faces=[1, 1, 6], choose="fail")["results"]
    assert (result["success"], result["choice"]) == (False, "fail")
    before = store_rows(store_url)
    record_path = game.path("records", result["id"])
    flipped = service.post(record_path + "/after", json={"choose": "succeed"}, headers=game.headers)
    assert problem_of(flipped, 409)["detail"] == (
        f'record {result["id"]}\'s choice was made when it was thrown ("fail"); a choice is made once.'
    )
    assert store_rows(store_url) == before
    assert service.get(record_path + "/verify", headers=game.headers).json()["verified"] is True


_REFUSED_ANSWERS: dict[str, tuple[dict[str, Any], str | None]] = {
    "an unknown pool": (
        {"pool": "mana", "points": 5},
        '"mana" is not a pool of Advanced Resolution.',
    ),
    "a pool without points": ({"pool": "luck"}, None),
    "a spend and a choice": ({"pool": "luck", "points": 5, "choose": "fail"}, None),
    "nothing": ({}, None),
    "no points": ({"pool": "luck", "points": 0}, None),
    "a choice where none is open": (
        {"choose": "succeed"},
        "this check has no open choice to settle.",
    ),
}


def test_an_answer_refused_pays_nothing(service: TestClient, store_url: str) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    (result,) = _ok(service, game, text=LOCKPICK, faces=[5, 1, 6])["results"]
    after = game.path("records", result["id"], "after")
    before = store_rows(store_url)
    for name, (answer, detail) in _REFUSED_ANSWERS.items():
        body = problem_of(service.post(after, json=answer, headers=game.headers), 422)
        if detail is not None:
            assert body["detail"] == detail, name
        assert store_rows(store_url) == before, name
    # an answer that fits is still taken: the refusals left the offer open
    assert (
        service.post(after, json={"pool": "luck", "points": 5}, headers=game.headers).status_code
        == 200
    )


def test_a_kind_without_spending_after_the_roll_takes_no_answer(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "dnd5e-srd", "mira")
    (result,) = _ok(service, game, text=STEALTH, faces=[12])["results"]
    before = store_rows(store_url)
    after = game.path("records", result["id"], "after")
    spend = service.post(after, json={"pool": "inspiration", "points": 1}, headers=game.headers)
    assert problem_of(spend, 422)["detail"] == "dice-sum checks offer no spending after the roll."
    choose = service.post(after, json={"choose": "fail"}, headers=game.headers)
    assert problem_of(choose, 422)["detail"] == "this check has no open choice to settle."
    assert store_rows(store_url) == before


def test_an_answer_to_a_record_that_is_not_there_is_404(service: TestClient) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    got = service.post(
        game.path("records", 999_999, "after"), json={"choose": "fail"}, headers=game.headers
    )
    assert problem_of(got, 404)["detail"] == "no record 999999 is in this game."


# ── idempotent retries ───────────────────────────────────────────────────────


def test_a_retry_with_the_same_key_answers_the_same_and_pays_once(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "wod-pool", "lucia")
    key = {"Idempotency-Key": "retry-7f3a"}
    first = service.post(
        game.path("checks"), json={"text": LUCIA_SPENDS}, headers={**game.headers, **key}
    )
    assert first.status_code == 200
    after_first = store_rows(store_url)
    second = service.post(
        game.path("checks"), json={"text": LUCIA_SPENDS}, headers={**game.headers, **key}
    )
    assert second.status_code == 200
    assert second.content == first.content
    assert store_rows(store_url) == after_first
    (record,) = records(service, game)
    assert record["id"] == first.json()["results"][0]["id"]
    lucia = live(service, game, LUCIA)
    assert (lucia["revision"], lucia["live"]["pools"]["willpower_points"]) == (2, {"value": 3})

    other_body = service.post(
        game.path("checks"),
        json={"text": LUCIA_SPENDS, "seed": "1"},
        headers={**game.headers, **key},
    )
    assert problem_of(other_body, 422)["detail"] == (
        'the Idempotency-Key "retry-7f3a" was used for another request; a retry must send the same body.'
    )
    assert store_rows(store_url) == after_first
    # a new key is a new check
    third = service.post(
        game.path("checks"),
        json={"text": LUCIA_SPENDS},
        headers={**game.headers, "Idempotency-Key": "retry-8"},
    )
    assert third.json()["results"][0]["changes"][0] == {
        "who": LUCIA,
        "pool": "willpower_points",
        "from": 3,
        "to": 2,
    }


def test_a_key_belongs_to_its_game(service: TestClient) -> None:
    one = make_game(service, "wod-pool", "lucia")
    two = make_game(service, "wod-pool", "lucia")
    key = {"Idempotency-Key": "shared-key"}
    a = service.post(
        one.path("checks"), json={"text": LUCIA_SPENDS, "seed": "5"}, headers={**one.headers, **key}
    )
    b = service.post(
        two.path("checks"), json={"text": LUCIA_SPENDS, "seed": "5"}, headers={**two.headers, **key}
    )
    assert a.status_code == b.status_code == 200
    assert a.json()["results"][0]["id"] != b.json()["results"][0]["id"]
    assert without_ids(a.json()) == without_ids(b.json())
    assert len(records(service, one)) == len(records(service, two)) == 1


def test_a_key_with_a_control_character_is_refused_and_writes_nothing(
    service: TestClient, store_url: str
) -> None:
    """A key is kept as sent, so one the store cannot keep (the MCP tool's argument may
    hold a NUL; a header, a tab) is refused in a sentence on both stores, before anything
    is thrown."""
    game = make_game(service, "wod-pool", "lucia")
    before = store_rows(store_url)
    refused = service.post(
        game.path("checks"),
        json={"text": LUCIA_SPENDS},
        headers={**game.headers, "Idempotency-Key": "tab\tkey"},
    )
    assert problem_of(refused, 422)["detail"] == (
        "an idempotency key is 1 to 200 printable characters (no NUL or other control "
        "character); nothing was thrown or paid."
    )
    assert store_rows(store_url) == before
