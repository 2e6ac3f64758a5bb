"""A check remembered per throw gives exactly what throwing it afresh gives.

Issue 15's full check: a seeded check whose dice are known before they are thrown (no
face decides what is thrown next), that pays nothing and has at most 1,024 possible
throws remembers what each throw came to; the next time the same faces show, the
result is read off the memo with the new seed written in (``engine.quick_check``).
Every test here compares that path with the long one (the checks family's
``resolve_alone`` switched off), over every check the packaged characters' reports ask, so the memo can never
drift from the rules it stands for.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound import engine
from dicebound.dice import ForcedFaces, SeededDice, SeededThrow
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import (
    NO_CHOICES,
    CheckResult,
    PlayerChoices,
    PreparedCheck,
    ladder_in_force,
)
from dicebound.errors import DiceError
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, Live, PoolValue, Wounds, frozen_map
from dicebound.tagpass import CheckReport, resolve_text
from dicebound.tagpass.families import checks as checks_family
from dicebound.tagpass.families.checks import CHECKS, ChecksFamily
from dicebound.tagpass.families.checks.stand_ins import _live_key
from dicebound.tagpass.family import SeededText
from dicebound.tags.parse import parse_tags


def _the_long_way(
    ruleset: Ruleset, party: list[Character], text: str, seed: str | int
) -> CheckReport:
    """``resolve_text`` with the memo of throws switched off: every tag thrown afresh."""
    saved = ChecksFamily.resolve_alone
    ChecksFamily.resolve_alone = lambda *args: None  # type: ignore[method-assign, assignment]
    try:
        return resolve_text(ruleset, party, text, seed=seed)
    finally:
        ChecksFamily.resolve_alone = saved  # type: ignore[method-assign]


@cache
def _asked_checks() -> list[tuple[Ruleset, Character, str]]:
    """Every tag the packaged characters' reports ask (each skill, save and ability at
    every ladder step), and each again asking for advantage."""
    return [check for ruleset_id in packaged_rulesets() for check in _report_tags(ruleset_id)]


def _report_tags(ruleset_id: str) -> Iterator[tuple[Ruleset, Character, str]]:
    ruleset = read_ruleset(ruleset_id)
    for name in packaged_characters(ruleset_id):
        character = read_character(ruleset, f"{ruleset_id}/{name}")
        for row in build_report(ruleset, character).rows:
            for cell in row.cells:
                if cell.tag is None:
                    continue
                yield ruleset, character, cell.tag
                yield ruleset, character, cell.tag.replace("]", ' mode="advantage"]')


def _same(quick: CheckReport, slow: CheckReport) -> None:
    """Equal in every field, those ``to_json`` leaves out included (ask, roller, marks)."""
    assert quick.to_json() == slow.to_json()
    assert quick == slow


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_every_asked_check_reads_the_same_off_the_memo_as_thrown_afresh(ruleset_id: str) -> None:
    """One packaged ruleset's checks a test (so parallel workers share them out), each
    thrown with three seeds, another three for each next check: across a ruleset's
    hundreds of checks the seeds are thousands, and every face of every die shows. Every
    check whose dice are known before they are thrown was read off the memo."""
    for i, (ruleset, character, tag) in enumerate(_report_tags(ruleset_id)):
        text = f"Over the ridge. {tag} Then quiet."
        party = [character]
        for seed in range(3 * i, 3 * i + 3):
            quick = resolve_text(ruleset, party, text, seed=seed)
            _same(quick, _the_long_way(ruleset, party, text, seed))
        entry = _entry(ruleset, character, text)
        assert entry is None or entry.dice is None or entry.throws, tag


def test_most_asked_checks_have_their_dice_known_before_they_are_thrown() -> None:
    """Most of the packaged checks are remembered per throw (all six kinds have some)."""
    known = 0
    for ruleset, character, tag in _asked_checks():
        entry = _entry(ruleset, character, f"Over the ridge. {tag} Then quiet.")
        known += entry is not None and entry.dice is not None
    assert known > 500


def _entry(ruleset: Ruleset, character: Character, text: str) -> Any:
    """The memo's entry for the text's one tag; None for a tag the character cannot roll
    (refused on both paths alike)."""
    match = parse_tags(text)[0]
    try:
        return engine.remembered_check(ruleset, [character], match, ladder_in_force(ruleset, ()))
    except Exception:
        return None


def test_a_text_of_several_tags_seeds_each_as_the_long_way_does() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "mira")]
    text = (
        '[skill_check: skill="Stealth" dc="15"] and '
        '[skill_check: skill="Perception" dc="12" mode="advantage"] and '
        '[skill_check: skill="Stealth" dc="10"]'
    )
    for seed in ("7", "abc", "12-3", 99):
        quick = resolve_text(ruleset, party, text, seed=seed)
        _same(quick, _the_long_way(ruleset, party, text, seed))
        assert [r.record.get("seed") for r in quick.results] == [
            str(seed),
            f"{seed}-1",
            f"{seed}-2",
        ]


@pytest.mark.parametrize(
    ("why", "ruleset_id", "character", "text", "seed"),
    [
        (
            "a tag beside one whose dice roll on (explosions)",
            "wod-pool",
            "lucia",
            '[skill_check: skill="Firearms" dc="3"] [skill_check: skill="Firearms" dc="3" '
            'explode="10"]',
            "5",
        ),
        (
            "a tag that names no skill",
            "dnd5e-srd",
            "mira",
            '[skill_check: skill="Stealth" dc="15"] [skill_check: dc="3"]',
            "5",
        ),
        (
            "a tag that cannot be lexed",
            "dnd5e-srd",
            "mira",
            '[skill_check: skill="Stealth" dc="15" 9x="1"]',
            "5",
        ),
        (
            "a seed the record escapes",
            "dnd5e-srd",
            "mira",
            '[skill_check: skill="Stealth" dc="15"]',
            'a"b',
        ),
        (
            "a seed with a line break",
            "dnd5e-srd",
            "mira",
            '[skill_check: skill="Stealth" dc="15"]',
            "a\nb",
        ),
    ],
)
def test_a_text_the_memo_does_not_answer_is_resolved_the_long_way(
    why: str, ruleset_id: str, character: str, text: str, seed: str
) -> None:
    ruleset = read_ruleset(ruleset_id)
    party = [read_character(ruleset, character)]
    found = [CHECKS.read(text, m.span[0]) for m in parse_tags(text)]
    ladder = ladder_in_force(ruleset, ())
    ask = SeededText(ruleset, party, text, ladder, seed, NO_CHOICES)
    assert CHECKS.resolve_alone(ask, found) is None, why
    _same(
        resolve_text(ruleset, party, text, seed=seed),
        _the_long_way(ruleset, party, text, seed),
    )


def test_a_check_that_pays_is_thrown_afresh_and_paid() -> None:
    """Bram spends a point of Resolve on Soothe (three dice): the check changes what he
    holds, so it is never read off the memo."""
    from thornwatch import warden, watch

    ruleset = watch()
    party = [warden(ruleset)]
    text = '[skill_check: skill="Soothe" dc="1" spend="resolve:1"]'
    match = parse_tags(text)[0]
    entry = engine.remembered_check(ruleset, party, match, ladder_in_force(ruleset, ()))
    assert entry.prepared.prepared.costs and entry.dice is None
    for seed in range(5):
        quick = resolve_text(ruleset, party, text, seed=seed)
        assert quick.results[0].changes and quick.party != tuple(party)
        _same(quick, _the_long_way(ruleset, party, text, seed))


def test_a_choice_made_after_the_roll_goes_the_long_way() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "mira")]
    text = '[skill_check: skill="Stealth" dc="15"]'
    plain = resolve_text(ruleset, party, text, seed=1)
    chosen = resolve_text(ruleset, party, text, seed=1, choices=PlayerChoices(choose="fail"))
    # a dice-sum check leaves no choice open: the choice changes nothing it reads
    assert chosen == plain
    unchosen = resolve_text(ruleset, party, text, seed=1, choices=PlayerChoices())
    assert unchosen == plain


def test_only_checks_with_few_known_throws_are_remembered_per_throw() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "mira")]
    ladder = ladder_in_force(ruleset, ())
    plain = parse_tags('[skill_check: skill="Stealth" dc="15"]')[0]
    advantage = parse_tags('[skill_check: skill="Stealth" dc="15" mode="advantage"]')[0]
    assert engine.remembered_check(ruleset, party, plain, ladder).dice is not None
    entry = engine.remembered_check(ruleset, party, advantage, ladder)
    assert entry.dice is not None and entry.dice.sides == (20, 20)
    for seed in range(50):
        resolve_text(ruleset, party, advantage.raw, seed=seed)
    assert 0 < len(entry.throws) <= 400
    wod = read_ruleset("wod-pool")
    lucia = [read_character(wod, "lucia")]
    ten_dice = parse_tags('[skill_check: skill="Firearms" dc="3" bonus="2"]')[0]
    # ten d10s: 10**10 throws, past the 1,024 remembered
    assert engine.remembered_check(wod, lucia, ten_dice, ladder_in_force(wod, ())).dice is None


def test_a_kinds_known_dice_are_the_dice_it_throws() -> None:
    """``throw_sides`` says every die ``roll`` throws, in order: forced faces of exactly
    those sides are all used, and one face fewer runs out."""
    seen_kinds = set()
    for ruleset, character, tag in _asked_checks():
        try:
            prepared = engine.prepare_check(
                ruleset, [character], parse_tags(tag)[0], ladder_in_force(ruleset, ())
            )
        except Exception:
            continue
        sides = prepared.player.throw_sides(prepared.prepared.check)  # type: ignore[attr-defined]
        if sides is None:
            continue
        seen_kinds.add(ruleset.resolution.kind)
        faces = SeededThrow(sides).faces("3")
        forced = ForcedFaces(faces)
        prepared.player.roll(prepared.prepared.check, forced)
        assert forced.left == 0
        if sides:
            with pytest.raises(DiceError):
                prepared.player.roll(prepared.prepared.check, ForcedFaces(faces[:-1]))
    assert len(seen_kinds) == 6


def test_a_known_throw_shows_the_written_down_test_vectors() -> None:
    """dice.py's vectors, seed "42": a d20 shows 19, 19, 11, 9; a d6 shows 5, 3, 5, 5
    (one die from its first draw, the rest through the seeded source)."""
    assert SeededThrow((20,)).faces("42") == (19,)
    assert SeededThrow((20, 20, 20, 20)).faces("42") == (19, 19, 11, 9)
    assert SeededThrow((6, 6, 6, 6)).faces("42") == (5, 3, 5, 5)


@settings(max_examples=examples(200), deadline=None)
@given(
    seed=st.text(max_size=12),
    sides=st.lists(
        st.one_of(st.integers(1, 100), st.integers(2**62, 2**64)), min_size=0, max_size=6
    ),
)
def test_a_known_throw_shows_what_the_seeded_source_shows(seed: str, sides: list[int]) -> None:
    """Dice past 2**62 sides reject about a quarter to a half of their draws: the draws
    skipped must be the source's."""
    source = SeededDice(seed)
    assert SeededThrow(tuple(sides)).faces(seed) == tuple(source.throw(n) for n in sides)


