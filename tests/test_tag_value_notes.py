"""A tag attribute value the ruleset does not know is said, not ignored silently (issue 44
item 7; docs/design/readings.md "Values a ruleset does not know"): the check still rolls
as the value was never written (Marinara's reading, which the Ruleset Checks page keeps),
and its result carries one note naming the values there are, which ``check --json`` and
the dice card show. One row per closed attribute, with forced faces, and a row where the
value is known and nothing is said."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import NamedTuple

import pytest

from dicebound.edge.cli import main
from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckResult
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from thornwatch import warden, watch

WATCH = watch()
SEVEN = (7, 7, 7, 7, 7, 7, 8)


def _packaged(ruleset: str, short: str) -> Callable[[], tuple[Ruleset, Character]]:
    def made() -> tuple[Ruleset, Character]:
        compiled = read_ruleset(ruleset)
        return compiled, read_character(compiled, f"{ruleset}/{short}")

    return made


def _thornwatch() -> tuple[Ruleset, Character]:
    return WATCH, warden(WATCH)


DND = _packaged("dnd5e-srd", "mira")
FATE = _packaged("fate-core", "ines")
WOD = _packaged("wod-pool", "lucia")


class Row(NamedTuple):
    table: Callable[[], tuple[Ruleset, Character]]
    tag: str
    attribute: str  # the attribute the row is about: the same tag without it rolls the same
    faces: tuple[int, ...]
    note: str | None  # the whole sentence; None: the value is known, nothing is said


ROWS = {
    "mode unknown": Row(
        DND,
        'skill="Stealth" dc="15" mode="sideways"',
        "mode",
        (12,),
        'mode="sideways" is not a mode ("normal", "advantage" or "disadvantage"), so it was '
        "rolled normal.",
    ),
    "mode known, any case": Row(DND, 'skill="Stealth" dc="15" mode=" Normal"', "mode", (12,), None),
    "mode where the ruleset rolls no advantage": Row(
        FATE,
        'skill="Athletics" dc="2" mode="advantage"',
        "mode",
        (1, 2, 3, 2),
        'mode="advantage" was rolled normal: this ruleset rolls no advantage.',
    ),
    "a mode no ruleset knows, where there is no advantage": Row(
        FATE,
        'skill="Athletics" dc="2" mode="sideways"',
        "mode",
        (1, 2, 3, 2),
        'mode="sideways" is not a mode ("normal"), so it was rolled normal.',
    ),
    "a bare disadvantage flag where there is no advantage": Row(
        FATE,
        'skill="Athletics" dc="2" disadvantage',
        "disadvantage",
        (1, 2, 3, 2),
        'mode="disadvantage" was rolled normal: this ruleset rolls no advantage.',
    ),
    "with unknown": Row(
        DND,
        'skill="Stealth" dc="15" with="charm"',
        "with",
        (12,),
        'with="charm" names no ability ("Strength", "Dexterity", "Constitution", '
        '"Intelligence", "Wisdom" or "Charisma"), so the check kept its own.',
    ),
    "with known by its short name": Row(
        DND, 'skill="Stealth" dc="15" with="CHA"', "with", (12,), None
    ),
    "difficulty unknown beside a dc": Row(
        DND,
        'skill="Stealth" dc="12" difficulty="Sideways"',
        "difficulty",
        (12,),
        'difficulty="Sideways" names no single step ("Very easy", "Easy", "Medium", "Hard", '
        '"Very hard" or "Nearly impossible"), so it was ignored.',
    ),
    "difficulty unknown on a pool": Row(
        WOD,
        'skill="Athletics" dc="2" difficulty="Bogus"',
        "difficulty",
        (7, 7, 2, 2, 2, 2),
        'difficulty="Bogus" names no single step ("Easy", "Routine", "Straightforward", '
        '"Standard", "Challenging", "Difficult", "Extremely difficult" or "Done well"), so it '
        "was ignored.",
    ),
    "reroll unknown": Row(
        _thornwatch,
        'skill="Ward" dc="1" reroll="wild"',
        "reroll",
        SEVEN,
        'reroll="wild" names no re-throw ("careful" or "dogged"), so none was thrown.',
    ),
    "reroll known, any case": Row(
        _thornwatch, 'skill="Ward" dc="6" reroll="Careful"', "reroll", SEVEN, None
    ),
    "reroll where the ruleset names none": Row(
        WOD,
        'skill="Athletics" dc="2" reroll="careful"',
        "reroll",
        (7, 7, 2, 2, 2, 2),
        'reroll="careful" was ignored: this ruleset names no re-throw.',
    ),
    "use unknown": Row(
        WOD,
        'skill="Athletics" dc="2" use="Nothing"',
        "use",
        (7, 7, 2, 2, 2, 2),
        'use="Nothing" names nothing Lucia Marchetti picked, so nothing was used.',
    ),
}


def _resolved(row: Row, tag: str) -> CheckResult:
    ruleset, roller = row.table()
    report = resolve_text(ruleset, [roller], f"[skill_check: {tag}]", faces=list(row.faces))
    (item,) = report.items
    assert isinstance(item, CheckResult), getattr(item, "error", item)
    return item


def _without(tag: str, attribute: str) -> str:
    """The tag without ``attribute`` (``k="v"`` or a bare flag)."""
    return re.sub(rf'\s{attribute}(="[^"]*")?(?=\s|$)', "", tag)


@pytest.mark.parametrize("row", ROWS.values(), ids=list(ROWS))
def test_an_unknown_value_is_said_and_rolled_as_if_unwritten(row: Row) -> None:
    said = _resolved(row, row.tag)
    assert list(said.notes) == ([row.note] if row.note else [])
    assert said.to_json()["notes"] == list(said.notes)
    if row.note is not None:  # the reading stays Marinara's: the value changed nothing
        plain = _resolved(row, _without(row.tag, row.attribute))
        assert plain.notes == ()
        assert said.record == plain.record and said.outcome == plain.outcome


def test_every_note_of_one_tag_is_said_once_in_the_attributes_order() -> None:
    row = ROWS["mode unknown"]
    tag = 'skill="Stealth" dc="12" difficulty="Sideways" with="charm" mode="sideways"'
    notes = _resolved(row, tag).notes
    assert [n.split("=")[0] for n in notes] == ["mode", "with", "difficulty"]
    fate = ROWS["a bare disadvantage flag where there is no advantage"]
    both = _resolved(fate, 'skill="Athletics" dc="2" mode="disadvantage" disadvantage')
    assert len(both.notes) == 1


def test_the_card_and_the_json_show_the_note() -> None:
    argv = ["check", "--ruleset", "dnd5e-srd", "--character", "mira", "--faces", "12"]
    text = '[skill_check: skill="Stealth" dc="15" mode="sideways"]'
    out = io.StringIO()
    assert main([*argv, text], out=out) == 0
    assert f"  Note     {ROWS['mode unknown'].note}\n" in out.getvalue()
    out = io.StringIO()
    assert main([*argv, "--json", text], out=out) == 0
    (result,) = json.loads(out.getvalue())["results"]
    assert result["notes"] == [ROWS["mode unknown"].note]
    assert result["attrs"]["mode"] == "normal"
