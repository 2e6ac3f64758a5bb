"""The record: the tag rewritten in place (docs/design/format.md "The record").

The core attributes first, in their fixed order (skill dc rolls used modifier total
result mode resolution dice), then the extras that apply in theirs, then the kinds' own
attributes, then dicebound's ``seed`` or ``forced="true"``; a value's ``"`` and line
breaks become ``'``; a tag that could not be resolved is written back sparse, the ask
only, still owing a roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.errors import UsageError
from dicebound.record import (
    ASK_KEYS,
    CORE_KEYS,
    EXTRA_KEYS,
    KIND_KEYS,
    Record,
    build_record,
    escape_value,
    record_from_attrs,
    sparse_record,
)
from dicebound.tags import parse_tags, rewrite


def stealth(**over: Any) -> Record:
    """The summary line's example record (docs/design/format.md "The record"), with changes."""
    args: dict[str, Any] = {
        "skill": "Stealth",
        "dc": 15,
        "rolls": [3, 18],
        "used": 18,
        "modifier": 9,
        "total": 27,
        "result": "success",
        "mode": "advantage",
        "resolution": "sum",
        "dice": "1d20",
    }
    args.update(over)
    return build_record(**args)


def read_back(record: Record) -> Record:
    (match,) = parse_tags(record.to_tag())
    assert match.error is None
    return record_from_attrs(match.attrs)


def test_the_format_example_is_written_exactly() -> None:
    assert stealth().to_tag() == (
        '[skill_check: skill="Stealth" dc="15" rolls="3|18" used="18" modifier="9" total="27" '
        'result="success" mode="advantage" resolution="sum" dice="1d20"]'
    )


def test_core_keys_come_first_in_design_order() -> None:
    record = stealth(extras={"zeroDice": True, "threshold": 8}, seed=1)
    assert record.keys[:10] == CORE_KEYS


def test_extras_follow_format_order_whatever_order_they_are_given_in() -> None:
    given = [(k, "1") for k in reversed(EXTRA_KEYS)]
    record = stealth(extras=given)
    assert record.keys == CORE_KEYS + EXTRA_KEYS


def test_the_page_attributes_follow_the_extras() -> None:
    given = [(k, "1") for k in reversed(KIND_KEYS + EXTRA_KEYS)]
    record = stealth(extras=given)
    assert record.keys == CORE_KEYS + EXTRA_KEYS + KIND_KEYS


def test_unknown_keys_go_after_the_page_attributes_in_the_order_given_then_seed_then_forced() -> (
    None
):
    record = stealth(
        extras=[("zeta", "1"), ("outcome", "Hard success"), ("alpha", "2"), ("from", "Bless")],
        seed="42",
        forced=True,
    )
    assert record.keys[10:] == ("from", "outcome", "zeta", "alpha", "seed", "forced")
    assert record.get("forced") == "true"


def test_seed_and_forced_are_written_only_when_given() -> None:
    keys = stealth().keys
    assert "seed" not in keys
    assert "forced" not in keys
    assert stealth(seed=0).get("seed") == "0"


ESCAPE_ROWS = [
    ("a double quote becomes '", 'the "Quiet"', "the 'Quiet'"),
    ("a line feed becomes '", "A\nB", "A'B"),
    ("a carriage return becomes '", "A\rB", "A'B"),
    ("CR LF is one line break", "A\r\nB", "A'B"),
    ("two line feeds are two breaks", "A\n\nB", "A''B"),
    ("a Unicode line separator is a line break", "A\u2028B", "A'B"),
    ("a paragraph separator is a line break", "A\u2029B", "A'B"),
    ("a next-line control is a line break", "A\x85B", "A'B"),
    ("single quotes and ] stay", "Bram's ]", "Bram's ]"),
    ("typographic quotes stay", "“Ward”", "“Ward”"),
    ("a tab is not a line break", "A\tB", "A\tB"),
]


