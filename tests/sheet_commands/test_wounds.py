"""Wound tracks (docs/design/sheet-commands.md "Wound tracks", section 4 of the
contract): this character's levels, reading stored marks, marking, healing, the command
and what it says. On Gravewatch (named levels, knocks and tears, scars add levels) and
Ember Roads (numbered Strain boxes, indexed, refusing when full)."""

from __future__ import annotations

from typing import Any

import pytest

from dicebound.ruleset.model import Ruleset, Track
from dicebound.sheet import Character, Row, Wounds, frozen_map
from dicebound.sheet_commands.current import current_sheet, sheet_layout
from dicebound.sheet_commands.model import Applied
from dicebound.sheet_commands.wounds import heal, mark, read_wounds, stored_wounds
from dicebound.values import replace
from live_sheet_support import (
    EMBER,
    GRAVEWATCH,
    apply,
    character,
    marinara,
    now_or_reason,
    variant,
)


def gravewatch() -> Ruleset:
    return marinara(GRAVEWATCH)


def ember() -> Ruleset:
    return marinara(EMBER)


def warden(live: object = None, scars: list[dict[str, Any]] | None = None) -> Character:
    return character(gravewatch(), lists=None if scars is None else {"scars": scars}, live=live)


def traveller(live: object = None, heart: int = 2) -> Character:
    """Strain boxes are 2 + Heart: four boxes at Heart 2."""
    return character(ember(), abilities={"heart": heart}, live=live)


def harm(marks: list[str], overflow: int = 0) -> dict[str, Any]:
    return {"wounds": {"harm": {"marks": marks, "overflow": overflow}}}


def strain(marks: list[str], overflow: int = 0) -> dict[str, Any]:
    return {"wounds": {"strain": {"marks": marks, "overflow": overflow}}}


def levels_of(rs: Ruleset, who: Character, track: str) -> list[tuple[str, int]]:
    spec = next(t for t in sheet_layout(rs, who.build).tracks if t.id == track)
    return [(level.label, level.penalty) for level in spec.levels]


# ── 4.2 this character's levels ─────────────────────────────────────────────

BASE = [("Scuffed", 0), ("Winded", -1), ("Bleeding", -3), ("Down", -99)]

LEVELS = [
    pytest.param(None, BASE, id="no scars: the declared levels"),
    pytest.param(
        [{"name": "Old bite", "levels": 2, "penalty": -1}],
        [("Scuffed", 0), ("Winded", -1), ("Winded", -1), ("Winded", -1), *BASE[2:]],
        id="a scar row levels 2 penalty -1 goes after the last level as good, named like it",
    ),
    pytest.param(
        [{"name": "Burn", "levels": 1, "penalty": -2}],
        [("Scuffed", 0), ("Winded", -1), ("-2", -2), ("Bleeding", -3), ("Down", -99)],
        id="a scar row levels 1 penalty -2 is labelled by its penalty",
    ),
    pytest.param(
        [{"name": "Graze", "levels": 1, "penalty": 0}, {"name": "Scratch"}],
        [("Scuffed", 0), ("Scuffed", 0), ("Winded", -1), ("Winded", -1), *BASE[2:]],
        id="rows Graze (1, 0) then Scratch with the column defaults (1 level at -1)",
    ),
]


@pytest.mark.parametrize(("scars", "expected"), LEVELS)
def test_levels_of_this_character(
    scars: list[dict[str, Any]] | None, expected: list[tuple[str, int]]
) -> None:
    assert levels_of(gravewatch(), warden(scars=scars), "harm") == expected


def test_a_row_asking_for_99_levels_adds_only_16() -> None:
    """The scar list's own columns stop at 2, so the build is made by hand here."""
    who = warden()
    row = Row(frozen_map({"name": "Maul", "levels": 99, "penalty": -1}))
    build = replace(who.build, lists=frozen_map({"scars": (row,)}))
    assert len(levels_of(gravewatch(), Character("Tam", build), "harm")) == 20


