"""One pass over the text: check tags and sheet commands resolved in the order written.

docs/design/check-flow.md "One pass": each tag meets the party as the tags before it
left it; a command that names nobody is about the character a check without ``who=``
rolls (the party's first); a check's seed index counts check tags only; where a tag
is written inside another's brackets, the one that starts first is the tag.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dicebound.edge.cli import main
from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckFailure, CheckResult
from dicebound.sheet import SheetView
from dicebound.sheet_commands.model import SheetOutcome
from dicebound.tagpass import resolve_text
from repo_paths import DATA

WOD = read_ruleset("wod-pool")
LUCIA = read_character(WOD, "wod-pool/lucia")
TOBIAS = read_character(WOD, "wod-pool/tobias")
PARTY = (LUCIA, TOBIAS)
CHECK = '[skill_check: skill="stealth" with="dexterity" dc="6"]'
THREE_LETHAL = '[sheet: op="damage" track="health" kind="lethal" amount="3"]'


def _dice(result: CheckResult | CheckFailure | SheetOutcome) -> int:
    assert isinstance(result, CheckResult)
    return len(result.record.rolls)


def test_a_wound_marked_before_a_check_is_in_that_checks_penalty() -> None:
    unhurt = resolve_text(WOD, PARTY, CHECK, seed="s")
    hurt = resolve_text(WOD, PARTY, f"{THREE_LETHAL} {CHECK}", seed="s")
    # Injured (three marks) takes a die off the pool
    assert _dice(hurt.items[0]) == _dice(unhurt.items[0]) - 1
    assert hurt.sheet[0].ok and hurt.sheet[0].now == "Health 3/7 Injured"


def test_a_wound_marked_after_a_check_is_not_in_its_penalty() -> None:
    unhurt = resolve_text(WOD, PARTY, CHECK, seed="s")
    later = resolve_text(WOD, PARTY, f"{CHECK} {THREE_LETHAL}", seed="s")
    assert _dice(later.items[0]) == _dice(unhurt.items[0])
    assert later.party[0].live.wounds["health"].marks == ("lethal",) * 3


def test_a_command_that_names_nobody_is_about_the_first_character() -> None:
    report = resolve_text(WOD, PARTY, THREE_LETHAL, seed="s")
    assert report.sheet[0].who == LUCIA.name
    assert 'who="Lucia Marchetti"' in report.sheet[0].tag
    assert report.party[1] == TOBIAS and report.party[0] != LUCIA


def test_a_spend_before_a_checks_spend_leaves_less_to_spend() -> None:
    held = SheetView(WOD, LUCIA).pool_value("willpower_points")
    willpower = LUCIA.build.abilities["willpower"]
    drain = f'[sheet: op="spend" pool="Willpower points" amount="{held}"]'
    paying = '[skill_check: skill="stealth" with="dexterity" dc="6" spend="willpower_points:1"]'
    alone = resolve_text(WOD, PARTY, paying, seed="s").items[0]
    report = resolve_text(WOD, PARTY, f"{drain} {paying}", seed="s")
    assert report.sheet[0].ok and report.sheet[0].now == f"0/{willpower}"
    drained = report.items[0]
    assert isinstance(alone, CheckResult) and isinstance(drained, CheckResult)
    assert alone.changes and not drained.changes  # nothing left to buy a success with
    assert not drained.record.has("spend")


def test_steps_interleave_checks_and_commands_in_text_order() -> None:
    text = f'{CHECK} [sheet: op="condition" condition="nope"] {CHECK} {THREE_LETHAL}'
    report = resolve_text(WOD, PARTY, text, seed="s")
    kinds = [type(step).__name__ for step in report.steps]
    assert kinds == ["CheckResult", "SheetOutcome", "CheckResult", "SheetOutcome"]
    assert report.sheet[0].reason == "unknown-condition" and not report.sheet[0].ok
    assert report.sheet_after == (1, 2)


def test_a_checks_seed_counts_check_tags_only() -> None:
    plain = resolve_text(WOD, PARTY, f"{CHECK} {CHECK}", seed="s")
    mixed = resolve_text(
        WOD, PARTY, f'{CHECK} [sheet: op="note" field="x" value="y"] {CHECK}', seed="s"
    )
    assert [r.record for r in mixed.results] == [r.record for r in plain.results]


def test_the_tag_that_starts_first_wins_where_two_overlap() -> None:
    text = f"[sheet: op=rest rest=nap {CHECK}"
    report = resolve_text(WOD, PARTY, text, seed="s")
    assert report.items == () and len(report.sheet) == 1
    assert report.text.startswith("[sheet: ") and "skill_check" not in report.text


def test_text_outside_the_tags_is_unchanged() -> None:
    text = f"The blade bites. {THREE_LETHAL} She rolls. {CHECK} Done."
    report = resolve_text(WOD, PARTY, text, seed="s")
    assert report.text.startswith("The blade bites. [sheet: ")
    assert " She rolls. [skill_check: " in report.text and report.text.endswith("] Done.")


def test_a_refused_command_changes_nothing() -> None:
    report = resolve_text(
        WOD, PARTY, '[sheet: op="spend" pool="Willpower points" amount="99"]', seed="s"
    )
    assert report.sheet[0].reason == "insufficient" and report.party == PARTY


# -- the command line ------------------------------------------------------------------


def _run(*argv: str) -> tuple[int, str]:
    import io

    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def _check_lucia(*argv: str) -> tuple[int, str]:
    """``dicebound check`` for wod-pool's Lucia with seed 1."""
    return _run(
        "check", "--ruleset", "wod-pool", "--character", "wod-pool/lucia", "--seed", "1", *argv
    )


