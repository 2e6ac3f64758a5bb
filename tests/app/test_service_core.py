"""The pure pieces a service calls: the live state written back in the file's shape,
what a thrown tag keeps for later (its ask, its roller, its faces), settling a check
after the roll, the odds as JSON and the Game Master's whole lesson."""

from __future__ import annotations

import importlib
import io
import json
from typing import Any

import pytest

from dicebound.character import live_to_json, load_character
from dicebound.edge.cli import main
from dicebound.edge.files import packaged_characters, packaged_rulesets, read_ruleset
from dicebound.engine import CheckResult, PlayerChoices, settle_after
from dicebound.errors import TagError, UsageError
from dicebound.lesson import gm_lesson
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, Paid, pay
from dicebound.tagpass import resolve_text
from dicebound.values import replace
from repo_paths import REPO

DATA = REPO / "src" / "dicebound" / "data"
PACKAGED = [(r, c) for r in packaged_rulesets() for c in packaged_characters(r)]

_character_tests = importlib.import_module(
    f"{__package__}.test_character" if __package__ else "test_character"
)


def _file(ruleset_id: str, name: str) -> dict[str, Any]:
    path = DATA / "characters" / ruleset_id / f"{name}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _round_trip(ruleset: Ruleset, raw: dict[str, Any], character: Character) -> Character:
    again = {"name": character.name, "live": live_to_json(character.live)}
    if "sheet" in raw:
        again["sheet"] = raw["sheet"]
    return load_character(ruleset, again)


def _run(*argv: str) -> str:
    out = io.StringIO()
    assert main(list(argv), out=out) == 0
    return out.getvalue()


# -- live_to_json --------------------------------------------------------------------


@pytest.mark.parametrize(("ruleset_id", "name"), PACKAGED, ids=[f"{r}/{c}" for r, c in PACKAGED])
def test_every_packaged_characters_live_state_reads_back_equal(ruleset_id: str, name: str) -> None:
    ruleset = read_ruleset(ruleset_id)
    raw = _file(ruleset_id, name)
    character = load_character(ruleset, raw)
    again = _round_trip(ruleset, raw, character)
    assert again.live == character.live
    assert again == character
    written = live_to_json(character.live)
    assert all(value for value in written.values())  # empty keys are left out
    json.dumps(written)  # plain JSON


def test_the_packaged_characters_cover_both_kinds_of_wound_track() -> None:
    fills = set()
    for ruleset_id, name in PACKAGED:
        ruleset = read_ruleset(ruleset_id)
        character = load_character(ruleset, _file(ruleset_id, name))
        for track_id in character.live.wounds:
            track = next(t for t in ruleset.sheet.tracks if t.id == track_id)
            fills.add(track.fill)
    assert "indexed" in fills


def test_a_full_live_state_reads_back_equal() -> None:
    # Temporary points, a plain track, sequential and indexed wounds with overflow,
    # text, conditions and states (the fixture ruleset declares them all).
    ruleset: Ruleset = _character_tests.RS
    raw: dict[str, Any] = _character_tests.FULL
    character = load_character(ruleset, raw)
    written = live_to_json(character.live)
    assert written["pools"]["hp"] == {"value": 4, "temp": 2}
    assert written["pools"]["nerve"] == {"value": 0}
    assert written["wounds"]["harm"]["overflow"] == 2
    assert written["wounds"]["strain"] == {"marks": ["", "strain"]}
    assert written["conditions"] == ["shaken", "pinned"]
    assert _round_trip(ruleset, raw, character) == character


def test_an_untouched_live_state_is_written_empty() -> None:
    ruleset = read_ruleset("advanced-resolution")
    character = load_character(ruleset, _file("advanced-resolution", "peet"))
    assert live_to_json(character.live) == {}