def test_a_hidden_list_adds_no_levels() -> None:
    def hide_scars(raw: dict[str, Any]) -> None:
        scars = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "scars")
        scars["hideWhen"] = {"field": "watch", "equals": "dawn"}

    rs = variant(GRAVEWATCH, hide_scars)
    scars = {"scars": [{"name": "Old bite", "levels": 2, "penalty": -1}]}
    at_dawn = character(rs, {"watch": "dawn"}, scars)
    at_night = character(rs, {"watch": "night"}, scars)
    assert levels_of(rs, at_dawn, "harm") == BASE
    assert len(levels_of(rs, at_night, "harm")) == 6


def test_boxes_are_numbered_up_to_the_tracks_maximum() -> None:
    assert [label for label, _ in levels_of(ember(), traveller(), "strain")] == [
        "1",
        "2",
        "3",
        "4",
    ]


# ── 4.3 reading stored marks ────────────────────────────────────────────────

READS = [
    pytest.param(
        harm(["knock"] * 6),
        Wounds(("knock",) * 4, 2),
        id="six knock marks on the base 4-level track read as filled 4 overflow 2",
    ),
    pytest.param(harm(["gone", "knock"]), Wounds(("knock",)), id="an undeclared kind is empty"),
    pytest.param(harm(["", "knock"]), Wounds(("knock",)), id="an empty mark is empty"),
    pytest.param(
        harm(["knock", "tear", "knock"]),
        Wounds(("tear", "knock", "knock")),
        id="sequential marks read most severe first",
    ),
    pytest.param(
        harm(["tear"] * 5, 3),
        Wounds(("tear",) * 4, 4),
        id="marks past the end add to the stored overflow",
    ),
]


@pytest.mark.parametrize(("live", "expected"), READS)
def test_reading_stored_marks(live: dict[str, Any], expected: Wounds) -> None:
    track = next(t for t in current_sheet(gravewatch(), warden(live)).tracks if t.spec.id == "harm")
    assert (track.wounds, track.value) == (expected, len(expected.marks))


def test_one_knock_read_sits_on_the_first_level_with_penalty_0() -> None:
    who = warden(harm(["gone", "knock"]))
    spec = sheet_layout(gravewatch(), who.build).track_named("harm")
    assert spec is not None
    work = read_wounds(spec.decl, len(spec.levels), who.live.wounds["harm"])
    assert (work.filled, work.lowest, spec.levels[work.lowest].penalty) == (1, 0, 0)


def test_indexed_marks_stay_on_their_boxes_and_boxes_past_the_end_overflow() -> None:
    who = traveller(strain(["", "strain", "", "", "strain", ""]))
    spec = sheet_layout(ember(), who.build).track_named("strain")
    assert spec is not None
    work = read_wounds(spec.decl, len(spec.levels), who.live.wounds["strain"])
    assert (work.marks, work.overflow) == ([None, 0, None, None], 1)


# ── 4.4 and 4.5 on a worked track ───────────────────────────────────────────


def harm_decl(**changes: Any) -> Track:
    spec = sheet_layout(gravewatch(), warden().build).track_named("harm")
    assert spec is not None
    return replace(spec.decl, **changes)


K, T = 0, 1  # the severities of a knock and a tear

