"""State that lasts from the command line, and replays.

- ``check --save`` writes each character whose live state a check changed back to its
  file, atomically (temporary file, fsync, rename), keeping the file's key order; a
  check that errors writes nothing; a process killed between the write and the rename
  leaves the old file whole. The card says what was paid.
- ``dicebound verify RECORD --ruleset R --character C`` replays a record from its seed:
  a thousand seeded records of every packaged ruleset verify, and each one with an
  attribute changed fails, naming it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import CheckResult
from dicebound.replay import replay_record
from dicebound.report import build_report
from dicebound.tagpass import resolve_text
from http_api_support import DATA, LUCIA_SPENDS, cli

LUCIA = DATA / "characters" / "wod-pool" / "lucia.json"


@pytest.fixture
def lucia(tmp_path: Path) -> Path:
    path = tmp_path / "lucia.json"
    shutil.copy(LUCIA, path)
    return path


def _check(path: Path, text: str, *extra: str, code: int = 0) -> str:
    return cli(
        "check",
        "--ruleset",
        "wod-pool",
        "--character",
        str(path),
        "--seed",
        "42",
        "--save",
        *extra,
        text,
        code=code,
    )


# ── --save ───────────────────────────────────────────────────────────────────


def test_a_spend_lands_in_the_file_and_the_card_says_what_was_paid(lucia: Path) -> None:
    before = json.loads(lucia.read_text())
    out = _check(lucia, LUCIA_SPENDS)
    assert "Paid     Willpower points 4 → 3" in out
    after = json.loads(lucia.read_text())
    assert after["live"]["pools"]["willpower_points"] == {"value": 3}
    assert list(after) == list(before)  # the file's keys in the author's order
    assert {k: v for k, v in after.items() if k != "live"} == {
        k: v for k, v in before.items() if k != "live"
    }
    # only the value changed: the same indentation, the same final newline
    old_lines, new_lines = LUCIA.read_text().splitlines(), lucia.read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert len(changed) == 1 and new_lines[changed[0]].strip() == '"value": 3'
    assert lucia.read_text().endswith("\n")
    _check(lucia, LUCIA_SPENDS)  # the next check starts from what was saved
    assert json.loads(lucia.read_text())["live"]["pools"]["willpower_points"] == {"value": 2}


def test_a_check_that_errors_writes_nothing(lucia: Path) -> None:
    before = lucia.read_bytes()
    _check(lucia, f'{LUCIA_SPENDS} [skill_check: skill="Flying" dc="2"]', code=1)
    assert lucia.read_bytes() == before
    _check(lucia, LUCIA_SPENDS, "--layer", "no-such-layer", code=2)
    assert lucia.read_bytes() == before
    assert list(lucia.parent.iterdir()) == [lucia]  # no temporary file left


def test_a_check_that_pays_nothing_does_not_touch_the_file(lucia: Path) -> None:
    stamp = lucia.stat().st_mtime_ns
    _check(lucia, '[skill_check: skill="Stealth" difficulty="Routine"]')
    assert lucia.stat().st_mtime_ns == stamp


def test_save_refuses_a_packaged_character() -> None:
    out = cli(
        "check",
        "--ruleset",
        "wod-pool",
        "--character",
        "lucia",
        "--seed",
        "1",
        "--save",
        LUCIA_SPENDS,
        code=2,
    )
    assert out == ""


_KILLED_AT_THE_RENAME = """
import os, signal, sys
os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)
from dicebound.edge.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_killed_between_the_write_and_the_rename_the_old_file_is_whole(lucia: Path) -> None:
    before = lucia.read_bytes()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_AT_THE_RENAME,
            "check",
            "--ruleset",
            "wod-pool",
            "--character",
            str(lucia),
            "--seed",
            "42",
            "--save",
            LUCIA_SPENDS,
        ],
        capture_output=True,
        timeout=60,
        check=False,
        # the compiled-ruleset cache renames its entries too: with it off, the one rename
        # is the character's, whatever the cache held when this test came
        env={**os.environ, "DICEBOUND_NO_CACHE": "1"},
    )
    assert done.returncode == -9  # SIGKILL, after the temporary file was written
    assert lucia.read_bytes() == before
    (left,) = [p for p in lucia.parent.iterdir() if p != lucia]
    assert json.loads(left.read_text())["live"]["pools"]["willpower_points"] == {"value": 3}


# ── verify ───────────────────────────────────────────────────────────────────


