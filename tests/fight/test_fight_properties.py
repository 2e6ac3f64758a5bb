"""Properties of fights: no fight tag text, however broken, raises anything but
dicebound's own error, and every state a text leaves keeps the invariants (health in
range, initiative a permutation of the combatants, a defeated combatant never acting,
the menu's odds chances that add up)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fight_fixtures import BRENNA, CORWIN, character, f5
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.errors import DiceboundError
from dicebound.fight import fight_view, load_state
from dicebound.fight.state import health_of
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text

PARTY = (character(BRENNA), character(CORWIN, {"pools": {"hp": {"value": 3}}}))

_WORDS = st.sampled_from(
    [
        "Brenna",
        "Corwin",
        "Snag",
        "Rot",
        "Mote",
        "Husk",
        "Volley",
        "brenna",
        "snag 1",
        "Longsword",
        "Scimitar",
        "Bite",
        "Slam",
        "Poke",
        "Twin Shot",
        "dodge",
        "help",
        "standard:dodge",
        "attack:0:0",
        "end-turn",
        "pass",
        "attack:9:9",
        "",
        " ",
        "x2",
        "Rot x3",
        "Snag (tier cr_1_4)",
        "Bandit (health 99; hit 40; damage 9d12+9 fire)",
        "Snag, Rot",
        "Brenna, Snag",
        "(",
        ")",
        ",",
        ";",
        "w1",
        "slots_4",
    ]
)
_OPS = st.sampled_from(["start", "act", "pass", "end-turn", "endturn", "flee", "end", "", "bogus"])
_KEYS = st.sampled_from(
    ["party", "enemies", "who", "option", "target", "pay", "mode", "style", "window", "op"]
)


@st.composite
def fight_tags(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:  # raw junk inside the brackets
        return "[fight:" + draw(st.text(max_size=40).filter(lambda t: "]" not in t)) + "]"
    if draw(st.booleans()):  # a well-formed choice or end of turn, so fights go on
        if draw(st.booleans()):
            return '[fight: op="end-turn"]'
        option = draw(
            st.sampled_from(["Longsword", "Scimitar", "Bite", "Twin Shot", "Poke", "dodge", "help"])
        )
        target = draw(
            st.sampled_from(
                ["Brenna", "Corwin", "Snag", "Rot", "Mote", "Volley", "Brenna, Corwin", "Snag, Rot"]
            )
        )
        return f'[fight: op="act" option="{option}" target="{target}"]'
    parts = [f'op="{draw(_OPS)}"']
    for _ in range(draw(st.integers(0, 4))):
        parts.append(f'{draw(_KEYS)}="{draw(_WORDS)}"')
    return "[fight: " + " ".join(parts) + "]"


START = '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot, Mote, Volley"]'


def _invariants(fight: dict[str, Any], party: Sequence[Character]) -> None:
    fight = load_state(json.loads(json.dumps(fight)))  # the order a permutation, ids unique
    for c in fight["combatants"]:
        value, top, temp = health_of(f5(), c, party)
        assert 0 <= value <= top and temp >= 0
        if c["defeated"]:
            assert c["down"] or c["side"] == "party"


def _odds_add_up(fight: dict[str, Any], party: Sequence[Character]) -> None:
    """Each option's odds at each target: its amounts' chances sum to 1, a critical is a
    hit, a miss deals 0; a heal's amounts sum to 1."""
    view = fight_view(f5(), fight, party)
    for option in (view["current"] or {}).get("options", []):
        for odds in (option.get("odds") or {}).values():
            if "heals" in odds:  # a heal weighs its amount alone
                heals = [Fraction(p) for p in odds["heals"].values()]
                assert sum(heals) == 1 and all(p > 0 for p in heals)
                continue
            hit, critical = Fraction(odds["hit"]), Fraction(odds["critical"])
            dealt = {int(d): Fraction(p) for d, p in odds["dealt"].items()}
            assert sum(dealt.values()) == 1 and all(p > 0 for p in dealt.values())
            assert 0 <= critical <= hit <= 1 and 0 <= Fraction(odds["drops"]) <= 1
            assert dealt.get(0, Fraction(0)) >= 1 - hit


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fight_tags(), max_size=12), st.text(max_size=6))
def test_any_fight_text_raises_only_dicebound_errors_and_keeps_the_invariants(
    tags: list[str], seed: str
) -> None:
    text = START + " " + " ".join(tags)
    try:
        report = resolve_text(f5(), PARTY, text, seed=seed or "0")
    except DiceboundError:
        return
    if report.fight is None:
        return
    _invariants(report.fight, report.party)
    _odds_add_up(report.fight, report.party)
    # a defeated combatant never acts: no step of a defeated chooser resolved a choice
    defeated_at: set[str] = set()
    for _, step in report.fight_steps:
        if step.ok and step.asked[0] == ("op", "act"):
            who = dict(step.asked).get("who", "")
            assert who not in defeated_at
        for event in step.events:
            if event["type"] == "defeated" or (
                event["type"] == "dying" and event.get("result") == "dead"
            ):
                defeated_at.add(str(event["name"]))
