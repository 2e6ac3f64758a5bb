"""Properties of saves, conditions and concentration over any sequence of choices:
every tracked record stands on a condition its holder has (a member's on its sheet),
names a combatant as its source, and one held by concentration has its source still
concentrating; a concentrating member's sheet note names what it concentrates on; the
state reads back through JSON."""

from __future__ import annotations

import json
from typing import Any

from fight_fixtures import BRENNA, CORWIN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_fixtures import ACTIONS, trials

from budget import examples
from dicebound.character import load_character
from dicebound.errors import DiceboundError
from dicebound.fight import load_state
from dicebound.fight.state import member_of
from dicebound.tagpass import resolve_text

START = (
    '[fight: op="start" party="Brenna, Corwin" '
    'enemies="Spitter (trials/spitter), Stone (trials/stone)"]'
)
_LABELS = [a["name"] for a in ACTIONS] + ["Longsword", "dodge"]
_TARGETS = ["Brenna", "Corwin", "Brenna, Corwin", "Spitter", "Stone", "Spitter, Stone"]


@st.composite
def choices(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return '[fight: op="end-turn"]'
    option = draw(st.sampled_from(_LABELS))
    target = draw(st.sampled_from(_TARGETS))
    return f'[fight: op="act" option="{option}" target="{target}"]'


def _party() -> tuple[Any, ...]:
    ruleset = trials()
    return tuple(load_character(ruleset, dict(raw)) for raw in (BRENNA, CORWIN))


def _concentrate_on_wail(fight: dict[str, Any]) -> dict[str, Any]:
    for c in fight["combatants"]:
        for a in c["actions"]:
            if a["id"] in ("wail", "snare"):
                a["concentration"] = True
    return fight


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(choices(), min_size=1, max_size=24), st.text(max_size=6))
def test_records_and_concentration_stay_consistent(tags: list[str], seed: str) -> None:
    ruleset, party = trials(), _party()
    opened = resolve_text(ruleset, party, START, seed="1")
    assert opened.fight is not None
    fight = _concentrate_on_wail(opened.fight)
    try:
        report = resolve_text(ruleset, opened.party, " ".join(tags), seed=seed or "0", fight=fight)
    except DiceboundError:
        return
    assert report.fight is not None
    state = load_state(json.loads(json.dumps(report.fight)))
    ids = {c["id"] for c in state["combatants"]}
    by_id = {c["id"]: c for c in state["combatants"]}
    for c in state["combatants"]:
        names = [r["condition"] for r in c["tracked"]]
        assert len(names) == len(set(names))
        for record in c["tracked"]:
            assert record["source"] in ids
            if c["side"] == "party":
                assert record["condition"] in member_of(report.party, c).live.conditions
            if record.get("concentration"):
                held = by_id[record["source"]]["concentrating"]
                assert held is not None
        if c["side"] == "party":
            note = member_of(report.party, c).live.text.get("concentration", "")
            held = c["concentrating"]
            assert note == ("" if held is None else held["label"])
