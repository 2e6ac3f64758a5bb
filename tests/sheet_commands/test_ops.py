"""The ops that set one thing (docs/design/sheet-commands.md "The live sheet", 3.6 to
3.9 of the contract): ``track`` on a plain track, ``condition``, ``state``, ``note``. On
Marinara's 5e and Ember Roads rulesets, and copies edited for the shapes they lack."""

from __future__ import annotations

from typing import Any

import pytest

from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.model import Applied
from live_sheet_support import (
    EMBER,
    FIVE_E,
    GRAVEWATCH,
    apply,
    character,
    marinara,
    now_or_reason,
    variant,
)


def five_e() -> Ruleset:
    return marinara(FIVE_E)


def fighter(live: object = None) -> Character:
    return character(five_e(), {"level": 1, "hp_max": 12}, live=live)


# ── 3.6 track ───────────────────────────────────────────────────────────────

TRACKS = [
    # (stored live, request attributes, expected)
    pytest.param(
        None, {"track": "Exhaustion", "by": 2}, "Exhaustion 2", id="by moves: Exhaustion 2"
    ),
    pytest.param(
        None, {"track": " exhaustion ", "to": 3}, "Exhaustion 3", id="to sets; id NAME-EQ"
    ),
    pytest.param(
        None, {"track": "Exhaustion", "to": 9}, "Exhaustion 6", id="past the maximum is clamped"
    ),
    pytest.param(
        None, {"track": "Exhaustion", "by": -3}, "Exhaustion 0", id="past the minimum is clamped"
    ),
    pytest.param(
        {"tracks": {"exhaustion": 4}},
        {"track": "exhaustion", "by": -1},
        "Exhaustion 3",
        id="by moves from the stored value",
    ),
    pytest.param(
        {"tracks": {"exhaustion": 40}},
        {"track": "exhaustion", "by": -1},
        "Exhaustion 5",
        id="by moves from the value clamped",
    ),
    pytest.param(
        None, {"track": "Exhaustion", "to": 1_000_000}, "Exhaustion 6", id="to 1000000 is an amount"
    ),
    pytest.param(
        None,
        {"track": "Exhaustion", "to": 1_000_001},
        "refused bad-amount",
        id="to beyond 1000000 is bad-amount",
    ),
    pytest.param(
        None,
        {"track": "Exhaustion", "by": -1_000_001},
        "refused bad-amount",
        id="by beyond -1000000 is bad-amount",
    ),
    pytest.param(
        None,
        {"track": "Exhaustion", "to": 1, "by": 1},
        "refused malformed",
        id="both to and by is malformed",
    ),
    pytest.param(
        None, {"track": "Exhaustion"}, "refused malformed", id="neither to nor by is malformed"
    ),
    pytest.param(None, {"track": "Fatigue", "to": 1}, "refused unknown-track", id="unknown-track"),
    pytest.param(None, {"track": "Fatigue"}, "refused unknown-track", id="the track before to/by"),
    pytest.param(
        None, {"track": None, "to": 1}, "refused unknown-track", id="no track is unknown-track"
    ),
]


@pytest.mark.parametrize(("live", "attrs", "expected"), TRACKS)
def test_track(live: object, attrs: dict[str, Any], expected: str) -> None:
    assert now_or_reason(apply(five_e(), fighter(live), "track", **attrs)) == expected


def test_a_wound_track_is_wrong_track_before_to_and_by_are_read() -> None:
    rs = marinara(GRAVEWATCH)
    warden = character(rs)
    assert now_or_reason(apply(rs, warden, "track", track="Harm", to=1)) == "refused wrong-track"
    assert now_or_reason(apply(rs, warden, "track", track="harm")) == "refused wrong-track"


def test_a_hidden_track_is_unknown_track() -> None:
    def hide_exhaustion(raw: dict[str, Any]) -> None:
        track = next(t for t in raw["sheet"]["live"]["tracks"] if t["id"] == "exhaustion")
        track["hideWhen"] = {"field": "hit_die", "in": ["d6", "d12"]}

    rs = variant(FIVE_E, hide_exhaustion)
    hidden = character(rs, {"hit_die": "d12"})
    shown = character(rs, {"hit_die": "d10"})
    assert (
        now_or_reason(apply(rs, hidden, "track", track="Exhaustion", by=1))
        == "refused unknown-track"
    )
    assert now_or_reason(apply(rs, shown, "track", track="Exhaustion", by=1)) == "Exhaustion 1"