def test_the_live_state_after_a_payment_reads_back_equal() -> None:
    ruleset = read_ruleset("advanced-resolution")
    raw = _file("advanced-resolution", "peet")
    peet = load_character(ruleset, raw)
    paid = pay(ruleset, peet, [("luck", 5), ("body", 1)])
    assert isinstance(paid, Paid)
    written = live_to_json(paid.character.live)
    assert written["pools"]["luck"] == {"value": 1}
    assert _round_trip(ruleset, raw, paid.character) == paid.character


# -- what a result keeps ---------------------------------------------------------------

AR = read_ruleset("advanced-resolution")
PEET = load_character(AR, _file("advanced-resolution", "peet"))
MAUD = load_character(AR, _file("advanced-resolution", "maud"))
LOCK = '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
PLAIN_LOCK = '[skill_check: skill="Lockpick" difficulty="Uncommon"]'


def test_a_result_keeps_its_ask_its_roller_as_it_stood_and_the_faces_it_used() -> None:
    text = f"Peet kneels. {LOCK} Then again: {LOCK}"
    choices = PlayerChoices(after=("luck", 5))
    report = resolve_text(AR, [PEET, MAUD], text, faces=[5, 1, 6, 5, 1, 6], choices=choices)
    first, second = report.results
    assert (first.ask, second.ask) == (LOCK, LOCK)
    assert first.faces == (5, 1, 6) and second.faces == (5, 1, 6)
    assert first.roller == PEET
    # The second tag was thrown after the first paid 5 Luck.
    assert second.roller is not None and second.roller != PEET
    assert [(c.pool, c.from_, c.to) for c in first.changes] == [("luck", 6, 1)]
    assert second.changes == ()  # 1 Luck cannot buy the raise
    for item in (first, second):
        body = item.to_json()
        assert "ask" not in body and "roller" not in body and "faces" not in body


def test_a_seeded_result_keeps_no_faces() -> None:
    report = resolve_text(AR, [PEET], f"{LOCK} {PLAIN_LOCK}", seed="7")
    assert all(r.faces == () for r in report.results)
    assert [r.ask for r in report.results] == [LOCK, PLAIN_LOCK]
    assert all(r.roller == PEET for r in report.results)


def test_faces_are_sliced_per_tag_across_a_refused_tag() -> None:
    text = f'{PLAIN_LOCK} [skill_check: skill="Nope"] {PLAIN_LOCK}'
    report = resolve_text(AR, [PEET], text, faces=[1, 1, 6, 6, 6, 6])
    first, second = report.results
    assert (first.faces, second.faces) == ((1, 1, 6), (6, 6, 6))
    assert len(report.errors) == 1


# -- settle_after ----------------------------------------------------------------------


def _comparable(result: CheckResult) -> tuple[object, ...]:
    return (result.record, result.outcome, result.success, result.critical, result.choice)


def test_peets_lock_settled_after_the_roll_is_the_rules_example() -> None:
    first = resolve_text(AR, [PEET], LOCK, faces=[5, 1, 6]).results[0]
    assert first.record.as_dict()["offer"] == "Triumph: 5 from body, mind or luck"
    assert first.roller is not None
    choices = PlayerChoices(after=("luck", 5))
    settled = settle_after(AR, [first.roller], PEET, first.ask, faces=first.faces, choices=choices)
    assert settled.result.outcome == "Triumph"
    assert [(c.who, c.pool, c.from_, c.to) for c in settled.paid] == [("Sneeky Peet", "luck", 6, 1)]
    assert settled.result.changes == settled.paid
    assert settled.message is None
    assert settled.character is not None
    assert settled.character.live.pools["luck"].value == 1
    assert settled.result.faces == (5, 1, 6) and settled.result.ask == LOCK
    direct = resolve_text(AR, [PEET], LOCK, faces=[5, 1, 6], choices=choices).results[0]
    assert _comparable(settled.result) == _comparable(direct)
    assert settled.result.changes == direct.changes


