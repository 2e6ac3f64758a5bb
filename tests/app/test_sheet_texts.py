"""A sheet command's record and event are spliced from its parts, each encoded once
(``app/checks.py``): they must read byte for byte as ``dumps(sheet_kept(...))`` and
``plain_json(record_view(...))``, which the records and ``GET .../records/{id}`` answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.app.checks import LiveTexts, _SheetText, _Views, live_text
from dicebound.app.plain import plain_json
from dicebound.app.records import record_view
from dicebound.character import live_to_json, load_character
from dicebound.compiler import compile_ruleset
from dicebound.replay import sheet_kept
from dicebound.sheet import Live, PoolValue, Wounds, frozen_map
from dicebound.sheet_commands.model import JsonValue, SheetChange, SheetOutcome, Unreadable
from dicebound.store.models import dumps
from dicebound.store.repo import Game, RecordHead
from dicebound.tagpass import resolve_text
from shared_files import shared_path

# applied, refused, for the party, for nobody, and values a JSON writer must escape
TEXT = " ".join(
    (
        '[sheet: op="damage" pool="hp" amount="7"]',
        '[sheet: op="note" field="concentration" value="Bless \\"the\\" Ünïcode ✓"]',
        '[sheet: op="condition" condition="Prone" who="party"]',
        '[sheet: op="spend" pool="slots_9" amount="1"]',
        '[sheet: op="spend" pool="hit points" amount="2" who="Nobody"]',
        '[sheet: op="rest" rest="Long rest" who="party"]',
        "[sheet: op=",
    )
)


def test_a_sheet_commands_record_and_event_read_as_the_encoders_write_them() -> None:
    raw = json.loads(shared_path("marinara", "ruleset-5e-2014.example.json").read_text("utf-8"))
    ruleset = compile_ruleset(raw)
    party = [
        load_character(ruleset, {"name": name, "sheet": {"v": 1, "build": {"fields": fields}}})
        for name, fields in (("Mira ✓", {"level": 5, "hp_max": 31}), ("Tam", {"hp_max": 28}))
    ]
    report = resolve_text(ruleset, party, TEXT, seed="1")
    game = Game("g1", "Game", ruleset.id, ruleset.version, ["a"], "hash")
    now = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    views = _Views(game, now)
    outcomes = [step for step in report.steps if isinstance(step, SheetOutcome)]
    assert len(outcomes) >= 6 and {o.ok for o in outcomes} == {True, False}
    for record_id, outcome in enumerate(outcomes, start=1):
        ask = TEXT[outcome.span[0] : outcome.span[1]]
        parts = _SheetText(outcome, ask)
        kept = sheet_kept(outcome)
        assert parts.result() == dumps(kept)
        head = RecordHead(
            record_id,
            record_id + 6,
            "sheet",
            now,
            ask,
            kept,
            None,
            game.ruleset_id,
            game.ruleset_version,
            None,
        )
        assert parts.view(record_id, record_id + 6, views.sheet_head) == plain_json(
            record_view(head)
        )


_TEXT = st.text(max_size=12)
_JSON_VALUE = (
    st.none()
    | st.booleans()
    | st.integers(-(10**7), 10**7)
    | st.text(max_size=8)
    | st.lists(st.text(max_size=4), max_size=3)
    | st.fixed_dictionaries(
        {"marks": st.lists(st.text(max_size=4), max_size=3), "overflow": st.integers(0, 9)}
    )
)
_NUMBER = st.integers(-(10**12), 10**12)
_ODD = st.none() | st.booleans() | st.floats(allow_nan=False) | _NUMBER | _TEXT


@settings(max_examples=examples(300), deadline=None)
@given(
    pools=st.dictionaries(_TEXT, st.builds(PoolValue, _NUMBER | _ODD, _NUMBER | _ODD), max_size=4),
    tracks=st.dictionaries(_TEXT, _NUMBER | _ODD, max_size=3),
    wounds=st.dictionaries(
        _TEXT, st.builds(Wounds, st.lists(_TEXT, max_size=3).map(tuple), _NUMBER), max_size=2
    ),
    text=st.dictionaries(_TEXT, _TEXT, max_size=3),
    conditions=st.lists(_TEXT, max_size=3).map(tuple),
    states=st.dictionaries(_TEXT, _TEXT, max_size=3),
)
def test_a_live_state_is_written_as_the_store_writes_its_file(
    pools: dict[str, PoolValue],
    tracks: dict[str, object],
    wounds: dict[str, Wounds],
    text: dict[str, str],
    conditions: tuple[str, ...],
    states: dict[str, str],
) -> None:
    """``live_text`` writes a live state piece by piece: byte for byte the text of
    ``dumps(live_to_json(...))``, whatever its values (odd ones included)."""
    live = Live(
        frozen_map(pools),
        frozen_map(tracks),  # type: ignore[arg-type]  # odd values on purpose
        frozen_map(wounds),
        frozen_map(text),
        conditions,
        frozen_map(states),
    )
    assert live_text(live) == dumps(live_to_json(live))
    # members written once and handed on: each new state shares all but one with the last
    texts = LiveTexts()
    assert texts.text(live) == dumps(live_to_json(live))
    some = dict(live.pools)
    for after in (
        Live(live.pools, frozen_map({**tracks, "moved": 3}), *_rest(live, 2)),
        Live(frozen_map({}), live.tracks, *_rest(live, 2)),
        Live(live.pools, live.tracks, live.wounds, live.text, (*conditions, "new"), live.states),
        Live(frozen_map({**some, "other": PoolValue(3, 1)}), *_rest(live, 1)),
        Live(frozen_map({f"{k}!": v for k, v in some.items()}), *_rest(live, 1)),
    ):
        assert texts.text(after) == dumps(live_to_json(after))
        assert texts.text(live) == dumps(live_to_json(live))


def _rest(live: Live, start: int) -> tuple[Any, ...]:
    """The members of ``live`` from the ``start``-th on, in order."""
    members = (live.pools, live.tracks, live.wounds, live.text, live.conditions, live.states)
    return members[start:]


@settings(max_examples=examples(300), deadline=None)
@given(
    values=st.lists(st.tuples(_TEXT, _TEXT, _JSON_VALUE, _JSON_VALUE), min_size=0, max_size=4),
    ok=st.booleans(),
    now=st.none() | _TEXT,
    who=_TEXT,
)
def test_a_sheet_outcome_with_any_changes_is_written_as_the_encoder_writes_it(
    values: list[tuple[str, str, JsonValue, JsonValue]], ok: bool, now: str | None, who: str
) -> None:
    """Every change value a command can read (numbers, text, flags, a wound track's
    marks, nothing) writes as ``dumps`` writes it in the record's ``result``."""
    changes = tuple(SheetChange(w, what, a, b) for w, what, a, b in values)
    outcome = SheetOutcome(
        tag='[sheet: op="x" result="ok"]',
        who=who,
        ok=ok,
        now=now,
        reason=None if ok else "bad-amount",
        request=Unreadable(raw="x"),
        changes=changes,
    )
    assert _SheetText(outcome, "[sheet: x]").result() == dumps(sheet_kept(outcome))