def test_a_die_no_draw_can_throw_is_refused_not_thrown_forever() -> None:
    with pytest.raises(DiceError, match="at least one face"):
        SeededThrow((6, 0))
    with pytest.raises(DiceError, match="at most 2\\*\\*64 faces"):
        SeededThrow((2**64 + 1,))
    with pytest.raises(DiceError, match="at most 2\\*\\*64 faces"):
        SeededDice("1").throw(2**64 + 1)


def test_the_throws_remembered_on_a_ruleset_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``_THROWS_KEPT`` throws (all checks together) the ruleset lets go of what it
    remembered, as it does past its memo's size; the results stay the same."""
    monkeypatch.setattr(engine, "_THROWS_KEPT", 30)
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "mira")]
    texts = [
        '[skill_check: skill="Stealth" dc="15" mode="advantage"]',
        '[skill_check: skill="Perception" dc="12"]',
    ]
    cleared = 0
    for seed in range(200):
        for text in texts:
            before = ruleset.memo.get("throws kept", 0)
            _same(
                resolve_text(ruleset, party, text, seed=seed),
                _the_long_way(ruleset, party, text, seed),
            )
            kept = [e for e in ruleset.memo.values() if isinstance(e, engine.RememberedCheck)]
            assert sum(len(e.throws) for e in kept) <= 30
            assert ruleset.memo.get("throws kept", 0) <= 30
            cleared += ruleset.memo.get("throws kept", 0) < before
    assert cleared >= 5  # 400 advantage throws and 20 plain ones cannot all be kept


