"""The command line's stable output (docs/index.md "Every command")."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from dicebound.edge.cli import main
from player_words_support import ATTACK, read_as_data
from repo_paths import CASES, REPO

PACKAGED = REPO / "src" / "dicebound" / "data" / "characters"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_validate_a_packaged_ruleset_names_it_and_exits_0() -> None:
    code, text = run("validate", "dnd5e-srd")
    assert code == 0
    assert text.splitlines()[0] == "dnd5e-srd: Fifth Edition SRD (dnd5e-srd v2) is valid."


def test_validate_json_of_a_valid_ruleset() -> None:
    code, text = run("validate", "dnd5e-srd", "--json")
    assert code == 0
    assert json.loads(text) == {"ok": True, "problems": [], "notes": []}


def test_validate_reports_every_problem_as_path_sentence(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"schemaVersion": 2, "id": "Bad Id"}))
    code, text = run("validate", str(path))
    assert code == 1
    lines = text.splitlines()
    assert any(line.startswith("schemaVersion: ") for line in lines)
    assert any(line.startswith("id: ") for line in lines)
    code, text = run("validate", str(path), "--json")
    body = json.loads(text)
    assert code == 1 and body["ok"] is False
    assert {"path", "code", "message"} == set(body["problems"][0])


def test_validate_a_file_that_is_not_json_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "id": "x",\n  oops\n}')
    code, text = run("validate", str(path))
    assert code == 1
    assert "line 3" in text and "column" in text


def test_a_file_that_is_not_json_is_said_without_a_path(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "id": "x",\n  oops\n}')
    code, text = run("validate", str(path))
    assert code == 1
    assert text.startswith("The file is not JSON: ") and "$" not in text
    code, text = run("validate", str(path), "--json")
    assert json.loads(text)["problems"][0]["path"] == "$"  # the JSON keeps its path


def test_validate_lists_problems_in_the_order_of_their_lines(tmp_path: Path) -> None:
    ruleset = json.loads((REPO / "src/dicebound/data/rulesets/dnd5e-srd.json").read_text())
    ruleset["resolution"]["kind"] = "nope"  # written near the top
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**ruleset, "zzz": 1} | {"aaa": 2}, indent=2))
    code, text = run("validate", str(path))
    assert code == 1
    # by path, "aaa" would come first; by line, the resolution's kind does
    assert [line.split(":")[0] for line in text.splitlines()] == ["resolution.kind", "zzz", "aaa"]


def test_an_unknown_ability_is_told_the_rulesets_id_for_it(tmp_path: Path) -> None:
    mira = json.loads((PACKAGED / "dnd5e-srd" / "mira.json").read_text())
    abilities = mira["sheet"]["build"]["abilities"]
    abilities["charisma"] = abilities.pop("cha")
    abilities["dexterityy"] = abilities.pop("dex")
    path = tmp_path / "mira.json"
    path.write_text(json.dumps(mira))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = run(
            "check", "--ruleset", "dnd5e-srd", "--character", str(path), "--seed", "1", "x"
        )
    said = err.getvalue()
    assert code == 1
    assert '"charisma" is not an ability id of this ruleset. Did you mean "cha" (Charisma)?' in said
    assert '"dexterityy" is not an ability of this ruleset. Did you mean "dex"?' in said


def test_check_json_shape_and_exit_codes() -> None:
    code, text = run(
        "check",
        "--ruleset",
        "dnd5e-srd",
        "--character",
        "mira",
        "--faces",
        "12",
        "--json",
        'She listens. [skill_check: skill="Perception" dc="12"]',
    )
    assert code == 0
    body = json.loads(text)
    assert list(body) == ["results", "errors", "text", "sheet", "fight"]  # every member, always
    (result,) = body["results"]
    assert result["outcome"] == "Success" and result["attrs"]["total"] == "17"
    assert body["text"].startswith('She listens. [skill_check: skill="Perception"')
    code, text = run(
        "check",
        "--ruleset",
        "dnd5e-srd",
        "--character",
        "mira",
        "--json",
        '[skill_check: skill="Perceptoin" dc="12"]',
    )
    body = json.loads(text)
    assert code == 1 and body["errors"][0]["error"].endswith('Did you mean "Perception"?')


def test_check_without_a_seed_writes_a_fresh_seed_that_replays() -> None:
    tag = '[skill_check: skill="Stealth" dc="15"]'
    _, text = run("check", "--ruleset", "dnd5e-srd", "--character", "mira", "--json", tag)
    first = json.loads(text)["results"][0]["attrs"]
    _, text = run(
        "check",
        "--ruleset",
        "dnd5e-srd",
        "--character",
        "mira",
        "--json",
        "--seed",
        first["seed"],
        tag,
    )
    assert json.loads(text)["results"][0]["attrs"] == first


def test_odds_json_is_exact_fractions_best_first() -> None:
    code, text = run(
        "odds", "--ruleset", "dnd5e-srd", "--character", "mira", "--json", 'skill="Stealth" dc="15"'
    )
    assert code == 0
    body = json.loads(text)
    assert body == {
        "outcomes": [
            {"label": "Success", "success": True, "critical": None, "probability": "3/4"},
            {"label": "Failure", "success": False, "critical": None, "probability": "1/4"},
        ],
        "success": "3/4",
    }


def test_gm_teaches_the_ladder_and_never_to_write_results() -> None:
    code, text = run("gm", "--ruleset", "dnd5e-srd")
    assert code == 0
    assert "Medium: DC 15" in text and "Never write dice" in text
    assert 'mode="advantage"' in text


def test_gm_teaches_the_sheet_tag_for_the_party_each_character_names() -> None:
    code, text = run("gm", "--ruleset", "dnd5e-srd", "--character", "mira", "--character", "bram")
    assert code == 0
    assert "(chance of success for Mira Quickfoot's " in text  # the first rolls
    sheet = text.split("\nSheet commands: ", 1)[1]
    assert '[sheet: op="condition" condition="poisoned" state="on"]' in sheet
    assert '- who="Bram Ironhand": whose sheet it is; leave it out for the player (Mira ' in sheet
    party = text.split("\nThe party:\n", 1)[1]
    assert party.startswith("Mira Quickfoot:\n") and "\nBram Ironhand:\n" in party
    assert party.count("  Pools: Hit points (hit_points) ") == 2


def test_gm_for_one_character_teaches_the_sheet_tag_for_them_alone() -> None:
    code, text = run("gm", "--ruleset", "dnd5e-srd", "--character", "mira")
    assert code == 0
    assert '- who="Mira Quickfoot": whose sheet it is' in text
    assert text.split("\nThe party:\n", 1)[1].count("  Pools: ") == 1


def test_gm_shows_a_players_note_only_as_quoted_data(tmp_path: Path) -> None:
    marek = json.loads((PACKAGED / "fate-core" / "marek.json").read_text(encoding="utf-8"))
    marek["live"] = {**marek.get("live", {}), "text": {"mild": ATTACK}}
    path = tmp_path / "marek.json"
    path.write_text(json.dumps(marek), encoding="utf-8")
    for more in ((), ("--character", "marek")):  # alone, and beside another's sheet
        code, text = run("gm", "--ruleset", "fate-core", "--character", str(path), *more)
        assert code == 0
        read_as_data(text)


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--ruleset", "nope", "--character", "mira", "x"),
        ("check", "--ruleset", "dnd5e-srd", "--character", "nobody", "x"),
        ("check", "--ruleset", "dnd5e-srd", "--character", "mira", "--faces", "a,b", "x"),
    ],
    ids=["unknown ruleset", "unknown character", "faces not numbers"],
)
def test_usage_errors_exit_2_with_a_sentence(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(*argv)
    assert code == 2
    assert capsys.readouterr().err.startswith("dicebound: ")


def test_roll_throws_named_dice_and_replays_from_its_seed() -> None:
    code, text = run(
        "roll",
        "--ruleset",
        "genesys",
        "--seed",
        "4",
        "--json",
        "2 ability 1 proficiency vs 2 difficulty",
    )
    assert code == 0
    body = json.loads(text)
    assert body["thrown"] == ["ability", "ability", "proficiency", "difficulty", "difficulty"]
    assert body["seed"] == "4"
    _, again = run(
        "roll",
        "--ruleset",
        "genesys",
        "--seed",
        "4",
        "--json",
        "2 ABILITY 1 Proficiency vs 2 difficulty",
    )
    assert json.loads(again)["rolls"] == body["rolls"]


def test_roll_names_what_it_did_not_understand(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("roll", "--ruleset", "genesys", "2 abilty")
    assert code == 2
    assert 'Did you mean "ability"?' in capsys.readouterr().err


def test_roll_needs_a_symbol_pool(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("roll", "--ruleset", "dnd5e-srd", "1 d20")
    assert code == 2
    assert "symbol" in capsys.readouterr().err


def test_a_key_written_twice_is_a_problem_at_its_path(tmp_path: Path) -> None:
    text = CASES.joinpath("ruleset_degrees.json").read_text()
    text = text.replace('"version": 1,', '"version": 1, "version": 2,', 1)
    text = text.replace('"dc": 10 }', '"dc": 10, "dc": 11 }', 1)
    path = tmp_path / "twice.json"
    path.write_text(text)
    code, out = run("validate", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith('version: "version" is written twice in this object')
    assert lines[1].startswith("resolution.difficultyLadder[0].dc: ")


def test_a_key_written_twice_in_a_character_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "twice.json"
    path.write_text('{"name": "Ada", "name": "Bo"}')
    code, _ = run(
        "check",
        "--ruleset",
        "dnd5e-srd",
        "--character",
        str(path),
        "--seed",
        "1",
        '[skill_check: skill="Stealth" dc="10"]',
    )
    assert code == 1
    assert 'name: "name" is written twice' in capsys.readouterr().err


COMMAND_LINES = [
    ["validate", "dnd5e-srd", "--json"],
    ["check", "--ruleset", "dnd5e-srd", "--character", "mira", "--seed", "4", "TEXT"],
    ["odds", "--ruleset", "dnd5e-srd", "--character", "mira", "--layer", "x", "TAG"],
    ["fight", "--ruleset", "r", "--character", "c", "--character", "d", "--fight", "f", "--json"],
    ["roll", "--ruleset", "genesys", "2 ability"],
    ["gm", "--ruleset", "blades", "--skill", "Prowl"],
    ["rulesets"],
    ["serve", "--port", "9"],
    ["mcp", "--game", "g"],
    ["db", "new-game", "--name", "n", "--ruleset", "r", "--version", "2"],
    ["verify", "-", "--ruleset", "r", "--character", "c"],
    ["schema"],
    ["report", "--ruleset", "r", "--character", "c", "--html", "out.html"],
]


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=[a[0] for a in COMMAND_LINES])
def test_the_parser_of_one_command_reads_its_line_as_the_whole_parser_does(
    argv: list[str],
) -> None:
    # main builds only the command it runs (argparse is slow to build all twelve)
    from dicebound.edge.cli import _RUNNERS, _parser

    assert argv[0] in _RUNNERS
    whole, one = _parser(), _parser(argv[0])
    assert one.parse_args(argv) == whole.parse_args(argv)
    helps = []
    for parser in (whole, one):
        out = io.StringIO()
        with pytest.raises(SystemExit), contextlib.redirect_stdout(out):
            parser.parse_args([argv[0], "--help"])
        helps.append(out.getvalue())
    assert helps[0] == helps[1] and "usage: dicebound " + argv[0] in helps[0]


def test_every_command_is_listed_by_help_and_the_version_is_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import dicebound
    from dicebound.edge.cli import _RUNNERS

    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert all(command in listed for command in _RUNNERS)
    assert {line[0] for line in COMMAND_LINES} == set(_RUNNERS)  # each parsed and run
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"dicebound {dicebound.__version__}\n"


@pytest.mark.parametrize("columns", ["", "0", "57", "120", "wide"])
def test_help_is_as_wide_as_argparse_makes_it(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the formatter's width is read without shutil, exactly as shutil reads it
    import shutil

    from dicebound.edge.cli import _terminal_width

    monkeypatch.setenv("COLUMNS", columns)
    assert _terminal_width() == shutil.get_terminal_size().columns - 2