def test_a_spend_that_buys_nothing_pays_nothing_and_says_why() -> None:
    settled = settle_after(
        AR, [PEET], PEET, LOCK, faces=[5, 1, 6], choices=PlayerChoices(after=("luck", 4))
    )
    assert settled.paid == () and settled.character is None
    assert settled.message is not None and "5" in settled.message
    assert settled.result.outcome == "Success"
    direct = resolve_text(
        AR, [PEET], LOCK, faces=[5, 1, 6], choices=PlayerChoices(after=("luck", 4))
    ).results[0]
    assert _comparable(settled.result) == _comparable(direct)


def test_a_spend_is_judged_against_the_roller_as_it_stands_now() -> None:
    poorer = pay(AR, PEET, [("luck", 2)])
    assert isinstance(poorer, Paid)
    settled = settle_after(
        AR,
        [PEET],
        poorer.character,
        LOCK,
        faces=[5, 1, 6],
        choices=PlayerChoices(after=("luck", 5)),
    )
    assert settled.paid == () and settled.message is not None  # 4 Luck left: not enough
    assert settled.result.outcome == "Success"


def test_a_seeded_settlement_equals_the_check_made_with_the_choice() -> None:
    for seed in map(str, range(40)):
        for after in (("luck", 5), ("body", 3), ("mind", 6)):
            choices = PlayerChoices(after=after)
            direct = resolve_text(AR, [PEET, MAUD], LOCK, seed=seed, choices=choices).results[0]
            settled = settle_after(AR, [PEET, MAUD], PEET, LOCK, seed=seed, choices=choices)
            assert _comparable(settled.result) == _comparable(direct)
            assert settled.paid == direct.changes
            assert (settled.character is None) == (direct.changes == ())


def test_the_checks_own_costs_are_not_paid_again() -> None:
    choices = PlayerChoices(choose="succeed")
    settled = settle_after(AR, [PEET], PEET, PLAIN_LOCK, faces=[1, 1, 6], choices=choices)
    assert settled.paid == () and settled.character is None and settled.message is None


def test_a_sacrifice_is_settled_by_the_players_choice() -> None:
    opened = resolve_text(AR, [PEET], PLAIN_LOCK, faces=[1, 1, 6]).results[0]
    assert (opened.outcome, opened.choice) == ("Sacrifice", "open")
    for choose, success in (("succeed", True), ("fail", False)):
        choices = PlayerChoices(choose=choose)  # type: ignore[arg-type]
        settled = settle_after(AR, [PEET], PEET, PLAIN_LOCK, faces=[1, 1, 6], choices=choices)
        assert (settled.result.success, settled.result.choice) == (success, choose)
        assert settled.result.record.as_dict()["choice"] == choose
        direct = resolve_text(AR, [PEET], PLAIN_LOCK, faces=[1, 1, 6], choices=choices)
        assert _comparable(settled.result) == _comparable(direct.results[0])


def test_choosing_where_no_choice_is_open_is_refused() -> None:
    with pytest.raises(TagError, match="no open choice"):
        settle_after(
            AR, [PEET], PEET, LOCK, faces=[5, 1, 6], choices=PlayerChoices(choose="succeed")
        )


def test_a_choice_beside_a_spend_is_refused_where_the_spend_opens_none() -> None:
    # An answer settles the record: a choice the raise leaves nothing to apply to is
    # refused, and nothing is paid. (`check --after luck:5 --choose succeed` applies the
    # choice only where one is open, as it does across every check of its text.)
    choices = PlayerChoices(after=("luck", 5), choose="succeed")
    with pytest.raises(TagError, match=r"^the raise makes it a Triumph, which leaves no choice"):
        settle_after(AR, [PEET], PEET, LOCK, faces=[5, 1, 6], choices=choices)
    direct = resolve_text(AR, [PEET], LOCK, faces=[5, 1, 6], choices=choices).results[0]
    assert direct.outcome == "Triumph" and direct.choice is None
    # A spend that lifts a Sacrifice to a Success leaves no choice to make.
    with pytest.raises(TagError, match=r"^the raise makes it a Success, which leaves no choice"):
        settle_after(AR, [PEET], PEET, PLAIN_LOCK, faces=[1, 1, 6], choices=choices)
    lifted = settle_after(
        AR, [PEET], PEET, PLAIN_LOCK, faces=[1, 1, 6], choices=PlayerChoices(after=("luck", 5))
    )
    assert (lifted.result.outcome, lifted.result.choice) == ("Success", None)
    assert [(c.pool, c.from_, c.to) for c in lifted.paid] == [("luck", 6, 1)]


