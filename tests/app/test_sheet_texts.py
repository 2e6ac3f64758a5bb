"""A sheet command's record and event are spliced from its parts, each encoded once
(``app/checks.py``): they must read byte for byte as ``dumps(sheet_kept(...))`` and
``plain_json(record_view(...))``, which the records and ``GET .../records/{id}`` answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from dicebound.app.checks import _SheetText, _Written
from dicebound.app.plain import plain_json
from dicebound.app.records import record_view
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.engine import resolve_text
from dicebound.replay import sheet_kept
from dicebound.sheet_commands.model import SheetOutcome
from dicebound.store.models import dumps
from dicebound.store.repo import Game, RecordHead
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
    written = _Written(game, now)
    outcomes = [step for step in report.steps if isinstance(step, SheetOutcome)]
    assert len(outcomes) >= 6 and {o.ok for o in outcomes} == {True, False}
    for record_id, outcome in enumerate(outcomes, start=1):
        ask = TEXT[outcome.span[0] : outcome.span[1]]
        parts = _SheetText(outcome, ask)
        kept = sheet_kept(outcome)
        assert parts.result() == dumps(kept)
        head = RecordHead(
            record_id, "sheet", now, ask, kept, None, game.ruleset_id, game.ruleset_version, None
        )
        assert parts.view(record_id, written.sheet_head) == plain_json(record_view(head))
