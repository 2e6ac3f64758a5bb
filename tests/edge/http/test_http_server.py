"""The service as it runs: real ``dicebound serve`` processes on loopback ports, real
SQLite files and real PostgreSQL databases, spoken to over real HTTP (httpx).

- End to end: a ruleset uploaded, a game made, characters put, seeded checks thrown
  and read back, verified, odds, the Game Master's text, a roll, and a step-pool offer
  answered through ``/after``, each answer compared with what the library itself says.
- Concurrency: 50 clients spend one point each from a pool of 20 at the same moment
  (one process on SQLite; two processes sharing one PostgreSQL database): exactly 20
  pay, each point once, and the pool ends at 0.
- Durability: a server killed with SIGKILL while checks are in flight; a new server on
  the same store has a record for every check answered 200, and no point paid without
  its record; retries with the same ``Idempotency-Key`` answer once.
- Fuzzing: schemathesis against the live ``/openapi.json``: no 500 on any request.

Each server's log is under the test's ``tmp_path`` and printed when the test fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest

from dicebound.character import load_character
from dicebound.compiler import load_ruleset_text
from dicebound.odds import check_odds
from dicebound.tagpass import resolve_text
from dicebound.throw import roll_json
from repo_paths import REPO
from server_support import (
    RESERVE_FILE,
    all_records,
    client,
    logs_on_failure,
    ok,
    pool_value,
    post_at_once,
    reserve_character,
    reserve_game,
    running,
)
from service_support import ADMIN_TOKEN, JSON, admin_headers, store_url_for

pytestmark = pytest.mark.server

ROOT = REPO
DATA = ROOT / "src" / "dicebound" / "data"
PEET_FILE = DATA / "characters" / "advanced-resolution" / "peet.json"
BACKENDS = ["sqlite", "postgresql"]

SPEND_TAG = '[skill_check: skill="Push" difficulty="Steady" spend="resolve:1"]'
LOCKPICK_TAG = (
    '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
)


def without_id(result: dict[str, Any]) -> dict[str, Any]:
    """A result as the library gives it: no record id or per-game number (the store's)."""
    return {k: v for k, v in result.items() if k not in ("id", "number")}


# ── a. end to end ────────────────────────────────────────────────────────────


@pytest.mark.parametrize("backend", BACKENDS)
@logs_on_failure
def test_end_to_end_over_http(backend: str, tmp_path: Path) -> None:
    reserve_text = RESERVE_FILE.read_text(encoding="utf-8")
    reserve = load_ruleset_text(reserve_text)
    ann_file = reserve_character("Ann", 20)
    bo_file = reserve_character("Bo", 5)
    with ExitStack() as stack:
        db = stack.enter_context(store_url_for(backend, tmp_path))
        [server] = stack.enter_context(running(db, tmp_path))
        admin = stack.enter_context(
            httpx.Client(base_url=server.base, headers=admin_headers(), timeout=30)
        )
        health = ok(admin.get("/health"))
        assert health["ok"] is True and health["store"] == backend

        # the ruleset: 201 once, 200 for the same file again, listed, read back whole
        assert ok(admin.post("/rulesets", content=reserve_text.encode(), headers=JSON), 201) == {
            "id": "reserve-test",
            "version": 1,
        }
        ok(admin.post("/rulesets", content=reserve_text.encode(), headers=JSON), 200)
        listed = ok(httpx.get(server.base + "/rulesets"))
        assert {
            "id": "reserve-test",
            "version": 1,
            "name": "Reserve test",
            "kind": "dice-pool",
            "packaged": False,
        } in listed
        assert httpx.get(server.base + "/rulesets/reserve-test").json() == json.loads(reserve_text)

        # a game, its token, two characters
        made = ok(
            admin.post("/games", json={"name": "The Long Night", "ruleset": "reserve-test"}), 201
        )
        game, token = made["id"], made["token"]
        assert made["version"] == 1 and made["token"].startswith("dbg_")
        player = stack.enter_context(client(server.base, token))
        assert ok(player.put(f"/games/{game}/characters/Ann", json=ann_file), 201)["revision"] == 1
        ok(player.put(f"/games/{game}/characters/Bo", json=bo_file), 201)
        assert ok(player.get(f"/games/{game}"))["characters"] == ["Ann", "Bo"]

        # seeded checks: the same results as the library gives, each with a record id
        text = f'Ann pushes. {SPEND_TAG} Bo follows. [skill_check: skill="Push" dc="2" who="Bo"]'
        answer = ok(player.post(f"/games/{game}/checks", json={"text": text, "seed": "e2e"}))
        party = [load_character(reserve, ann_file), load_character(reserve, bo_file)]
        local = resolve_text(reserve, party, text, seed="e2e")
        assert answer["text"] == local.text
        assert [without_id(r) for r in answer["results"]] == [r.to_json() for r in local.results]
        assert answer["errors"] == []
        ids = [r["id"] for r in answer["results"]]
        assert answer["results"][0]["changes"] == [
            {"who": "Ann", "pool": "resolve", "from": 20, "to": 19}
        ]
        assert pool_value(player, game, "Ann", "resolve") == 19

        # the same request with the same Idempotency-Key: the same answer, nothing paid
        key = {"Idempotency-Key": "e2e-once"}
        first = ok(
            player.post(f"/games/{game}/checks", json={"text": SPEND_TAG, "seed": "k"}, headers=key)
        )
        again = ok(
            player.post(f"/games/{game}/checks", json={"text": SPEND_TAG, "seed": "k"}, headers=key)
        )
        assert again == first
        assert pool_value(player, game, "Ann", "resolve") == 18
        refused = player.post(
            f"/games/{game}/checks", json={"text": SPEND_TAG, "seed": "other"}, headers=key
        )
        assert refused.status_code == 422
        ids.append(first["results"][0]["id"])

        # records: newest first, each readable by id, each verified from its seed
        records = all_records(player, game)
        assert [r["id"] for r in records] == sorted(ids, reverse=True)
        for result in [*answer["results"], *first["results"]]:
            record = ok(player.get(f"/games/{game}/records/{result['id']}"))
            assert record["tag"] == result["tag"] and record["changes"] == result["changes"]
            assert record["ruleset"] == "reserve-test" and record["version"] == 1
            assert ok(player.get(f"/games/{game}/records/{result['id']}/verify")) == {
                "verified": True,
                "differences": [],
            }

        # odds: the library's exact fractions, summing to one
        tag = '[skill_check: skill="Push" dc="2"]'
        odds = ok(player.post(f"/games/{game}/odds", json={"tag": tag, "who": "Bo"}))
        assert odds == check_odds(reserve, party[1], tag).to_json()
        assert sum(Fraction(o["probability"]) for o in odds["outcomes"]) == 1

        # the Game Master's text, with a character's chances
        gm = ok(player.get(f"/games/{game}/gm", params={"character": "Ann"}))
        assert "Push" in gm["text"] and "skill_check" in gm["text"]

        # a roll by name on a packaged symbol pool, needing no token
        genesys = load_ruleset_text(
            (DATA / "rulesets" / "genesys.json").read_text(encoding="utf-8")
        )
        dice = "2 ability 1 proficiency vs 2 difficulty"
        rolled = ok(
            httpx.post(
                server.base + "/roll", json={"ruleset": "genesys", "dice": dice, "seed": "42"}
            )
        )
        assert rolled == roll_json(genesys, dice, seed="42")

        # a game's token sees nothing outside its game
        other = ok(admin.post("/games", json={"name": "Elsewhere", "ruleset": "reserve-test"}), 201)
        assert player.get(f"/games/{other['id']}").status_code == 404
        assert (
            player.post("/games", json={"name": "x", "ruleset": "reserve-test"}).status_code == 403
        )

        # a step-pool offer, answered once through /after
        step = ok(
            admin.post("/games", json={"name": "Heist", "ruleset": "advanced-resolution"}), 201
        )
        thief = stack.enter_context(client(server.base, step["token"]))
        peet = json.loads(PEET_FILE.read_text(encoding="utf-8"))
        name = peet["name"]
        ok(thief.put(f"/games/{step['id']}/characters/{name}", json=peet), 201)
        assert ok(thief.get(f"/games/{step['id']}/characters/{name}"))["live"] == {}
        assert pool_value(thief, step["id"], name, "luck", full=6) == 6
        thrown = ok(
            thief.post(
                f"/games/{step['id']}/checks", json={"text": LOCKPICK_TAG, "faces": [5, 1, 6]}
            )
        )
        (result,) = thrown["results"]
        assert result["outcome"] == "Success" and result["changes"] == []
        assert result["attrs"]["offer"] == "Triumph: 5 from body, mind or luck"
        record_url = f"/games/{step['id']}/records/{result['id']}"
        record = ok(thief.get(record_url))
        assert (
            record["offer"] == "Triumph: 5 from body, mind or luck" and record["answered"] is None
        )

        short = thief.post(record_url + "/after", json={"pool": "luck", "points": 4})
        assert short.status_code == 422, short.text
        assert short.headers["content-type"].startswith("application/problem+json")
        assert pool_value(thief, step["id"], name, "luck", full=6) == 6
        assert ok(thief.get(record_url))["answered"] is None

        paid = ok(thief.post(record_url + "/after", json={"pool": "luck", "points": 5}))
        assert paid["outcome"] == "Triumph" and paid["success"] is True
        assert paid["critical"] == "success"
        assert paid["paid"] == [{"who": name, "pool": "luck", "from": 6, "to": 1}]
        assert paid["changes"] == paid["paid"]
        assert paid["answered"] == {"pool": "luck", "points": 5}
        assert pool_value(thief, step["id"], name, "luck") == 1
        assert ok(thief.get(record_url))["outcome"] == "Triumph"
        assert ok(thief.get(record_url + "/verify"))["verified"] is True

        twice = thief.post(record_url + "/after", json={"pool": "luck", "points": 5})
        assert twice.status_code == 409, twice.text
        assert pool_value(thief, step["id"], name, "luck") == 1


# ── b. concurrency ───────────────────────────────────────────────────────────

CLIENTS = 50
POOL = 20


def _spend_at_once(bases: Sequence[str]) -> None:
    """50 clients at once, spread over ``bases``, each spending one point of 20."""
    game, token = reserve_game(bases[0], resolve=POOL)
    bodies = [{"text": SPEND_TAG, "seed": f"c{i}"} for i in range(CLIENTS)]
    answers = post_at_once(bases, token, f"/games/{game}/checks", bodies)

    results = [a["results"][0] for a in answers]
    assert all(a["errors"] == [] for a in answers)
    paid = [r for r in results if r["changes"]]
    unpaid = [r for r in results if not r["changes"]]
    assert len(paid) == POOL, f"{len(paid)} checks paid from a pool of {POOL}"
    # every point paid once: the twenty payments took the pool from 20 to 0 in steps
    assert sorted(r["changes"][0]["from"] for r in paid) == list(range(1, POOL + 1))
    for r in paid:
        (change,) = r["changes"]
        assert change == {
            "who": "Ann",
            "pool": "resolve",
            "from": change["from"],
            "to": change["from"] - 1,
        }
    assert all(r["attrs"].get("spend") == "resolve:1" for r in paid)
    # the other thirty threw without the spend: no point, no success bought
    assert len(unpaid) == CLIENTS - POOL
    assert all("spend" not in r["attrs"] and "auto" not in r["attrs"] for r in unpaid)

    with client(bases[-1], token) as player:
        assert pool_value(player, game, "Ann", "resolve") == 0
        records = all_records(player, game)
    assert sorted(r["id"] for r in records) == sorted(r["id"] for r in results)
    assert sum(1 for r in records if r["changes"]) == POOL
    by_id = {r["id"]: r for r in records}
    assert all(by_id[r["id"]]["changes"] == r["changes"] for r in results)


@logs_on_failure
def test_fifty_clients_spend_one_pool_of_twenty_on_sqlite(tmp_path: Path) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path) as [server]:
        _spend_at_once([server.base])


