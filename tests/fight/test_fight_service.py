"""Fights on the service (FIGHTS §15.2): the game keeps one fight in its store, played
by ``[fight:]`` tags sent to ``POST /games/{game}/checks`` and by steps sent to ``POST
/games/{game}/fight``; each step is a record of kind ``fight`` that ``verify`` replays,
told as its ``record`` event, then ``fight``, then ``character`` per changed member; a
player's seat acts only as its own character on its turn. On SQLite and PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from fight_fixtures import BRENNA
from fight_service_support import A_START, new_game

from dicebound.app.access import PLAYER_MAY
from events_support import stored_events
from http_api_support import bearer
from service_support import ServerProcess, admin_headers, postgres_database


def _checks(client: Any, game: str, token: str, text: str, **more: Any) -> dict[str, Any]:
    answer = client.post(
        f"/games/{game}/checks", json={"text": text, **more}, headers=bearer(token)
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _step(client: Any, game: str, token: str, **body: Any) -> httpx.Response:
    response: httpx.Response = client.post(f"/games/{game}/fight", json=body, headers=bearer(token))
    return response


@pytest.fixture
def table(service: TestClient) -> tuple[TestClient, str, str]:
    game, token = new_game(service)
    return service, game, token


def test_a_start_in_a_check_text_is_kept_and_read_back_with_the_current_menu(
    table: tuple[TestClient, str, str],
) -> None:
    client, game, token = table
    assert client.get(f"/games/{game}/fight", headers=bearer(token)).json() == {
        "fight": None,
        "revision": 0,
        "summary": None,
        "current": None,
        "window": None,
    }
    text = A_START + ' then [skill_check: skill="athletics" dc="5" who="Brenna"]'
    body = _checks(client, game, token, text, faces=[20, 14, 5, 3, 10])
    (step,) = body["fight"]["steps"]
    assert step["ok"] and step["op"] == "start" and isinstance(step["id"], int)
    assert body["fight"]["state"]["order"] == ["brenna", "corwin", "snag", "rot"]
    assert body["results"][0]["id"] > step["id"]  # records in text order
    read = client.get(f"/games/{game}/fight", headers=bearer(token)).json()
    assert read["fight"] == body["fight"]["state"] and read["revision"] == 1
    assert read["current"]["who"] == "Brenna" and read["window"] is None
    attack = next(o for o in read["current"]["options"] if o["id"] == "attack:0:0")
    assert set(attack["forecast"]) == {"hitChance", "averageDamage"}
    assert set(attack["odds"]) == {"snag", "rot"}  # every legal target, exact
    assert read["summary"]["enemies"][0]["name"] == "Snag"
    options = client.get(f"/games/{game}/fight/options?who=snag", headers=bearer(token))
    assert options.json() == {"who": "Snag", "options": []}  # not its turn
    missing = client.get(f"/games/{game}/fight/options?who=Nobody", headers=bearer(token))
    assert missing.status_code == 404


def test_a_step_sent_as_a_body_is_recorded_verified_and_told_in_order(
    table: tuple[TestClient, str, str], store_url: str
) -> None:
    client, game, token = table
    # Snag acts first: 1+2, 1+2, 20+2, 19+0
    _checks(client, game, token, A_START, faces=[1, 1, 20, 19])
    before = len(stored_events(store_url, game))
    done = _step(
        client,
        game,
        token,
        op="act",
        who="Snag",
        option="Scimitar",
        targets=["Brenna"],
        faces=[18, 6],
    )
    assert done.status_code == 200, done.text
    step = done.json()
    assert step["ok"] and step["who"] == "Snag" and step["faces"] == [18, 6]
    assert step["tag"].startswith('[fight: op="act" who="Snag" option=')
    assert step["changes"] and step["changes"][0]["who"] == "Brenna"
    assert step["summary"]["party"][0]["health"] < step["summary"]["party"][0]["maxHealth"]
    record = client.get(f"/games/{game}/records/{step['id']}", headers=bearer(token)).json()
    assert record["kind"] == "fight" and record["fight"]["before"]["turn"] == 0
    assert record["ask"].startswith('[fight: op="act"')
    verified = client.get(f"/games/{game}/records/{step['id']}/verify", headers=bearer(token))
    assert verified.json() == {"verified": True, "differences": []}
    told = stored_events(store_url, game)[before:]
    assert [kind for _, kind, _ in told] == ["record", "fight", "character"]
    assert told[0][2]["id"] == step["id"] and told[1][2]["fight"] == "f1"
    brenna = client.get(f"/games/{game}/characters/Brenna", headers=bearer(token)).json()
    assert brenna["live"]["pools"]["hp"] != BRENNA.get("live", {}).get("pools", {}).get("hp")


def test_a_seeded_step_in_a_mixed_text_verifies_from_its_own_seed(
    table: tuple[TestClient, str, str],
) -> None:
    client, game, token = table
    text = '[skill_check: skill="athletics" dc="5" who="Brenna"] ' + A_START
    body = _checks(client, game, token, text, seed="77")
    (step,) = body["fight"]["steps"]
    assert 'seed="77-1"' in step["tag"]
    record = client.get(f"/games/{game}/records/{step['id']}", headers=bearer(token)).json()
    assert record["seed"] == "77-1"
    verified = client.get(f"/games/{game}/records/{step['id']}/verify", headers=bearer(token))
    assert verified.json()["verified"] is True


def test_a_refused_step_is_answered_ok_false_and_recorded(
    table: tuple[TestClient, str, str],
) -> None:
    client, game, token = table
    refused = _step(client, game, token, op="flee")
    assert refused.status_code == 200
    body = refused.json()
    assert (body["ok"], body["reason"], body["state"]) == (False, "no-fight", None)
    assert (
        client.get(f"/games/{game}/records/{body['id']}", headers=bearer(token)).json()["reason"]
        == "no-fight"
    )


def test_a_retry_with_the_same_key_answers_the_same_and_plays_once(
    table: tuple[TestClient, str, str],
) -> None:
    client, game, token = table
    _checks(client, game, token, A_START, faces=[20, 14, 5, 3])
    key = {**bearer(token), "Idempotency-Key": "turn-1"}
    body = {"op": "act", "who": "Brenna", "option": "attack:0:0", "targets": ["Snag"]}
    first = client.post(f"/games/{game}/fight", json={**body, "faces": [12, 5]}, headers=key)
    again = client.post(f"/games/{game}/fight", json={**body, "faces": [12, 5]}, headers=key)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    read = client.get(f"/games/{game}/fight", headers=bearer(token)).json()
    assert read["revision"] == 2  # the start, and one act
    other = client.post(f"/games/{game}/fight", json={**body, "faces": [1, 5]}, headers=key)
    assert other.status_code == 422


def test_a_player_acts_only_as_its_own_character_on_its_turn(
    table: tuple[TestClient, str, str],
) -> None:
    client, game, token = table
    seat = client.post(f"/games/{game}/characters/Brenna/seat", headers=bearer(token))
    player = seat.json()["token"]
    started = _step(client, game, player, op="start", enemies="Snag, Rot")
    assert started.status_code == 403
    assert started.json()["detail"] == f"{PLAYER_MAY}; this asks to start, flee or end a fight."
    _checks(client, game, token, A_START, faces=[20, 14, 5, 3])  # Brenna first
    as_other = _step(client, game, player, op="end-turn", who="Corwin")
    assert as_other.status_code == 403
    assert as_other.json()["detail"] == (
        f"{PLAYER_MAY}; this asks to act in the fight for Corwin, and this seat is Brenna's."
    )
    bad = _step(client, game, player, op="act", option="attack:0:0", targets=["Corwin"])
    assert bad.status_code == 200 and bad.json()["reason"] == "bad-target"
    done = _step(client, game, player, op="end-turn")
    assert done.status_code == 200 and done.json()["ok"]
    late = _step(client, game, player, op="end-turn", who="Brenna")
    assert late.status_code == 403
    assert late.json()["detail"] == (
        f"{PLAYER_MAY}; this asks to act in the fight for Brenna on Corwin's turn."
    )
    assert _step(client, game, player, op="flee").status_code == 403
    assert client.get(f"/games/{game}/fight", headers=bearer(player)).status_code == 200


def test_a_players_seat_answers_the_window_that_asks_its_character(
    service: TestClient,
) -> None:
    """E32's held hit on the service: the window shows in the fight's view with Ada's
    answers (the actor on turn has none meanwhile); Ada's player may not act for the
    rats, and answers the window as Ada."""
    from test_fight_windows import bracing_ada_file, bracing_doc

    ruleset = bracing_doc()
    assert service.post("/rulesets", json=ruleset, headers=admin_headers()).status_code in (
        200,
        201,
    )
    made = service.post(
        "/games", json={"name": "Vigil", "ruleset": ruleset["id"]}, headers=admin_headers()
    )
    game, token = made.json()["id"], made.json()["token"]
    put = service.put(
        f"/games/{game}/characters/Ada", json=bracing_ada_file(), headers=bearer(token)
    )
    assert put.status_code == 201, put.text
    player = service.post(f"/games/{game}/characters/Ada/seat", headers=bearer(token)).json()[
        "token"
    ]
    assert _step(
        service, game, token, op="start", enemies="Rats (night/grave-rats)", faces=[10, 1]
    ).json()["ok"]
    assert _step(service, game, player, op="end-turn").json()["ok"]
    held = _step(
        service,
        game,
        token,
        op="act",
        who="Rats",
        option="Gnaw",
        targets=["Ada"],
        faces=[7, 7, 2, 3, 4],
    )
    assert held.json()["ok"] and held.json()["state"]["window"]["waiting"] == ["ada"]
    view = service.get(f"/games/{game}/fight", headers=bearer(player)).json()
    assert view["window"]["asking"] == "Ada" and view["current"]["options"] == []
    assert [o["label"] for o in view["window"]["options"]] == ["Brace", "Pass"]
    as_rats = _step(service, game, player, op="act", who="Rats", option="Gnaw", targets=["Ada"])
    assert as_rats.status_code == 403
    assert (
        as_rats.json()["detail"].endswith("for Rats while window w1 asks Ada.")
        or "this seat is Ada's" in as_rats.json()["detail"]
    )
    answered = _step(service, game, player, op="act", option="Brace", window="w1")
    assert answered.status_code == 200, answered.text
    assert answered.json()["ok"] and "recheck Gnaw at Ada: 2 vs 3 miss" in answered.json()["tag"]
    assert service.get(f"/games/{game}/fight", headers=bearer(token)).json()["window"] is None


@pytest.mark.server
@pytest.mark.postgres
def test_two_processes_never_play_one_turn_twice(tmp_path: Path) -> None:
    """The same end-turn sent at once to two servers on one PostgreSQL store: one plays
    it, the other finds the turn already passed (not its turn), and the fight moved on
    by one turn."""
    with (
        postgres_database() as url,
        ServerProcess(url, log=tmp_path / "one.log") as one,
        ServerProcess(url, log=tmp_path / "two.log") as two,
        httpx.Client(base_url=one.base, timeout=30) as first,
        httpx.Client(base_url=two.base, timeout=30) as second,
    ):
        game, token = new_game(first)
        _checks(first, game, token, A_START, faces=[20, 14, 5, 3])
        send = {"op": "end-turn", "who": "Brenna"}
        with ThreadPoolExecutor(2) as pool:
            answers = list(
                pool.map(lambda c: _step(c, game, token, **send).json(), (first, second))
            )
        assert sorted(a["ok"] for a in answers) == [False, True]
        assert {a["reason"] for a in answers} == {None, "not-your-turn"}
        read = second.get(f"/games/{game}/fight", headers=bearer(token)).json()
        assert read["fight"]["turn"] == 1 and read["revision"] == 2


def test_a_game_with_a_fight_is_exported_and_imported_whole(
    table: tuple[TestClient, str, str],
) -> None:
    """The game file carries the fight and its records: each replays on import, and the
    fight reads back as it was."""
    client, game, token = table
    _checks(client, game, token, A_START, faces=[20, 14, 5, 3])
    _step(client, game, token, op="act", option="attack:0:0", targets=["Snag"], faces=[12, 5])
    before = client.get(f"/games/{game}/fight", headers=bearer(token)).json()
    exported = client.get(f"/games/{game}/export", headers=admin_headers())
    assert exported.status_code == 200, exported.text
    file = exported.json()
    assert file["fight"]["revision"] == 2 and file["fight"]["state"] == before["fight"]
    assert client.delete(f"/games/{game}", headers=admin_headers()).status_code == 204
    imported = client.post("/games/import", json=file, headers=admin_headers())
    assert imported.status_code == 201, imported.text
    again = client.get(f"/games/{game}/fight", headers=bearer(imported.json()["token"]))
    assert again.json() == before
    broken = {**file, "fight": {**file["fight"], "state": {"v": 1}}}
    assert client.delete(f"/games/{game}", headers=admin_headers()).status_code == 204
    refused = client.post("/games/import", json=broken, headers=admin_headers())
    assert refused.status_code == 422 and "fight cannot be played" in refused.json()["detail"]


def test_each_step_of_one_text_keeps_the_fight_it_found_and_verifies(
    table: tuple[TestClient, str, str],
) -> None:
    """A text's steps change one fight in turn: each record keeps the state its own step
    found (none before the start), so each replays alone."""
    client, game, token = table
    act = '[fight: op="act" who="Brenna" option="attack:0:0" target="Snag"]'
    body = _checks(
        client, game, token, f"{A_START} {act} [fight: op=end-turn]", faces=[20, 14, 5, 3, 12, 5]
    )
    ids = [s["id"] for s in body["fight"]["steps"]]
    assert [s["ok"] for s in body["fight"]["steps"]] == [True, True, True]
    found = [
        client.get(f"/games/{game}/records/{i}", headers=bearer(token)).json()["fight"]["before"]
        for i in ids
    ]
    assert found[0] is None and found[1]["turn"] == found[2]["turn"] == 0
    assert found[1]["combatants"][2]["health"] != found[2]["combatants"][2]["health"]
    for i in ids:
        verified = client.get(f"/games/{game}/records/{i}/verify", headers=bearer(token)).json()
        assert verified == {"verified": True, "differences": []}, i