@pytest.mark.parametrize(
    ("value", "escaped"), [r[1:] for r in ESCAPE_ROWS], ids=[r[0] for r in ESCAPE_ROWS]
)
def test_values_are_escaped(value: str, escaped: str) -> None:
    assert escape_value(value) == escaped
    record = stealth(extras={"from": value}, skill=value)
    assert record.get("from") == escaped
    assert record.get("skill") == escaped
    assert read_back(record) == record


VALUE_ROWS: list[tuple[str, str, object, str]] = [
    ("bonus is signed", "bonus", 2, "+2"),
    ("a negative bonus", "bonus", -3, "-3"),
    ("a zero bonus keeps its sign", "bonus", 0, "+0"),
    ("adjust is signed", "adjust", 1, "+1"),
    ("effects are signed", "effects", -1, "-1"),
    ("a penalty is a plain negative number", "penalty", -2, "-2"),
    ("a count is a plain number", "auto", 1, "1"),
    ("true is written true", "complication", True, "true"),
    ("false is written false", "darkHighest", False, "false"),
    ("a string is kept as written", "bonus", "+2", "+2"),
]


@pytest.mark.parametrize(
    ("key", "value", "text"), [r[1:] for r in VALUE_ROWS], ids=[r[0] for r in VALUE_ROWS]
)
def test_values_are_written_as_text(key: str, value: Any, text: str) -> None:
    assert stealth(extras={key: value}).get(key) == text


def test_keys_take_the_page_case_and_unknown_keys_are_lower_cased() -> None:
    record = stealth(extras=[("ZERODICE", True), ("upgradeown", 1), ("MyKey", "x")])
    assert "zeroDice" in record.keys
    assert "upgradeOwn" in record.keys
    assert "mykey" in record.keys
    assert read_back(record) == record


def test_core_values_are_written_as_text() -> None:
    record = build_record(
        skill="Ward",
        dc=2,
        rolls=[],
        used=0,
        modifier=0,
        total=0,
        result="critical_failure",
        resolution="successes",
        dice="0d10",
    )
    assert record.get("rolls") == ""
    assert record.rolls == ()
    assert record.get("mode") == "normal"
    assert record.to_tag().startswith('[skill_check: skill="Ward" dc="2" rolls="" used="0"')


