"""The text dice card and the one-line summary (docs/design/format.md "The record" for the
summary line; the page:
"the card says it" of unmodified faces, "shows it beside the result" of exact dice,
"shows it in place of the plain word" of a band, "the card and summary name the net
symbols, including an empty result", and Fate's "the card shows −, blank and +")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.record import Record, build_record, sparse_record
from dicebound.render import outcome_words, render_text, summarize


def sum_check(**over: Any) -> Record:
    args: dict[str, Any] = {
        "skill": "Stealth",
        "dc": 15,
        "rolls": [3, 18],
        "used": 18,
        "modifier": 9,
        "total": 27,
        "result": "success",
        "mode": "advantage",
        "dice": "1d20",
        "seed": "42",
    }
    args.update(over)
    return build_record(**args)


def pool_check(**over: Any) -> Record:
    args: dict[str, Any] = {
        "skill": "Ward",
        "dc": 2,
        "rolls": [9, 3, 10],
        "used": 2,
        "modifier": 0,
        "total": 2,
        "result": "success",
        "resolution": "successes",
        "dice": "3d10",
        "seed": "7",
    }
    args.update(over)
    return build_record(**args)


def highest_check(**over: Any) -> Record:
    args: dict[str, Any] = {
        "skill": "Prowl",
        "dc": 4,
        "rolls": [2, 6, 4],
        "used": 6,
        "modifier": 0,
        "total": 6,
        "result": "success",
        "dice": "3d6",
        "extras": {"highest": 1},
    }
    args.update(over)
    return build_record(**args)


CARD_ROWS: list[tuple[str, Record, list[str], list[str]]] = [
    # id, record, lines or words the card must hold, words it must not hold
    (
        "advantage: both throws, the kept one, modifier and total against the dc",
        sum_check(),
        [
            "Stealth check",
            "  Dice     1d20 twice (advantage): 3 | 18 → kept 18",
            "  Total    18 + 9 = 27 against DC 15",
            "  Result   Success",
            "  Seed     42",
        ],
        ["forced"],
    ),
    (
        "disadvantage keeps the lower set",
        sum_check(
            rolls=[5, 6, 2, 3],
            used=5,
            modifier=-1,
            total=4,
            result="failure",
            mode="disadvantage",
            dice="2d6",
        ),
        [
            "2d6 twice (disadvantage): 5, 6 | 2, 3 → kept 2, 3",
            "5 − 1 = 4 against DC 15",
            "Result   Failure",
        ],
        [],
    ),
    (
        "equal throws under advantage: the first is kept",
        sum_check(rolls=[7, 7], used=7, modifier=0, total=7, result="failure"),
        ["7 | 7 → kept 7", "Total    7 against DC 15"],
        [],
    ),
    (
        "no set matches used (an open-ended chain): no claim which was kept",
        sum_check(rolls=[98, 40, 3], used=138, modifier=0, total=138, dice="1d100"),
        ["1d100 (advantage): 98, 40, 3"],
        ["kept"],
    ),
    (
        "a normal roll lists its faces",
        sum_check(rolls=[3, 4], used=7, modifier=2, total=9, mode="normal", dice="2d6", dc=8),
        ["Dice     2d6: 3, 4", "7 + 2 = 9 against DC 8"],
        ["kept", "twice"],
    ),
    (
        "Fate dice show −, blank and +, against a signed number (no ladder without the ruleset)",
        sum_check(
            rolls=[1, -1, 0, 1], used=1, modifier=2, total=3, mode="normal", dice="4dF", dc=2
        ),
        ["4dF: [+] [−] [ ] [+]", "1 + 2 = 3 against +2"],
        [],
    ),
    (
        "a critical success in words",
        sum_check(result="critical_success"),
        ["Result   Critical success"],
        [],
    ),
    (
        "a critical failure in words",
        sum_check(result="critical_failure"),
        ["Result   Critical failure"],
        [],
    ),
    (
        "a band's label in place of the plain word",
        sum_check(extras={"outcome": "Hard success"}),
        ["Result   Hard success"],
        ["Result   Success"],
    ),
    (
        "unmodified faces are marked",
        sum_check(
            rolls=[66],
            used=66,
            modifier=0,
            total=66,
            mode="normal",
            dice="1d100",
            extras={"unmodified": 66},
        ),
        ["Marks    unmodified 66"],
        [],
    ),
    (
        "roll-against says the direction",
        sum_check(
            rolls=[34],
            used=34,
            modifier=0,
            total=34,
            mode="normal",
            dice="1d100",
            dc=55,
            extras={"against": "at-most"},
        ),
        ["Total    34, needs at most 55"],
        ["DC 55"],
    ),
    (
        "forced faces are said, and no seed is claimed",
        sum_check(seed=None, forced=True),
        ["Faces    forced (not a random roll)"],
        ["Seed"],
    ),
    (
        "who rolled, from the record",
        sum_check(extras={"who": "Bram the Quiet"}),
        ["Stealth check — Bram the Quiet"],
        ["Also"],
    ),
    (
        "a save is not called a save check",
        sum_check(skill="Strength save"),
        ["Strength save\n"],
        ["save check"],
    ),
    (
        "other extras are listed, not hidden",
        sum_check(extras={"bonus": 2, "from": "Bless; Shaken", "effects": -1}),
        ["Also     bonus +2 · effects -1 · from Bless; Shaken"],
        [],
    ),
    (
        "a pool counts successes against those needed",
        pool_check(extras={"threshold": 8, "auto": 1}),
        [
            "Dice     3d10: 9, 3, 10",
            "Count    2 successes, 2 needed (1 nobody rolled)",
            "Also     threshold 8",
        ],
        ["+ 0"],
    ),
    (
        "one success is singular",
        pool_check(used=1, total=1, result="failure"),
        ["1 success, 2 needed"],
        [],
    ),
    (
        "an empty pool",
        pool_check(rolls=[], used=0, total=0, dice="0d10", result="failure"),
        ["0d10: no dice", "0 successes"],
        [],
    ),
    (
        "exact dice and a complication are marked beside the result",
        pool_check(extras={"exact": 1, "complication": True}),
        ["exact: 1 die on the target", "complication"],
        [],
    ),
    (
        "dice-highest marks the kept die",
        highest_check(),
        ["3d6: 2, 6, 4 → kept 6", "Total    6 against DC 4"],
        [],
    ),
    (
        "dice-highest keeping two",
        highest_check(rolls=[2, 6, 4], used=10, total=10, extras={"highest": 2}),
        ["→ kept 6, 4"],
        [],
    ),
    (
        "zero dice: two thrown, the lower kept",
        highest_check(
            rolls=[5, 2], used=2, total=2, result="failure", extras={"highest": 1, "zeroDice": True}
        ),
        ["→ kept 2", "no dice: two thrown, the lower kept"],
        [],
    ),
    (
        "dark dice are thrown last; a light-only outcome keeps light dice",
        highest_check(
            rolls=[3, 4, 6],
            used=4,
            total=4,
            extras={"highest": 1, "dark": 1, "darkOutcome": "light", "darkHighest": True},
        ),
        ["3d6: 3, 4 · dark: 6 → kept 4", "a dark die beat every light die"],
        [],
    ),
    (
        "a symbol pool names its net symbols",
        pool_check(
            resolution="sum",
            rolls=[3, 7, 2],
            dice="3",
            extras={"symbols": "2s 1a", "thrown": "ability|ability|difficulty"},
        ),
        ["Dice     ability 3, ability 7, difficulty 2", "Symbols  2s 1a"],
        [],
    ),
    (
        "an empty symbol result is named too",
        pool_check(resolution="sum", extras={"symbols": "", "thrown": "x"}, result="failure"),
        ["Symbols  no symbols"],
        [],
    ),
    (
        "a step pool shows its effort and an open choice",
        pool_check(
            rolls=[5, 1, 6],
            used=1,
            total=1,
            dc=6,
            result="failure",
            extras={
                "effort": 1,
                "outcome": "Sacrifice",
                "choice": "open",
                "offer": "luck:5 for Success",
            },
        ),
        [
            "Effort   1 (target number 6)",
            "Result   Sacrifice",
            "choice is open",
            "Offer    luck:5 for Success",
        ],
        [],
    ),
    (
        "a sparse record still owes a roll",
        sparse_record([("skill", "Stealth"), ("dc", "15"), ("who", "Bram"), ("advantage", "")]),
        [
            "Stealth check — Bram",
            "Not rolled: the check still owes a roll",
            "Asked    dc 15 · advantage",
        ],
        ["Seed", "Total"],
    ),
]


@pytest.mark.parametrize(
    ("record", "present", "absent"), [r[1:] for r in CARD_ROWS], ids=[r[0] for r in CARD_ROWS]
)
def test_card(record: Record, present: list[str], absent: list[str]) -> None:
    card = render_text(record) + "\n"
    for words in present:
        assert words in card, card
    for words in absent:
        assert words not in card, card


def test_who_and_outcome_given_by_the_caller() -> None:
    card = render_text(sum_check(), who="Ann", outcome="Success with style")
    assert card.startswith("Stealth check — Ann\n")
    assert "Result   Success with style" in card


def test_the_record_names_who_before_the_caller() -> None:
    card = render_text(sum_check(extras={"who": "Bram"}), who="Ann")
    assert card.startswith("Stealth check — Bram\n")


def test_ascii_card() -> None:
    card = render_text(
        sum_check(rolls=[5, 6, 2, 3], used=5, modifier=-1, total=4, mode="disadvantage"),
        unicode=False,
    )
    assert "5, 6 | 2, 3 -> kept 2, 3" in card
    assert "5 - 1 = 4" in card
    card.encode("ascii")


SUMMARY_ROWS: list[tuple[str, Record, str]] = [
    ("the format page's example", sum_check(), "Stealth check (DC 15): [3, 18] +9 = 27. Success."),
    (
        "a negative modifier",
        sum_check(rolls=[5], used=5, modifier=-2, total=3, result="failure", mode="normal"),
        "Stealth check (DC 15): [5] -2 = 3. Failure.",
    ),
    (
        "a pool says N successes",
        pool_check(),
        "Ward check (DC 2): [9, 3, 10] = 2 successes. Success.",
    ),
    (
        "one success",
        pool_check(used=1, total=1, result="failure"),
        "Ward check (DC 2): [9, 3, 10] = 1 success. Failure.",
    ),
    (
        "who and a band",
        pool_check(extras={"who": "Bram the Quiet", "outcome": "Grim success"}),
        "Ward check for Bram the Quiet (DC 2): [9, 3, 10] = 2 successes. Grim success.",
    ),
    (
        "marks follow the outcome",
        sum_check(
            rolls=[66], used=66, modifier=0, total=66, mode="normal", extras={"unmodified": 66}
        ),
        "Stealth check (DC 15): [66] +0 = 66. Success (unmodified 66).",
    ),
    ("dice-highest", highest_check(), "Prowl check (DC 4): [2, 6, 4] kept 6. Success."),
    (
        "a symbol pool names the net symbols",
        pool_check(resolution="sum", extras={"symbols": "2s 1a 1t"}),
        "Ward check (DC 2): 2s 1a 1t. Success.",
    ),
    (
        "an empty symbol result",
        pool_check(resolution="sum", result="failure", extras={"symbols": ""}),
        "Ward check (DC 2): no symbols. Failure.",
    ),
    (
        "a sparse record is not rolled",
        sparse_record([("skill", "Stealth"), ("dc", "15")]),
        "Stealth check (DC 15): not rolled.",
    ),
    (
        "a sparse record asked by difficulty",
        sparse_record([("skill", "Ward"), ("difficulty", "Grim")]),
        "Ward check (Grim): not rolled.",
    ),
]


@pytest.mark.parametrize(
    ("record", "line"), [r[1:] for r in SUMMARY_ROWS], ids=[r[0] for r in SUMMARY_ROWS]
)
def test_summary(record: Record, line: str) -> None:
    assert summarize(record) == line


@pytest.mark.parametrize(
    ("result", "words"),
    [
        ("success", "Success"),
        ("failure", "Failure"),
        ("critical_success", "Critical success"),
        ("critical_failure", "Critical failure"),
    ],
)
def test_outcome_words(result: str, words: str) -> None:
    record = sum_check(result=result)
    assert outcome_words(record) == words
    assert outcome_words(record, "Band") == "Band"
    assert summarize(record).endswith(f" {words}.")


# --- properties -----------------------------------------------------------------------

ascii_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)


@st.composite
def any_records(draw: st.DrawFn, text: st.SearchStrategy[str] = ascii_text) -> Record:
    keys = [
        "outcome",
        "highest",
        "zeroDice",
        "dark",
        "darkOutcome",
        "darkHighest",
        "unmodified",
        "exact",
        "symbols",
        "thrown",
        "against",
        "effort",
        "choice",
        "offer",
        "auto",
        "bonus",
        "complication",
        "who",
    ]
    chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=6))
    value = st.one_of(
        text, st.integers(-3, 30).map(str), st.sampled_from(["true", "light", "open"])
    )
    return build_record(
        skill=draw(text),
        dc=draw(st.one_of(st.integers(-3, 50).map(str), text)),
        rolls=draw(
            st.lists(
                st.one_of(st.integers(-1, 100).map(str), text.filter(lambda s: "|" not in s)),
                max_size=6,
            )
        ),
        used=draw(st.one_of(st.integers(-5, 120).map(str), text)),
        modifier=draw(st.one_of(st.integers(-5, 10).map(str), text)),
        total=draw(st.one_of(st.integers(-5, 120).map(str), text)),
        result=draw(
            st.sampled_from(["success", "failure", "critical_success", "critical_failure"])
        ),
        mode=draw(st.sampled_from(["normal", "advantage", "disadvantage"])),
        resolution=draw(st.sampled_from(["sum", "successes"])),
        dice=draw(st.one_of(st.sampled_from(["1d20", "2d6", "4dF"]), text)),
        extras=[(k, draw(value)) for k in chosen],
        seed=draw(st.one_of(st.none(), text)),
        forced=draw(st.booleans()),
    )


@settings(max_examples=examples(200))
@given(any_records(), st.booleans())
def test_any_record_renders_and_says_its_outcome(record: Record, unicode: bool) -> None:
    card = render_text(record, unicode=unicode)
    line = summarize(record)
    words = outcome_words(record)
    assert f"Result   {words}" in card
    assert f"{words}" in line
    assert "\n" not in line
    if not unicode:
        card.encode("ascii")
        line.encode("ascii")


@settings(max_examples=examples(100))
@given(any_records(text=st.text(max_size=12)))
def test_any_text_in_a_record_renders(record: Record) -> None:
    assert render_text(record)
    assert summarize(record)


def test_a_symbol_card_names_the_net_symbols_by_their_labels() -> None:
    from dicebound.edge.files import read_character, read_ruleset
    from dicebound.render.text import render_text
    from dicebound.tagpass import resolve_text

    ruleset = read_ruleset("genesys")
    who = read_character(ruleset, "genesys/brannoch")
    report = resolve_text(
        ruleset, [who], '[skill_check: skill="Stealth" difficulty="Average"]', seed="5"
    )
    (result,) = report.results
    assert result.record.get("symbols") == "3h"
    assert "Symbols  3 Threat" in render_text(result.record)


def test_the_html_card_says_what_the_text_card_says_escaped() -> None:
    from dicebound.edge.files import read_character, read_ruleset
    from dicebound.render.card_html import render_card_html
    from dicebound.tagpass import resolve_text

    ruleset = read_ruleset("dnd5e-srd")
    who = read_character(ruleset, "dnd5e-srd/mira")
    report = resolve_text(ruleset, [who], '[skill_check: skill="Stealth" dc="15"]', faces=(6,))
    html = render_card_html(report.results[0].record)
    assert html.startswith('<section class="dice-card success">')
    assert "<dt>Total</dt><dd>6 + 9 = 15 against DC 15</dd>" in html
    failed = resolve_text(ruleset, [who], '[skill_check: skill="Stelth" dc="15"]', faces=())
    html = render_card_html(failed.errors[0].record)
    assert 'class="dice-card sparse"' in html and "<script" not in html