def test_a_track_back_at_its_default_leaves_the_record() -> None:
    outcome = apply(
        five_e(), fighter({"tracks": {"exhaustion": 2}}), "track", track="exhaustion", to=0
    )
    assert isinstance(outcome, Applied)
    assert dict(outcome.character.live.tracks) == {}


def test_a_track_with_a_default_is_stored_away_from_it() -> None:
    """Ember Roads' Heat declares default 0; at 0 it is not stored, at 2 it is."""
    rs = marinara(EMBER)
    raised = apply(rs, character(rs), "track", track="Heat", by=2)
    assert isinstance(raised, Applied)
    assert dict(raised.character.live.tracks) == {"heat": 2}
    lowered = apply(rs, raised.character, "track", track="Heat", by=-5)
    assert isinstance(lowered, Applied)
    assert (lowered.now, dict(lowered.character.live.tracks)) == ("Heat 0", {})


# ── 3.7 condition ───────────────────────────────────────────────────────────

CONDITIONS = [
    # (stored conditions, attrs, expected now, conditions after)
    pytest.param([], {"condition": "Poisoned"}, "Poisoned on", ["poisoned"], id="on by label"),
    pytest.param(
        ["prone"],
        {"condition": "poisoned"},
        "Poisoned on",
        ["prone", "poisoned"],
        id="on appends at the end",
    ),
    pytest.param(
        ["poisoned", "prone"],
        {"condition": "POISONED"},
        "Poisoned on",
        ["poisoned", "prone"],
        id="already on changes nothing",
    ),
    pytest.param(
        ["poisoned", "prone"],
        {"condition": "Poisoned", "on": False},
        "Poisoned off",
        ["prone"],
        id="off removes",
    ),
    pytest.param(
        [], {"condition": "Poisoned", "on": False}, "Poisoned off", [], id="off when off is fine"
    ),
    pytest.param(
        ["hexed"],
        {"condition": "Prone"},
        "Prone on",
        ["hexed", "prone"],
        id="ids not declared stay",
    ),
    pytest.param(
        [], {"condition": "Hexed"}, "refused unknown-condition", [], id="unknown-condition"
    ),
    pytest.param([], {"condition": None}, "refused unknown-condition", [], id="no condition"),
]


@pytest.mark.parametrize(("stored", "attrs", "expected", "after"), CONDITIONS)
def test_condition(
    stored: list[str], attrs: dict[str, Any], expected: str, after: list[str]
) -> None:
    outcome = apply(five_e(), fighter({"conditions": stored}), "condition", **attrs)
    assert now_or_reason(outcome) == expected
    if isinstance(outcome, Applied):
        assert list(outcome.character.live.conditions) == after


def test_the_condition_list_is_capped_at_80() -> None:
    full = [f"c{i}" for i in range(80)]
    outcome = apply(five_e(), fighter({"conditions": full}), "condition", condition="Poisoned")
    assert isinstance(outcome, Applied)
    assert (outcome.now, list(outcome.character.live.conditions)) == ("Poisoned on", full)


# ── 3.8 state ───────────────────────────────────────────────────────────────


def ember() -> Ruleset:
    return marinara(EMBER)


