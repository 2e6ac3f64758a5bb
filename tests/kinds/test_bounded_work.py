"""Bounded work: every place where the input sets how much work is done has a cap,
enforced with a clear error or a clamp (README, "Limits"); and the defects the fuzz
campaigns and the caps' review found, each as a regression row."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicebound.character import load_character
from dicebound.edge.files import MAX_CHARACTER_BYTES, read_character, read_ruleset
from dicebound.errors import CharacterInvalid, LimitExceeded
from dicebound.kinds.dice_pool import PoolCheck, distribution
from dicebound.kinds.dice_pool.odds import (
    MAX_FIRST_BOTCHES_EXPLODING,
    MAX_ODDS_WORK,
    MAX_ORDERED_WORK,
    odds_work,
)
from dicebound.spend import Reroll
from dicebound.tagpass import MAX_FORCED_FACES, MAX_TAGS_PER_TEXT, MAX_TEXT_CHARS, resolve_text
from dicebound.values import replace
from http_api_support import cli

DND = read_ruleset("dnd5e-srd")
MIRA = read_character(DND, "mira")
STEALTH = '[skill_check: skill="Stealth" dc="15"]'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x" * (MAX_TEXT_CHARS + 1), "one text may be at most 1,000,000"),
        (STEALTH * (MAX_TAGS_PER_TEXT + 1), "one text may hold at most 1,000"),
    ],
    ids=["a text past 1,000,000 characters", "a text of 1,001 tags"],
)
def test_a_text_past_its_caps_is_refused(text: str, says: str) -> None:
    with pytest.raises(LimitExceeded, match=says):
        resolve_text(DND, [MIRA], text, seed="1")


def test_a_text_at_its_caps_is_resolved() -> None:
    report = resolve_text(DND, [MIRA], STEALTH * MAX_TAGS_PER_TEXT, seed="1")
    assert len(report.results) == MAX_TAGS_PER_TEXT


def test_forced_faces_past_their_cap_are_refused() -> None:
    with pytest.raises(LimitExceeded, match="at most 100,000 are read"):
        resolve_text(DND, [MIRA], STEALTH, faces=[1] * (MAX_FORCED_FACES + 1))


# ── the pool's odds: refused up front past their bound ───────────────────────


def _pool(dice: int, extra: int, **rules: object) -> PoolCheck:
    return PoolCheck(sides=10, dice=dice, target=6, needed=1, max_extra=extra, **rules)  # type: ignore[arg-type]


def test_a_100_die_pool_with_explosions_and_a_re_throw_is_answered() -> None:
    """Each state visited once: 100 dice, 30 added at most, every die thrown again once
    (the re-throw cap of 130 cannot bind), with cancel and botch."""
    check = _pool(
        100,
        30,
        explode_from=10,
        reroll=Reroll(6, "once"),
        max_rethrows=130,
        cancel_up_to=1,
        botch_up_to=1,
    )
    assert odds_work(check) <= MAX_ORDERED_WORK
    dist = distribution(check)
    assert sum(dist.probabilities().values()) == 1
    assert max(o.total for o in dist.weights) == 130  # every die a success, 30 added


def test_a_pool_whose_dice_fill_the_re_throw_cap_is_answered() -> None:
    check = _pool(50, 50, explode_from=10, reroll=Reroll(6, "once"), cancel_up_to=1)
    assert odds_work(check) <= MAX_ORDERED_WORK
    assert sum(distribution(check).probabilities().values()) == 1


def test_an_until_re_throw_beside_explosions_goes_round_by_round_within_the_bound() -> None:
    """Refused once each state was visited once (its estimate counting the visits); the
    rounds answer it, as before. (The twos both explode and are thrown again: the
    sequences would answer it otherwise.)"""
    check = _pool(6, 6, explode_from=2, reroll=Reroll(2, "until"), cancel_up_to=1, botch_up_to=1)
    assert odds_work(check) <= MAX_ODDS_WORK
    assert sum(distribution(check).probabilities().values()) == 1


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        (
            "once",
            r"refused past 200,000 \(dice times the explosion cap times the dice past the "
            r"re-throw cap, here 100 × 100 × 100\)",
        ),
        ("until", r"refused past 1,600 \(dice times the explosion cap, here 100 × 100\)"),
    ],
)
def test_far_past_the_bound_a_re_throw_beside_explosions_is_refused_at_once(
    mode: str, says: str
) -> None:
    """100 dice, 100 added at most, 100 re-throws: refused before the estimate. (Where no
    face both explodes and is thrown again the throw is counted as sequences and
    answered, test_pool_sequences.py; here the sixes do both.)"""
    check = _pool(
        100,
        100,
        explode_from=6,
        reroll=Reroll(6, mode),  # type: ignore[arg-type]
        cancel_up_to=1,
        botch_up_to=1,
    )
    with pytest.raises(LimitExceeded, match=says):
        distribution(check)


@pytest.mark.parametrize(
    ("dice", "rethrows", "bound"),
    [(60, 100, MAX_ORDERED_WORK), (40, 39, MAX_ODDS_WORK)],
    ids=["each state once", "round by round"],
)
def test_past_the_work_bound_the_odds_are_refused_before_any_is_done(
    dice: int, rethrows: int, bound: int
) -> None:
    """A re-throw cap at least half the dice and added dice: each state visited once;
    below it, round by round. Each estimate passes its own bound. (The sixes both explode
    and are thrown again: the sequences would answer it otherwise.)"""
    check = _pool(
        dice,
        dice,
        explode_from=6,
        reroll=Reroll(6, "once"),
        max_rethrows=rethrows,
        cancel_up_to=1,
        botch_up_to=1,
        exceptional=5,
    )
    with pytest.raises(
        LimitExceeded,
        match=rf"the exact odds of \d+d10 with these rules would take more than {bound:,} "
        r"steps to compute \(more than about a second\); ask for fewer dice",
    ):
        distribution(check)


def test_a_half_or_more_botch_beside_explosions_is_estimated_and_refused_past_the_bound() -> None:
    """The botch faces among the dice first thrown ride through every state the
    explosions reach: 100d10 took 7 s before anything asked. Within the quick bound the
    estimate decides (58 dice: refused, and told to drop the explosions, as there is no
    re-throw); far past it the refusal comes at once."""
    near = replace(
        _pool(58, 58, explode_from=10, cancel_up_to=1, botch_up_to=1), botch_rule="halfOrMore"
    )
    assert 58 * 58 * 29 <= MAX_FIRST_BOTCHES_EXPLODING < odds_work(near)
    with pytest.raises(LimitExceeded, match=r"or without the explosions\.$"):
        distribution(near)
    far = replace(near, dice=100, max_extra=100)
    with pytest.raises(
        LimitExceeded,
        match=r"refused past 100,000 \(dice times the explosion cap times half the dice, "
        r"here 100 × 100 × 50\)",
    ):
        distribution(far)


def test_a_half_or_more_botch_beside_explosions_within_the_bound_is_answered() -> None:
    check = replace(
        _pool(40, 40, explode_from=10, cancel_up_to=1, botch_up_to=1), botch_rule="halfOrMore"
    )
    assert odds_work(check) <= MAX_ODDS_WORK
    dist = distribution(check)
    assert sum(dist.probabilities().values()) == 1
    assert any(o.complication for o in dist.weights)


def test_within_the_bound_the_estimate_is_never_below_the_work() -> None:
    check = _pool(12, 12, explode_from=10, reroll=Reroll(6, "once"), cancel_up_to=1, botch_up_to=1)
    assert 0 < odds_work(check) <= MAX_ORDERED_WORK
    assert sum(distribution(check).weights.values()) > 0


# ── regressions: defects found ───────────────────────────────────────────────


def _file(tmp_path: object, text: str) -> str:
    path = tmp_path / "c.json"  # type: ignore[operator]
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # found by probing the caps: a character nested 10,000 deep crashed the command
        # line with Python's RecursionError instead of refusing the file
        ('{"name": "x", "sheet": ' + "[" * 10_000 + "]" * 10_000 + "}", "nested too deeply"),
        ('{"name": "x", "sheet": {"v": NaN}}', "NaN is not a JSON number"),
        ('{"name": "x", "sheet": {"v": ' + "9" * 5000 + "}}", "a number of more than 4,300 digits"),
        (
            '{"name": "x", "notes": "' + "x" * MAX_CHARACTER_BYTES + '"}',
            "a character file may be at most 65,536 bytes",
        ),
    ],
    ids=["nested too deeply", "NaN", "a number too long to read", "over 64 KB"],
)
def test_a_character_file_past_what_is_read_is_refused(
    tmp_path: object, text: str, says: str
) -> None:
    with pytest.raises(CharacterInvalid, match=says):
        read_character(DND, _file(tmp_path, text))
    assert (
        cli(
            "check",
            "--ruleset",
            "dnd5e-srd",
            "--character",
            _file(tmp_path, text),
            "--seed",
            "1",
            STEALTH,
            code=1,
        )
        == ""
    )


def test_a_character_read_from_json_is_not_refused_for_what_it_does_not_hold() -> None:
    body = json.loads(json.dumps({"name": "Plain"}))
    assert load_character(DND, body).name == "Plain"


def test_the_service_refuses_a_character_nested_too_deeply(service: Any) -> None:
    """Found with the same probe: over HTTP the same file was a server error."""
    from http_api_support import make_game, problem_of
    from service_support import JSON

    game = make_game(service, "dnd5e-srd")
    body = '{"name": "Deep", "sheet": ' + "[" * 10_000 + "]" * 10_000 + "}"
    answer = service.put(game.character("Deep"), content=body, headers={**game.headers, **JSON})
    problem = problem_of(answer, 422)
    assert problem["detail"] == (
        "the character file is nested too deeply to read (more than 100 objects and lists deep)."
    )
    assert service.get(game.path(), headers=game.headers).json()["characters"] == []


@pytest.mark.parametrize(
    ("where", "path"),
    [(("dice", 1), "resolution.dice[1].label"), (("symbols", 3), "resolution.symbols[3].label")],
)
def test_a_label_holding_half_a_character_is_refused_at_import(
    where: tuple[str, int], path: str
) -> None:
    """Found by fuzz/rulesets.py (two inputs, 400,000 mutations): a symbol pool whose die or
    symbol label held a lone surrogate imported, then crashed writing the record's
    ``symbolDetails`` (UnicodeEncodeError)."""
    from dicebound.compiler import load_ruleset_text
    from dicebound.edge.files import ruleset_text
    from dicebound.errors import RulesetInvalid

    doc = json.loads(ruleset_text("genesys")[0])
    doc["resolution"][where[0]][where[1]]["label"] = "\ud800"
    with pytest.raises(RulesetInvalid) as refused:
        load_ruleset_text(json.dumps(doc, ensure_ascii=False))
    (problem,) = refused.value.problems
    assert problem.where == path and "lone surrogate" in problem.message
