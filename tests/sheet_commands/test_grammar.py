"""The ``[sheet:]`` grammar, rule by rule: finding tags, reading attributes, reading
integers, reading a body into a request (docs/design/sheet-commands.md "The grammar")."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.sheet_commands.grammar import (
    MAX_BODY,
    SheetTag,
    find_sheet_tags,
    read_attributes,
    read_integer,
    read_request,
)
from dicebound.sheet_commands.model import SheetRequest, Unreadable

# ── 1.1 Finding tags ──────────────────────────────────────────────────────────

FIND = [
    ("a tag is [sheet: body ]", 'x [sheet: op="rest"] y', [((2, 20), ' op="rest"')]),
    ("the head matches case-insensitively: [SHEET:", "[SHEET: a]", [((0, 10), " a")]),
    ("the head matches case-insensitively: [Sheet:", "[Sheet:a]", [((0, 9), "a")]),
    ("a body of 0 characters is a tag", "[sheet:]", [((0, 8), "")]),
    (
        "a body of exactly 1500 characters is a tag",
        "[sheet:" + "a" * MAX_BODY + "]",
        [((0, 7 + MAX_BODY + 1), "a" * MAX_BODY)],
    ),
    ("a body of 1501 characters is no tag", "[sheet:" + "a" * (MAX_BODY + 1) + "]", []),
    (
        "no tag at a head whose ] is too far: scanning continues further on",
        "[sheet:" + "a" * MAX_BODY + " [sheet: b]",
        [((7 + MAX_BODY + 1, 7 + MAX_BODY + 11), " b")],
    ),
    (
        "the body may contain [: the tag starts at the first head and runs to the only ]",
        '[sheet: x [sheet: op="rest" rest="long"]',
        [((0, 40), ' x [sheet: op="rest" rest="long"')],
    ),
    (
        "the body is untouched, leading spaces included",
        "[sheet:   op=rest  ]",
        [((0, 20), "   op=rest  ")],
    ),
    (
        "spaces after the colon are optional",
        '[sheet:op="rest" rest="long"]',
        [((0, 29), 'op="rest" rest="long"')],
    ),
    (
        "scanning is left to right and non-overlapping",
        "[sheet: a] and [sheet: b][sheet:c]",
        [((0, 10), " a"), ((15, 25), " b"), ((25, 34), "c")],
    ),
    ("no ] after the head: no tag", "[sheet: op=rest", []),
    ("a space before the colon is no head", "[sheet : a] [ sheet: b]", []),
    ("a long s is not an s (ASCII case only)", "[\u017fheet: a]", []),
    ("[sheets: is not the head", "[sheets: a]", []),
]


@pytest.mark.parametrize(("text", "expected"), [r[1:] for r in FIND], ids=[r[0] for r in FIND])
def test_find_sheet_tags(text: str, expected: list[tuple[tuple[int, int], str]]) -> None:
    assert find_sheet_tags(text) == tuple(SheetTag(span, body) for span, body in expected)


def test_a_tag_span_covers_head_body_and_close() -> None:
    text = 'He falls. [Sheet: op="damage" pool="hp" amount="7"] Ouch.'
    (tag,) = find_sheet_tags(text)
    assert text[tag.span[0] : tag.span[1]] == '[Sheet: op="damage" pool="hp" amount="7"]'


@pytest.mark.parametrize(
    "text",
    [
        "[sheet:" + " " * 400_000,
        "[sheet:" * 60_000,
        "[sheet:" * 60_000 + " " * 2000 + "]",
        ("[sheet:" + " " * 1501) * 300 + "]",
    ],
    ids=[
        "a head then 400,000 spaces and no ] is found in linear time",
        "60,000 heads and no ] at all",
        "60,000 heads whose one ] is too far",
        "300 heads each just past the reach of a far ]",
    ],
)
def test_finding_is_linear_on_hostile_text(text: str) -> None:
    started = time.perf_counter()
    assert find_sheet_tags(text) == ()
    assert time.perf_counter() - started < 0.5


# ── 1.2 Reading attributes ────────────────────────────────────────────────────

ATTRIBUTES = [
    ("a key = value pair", "pool=hp", {"pool": "hp"}),
    (
        "word characters are ASCII letters, digits and _",
        "slot_1=2 X9=a",
        {"slot_1": "2", "x9": "a"},
    ),
    ("a non-ASCII letter is not a word character: it splits a key", 'clé="x" a=1', {"a": "1"}),
    ("a key must be followed by =: the run is discarded", "foo bar=1", {"bar": "1"}),
    ("optional whitespace around =", 'pool =  "hp"', {"pool": "hp"}),
    (
        "a double-quoted value runs to the same quote",
        'name="Bard\'s Tale"',
        {"name": "Bard's Tale"},
    ),
    ("a single-quoted value runs to the same quote", "name='Say \"hi\"'", {"name": 'Say "hi"'}),
    ("a quoted value may hold whitespace and ]", 'now="a ] b" x=1', {"now": "a ] b", "x": "1"}),
    ("mode= dice=6d10: a key= after = means no value", 'mode= dice="6d10"', {"dice": "6d10"}),
    ("no value: a key = after optional whitespace", "mode = dice = 3", {"dice": "3"}),
    ("an unquoted value runs to whitespace", "amount=7 pool=hp", {"amount": "7", "pool": "hp"}),
    ("an unquoted value runs to ]", "a=b]c=d", {"a": "b", "c": "d"}),
    ("an unquoted value may hold = and quotes", "a=-x=1 b=c'd", {"a": "-x=1", "b": "c'd"}),
    ("an empty run after = means no value", "pool=   ", {}),
    ("an empty run at the body's end means no value", "pool=", {}),
    ("an unterminated quote is an ordinary character", 'pool="hit points', {"pool": "hit"}),
    ("scanning continues just after a quoted value", 'a="x=1 c=2" b=2', {"a": "x=1 c=2", "b": "2"}),
    ("each key is lowercased", "POOL=hp Who=Mira", {"pool": "hp", "who": "Mira"}),
    ("a raw value is trimmed (a no-break space is not ASCII whitespace)", "a=x\u00a0", {"a": "x"}),
    ("a pair whose raw value trims to empty is dropped", "a=\u00a0 b=1", {"b": "1"}),
    ("one quote is removed from each end", "a='\"x\"'", {"a": '"x"'}),
    ("the two quotes need not match", "a=\"x'", {"a": "x"}),
    ("a value of a single quote character becomes empty", "a='", {"a": ""}),
    ('value="" is the empty string', 'value=""', {"value": ""}),
    ("no further unescaping", 'a="x\\" b=1', {"a": "x\\", "b": "1"}),
    ("the last occurrence of a key wins", "a=1 A=2", {"a": "2"}),
    (
        "characters that are not word characters are skipped",
        ", ;pool=hp , amount=2",
        {"pool": "hp", "amount": "2"},
    ),
    (
        "a quoted key is discarded: its quote stands between the run and =",
        '"amount"=2 pool=hp',
        {"pool": "hp"},
    ),
    ("an empty body has no attributes", "", {}),
]


@pytest.mark.parametrize(
    ("body", "expected"), [r[1:] for r in ATTRIBUTES], ids=[r[0] for r in ATTRIBUTES]
)
def test_read_attributes(body: str, expected: dict[str, str]) -> None:
    assert read_attributes(body) == expected


_ONE_PATTERN = re.compile(r"""(\w+)\s*=\s*(?:("[^"]*"|'[^']*')|(?!\w+\s*=)([^\s\]]+))""", re.ASCII)