@pytest.mark.parametrize(
    ("extras", "words"),
    [
        ([("who", "A"), ("who", "B")], '"who" is given twice'),
        ([("DC", "3")], '"dc" is given twice'),
        ([("seed", "1")], '"seed" is given twice'),
        ([("zerodice", "1"), ("zeroDice", "1")], '"zeroDice" is given twice'),
        ([("not a key", "1")], "not an attribute name"),
    ],
    ids=[
        "an extra given twice",
        "an extra repeating a core key",
        "seed both as an extra and as seed",
        "a key given twice in two cases",
        "a key outside the grammar",
    ],
)
def test_a_bad_build_is_refused(extras: list[tuple[str, str]], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        stealth(extras=extras, seed="9")


@pytest.mark.parametrize(
    ("attrs", "words"),
    [
        ((("a", "1"), ("A", "2")), "given twice"),
        ((("a", 'x"y'),), "double quote or a line break"),
        ((("a", "x\ny"),), "double quote or a line break"),
        ((("1a", "x"),), "not an attribute name"),
    ],
    ids=["a duplicate key", "a double quote", "a line break", "a bad key"],
)
def test_a_record_keeps_its_invariants(attrs: tuple[tuple[str, str], ...], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        Record(attrs)


def test_lookups() -> None:
    record = stealth(extras={"bonus": -2, "outcome": "Hard success", "complication": True})
    assert record.get("BONUS") == "-2"
    assert record.get_int("bonus") == -2
    assert record.get_int("outcome") is None
    assert record.get_int("absent") is None
    assert record.is_true("complication")
    assert not record.is_true("outcome")
    assert record.rolls == ("3", "18")
    assert record.is_resolved
    assert record.as_dict()["dc"] == "15"


# --- sparse records -------------------------------------------------------------------

SPARSE_ROWS: list[tuple[str, str, str]] = [
    (
        "the ask only, none of the model's numbers",
        '[skill_check: skill="Stealth" dc="15" rolls="3|18" used="18" modifier="9" total="27" '
        'result="success" resolution="sum" dice="1d20" who="Bram"]',
        '[skill_check: skill="Stealth" dc="15" who="Bram"]',
    ),
    (
        "asks come in a fixed order",
        '[skill_check: with="Sinew" threshold="8" bonus="-2" who="Bram the Quiet" dc="2" skill="Ward"]',
        '[skill_check: skill="Ward" dc="2" who="Bram the Quiet" with="Sinew" threshold="8" bonus="-2"]',
    ),
    (
        "difficulty is kept on an unrolled ask",
        '[skill_check: skill="Ward" difficulty="Grim" explode="9"]',
        '[skill_check: skill="Ward" difficulty="Grim" explode="9"]',
    ),
    (
        "a bare advantage flag stays a bare flag",
        "[skill_check: skill=Stealth advantage]",
        '[skill_check: skill="Stealth" advantage]',
    ),
    (
        "mode written out is kept",
        "[skill_check: skill=Stealth mode=disadvantage]",
        '[skill_check: skill="Stealth" mode="disadvantage"]',
    ),
    (
        "unknown attributes are not asks",
        "[skill_check: skill=Stealth loudly=yes branch=2]",
        '[skill_check: skill="Stealth"]',
    ),
    (
        "every ask the page and step-pool name",
        "[skill_check: skill=Brawl dc=3 use=Potence spend=blood:3 reroll=careful double=9 pool=d20:1 "
        "dark=2 upgrade=1 setback=1 upgradeOwn=1 quality=agility tool=1]",
        '[skill_check: skill="Brawl" dc="3" spend="blood:3" use="Potence" reroll="careful" double="9" '
        'pool="d20:1" dark="2" upgrade="1" setback="1" upgradeOwn="1" quality="agility" tool="1"]',
    ),
    (
        "a value is escaped",
        "[skill_check: skill='the \"Quiet\" way']",
        "[skill_check: skill=\"the 'Quiet' way\"]",
    ),
    ("nothing asked", "[skill_check: total=3]", "[skill_check:]"),
]


@pytest.mark.parametrize(
    ("tag", "sparse"), [r[1:] for r in SPARSE_ROWS], ids=[r[0] for r in SPARSE_ROWS]
)
def test_sparse_record(tag: str, sparse: str) -> None:
    (match,) = parse_tags(tag)
    record = sparse_record(match.attrs)
    assert record.to_tag() == sparse
    assert not record.is_resolved
    assert read_back(record) == record
    for number in ("rolls", "used", "modifier", "total", "result", "dice", "resolution"):
        assert not record.has(number)


def test_every_ask_key_survives_a_sparse_record() -> None:
    attrs = [(k.lower(), "1") for k in reversed(ASK_KEYS)]
    assert sparse_record(attrs).keys == ASK_KEYS


def test_a_sparse_record_keeps_the_first_of_a_repeated_ask() -> None:
    assert sparse_record([("dc", "2"), ("DC", "5")]).get("dc") == "2"


def test_record_from_attrs_keeps_the_written_order_and_the_first_value() -> None:
    record = record_from_attrs(
        [("zerodice", "true"), ("skill", "Ward"), ("SKILL", "Nerve"), ("x", 'a"b')]
    )
    assert record.attrs == (("zeroDice", "true"), ("skill", "Ward"), ("x", "a'b"))


# --- properties -----------------------------------------------------------------------

_KNOWN = {k.lower() for k in (*CORE_KEYS, *EXTRA_KEYS, *KIND_KEYS, *ASK_KEYS, "seed", "forced")}
any_value = st.one_of(st.text(max_size=16), st.integers(-50, 50), st.booleans())
unknown_keys = st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True).filter(
    lambda k: k not in _KNOWN
)


@st.composite
def records(draw: st.DrawFn) -> Record:
    extra_keys = draw(st.lists(st.sampled_from(EXTRA_KEYS + KIND_KEYS), unique=True, max_size=8))
    extra_keys += draw(st.lists(unknown_keys, unique=True, max_size=3))
    extras = [(k, draw(any_value)) for k in draw(st.permutations(extra_keys))]
    return build_record(
        skill=draw(st.text(max_size=20)),
        dc=draw(st.integers(-5, 100)),
        rolls=draw(st.lists(st.integers(-1, 100), max_size=8)),
        used=draw(st.integers(-10, 200)),
        modifier=draw(st.integers(-10, 20)),
        total=draw(st.integers(-10, 200)),
        result=draw(
            st.sampled_from(["success", "failure", "critical_success", "critical_failure"])
        ),
        mode=draw(st.sampled_from(["normal", "advantage", "disadvantage"])),
        resolution=draw(st.sampled_from(["sum", "successes"])),
        dice=draw(st.sampled_from(["1d20", "2d6", "0d10", "4dF"])),
        extras=extras,
        seed=draw(st.one_of(st.none(), st.integers(0, 10**12), st.text(max_size=6))),
        forced=draw(st.booleans()),
    )


_RANK = {k: i for i, k in enumerate((*CORE_KEYS, *EXTRA_KEYS, *KIND_KEYS))}


@settings(max_examples=examples(200))
@given(records())
def test_a_record_reads_back_from_its_own_tag(record: Record) -> None:
    assert read_back(record) == record


@settings(max_examples=examples(200))
@given(records())
def test_a_record_is_always_in_record_order(record: Record) -> None:
    keys = record.keys
    assert keys[:10] == CORE_KEYS
    ranks = [_RANK.get(k, len(_RANK)) for k in keys if k not in ("seed", "forced")]
    assert ranks == sorted(ranks)
    tail = [k for k in keys if k in ("seed", "forced")]
    assert list(keys[len(keys) - len(tail) :]) == tail


@settings(max_examples=examples(100))
@given(
    st.lists(
        st.tuples(st.text(st.characters(blacklist_characters="["), max_size=20), records()),
        min_size=1,
        max_size=3,
    )
)
def test_records_written_into_prose_read_back(pieces: list[tuple[str, Record]]) -> None:
    # the engine's flow: the model's tags are found, replaced by records, and read again
    text = "".join(f'{p}[skill_check: skill="x{i}"]' for i, (p, _) in enumerate(pieces))
    matches = parse_tags(text)
    saved = rewrite(text, [(m.span, r.to_tag()) for m, (_, r) in zip(matches, pieces, strict=True)])
    assert [record_from_attrs(m.attrs) for m in parse_tags(saved)] == [r for _, r in pieces]


@settings(max_examples=examples(100))
@given(
    st.lists(
        st.tuples(
            st.sampled_from([k.lower() for k in ASK_KEYS] + ["rolls", "total", "zz"]),
            st.text(max_size=8),
        ),
        max_size=10,
    )
)
def test_a_sparse_record_reads_back_and_owes_a_roll(attrs: list[tuple[str, str]]) -> None:
    record = sparse_record(attrs)
    assert read_back(record) == record
    assert not record.is_resolved
    assert set(record.keys) <= set(ASK_KEYS)


def test_mapping_extras_and_pair_extras_build_the_same_record() -> None:
    pairs = [("who", "Bram"), ("bonus", 1)]
    mapping: Mapping[str, Any] = dict(pairs)
    assert stealth(extras=pairs) == stealth(extras=mapping)


def test_the_record_orders_the_kinds_keys_as_the_kinds_declare_them() -> None:
    # The record sits below the kinds and spells their keys out; the kinds declare them.
    from dicebound.kinds.keys import RECORD_KEYS

    declared = (
        "outcome",
        *(key for kind in RECORD_KEYS.values() for key in kind.writes),
        "choice",
        *(key for kind in RECORD_KEYS.values() for key in kind.after_choice),
    )
    assert declared == KIND_KEYS
