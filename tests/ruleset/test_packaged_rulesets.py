"""The rulesets and characters shipped with dicebound (package data).

Every test is parametrized over the files in ``dicebound/data``, so a ruleset or a
character added there is covered without touching this file. ``capability.json`` plays the
package manifest's role (docs/design/format.md "Capability API versions"):
it says which Capability API version each packaged
ruleset declares. A ruleset must import at that version, and must be refused at the version
just below its newest feature, so the declared version is never higher than a feature of
the file can explain without the map noticing, and never lower than the file needs.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

import pytest

from dicebound.compiler import compile_ruleset
from dicebound.compiler.capability import parse_version, ruleset_features
from dicebound.edge.cli import main
from dicebound.edge.files import packaged_characters, read_character
from dicebound.errors import RulesetInvalid
from dicebound.kinds.registry import kind_compiler
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.tagpass import resolve_text

DATA = resources.files("dicebound.data")
RULESET_IDS = sorted(p.name[:-5] for p in (DATA / "rulesets").iterdir() if p.name.endswith(".json"))
CHARACTERS = [(rid, name) for rid in RULESET_IDS for name in packaged_characters(rid)]


@cache
def raw_ruleset(ruleset_id: str) -> dict[str, Any]:
    text = (DATA / "rulesets" / f"{ruleset_id}.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    assert isinstance(raw, dict)
    return raw


@cache
def declared_versions() -> dict[str, str]:
    raw = json.loads((DATA / "capability.json").read_text(encoding="utf-8"))
    assert isinstance(raw, dict)
    return raw


@cache
def ruleset(ruleset_id: str) -> Ruleset:
    return compile_ruleset(raw_ruleset(ruleset_id), capability_api=declared_versions()[ruleset_id])


def newest_feature_version(raw: dict[str, Any]) -> tuple[int, ...]:
    kind = kind_compiler(raw["resolution"]["kind"])
    assert kind is not None, f"the kind {raw['resolution']['kind']} is not built"
    versions = [parse_version(f.version) for f in ruleset_features(raw, kind, raw["resolution"])]
    return max(v for v in versions if v is not None)


def just_below(version: tuple[int, ...]) -> str:
    """The version one step below, in the last part: (1, 138) is 1.137, (1, 20) is 1.19."""
    parts = list(version)
    parts[-1] -= 1
    return ".".join(str(p) for p in parts)


@pytest.mark.parametrize(
    ("version", "below"), [((1, 138), "1.137"), ((1, 20), "1.19"), ((1, 200), "1.199")]
)
def test_just_below_takes_one_off_the_last_part(version: tuple[int, ...], below: str) -> None:
    assert just_below(version) == below


def test_every_packaged_ruleset_declares_a_capability_version_and_nothing_else_does() -> None:
    declared = declared_versions()
    assert sorted(declared) == RULESET_IDS
    for ruleset_id, version in declared.items():
        assert parse_version(version) is not None, f"{ruleset_id}: {version!r} is not a version"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_ruleset_id_is_its_file_name(ruleset_id: str) -> None:
    assert raw_ruleset(ruleset_id)["id"] == ruleset_id


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_ruleset_validates_at_its_declared_capability_version(ruleset_id: str) -> None:
    assert ruleset(ruleset_id).id == ruleset_id


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_ruleset_is_refused_just_below_its_newest_feature(ruleset_id: str) -> None:
    raw = raw_ruleset(ruleset_id)
    below = just_below(newest_feature_version(raw))
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw, capability_api=below)
    codes = {p.code for p in caught.value.problems}
    assert codes == {"needs-capability"}, [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_packaged_ruleset_ships_a_character(ruleset_id: str) -> None:
    assert packaged_characters(ruleset_id), f"{ruleset_id} ships no character"


def character_raw(ruleset_id: str, name: str) -> dict[str, Any]:
    text = (DATA / "characters" / ruleset_id / f"{name}.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    assert isinstance(raw, dict)
    return raw


def check_tag(ruleset_id: str, name: str) -> str:
    """A check on a skill this character wrote up (else the sheet's first skill, else its
    first ability), at the ladder's first step."""
    rs = ruleset(ruleset_id)
    build = character_raw(ruleset_id, name)["sheet"]["build"]
    labels = {s.id: s.label for s in rs.sheet.skills}
    written = [s for s in (*build.get("skills", {}), *build.get("bonuses", {})) if s in labels]
    if written:
        label = labels[written[0]]
    else:
        label = rs.sheet.skills[0].label if rs.sheet.skills else rs.sheet.abilities[0].label
    step = rs.resolution.ladder[0].label
    return f'[skill_check: skill="{label}" difficulty="{step}"]'


@pytest.mark.parametrize(
    ("ruleset_id", "name"), CHARACTERS, ids=[f"{r}/{n}" for r, n in CHARACTERS]
)
def test_character_loads(ruleset_id: str, name: str) -> None:
    character = read_character(ruleset(ruleset_id), f"{ruleset_id}/{name}")
    assert character.name == character_raw(ruleset_id, name)["name"]


@pytest.mark.parametrize(
    ("ruleset_id", "name"), CHARACTERS, ids=[f"{r}/{n}" for r, n in CHARACTERS]
)
def test_character_plays_a_seeded_check(ruleset_id: str, name: str) -> None:
    rs = ruleset(ruleset_id)
    character = read_character(rs, f"{ruleset_id}/{name}")
    report = resolve_text(rs, [character], check_tag(ruleset_id, name), seed=1)
    assert report.errors == ()
    (result,) = report.results
    assert result.who == character.name
    assert result.record.to_tag().startswith("[skill_check: ")


@pytest.mark.parametrize(
    ("ruleset_id", "name"), CHARACTERS, ids=[f"{r}/{n}" for r, n in CHARACTERS]
)
def test_character_check_odds_sum_to_one(ruleset_id: str, name: str) -> None:
    rs = ruleset(ruleset_id)
    character = read_character(rs, f"{ruleset_id}/{name}")
    odds = check_odds(rs, character, check_tag(ruleset_id, name))
    assert sum((o.probability for o in odds.outcomes), Fraction(0)) == 1


def test_dicebound_rulesets_lists_every_packaged_ruleset() -> None:
    out = io.StringIO()
    assert main(["rulesets"], out=out) == 0
    listed = [line.split()[0] for line in out.getvalue().splitlines() if line.strip()]
    assert sorted(listed) == RULESET_IDS


@pytest.mark.parametrize("where", ["../rulesets/dnd5e-srd", "..", "./mira", "a/../../x"])
def test_a_packaged_character_name_never_reaches_outside_its_folder(where: str) -> None:
    from dicebound.edge.files import read_ruleset
    from dicebound.errors import UsageError

    ruleset = read_ruleset("dnd5e-srd")
    for folder in ("..", ".", "dnd5e-srd/..", "../rulesets"):
        assert packaged_characters(folder) == []
    with pytest.raises(UsageError, match="is not a character file"):
        read_character(ruleset, where)