STATES = [
    # (stored states, attrs, expected now, states after)
    pytest.param(
        {},
        {"state": "Stance", "value": "Reckless"},
        "Stance Reckless",
        {"stance": "reckless"},
        id="Stance Reckless by its label",
    ),
    pytest.param(
        {},
        {"state": "stance", "value": "guarded"},
        "Stance Guarded",
        {"stance": "guarded"},
        id="by the value itself",
    ),
    pytest.param(
        {},
        {"state": " STANCE ", "value": " reckless "},
        "Stance Reckless",
        {"stance": "reckless"},
        id="NAME-EQ both",
    ),
    pytest.param(
        {"stance": "guarded"},
        {"state": "Stance", "value": "Steady"},
        "Stance Steady",
        {},
        id="the default leaves the record",
    ),
    pytest.param(
        {}, {"state": "Mood", "value": "Steady"}, "refused unknown-state", {}, id="unknown-state"
    ),
    pytest.param(
        {}, {"state": "Stance", "value": "Wild"}, "refused unknown-value", {}, id="unknown-value"
    ),
    pytest.param(
        {}, {"state": "Stance", "value": None}, "refused unknown-value", {}, id="no value"
    ),
]


@pytest.mark.parametrize(("stored", "attrs", "expected", "after"), STATES)
def test_state(
    stored: dict[str, str], attrs: dict[str, Any], expected: str, after: dict[str, str]
) -> None:
    outcome = apply(ember(), character(ember(), live={"states": stored}), "state", **attrs)
    assert now_or_reason(outcome) == expected
    if isinstance(outcome, Applied):
        assert dict(outcome.character.live.states) == after


def test_a_hidden_state_cannot_be_set() -> None:
    def hide_light(raw: dict[str, Any]) -> None:
        light = next(s for s in raw["sheet"]["live"]["states"] if s["id"] == "light")
        light["hideWhen"] = {"field": "watch", "notEquals": "night"}

    rs = variant(GRAVEWATCH, hide_light)
    at_dusk = character(rs, {"watch": "dusk"})
    at_night = character(rs, {"watch": "night"})
    assert (
        now_or_reason(apply(rs, at_dusk, "state", state="Light", value="Out"))
        == "refused unknown-state"
    )
    assert now_or_reason(apply(rs, at_night, "state", state="Light", value="Out")) == "Light Out"


def test_the_first_value_in_declared_order_answers_by_itself_or_its_label() -> None:
    """A label that is another value's id: the value declared first wins."""

    def crossed(raw: dict[str, Any]) -> None:
        stance = raw["sheet"]["live"]["states"][0]
        stance["valueLabels"] = {"guarded": "Reckless", "steady": "Steady", "reckless": "Wild"}

    rs = variant(EMBER, crossed)
    outcome = apply(rs, character(rs), "state", state="Stance", value="reckless")
    assert now_or_reason(outcome) == "Stance Reckless"
    assert isinstance(outcome, Applied)
    assert dict(outcome.character.live.states) == {"stance": "guarded"}


# ── 3.9 note ────────────────────────────────────────────────────────────────

NOTES = [
    # (attrs, expected now, text after)
    pytest.param(
        {"field": "concentration", "value": "Bless"},
        "Concentrating on: Bless",
        {"concentration": "Bless"},
        id="by id",
    ),
    pytest.param(
        {"field": "concentrating on", "value": "Bless"},
        "Concentrating on: Bless",
        {"concentration": "Bless"},
        id="by label NAME-EQ",
    ),
    pytest.param(
        {"field": "concentration", "value": "  Bless "},
        "Concentrating on:   Bless ",
        {"concentration": "  Bless "},
        id="the value is not trimmed",
    ),
    pytest.param(
        {"field": "concentration", "value": "x" * 90},
        "Concentrating on: " + "x" * 80,
        {"concentration": "x" * 80},
        id="cut to maxLength",
    ),
    pytest.param(
        {"field": "concentration", "value": ""}, "Concentrating on cleared", {}, id="empty clears"
    ),
    pytest.param(
        {"field": "concentration"}, "Concentrating on cleared", {}, id="absent means empty"
    ),
    pytest.param(
        {"field": "focus", "value": "Bless"}, "refused unknown-field", {}, id="unknown-field"
    ),
]


@pytest.mark.parametrize(("attrs", "expected", "after"), NOTES)
def test_note(attrs: dict[str, Any], expected: str, after: dict[str, str]) -> None:
    outcome = apply(five_e(), fighter({"text": {"concentration": "Shield"}}), "note", **attrs)
    assert now_or_reason(outcome) == expected
    if isinstance(outcome, Applied):
        assert dict(outcome.character.live.text) == after
