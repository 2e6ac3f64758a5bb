"""Issue 23, defects 13 and 14: a raise that turns a Botch into a Sacrifice leaves the
choice open, and the player settles it (with the raise, or once more after it) exactly
once, paid atomically and replayed by ``verify``; the offer, and the page's raise form,
name only the pools the roller can pay from.

Sneeky Peet's lock (TN 6, Agility +1, picks +1) with faces 1, 1, 1 is a Botch: neither
free raise lifts a 1 to 6, and 5 points on one die buy one EFFORT, a Sacrifice. Maud's
duel seeded "s14" throws 5, 5, 5 against TN 8: a Botch that 3 points turn into a
Sacrifice, and Maud holds only 2 Luck, so her offer names Body and Mind alone.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from playwright.sync_api import expect

from budget import examples
from dicebound.character import load_character
from dicebound.edge.cli import main
from dicebound.edge.files import read_ruleset
from dicebound.engine import CheckResult, PlayerChoices, settle_after
from dicebound.errors import TagError
from dicebound.kinds.step_pool import Offer, read_offer
from dicebound.sheet import Character, Paid, pay
from dicebound.tagpass import resolve_text
from http_api_support import (
    LOCKPICK,
    Game,
    character_file,
    cli_json,
    live,
    make_game,
    problem_of,
    store_rows,
)
from mcp_support import call, connect, ok, run, seat_a_table
from service_support import ServerProcess, store_url_for
from web_support import DESKTOP, api, browser, new_game, open_page, pick_game, shoot

AR = read_ruleset("advanced-resolution")
PEET_NAME = "Sneeky Peet"
MAUD_NAME = "Maud Harrowgate"
PEET = load_character(AR, character_file("advanced-resolution", "peet"))
MAUD = load_character(AR, character_file("advanced-resolution", "maud"))
BOTCH = [1, 1, 1]  # Peet's lock: a Botch that 5 points raise to a Sacrifice
DUEL = '[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="Maud Harrowgate"]'
DUEL_SEED = "s14"  # 5, 5, 5 against 8: a Botch; 3 points from Body or Mind, Luck holds 2


def _comparable(result: CheckResult) -> tuple[object, ...]:
    return (result.record, result.outcome, result.success, result.critical, result.choice)


def _paid(changes: Any) -> list[tuple[str, int, int]]:
    return [(c.pool, c.from_, c.to) for c in changes]


# ── the engine: a raise that opens a Sacrifice, then the choice ──────────────


def test_a_botch_raised_to_a_sacrifice_leaves_the_choice_open() -> None:
    thrown = resolve_text(AR, [PEET], LOCKPICK, faces=BOTCH).results[0]
    assert (thrown.outcome, thrown.choice) == ("Botch", None)
    assert thrown.record.get("offer") == "Sacrifice: 5 from body, mind or luck"
    raised = settle_after(
        AR, [PEET], PEET, LOCKPICK, faces=BOTCH, choices=PlayerChoices(after=("luck", 5))
    )
    assert (raised.result.outcome, raised.result.success, raised.result.choice) == (
        "Sacrifice",
        False,
        "open",
    )
    assert _paid(raised.paid) == [("luck", 6, 1)] and raised.result.changes == raised.paid


def test_the_choice_a_raise_opened_is_settled_once_and_pays_nothing_more() -> None:
    raise_ = PlayerChoices(after=("luck", 5))
    first = settle_after(AR, [PEET], PEET, LOCKPICK, faces=BOTCH, choices=raise_)
    assert first.character is not None
    # later, the roller has spent more: the earlier raise is judged as it was answered
    poorer = pay(AR, first.character, [("luck", 1)])
    assert isinstance(poorer, Paid)
    chosen = settle_after(
        AR,
        [PEET],
        PEET,  # the roller as the raise found him
        LOCKPICK,
        faces=BOTCH,
        choices=PlayerChoices(choose="succeed"),
        answered=raise_,
    )
    assert (chosen.result.outcome, chosen.result.success, chosen.result.choice) == (
        "Sacrifice",
        True,
        "succeed",
    )
    assert chosen.paid == () and chosen.character is None and chosen.message is None
    assert _paid(chosen.result.changes) == [("luck", 6, 1)]  # what the raise paid, then
    both = PlayerChoices(after=("luck", 5), choose="succeed")
    direct = resolve_text(AR, [PEET], LOCKPICK, faces=BOTCH, choices=both).results[0]
    assert _comparable(chosen.result) == _comparable(direct)
    assert chosen.result.record.get("after") == "luck:5@1"
    assert chosen.result.record.get("choice") == "succeed"


def test_a_raise_and_a_choice_in_one_answer_settle_both() -> None:
    both = PlayerChoices(after=("body", 5), choose="fail")
    settled = settle_after(AR, [PEET], PEET, LOCKPICK, faces=BOTCH, choices=both)
    assert (settled.result.outcome, settled.result.success, settled.result.choice) == (
        "Sacrifice",
        False,
        "fail",
    )
    assert _paid(settled.paid) == [("body", 10, 5)]
    direct = resolve_text(AR, [PEET], LOCKPICK, faces=BOTCH, choices=both).results[0]
    assert _comparable(settled.result) == _comparable(direct)
    assert settled.result.changes == direct.changes


def test_a_seeded_botch_raised_and_chosen_equals_the_check_made_with_both() -> None:
    # seed "s7": 2, 1, 2 against 6, a Botch that 4 points raise to a Sacrifice
    thrown = resolve_text(AR, [PEET], LOCKPICK, seed="s7").results[0]
    assert (thrown.outcome, thrown.record.get("offer")) == (
        "Botch",
        "Sacrifice: 4 from body, mind or luck",
    )
    raise_ = PlayerChoices(after=("mind", 4))
    chosen = settle_after(
        AR,
        [PEET],
        PEET,
        LOCKPICK,
        seed="s7",
        choices=PlayerChoices(choose="succeed"),
        answered=raise_,
    )
    both = PlayerChoices(after=("mind", 4), choose="succeed")
    direct = resolve_text(AR, [PEET], LOCKPICK, seed="s7", choices=both).results[0]
    assert _comparable(chosen.result) == _comparable(direct)
    assert (direct.outcome, direct.choice) == ("Sacrifice", "succeed")


_REFUSED: list[tuple[str, list[int], PlayerChoices, PlayerChoices, str]] = [
    (
        "a second raise",
        BOTCH,
        PlayerChoices(after=("body", 5)),
        PlayerChoices(after=("luck", 5)),
        "this check was already raised (luck:5); a check takes one raise.",
    ),
    (
        "a second choice",
        BOTCH,
        PlayerChoices(choose="fail"),
        PlayerChoices(after=("luck", 5), choose="succeed"),
        'this check\'s choice was already made ("succeed"); a choice is made once.',
    ),
    (
        "a choice beside a raise that lands on Triumph",
        [5, 1, 6],
        PlayerChoices(after=("luck", 5), choose="succeed"),
        PlayerChoices(),
        "the raise makes it a Triumph, which leaves no choice to make; answer with the "
        "raise alone.",
    ),
    (
        "a choice where the raise left none open",
        [5, 1, 6],
        PlayerChoices(choose="succeed"),
        PlayerChoices(after=("luck", 5)),
        "this check has no open choice to settle.",
    ),
    (
        "a choice on a Botch nobody raised",
        BOTCH,
        PlayerChoices(choose="succeed"),
        PlayerChoices(),
        "this check has no open choice to settle.",
    ),
]


@pytest.mark.parametrize(
    ("faces", "choices", "answered", "says"),
    [r[1:] for r in _REFUSED],
    ids=[r[0] for r in _REFUSED],
)
def test_an_answer_given_twice_or_with_nothing_to_settle_is_refused(
    faces: list[int], choices: PlayerChoices, answered: PlayerChoices, says: str
) -> None:
    with pytest.raises(TagError) as refused:
        settle_after(AR, [PEET], PEET, LOCKPICK, faces=faces, choices=choices, answered=answered)
    assert refused.value.message == says


def test_a_raise_that_buys_nothing_beside_a_choice_says_why_and_pays_nothing() -> None:
    both = PlayerChoices(after=("luck", 4), choose="succeed")
    settled = settle_after(AR, [PEET], PEET, LOCKPICK, faces=BOTCH, choices=both)
    assert settled.paid == () and settled.character is None
    assert settled.message == (
        "luck:4 buys nothing: the cheapest raise that adds EFFORT costs 5 Luck, so nothing "
        "was paid."
    )


# ── defect 14: the offer names only what the roller can pay from ─────────────


def _peet_holding(**pools: int) -> Character:
    file = character_file("advanced-resolution", "peet")
    file["live"] = {"pools": {k: {"value": v} for k, v in pools.items()}}
    return load_character(AR, file)


@pytest.mark.parametrize(
    ("who", "faces", "offer"),
    [
        # an untouched pool is full (docs/design/format.md "Live state"):
        # Peet holds Body 10, Mind 10, Luck 6,
        # and the rule's own example has him pay 5 Luck or Body, or even Mind
        (PEET, [5, 1, 6], "Triumph: 5 from body, mind or luck"),
        (_peet_holding(luck=0), [5, 1, 6], "Triumph: 5 from body or mind"),
        (_peet_holding(luck=6, body=4, mind=0), [5, 1, 6], "Triumph: 5 from luck"),
        (_peet_holding(luck=0, body=0, mind=0), [5, 1, 6], None),  # nothing to pay from
        (_peet_holding(luck=0, body=0, mind=0), BOTCH, None),
    ],
    ids=["Peet, pools full", "no Luck left", "Luck alone", "every pool spent", "a Botch"],
)
def test_the_offer_names_only_the_pools_the_roller_can_pay_from(
    who: Character, faces: list[int], offer: str | None
) -> None:
    result = resolve_text(AR, [who], LOCKPICK, faces=faces).results[0]
    assert result.record.get("offer") == offer


def test_maud_with_two_luck_is_offered_body_or_mind_for_three() -> None:
    result = resolve_text(AR, [MAUD], DUEL, seed=DUEL_SEED).results[0]
    assert (result.outcome, result.record.get("rolls")) == ("Botch", "5|5|5")
    assert result.record.get("offer") == "Sacrifice: 3 from body or mind"
    assert read_offer("Sacrifice: 3 from body or mind") == Offer(
        "Sacrifice", (("body", 3), ("mind", 3))
    )


@settings(max_examples=examples(200), deadline=None)
@given(
    label=st.text(min_size=1, max_size=20).filter(lambda s: s.strip() == s and "\n" not in s),
    costs=st.lists(
        st.tuples(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), st.integers(1, 60)),
        min_size=1,
        max_size=4,
        unique_by=lambda c: c[0],
    ),
)
def test_an_offer_reads_back_as_it_was_written(label: str, costs: list[tuple[str, int]]) -> None:
    ordered = tuple(sorted(costs, key=lambda c: c[1]))  # cheapest first, as written
    offer = Offer(label, ordered)
    assert read_offer(offer.text) == offer


def test_words_that_are_no_offer_read_as_none() -> None:
    for text in ("", "Triumph", "Triumph: five from luck", "luck:5 for Success", "Triumph: 5"):
        assert read_offer(text) is None, text


# ── the command line: --after with --choose ──────────────────────────────────


def _cli(*extra: str, faces: str = "1,1,1") -> dict[str, Any]:
    out = io.StringIO()
    argv = ["check", "--ruleset", "advanced-resolution", "--character", "peet"]
    assert main([*argv, "--faces", faces, "--json", *extra, LOCKPICK], out=out) == 0
    body: dict[str, Any] = json.loads(out.getvalue())
    return body


def test_the_command_line_raises_a_botch_and_chooses_in_one_go(tmp_path: Path) -> None:
    raised = _cli("--after", "luck:5")["results"][0]
    assert (raised["outcome"], raised["choice"]) == ("Sacrifice", "open")
    body = _cli("--after", "luck:5", "--choose", "succeed")
    (result,) = body["results"]
    assert (result["outcome"], result["success"], result["choice"]) == (
        "Sacrifice",
        True,
        "succeed",
    )
    assert result["attrs"]["after"] == "luck:5@1" and result["attrs"]["choice"] == "succeed"
    assert result["changes"] == [{"who": PEET_NAME, "pool": "luck", "from": 6, "to": 1}]
    assert set(result) == {"tag", "who", "outcome", "success", "critical", "choice", "attrs",
                           "changes", "notes"}  # fmt: skip
    record = tmp_path / "record.json"
    record.write_text(json.dumps(body))
    verified = io.StringIO()
    argv = ["verify", "--ruleset", "advanced-resolution", "--character", "peet", str(record)]
    assert main(argv, out=verified) == 0
    # --choose alone on the Botch settles nothing: no choice is open
    alone = _cli("--choose", "succeed")["results"][0]
    assert (alone["outcome"], alone["choice"]) == ("Botch", None)


# ── the service, on SQLite and PostgreSQL ────────────────────────────────────


def _throw(client: TestClient, game: Game, **body: Any) -> dict[str, Any]:
    got = client.post(game.path("checks"), json=body, headers=game.headers)
    assert got.status_code == 200, got.text
    (result,) = got.json()["results"]
    assert isinstance(result, dict)
    return result


def _after(client: TestClient, game: Game, record: int, **answer: Any) -> Any:
    return client.post(game.path("records", record, "after"), json=answer, headers=game.headers)


def test_a_raise_that_opens_a_sacrifice_is_then_chosen_once(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    thrown = _throw(service, game, text=LOCKPICK, faces=BOTCH)
    assert (thrown["outcome"], thrown["attrs"]["offer"]) == (
        "Botch",
        "Sacrifice: 5 from body, mind or luck",
    )
    raised = _after(service, game, thrown["id"], pool="luck", points=5)
    assert raised.status_code == 200, raised.text
    body = raised.json()
    assert (body["outcome"], body["choice"], body["answered"]) == (
        "Sacrifice",
        "open",
        {"pool": "luck", "points": 5},
    )
    luck = [{"who": PEET_NAME, "pool": "luck", "from": 6, "to": 1}]
    assert body["paid"] == luck

    # a second raise is refused and changes nothing
    before = store_rows(store_url)
    again = _after(service, game, thrown["id"], pool="body", points=5)
    assert problem_of(again, 409)["detail"] == (
        f"record {thrown['id']} was already raised (luck:5) and a check takes one raise; its "
        'Sacrifice is still open for {"choose": "fail"} or {"choose": "succeed"}.'
    )
    assert store_rows(store_url) == before

    chosen = _after(service, game, thrown["id"], choose="succeed")
    assert chosen.status_code == 200, chosen.text
    settled = chosen.json()
    expected = cli_json(
        "check",
        "--ruleset",
        "advanced-resolution",
        "--character",
        "peet",
        "--faces",
        "1,1,1",
        "--after",
        "luck:5",
        "--choose",
        "succeed",
        "--json",
        LOCKPICK,
    )["results"][0]
    assert {k: settled[k] for k in expected} == expected
    assert (settled["paid"], settled["changes"]) == ([], luck)
    assert settled["answered"] == {"pool": "luck", "points": 5, "choose": "succeed"}
    peet = live(service, game, PEET_NAME)
    assert (peet["live"], peet["revision"]) == ({"pools": {"luck": {"value": 1}}}, 2)

    closed = store_rows(store_url)
    for answer in ({"choose": "fail"}, {"pool": "luck", "points": 1}):
        problem_of(_after(service, game, thrown["id"], **answer), 409)
    assert store_rows(store_url) == closed
    path = game.path("records", thrown["id"])
    assert service.get(path + "/verify", headers=game.headers).json() == {
        "verified": True,
        "differences": [],
    }
    card = service.get(path + "/card", headers=game.headers).json()
    lines = dict(card["lines"])
    assert lines["Result"] == "Sacrifice"
    assert "chose to succeed at a cost" in lines["Marks"]
    assert "after luck:5@1" in lines["Also"] and lines["Paid"] == "Luck 6 → 1"
    assert card["offer"] is None


def test_a_raise_and_a_choice_together_are_paid_in_one_answer(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    thrown = _throw(service, game, text=LOCKPICK, faces=BOTCH)
    both = _after(service, game, thrown["id"], pool="body", points=5, choose="fail")
    assert both.status_code == 200, both.text
    body = both.json()
    assert (body["outcome"], body["success"], body["choice"]) == ("Sacrifice", False, "fail")
    assert body["paid"] == [{"who": PEET_NAME, "pool": "body", "from": 10, "to": 5}]
    assert body["answered"] == {"pool": "body", "points": 5, "choose": "fail"}
    closed = store_rows(store_url)
    problem_of(_after(service, game, thrown["id"], choose="succeed"), 409)
    assert store_rows(store_url) == closed
    path = game.path("records", thrown["id"], "verify")
    assert service.get(path, headers=game.headers).json()["verified"] is True


def test_a_choice_beside_a_raise_that_opens_no_sacrifice_is_refused_and_pays_nothing(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    thrown = _throw(service, game, text=LOCKPICK, faces=[5, 1, 6])  # a Success
    before = store_rows(store_url)
    refused = _after(service, game, thrown["id"], pool="luck", points=5, choose="succeed")
    assert problem_of(refused, 422)["detail"] == (
        "the raise makes it a Triumph, which leaves no choice to make; answer with the raise alone."
    )
    short = _after(service, game, thrown["id"], pool="luck", points=4, choose="succeed")
    assert problem_of(short, 422)["detail"] == (
        "luck:4 buys nothing: the cheapest raise that adds EFFORT costs 5 Luck, so nothing "
        "was paid."
    )
    assert store_rows(store_url) == before
    # the raise alone is still taken
    assert _after(service, game, thrown["id"], pool="luck", points=5).status_code == 200


def test_a_choice_made_with_the_check_settles_the_sacrifice_a_raise_opens(
    service: TestClient, store_url: str
) -> None:
    game = make_game(service, "advanced-resolution", "peet")
    thrown = _throw(service, game, text=LOCKPICK, faces=BOTCH, choose="fail")
    assert (thrown["outcome"], thrown["choice"]) == ("Botch", None)
    before = store_rows(store_url)
    both = _after(service, game, thrown["id"], pool="luck", points=5, choose="succeed")
    assert problem_of(both, 409)["detail"] == (
        f'record {thrown["id"]}\'s choice was made when it was thrown ("fail"); a choice '
        "is made once."
    )
    assert store_rows(store_url) == before
    raised = _after(service, game, thrown["id"], pool="luck", points=5).json()
    assert (raised["outcome"], raised["success"], raised["choice"]) == ("Sacrifice", False, "fail")
    problem_of(_after(service, game, thrown["id"], choose="succeed"), 409)
    path = game.path("records", thrown["id"], "verify")
    assert service.get(path, headers=game.headers).json()["verified"] is True


def test_the_card_names_only_the_pools_the_offer_names(service: TestClient) -> None:
    game = make_game(service, "advanced-resolution", "maud")
    thrown = _throw(service, game, text=DUEL, seed=DUEL_SEED)
    assert thrown["attrs"]["offer"] == "Sacrifice: 3 from body or mind"
    card = service.get(game.path("records", thrown["id"], "card"), headers=game.headers).json()
    assert card["offer"] == {
        "band": "Sacrifice",
        "pools": [
            {"pool": "body", "label": "Body", "points": 3},
            {"pool": "mind", "label": "Mind", "points": 3},
        ],
    }
    raised = _after(service, game, thrown["id"], pool="luck", points=2)
    assert problem_of(raised, 422)["detail"] == (
        "Luck holds 2, less than the 3 the cheapest raise that adds EFFORT costs, so nothing "
        "was paid."
    )
    # a Sacrifice chosen takes no raise any more: its card offers none
    open_ = _throw(service, game, text=DUEL, faces=[8, 5, 5])
    assert (open_["outcome"], open_["attrs"]["offer"]) == (
        "Sacrifice",
        "Success: 3 from body or mind",
    )
    assert _after(service, game, open_["id"], choose="fail").status_code == 200
    card = service.get(game.path("records", open_["id"], "card"), headers=game.headers).json()
    assert card["offer"] is None


# ── MCP: settle_after_roll takes the second answer, or both ──────────────────


@pytest.mark.server
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_settle_after_roll_takes_the_choice_a_raise_opened(backend: str, tmp_path: Path) -> None:
    with (
        store_url_for(backend, tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as server,
    ):
        table = seat_a_table(server, "advanced-resolution", "maud")
        ids: list[int] = []

        async def scene() -> None:
            async with connect("http", table) as client:
                for _ in range(2):
                    thrown = await ok(client, "resolve_checks", {"text": DUEL, "faces": [5, 5, 5]})
                    (result,) = thrown["results"]
                    assert result["attrs"]["offer"] == "Sacrifice: 3 from body or mind"
                    ids.append(result["id"])
                raised = await ok(
                    client, "settle_after_roll", {"record": ids[0], "pool": "body", "points": 3}
                )
                assert (raised["outcome"], raised["choice"]) == ("Sacrifice", "open")
                chosen = await ok(
                    client, "settle_after_roll", {"record": ids[0], "choose": "succeed"}
                )
                assert (chosen["choice"], chosen["success"], chosen["paid"]) == (
                    "succeed",
                    True,
                    [],
                )
                both = await ok(
                    client,
                    "settle_after_roll",
                    {"record": ids[1], "pool": "mind", "points": 3, "choose": "fail"},
                )
                assert (both["choice"], both["answered"]) == (
                    "fail",
                    {"pool": "mind", "points": 3, "choose": "fail"},
                )
                again = await call(
                    client, "settle_after_roll", {"record": ids[1], "choose": "fail"}
                )
                assert again.error is not None and "already answered" in again.error

        run(scene)
        for record, answered in zip(
            ids,
            (
                {"pool": "body", "points": 3, "choose": "succeed"},
                {"pool": "mind", "points": 3, "choose": "fail"},
            ),
            strict=True,
        ):
            assert table.get(f"/records/{record}")["answered"] == answered
            assert table.get(f"/records/{record}/verify")["verified"] is True
        maud = table.get(f"/characters/{MAUD_NAME}")
        assert maud["live"]["pools"] == {"luck": {"value": 2}, "body": {"value": 4},
                                          "mind": {"value": 7}}  # fmt: skip


# ── the page ────────────────────────────────────────────────────────────────


@pytest.fixture
def page_server(tmp_path: Path) -> Iterator[ServerProcess]:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "server.log") as running,
    ):
        yield running


@pytest.mark.server
def test_the_page_raises_from_the_offered_pools_then_offers_the_choice(
    page_server: ServerProcess,
) -> None:
    game = new_game(page_server, "advanced-resolution", "maud")
    with browser() as chrome:
        page = open_page(chrome, page_server, DESKTOP)
        pick_game(page, game)
        page.get_by_label("Game Master text").fill(f"The captain lunges. {DUEL}")
        page.get_by_label("Seed (optional, replays a roll)").fill(DUEL_SEED)
        page.get_by_role("button", name="Resolve").click()
        card = page.locator("article.card").first
        expect(card.locator(".outcome")).to_have_text("Botch (critical failure)")
        record_id = card.get_attribute("data-record")
        offered = card.get_by_label("Spend from").locator("option")
        expect(offered).to_have_count(2)
        assert offered.evaluate_all("o => o.map(x => x.value)") == ["body", "mind"]
        expect(card.get_by_label("points")).to_have_value("3")
        shoot(page, "raise-offered-pools")
        card.get_by_role("button", name="Raise").click()
        raised = page.locator(f'article.card[data-record="{record_id}"]')
        expect(raised.locator(".outcome")).to_have_text("Sacrifice")
        expect(raised.get_by_role("button", name="Raise")).to_have_count(0)
        shoot(page, "raise-opened-a-sacrifice")
        raised.get_by_role("button", name="Succeed at a cost").click()
        expect(page.locator("#status")).to_contain_text("Sacrifice")
        settled = page.locator(f'article.card[data-record="{record_id}"]')
        expect(settled.get_by_role("button", name="Succeed at a cost")).to_have_count(0)
        path = f"/games/{game['id']}/records/{record_id}"
        assert api(page_server, path)["answered"] == {
            "pool": "body",
            "points": 3,
            "choose": "succeed",
        }
        assert api(page_server, path + "/verify")["verified"] is True
        errors = page.errors  # type: ignore[attr-defined]
        page.close()
        assert errors == [], errors
    assert httpx.get(page_server.base + "/health").status_code == 200