MARKS = [
    # (track changes, stored marks, overflow, severity, count, box, landed, marks, overflow)
    pytest.param({}, [], 0, K, 2, 1, True, [K, K], 0, id="sequential: marks fill from the top"),
    pytest.param(
        {}, ["knock"], 0, T, 1, 1, True, [T, K], 0, id="placement: before the first lighter mark"
    ),
    pytest.param(
        {}, ["tear"], 0, T, 1, 1, True, [T, T], 0, id="placement: equals keep arrival order"
    ),
    pytest.param(
        {},
        ["knock"] * 4,
        0,
        K,
        1,
        1,
        True,
        [T, K, K, K],
        0,
        id="upgrade: a full track upgrades its lightest mark one step",
    ),
    pytest.param(
        {},
        ["knock"] * 4,
        0,
        T,
        1,
        1,
        True,
        [T, K, K, K],
        0,
        id="upgrade: the incoming kind is irrelevant when full",
    ),
    pytest.param(
        {},
        ["tear"] * 4,
        0,
        K,
        1,
        1,
        True,
        [T, T, T, T],
        1,
        id="upgrade: full at the top severity, the mark is overflow",
    ),
    pytest.param(
        {},
        ["tear", "tear", "tear", "knock"],
        0,
        K,
        3,
        1,
        True,
        [T, T, T, T],
        2,
        id="upgrade: the last knock becomes a tear, then every mark left is overflow",
    ),
    pytest.param(
        {"on_full": "refuse"},
        ["knock"] * 3,
        0,
        K,
        2,
        1,
        False,
        [K, K, K],
        0,
        id="refuse when full: fewer free levels than marks is no-box, nothing changes",
    ),
    pytest.param(
        {"on_full": "refuse"},
        ["knock"] * 2,
        0,
        T,
        2,
        1,
        True,
        [T, T, K, K],
        0,
        id="refuse when full: room for all places all",
    ),
]


@pytest.mark.parametrize(
    ("changes", "stored", "overflow", "severity", "count", "box", "landed", "marks", "after"),
    MARKS,
)
def test_marking(
    changes: dict[str, Any],
    stored: list[str],
    overflow: int,
    severity: int,
    count: int,
    box: int,
    landed: bool,
    marks: list[int],
    after: int,
) -> None:
    work = read_wounds(harm_decl(**changes), 4, Wounds(tuple(stored), overflow))
    assert mark(work, severity, count, box) is landed
    assert (work.marks, work.overflow) == (marks, after)


def test_a_zero_length_track_refuses_every_mark_whatever_its_on_full() -> None:
    for on_full in ("upgrade", "refuse"):
        work = read_wounds(harm_decl(on_full=on_full), 0, None)
        assert mark(work, K, 1) is False
        assert (work.marks, work.overflow) == ([], 0)


HEALS = [
    # (stored marks, overflow, count, severity, marks after, overflow after)
    pytest.param(["tear", "knock"], 2, 1, None, [T, K], 1, id="overflow clears first"),
    pytest.param(["tear", "knock"], 0, 1, None, [T], 0, id="then the lightest mark"),
    pytest.param(["tear", "knock"], 0, 1, T, [K], 0, id="a named kind: only its marks"),
    pytest.param(["tear"], 1, 2, K, [T], 0, id="a named kind still clears overflow first"),
    pytest.param(["tear", "tear"], 0, 5, None, [], 0, id="healing stops when nothing is left"),
    pytest.param([], 0, 3, None, [], 0, id="healing a clear track is not an error"),
]


@pytest.mark.parametrize(("stored", "overflow", "count", "severity", "marks", "after"), HEALS)
def test_healing(
    stored: list[str],
    overflow: int,
    count: int,
    severity: int | None,
    marks: list[int],
    after: int,
) -> None:
    work = read_wounds(harm_decl(), 4, Wounds(tuple(stored), overflow))
    heal(work, count, severity)
    assert (work.marks, work.overflow) == (marks, after)


def test_healing_an_indexed_track_clears_the_highest_box_among_equals() -> None:
    spec = sheet_layout(ember(), traveller().build).track_named("strain")
    assert spec is not None
    work = read_wounds(spec.decl, 4, Wounds(("strain", "", "strain")))
    heal(work, 1)
    assert work.marks == [0, None, None, None]


def test_heal_takes_a_huge_overflow_at_once() -> None:
    work = read_wounds(harm_decl(), 4, Wounds(("tear",), 1_000_000))
    heal(work, 100_000)
    assert (work.marks, work.overflow) == ([T], 900_000)