def _one_pattern_reading(body: str) -> dict[str, str]:
    """The attributes as one global pattern reads them (the reading the rules describe
    step by step): an independent oracle for the scanner."""
    found: dict[str, str] = {}
    for match in _ONE_PATTERN.finditer(body):
        value = (match.group(2) or match.group(3)).strip()
        if not value:
            continue
        value = value[1:] if value[0] in "\"'" else value
        value = value[:-1] if value and value[-1] in "\"'" else value
        found[match.group(1).lower()] = value
    return found


_BODY_PIECES = st.lists(
    st.one_of(
        st.sampled_from(
            ["=", " ", '"', "'", "]", "op", "pool", "a", "_1", "\t", "\u00a0", "é", ",", "x y"]
        ),
        st.text(max_size=4),
    ),
    max_size=14,
).map("".join)


@given(_BODY_PIECES)
def test_read_attributes_agrees_with_the_one_pattern_reading(body: str) -> None:
    assert read_attributes(body) == _one_pattern_reading(body)


# ── 1.3 Reading integers ──────────────────────────────────────────────────────

INTEGERS = [
    ("plain digits", "7", 7),
    ("a minus sign", "-1", -1),
    ("+2 reads as 2", "+2", 2),
    ("007 reads as 7", "007", 7),
    ("-0 reads as 0", "-0", 0),
    ("trimmed first", "  12 ", 12),
    ("9 digits are an integer", "123456789", 123456789),
    ("10 digits are not an integer", "1234567890", None),
    ("a decimal is not an integer", "1.5", None),
    ("an exponent is not an integer", "1e3", None),
    ("a word is not an integer", "seven", None),
    ("empty is not an integer", "", None),
    ("a sign alone is not an integer", "+", None),
    ("two signs are not an integer", "+-1", None),
    ("inner space is not an integer", "1 2", None),
    ("digits are ASCII only", "\u0663", None),
    ("absent is not an integer", None, None),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in INTEGERS], ids=[r[0] for r in INTEGERS]
)
def test_read_integer(text: str | None, expected: int | None) -> None:
    assert read_integer(text) == expected