def test_a_kind_without_spending_after_the_roll_refuses_a_spend() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    mira = load_character(ruleset, _file("dnd5e-srd", "mira"))
    tag = '[skill_check: skill="Stealth" dc="15"]'
    with pytest.raises(TagError, match="no spending after the roll"):
        settle_after(ruleset, [mira], mira, tag, seed="3", choices=PlayerChoices(after=("hp", 1)))
    # Without choices it is the check as it was thrown.
    settled = settle_after(ruleset, [mira], mira, tag, seed="3", choices=PlayerChoices())
    direct = resolve_text(ruleset, [mira], tag, seed="3").results[0]
    assert _comparable(settled.result) == _comparable(direct)


def test_a_tag_that_does_not_resolve_is_refused() -> None:
    with pytest.raises(TagError, match="Nope"):
        settle_after(
            AR, [PEET], PEET, '[skill_check: skill="Nope"]', seed="1", choices=PlayerChoices()
        )


def test_misuse_is_a_usage_error() -> None:
    none = PlayerChoices()
    with pytest.raises(UsageError):
        settle_after(AR, [PEET], PEET, LOCK, choices=none)
    with pytest.raises(UsageError):
        settle_after(AR, [PEET], PEET, LOCK, seed="1", faces=[5, 1, 6], choices=none)
    with pytest.raises(UsageError):
        settle_after(AR, [PEET], PEET, f"{LOCK} {LOCK}", seed="1", choices=none)
    with pytest.raises(UsageError):
        settle_after(AR, [PEET], PEET, LOCK, faces=[5, 1, 6, 6], choices=none)
    with pytest.raises(UsageError):
        settle_after(AR, [PEET], replace(PEET, name="Someone"), LOCK, seed="1", choices=none)


# -- odds and the lesson -------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset_id", "character", "tag", "after"),
    [
        ("dnd5e-srd", "mira", 'skill="Stealth" dc="15"', None),
        ("advanced-resolution", "peet", LOCK, None),
        ("advanced-resolution", "peet", LOCK, "luck:5"),
        ("coc7e", "eleanor", 'skill="Spot Hidden"', None),
    ],
)
def test_odds_json_is_what_the_command_prints(
    ruleset_id: str, character: str, tag: str, after: str | None
) -> None:
    ruleset = read_ruleset(ruleset_id)
    who = load_character(ruleset, _file(ruleset_id, character))
    pool = None if after is None else (after.split(":")[0], int(after.split(":")[1]))
    odds = check_odds(ruleset, who, tag, after=pool)
    argv = ["odds", "--ruleset", ruleset_id, "--character", character, "--json", tag]
    if after is not None:
        argv[1:1] = ["--after", after]
    assert json.dumps(odds.to_json(), indent=2) + "\n" == _run(*argv)


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_the_lesson_is_what_gm_prints(ruleset_id: str) -> None:
    ruleset = read_ruleset(ruleset_id)
    assert gm_lesson(ruleset) + "\n" == _run("gm", "--ruleset", ruleset_id)
    for name in packaged_characters(ruleset_id)[:1]:
        who = load_character(ruleset, _file(ruleset_id, name))
        printed = _run("gm", "--ruleset", ruleset_id, "--character", name)
        assert gm_lesson(ruleset, character=who) + "\n" == printed
        assert "\n\nThe party:\n" in printed


def test_the_lesson_for_a_named_skill() -> None:
    text = gm_lesson(AR, character=PEET, skill="Lockpick")
    assert "chance of success for Sneeky Peet's Lockpick" in text
    printed = _run(
        "gm", "--ruleset", "advanced-resolution", "--character", "peet", "--skill", "Lockpick"
    )
    assert text + "\n" == printed
