"""One command applied to one character (docs/design/sheet-commands.md "The live
sheet"): ``apply_request`` sends each op to its rule, cuts ``now`` to 120 characters,
never changes the character it is given, and never raises on a readable request. Rows
on the reference rulesets; sweeps over every packaged ruleset and character."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import live_to_json
from dicebound.packaged import packaged_characters, packaged_rulesets
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.apply import apply_request
from dicebound.sheet_commands.current import CurrentTrack, current_sheet, tolerant_live
from dicebound.sheet_commands.model import OPS, Applied, Refused, SheetRequest
from dicebound.sheet_commands.reasons import REASONS
from live_sheet_support import (
    EMBER,
    FIVE_E,
    GRAVEWATCH,
    apply,
    character,
    marinara,
    now_or_reason,
    packaged,
    packaged_character,
    variant,
)

CASTER = {"level": 5, "hp_max": 31, "spellcasting_ability": "wis", "slots_max_1": 2}


def mira() -> Character:
    return character(marinara(FIVE_E), CASTER, {"counters": [{"name": "Ki", "max": 5}]})


DISPATCH = [
    pytest.param(FIVE_E, "spend", {"pool": "ki", "amount": 1}, "4/5", id="spend is a pool op"),
    pytest.param(FIVE_E, "restore", {"pool": "hp", "amount": 1}, "31/31", id="restore"),
    pytest.param(FIVE_E, "temp", {"pool": "hp", "amount": 2}, "31/31 +2 temp", id="temp"),
    pytest.param(FIVE_E, "damage", {"pool": "hp", "amount": 2}, "29/31", id="damage with a pool"),
    pytest.param(
        GRAVEWATCH,
        "damage",
        {"pool": "resolve", "track": "harm", "kind": "knock", "amount": 1},
        "Harm 1/4 Scuffed",
        id="damage with a pool and a track is the wound form",
    ),
    pytest.param(FIVE_E, "track", {"track": "exhaustion", "to": 1}, "Exhaustion 1", id="track"),
    pytest.param(FIVE_E, "condition", {"condition": "prone"}, "Prone on", id="condition"),
    pytest.param(
        EMBER, "state", {"state": "stance", "value": "guarded"}, "Stance Guarded", id="state"
    ),
    pytest.param(
        FIVE_E,
        "note",
        {"field": "concentration", "value": "Bless"},
        "Concentrating on: Bless",
        id="note",
    ),
]


@pytest.mark.parametrize(("rs", "op", "attrs", "expected"), DISPATCH)
def test_each_op_goes_to_its_rule(rs: str, op: str, attrs: dict[str, Any], expected: str) -> None:
    ruleset = marinara(rs)
    who = mira() if rs == FIVE_E else character(ruleset)
    outcome = apply(ruleset, who, op, **attrs)
    assert now_or_reason(outcome) == expected
    assert isinstance(outcome, Applied)
    assert outcome.stored
    assert (outcome.character.name, outcome.character.build) == (who.name, who.build)


def test_every_now_is_cut_to_120_characters() -> None:
    def long_notes(raw: dict[str, Any]) -> None:
        raw["sheet"]["live"]["text"][0]["maxLength"] = 500

    rs = variant(FIVE_E, long_notes)
    outcome = apply(rs, character(rs), "note", field="concentration", value="x" * 300)
    assert isinstance(outcome, Applied)
    assert outcome.now == ("Concentrating on: " + "x" * 300)[:120]
    assert outcome.character.live.text["concentration"] == "x" * 300


# ── Every packaged ruleset ──────────────────────────────────────────────────

PACKAGED = [
    pytest.param(r, name, id=f"{r}/{name}")
    for r in packaged_rulesets()
    for name in packaged_characters(r)
]


def ok(rs: Ruleset, who: Character, op: str, **attrs: Any) -> Character:
    outcome = apply(rs, who, op, **attrs)
    assert isinstance(outcome, Applied), (op, attrs, outcome)
    return outcome.character


def assert_marked_and_healed(rs: Ruleset, who: Character, track: CurrentTrack) -> None:
    """One mark of the first kind, then one of that kind healed: the same marks again
    (on an indexed track the heal may take a higher box of that kind than the new one)."""
    if track.value == len(track.spec.levels):
        return
    kind = track.spec.decl.kinds[0].id
    marked = ok(rs, who, "damage", track=track.spec.id, kind=kind, amount=1)
    healed = ok(rs, marked, "damage", track=track.spec.label, kind=kind, amount=-1)
    if track.spec.decl.fill == "sequential":
        assert healed.live == who.live
    after = next(t for t in current_sheet(rs, healed).tracks if t.spec.id == track.spec.id)
    assert after.wounds is not None and track.wounds is not None
    assert sorted(m for m in after.wounds.marks if m) == sorted(m for m in track.wounds.marks if m)
    assert after.wounds.overflow == track.wounds.overflow


@pytest.mark.parametrize(("ruleset_id", "name"), PACKAGED)
def test_every_packaged_sheet_moves_and_comes_back(ruleset_id: str, name: str) -> None:
    """Every pool spent and restored, every plain track moved and put back, every
    condition turned on and off, every state set and reset, every note written and
    cleared, every wound track marked and healed: each comes back to the live it started."""
    rs, who = packaged(ruleset_id), packaged_character(ruleset_id, name)
    start = who.live
    now = current_sheet(rs, who)
    for pool in now.pools:
        if pool.value >= 1:
            spent = ok(rs, who, "spend", pool=pool.spec.key, amount=1)
            assert ok(rs, spent, "restore", pool=pool.spec.label, amount=1).live == start
    for track in now.tracks:
        if track.spec.is_wound:
            assert_marked_and_healed(rs, who, track)
            continue
        moved = ok(rs, who, "track", track=track.spec.label, to=track.spec.max)
        assert ok(rs, moved, "track", track=track.spec.id, to=track.value).live == start
    for condition in now.conditions:
        on = ok(rs, who, "condition", condition=condition.condition.label, on=not condition.active)
        assert (
            ok(rs, on, "condition", condition=condition.condition.id, on=condition.active).live
            == start
        )
    for state in now.states:
        for value in state.spec.values:
            set_ = ok(rs, who, "state", state=state.spec.id, value=value)
            assert ok(rs, set_, "state", state=state.spec.label, value=state.value).live == start
    for text in now.text:
        written = ok(rs, who, "note", field=text.spec.label, value="a note")
        assert ok(rs, written, "note", field=text.spec.id, value=text.value).live == start


# ── Properties ──────────────────────────────────────────────────────────────


def cast() -> list[tuple[Ruleset, Character]]:
    """A character of each reference ruleset, each with something stored."""
    five_e, grave, ember = marinara(FIVE_E), marinara(GRAVEWATCH), marinara(EMBER)
    return [
        (
            five_e,
            character(
                five_e,
                CASTER,
                {"counters": [{"name": "Ki", "max": 5}]},
                {"pools": {"hp": {"value": 9, "temp": 2}}, "conditions": ["prone", "hexed"]},
            ),
        ),
        (
            grave,
            character(
                grave,
                lists={"scars": [{"name": "Bite", "levels": 2}]},
                live={
                    "wounds": {"harm": {"marks": ["tear", "knock"], "overflow": 1}},
                    "states": {"light": "out"},
                },
            ),
        ),
        (
            ember,
            character(
                ember,
                abilities={"heart": 2},
                live={"wounds": {"strain": {"marks": ["", "strain"]}}, "tracks": {"heat": 3}},
            ),
        ),
    ]


WORDS = st.one_of(
    st.sampled_from(
        [
            "hp",
            "Ki",
            "slots_1",
            "harm",
            "Harm",
            "strain",
            "heat",
            "knock",
            "T",
            "Stance",
            "light",
            "Out",
            "reckless",
            "concentration",
            "course",
            "prone",
            "Rattled",
            "exhaustion",
            "grit",
            "",
        ]
    ),
    st.text(max_size=12),
)
NUMBERS = st.one_of(st.none(), st.integers(-1_000_002, 1_000_002), st.integers(-3, 70))
REQUEST = st.builds(
    SheetRequest,
    op=st.sampled_from(OPS),
    pool=st.one_of(st.none(), WORDS),
    amount=NUMBERS,
    track=st.one_of(st.none(), WORDS),
    kind=WORDS,
    box=NUMBERS,
    to=NUMBERS,
    by=NUMBERS,
    condition=st.one_of(st.none(), WORDS),
    on=st.booleans(),
    state=st.one_of(st.none(), WORDS),
    value=st.one_of(st.none(), WORDS, st.text(max_size=200)),
    field=st.one_of(st.none(), WORDS),
    rest=st.one_of(st.none(), WORDS),
    name=st.one_of(st.none(), WORDS),
)


@settings(max_examples=examples(400))
@given(st.sampled_from(range(3)), REQUEST)
def test_no_request_raises_and_the_character_given_never_changes(
    which: int, request: SheetRequest
) -> None:
    rs, who = cast()[which]
    before = (copy.deepcopy(live_to_json(who.live)), who.build)
    outcome = apply_request(rs, who, request)
    assert (live_to_json(who.live), who.build) == before
    if isinstance(outcome, Refused):
        assert outcome.reason in REASONS
        return
    assert outcome.character.build is who.build
    if request.op != "use":  # a use's summary is each step's part joined, not cut whole
        assert len(outcome.now) <= 120


@settings(max_examples=examples(200))
@given(st.sampled_from(range(3)), st.lists(REQUEST, max_size=8))
def test_a_refused_command_leaves_the_character_exactly_as_it_was(
    which: int, requests: list[SheetRequest]
) -> None:
    """Played in order, a refusal keeps the character (equal, and the same value) and an
    applied command's result is stored tolerantly clean: reading it again changes nothing."""
    rs, who = cast()[which]
    for request in requests:
        outcome = apply_request(rs, who, request)
        if isinstance(outcome, Refused):
            again = apply_request(rs, who, request)
            assert again == outcome  # pure: the same answer, the same character
            continue
        who = outcome.character
        assert tolerant_live(who.live) == who.live