@given(st.integers(-999_999_999, 999_999_999))
def test_a_printed_integer_reads_back(number: int) -> None:
    assert read_integer(str(number)) == number


# ── 1.4 and 1.5 Reading a request ─────────────────────────────────────────────

R = SheetRequest

REQUESTS = [
    # op names and aliases
    (
        "op is trimmed and lowercased",
        'op=" SPEND " pool=hp amount=1',
        R("spend", pool="hp", amount=1),
    ),
    ("heal means restore", "op=heal pool=hp amount=3", R("restore", pool="hp", amount=3)),
    ("cast means use", 'op=cast name="Bless"', R("use", name="Bless")),
    ("an unknown op is unreadable", "op=explode pool=hp amount=1", None),
    ("a missing op is unreadable", "pool=hp amount=1", None),
    # who
    ("who is trimmed", 'op=rest rest=long who="  Mira "', R("rest", who="Mira", rest="long")),
    (
        "who is cut to its first 100 characters",
        "op=rest rest=long who=" + "w" * 150,
        R("rest", who="w" * 100, rest="long"),
    ),
    ("an empty who means no who", 'op=rest rest=long who=""', R("rest", rest="long")),
    # spend, restore, temp, pool damage
    (
        "spend reads pool and amount",
        'op=spend pool=" slots_1 " amount="1"',
        R("spend", pool="slots_1", amount=1),
    ),
    (
        "restore reads pool and amount",
        "op=restore pool=hp amount=+4",
        R("restore", pool="hp", amount=4),
    ),
    ("temp reads pool and amount", "op=temp pool=hp amount=0", R("temp", pool="hp", amount=0)),
    (
        "damage without a track is the pool form",
        "op=damage pool=hp amount=7",
        R("damage", pool="hp", amount=7),
    ),
    (
        "damage with an empty track is the pool form",
        'op=damage track="" pool=hp amount=7',
        R("damage", pool="hp", amount=7),
    ),
    ("a pool op without a pool is unreadable", "op=spend amount=1", None),
    ("a pool op whose pool trims to empty is unreadable", 'op=spend pool="  " amount=1', None),
    ("a pool op without an amount is unreadable", "op=spend pool=hp", None),
    ("a pool op whose amount is not an integer is unreadable", "op=spend pool=hp amount=1.5", None),
    (
        "a zero amount is readable (refused later)",
        "op=spend pool=hp amount=0",
        R("spend", pool="hp", amount=0),
    ),
    (
        "a negative amount is readable (refused later)",
        "op=restore pool=hp amount=-2",
        R("restore", pool="hp", amount=-2),
    ),
    (
        "a track on a pool op other than damage is ignored",
        "op=spend pool=hp amount=1 track=x",
        R("spend", pool="hp", amount=1),
    ),
    # the wound form
    (
        "damage with a track is the wound form",
        'op=damage track=" harm " kind=" knock " amount=1',
        R("damage", track="harm", kind="knock", amount=1),
    ),
    (
        "the wound form wins over a pool",
        "op=damage pool=hp track=harm kind=tear amount=2",
        R("damage", track="harm", kind="tear", amount=2),
    ),
    (
        "the wound form reads box",
        "op=damage track=harm kind=tear amount=1 box=3",
        R("damage", track="harm", kind="tear", amount=1, box=3),
    ),
    (
        "a negative wound amount with no kind is readable",
        "op=damage track=harm amount=-1",
        R("damage", track="harm", amount=-1),
    ),
    (
        "a zero wound amount with a kind is readable (refused later)",
        "op=damage track=harm kind=tear amount=0",
        R("damage", track="harm", kind="tear", amount=0),
    ),
    ("a wound amount >= 0 with an empty kind is unreadable", "op=damage track=harm amount=1", None),
    ("a zero wound amount with no kind is unreadable", "op=damage track=harm amount=0", None),
    ("a wound form without an amount is unreadable", "op=damage track=harm kind=tear", None),
    (
        "a wound amount that is not an integer is unreadable",
        "op=damage track=harm kind=tear amount=x",
        None,
    ),
    (
        'box present but not an integer is unreadable: box="high"',
        'op=damage track=harm kind=tear amount=1 box="high"',
        None,
    ),
    # track
    ("track reads to", "op=track track=exhaustion to=2", R("track", track="exhaustion", to=2)),
    (
        "track reads by, integers re-read: by=+1 is 1",
        "op=track track=exhaustion by=+1",
        R("track", track="exhaustion", by=1),
    ),
    ("track without a track is unreadable", "op=track to=2", None),
    ("track with both to and by readable is unreadable", "op=track track=e to=1 by=1", None),
    ("track with neither to nor by is unreadable", "op=track track=e", None),
    ("track with neither readable is unreadable", "op=track track=e to=x by=1.5", None),
    (
        "an unreadable to beside a readable by is silently ignored",
        "op=track track=e to=x by=-1",
        R("track", track="e", by=-1),
    ),
    (
        "an unreadable by beside a readable to is silently ignored",
        "op=track track=e to=3 by=up",
        R("track", track="e", to=3),
    ),
    # condition
    (
        "condition with no state means on",
        "op=condition condition=Poisoned",
        R("condition", condition="Poisoned"),
    ),
    (
        "condition with an empty state means on",
        'op=condition condition=Poisoned state=""',
        R("condition", condition="Poisoned"),
    ),
    (
        "condition state on means on",
        "op=condition condition=p state=on",
        R("condition", condition="p"),
    ),
    (
        "condition state add means on",
        "op=condition condition=p state=add",
        R("condition", condition="p"),
    ),
    (
        "condition state true means on",
        "op=condition condition=p state=true",
        R("condition", condition="p"),
    ),
    (
        "condition state off means off",
        "op=condition condition=p state=off",
        R("condition", condition="p", on=False),
    ),
    (
        "condition state remove means off",
        "op=condition condition=p state=remove",
        R("condition", condition="p", on=False),
    ),
    (
        "condition state false means off",
        "op=condition condition=p state=false",
        R("condition", condition="p", on=False),
    ),
    (
        "condition state is trimmed and case-insensitive",
        'op=condition condition=p state=" OFF "',
        R("condition", condition="p", on=False),
    ),
    (
        "condition with another state word is unreadable",
        "op=condition condition=p state=maybe",
        None,
    ),
    ("condition without a condition is unreadable", "op=condition state=on", None),
    # state
    (
        "state reads state and value",
        'op=state state=" Stance " value=" Reckless "',
        R("state", state="Stance", value="Reckless"),
    ),
    ("state without a state is unreadable", "op=state value=Reckless", None),
    ("state without a value is unreadable", "op=state state=Stance", None),
    ("state with an empty value is unreadable", 'op=state state=Stance value=""', None),
    # note
    (
        "note value is quote-stripped but not trimmed",
        'op=note field=concentration value=" Bless "',
        R("note", field="concentration", value=" Bless "),
    ),
    (
        "note without a value is the empty string (clears)",
        "op=note field=concentration",
        R("note", field="concentration", value=""),
    ),
    (
        'note with value="" is the empty string',
        'op=note field=concentration value=""',
        R("note", field="concentration", value=""),
    ),
    ("note without a field is unreadable", "op=note value=x", None),
    # rest
    ("rest reads rest, trimmed", 'op=rest rest=" long "', R("rest", rest="long")),
    ("rest without a rest is unreadable", "op=rest", None),
    # use
    ("use reads name", 'op=use name="Cure Wounds"', R("use", name="Cure Wounds")),
    (
        "use reads spell when there is no name",
        'op=use spell=" Fireball "',
        R("use", name="Fireball"),
    ),
    ("use reads name before spell", "op=use name=Bless spell=Fireball", R("use", name="Bless")),
    ('name="" makes use unreadable even with spell', 'op=use name="" spell=Fireball', None),
    ("use without name or spell is unreadable", "op=use", None),
    (
        "use reads pool",
        'op=use name=Fireball pool="3rd-level slots"',
        R("use", name="Fireball", pool="3rd-level slots"),
    ),
    (
        "use with an empty pool has no pool",
        'op=use name=Fireball pool=" "',
        R("use", name="Fireball"),
    ),
    # ignored attributes
    (
        "result, now and reason written by the model are ignored",
        'op=spend pool=hp amount=1 result="refused" now="9/9" reason="x"',
        R("spend", pool="hp", amount=1),
    ),
    (
        "attributes not listed for an op are ignored",
        "op=condition condition=p amount=3 pool=hp",
        R("condition", condition="p"),
    ),
]