def _seeded_records(count: int) -> list[tuple[str, str, dict[str, Any]]]:
    """``count`` records, every packaged ruleset and character, every check of the
    sheet at every ladder step, each with its own seed."""
    cases: list[tuple[str, str, str]] = []
    for ruleset_id in packaged_rulesets():
        ruleset = read_ruleset(ruleset_id)
        for short in packaged_characters(ruleset_id):
            report = build_report(ruleset, read_character(ruleset, f"{ruleset_id}/{short}"))
            for row in report.rows:
                for cell in row.cells:
                    if cell.tag and cell.not_rolled is None and row.not_rolled is None:
                        cases.append((ruleset_id, short, cell.tag))
    records = []
    for i in range(count):
        ruleset_id, short, tag = cases[(i * 7919) % len(cases)]
        ruleset = read_ruleset(ruleset_id)
        party = [read_character(ruleset, f"{ruleset_id}/{short}")]
        (item,) = resolve_text(ruleset, party, tag, seed=f"verify-{i}").items
        assert isinstance(item, CheckResult), tag
        records.append((ruleset_id, short, item.to_json()))
    return records


Records = list[tuple[str, str, dict[str, Any]]]


@pytest.fixture(scope="module")
def seeded() -> Records:
    """A thousand seeded records, made once for the tests that read them (not at import:
    every parallel worker imports this module to collect it)."""
    return _seeded_records(1000)


def test_a_thousand_seeded_records_of_every_packaged_ruleset_verify(seeded: Records) -> None:
    assert {r for r, _, _ in seeded} == set(packaged_rulesets())
    for ruleset_id, short, record in seeded:
        ruleset = read_ruleset(ruleset_id)
        character = read_character(ruleset, f"{ruleset_id}/{short}")
        assert replay_record(ruleset, character, record) == [], record["tag"]


_OUTPUTS = ("rolls", "total", "result", "seed", "used", "outcome", "effort", "symbols")


def _tampered(value: str) -> str:
    return value + "1" if not value.isdigit() else str(int(value) + 1)


def test_each_record_with_an_attribute_changed_fails_naming_it(seeded: Records) -> None:
    for i, (ruleset_id, short, record) in enumerate(seeded):
        present = [k for k in _OUTPUTS if k in record["attrs"]]
        key = present[i % len(present)]
        changed = json.loads(json.dumps(record))
        changed["attrs"][key] = _tampered(changed["attrs"][key])
        ruleset = read_ruleset(ruleset_id)
        character = read_character(ruleset, f"{ruleset_id}/{short}")
        fields = [d.field for d in replay_record(ruleset, character, changed)]
        if key == "seed":  # other dice, or the tag's own seed, give it away
            assert {"attrs.rolls", "tag.seed"} & set(fields), record["tag"]
        else:
            assert f"attrs.{key}" in fields, (key, record["tag"])


def test_a_changed_outcome_or_tag_fails_too(seeded: Records) -> None:
    ruleset_id, short, record = seeded[0]
    ruleset = read_ruleset(ruleset_id)
    character = read_character(ruleset, f"{ruleset_id}/{short}")
    outcome = {**record, "outcome": "Legendary success"}
    assert [d.field for d in replay_record(ruleset, character, outcome)] == ["outcome"]
    total = record["attrs"]["total"]
    tag = {**record, "tag": record["tag"].replace(f'total="{total}"', f'total="{total}9"')}
    assert [d.field for d in replay_record(ruleset, character, tag)] == ["tag.total"]


def test_verify_on_the_command_line(tmp_path: Path) -> None:
    text = '[skill_check: skill="Stealth" dc="15"] [skill_check: skill="Athletics" dc="10"]'
    answer = cli(
        "check", "--ruleset", "dnd5e-srd", "--character", "mira", "--seed", "9", "--json", text
    )
    saved = tmp_path / "records.json"
    saved.write_text(answer)
    args = ["verify", str(saved), "--ruleset", "dnd5e-srd", "--character", "mira"]
    assert cli(*args).count("verified, its seed replays it exactly") == 2
    body = json.loads(answer)
    body["results"][1]["attrs"]["rolls"] = "20"
    saved.write_text(json.dumps(body))
    out = cli(*args, code=1)
    assert "record 2 (Mira Quickfoot, " in out and "attrs.rolls" in out
    report = json.loads(cli(*args, "--json", code=1))
    assert report["verified"] is False
    assert [r["verified"] for r in report["records"]] == [True, False]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(answer)["results"][0]))
    assert "verified" in cli("verify", str(one), "--ruleset", "dnd5e-srd", "--character", "mira")
    cli(
        "verify",
        str(tmp_path / "missing.json"),
        "--ruleset",
        "dnd5e-srd",
        "--character",
        "mira",
        code=2,
    )