# ── 4.6 the command ─────────────────────────────────────────────────────────

COMMANDS = [
    # (character, request attributes, expected now or refusal)
    pytest.param(
        "warden", None, {"kind": "knock", "amount": 2}, "Harm 2/4 Winded", id="Harm 2/4 Winded"
    ),
    pytest.param(
        "warden",
        harm(["tear"] * 4),
        {"kind": "tear", "amount": 1},
        "Harm 4/4 Down +1 over",
        id="Harm 4/4 Down +1 over",
    ),
    pytest.param(
        "warden",
        harm(["tear"] * 4, 3),
        {"kind": "tear", "amount": 2},
        "Harm 4/4 Down +2 over",
        id="only the overflow this command added is said",
    ),
    pytest.param(
        "warden",
        harm(["knock"]),
        {"kind": "", "amount": -1},
        "Harm 0/4",
        id="Harm 0/4 names no level",
    ),
    pytest.param(
        "warden",
        harm(["knock"], 2),
        {"kind": "", "amount": -1},
        "Harm 1/4 Scuffed",
        id="a heal that only clears overflow",
    ),
    pytest.param(
        "warden", None, {"kind": "K", "amount": 1}, "Harm 1/4 Scuffed", id="a kind by its label"
    ),
    pytest.param(
        "warden", None, {"kind": " TEAR ", "amount": 1}, "Harm 1/4 Scuffed", id="a kind NAME-EQ"
    ),
    pytest.param(
        "warden",
        harm(["tear", "knock"]),
        {"kind": "nothing", "amount": -1},
        "Harm 1/4 Scuffed",
        id="a heal naming no kind the track knows heals the lightest",
    ),
    pytest.param(
        "warden",
        harm(["tear"], 1),
        {"kind": "knock", "amount": -2},
        "Harm 1/4 Scuffed",
        id="naming knocks when only tears remain clears overflow then nothing",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": 1, "box": 3},
        "Harm 1/4 Scuffed",
        id="a valid box changes nothing on a sequential track",
    ),
    pytest.param(
        "traveller",
        None,
        {"kind": "strain", "amount": 1},
        "Strain 1/4",
        id="Strain 1/4: boxes name no level",
    ),
    pytest.param(
        "traveller",
        strain(["strain"]),
        {"kind": "strain", "amount": 1, "box": 3},
        "Strain 2/4",
        id="indexed: the mark lands on box b",
    ),
    pytest.param(
        "traveller",
        strain(["strain", "strain", "strain"]),
        {"kind": "strain", "amount": 1, "box": 2},
        "Strain 4/4",
        id="indexed: the next clear box from b on",
    ),
    pytest.param(
        "traveller",
        strain(["", "", "strain"]),
        {"kind": "strain", "amount": 2, "box": 3},
        "refused no-box",
        id="indexed: boxes below b are never used, and it is whole or nothing",
    ),
    pytest.param(
        "traveller",
        strain(["strain"] * 4),
        {"kind": "strain", "amount": 1},
        "refused no-box",
        id="indexed: a full track refuses",
    ),
    pytest.param(
        "zero",
        None,
        {"kind": "strain", "amount": 1},
        "refused no-box",
        id="a zero-length track refuses every mark no-box",
    ),
    pytest.param(
        "warden",
        None,
        {"track": "nothing", "kind": "knock", "amount": 1},
        "refused unknown-track",
        id="unknown-track",
    ),
    pytest.param(
        "traveller",
        None,
        {"track": "heat", "kind": "strain", "amount": 1},
        "refused wrong-track",
        id="a plain track is wrong-track",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": 0},
        "refused bad-amount",
        id="amount 0 is bad-amount",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": 100_001},
        "refused bad-amount",
        id="amount over 100000",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": -100_001},
        "refused bad-amount",
        id="a heal over 100000",
    ),
    pytest.param(
        "warden", None, {"kind": "knock", "amount": None}, "refused bad-amount", id="no amount"
    ),
    pytest.param(
        "warden", None, {"kind": "burn", "amount": 1}, "refused unknown-kind", id="unknown-kind"
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "burn", "amount": 0},
        "refused bad-amount",
        id="the amount before the kind",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "burn", "amount": 1, "box": 0},
        "refused unknown-kind",
        id="the kind before the box",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": 1, "box": 0},
        "refused bad-amount",
        id="box 0 is bad-amount",
    ),
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": -1, "box": 65},
        "refused bad-amount",
        id="box 65 is bad-amount, on a heal too",
    ),
]


