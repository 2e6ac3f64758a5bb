"""``dicebound check --fight FILE [--save]`` (FIGHTS §15.1): an absent file is no fight
yet, a saved fight is written as ``{"fight": STATE}`` and read back gives the same
steps as one text, and each tag has its ``Fight:`` line. ``dicebound fight ... --fight
FILE [--json]``: the state, the summary and the current actor's options with forecasts
and exact odds; nothing thrown, nothing written."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fight_fixtures import BRENNA, CORWIN, _f5_doc

from dicebound.edge.cli import main

A_START = '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot"]'
ACT = '[fight: op="act" who="Brenna" option="Longsword" target="Snag"]'


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


@pytest.fixture
def table(tmp_path: Path) -> dict[str, Any]:
    ruleset = tmp_path / "f5.json"
    ruleset.write_text(_f5_doc(), "utf-8")
    files = []
    for raw in (BRENNA, CORWIN):
        path = tmp_path / f"{raw['name']}.json"
        path.write_text(json.dumps(raw), "utf-8")
        files.append(str(path))
    return {"ruleset": str(ruleset), "characters": files, "fight": tmp_path / "fight.json"}


def _check(table: dict[str, Any], text: str, faces: str, *more: str) -> tuple[int, str]:
    argv = [
        "check",
        "--ruleset",
        table["ruleset"],
        "--faces",
        faces,
        "--fight",
        str(table["fight"]),
    ]
    for c in table["characters"]:
        argv += ["--character", c]
    return _run(*argv, *more, text)


def test_a_fight_saved_between_texts_plays_as_one_text(table: dict[str, Any]) -> None:
    code, said = _check(table, A_START, "20,14,5,3", "--save")
    assert code == 0
    assert (
        "Fight: initiative: Brenna (20)+2=22, Corwin (14)+2=16, Snag (5)+2=7, Rot (3)+0=3; round 1; turn: Brenna"
        in said
    )
    saved = json.loads(table["fight"].read_text("utf-8"))
    assert saved["fight"]["order"] == ["brenna", "corwin", "snag", "rot"]
    code, said = _check(table, ACT, "12,5", "--save", "--json")
    body = json.loads(said)
    step = body["fight"]["steps"][0]
    assert step["tag"].startswith(
        '[fight: op="act" who="Brenna" option="attack:0:0" target="Snag" result="ok"'
    )
    assert body["fight"]["summary"]["enemies"][0]["health"] == 3
    table["fight"].unlink()
    _, together = _check(table, A_START + " " + ACT, "20,14,5,3,12,5", "--json")
    assert json.loads(together)["fight"]["state"] == body["fight"]["state"]


def test_a_hit_on_a_member_is_saved_to_the_character_file(table: dict[str, Any]) -> None:
    _check(table, A_START, "1,1,20,19", "--save")
    code, said = _check(
        table, '[fight: op="act" who="Snag" option="Scimitar" target="Brenna"]', "18,6", "--save"
    )
    assert code == 0 and "Fight: Snag Scimitar at Brenna: (18)+4=22 vs 18 hit" in said
    brenna = json.loads(Path(table["characters"][0]).read_text("utf-8"))
    assert brenna["live"]["pools"]["hp"] in (52, {"value": 52})


def test_a_refused_tag_is_a_line_and_exit_zero(table: dict[str, Any]) -> None:
    code, said = _check(table, '[fight: op="flee"]', "", "--save")
    assert code == 0 and "Fight: refused (no-fight)" in said
    assert not table["fight"].exists()


def test_a_broken_fight_file_is_a_usage_error(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    table["fight"].write_text('{"fight": {"v": 1}}', "utf-8")
    code, _ = _check(table, '[fight: op="flee"]', "")
    assert code != 0
    assert 'The fight state cannot be read: "id" is missing.' in capsys.readouterr().err


def _fight(table: dict[str, Any], *more: str) -> tuple[int, str]:
    argv = ["fight", "--ruleset", table["ruleset"], "--fight", str(table["fight"])]
    for c in table["characters"]:
        argv += ["--character", c]
    return _run(*argv, *more)


def _start(table: dict[str, Any]) -> None:
    code, _ = _check(table, A_START, "20,14,5,3", "--save")
    assert code == 0


def test_an_absent_fight_file_is_no_fight_yet(table: dict[str, Any]) -> None:
    code, said = _fight(table)
    assert code == 0 and said.startswith("No fight yet")
    code, said = _fight(table, "--json")
    assert json.loads(said) == {"fight": None, "summary": None, "current": None, "window": None}
    assert not table["fight"].exists()


def test_the_menu_of_the_actor_on_turn_with_forecasts_and_odds(table: dict[str, Any]) -> None:
    _start(table)
    saved = table["fight"].read_text("utf-8")
    code, said = _fight(table)
    assert code == 0
    lines = said.splitlines()
    assert lines[:5] == [
        "Fight f1, round 1: ongoing",
        "Order: Brenna (22), Corwin (16), Snag (7), Rot (3)",
        "Party: Brenna 60/60; Corwin 38/38",
        "Enemies: Snag 12/12; Rot 14/14",
        "Options for Brenna:",
    ]
    assert lines[5] == "  Longsword [attack:0:0] action, enemy 1; forecast: hit 0.75, average 8.5"
    assert lines[6].startswith(
        "    at Snag: hit 3/4 (75.0%), critical 1/20, drops 31/256 (12.1%); dealt 0: 1/4, 5: 7/80,"
    )
    assert lines[-1] == "  End turn [end-turn]"
    code, said = _fight(table, "--json")
    view = json.loads(said)
    assert view["current"]["who"] == "Brenna"
    longsword = view["current"]["options"][0]
    assert longsword["forecast"] == {"hitChance": 0.75, "averageDamage": 8.5}
    assert longsword["odds"]["snag"]["drops"] == "31/256"
    assert view["summary"]["enemies"][0]["health"] == 12
    assert view["fight"] == json.loads(saved)["fight"]
    assert table["fight"].read_text("utf-8") == saved  # nothing written


def test_a_casters_menu_shows_saves_and_heals(table: dict[str, Any]) -> None:
    _start(table)
    argv = ["check", "--ruleset", table["ruleset"], "--fight", str(table["fight"]), "--save"]
    for c in table["characters"]:
        argv += ["--character", c]
    code, _ = _run(*argv, '[fight: op="end-turn" who="Brenna"]')  # throws no die
    assert code == 0
    code, said = _fight(table)
    assert code == 0
    lines = said.splitlines()
    light = lines.index("  Mending Light [ability:0:2] action, ally 1; forecast: average 8.5")
    assert lines[light + 1] == (
        "    at Brenna: heals 5: 1/8, 6: 1/8, 7: 1/8, 8: 1/8, 9: 1/8, 10: 1/8, 11: 1/8, 12: 1/8"
    )
    fireball = next(line for line in lines if line.startswith("  Fireball [ability:0:1]"))
    assert fireball == "  Fireball [ability:0:1] action, enemy 3; forecast: average 28.0"


def test_a_party_without_the_fights_members_is_a_usage_error(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    _start(table)
    table["characters"] = table["characters"][:1]  # Brenna alone
    code, _ = _fight(table)
    assert code == 2
    assert 'party member "Corwin"' in capsys.readouterr().err
