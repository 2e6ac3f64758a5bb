"""A party command equals the same command applied to each member (SHEET.md 2.4 in
dicebound's words: every member is tried against its own state; the tag is applied
when one succeeded). Hypothesis draws the command and each member's starting state."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.sheet import Character
from dicebound.sheet_commands.grammar import find_sheet_tags
from dicebound.sheet_commands.model import SheetOutcome
from dicebound.sheet_commands.resolve import apply_sheet_tag
from live_sheet_support import FIVE_E, character, marinara

FIFTH = marinara(FIVE_E)

COMMANDS = [
    'op="spend" pool="{pool}" amount="{n}"',
    'op="restore" pool="{pool}" amount="{n}"',
    'op="damage" pool="{pool}" amount="{n}"',
    'op="temp" pool="hp" amount="{n}"',
    'op="track" track="exhaustion" by="{n}"',
    'op="track" track="Exhaustion" to="{n}"',
    'op="condition" condition="poisoned" state="{onoff}"',
    'op="note" field="concentration" value="Bless {n}"',
    'op="rest" rest="{rest}"',
]

_COMMAND = st.builds(
    lambda shape, pool, n, onoff, rest: shape.format(pool=pool, n=n, onoff=onoff, rest=rest),
    st.sampled_from(COMMANDS),
    st.sampled_from(["hp", "Hit points", "slots_1", "slots_3", "hit_dice", "pact_slots", "ki"]),
    st.integers(-2, 40),
    st.sampled_from(["on", "off"]),
    st.sampled_from(["short", "long", "Long rest", "nap"]),
)

_SPENT = st.fixed_dictionaries(
    {},
    optional={
        "hp": st.integers(0, 40).map(lambda v: {"value": v}),
        "slots_1": st.integers(0, 2).map(lambda v: {"value": v}),
        "hit_dice": st.integers(0, 5).map(lambda v: {"value": v}),
    },
)


def _member(name: str, level: int, pools: dict[str, object], exhaustion: int) -> Character:
    return character(
        FIFTH,
        fields={"level": level, "hp_max": 8 * level, "slots_max_1": 2 if level > 2 else 0},
        live={"pools": pools, "tracks": {"exhaustion": exhaustion}},
        name=name,
    )


_PARTY = st.builds(
    lambda a, b, c: (
        _member("Mira", 5, a[0], a[1]),
        _member("Tam the Bold", 1, b[0], b[1]),
        _member("Oda", 3, c[0], c[1]),
    ),
    *[st.tuples(_SPENT, st.integers(0, 6))] * 3,
)


def _apply(party: tuple[Character, ...], body: str) -> tuple[SheetOutcome, tuple[Character, ...]]:
    (tag,) = find_sheet_tags(f"[sheet: {body}]")
    return apply_sheet_tag(FIFTH, party, "Mira", tag, 1)


@settings(max_examples=examples(150), deadline=None)
@given(_PARTY, _COMMAND)
def test_a_party_command_equals_the_command_applied_to_each_member(
    party: tuple[Character, ...], command: str
) -> None:
    together, after_party = _apply(party, f'{command} who="party"')
    alone = []
    for i, member in enumerate(party):
        outcome, after = _apply(party, f'{command} who="{member.name}"')
        assert after_party[i] == after[i], member.name  # the same sheet afterwards
        alone.append(outcome)
    succeeded = [o for o in alone if o.ok]
    assert together.ok == bool(succeeded)
    if together.ok:
        pairs = list(zip(party, alone, strict=True))
        entries = [f"{m.name} {o.now}" for m, o in pairs if o.ok]
        entries += [f"{m.name} refused ({o.reason})" for m, o in pairs if not o.ok]
        assert together.now == "; ".join(entries)  # three short entries: never cut
    else:
        assert together.reason == alone[0].reason
