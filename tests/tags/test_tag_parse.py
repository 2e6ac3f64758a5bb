"""The check-tag lexer (docs/design/format.md "The check tag", docs/guide/tag.md "The
tag a model writes").

The rule under test: the tag name is matched in any case; keys are lower-cased; a value
may be double-quoted, single-quoted or bare, with spaces around ``=``; a tag may stand
anywhere in the Game Master's text, any number of times. Typographic quotes and the
other sloppy writing of a model are read as a person would read them
(docs/design/check-flow.md "1. Finding the tags").
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.errors import UsageError
from dicebound.tags import QUOTES, TagMatch, format_tag, is_key, parse_tags, rewrite

Attrs = tuple[tuple[str, str], ...]


def only(text: str) -> TagMatch:
    matches = parse_tags(text)
    assert len(matches) == 1, matches
    return matches[0]


# --- one tag, read right --------------------------------------------------------------

GRAMMAR_ROWS: list[tuple[str, str, Attrs]] = [
    (
        "double quotes",
        '[skill_check: skill="Stealth" dc="15"]',
        (("skill", "Stealth"), ("dc", "15")),
    ),
    (
        "single quotes",
        "[skill_check: skill='Stealth' dc='15']",
        (("skill", "Stealth"), ("dc", "15")),
    ),
    ("bare values", "[skill_check: skill=Stealth dc=15]", (("skill", "Stealth"), ("dc", "15"))),
    (
        "typographic double quotes keep inner spaces",
        "[skill_check: skill=“Sleight of Hand” dc=“15”]",
        (("skill", "Sleight of Hand"), ("dc", "15")),
    ),
    (
        "typographic single quotes",
        "[skill_check: skill=‘Sleight of Hand’]",
        (("skill", "Sleight of Hand"),),
    ),
    (
        "guillemets",
        "[skill_check: skill=«Discrétion» dc=«12»]",
        (("skill", "Discrétion"), ("dc", "12")),
    ),
    ("German low-high quotes", "[skill_check: skill=„Heimlichkeit“]", (("skill", "Heimlichkeit"),)),
    (
        "opening curly quote closed by another opening",
        "[skill_check: skill=“Ward“]",
        (("skill", "Ward"),),
    ),
    ("CJK corner brackets", "[skill_check: skill=「忍び足」]", (("skill", "忍び足"),)),
    (
        "spaces around =",
        '[skill_check: skill = "Stealth"  dc =15 who=  "Bram"]',
        (("skill", "Stealth"), ("dc", "15"), ("who", "Bram")),
    ),
    ("no space after the colon", '[skill_check:skill="Ward"]', (("skill", "Ward"),)),
    (
        "spaces after the colon and before ]",
        '[skill_check:    skill="Ward"    ]',
        (("skill", "Ward"),),
    ),
    (
        "line breaks between attributes",
        '[skill_check: skill="Stealth"\n  dc="15"\n]',
        (("skill", "Stealth"), ("dc", "15")),
    ),
    (
        "a no-break space separates attributes",
        "[skill_check: skill=Stealth\u00a0dc=15]",
        (("skill", "Stealth"), ("dc", "15")),
    ),
    (
        "a bare flag has the value empty",
        '[skill_check: skill="Stealth" advantage]',
        (("skill", "Stealth"), ("advantage", "")),
    ),
    (
        "a flag between attributes",
        "[skill_check: skill=Stealth disadvantage dc=15]",
        (("skill", "Stealth"), ("disadvantage", ""), ("dc", "15")),
    ),
    (
        "commas between attributes are tolerated",
        '[skill_check: skill="Stealth", dc="15", advantage,]',
        (("skill", "Stealth"), ("dc", "15"), ("advantage", "")),
    ),
    (
        "a comma ends a bare value",
        "[skill_check: skill=Stealth,dc=15]",
        (("skill", "Stealth"), ("dc", "15")),
    ),
    ("the tag name in capitals", "[SKILL_CHECK: skill=Ward]", (("skill", "Ward"),)),
    ("the tag name in mixed case", "[Skill_Check: skill=Ward]", (("skill", "Ward"),)),
    (
        "attribute keys are lower-cased",
        '[skill_check: Skill="Ward" DC="2" upgradeOwn="1"]',
        (("skill", "Ward"), ("dc", "2"), ("upgradeown", "1")),
    ),
    (
        "keys may hold digits, _ and -",
        "[skill_check: _x=1 a-b_2=3]",
        (("_x", "1"), ("a-b_2", "3")),
    ),
    (
        "a duplicate key: the first written wins",
        "[skill_check: skill=Ward dc=2 dc=5 skill=Nerve]",
        (("skill", "Ward"), ("dc", "2")),
    ),
    (
        "a ] inside quotes does not end the tag",
        '[skill_check: skill="a]b" dc=1]',
        (("skill", "a]b"), ("dc", "1")),
    ),
    (
        "an apostrophe inside double quotes",
        '[skill_check: who="Bram\'s sister"]',
        (("who", "Bram's sister"),),
    ),
    (
        "a curly apostrophe does not close an ASCII single quote",
        "[skill_check: skill='Thieves’ Tools']",
        (("skill", "Thieves’ Tools"),),
    ),
    (
        "an empty quoted value",
        '[skill_check: skill="Ward" who=""]',
        (("skill", "Ward"), ("who", "")),
    ),
    (
        "= right before ] gives an empty value",
        "[skill_check: skill=Ward dc=]",
        (("skill", "Ward"), ("dc", "")),
    ),
    (
        "quoted attributes written with no space between",
        '[skill_check: skill="Ward"dc="2"]',
        (("skill", "Ward"), ("dc", "2")),
    ),
    (
        "signed bare values",
        "[skill_check: bonus=-2 adjust=+1]",
        (("bonus", "-2"), ("adjust", "+1")),
    ),
    ("a bare value may hold |", "[skill_check: rolls=3|18]", (("rolls", "3|18"),)),
    (
        "a quote mark after a bare value's start is part of it",
        '[skill_check: dc=15"]',
        (("dc", '15"'),),
    ),
    ("the empty tag", "[skill_check:]", ()),
    ("the empty tag with spaces", "[skill_check:   ]", ()),
    (
        "a record written back over two lines (docs/design/format.md, the record)",
        '[skill_check: skill="Stealth" dc="15" rolls="3|18" used="18" modifier="9" total="27"\n'
        '  result="success" mode="advantage" resolution="sum" dice="1d20"]',
        (
            ("skill", "Stealth"),
            ("dc", "15"),
            ("rolls", "3|18"),
            ("used", "18"),
            ("modifier", "9"),
            ("total", "27"),
            ("result", "success"),
            ("mode", "advantage"),
            ("resolution", "sum"),
            ("dice", "1d20"),
        ),
    ),
    (
        "the page's pool example",
        '[skill_check: skill="Ward" dc="2" who="Bram the Quiet" threshold="8" bonus="-2" with="Sinew"]',
        (
            ("skill", "Ward"),
            ("dc", "2"),
            ("who", "Bram the Quiet"),
            ("threshold", "8"),
            ("bonus", "-2"),
            ("with", "Sinew"),
        ),
    ),
]


@pytest.mark.parametrize(
    ("text", "attrs"), [r[1:] for r in GRAMMAR_ROWS], ids=[r[0] for r in GRAMMAR_ROWS]
)
def test_one_tag_is_read(text: str, attrs: Attrs) -> None:
    match = only(text)
    assert match.error is None
    assert match.attrs == attrs
    assert match.span == (0, len(text))
    assert match.raw == text


def test_duplicates_are_listed_and_first_wins() -> None:
    match = only("[skill_check: skill=Ward dc=2 DC=5 skill=Nerve]")
    assert match.get("dc") == "2"
    assert match.get("skill") == "Ward"
    assert match.duplicates == ("dc", "skill")


def test_lookups_ignore_case() -> None:
    match = only("[skill_check: Skill=Ward advantage]")
    assert match.get("SKILL") == "Ward"
    assert match.has("Advantage")
    assert not match.has("dc")
    assert match.get("dc", "none") == "none"
    assert match.keys == ("skill", "advantage")


# --- tags in prose --------------------------------------------------------------------


def test_tags_anywhere_in_prose_any_number_of_times() -> None:
    text = (
        'The guard turns. [skill_check: skill="Stealth" dc="15"] Meanwhile Bram braces '
        "himself [SKILL_CHECK: skill=Ward dc=2 who='Bram the Quiet'], and then[skill_check:skill=Nerve]."
    )
    matches = parse_tags(text)
    assert [m.get("skill") for m in matches] == ["Stealth", "Ward", "Nerve"]
    assert all(m.error is None for m in matches)
    for m in matches:
        start, end = m.span
        assert text[start:end] == m.raw
        assert m.raw.lower().startswith("[skill_check:") and m.raw.endswith("]")
    assert matches[1].get("who") == "Bram the Quiet"


def test_a_tag_inside_a_quoted_value_belongs_to_that_value() -> None:
    text = '[skill_check: skill="[skill_check: dc=3]" dc=1] after'
    match = only(text)
    assert match.attrs == (("skill", "[skill_check: dc=3]"), ("dc", "1"))


NEAR_MISSES = [
    ("a space in place of the underscore", "[skill check: skill=Stealth]"),
    ("a plural tag name", "[skill_checks: skill=Stealth]"),
    ("a space after [", "[ skill_check: skill=Stealth]"),
    ("no colon", "[skill_check skill=Stealth]"),
    ("a space before the colon", "[skill_check : skill=Stealth]"),
    ("no bracket", "skill_check: skill=Stealth]"),
    ("round brackets", "(skill_check: skill=Stealth)"),
    ("no underscore", "[skillcheck: skill=Stealth]"),
    ("another tag", '[sheet: op="use" entry="Potence"]'),
    ("a long s is not an s", "[ſkill_check: skill=Stealth]"),
    ("a Kelvin sign is not a k", "[s\u212aill_check: skill=Stealth]"),
    ("plain prose", "Roll for stealth, DC 15."),
    ("the empty text", ""),
]


@pytest.mark.parametrize("text", [r[1] for r in NEAR_MISSES], ids=[r[0] for r in NEAR_MISSES])
def test_near_misses_are_not_tags(text: str) -> None:
    assert parse_tags(text) == ()


# --- tags that cannot be lexed come back with a sentence --------------------------------

ERROR_ROWS: list[tuple[str, str, str, str]] = [
    # id, text, the match's raw text, words the error must hold
    (
        "a quote never closed ends at the first ]",
        '[skill_check: skill="Stealth dc=15] The guard says nothing.',
        '[skill_check: skill="Stealth dc=15]',
        'value of skill ("Stealth dc=15]) opens a quote that is never closed',
    ),
    (
        "a quote never closed, with a later quote in prose",
        '[skill_check: skill="Stealth dc=15] Then she said "hi" and left.]',
        '[skill_check: skill="Stealth dc=15]',
        "never closed",
    ),
    (
        "a broken tag ends at its first ], even one inside quotes",
        '[skill_check: skill="a]b" !] more',
        '[skill_check: skill="a]',
        "never closed",
    ),
    (
        "no ] at all ends at the line's end",
        "[skill_check: skill=Stealth dc=15  \nThe guard turns.",
        "[skill_check: skill=Stealth dc=15",
        'has no closing "]"',
    ),
    (
        "no ] at the end of the text",
        "[skill_check: skill=Stealth",
        "[skill_check: skill=Stealth",
        "[skill_check: skill=Stealth has no closing",
    ),
    (
        "a stray character where a key should start",
        "[skill_check: skill=Ward !dc=2]",
        "[skill_check: skill=Ward !dc=2]",
        'must start with a letter or "_", not "!"',
    ),
    (
        "= with no key",
        '[skill_check: ="Ward"]',
        '[skill_check: ="Ward"]',
        'not "="',
    ),
    (
        "a key starting with a digit",
        "[skill_check: 2dc=3]",
        "[skill_check: 2dc=3]",
        'not "2"',
    ),
    (
        "a value whose quote is never closed runs on into the next name",
        '[skill_check: skill="Stealth dc="15"]',
        '[skill_check: skill="Stealth dc="15"]',
        'The value of skill ("Stealth) has no closing quote, so it ran on into dc=: '
        'write skill="Stealth" dc="...".',
    ),
    (
        "a quoted value holding an = of its own is not taken for a run-on",
        '[skill_check: skill="a=b" 2dc=3]',
        '[skill_check: skill="a=b" 2dc=3]',
        'not "2"',
    ),
]


@pytest.mark.parametrize(
    ("text", "raw", "words"), [r[1:] for r in ERROR_ROWS], ids=[r[0] for r in ERROR_ROWS]
)
def test_a_broken_tag_is_a_match_with_an_error(text: str, raw: str, words: str) -> None:
    match = parse_tags(text)[0]
    assert match.raw == raw
    assert match.span == (0, len(raw))
    assert match.attrs == ()
    assert match.error is not None
    assert words in match.error
    assert match.error.endswith(".")


def test_a_broken_tag_does_not_hide_the_next_one() -> None:
    text = '[skill_check: skill="Stealth] and [skill_check: skill=Ward dc=2]'
    broken, good = parse_tags(text)
    assert broken.raw == '[skill_check: skill="Stealth]'
    assert broken.error is not None
    assert good.error is None
    assert good.attrs == (("skill", "Ward"), ("dc", "2"))


def test_a_broken_tag_stops_before_the_next_opener() -> None:
    text = '[skill_check: skill="Stealth   [skill_check: skill="Athletics"]'
    broken, good = parse_tags(text)
    assert broken.raw == '[skill_check: skill="Stealth'
    assert broken.error is not None and "never closed" in broken.error
    assert good.attrs == (("skill", "Athletics"),)
    assert good.span[1] == len(text)


# --- format_tag: the inverse ----------------------------------------------------------

FORMAT_ROWS: list[tuple[str, Attrs, str]] = [
    (
        "double quotes by default",
        (("skill", "Ward"), ("dc", "2")),
        '[skill_check: skill="Ward" dc="2"]',
    ),
    (
        "single quotes when the value holds a double",
        (("who", 'the "Quiet"'),),
        "[skill_check: who='the \"Quiet\"']",
    ),
    ("curly quotes when it holds both", (("who", 'B\'s "Q"'),), '[skill_check: who=“B\'s "Q"”]'),
    (
        "advantage with no value is a bare flag",
        (("skill", "x"), ("advantage", "")),
        '[skill_check: skill="x" advantage]',
    ),
    ("another empty value stays quoted", (("rolls", ""),), '[skill_check: rolls=""]'),
    ("no attributes", (), "[skill_check:]"),
]


@pytest.mark.parametrize(
    ("attrs", "text"), [r[1:] for r in FORMAT_ROWS], ids=[r[0] for r in FORMAT_ROWS]
)
def test_format_tag(attrs: Attrs, text: str) -> None:
    assert format_tag(attrs) == text
    assert only(text).attrs == attrs


@pytest.mark.parametrize("key", ["", "2x", "a b", "é", "a=b"])
def test_format_tag_refuses_a_key_outside_the_grammar(key: str) -> None:
    assert not is_key(key)
    with pytest.raises(UsageError, match="not an attribute name"):
        format_tag([(key, "1")])


def test_format_tag_refuses_a_value_no_quote_can_hold() -> None:
    with pytest.raises(UsageError, match="every quote mark"):
        format_tag([("who", "\"'”“»「」")])


# --- rewrite --------------------------------------------------------------------------


def test_rewrite_replaces_spans_in_any_order() -> None:
    text = "a [skill_check: skill=X] b [skill_check: skill=Y] c"
    m1, m2 = parse_tags(text)
    out = rewrite(text, [(m2.span, "<Y>"), (m1.span, "<X>")])
    assert out == "a <X> b <Y> c"


def test_rewrite_with_nothing_to_replace_keeps_the_text() -> None:
    assert rewrite("as is", []) == "as is"


def test_rewrite_accepts_adjacent_and_empty_spans() -> None:
    assert rewrite("abcd", [((0, 2), "X"), ((2, 4), "Y"), ((4, 4), "!")]) == "XY!"


@pytest.mark.parametrize(
    ("spans", "words"),
    [
        ([((0, 3), "x"), ((2, 4), "y")], "overlaps"),
        ([((3, 9), "x")], "does not lie inside"),
        ([((-1, 2), "x")], "does not lie inside"),
        ([((3, 2), "x")], "does not lie inside"),
    ],
    ids=["overlapping spans", "past the end", "before the start", "reversed"],
)
def test_rewrite_refuses_bad_spans(spans: list[tuple[tuple[int, int], str]], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        rewrite("abcd", spans)


# --- properties -----------------------------------------------------------------------

_OPENER = re.compile(r"\[skill_check:", re.IGNORECASE | re.ASCII)


def check_invariants(text: str, matches: tuple[TagMatch, ...]) -> None:
    pos = 0
    for m in matches:
        start, end = m.span
        assert pos <= start < end <= len(text)
        assert m.raw == text[start:end]
        assert _OPENER.match(m.raw)
        if m.error is None:
            assert m.raw.endswith("]")
            keys = [k for k, _ in m.attrs]
            assert len(set(keys)) == len(keys)
            assert all(is_key(k) and k == k.lower() for k in keys)
        else:
            assert m.attrs == ()
            assert m.error and m.error.endswith(".")
        pos = end
    # every opener outside the matches is inside one (quoted), never skipped silently
    covered = [range(*m.span) for m in matches]
    for o in _OPENER.finditer(text):
        assert any(o.start() in r for r in covered)


@settings(max_examples=examples(300))
@given(st.text())
def test_any_text_parses_without_raising(text: str) -> None:
    check_invariants(text, parse_tags(text))


_TAGGY = st.lists(
    st.sampled_from(
        ["[skill_check:", "[SKILL_CHECK:", "]", "[", "=", ",", " ", "\n", "a", "dc", "7", *QUOTES]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=examples(500))
@given(st.lists(_TAGGY, max_size=6).map("".join))
def test_tag_shaped_noise_parses_without_raising(text: str) -> None:
    check_invariants(text, parse_tags(text))


# Strategies built rule by rule from the grammar in dicebound.tags.parse.

_SPACE = st.sampled_from([" ", "  ", "\n", "\t", "\u00a0"])
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
tag_names = st.sampled_from(["skill_check", "SKILL_CHECK", "Skill_Check", "sKiLl_ChEcK"])
separators = st.lists(st.one_of(_SPACE, st.just(",")), min_size=1, max_size=3).map("".join)
around_eq = st.lists(_SPACE, max_size=2).map("".join)


def quoted_values(opener: str) -> st.SearchStrategy[tuple[str, str]]:
    """(written text, value) for a value in the quote style that opens with ``opener``."""
    closers = QUOTES[opener]
    inner = st.text(
        st.characters(blacklist_characters=closers, blacklist_categories=["Cs"]), max_size=12
    )
    return inner.map(lambda v: (f"{opener}{v}{closers[0]}", v))


_NOT_BARE = set(" ,]") | set(QUOTES)
bare_values = st.builds(
    lambda first, rest: first + rest,
    st.characters(blacklist_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]).filter(
        lambda c: c not in _NOT_BARE and not c.isspace()
    ),
    st.text(
        st.characters(blacklist_categories=["Cs"]).filter(
            lambda c: not c.isspace() and c not in ",]"
        ),
        max_size=10,
    ),
).map(lambda v: (v, v))

values = st.one_of(bare_values, *(quoted_values(q) for q in QUOTES))


@st.composite
def attributes(draw: st.DrawFn) -> tuple[str, str, str]:
    """(written text, key, value): ``key = value`` or a bare flag."""
    key = draw(keys)
    if draw(st.booleans()):
        return key, key.lower(), ""
    written, value = draw(values)
    return f"{key}{draw(around_eq)}={draw(around_eq)}{written}", key.lower(), value


@st.composite
def tags(draw: st.DrawFn) -> tuple[str, Attrs]:
    """(written tag, the attributes a reader takes from it: first of each key)."""
    attrs = draw(st.lists(attributes(), max_size=6))
    body = "".join(draw(separators) + written for written, _, _ in attrs)
    closing = draw(st.sampled_from(["]", " ]", ", ]", "\n]"]))
    text = f"[{draw(tag_names)}:{body}{closing}"
    expected: dict[str, str] = {}
    for _, key, value in attrs:
        expected.setdefault(key, value)
    return text, tuple(expected.items())


prose = st.text(st.characters(blacklist_characters="[", blacklist_categories=["Cs"]), max_size=30)


@settings(max_examples=examples(300))
@given(tags())
def test_a_written_tag_reads_back(tag: tuple[str, Attrs]) -> None:
    text, attrs = tag
    match = only(text)
    assert match.error is None, match.error
    assert match.attrs == attrs
    assert match.span == (0, len(text))


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(prose, tags()), min_size=1, max_size=4), prose)
def test_tags_in_prose_read_back_in_order(
    pieces: list[tuple[str, tuple[str, Attrs]]], tail: str
) -> None:
    text = "".join(p + t for p, (t, _) in pieces) + tail
    matches = parse_tags(text)
    assert [m.attrs for m in matches] == [a for _, (_, a) in pieces]
    check_invariants(text, matches)


@settings(max_examples=examples(200))
@given(st.lists(st.tuples(keys.map(str.lower), st.text(max_size=10)), max_size=6))
def test_format_then_parse_gives_the_attributes_back(pairs: list[tuple[str, str]]) -> None:
    attrs = tuple(dict(reversed(pairs)).items())  # unique keys
    try:
        text = format_tag(attrs)
    except UsageError:
        return  # a value holding every quote mark: refused, never written wrong
    assert only(text).attrs == attrs


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(prose, tags()), min_size=1, max_size=4), prose)
def test_rewrite_swaps_exactly_the_tags(
    pieces: list[tuple[str, tuple[str, Attrs]]], tail: str
) -> None:
    text = "".join(p + t for p, (t, _) in pieces) + tail
    matches = parse_tags(text)
    out = rewrite(text, [(m.span, "<tag>") for m in matches])
    assert out == "".join(p + "<tag>" for p, _ in pieces) + tail