# ── Checks among sheet commands ─────────────────────────────────────────────


def _the_long_way_among_commands(
    ruleset: Ruleset, party: list[Character], text: str, seed: str | int
) -> CheckReport:
    """``resolve_text`` with no check among sheet commands read off the memo."""
    saved = checks_family.quick_among_others
    checks_family.quick_among_others = lambda *args: None
    try:
        return resolve_text(ruleset, party, text, seed=seed)
    finally:
        checks_family.quick_among_others = saved


def _commands(ruleset: Ruleset, who: str) -> list[str]:
    """A command on each thing of the sheet a check might read: every plain track up
    one, every wound track marked, every pool spent, every condition on."""
    sheet = ruleset.sheet
    said = f'who="{who}"'
    out = [f'[sheet: op="track" track="{t.id}" by="1" {said}]' for t in sheet.tracks if not t.kinds]
    out += [
        f'[sheet: op="damage" track="{t.id}" kind="{t.kinds[-1].id}" amount="2" {said}]'
        for t in sheet.tracks
        if t.kinds
    ]
    out += [f'[sheet: op="spend" pool="{p.id}" amount="1" {said}]' for p in sheet.pools]
    out += [f'[sheet: op="condition" condition="{c.id}" {said}]' for c in sheet.conditions]
    return out


