"""The service's check answers fit the printed schema's ``$defs/serviceAnswer``
(docs/service.md "Resolving a text"): ``POST /games/{game}/checks`` of a real ``dicebound
serve`` and the MCP tool ``resolve_checks`` through the SDK's client, for the same texts
as the command line's test, in a game of every packaged ruleset, seeded and forced. Each
answer is ``check --json``'s members with the record id of each result and command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from check_answers_support import RULESETS, faults, party_of, texts_for
from http_api_support import bearer, execute, stored_value
from mcp_support import Table, call, connect, run, seat_a_table
from service_support import ServerProcess, sqlite_server

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with sqlite_server(tmp_path_factory.mktemp("check-schema")) as running:
        yield running


_KEPT = "SELECT answer FROM idempotency WHERE game_id = :game AND key = 'old-answer'"
_KEEP = "UPDATE idempotency SET answer = :answer WHERE game_id = :game AND key = 'old-answer'"


def _posted(table: Table, body: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = bearer(table.token) | ({"Idempotency-Key": key} if key else {})
    return httpx.post(
        table.server.base + f"/games/{table.id}/checks", json=body, headers=headers, timeout=60.0
    )


def _without_ids(answer: dict[str, Any]) -> dict[str, Any]:
    """The service's answer as the command line prints it: no record ids or numbers."""
    out = dict(answer)
    for member in ("results", "sheet"):
        out[member] = [
            {k: v for k, v in e.items() if k not in ("id", "number")} for e in answer[member]
        ]
    steps = answer["fight"]["steps"]
    out["fight"] = {
        **answer["fight"],
        "steps": [{k: v for k, v in e.items() if k not in ("id", "number")} for e in steps],
    }
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_post_checks_and_resolve_checks_answer_fits(
    server: ServerProcess, ruleset: str
) -> None:
    table = seat_a_table(server, ruleset, *party_of(ruleset))
    texts = texts_for(ruleset)
    posted: list[dict[str, Any]] = []
    for number, text in enumerate(texts):
        answer = _posted(table, {"text": text, "seed": str(number)})
        assert answer.status_code == 200, answer.text
        posted.append(answer.json())
        assert faults(posted[-1], service=True) == [], (text, posted[-1])
        # the service's answer is check --json's object and the record ids, no more
        assert faults(_without_ids(posted[-1])) == [], text
    assert any(a["sheet"] and a["sheet"][0]["id"] for a in posted)
    assert any(a["results"] for a in posted) and any(a["errors"] for a in posted)
    fitted = 0
    for count in range(1, 100):  # forced faces: those that do not fit are refused (422)
        forced = _posted(table, {"text": texts[1], "faces": [1] * count})
        assert forced.status_code in (200, 422), forced.text
        if forced.status_code == 200:
            assert faults(forced.json(), service=True) == [], count
            fitted += 1
            break
    assert fitted

    async def tool_answers() -> list[dict[str, Any]]:
        found = []
        async with connect("http", table) as client:
            for text in texts:
                answer = await call(client, "resolve_checks", {"text": text, "seed": "5"})
                if answer.error is None:
                    found.append(answer.data)
                else:  # nothing resolved: the tool says why instead of answering
                    assert "No tag" in answer.error or "nothing" in answer.error, answer.error
        return found

    answers = run(tool_answers)
    assert len(answers) >= 3
    for answer in answers:
        assert faults(answer, service=True) == [], answer


def test_an_answer_kept_before_sheet_commands_comes_back_with_every_member(
    server: ServerProcess,
) -> None:
    """An idempotency key's answer kept by a version that wrote no "sheet" is sent
    again with ``sheet: []``, by the route and by the tool alike."""
    table = seat_a_table(server, "dnd5e-srd", "mira")
    text = '[skill_check: skill="Stealth" dc="15"]'
    first = _posted(table, {"text": text, "seed": "9"}, key="old-answer")
    assert first.status_code == 200, first.text
    kept = json.loads(stored_value(server.db_url, _KEPT, game=table.id))
    kept.pop("sheet")
    execute(server.db_url, _KEEP, game=table.id, answer=json.dumps(kept))
    again = _posted(table, {"text": text, "seed": "9"}, key="old-answer")
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert faults(again.json(), service=True) == []

    async def by_tool() -> Any:
        async with connect("http", table) as client:
            arguments = {"text": text, "seed": "9", "idempotency_key": "old-answer"}
            return await call(client, "resolve_checks", arguments)

    answer = run(by_tool)
    assert answer.error is None, answer.error
    assert answer.data == first.json()
