"""symbol-pool: every rule of the page's section with forced faces on a Genesys-like
ruleset written for these tests (the page's snippet, transcribed), exact odds against
brute force, the record's attributes, and every import refusal with its path.

The Genesys dice, face by face (face 1 first), for reading the rows:

- ability (d8): -, s, s, ss, a, a, sa, aa
- proficiency (d12): -, s, s, ss, ss, a, sa, sa, sa, aa, aa, t
- difficulty (d8): -, f, ff, h, h, h, hh, fh
- challenge (d12): -, f, f, ff, ff, h, h, fh, fh, hh, hh, d
- boost (d6): -, -, s, sa, aa, a
- setback (d6): -, -, f, f, h, h
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces
from dicebound.engine import CheckFailure, CheckResult
from dicebound.errors import RulesetInvalid, UsageError
from dicebound.kinds.bands import compile_bands
from dicebound.kinds.base import CompileContext, KindCompiler, KindPlayer
from dicebound.kinds.registry import kind_compiler, kind_player
from dicebound.kinds.symbol_pool import (
    KIND,
    PLAYER,
    SymbolCheck,
    SymbolConfig,
    SymbolDetails,
    SymbolOutcome,
    dice_text,
    distribution,
    encode_details,
    net_symbols,
    parse_details,
    parse_symbols,
    roll,
    symbols_in_words,
    symbols_text,
)
from dicebound.odds import check_odds
from dicebound.overrides import compile_overrides
from dicebound.record import escape_value, record_from_attrs
from dicebound.render.text import render_text, summarize
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags
from dicebound.values import replace
from oracles import bf_symbol_pool, enumerate_throws

# -- the test ruleset: the page's snippet, transcribed --------------------------------------

SYMBOLS: list[dict[str, str]] = [
    {"id": "s", "label": "Success"},
    {"id": "f", "label": "Failure", "cancels": "s"},
    {"id": "a", "label": "Advantage"},
    {"id": "h", "label": "Threat", "cancels": "a"},
    {"id": "t", "label": "Triumph", "counts": "s"},
    {"id": "d", "label": "Despair", "counts": "f"},
]
ABILITY = [[], ["s"], ["s"], ["s", "s"], ["a"], ["a"], ["s", "a"], ["a", "a"]]
PROFICIENCY = [
    [],
    ["s"],
    ["s"],
    ["s", "s"],
    ["s", "s"],
    ["a"],
    ["s", "a"],
    ["s", "a"],
    ["s", "a"],
    ["a", "a"],
    ["a", "a"],
    ["t"],
]
DIFFICULTY = [[], ["f"], ["f", "f"], ["h"], ["h"], ["h"], ["h", "h"], ["f", "h"]]
CHALLENGE = [
    [],
    ["f"],
    ["f"],
    ["f", "f"],
    ["f", "f"],
    ["h"],
    ["h"],
    ["f", "h"],
    ["f", "h"],
    ["h", "h"],
    ["h", "h"],
    ["d"],
]
BOOST = [[], [], ["s"], ["s", "a"], ["a", "a"], ["a"]]
SETBACK = [[], [], ["f"], ["f"], ["h"], ["h"]]

GENESYS_BLOCK: dict[str, Any] = {
    "kind": "symbol-pool",
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "untrained", "label": "Untrained", "flat": 0},
        {"id": "rank_one", "label": "Rank 1", "flat": 1},
        {"id": "rank_two", "label": "Rank 2", "flat": 2},
        {"id": "rank_three", "label": "Rank 3", "flat": 3},
    ],
    "penaltyFrom": "wounds",
    "adjust": [{"value": {"field": "burden"}, "abilities": ["agility"]}],
    "symbols": SYMBOLS,
    "dice": [
        {"id": "ability", "label": "Ability", "faces": ABILITY},
        {"id": "proficiency", "label": "Proficiency", "faces": PROFICIENCY},
        {"id": "difficulty", "label": "Difficulty", "faces": DIFFICULTY},
        {"id": "challenge", "label": "Challenge", "faces": CHALLENGE},
        {"id": "boost", "label": "Boost", "faces": BOOST},
        {"id": "setback", "label": "Setback", "faces": SETBACK},
    ],
    "success": {"symbol": "s", "needed": 1},
    "pool": {"die": "ability", "upgrade": "proficiency", "max": 6},
    "difficulty": {"die": "difficulty", "upgrade": "challenge", "max": 5},
    "boost": {"die": "boost", "max": 3},
    "setback": {"die": "setback", "max": 3},
    "criticalSuccess": "t",
    "criticalFailure": "d",
    "spend": [{"pool": "strain", "amount": 2, "perCheck": 2, "dice": 1}],
    "difficultyLadder": [
        {"label": "Easy", "dc": 1},
        {"label": "Average", "dc": 2},
        {"label": "Hard", "dc": 3},
    ],
}

SHEET_RAW: dict[str, Any] = {
    "version": 1,
    "abilities": [
        {"id": "agility", "label": "Agility", "min": 0, "max": 6, "default": 2},
        {"id": "brawn", "label": "Brawn", "min": 0, "max": 6, "default": 2},
        {"id": "intellect", "label": "Intellect", "min": 0, "max": 6, "default": 2},
        {"id": "willpower", "label": "Willpower", "min": 0, "max": 6, "default": 2},
    ],
    "skills": [
        {"id": "stealth", "label": "Stealth", "ability": "agility"},
        {"id": "athletics", "label": "Athletics", "ability": "brawn"},
        {"id": "lore", "label": "Lore", "ability": "intellect", "untrained": "harder"},
        {"id": "cool", "label": "Cool", "ability": "willpower", "untrained": {"by": -1}},
        {"id": "ranged", "label": "Ranged", "ability": "agility", "cap": {"const": 2}},
        {"id": "streetwise", "label": "Streetwise"},
    ],
    "saves": [{"id": "resist", "label": "Resist", "ability": "willpower"}],
    "fields": [
        {"id": "burden", "label": "Burden", "type": "number", "min": -3, "max": 3, "default": 0}
    ],
    "live": {
        "pools": [
            {"id": "strain", "label": "Strain", "max": {"const": 6}},
            {"id": "story", "label": "Story", "max": {"const": 3}, "start": "empty"},
        ],
        "tracks": [
            {
                "id": "wounds",
                "label": "Wounds",
                "min": 0,
                "max": 2,
                "levels": [
                    {"label": "Hurt", "penalty": -1},
                    {"label": "Wrecked", "penalty": -2},
                ],
                "kinds": [{"id": "wound", "label": "Wound", "severity": 0}],
            }
        ],
    },
}


def _ruleset_raw(block: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "id": "symbols-test",
        "version": 1,
        "name": "Symbols test",
        "coverage": {"checks": True, "summary": "A ruleset written for dicebound's tests."},
        "resolution": copy.deepcopy(dict(block)),
        "sheet": copy.deepcopy(SHEET_RAW),
        "gm": {"checkGuidance": "Name the skill and the difficulty dice."},
    }


def _compile(block: Mapping[str, Any]) -> Ruleset:
    return compile_ruleset(_ruleset_raw(block))


Edit = Callable[[dict[str, Any]], None]


def _at(doc: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def put(*path_and_value: Any) -> Edit:
    """Set the value at a path inside the resolution block (the last argument)."""
    *path, value = path_and_value

    def edit(block: dict[str, Any]) -> None:
        _at(block, tuple(path[:-1]))[path[-1]] = copy.deepcopy(value)

    return edit


def drop(*path: str | int) -> Edit:
    """Delete the key or item at a path inside the resolution block."""

    def edit(block: dict[str, Any]) -> None:
        del _at(block, tuple(path[:-1]))[path[-1]]

    return edit


def append(*path_and_value: Any) -> Edit:
    """Append a value to the list at a path inside the resolution block."""
    *path, value = path_and_value

    def edit(block: dict[str, Any]) -> None:
        _at(block, tuple(path)).append(copy.deepcopy(value))

    return edit


def both(*edits: Edit) -> Edit:
    """Several edits that together make one change."""

    def edit(block: dict[str, Any]) -> None:
        for one in edits:
            one(block)

    return edit


def edited(*edits: Edit) -> dict[str, Any]:
    block = copy.deepcopy(GENESYS_BLOCK)
    for one in edits:
        one(block)
    return block


GENESYS = _compile(GENESYS_BLOCK)
CONFIG: SymbolConfig = GENESYS.resolution.config


def _character(ruleset: Ruleset, name: str, build: dict[str, Any], live: Any = None) -> Character:
    raw: dict[str, Any] = {"name": name, "sheet": {"v": 1, "build": build}}
    if live is not None:
        raw["live"] = live
    return load_character(ruleset, raw)


KELL_BUILD: dict[str, Any] = {
    "abilities": {"agility": 3, "brawn": 2, "intellect": 1, "willpower": 2},
    "skills": {
        "stealth": "rank_two",
        "athletics": "rank_one",
        "ranged": "rank_two",
        "streetwise": "rank_one",
    },
    "saves": {"resist": "rank_one"},
    "bonuses": {"athletics": 1},
}
KELL = _character(GENESYS, "Kell", KELL_BUILD)
DAX = _character(
    GENESYS,
    "Dax",
    {"abilities": {"agility": 2}, "skills": {"stealth": "rank_one"}, "fields": {"burden": -2}},
    {"wounds": {"wounds": {"marks": ["wound"]}}},
)
SWIFT = _character(GENESYS, "Swift", {"abilities": {"agility": 6}})


def _one(text: str, faces: list[int], ruleset: Ruleset = GENESYS, party: Any = None) -> CheckResult:
    report = resolve_text(ruleset, party or [KELL, DAX, SWIFT], text, faces=faces)
    (item,) = report.items
    assert isinstance(item, CheckResult), item
    return item


def test_the_kind_is_registered_and_fits_the_interface() -> None:
    compiler: KindCompiler = KIND
    player: KindPlayer = PLAYER
    assert kind_compiler("symbol-pool") is compiler
    assert kind_player("symbol-pool") is player


def test_the_page_snippet_compiles() -> None:
    config = CONFIG
    assert [s.id for s in config.symbols] == ["s", "f", "a", "h", "t", "d"]
    # cancels pairs one for one, declared on one side only
    assert config.symbol("s").partner == "f" and config.symbol("f").partner == "s"
    assert config.symbol("a").partner == "h" and config.symbol("t").partner is None
    assert config.symbol("t").counts == "s" and config.symbol("d").counts == "f"
    assert config.pool.max == 6 and config.difficulty.max == 5
    assert config.boost is not None and config.boost.max == 3
    assert config.needed == 1 and config.build == "larger-upgraded"
    assert GENESYS.resolution.ladder[2].dc == 3


def test_defaults_pool_six_difficulty_five_boost_three() -> None:
    config = _compile(
        edited(
            put("pool", {"die": "ability"}),
            put("difficulty", {"die": "difficulty"}),
            put("boost", {"die": "boost"}),
            put("setback", {"die": "setback"}),
            put("success", {"symbol": "s"}),
        )
    ).resolution.config
    assert (config.pool.max, config.difficulty.max, config.needed) == (6, 5, 1)
    assert config.boost.max == 3 and config.setback.max == 3


# -- whole checks through the engine: one row per rule -------------------------------------

SUM_RULESET = _compile(edited(put("pool", "build", "sum")))
NO_UPGRADE = _compile(edited(drop("pool", "upgrade"), drop("difficulty", "upgrade")))
OWN = _compile(edited(put("allowOwnUpgrade", True)))
OWN_SUM = _compile(edited(put("allowOwnUpgrade", True), put("pool", "build", "sum")))
NEED_TWO = _compile(edited(put("success", "needed", 2)))
NO_EXTRAS = _compile(edited(drop("boost"), drop("setback")))

ENGINE_ROWS: list[tuple[str, str, list[int], Ruleset, dict[str, str | None]]] = [
    # (id, tag attributes, faces, ruleset, record attributes expected; None: absent)
    (
        "larger-upgraded: agility 3, rank 2 throw 3 dice, 2 upgraded, plain dice first",
        'skill="Stealth" dc="2"',
        [2, 12, 4, 2, 8],
        GENESYS,
        {
            "thrown": "ability|proficiency|proficiency|difficulty|difficulty",
            "rolls": "2|12|4|2|8",
            "dice": "1 ability 2 proficiency vs 2 difficulty",
            "symbols": "2s 1h 1t",
            "used": "2",
            "total": "2",
            "modifier": "0",
            "resolution": "sum",
            "mode": "normal",
            "dc": "1",
        },
    ),
    (
        "a raw ability check has rank zero: agility 3 throws 3 ability dice",
        'skill="Agility" dc="1"',
        [1, 1, 1, 2],
        GENESYS,
        {"thrown": "ability|ability|ability|difficulty", "symbols": "1f", "total": "0"},
    ),
    (
        "sum adds ability and rank and upgrades none",
        'skill="Stealth" dc="0"',
        [1, 1, 1, 1, 1],
        SUM_RULESET,
        {"thrown": "ability|ability|ability|ability|ability", "symbols": ""},
    ),
    (
        "without pool.upgrade the smaller number upgrades nothing",
        'skill="Stealth" dc="0"',
        [2, 2, 2],
        NO_UPGRADE,
        {"thrown": "ability|ability|ability", "symbols": "3s", "result": "success"},
    ),
    (
        "with= swaps the characteristic: brawn 2 and rank 2 throw 2 proficiency",
        'skill="Stealth" with="Brawn" dc="0"',
        [1, 6],
        GENESYS,
        {"thrown": "proficiency|proficiency", "with": "Brawn", "symbols": "1a"},
    ),
    (
        "a save builds its pool like a skill",
        'skill="Resist" dc="1"',
        [2, 2, 1],
        GENESYS,
        {"thrown": "ability|proficiency|difficulty", "symbols": "2s"},
    ),
    (
        "a skill without an ability throws its rank",
        'skill="Streetwise" dc="0"',
        [5],
        GENESYS,
        {"thrown": "ability", "symbols": "1a", "result": "failure"},
    ),
    (
        "cap holds the dice the sheet builds: 3 dice held to 2, both upgraded",
        'skill="Ranged" dc="0"',
        [1, 1],
        GENESYS,
        {"thrown": "proficiency|proficiency"},
    ),
    (
        "dc= counts opposing dice, pulled back to difficulty.max",
        'skill="Streetwise" dc="9"',
        [1, 1, 1, 1, 1, 1],
        GENESYS,
        {"dice": "1 ability vs 5 difficulty", "dc": "1"},
    ),
    (
        "dc= below 0 is pulled back to no opposing dice",
        'skill="Streetwise" dc="-2"',
        [2],
        GENESYS,
        {"dice": "1 ability", "thrown": "ability", "result": "success"},
    ),
    (
        "difficulty= names a ladder step",
        'skill="Streetwise" difficulty="hard"',
        [1, 1, 1, 1],
        GENESYS,
        {"dice": "1 ability vs 3 difficulty"},
    ),
    (
        "dc= beside difficulty= wins",
        'skill="Streetwise" difficulty="Hard" dc="1"',
        [1, 1],
        GENESYS,
        {"dice": "1 ability vs 1 difficulty"},
    ),
    (
        "upgrade= replaces opposing dice with the upgrade die, upgraded after plain",
        'skill="Streetwise" dc="2" upgrade="1"',
        [1, 1, 12],
        GENESYS,
        {
            "thrown": "ability|difficulty|challenge",
            "upgrade": "1",
            "symbols": "1f 1d",
        },
    ),
    (
        "upgrade= never adds dice beyond the difficulty",
        'skill="Streetwise" dc="2" upgrade="4"',
        [1, 1, 1],
        GENESYS,
        {"thrown": "ability|challenge|challenge", "upgrade": "2"},
    ),
    (
        "upgrade= on no opposing dice upgrades nothing and is not recorded",
        'skill="Streetwise" dc="0" upgrade="2"',
        [1],
        GENESYS,
        {"thrown": "ability", "upgrade": None},
    ),
    (
        "upgrade= is ignored without difficulty.upgrade",
        'skill="Streetwise" dc="1" upgrade="1"',
        [1, 1],
        NO_UPGRADE,
        {"thrown": "ability|difficulty", "upgrade": None},
    ),
    (
        "bonus=+N adds boost dice, up to boost.max, after the pool",
        'skill="Streetwise" dc="1" bonus="+5"',
        [1, 3, 4, 5, 1],
        GENESYS,
        {
            "thrown": "ability|boost|boost|boost|difficulty",
            "bonus": "+3",
            "dice": "1 ability 3 boost vs 1 difficulty",
            "symbols": "2s 3a",
        },
    ),
    (
        "bonus=-N adds setback dice, up to setback.max, last of all",
        'skill="Streetwise" dc="1" bonus="-2"',
        [2, 1, 3, 5],
        GENESYS,
        {
            "thrown": "ability|difficulty|setback|setback",
            "bonus": "-2",
            "symbols": "1h",
            "result": "failure",
        },
    ),
    (
        "the sheet's bonus for the skill adds boost dice",
        'skill="Athletics" dc="0"',
        [1, 1, 1],
        GENESYS,
        {"thrown": "ability|proficiency|boost", "bonus": None},
    ),
    (
        "a wound adds setback dice through the signed bonus",
        'skill="Streetwise" who="Dax" dc="0"',
        [6],
        GENESYS,
        {"thrown": "setback", "penalty": "-1", "dice": "vs 1 setback"},
    ),
    (
        "adjust on agility adds setback dice beside the wound, held to setback.max",
        'skill="Stealth" who="Dax" dc="0"',
        [1, 1, 1, 1, 1],
        GENESYS,
        {
            "thrown": "ability|proficiency|setback|setback|setback",
            "penalty": "-1",
            "adjust": "-2",
        },
    ),
    (
        "signed adjustments combine before the limit: +3 and -3 throw neither",
        'skill="Stealth" who="Dax" dc="0" bonus="3"',
        [1, 1],
        GENESYS,
        {"thrown": "ability|proficiency", "bonus": "+3"},
    ),
    (
        "setback= adds setback dice beside a positive bonus",
        'skill="Streetwise" dc="0" bonus="2" setback="1"',
        [1, 1, 1, 1],
        GENESYS,
        {"thrown": "ability|boost|boost|setback", "setback": "1", "bonus": "+2"},
    ),
    (
        "setback= and a negative bonus share setback.max; the record says what it added",
        'skill="Streetwise" dc="0" bonus="-2" setback="3"',
        [1, 1, 1, 1],
        GENESYS,
        {"thrown": "ability|setback|setback|setback", "setback": "1"},
    ),
    (
        "setback= past a full setback.max adds nothing and is not recorded",
        'skill="Streetwise" dc="0" bonus="-3" setback="2"',
        [1, 1, 1, 1],
        GENESYS,
        {"thrown": "ability|setback|setback|setback", "setback": None},
    ),
    (
        "setback= that is not a count of 1 or more is ignored",
        'skill="Streetwise" dc="0" setback="-1"',
        [1],
        GENESYS,
        {"thrown": "ability", "setback": None},
    ),
    (
        "without boost and setback dice the signed bonus throws nothing",
        'skill="Streetwise" dc="0" bonus="2" setback="1"',
        [1],
        NO_EXTRAS,
        {"thrown": "ability", "bonus": None, "setback": None},
    ),
    (
        "upgradeOwn upgrades the roller's plain dice",
        'skill="Stealth" dc="0" upgradeOwn="1"',
        [1, 1, 1],
        OWN,
        {"thrown": "proficiency|proficiency|proficiency", "upgradeOwn": "1"},
    ),
    (
        "upgradeOwn past every die adds upgraded dice within pool.max",
        'skill="Stealth" dc="0" upgradeOwn="9"',
        [1] * 6,
        OWN,
        {"thrown": "|".join(["proficiency"] * 6), "upgradeOwn": "4"},
    ),
    (
        "upgradeOwn comes after bought dice",
        'skill="Stealth" dc="0" spend="strain:2" upgradeOwn="2"',
        [1] * 4,
        OWN,
        {"thrown": "|".join(["proficiency"] * 4), "upgradeOwn": "2", "spend": "strain:2"},
    ),
    (
        "upgradeOwn works with build sum",
        'skill="Stealth" dc="0" upgradeOwn="2"',
        [1] * 5,
        OWN_SUM,
        {"thrown": "ability|ability|ability|proficiency|proficiency", "upgradeOwn": "2"},
    ),
    (
        "upgradeOwn is ignored unless allowOwnUpgrade is true",
        'skill="Stealth" dc="0" upgradeOwn="2"',
        [1, 1, 1],
        GENESYS,
        {"thrown": "ability|proficiency|proficiency", "upgradeOwn": None},
    ),
    (
        "spend buys base dice, thrown with the plain pool dice",
        'skill="Stealth" dc="0" spend="strain:4"',
        [1] * 5,
        GENESYS,
        {"thrown": "ability|ability|ability|proficiency|proficiency", "spend": "strain:4"},
    ),
    (
        "spend with no room in pool.max buys nothing and pays nothing",
        'skill="Agility" who="Swift" dc="0" spend="strain:2"',
        [1] * 6,
        GENESYS,
        {"thrown": "|".join(["ability"] * 6), "spend": None},
    ),
    (
        "untrained harder moves the difficulty one ladder step up",
        'skill="Lore" dc="1"',
        [1, 1, 1],
        GENESYS,
        {"dice": "1 ability vs 2 difficulty", "reason": "untrained"},
    ),
    (
        "untrained by adds setback dice through the signed bonus",
        'skill="Cool" dc="0"',
        [1, 1, 1],
        GENESYS,
        {"thrown": "ability|ability|setback", "reason": "untrained"},
    ),
    (
        "a triumph counts as a success and remains a triumph",
        'skill="Stealth" dc="0"',
        [1, 12, 1],
        GENESYS,
        {"symbols": "1s 1t", "total": "1"},
    ),
    (
        "a triumph's success can cancel; the triumph stays",
        'skill="Stealth" dc="1"',
        [1, 12, 1, 2],
        GENESYS,
        {"symbols": "1t", "total": "0"},
    ),
    (
        "successes and failures cancel one for one, advantages and threats too",
        'skill="Stealth" dc="2"',
        [7, 4, 6, 7, 8],
        GENESYS,
        {"symbols": "2s 1h", "total": "2"},
    ),
    (
        "success needs success.needed net successes",
        'skill="Stealth" dc="0"',
        [2, 1, 1],
        NEED_TWO,
        {"total": "1", "dc": "2", "result": "failure"},
    ),
    (
        "no symbol left is an empty symbols",
        'skill="Stealth" dc="1"',
        [2, 1, 1, 2],
        GENESYS,
        {"symbols": "", "total": "0", "result": "failure"},
    ),
]


@pytest.mark.parametrize(
    ("tag", "faces", "ruleset", "expected"),
    [row[1:] for row in ENGINE_ROWS],
    ids=[row[0] for row in ENGINE_ROWS],
)
def test_engine_rows(
    tag: str, faces: list[int], ruleset: Ruleset, expected: dict[str, str | None]
) -> None:
    party = [
        _character(ruleset, "Kell", KELL_BUILD),
        _character(
            ruleset,
            "Dax",
            {
                "abilities": {"agility": 2},
                "skills": {"stealth": "rank_one"},
                "fields": {"burden": -2},
            },
            {"wounds": {"wounds": {"marks": ["wound"]}}},
        ),
        _character(ruleset, "Swift", {"abilities": {"agility": 6}}),
    ]
    result = _one(f"[skill_check: {tag}]", faces, ruleset, party)
    attrs = result.record.as_dict()
    for key, value in expected.items():
        assert attrs.get(key) == value, (key, attrs)


def test_spend_pays_after_the_throw() -> None:
    report = resolve_text(
        GENESYS, [KELL], '[skill_check: skill="Stealth" dc="0" spend="strain:4"]', faces=[1] * 5
    )
    (item,) = report.results
    assert [c.to_json() for c in item.changes] == [
        {"who": "Kell", "pool": "strain", "from": 6, "to": 2}
    ]


def test_a_tag_without_a_difficulty_is_not_rolled() -> None:
    report = resolve_text(GENESYS, [KELL], '[skill_check: skill="Stealth"]', faces=[])
    (item,) = report.items
    assert isinstance(item, CheckFailure)
    assert "dc=N (opposing dice)" in item.error and '"Easy"' in item.error


def test_a_difficulty_no_step_answers_to_is_not_rolled() -> None:
    report = resolve_text(
        GENESYS, [KELL], '[skill_check: skill="Stealth" difficulty="Brutal"]', faces=[]
    )
    (item,) = report.items
    assert isinstance(item, CheckFailure)
    assert 'difficulty="Brutal"' in item.error


def test_the_record_reads_back_and_renders() -> None:
    result = _one('[skill_check: skill="Stealth" dc="2"]', [2, 12, 4, 2, 8])
    record = result.record
    assert record_from_attrs(parse_tags(record.to_tag())[0].attrs) == record
    card = render_text(record)
    assert "ability 2, proficiency 12, proficiency 4, difficulty 2, difficulty 8" in card
    assert "Symbols  2 Success, 1 Threat, 1 Triumph" in card  # the labels, not the ids
    assert "2 Success, 1 Threat, 1 Triumph" in summarize(record)
    cancelled = _one('[skill_check: skill="Stealth" dc="1"]', [2, 1, 1, 2]).record
    assert cancelled.get("symbols") == ""  # a Success and a Failure cancel
    said = "all symbols cancelled"
    assert said in render_text(cancelled) and said in summarize(cancelled)
    blank = _one('[skill_check: skill="Stealth" dc="1"]', [1, 1, 1, 1]).record
    assert blank.get("symbols") == ""  # every face blank: nothing to cancel
    assert "no symbols" in render_text(blank) and "no symbols" in summarize(blank)


def test_symbol_details_keep_labels_faces_and_markers() -> None:
    record = _one('[skill_check: skill="Stealth" dc="2" upgrade="1"]', [2, 12, 4, 2, 12]).record
    details = parse_details(str(record.get("symbolDetails")))
    assert details.faces == (("s",), ("t",), ("s", "s"), ("f",), ("d",))
    assert details.dice == (
        ("ability", "Ability"),
        ("proficiency", "Proficiency"),
        ("difficulty", "Difficulty"),
        ("challenge", "Challenge"),
    )
    assert details.symbols[4] == ("t", "Triumph")
    assert details.critical_success == ("t", 1) and details.critical_failure == ("d", 1)
    # s: 1 + 2 + the triumph's 1 = 4, f: 1 + the despair's 1 = 2 -> 2 s left
    assert record.get("symbols") == "2s 1t 1d"
    assert symbols_in_words("2s 1t 1d", record.get("symbolDetails")) == (
        "2 Success, 1 Triumph, 1 Despair"
    )
    assert symbols_in_words("2s 1t") == "2 s, 1 t"


# -- markers: both possible, never changing success -----------------------------------------


def _check(thrown: str, needed: int = 1, config: SymbolConfig = CONFIG) -> SymbolCheck:
    return SymbolCheck(config, tuple(thrown.split()), needed)


MARKER_ROWS: list[tuple[str, str, list[int], SymbolOutcome, str]] = [
    # (id, dice, faces, outcome, symbols)
    (
        "a triumph marks a critical success on a check that succeeds",
        "proficiency difficulty",
        [12, 1],
        SymbolOutcome(1, True, True, False, True, False),
        "1s 1t",
    ),
    (
        "a triumph on a failed check marks it and it still fails",
        "proficiency difficulty difficulty",
        [12, 3, 1],
        SymbolOutcome(0, False, True, False, True, False),
        "1f 1t",
    ),
    (
        "a despair on a check that succeeds marks it and it still succeeds",
        "ability ability challenge",
        [4, 4, 12],
        SymbolOutcome(3, True, False, True, False, True),
        "3s 1d",
    ),
    (
        "both markers together",
        "proficiency challenge",
        [12, 12],
        SymbolOutcome(0, False, True, True, True, True),
        "1t 1d",
    ),
    (
        "two triumphs are one marker",
        "proficiency proficiency",
        [12, 12],
        SymbolOutcome(2, True, True, False, True, False),
        "2s 2t",
    ),
    (
        "no marker",
        "ability difficulty",
        [7, 8],
        SymbolOutcome(0, False, False, False, False, False),
        "",
    ),
]


@pytest.mark.parametrize(
    ("thrown", "faces", "outcome", "symbols"),
    [row[1:] for row in MARKER_ROWS],
    ids=[row[0] for row in MARKER_ROWS],
)
def test_markers(thrown: str, faces: list[int], outcome: SymbolOutcome, symbols: str) -> None:
    rolled = roll(_check(thrown), ForcedFaces(faces))
    assert rolled.outcome == outcome
    assert dict(rolled.extras)["symbols"] == symbols
    assert rolled.success == outcome.success
    both = outcome.marked_success and outcome.marked_failure
    assert (rolled.outcome.critical_marks == "both") == both


def test_critical_marks_name_what_showed() -> None:
    marks = [
        SymbolOutcome(0, False, False, False, ms, mf).critical_marks
        for ms, mf in ((True, True), (True, False), (False, True), (False, False))
    ]
    assert marks == ["both", "success", "failure", None]


def test_with_bands_the_markers_set_no_critical() -> None:
    banded = replace(CONFIG, banded=True)
    out = roll(_check("proficiency challenge", config=banded), ForcedFaces([12, 12])).outcome
    assert out == SymbolOutcome(0, False, False, False, True, True)
    assert out.critical_marks == "both"


def test_a_marker_added_by_counts_is_not_an_occurrence() -> None:
    """criticalFailure on "f": a despair adds a failure, which is no face showing "f"."""
    config = _compile(edited(put("criticalFailure", "f"))).resolution.config
    out = roll(_check("ability challenge", config=config), ForcedFaces([1, 12])).outcome
    assert not out.marked_failure
    out = roll(_check("ability challenge", config=config), ForcedFaces([1, 2])).outcome
    assert out.marked_failure


# -- the symbols arithmetic --------------------------------------------------------------


def test_net_symbols_count_then_cancel_in_declared_order() -> None:
    faces = [("t",), ("s", "a"), ("f", "f"), ("h",), ("h",), ("d",)]
    # s: 1 + t = 2; f: 2 + d = 3 -> 1 f left; a 1 - h 2 -> 1 h; t and d remain
    assert net_symbols(CONFIG, faces) == (("f", 1), ("h", 1), ("t", 1), ("d", 1))
    assert symbols_text(net_symbols(CONFIG, faces)) == "1f 1h 1t 1d"
    assert parse_symbols("1f 1h 1t 1d") == (("f", 1), ("h", 1), ("t", 1), ("d", 1))
    assert parse_symbols("") == ()
    with pytest.raises(UsageError):
        parse_symbols("2 s")


def test_a_reverse_cancels_declaration_is_allowed() -> None:
    config = _compile(edited(put("symbols", 0, "cancels", "f"))).resolution.config
    assert config.symbol("s").partner == "f"
    assert net_symbols(config, [("s",), ("f",), ("s",)]) == (("s", 1),)


FACES = st.lists(
    st.lists(st.sampled_from(["s", "f", "a", "h", "t", "d"]), max_size=3).map(tuple),
    max_size=12,
)


@settings(max_examples=examples(200), deadline=None)
@given(FACES)
def test_the_record_counts_the_same_successes_as_the_outcome(faces: list[tuple[str, ...]]) -> None:
    dice = [
        {"id": f"d{i}", "label": f"D{i}", "faces": [list(face), []]} for i, face in enumerate(faces)
    ]
    dice += [
        {"id": "p", "label": "P", "faces": [["s"], []]},
        {"id": "q", "label": "Q", "faces": [["f"], []]},
    ]
    block = edited(
        put("dice", dice),
        put("pool", {"die": "p"}),
        put("difficulty", {"die": "q"}),
        drop("boost"),
        drop("setback"),
        put("criticalSuccess", "s"),
        put("criticalFailure", "f"),
    )
    config = KIND.compile(block, CompileContext(GENESYS.sheet))[0]
    assert config is not None
    check = SymbolCheck(config, tuple(f"d{i}" for i in range(len(faces))), 1)
    rolled = roll(check, ForcedFaces([1] * len(faces)))
    net = dict(net_symbols(config, faces))
    assert rolled.total == net.get("s", 0)
    assert rolled.outcome.marked_success == any("s" in f for f in faces)


LABELS = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"),
    min_size=1,
    max_size=20,
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["s", "a", "t_x"]), max_size=3).map(tuple), max_size=5),
    st.lists(st.tuples(st.sampled_from(["ability", "boost_die"]), LABELS), max_size=3),
    st.lists(st.tuples(st.sampled_from(["s", "a", "t_x"]), LABELS), min_size=1, max_size=3),
    st.none() | st.tuples(st.just("t_x"), st.integers(0, 9)),
)
def test_symbol_details_read_back_exactly(
    faces: list[tuple[str, ...]],
    dice: list[tuple[str, str]],
    symbols: list[tuple[str, str]],
    mark: tuple[str, int] | None,
) -> None:
    details = SymbolDetails(tuple(faces), tuple(dice), tuple(symbols), mark, mark)
    text = encode_details(details)
    assert escape_value(text) == text  # no double quote, no line break of any kind
    assert parse_details(text) == details


def test_symbol_details_is_documented_text() -> None:
    details = SymbolDetails(
        ((), ("s", "a")), (("ability", 'A "b";c'),), (("s", "S"), ("a", "A")), ("s", 1), None
    )
    assert encode_details(details) == (
        "faces:-|s+a;dice:ability=A %22b%22%3Bc;symbols:s=S,a=A;criticalSuccess:s=1"
    )
    with pytest.raises(UsageError):
        parse_details("faces:-;dice:")
    with pytest.raises(UsageError):
        parse_details("faces:-;dice:;symbols:;weird:1")


def test_dice_text() -> None:
    assert dice_text(("ability", "ability", "boost", "difficulty"), 3) == (
        "2 ability 1 boost vs 1 difficulty"
    )
    assert dice_text(("ability",), None) == "1 ability"
    assert dice_text((), 0) == "none"
    assert dice_text(("setback",), 0) == "vs 1 setback"


# -- exact odds -------------------------------------------------------------------------

DIE_FACES = {
    "ability": ABILITY,
    "proficiency": PROFICIENCY,
    "difficulty": DIFFICULTY,
    "challenge": CHALLENGE,
    "boost": BOOST,
    "setback": SETBACK,
}


def _keyed(dist: Any) -> dict[tuple[int, bool, bool, bool], Fraction]:
    out: dict[tuple[int, bool, bool, bool], Fraction] = {}
    for o, p in dist.items():
        key = (o.total, o.success, o.marked_success, o.marked_failure)
        out[key] = out.get(key, Fraction(0)) + p
    return out


SMALL_POOLS = [
    "ability",
    "proficiency challenge",
    "ability ability difficulty",
    "proficiency proficiency challenge",
    "proficiency boost difficulty setback",
    "ability boost challenge setback",
    "boost setback setback",
    "challenge challenge",
]


@pytest.mark.parametrize("thrown", SMALL_POOLS)
@pytest.mark.parametrize("needed", [1, 2])
def test_odds_equal_brute_force(thrown: str, needed: int) -> None:
    check = _check(thrown, needed)
    exact = _keyed(distribution(check).probabilities())
    dice = [DIE_FACES[d] for d in thrown.split()]
    assert exact == bf_symbol_pool(dice, SYMBOLS, "s", needed, "t", "d")
    thrown_ways = enumerate_throws(lambda source: roll(check, source).outcome)
    assert _keyed(thrown_ways) == exact


def test_odds_sum_to_one_for_the_largest_check_quickly() -> None:
    check = _check(
        " ".join(
            ["ability"] * 2
            + ["proficiency"] * 4
            + ["boost"] * 3
            + ["difficulty"] * 2
            + ["challenge"] * 3
            + ["setback"] * 3
        )
    )
    dist = distribution(check)
    assert sum(dist.probabilities().values()) == 1
    assert Fraction(0) < dist.probability_where(lambda o: o.success) < 1


def test_the_whole_check_odds() -> None:
    odds = check_odds(GENESYS, KELL, 'skill="Streetwise" dc="1"')
    # one ability die (s on 2, 3, 4 (two), 7) against one difficulty die (f on 2, 3 (two), 8)
    expected = bf_symbol_pool([ABILITY, DIFFICULTY], SYMBOLS, "s", 1, "t", "d")
    assert odds.success == sum(p for k, p in expected.items() if k[1])
    assert "1 ability vs 1 difficulty" in odds.title


def test_margin_is_net_minus_needed_plus_one() -> None:
    check = _check("ability", 2)
    assert PLAYER.margin(check, SymbolOutcome(3, True, False, False, False, False)) == 2
    assert PLAYER.margin(check, SymbolOutcome(0, False, False, False, False, False)) == -1


# -- outcome bands ------------------------------------------------------------------------

BANDS: dict[str, Any] = {
    "by": "margin",
    "tiers": [
        {"id": "great", "label": "Great success", "atLeast": 3, "success": True, "critical": True},
        {"id": "success", "label": "Success", "atLeast": 1, "success": True},
        {"id": "fail", "label": "Failure"},
    ],
}


def _banded(bands: Mapping[str, Any]) -> Ruleset:
    """The ruleset with bands. Until the ruleset compiler reads ``outcomes``, the bands
    and the config made from the block beside them are set on the compiled resolution."""
    block = {**GENESYS_BLOCK, "outcomes": bands}
    try:
        return _compile(block)
    except RulesetInvalid as exc:
        if not any(p.where == "resolution.outcomes" for p in exc.problems):
            raise
    compiled, problems = compile_bands(
        bands,
        ("resolution", "outcomes"),
        kind="symbol-pool",
        single_die=False,
        resolution_naturals_none=True,
    )
    assert problems == [] and compiled is not None
    config, found = KIND.compile(block, CompileContext(GENESYS.sheet))
    assert found == [] and config is not None and config.banded
    resolution = replace(GENESYS.resolution, outcomes=compiled, config=config)
    return replace(GENESYS, resolution=resolution)


def test_bands_read_the_margin_and_markers_never_move_them() -> None:
    ruleset = _banded(BANDS)
    party = [_character(ruleset, "Kell", KELL_BUILD)]
    # 1 ability + 2 proficiency vs 1 challenge: t, ss, s against d: s 4, f 1 -> 3 net
    great = _one(
        '[skill_check: skill="Stealth" dc="1" upgrade="1"]', [2, 12, 4, 12], ruleset, party
    )
    assert great.outcome == "Great success" and great.success and great.critical == "success"
    # one net success with both markers: margin 1, Success, no band critical
    both = _one('[skill_check: skill="Stealth" dc="1" upgrade="1"]', [2, 12, 1, 12], ruleset, party)
    assert both.outcome == "Success" and both.success and both.critical is None
    details = parse_details(str(both.record.get("symbolDetails")))
    assert details.critical_success == ("t", 1) and details.critical_failure == ("d", 1)
    odds = check_odds(ruleset, party[0], 'skill="Stealth" dc="1" upgrade="1"')
    assert [o.label for o in odds.outcomes] == ["Great success", "Success", "Failure"]
    assert sum(o.probability for o in odds.outcomes) == 1


def test_bands_by_total_read_the_net_successes() -> None:
    bands = {
        "by": "total",
        "tiers": [
            {"id": "two", "label": "Two or more", "atLeast": 2, "success": True},
            {"id": "none", "label": "Short"},
        ],
    }
    ruleset = _banded(bands)
    party = [_character(ruleset, "Kell", KELL_BUILD)]
    result = _one('[skill_check: skill="Stealth" dc="0"]', [4, 1, 1], ruleset, party)
    assert result.outcome == "Two or more" and result.record.get("outcome") == "Two or more"


def test_a_band_on_a_critical_is_refused_beside_a_symbol_pool() -> None:
    bands = {
        "tiers": [
            {"id": "crit", "label": "Triumph", "on": "critical-success"},
            {"id": "ok", "label": "Success", "atLeast": 1, "success": True},
            {"id": "fail", "label": "Failure"},
        ]
    }
    _, problems = compile_bands(
        bands,
        ("resolution", "outcomes"),
        kind="symbol-pool",
        single_die=False,
        resolution_naturals_none=True,
    )
    assert [(p.where, p.code) for p in problems] == [
        ("resolution.outcomes.tiers[0].on", "on-not-for-kind")
    ]


# -- the engine's reading of markers without bands (the lead's engine wires it) -----------


def test_without_bands_a_triumph_on_a_success_is_critical_success() -> None:
    result = _one('[skill_check: skill="Stealth" dc="1"]', [1, 12, 1, 1])
    assert result.success and result.critical == "success"


def test_without_bands_markers_never_change_the_outcome_words() -> None:
    failed = _one('[skill_check: skill="Stealth" dc="1"]', [1, 12, 1, 2])
    assert not failed.success and failed.critical == "success"
    assert failed.outcome == "Failure"
    assert failed.record.get("result") == "failure"
    both = _one('[skill_check: skill="Stealth" dc="1" upgrade="1"]', [2, 12, 1, 12])
    assert both.success and both.critical == "both" and both.outcome == "Success"


# -- overrides ---------------------------------------------------------------------------


def _overrides(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    _, problems = compile_overrides(
        entries,
        ("resolution", "overrides"),
        resolution_block=GENESYS_BLOCK,
        kind_compiler=KIND,
        ctx=CompileContext(GENESYS.sheet),
    )
    return [(p.where, p.code) for p in problems]


def test_overrides_may_not_replace_symbols_or_dice() -> None:
    found = _overrides(
        [
            {
                "id": "odd",
                "label": "Odd",
                "skills": ["stealth"],
                "set": {"symbols": SYMBOLS, "dice": GENESYS_BLOCK["dice"]},
            }
        ]
    )
    assert sorted(found) == [
        ("resolution.overrides[0].set.dice", "locked-key"),
        ("resolution.overrides[0].set.symbols", "locked-key"),
    ]


def test_an_override_changes_the_pool_and_is_checked_like_the_ruleset() -> None:
    ok = [
        {
            "id": "hard",
            "label": "Hard",
            "skills": ["lore"],
            "set": {"success": {"symbol": "s", "needed": 2}},
        }
    ]
    assert _overrides(ok) == []
    bad = [{"id": "bad", "label": "Bad", "skills": ["lore"], "set": {"boost": {"die": "bost"}}}]
    assert _overrides(bad) == [("resolution.overrides[0].set.boost.die", "unknown-id")]


# -- import refusals, each with its path ----------------------------------------------------

REFUSALS: list[tuple[str, Edit, str, str]] = [
    # (id, one change to the block, path, code)
    ("symbols: at least 2", put("symbols", SYMBOLS[:1]), "resolution.symbols", "too-few"),
    (
        "symbols: at most 10",
        put("symbols", SYMBOLS + [{"id": f"x{i}", "label": "X"} for i in range(5)]),
        "resolution.symbols",
        "too-many",
    ),
    (
        "symbols: ids are unique",
        put("symbols", 2, "id", "s"),
        "resolution.symbols[2].id",
        "duplicate-id",
    ),
    (
        "counts names a symbol that exists",
        put("symbols", 4, "counts", "x"),
        "resolution.symbols[4].counts",
        "unknown-id",
    ),
    (
        "counts may not name its own symbol",
        put("symbols", 4, "counts", "t"),
        "resolution.symbols[4].counts",
        "counts-itself",
    ),
    (
        "counts names a symbol without its own counts: no chains",
        put("symbols", 5, "counts", "t"),
        "resolution.symbols[5].counts",
        "counts-chain",
    ),
    (
        "cancels names a symbol that exists",
        put("symbols", 1, "cancels", "z"),
        "resolution.symbols[1].cancels",
        "unknown-id",
    ),
    (
        "a symbol cannot cancel itself",
        put("symbols", 2, "cancels", "a"),
        "resolution.symbols[2].cancels",
        "cancels-itself",
    ),
    (
        "at most one partner for each symbol",
        put("symbols", 3, "cancels", "s"),
        "resolution.symbols[3].cancels",
        "two-partners",
    ),
    (
        "a symbol's text is one line",
        put("symbols", 0, "text", "two\nlines"),
        "resolution.symbols[0].text",
        "bad-text",
    ),
    ("dice: at least 2", put("dice", GENESYS_BLOCK["dice"][:1]), "resolution.dice", "too-few"),
    (
        "dice: at most 8",
        put(
            "dice",
            GENESYS_BLOCK["dice"]
            + [{"id": f"extra{i}", "label": f"Extra {i}", "faces": [[], []]} for i in range(3)],
        ),
        "resolution.dice",
        "too-many",
    ),
    (
        "a die has at least 2 faces",
        put("dice", 0, "faces", [["s"]]),
        "resolution.dice[0].faces",
        "too-few",
    ),
    (
        "a die has at most 20 faces",
        put("dice", 0, "faces", [[]] * 21),
        "resolution.dice[0].faces",
        "too-many",
    ),
    (
        "a face shows at most three symbols",
        put("dice", 0, "faces", 1, ["s", "s", "a", "a"]),
        "resolution.dice[0].faces[1]",
        "too-many",
    ),
    (
        "a face names symbols that exist",
        put("dice", 0, "faces", 1, ["s", "q"]),
        "resolution.dice[0].faces[1][1]",
        "unknown-id",
    ),
    (
        "dice ids are unique",
        put("dice", 1, "id", "ability"),
        "resolution.dice[1].id",
        "duplicate-id",
    ),
    (
        "no two dice answer to one name",
        put("dice", 1, "label", "ability"),
        "resolution.dice[1].label",
        "ambiguous-die-name",
    ),
    ("pool.die names a die", put("pool", "die", "abillity"), "resolution.pool.die", "unknown-id"),
    (
        "pool.upgrade names a die",
        put("pool", "upgrade", "prof"),
        "resolution.pool.upgrade",
        "unknown-id",
    ),
    (
        "pool.upgrade may not be the die it upgrades",
        put("pool", "upgrade", "ability"),
        "resolution.pool.upgrade",
        "upgrade-same-die",
    ),
    ("pool.max cannot exceed 12", put("pool", "max", 13), "resolution.pool.max", "too-large"),
    (
        "pool.build is larger-upgraded or sum",
        put("pool", "build", "best"),
        "resolution.pool.build",
        "not-allowed",
    ),
    (
        "difficulty.die names a die",
        put("difficulty", "die", "dificulty"),
        "resolution.difficulty.die",
        "unknown-id",
    ),
    (
        "difficulty.upgrade names a die",
        put("difficulty", "upgrade", "chalenge"),
        "resolution.difficulty.upgrade",
        "unknown-id",
    ),
    (
        "difficulty.upgrade may not be the die it upgrades",
        put("difficulty", "upgrade", "difficulty"),
        "resolution.difficulty.upgrade",
        "upgrade-same-die",
    ),
    (
        "difficulty.max cannot exceed 12",
        put("difficulty", "max", 13),
        "resolution.difficulty.max",
        "too-large",
    ),
    ("boost.die names a die", put("boost", "die", "bost"), "resolution.boost.die", "unknown-id"),
    ("boost.max cannot exceed 6", put("boost", "max", 7), "resolution.boost.max", "too-large"),
    (
        "setback.die names a die",
        put("setback", "die", "setbak"),
        "resolution.setback.die",
        "unknown-id",
    ),
    (
        "setback.max cannot exceed 6",
        put("setback", "max", 7),
        "resolution.setback.max",
        "too-large",
    ),
    (
        "allowOwnUpgrade needs pool.upgrade",
        both(put("allowOwnUpgrade", True), drop("pool", "upgrade")),
        "resolution.allowOwnUpgrade",
        "needs-upgrade",
    ),
    (
        "allowOwnUpgrade is a boolean",
        put("allowOwnUpgrade", "yes"),
        "resolution.allowOwnUpgrade",
        "wrong-type",
    ),
    (
        "success.symbol names a symbol",
        put("success", "symbol", "sucess"),
        "resolution.success.symbol",
        "unknown-id",
    ),
    (
        "a success symbol no face can count never succeeds",
        both(append("symbols", {"id": "x", "label": "X"}), put("success", "symbol", "x")),
        "resolution.success.symbol",
        "never-succeeds",
    ),
    (
        "success.needed above what a check can count never succeeds",
        put("success", "needed", 60),
        "resolution.success.needed",
        "never-succeeds",
    ),
    (
        "success.needed is at least 1",
        put("success", "needed", 0),
        "resolution.success.needed",
        "too-small",
    ),
    (
        "criticalSuccess names a symbol",
        put("criticalSuccess", "tt"),
        "resolution.criticalSuccess",
        "unknown-id",
    ),
    (
        "criticalFailure names a symbol",
        put("criticalFailure", "dd"),
        "resolution.criticalFailure",
        "unknown-id",
    ),
    (
        "a critical symbol no face of any die shows never fires",
        both(append("symbols", {"id": "x", "label": "X"}), put("criticalFailure", "x")),
        "resolution.criticalFailure",
        "never-fires",
    ),
    (
        "a ladder step counts opposing dice up to difficulty.max",
        put("difficultyLadder", 2, "dc", 6),
        "resolution.difficultyLadder[2].dc",
        "dc-out-of-range",
    ),
    (
        "a ladder step counts at least 0 dice",
        put("difficultyLadder", 0, "dc", -1),
        "resolution.difficultyLadder[0].dc",
        "too-small",
    ),
    (
        "spend buys dice only",
        put("spend", 0, "successes", 1),
        "resolution.spend[0].successes",
        "spend-dice-only",
    ),
    (
        "spend cannot buy a re-throw",
        put("spend", 0, "reroll", {"upTo": 1, "mode": "once"}),
        "resolution.spend[0].reroll",
        "spend-dice-only",
    ),
    (
        "spend names a live pool",
        put("spend", 0, "pool", "stran"),
        "resolution.spend[0].pool",
        "unknown-id",
    ),
    (
        "spend cannot name a pool that starts empty",
        put("spend", 0, "pool", "story"),
        "resolution.spend[0].pool",
        "pool-starts-empty",
    ),
    (
        "two spend entries may not name one pool",
        append("spend", {"pool": "strain", "amount": 1, "perCheck": 1, "dice": 1}),
        "resolution.spend[1].pool",
        "duplicate-pool",
    ),
    ("symbols is required", drop("symbols"), "resolution", "missing-key"),
    ("dice is required", drop("dice"), "resolution", "missing-key"),
    ("pool is required", drop("pool"), "resolution", "missing-key"),
    ("difficulty is required", drop("difficulty"), "resolution", "missing-key"),
    ("success is required", drop("success"), "resolution", "missing-key"),
    ("a key the kind does not know", put("target", 3), "resolution.target", "unknown-key"),
]


@pytest.mark.parametrize(
    ("edit", "path", "code"), [row[1:] for row in REFUSALS], ids=[row[0] for row in REFUSALS]
)
def test_refusals(edit: Edit, path: str, code: str) -> None:
    block = copy.deepcopy(GENESYS_BLOCK)
    edit(block)
    with pytest.raises(RulesetInvalid) as caught:
        _compile(block)
    found = [(p.where, p.code) for p in caught.value.problems]
    assert (path, code) in found, found
    for problem in caught.value.problems:
        assert problem.message.endswith((".", "?")), problem.message


def test_refusal_messages_name_the_value_and_the_rule() -> None:
    block = edited(put("pool", "die", "abillity"))
    with pytest.raises(RulesetInvalid) as caught:
        _compile(block)
    (problem,) = caught.value.problems
    assert problem.message == '"abillity" is not a die of this pool. Did you mean "ability"?'
    block = edited(put("symbols", 5, "counts", "t"))
    with pytest.raises(RulesetInvalid) as caught:
        _compile(block)
    (problem,) = caught.value.problems
    assert '"t" counts as "s" itself' in problem.message


def test_capability_versions() -> None:
    raw = _ruleset_raw(GENESYS_BLOCK)
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw, capability_api="1.140")
    assert ("resolution.kind", "needs-capability") in [
        (p.where, p.code) for p in caught.value.problems
    ]
    compile_ruleset(raw, capability_api="1.141")
    for value in (True, False):  # declaring the key, even false, needs 1.150
        own = _ruleset_raw(edited(put("allowOwnUpgrade", value)))
        with pytest.raises(RulesetInvalid) as caught:
            compile_ruleset(own, capability_api="1.149")
        (problem,) = caught.value.problems
        assert (problem.where, problem.code) == ("resolution.allowOwnUpgrade", "needs-capability")
        assert "1.150" in problem.message
        compile_ruleset(own, capability_api="1.150")


def test_structure_alone_names_every_key() -> None:
    for key, node in KIND.keys.items():
        if key in GENESYS_BLOCK:
            assert list(node.check(GENESYS_BLOCK[key], ("resolution", key))) == []
    config, found = KIND.compile(GENESYS_BLOCK, CompileContext(GENESYS.sheet))
    assert found == [] and config == CONFIG


def test_a_config_refuses_what_it_does_not_have() -> None:
    with pytest.raises(UsageError):
        replace(CONFIG, success="zz")
    with pytest.raises(UsageError):
        replace(CONFIG, allow_own_upgrade=True, pool=replace(CONFIG.pool, upgrade=None))
    with pytest.raises(UsageError):
        SymbolCheck(CONFIG, ("nope",), 1)


@pytest.mark.parametrize("needed", [1, 2, 4])
@pytest.mark.parametrize(
    "thrown", ["ability", "ability proficiency difficulty", "proficiency proficiency challenge"]
)
def test_the_folded_group_reads_each_net_as_the_outcome_of_an_unmarked_effect(
    thrown: str, needed: int
) -> None:
    """The group the odds bisect reads a total as ``outcome_of`` reads the unmarked effect
    of that many net successes (none below zero), made without the effect."""
    from dicebound.kinds.symbol_pool.model import Effect, outcome_of
    from dicebound.kinds.symbol_pool.odds import folded

    check = _check(thrown, needed)
    (group,) = folded(check)
    for net in (-2, 0, *group.totals, needed, needed + 3):
        assert group.outcome(net) == outcome_of(check, Effect(net, False, False)), net