@pytest.mark.parametrize(
    ("body", "expected"), [r[1:] for r in REQUESTS], ids=[r[0] for r in REQUESTS]
)
def test_read_request(body: str, expected: SheetRequest | None) -> None:
    read = read_request(" " + body)
    if expected is None:
        assert read == Unreadable(raw=" " + body, who=None)
    else:
        assert read == expected


def test_who_is_read_even_when_the_tag_is_unreadable() -> None:
    assert read_request(' op="nope" who=" Tam "') == Unreadable(
        raw=' op="nope" who=" Tam "', who="Tam"
    )


# ── Never raises ──────────────────────────────────────────────────────────────


@given(st.text())
def test_finding_and_reading_never_raise_on_any_text(text: str) -> None:
    for tag in find_sheet_tags(text):
        assert isinstance(read_request(tag.body), SheetRequest | Unreadable)
    assert isinstance(read_request(text), SheetRequest | Unreadable)


_TAGGY = st.lists(
    st.one_of(
        st.sampled_from(["[sheet:", "[SHEET:", "]", "[", " ", 'op="rest"', "a" * 700]),
        st.text(max_size=5),
    ),
    max_size=12,
).map("".join)


@given(_TAGGY)
def test_found_tags_match_the_one_pattern_finding(text: str) -> None:
    pattern = re.compile(r"\[sheet:([^\]]{0,1500})\]", re.IGNORECASE | re.ASCII)
    expected = tuple(SheetTag(m.span(), m.group(1)) for m in pattern.finditer(text))
    assert find_sheet_tags(text) == expected