@logs_on_failure
def test_fifty_clients_two_processes_one_postgresql_pool_of_twenty(tmp_path: Path) -> None:
    with store_url_for("postgresql", tmp_path) as db, running(db, tmp_path, count=2) as servers:
        _spend_at_once([s.base for s in servers])


# ── c. durability ────────────────────────────────────────────────────────────

DEEP = 5000  # more points than the run can spend, so every check pays one
WRITERS = 6
ANSWERED_BEFORE_KILL = 40


class _Ledger:
    """What each writer sent and what came back, shared by the writer threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered: dict[str, dict[str, Any]] = {}  # key -> the 200 answer
        self.unanswered: dict[str, dict[str, Any]] = {}  # key -> body sent, no answer
        self.refused: list[str] = []

    def count(self) -> int:
        with self.lock:
            return len(self.answered)


def _writer(
    base: str, token: str, game: str, n: int, ledger: _Ledger, stop: threading.Event
) -> None:
    with client(base, token, timeout=20) as player:
        i = 0
        while not stop.is_set():
            key = f"w{n}-{i}"
            body = {"text": SPEND_TAG, "seed": key}
            i += 1
            try:
                response = player.post(
                    f"/games/{game}/checks", json=body, headers={"Idempotency-Key": key}
                )
            except httpx.TransportError:
                with ledger.lock:
                    ledger.unanswered[key] = body
                return  # the server is gone
            with ledger.lock:
                if response.status_code == 200:
                    ledger.answered[key] = response.json()
                else:
                    ledger.refused.append(f"{key}: {response.status_code} {response.text}")


@pytest.mark.parametrize("backend", BACKENDS)
@logs_on_failure
def test_sigkill_mid_write_loses_no_answered_check_and_pays_nothing_unrecorded(
    backend: str, tmp_path: Path
) -> None:
    with store_url_for(backend, tmp_path) as db:
        ledger = _Ledger()
        stop = threading.Event()
        with running(db, tmp_path) as [first]:
            game, token = reserve_game(first.base, resolve=DEEP)
            threads = [
                threading.Thread(target=_writer, args=(first.base, token, game, n, ledger, stop))
                for n in range(WRITERS)
            ]
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + 60
            while ledger.count() < ANSWERED_BEFORE_KILL and time.monotonic() < deadline:
                time.sleep(0.01)
            first.kill()  # SIGKILL with checks in flight
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
            assert not any(t.is_alive() for t in threads)
        assert ledger.refused == []
        assert len(ledger.answered) >= ANSWERED_BEFORE_KILL
        assert ledger.unanswered, "the kill should have cut some request short"

        with running(db, tmp_path) as [second], client(second.base, token) as player:
            # every check answered 200 before the kill is stored, whole
            for answer in ledger.answered.values():
                (result,) = answer["results"]
                record = ok(player.get(f"/games/{game}/records/{result['id']}"))
                assert record["tag"] == result["tag"]
                assert record["changes"] == result["changes"]
            # no point was paid without its record, whatever the kill cut short
            records = all_records(player, game)
            spent = sum(1 for r in records if r["changes"])
            assert DEEP - pool_value(player, game, "Ann", "resolve") == spent

            # each request cut short, retried with its key, is answered once: from the
            # store when it had committed, thrown afresh when it had not
            for key, body in ledger.unanswered.items():
                retry = player.post(
                    f"/games/{game}/checks", json=body, headers={"Idempotency-Key": key}
                )
                ledger.answered[key] = ok(retry)
            records = all_records(player, game)
            assert sorted(r["id"] for r in records) == sorted(
                a["results"][0]["id"] for a in ledger.answered.values()
            )
            assert all(r["changes"] for r in records)
            assert DEEP - pool_value(player, game, "Ann", "resolve") == len(records)
            newest, oldest = records[0]["id"], records[-1]["id"]
            for record_id in (newest, oldest):
                assert ok(player.get(f"/games/{game}/records/{record_id}/verify"))["verified"]


# ── d. schemathesis ──────────────────────────────────────────────────────────

# The CI budget: a bounded number of examples per operation and a time cap for the run.
# A bigger campaign by hand, against a server you started (dicebound serve --db ... with
# DICEBOUND_ADMIN_TOKEN set to service_support.ADMIN_TOKEN), with the config this test writes:
#   .venv/bin/schemathesis --config-file schemathesis.toml run \
#       http://127.0.0.1:8000/openapi.json --checks not_a_server_error \
#       --max-examples 1000 --max-time 1800
# or run this test with SCHEMATHESIS_EXAMPLES=1000 SCHEMATHESIS_SECONDS=1800.
FUZZ_EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "25"))
FUZZ_SECONDS = int(os.environ.get("SCHEMATHESIS_SECONDS", "15"))


def _toml_list(values: Sequence[object]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


FUZZ_TAGS = [
    LOCKPICK_TAG,
    '[skill_check: skill="Scoundrel/Lockpick" dc="9" who="Maud Harrowgate"]',
    '[skill_check: skill="Sneak" difficulty="Rare"] and [skill_check: skill="Nobody"]',
    SPEND_TAG,
]


def _fuzz_config(game: str, characters: Sequence[str], record_ids: Sequence[int]) -> str:
    """Bind path and body values to real ones most of the time, so generated requests
    reach a real game, its characters and records rather than 404 on random ids."""
    return "\n".join(
        [
            f'headers = {{ Authorization = "Bearer {ADMIN_TOKEN}" }}',
            "",
            "[dictionaries.games]",
            f"values = {_toml_list([game])}",
            "[dictionaries.characters]",
            f"values = {_toml_list(list(characters))}",
            "[dictionaries.records]",
            f"values = {_toml_list(list(record_ids))}",
            "[dictionaries.rulesets]",
            f"values = {_toml_list(['advanced-resolution', 'reserve-test', 'genesys', 'wod-pool'])}",
            "[dictionaries.tags]",
            f"values = {_toml_list(FUZZ_TAGS)}",
            "[dictionaries.pools]",
            f"values = {_toml_list(['luck', 'body', 'mind'])}",
            "",
            "[parameters]",
            '"path.game" = { dictionary = "games", probability = 0.9 }',
            '"path.name" = { dictionary = "characters", probability = 0.8 }',
            '"path.record_id" = { dictionary = "records", probability = 0.8 }',
            '"path.ruleset_id" = { dictionary = "rulesets", probability = 0.7 }',
            '"query.character" = { dictionary = "characters", probability = 0.5 }',
            '"body.ruleset" = { dictionary = "rulesets", probability = 0.7 }',
            '"body.text" = { dictionary = "tags", probability = 0.5 }',
            '"body.tag" = { dictionary = "tags", probability = 0.5 }',
            '"body.pool" = { dictionary = "pools", probability = 0.6 }',
            "",
        ]
    )


def _fuzz_game(base: str) -> tuple[str, list[str], list[int]]:
    """A step-pool game with both packaged characters and a few records: open offers,
    a seeded check, an answered one; (game id, character names, record ids)."""
    names: list[str] = []
    with httpx.Client(base_url=base, headers=admin_headers(), timeout=30) as admin:
        game = ok(
            admin.post("/games", json={"name": "Heist", "ruleset": "advanced-resolution"}), 201
        )
        checks = f"/games/{game['id']}/checks"
        for file in (PEET_FILE, PEET_FILE.with_name("maud.json")):  # Peet rolls first
            character = json.loads(file.read_text(encoding="utf-8"))
            names.append(character["name"])
            ok(
                admin.put(f"/games/{game['id']}/characters/{character['name']}", json=character),
                201,
            )
        ids = [
            ok(admin.post(checks, json={"text": LOCKPICK_TAG, "faces": [5, 1, 6]}))["results"][0][
                "id"
            ]
            for _ in range(3)
        ]
        ids += [
            r["id"]
            for r in ok(admin.post(checks, json={"text": " ".join(FUZZ_TAGS[:3]), "seed": "1"}))[
                "results"
            ]
        ]
        ok(
            admin.post(
                f"/games/{game['id']}/records/{ids[0]}/after", json={"pool": "luck", "points": 5}
            )
        )
    return game["id"], names, ids


@pytest.mark.parametrize("backend", BACKENDS)
@logs_on_failure
def test_schemathesis_finds_no_server_error(backend: str, tmp_path: Path) -> None:
    with store_url_for(backend, tmp_path) as db, running(db, tmp_path) as [server]:
        reserve_game(server.base)  # an uploaded ruleset too
        game, names, record_ids = _fuzz_game(server.base)
        config = tmp_path / "schemathesis.toml"
        config.write_text(_fuzz_config(game, names, record_ids), encoding="utf-8")
        command = [
            str(Path(sys.executable).with_name("schemathesis")),
            "--config-file",
            str(config),
            "run",
            server.base + "/openapi.json",
            "--checks",
            "not_a_server_error",
            "--max-examples",
            str(FUZZ_EXAMPLES),
            "--max-time",
            str(FUZZ_SECONDS),
            "--phases",
            "examples,coverage,fuzzing,stateful",
            # a stream answers for as long as the client reads: test_http_events.py tests it
            "--exclude-path",
            "/games/{game}/events",
            # one worker: with two, hypothesis reads lambdas' source from two threads at
            # once, and Python 3.11's ast module can fail doing that ("AST constructor
            # recursion depth mismatch", python/cpython#106905), a harness error, not ours
            "--workers",
            "1",
            "--seed",
            "20240601",
            "--request-timeout",
            "20",
            "--suppress-health-check",
            "all",
        ]
        env = {**os.environ, "NO_COLOR": "1"}
        run = subprocess.run(
            command,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=FUZZ_SECONDS + 120,
            check=False,
        )
        (tmp_path / "schemathesis.out").write_text(run.stdout + run.stderr, encoding="utf-8")
        assert run.returncode == 0, (
            f"schemathesis found server errors:\n{run.stdout[-15_000:]}\n{run.stderr[-5_000:]}"
        )