def _scenes() -> Iterator[tuple[str, Ruleset, list[Character], str]]:
    """Per packaged ruleset, a text of its two characters' checks (from their reports,
    each naming its roller) between commands that change them one thing at a time."""
    for ruleset_id in packaged_rulesets():
        ruleset = read_ruleset(ruleset_id)
        party = [
            read_character(ruleset, f"{ruleset_id}/{n}") for n in packaged_characters(ruleset_id)
        ]
        pieces: list[str] = []
        for turn, member in enumerate(party):
            checks = [
                cell.tag.replace("[skill_check:", f'[skill_check: who="{member.name}"', 1)
                for row in build_report(ruleset, member).rows
                for cell in row.cells
                if cell.tag is not None
            ][turn::5][:6]
            for check, command in zip(checks, _commands(ruleset, member.name) * 3, strict=False):
                pieces += [command, check, check.replace(f'who="{member.name}"', "")]
        yield ruleset_id, ruleset, party, " ".join(pieces)


def _answers(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What ``quick_among_others`` answers, each time, from now on in the test."""
    answers: list[object] = []
    real = checks_family.quick_among_others

    def kept(*args: Any) -> tuple[CheckResult, str] | PreparedCheck | None:
        answers.append(real(*args))
        return answers[-1]  # type: ignore[return-value]

    monkeypatch.setattr(checks_family, "quick_among_others", kept)
    return answers


def test_a_check_among_sheet_commands_reads_the_same_off_the_memo_as_thrown_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each check after a command is looked up by its roller's stand-in: the result is
    the long way's, roller and all, on a first play, on a replay (the stand-ins met
    again) and on the party the text left."""
    answers = _answers(monkeypatch)
    for why, ruleset, party, text in _scenes():
        for seed in range(3):
            quick = resolve_text(ruleset, party, text, seed=seed)
            again = resolve_text(ruleset, list(quick.party), text, seed=seed)
            _same(quick, _the_long_way_among_commands(ruleset, party, text, seed))
            _same(again, _the_long_way_among_commands(ruleset, list(quick.party), text, seed))
            assert quick.results, why
    assert sum(isinstance(a, tuple) for a in answers) > 300


def _odd(**members: Any) -> Live:
    """A live value holding what its types do not admit: no loader or command makes one."""
    return Live(**members)


def _pool(value: Any, temp: Any = 0) -> PoolValue:
    return PoolValue(value, temp)


LIVES_APART = [
    pytest.param(Live(pools=frozen_map({"hp": PoolValue(2)})), True, id="a plain pool"),
    pytest.param(
        _odd(pools=frozen_map({"hp": _pool(2.0)})), False, id="2.0 is no int: it reads as 2.0"
    ),
    pytest.param(_odd(pools=frozen_map({"hp": _pool(2, True)})), False, id="true is no int"),
    pytest.param(_odd(tracks=frozen_map({"t": True})), False, id="a track of true"),
    pytest.param(_odd(pools=frozen_map({"hp": {"value": 2}})), False, id="a JSON-shaped pool"),
    pytest.param(_odd(pools={"hp": PoolValue(2)}), False, id="a dict, not a FrozenMap"),
    pytest.param(_odd(conditions=["prone"]), False, id="a list of conditions"),
    pytest.param(_odd(conditions=("prone", 3)), False, id="a condition that is no string"),
    pytest.param(
        Live(wounds=frozen_map({"h": Wounds(("a", ""), 1)}), text=frozen_map({"n": "x"})),
        True,
        id="wounds and text",
    ),
]


@pytest.mark.parametrize(("live", "keyed"), LIVES_APART)
def test_a_live_state_has_a_key_only_when_every_entry_is_of_the_type_a_command_writes(
    live: Live, keyed: bool
) -> None:
    assert (_live_key(live) is not None) == keyed


def test_equal_keys_are_lives_no_reading_can_tell_apart() -> None:
    """Equal values in the same members, in the same order, have equal keys; the same
    entry in another member, or in another order, does not."""
    one = Live(pools=frozen_map({"hp": PoolValue(3, 1), "ki": PoolValue(2)}), conditions=("a",))
    same = Live(pools=frozen_map({"hp": PoolValue(3, 1), "ki": PoolValue(2)}), conditions=("a",))
    reordered = Live(
        pools=frozen_map({"ki": PoolValue(2), "hp": PoolValue(3, 1)}), conditions=("a",)
    )
    assert _live_key(one) == _live_key(same)
    assert _live_key(one) != _live_key(reordered)
    assert _live_key(Live(text=frozen_map({"x": "y"}))) != _live_key(
        Live(states=frozen_map({"x": "y"}))
    )


def test_a_check_whose_roller_is_not_found_among_commands_is_the_long_ways_error() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "dnd5e-srd/mira"), read_character(ruleset, "dnd5e-srd/bram")]
    text = (
        '[sheet: op="damage" pool="hit_points" amount="2"] '
        '[skill_check: skill="Stealth" dc="12" who="Nobody"] '
        '[skill_check: skill="Stealth" dc="12" who="Bram"]'
    )
    quick = resolve_text(ruleset, party, text, seed=4)
    assert len(quick.errors) == 1 and len(quick.results) == 1
    assert quick.results[0].roller is quick.party[1]
    _same(quick, _the_long_way_among_commands(ruleset, party, text, 4))


def test_a_check_among_commands_that_pays_is_prepared_once_and_paid_by_its_roller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bram's Soothe spends Resolve: never read off the memo, it comes back prepared
    for him, is thrown the long way and paid from him as he stands after the command."""
    from thornwatch import warden, watch

    ruleset = watch()
    party = [warden(ruleset)]
    text = (
        '[sheet: op="spend" pool="resolve" amount="1"] '
        '[skill_check: skill="Soothe" dc="1" spend="resolve:1"] '
        '[sheet: op="restore" pool="resolve" amount="1"] '
        '[skill_check: skill="Soothe" dc="1" spend="resolve:1"]'
    )
    answers = _answers(monkeypatch)
    for seed in range(4):
        quick = resolve_text(ruleset, party, text, seed=seed)
        assert all(r.changes for r in quick.results) and len(quick.results) == 2
        _same(quick, _the_long_way_among_commands(ruleset, party, text, seed))
    assert [type(a) for a in answers] == [PreparedCheck] * 8
