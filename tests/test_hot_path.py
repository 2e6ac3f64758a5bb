"""The full check's fast paths give exactly what the plain paths give.

Issue 15 made the check faster: the record's layout is worked out once per set of keys,
a well-formed tag body is read once and remembered, a pool's faces are read from a
table, and the dice-sum roller builds its named tuple by position. Each is compared
here with a plain reference written the obvious way, over generated inputs, so a fast
path can never drift from the rule it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.dice import SeededDice
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import ladder_in_force, prepare_check
from dicebound.errors import UsageError
from dicebound.kinds import dice_pool, dice_sum
from dicebound.kinds.base import Rolled
from dicebound.record import (
    CORE_KEYS,
    EXTRA_KEYS,
    KIND_KEYS,
    TAIL_KEYS,
    Record,
    build_record,
    escape_value,
)
from dicebound.tags import parse
from dicebound.tags.parse import parse_tags

# -- the record ------------------------------------------------------------------------

_SIGNED = {"bonus", "adjust", "effects"}
_PAGE_ORDER = [*CORE_KEYS, *EXTRA_KEYS, *KIND_KEYS]


def reference_record(pairs: Sequence[tuple[str, str | int | bool]]) -> Record:
    """The record's rule written plainly (record.py's docstring): the page's keys in the
    page's order, then unknown keys as given, then seed and forced; ints as digits (with
    a sign for bonus, adjust and effects), bools as true/false, values escaped."""
    canon = {k.lower(): k for k in (*_PAGE_ORDER, *TAIL_KEYS)}

    def rank(item: tuple[int, str]) -> tuple[int, int]:
        index, key = item
        if key in TAIL_KEYS:
            return (len(_PAGE_ORDER) + 1 + TAIL_KEYS.index(key), index)
        if key in _PAGE_ORDER:
            return (_PAGE_ORDER.index(key), index)
        return (len(_PAGE_ORDER), index)

    named = [(canon.get(k.lower(), k.lower()), v) for k, v in pairs]
    keys = [k for k, _ in named]
    if len(set(keys)) != len(keys):
        raise UsageError("twice")
    out = []
    for index, key in sorted(enumerate(keys), key=rank):
        value = named[index][1]
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = f"{value:+d}" if key in _SIGNED else str(value)
        else:
            text = value
        out.append((key, escape_value(text)))
    return Record(tuple(out))


_KEYS = st.sampled_from(
    [*EXTRA_KEYS, *KIND_KEYS, "who", "Bonus", "ZERODICE", "custom", "other-key", "x_1"]
)
_VALUES = st.one_of(
    st.integers(-50, 50),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["Mira", 'a "quoted" word', "two\nlines", "tab\there", ""]),
)


@settings(max_examples=examples(400), deadline=None)
@given(
    extras=st.lists(st.tuples(_KEYS, _VALUES), max_size=8),
    rolls=st.lists(st.integers(1, 20) | st.sampled_from(["+", "-", "0"]), max_size=6),
    numbers=st.tuples(st.integers(-30, 30), st.integers(-30, 30), st.integers(-30, 30)),
    skill=st.sampled_from(["Stealth", 'Say "hi"', "Line\nbreak"]),
    seed=st.none() | st.sampled_from(["42", "7-1"]),
    forced=st.booleans(),
)
def test_a_record_is_laid_out_as_the_plain_rule_lays_it_out(
    extras: list[tuple[str, str | int | bool]],
    rolls: list[int | str],
    numbers: tuple[int, int, int],
    skill: str,
    seed: str | None,
    forced: bool,
) -> None:
    core: list[tuple[str, str | int | bool]] = [
        ("skill", skill),
        ("dc", 12),
        ("rolls", "|".join(map(str, rolls))),
        ("used", numbers[0]),
        ("modifier", numbers[1]),
        ("total", numbers[2]),
        ("result", "success"),
        ("mode", "normal"),
        ("resolution", "sum"),
        ("dice", "1d20"),
    ]
    tail: list[tuple[str, str | int | bool]] = []
    if seed is not None:
        tail.append(("seed", seed))
    if forced:
        tail.append(("forced", True))
    args = {
        "skill": skill,
        "dc": 12,
        "rolls": rolls,
        "used": numbers[0],
        "modifier": numbers[1],
        "total": numbers[2],
        "result": "success",
        "dice": "1d20",
        "extras": extras,
        "seed": seed,
        "forced": forced,
    }
    try:
        expected = reference_record([*core, *extras, *tail])
    except UsageError:
        with pytest.raises(UsageError):
            build_record(**args)  # type: ignore[arg-type]
        return
    built = build_record(**args)  # type: ignore[arg-type]
    assert built == expected
    assert built.to_tag() == expected.to_tag()


def test_a_key_given_twice_is_refused_every_time_not_only_the_first() -> None:
    for _ in range(3):  # the layout is remembered; a refusal must not be
        with pytest.raises(UsageError, match="given twice"):
            build_record(
                skill="S",
                dc=1,
                rolls=[1],
                used=1,
                modifier=0,
                total=1,
                result="success",
                dice="1d20",
                extras=[("who", "A"), ("WHO", "B")],
            )


# -- the tag lexer ---------------------------------------------------------------------


_TAG_TEXTS = st.lists(
    st.tuples(
        st.sampled_from(["skill", "dc", "who", "DC", "Skill", "mode", "zeroDice"]),
        st.text(alphabet=st.characters(blacklist_characters='"'), max_size=8),
    ),
    max_size=5,
).map(lambda pairs: "[skill_check: " + " ".join(f'{k}="{v}"' for k, v in pairs) + "]")


@settings(max_examples=examples(300), deadline=None)
@given(tag=_TAG_TEXTS, before=st.text(max_size=10))
def test_a_remembered_tag_body_reads_as_a_fresh_one(tag: str, before: str) -> None:
    text = before + tag
    remembered = parse_tags(text)
    again = parse_tags(text)  # from the memory now
    parse._read_well_formed.cache_clear()
    fresh = parse_tags(text)
    assert remembered == again == fresh
    plain = parse._lex_slowly(text, len(before), len(before) + len("[skill_check:"), len(text))
    if fresh and not isinstance(plain, parse._Fault):
        assert (fresh[0].attrs, fresh[0].duplicates) == (plain.attrs, plain.duplicates)


def _parse_plainly(text: str) -> tuple[parse.TagMatch, ...]:
    """``parse_tags`` as the module docstring says it, written the obvious way: the
    opener found by its regex, every tag lexed character by character."""
    found: list[parse.TagMatch] = []
    pos = 0
    while (opener := parse._OPENER.search(text, pos)) is not None:
        start, body = opener.start(), opener.end()
        lexed = parse._lex_slowly(text, start, body, len(text))
        if isinstance(lexed, parse._Fault):
            end = parse._recover_end(text, body)
            lexed = parse._lex_slowly(text, start, body, end)
            if isinstance(lexed, parse._Fault):
                found.append(parse.TagMatch((start, end), text[start:end], error=lexed.message))
                pos = end
                continue
        span = (start, lexed.end)
        found.append(
            parse.TagMatch(span, text[start : lexed.end], lexed.attrs, None, lexed.duplicates)
        )
        pos = lexed.end
    return tuple(found)


_PIECES = st.sampled_from(
    [
        "[skill_check:",
        "[SKILL_Check:",
        "[skill_checks:",
        "[",
        "]",
        '"',
        "'",
        " ",
        ",",
        "\n",
        "=",
        'skill="Stealth"',
        ' dc="15"',
        " who=Bram",
        ' note="a]b"',
        ' note="[skill_check: x="',
        "9x",
        "Mira",
        "é",
        "\u212a",  # the Kelvin sign: lower-cases to an ASCII k, which the opener refuses
    ]
)


@settings(max_examples=examples(600), deadline=None)
@given(pieces=st.lists(_PIECES, max_size=14))
def test_the_lexer_reads_every_text_as_the_plain_rule_does(pieces: list[str]) -> None:
    """The lexer looks for a bracket before the opener and reads a well-formed tag only
    to its first ``]``: every text, however its brackets and quotes fall, reads the same."""
    text = "".join(pieces)
    parse._read_well_formed.cache_clear()
    assert parse_tags(text) == _parse_plainly(text)
    assert parse_tags(text) == _parse_plainly(text)  # from the memory now


def test_a_long_tag_body_is_read_but_not_remembered() -> None:
    parse._read_well_formed.cache_clear()
    long_value = "x" * (parse._REMEMBERED_BODY + 10)
    (match,) = parse_tags(f'[skill_check: skill="Stealth" note="{long_value}"]')
    assert match.get("note") == long_value
    assert parse._read_well_formed.cache_info().currsize == 0
    parse_tags('[skill_check: skill="Stealth"]')
    assert parse._read_well_formed.cache_info().currsize == 1


# -- the rollers -----------------------------------------------------------------------


def _prepared_checks(kind: str) -> list[object]:
    """Every skill check of every packaged ruleset of ``kind``, for each character."""
    checks = []
    for ruleset_id in packaged_rulesets():
        ruleset = read_ruleset(ruleset_id)
        if ruleset.resolution.kind != kind:
            continue
        ladder = ladder_in_force(ruleset, ())
        for name in packaged_characters(ruleset_id):
            character = read_character(ruleset, f"{ruleset_id}/{name}")
            for skill in ruleset.sheet.skills:
                for extra in ("", ' explode="10"', ' mode="advantage"'):
                    tag = f'[skill_check: skill="{skill.id}" dc="3"{extra}]'
                    try:
                        prepared = prepare_check(ruleset, [character], parse_tags(tag)[0], ladder)
                    except Exception:  # untrained and refused, or an attribute not offered
                        continue
                    checks.append(prepared.prepared.check)
    assert checks
    return checks


def test_a_pool_reads_each_face_from_its_table_as_face_effect_reads_it() -> None:
    for check in _prepared_checks("dice-pool"):
        assert isinstance(check, dice_pool.PoolCheck)
        table = dice_pool.model.face_table(check)
        assert len(table) == check.sides + 1
        for face in range(1, check.sides + 1):
            assert table[face] == dice_pool.face_effect(check, face)


def test_the_dice_sum_roller_fills_every_field_of_its_result_by_name() -> None:
    for index, check in enumerate(_prepared_checks("dice-sum")[:200]):
        assert isinstance(check, dice_sum.SumCheck)
        rolled = dice_sum.roll(check, SeededDice(str(index)))
        by_name = Rolled(**rolled._asdict())
        assert rolled == by_name and type(rolled) is Rolled
        assert all(type(r) is str for r in rolled.rolls)
        assert rolled.modifier == check.modifier and rolled.mode == check.mode
        assert rolled.resolution == "sum" and rolled.marks == ()
        assert rolled.dice == check.config.dice_text
        assert rolled.total == rolled.outcome.total
        assert rolled.success == rolled.outcome.success


# -- the results, built by position -----------------------------------------------------


def test_a_result_built_by_position_equals_one_built_by_name() -> None:
    """The engine builds its named tuples through ``values.new_tuple`` (no Python-level
    ``__new__``): the same value as the constructor makes, field for field."""
    from dicebound.engine import CheckResult
    from dicebound.tagpass import CheckReport
    from dicebound.values import new_tuple

    record = Record((("skill", "Stealth"),))
    marks = (("hit",),)
    values = (record, "Mira", "Success", True, None, None, (), "[x]", None, (3,), marks, ("n",))
    made = new_tuple(CheckResult, values)
    named = CheckResult(**dict(zip(CheckResult._fields, values, strict=True)))
    assert made == named and type(made) is CheckResult and hash(made) == hash(named)
    assert made.faces == (3,) and made.ask == "[x]"
    report = new_tuple(CheckReport, ("text", (made,), (), (), (), (), (), None, None, ()))
    assert report == CheckReport(text="text", items=(made,)) and report.results == (made,)
    with pytest.raises(AttributeError):
        made.who = "Bram"  # type: ignore[misc]
