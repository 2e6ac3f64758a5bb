"""The written tag, rule by rule: attribute order, sanitising and cutting, reading
outcomes back and stripping tags (docs/design/sheet-commands.md "The written tag")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.sheet_commands.grammar import find_sheet_tags, read_request
from dicebound.sheet_commands.model import Op, SheetRequest, Unreadable
from dicebound.sheet_commands.written import (
    MAX_NOW,
    MAX_VALUE,
    ReadBack,
    read_back,
    sanitise,
    strip_sheet_tags,
    write_tag,
)

R = SheetRequest

# ── 7.1 Attribute order ───────────────────────────────────────────────────────

WRITTEN = [
    (
        "an unreadable tag is raw, then the outcome, and no who",
        Unreadable(raw=' op="nope" who="Mira"', who="Mira"),
        {"who": "Mira", "reason": "malformed"},
        '[sheet: raw="op= nope who= Mira" result="refused" reason="malformed"]',
    ),
    (
        "the wound form: track, kind, amount, box",
        R("damage", track="harm", kind="knock", amount=2, box=3),
        {"who": "Juno", "now": "Harm 2/6"},
        '[sheet: who="Juno" op="damage" track="harm" kind="knock" amount="2" box="3" '
        'result="ok" now="Harm 2/6"]',
    ),
    (
        "the wound form writes kind only if non-empty and box only if given",
        R("damage", track="harm", amount=-1),
        {"now": "Harm 0/6"},
        '[sheet: op="damage" track="harm" amount="-1" result="ok" now="Harm 0/6"]',
    ),
    (
        "spend: pool, amount",
        R("spend", pool="slots_1", amount=1),
        {"who": "Mira", "now": "1/2"},
        '[sheet: who="Mira" op="spend" pool="slots_1" amount="1" result="ok" now="1/2"]',
    ),
    (
        "heal is written restore",
        read_request('op="heal" pool="hp" amount="3"'),
        {"now": "15/31"},
        '[sheet: op="restore" pool="hp" amount="3" result="ok" now="15/31"]',
    ),
    (
        "pool damage: pool, amount",
        R("damage", pool="hp", amount=7),
        {"reason": "unknown-pool"},
        '[sheet: op="damage" pool="hp" amount="7" result="refused" reason="unknown-pool"]',
    ),
    (
        "temp: pool, amount",
        R("temp", pool="hp", amount=5),
        {"now": "31/31 +5 temp"},
        '[sheet: op="temp" pool="hp" amount="5" result="ok" now="31/31 +5 temp"]',
    ),
    (
        "track: track, then to",
        R("track", track="Exhaustion", to=2),
        {"now": "Exhaustion 2"},
        '[sheet: op="track" track="Exhaustion" to="2" result="ok" now="Exhaustion 2"]',
    ),
    (
        'track: by="+1" comes back as by="1"',
        read_request('op="track" track="Exhaustion" by="+1"'),
        {"now": "Exhaustion 1"},
        '[sheet: op="track" track="Exhaustion" by="1" result="ok" now="Exhaustion 1"]',
    ),
    (
        "condition: state on is always written even if the model omitted it",
        read_request('op="condition" condition="Shaken"'),
        {"now": "Shaken on"},
        '[sheet: op="condition" condition="Shaken" state="on" result="ok" now="Shaken on"]',
    ),
    (
        "condition: state off",
        R("condition", condition="Shaken", on=False),
        {"now": "Shaken off"},
        '[sheet: op="condition" condition="Shaken" state="off" result="ok" now="Shaken off"]',
    ),
    (
        "state: state, value",
        R("state", state="Stance", value="Reckless"),
        {"who": "Juno", "now": "Stance Reckless"},
        '[sheet: who="Juno" op="state" state="Stance" value="Reckless" result="ok" '
        'now="Stance Reckless"]',
    ),
    (
        'note: value="" is written even when empty',
        R("note", field="concentration", value=""),
        {"now": "Concentration cleared"},
        '[sheet: op="note" field="concentration" value="" result="ok" now="Concentration cleared"]',
    ),
    (
        "use: name, even if the model wrote cast and spell=",
        read_request('op="cast" spell="Fireball"'),
        {"reason": "unknown-entry"},
        '[sheet: op="use" name="Fireball" result="refused" reason="unknown-entry"]',
    ),
    (
        "use: pool only if given",
        R("use", name="Fireball", pool="3rd-level slots"),
        {"now": "3rd-level slots 1/2"},
        '[sheet: op="use" name="Fireball" pool="3rd-level slots" result="ok" '
        'now="3rd-level slots 1/2"]',
    ),
    (
        "rest: rest",
        R("rest", rest="long"),
        {"who": "party", "now": "Long rest"},
        '[sheet: who="party" op="rest" rest="long" result="ok" now="Long rest"]',
    ),
    (
        "the who written is the one given, not the request's own",
        R("rest", who="mira", rest="long"),
        {"who": "Mira", "now": "Long rest"},
        '[sheet: who="Mira" op="rest" rest="long" result="ok" now="Long rest"]',
    ),
    (
        "values are sanitised in the writing",
        R("note", field="notes", value='say "hi" [loud]'),
        {"now": "x"},
        '[sheet: op="note" field="notes" value="say hi loud" result="ok" now="x"]',
    ),
]


@pytest.mark.parametrize(
    ("request_", "outcome", "expected"), [r[1:] for r in WRITTEN], ids=[r[0] for r in WRITTEN]
)
def test_write_tag(
    request_: SheetRequest | Unreadable, outcome: dict[str, str], expected: str
) -> None:
    assert write_tag(request_, **outcome) == expected


def test_now_is_written_up_to_240_and_other_values_up_to_120() -> None:
    tag = write_tag(R("rest", rest="r" * 300), now="n" * 300)
    assert f'rest="{"r" * MAX_VALUE}"' in tag
    assert f'now="{"n" * MAX_NOW}"' in tag


def test_raw_is_cut_to_120() -> None:
    tag = write_tag(Unreadable(raw="x" * 500), reason="malformed")
    assert tag == f'[sheet: raw="{"x" * MAX_VALUE}" result="refused" reason="malformed"]'


# ── 7.2 Sanitising and cutting ────────────────────────────────────────────────

SANITISED = [
    ("control characters become spaces", "a\x00b\x1fc\x7fd\x9fe", 120, "a b c d e"),
    ("line and paragraph separators become spaces", "a\u2028b\u2029c", 120, "a b c"),
    ("the double quote becomes a space", 'say "hi"', 120, "say hi"),
    ("brackets become spaces", "[sheet: x]", 120, "sheet: x"),
    ("runs of two or more whitespace characters become one space", "a  \t\n b", 120, "a b"),
    ("trimmed", "  a b  ", 120, "a b"),
    (
        "single quotes, angle brackets and backslashes are not touched",
        "it's <b>\\n",
        120,
        "it's <b>\\n",
    ),
    ("within the limit the text is kept", "a; b", 4, "a; b"),
    ("over the limit: cut at the last ; of the prefix", "a; bb; ccc; dddd", 10, "a; bb"),
    ("over the limit without ; : a hard cut", "abcdefghij", 4, "abcd"),
    ("a ; at the very first position does not count: hard cut", "; abcdefgh", 5, "; abc"),
    ("a ; past the prefix does not count: hard cut", "abcdef; gh", 6, "abcdef"),
    ("the hard cut is trimmed again", "abc defgh", 4, "abc"),
    ("a semicolon without a space is no boundary", "a;b;c;d;e", 4, "a;b;"),
]


@pytest.mark.parametrize(
    ("value", "limit", "expected"), [r[1:] for r in SANITISED], ids=[r[0] for r in SANITISED]
)
def test_sanitise(value: str, limit: int, expected: str) -> None:
    assert sanitise(value, limit) == expected


_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029"\\[\\]]')


@given(st.text(), st.sampled_from([MAX_VALUE, MAX_NOW, 5]))
def test_sanitised_values_are_safe_within_the_limit_and_stable(value: str, limit: int) -> None:
    clean = sanitise(value, limit)
    assert _UNSAFE.search(clean) is None
    assert len(clean) <= limit
    assert "  " not in clean
    assert clean == clean.strip()
    assert sanitise(clean, limit) == clean


@given(st.text(), st.sampled_from([None, "Mira"]))
def test_a_written_tag_is_one_tag_whatever_the_values(value: str, who: str | None) -> None:
    written = write_tag(Unreadable(raw=value), who=who, now=value)
    assert find_sheet_tags(written)[0].span == (0, len(written))
    written = write_tag(R("note", field=value, value=value), who=value, now=value)
    assert find_sheet_tags(written)[0].span == (0, len(written))


# ── The round trip ────────────────────────────────────────────────────────────

_NAMES = st.text(min_size=1, max_size=40).map(sanitise).filter(bool)
_WHO = st.none() | _NAMES
_INTS = st.integers(-999_999_999, 999_999_999)
_POOL_OPS: tuple[Op, ...] = ("spend", "restore", "temp", "damage")


@st.composite
def requests(draw: st.DrawFn) -> SheetRequest:
    """Readable requests whose values are already what a written tag holds."""
    who = draw(_WHO)
    op = draw(
        st.sampled_from(
            ["pool", "pool", "pool", "pool", "wound", "track"] * 2
            + ["condition", "state", "note", "rest", "use"]
        )
    )
    if op == "wound":
        kind = draw(st.just("") | _NAMES)
        amount = draw(st.integers(-999_999_999, -1) if not kind else _INTS)
        box = draw(st.none() | _INTS)
        return R("damage", who=who, track=draw(_NAMES), kind=kind, amount=amount, box=box)
    if op == "pool":
        pool_op = draw(st.sampled_from(_POOL_OPS))
        return R(pool_op, who=who, pool=draw(_NAMES), amount=draw(_INTS))
    if op == "track":
        step = draw(_INTS)
        if draw(st.booleans()):
            return R("track", who=who, track=draw(_NAMES), to=step)
        return R("track", who=who, track=draw(_NAMES), by=step)
    if op == "condition":
        return R("condition", who=who, condition=draw(_NAMES), on=draw(st.booleans()))
    if op == "state":
        return R("state", who=who, state=draw(_NAMES), value=draw(_NAMES))
    if op == "note":
        return R("note", who=who, field=draw(_NAMES), value=draw(st.just("") | _NAMES))
    if op == "rest":
        return R("rest", who=who, rest=draw(_NAMES))
    return R("use", who=who, name=draw(_NAMES), pool=draw(st.none() | _NAMES))


@given(requests(), st.sampled_from([{"now": "1/2"}, {"reason": "insufficient"}]))
def test_a_written_tag_reads_back_into_the_same_request(
    request_: SheetRequest, outcome: dict[str, str]
) -> None:
    written = write_tag(request_, who=request_.who, **outcome)
    (tag,) = find_sheet_tags(written)
    assert read_request(tag.body) == request_


# ── 7.4 Reading outcomes back ─────────────────────────────────────────────────

READ_BACK = [
    (
        "Mira spend slots_1 -> 1/2",
        '[sheet: who="Mira" op="spend" pool="slots_1" amount="1" result="ok" now="1/2"]',
        ReadBack((0, 0), "Mira", True, "1/2", None, "Mira spend slots_1 -> 1/2"),
    ),
    (
        "Mira spend slots_1 refused (insufficient)",
        '[sheet: who="Mira" op="spend" pool="slots_1" amount="1" result="refused" '
        'reason="insufficient"]',
        ReadBack(
            (0, 0), "Mira", False, None, "insufficient", "Mira spend slots_1 refused (insufficient)"
        ),
    ),
    (
        "Mira use Fireball -> 3rd-level slots 1/2 (name before pool)",
        '[sheet: who="Mira" op="use" name="Fireball" pool="3rd-level slots" result="ok" '
        'now="3rd-level slots 1/2"]',
        ReadBack(
            (0, 0),
            "Mira",
            True,
            "3rd-level slots 1/2",
            None,
            "Mira use Fireball -> 3rd-level slots 1/2",
        ),
    ),
    (
        "Juno state Stance -> Stance Reckless (state names the target of the state op)",
        '[sheet: who="Juno" op="state" state="Stance" value="Reckless" result="ok" '
        'now="Stance Reckless"]',
        ReadBack(
            (0, 0), "Juno", True, "Stance Reckless", None, "Juno state Stance -> Stance Reckless"
        ),
    ),
    (
        "condition Shaken -> Shaken on (no who, and state is no target on condition)",
        '[sheet: op="condition" condition="Shaken" state="on" result="ok" now="Shaken on"]',
        ReadBack((0, 0), None, True, "Shaken on", None, "condition Shaken -> Shaken on"),
    ),
    (
        "the op is read with aliases folded: heal is restore",
        '[sheet: op="heal" pool="hp" result="ok" now="5/9"]',
        ReadBack((0, 0), None, True, "5/9", None, "restore hp -> 5/9"),
    ),
    (
        "an unknown op reads sheet",
        '[sheet: raw="x" result="refused" reason="malformed"]',
        ReadBack((0, 0), None, False, None, "malformed", "sheet refused (malformed)"),
    ),
    (
        "ok with an empty now has no arrow",
        '[sheet: op="rest" rest="long" who=" Tam " result="ok" now=""]',
        ReadBack((0, 0), "Tam", True, "", None, "Tam rest long"),
    ),
    (
        "refused without a reason has no parenthesis",
        '[sheet: op="track" track="exhaustion" result="refused"]',
        ReadBack((0, 0), None, False, None, None, "track exhaustion refused"),
    ),
    (
        "field and rest are targets in their turn",
        '[sheet: op="note" field="notes" result="ok" now="Notes cleared"]',
        ReadBack((0, 0), None, True, "Notes cleared", None, "note notes -> Notes cleared"),
    ),
    ("an unanswered request is not reported", '[sheet: op="rest" rest="long"]', None),
    ("any other result is not reported", '[sheet: op="rest" rest="long" result="maybe"]', None),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in READ_BACK], ids=[r[0] for r in READ_BACK]
)
def test_read_back(text: str, expected: ReadBack | None) -> None:
    found = read_back("Then: " + text + " and on.")
    if expected is None:
        assert found == ()
    else:
        span = (6, 6 + len(text))
        assert found == (
            ReadBack(
                span, expected.who, expected.ok, expected.now, expected.reason, expected.summary
            ),
        )


# ── 7.4 Stripping tags ────────────────────────────────────────────────────────

TAG = '[sheet: op="spend" pool="slots_1" amount="1" result="ok" now="1/2"]'

STRIPPED = [
    (
        "a tag with a space both sides leaves one space; one at the end leaves none",
        f"She casts. {TAG} Again. {TAG} And again. {TAG}",
        "She casts. Again. And again.",
    ),
    ("a tag with nothing around it goes alone", f"{TAG}Tight.", "Tight."),
    ("a b around a tag with no space after the colon", 'a [sheet:op="rest" rest="long"] b', "a b"),
    ("a b around a tag with spaces in its body", 'a [sheet:    op="rest" rest="long"] b', "a b"),
    (
        "text without tags is unchanged",
        "Nothing here [skill_check: x]",
        "Nothing here [skill_check: x]",
    ),
    ("at most one whitespace character each side", f"a  {TAG}  b", "a   b"),
    ("a tab counts as horizontal whitespace", f"a\t{TAG}\tb", "a b"),
    ("line breaks are not taken", f"a\n{TAG}\nb", "a\n\nb"),
    ("two tags side by side share no space", f"a {TAG} {TAG} b", "a b"),
    ("a space on one side only is taken, nothing put back", f"a {TAG}b", "ab"),
    (
        "a head followed by 400,000 spaces and no ] is left as it is",
        "[sheet:" + " " * 400_000,
        "[sheet:" + " " * 400_000,
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in STRIPPED], ids=[r[0] for r in STRIPPED]
)
def test_strip_sheet_tags(text: str, expected: str) -> None:
    assert strip_sheet_tags(text) == expected


@given(st.text())
def test_stripping_and_reading_back_never_raise(text: str) -> None:
    stripped = strip_sheet_tags(text)
    assert len(stripped) <= len(text)
    assert all(isinstance(found, ReadBack) for found in read_back(text))