def test_check_json_always_has_sheet_in_text_order_empty_when_no_command_is_written() -> None:
    code, text = _check_lucia(
        "--json",
        f'{THREE_LETHAL} [sheet: op="spend" pool="nope" amount="1"]',
    )
    answer = json.loads(text)
    assert code == 0  # a refused command is an outcome, not an error
    assert [s["ok"] for s in answer["sheet"]] == [True, False]
    first, second = answer["sheet"]
    assert set(first) == {"tag", "who", "ok", "now", "reason"}
    assert first["now"] == "Health 3/7 Injured" and first["reason"] is None
    assert second["reason"] == "unknown-pool" and second["now"] is None
    code, text = _check_lucia(
        "--json",
        CHECK,
    )
    assert json.loads(text)["sheet"] == []  # a member is never absent (issue 44)


def test_check_prints_one_line_per_command_under_the_cards() -> None:
    code, text = _check_lucia(
        f'{CHECK} {THREE_LETHAL} [sheet: op="spend" pool="nope" amount="1"]',
    )
    lines = text.splitlines()
    assert code == 0
    assert lines[-2] == "Sheet: Lucia Marchetti damage health -> Health 3/7 Injured"
    assert lines[-1] == "Sheet: Lucia Marchetti spend nope refused (unknown-pool)"


def test_a_first_name_is_refused_with_the_full_names_to_write() -> None:
    code, text = _check_lucia(
        '[sheet: op="spend" pool="willpower" amount="1" who="Lucia"]',
    )
    assert code == 0
    assert text.splitlines()[-1] == (
        "Sheet: Lucia spend willpower refused (unknown-character: nobody in the party is "
        'called "Lucia"; write who= with a full name: "Lucia Marchetti", or "party")'
    )


def test_an_unknown_op_is_refused_with_the_ops_there_are() -> None:
    code, text = _check_lucia('[sheet: op="fly" pool="willpower" amount="1"]')
    assert code == 0
    assert text.splitlines()[-1] == (
        'Sheet: Lucia Marchetti sheet refused (malformed: op="fly" is no op: write one of '
        "spend, restore (heal), damage, temp, track, condition, state, note, rest, use (cast))"
    )


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.json"
    shutil.copy(DATA / "characters" / "wod-pool" / f"{name}.json", target)
    return target


def test_save_writes_what_applied_commands_changed_even_beside_a_refused_one(
    tmp_path: Path,
) -> None:
    lucia = _copy(tmp_path, "lucia")
    code, _ = _run(
        "check",
        "--ruleset",
        "wod-pool",
        "--character",
        str(lucia),
        "--seed",
        "1",
        "--save",
        f'{THREE_LETHAL} [sheet: op="spend" pool="nope" amount="1"]',
    )
    assert code == 0
    live = json.loads(lucia.read_text(encoding="utf-8"))["live"]
    assert live["wounds"] == {"health": {"marks": ["lethal", "lethal", "lethal"]}}


def test_save_writes_nothing_when_a_check_tag_did_not_resolve(tmp_path: Path) -> None:
    lucia = _copy(tmp_path, "lucia")
    before = lucia.read_text(encoding="utf-8")
    code, _ = _run(
        "check",
        "--ruleset",
        "wod-pool",
        "--character",
        str(lucia),
        "--seed",
        "1",
        "--save",
        f'{THREE_LETHAL} [skill_check: skill="no such skill" dc="6"]',
    )
    assert code == 1 and lucia.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("party", [(), (LUCIA,)])
def test_a_text_of_commands_alone_resolves_without_dice(party: tuple[object, ...]) -> None:
    report = resolve_text(WOD, party, THREE_LETHAL, faces=[])  # type: ignore[arg-type]
    assert len(report.sheet) == 1 and report.items == ()
    assert report.sheet[0].ok == bool(party)


def test_with_forced_faces_a_wound_before_a_check_takes_its_die_off_the_pool() -> None:
    # seven dice unhurt; Injured (three marks, penalty -1) leaves six: six forced faces
    # are exactly what the check throws, and all six count
    unhurt = resolve_text(WOD, PARTY, CHECK, faces=[10] * 7)
    hurt = resolve_text(WOD, PARTY, f"{THREE_LETHAL} {CHECK}", faces=[10] * 6)
    assert _dice(unhurt.items[0]) == 7 and _dice(hurt.items[0]) == 6
    assert hurt.items[0].record.get("penalty") == "-1"  # type: ignore[union-attr]