def who_of(name: str, live: object) -> tuple[Ruleset, Character]:
    if name == "warden":
        return gravewatch(), warden(live)
    if name == "traveller":
        return ember(), traveller(live)
    hand = traveller(live)  # Heart -2 leaves 0 boxes; no build file may say so
    build = replace(hand.build, abilities=frozen_map({**hand.build.abilities, "heart": -2}))
    return ember(), Character(hand.name, build, hand.live)


@pytest.mark.parametrize(("who", "live", "attrs", "expected"), COMMANDS)
def test_wound_command(who: str, live: object, attrs: dict[str, Any], expected: str) -> None:
    rs, character_ = who_of(who, live)
    track = "strain" if who != "warden" else "harm"
    attrs = {"track": track, **attrs}
    assert now_or_reason(apply(rs, character_, "damage", **attrs)) == expected


STORES = [
    pytest.param(
        "warden",
        None,
        {"kind": "knock", "amount": 1},
        {"harm": {"marks": ["knock"]}},
        id="a mark is stored",
    ),
    pytest.param(
        "warden",
        harm(["knock"]),
        {"kind": "tear", "amount": 1},
        {"harm": {"marks": ["tear", "knock"]}},
        id="sequential marks are stored most severe first, as kind ids",
    ),
    pytest.param(
        "warden",
        harm(["tear"] * 4),
        {"kind": "knock", "amount": 2},
        {"harm": {"marks": ["tear"] * 4, "overflow": 2}},
        id="overflow is stored when above 0",
    ),
    pytest.param(
        "warden",
        harm(["knock"], 1),
        {"kind": "", "amount": -2},
        {},
        id="no marks and no overflow removes the entry",
    ),
    pytest.param(
        "traveller",
        None,
        {"kind": "strain", "amount": 1, "box": 3},
        {"strain": {"marks": ["", "", "strain"]}},
        id="indexed: one entry per box, clear ones empty",
    ),
    pytest.param(
        "traveller",
        strain(["strain", "", "strain"]),
        {"kind": "", "amount": -1},
        {"strain": {"marks": ["strain"]}},
        id="indexed: trailing clear boxes are dropped",
    ),
]


@pytest.mark.parametrize(("who", "live", "attrs", "wounds"), STORES)
def test_the_wound_command_stores(
    who: str, live: object, attrs: dict[str, Any], wounds: dict[str, Any]
) -> None:
    rs, character_ = who_of(who, live)
    outcome = apply(
        rs, character_, "damage", track="strain" if who != "warden" else "harm", **attrs
    )
    assert isinstance(outcome, Applied)
    assert outcome.character.live == who_of(who, {"wounds": wounds})[1].live


def test_a_refused_mark_changes_nothing() -> None:
    rs, before = who_of("traveller", strain(["", "", "strain"]))
    assert (
        now_or_reason(apply(rs, before, "damage", track="strain", kind="strain", amount=2, box=3))
        == "refused no-box"
    )
    assert before.live == who_of("traveller", strain(["", "", "strain"]))[1].live


def test_overflow_is_stored_at_most_1000000() -> None:
    work = read_wounds(harm_decl(), 4, Wounds(("tear",) * 4, 1_000_000))
    mark(work, T, 5)
    assert stored_wounds(work) == Wounds(("tear",) * 4, 1_000_000)
