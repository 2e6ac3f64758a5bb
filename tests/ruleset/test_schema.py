"""The JSON Schema of a ruleset file (``dicebound schema``, shipped as package data).

The schema is generated from the same spec nodes that check a file at import, so it
names every kind the registry builds. What it must do for an editor: accept every file
import accepts (every packaged ruleset, the three Marinara rulesets, a sample of each
kind), and refuse only files import refuses too (a table of broken files, and a
property over random one-change edits of valid files).
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError, best_match

from budget import examples
from dicebound.compiler import compile_ruleset
from dicebound.compiler.schema import ruleset_json_schema
from dicebound.edge.cli import main
from dicebound.errors import RulesetInvalid
from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler
from dicebound.problems import PathPart, Problem
from kind_samples import KIND_BLOCKS, PACKAGED, ruleset_of_kind
from repo_paths import REPO
from ruleset_edits import CASES, Edit, drop, parts, put, rename

DATA = REPO / "src" / "dicebound" / "data"
MARINARA = ("ember-roads.json", "gravewatch.json", "ruleset-5e-2014.example.json")

SCHEMA = ruleset_json_schema()
VALIDATOR = Draft7Validator(SCHEMA)


def built() -> list[str]:
    return [k for k in KNOWN_KINDS if kind_compiler(k) is not None]


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return loaded


def _schema_errors(doc: object) -> list[ValidationError]:
    """Every error the schema gives, the ones inside anyOf branches included."""

    def walk(errors: list[ValidationError]) -> Iterator[ValidationError]:
        for error in errors:
            yield error
            yield from walk(list(error.context or ()))

    return list(walk(list(VALIDATOR.iter_errors(doc))))


def _faults(doc: object) -> list[str]:
    """The schema's errors as ``path: message``; for a failed anyOf, the errors of the
    branch whose tag (a kind, a field type) matched, else of the best match."""

    def shown(error: ValidationError) -> list[ValidationError]:
        if not error.context:
            return [error]
        branches: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        for subs in branches.values():
            if not any(e.validator == "const" for e in subs):
                return [deeper for sub in subs for deeper in shown(sub)]
        best = best_match(error.context)
        return [best] if best is not None else [error]

    out = []
    for error in VALIDATOR.iter_errors(doc):
        for e in shown(error):
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
            out.append(f"${where}: {e.message[:300]}")
    return out


def _import_problems(doc: object) -> list[Problem]:
    try:
        compile_ruleset(doc)
    except RulesetInvalid as exc:
        return list(exc.problems)
    return []


# -- the schema itself ----------------------------------------------------------------


def test_the_schema_is_a_valid_draft_07_schema() -> None:
    Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert SCHEMA["title"]


def test_the_shipped_copy_is_what_the_spec_gives_now() -> None:
    shipped = resources.files("dicebound.data") / "ruleset.schema.json"
    assert json.loads(shipped.read_text("utf-8")) == SCHEMA, (
        "src/dicebound/data/ruleset.schema.json is out of date: run "
        ".venv/bin/python scripts/gen_schema.py"
    )


def test_dicebound_schema_prints_it() -> None:
    out = io.StringIO()
    assert main(["schema"], out=out) == 0
    assert json.loads(out.getvalue()) == SCHEMA


def test_the_resolution_block_offers_every_kind_the_registry_builds() -> None:
    """Generated from the registry: one branch per built kind, in the page's order."""
    branches = SCHEMA["properties"]["resolution"]["anyOf"]
    assert [b["properties"]["kind"]["const"] for b in branches] == built()
    assert set(built()) == set(KIND_BLOCKS), "give every built kind a sample ruleset here"


def test_an_editor_may_write_schema_and_comments_at_the_root() -> None:
    doc = ruleset_of_kind("dice-sum")
    doc = {"$schema": "./ruleset.schema.json", "$comment": "mine", **doc}
    assert _schema_errors(doc) == []
    assert _import_problems(doc) == []


# -- every file import accepts, the schema accepts ------------------------------------


@pytest.mark.parametrize("path", PACKAGED, ids=[p.stem for p in PACKAGED])
def test_every_packaged_ruleset_fits_the_schema(path: Path) -> None:
    doc = _load(path)
    assert _faults(doc) == []


@pytest.mark.parametrize("name", MARINARA)
def test_the_marinara_rulesets_fit_the_schema(name: str, marinara_dir: Path) -> None:
    doc = _load(marinara_dir / name)
    assert _faults(doc) == []


@pytest.mark.parametrize("kind", sorted(KIND_BLOCKS))
def test_a_sample_of_every_kind_fits_the_schema(kind: str) -> None:
    doc = ruleset_of_kind(kind)
    assert _import_problems(doc) == []
    assert _faults(doc) == []


@pytest.mark.parametrize("path", sorted(CASES.glob("ruleset_*.json")), ids=lambda p: p.stem)
def test_the_test_rulesets_fit_the_schema(path: Path) -> None:
    doc = _load(path)
    assert _import_problems(doc) == []
    assert _faults(doc) == []


# -- what the schema refuses, import refuses ------------------------------------------

# (id, start, the one change, where both must see it: the key itself, or the object
# that lacks a key or holds an unknown one)
REFUSED: list[tuple[str, str, Edit, str]] = [
    ("an unknown top-level key", "dice-sum", put("rulez", 1), ""),
    (
        "a misspelt resolution key",
        "dice-sum",
        rename("resolution.difficultyLadder", "difficultyLader"),
        "resolution",
    ),
    ("schemaVersion is 1", "dice-sum", put("schemaVersion", 2), "schemaVersion"),
    ("the id is kebab-case", "dice-sum", put("id", "Bad Id"), "id"),
    ("version is a whole number, not text", "dice-sum", put("version", "1"), "version"),
    ("version is at least 1", "dice-sum", put("version", 0), "version"),
    ("name is at most 80 characters", "dice-sum", put("name", "x" * 81), "name"),
    ("gm is required", "dice-sum", drop("gm"), ""),
    ("coverage needs a summary", "dice-sum", drop("coverage.summary"), "coverage"),
    ("gm.checkGuidance is text", "dice-sum", put("gm.checkGuidance", 5), "gm.checkGuidance"),
    ("an unknown kind", "dice-sum", put("resolution.kind", "dice-summ"), "resolution.kind"),
    (
        "dice.count is 1 to 10",
        "dice-sum",
        put("resolution.dice.count", 11),
        "resolution.dice.count",
    ),
    (
        "a ladder step needs a label",
        "dice-sum",
        drop("resolution.difficultyLadder[0].label"),
        "resolution.difficultyLadder[0]",
    ),
    (
        "the ladder has a step",
        "dice-sum",
        put("resolution.difficultyLadder", []),
        "resolution.difficultyLadder",
    ),
    (
        "an ability id is snake_case",
        "dice-sum",
        put("sheet.abilities[0].id", "Grit"),
        "sheet.abilities[0].id",
    ),
    (
        "an ability's min is a number",
        "dice-sum",
        put("sheet.abilities[0].min", "0"),
        "sheet.abilities[0].min",
    ),
    (
        "untrained is normal, harder, refuse or by",
        "dice-sum",
        put("sheet.sections[0].untrained", "never"),
        "sheet.sections[0].untrained",
    ),
    (
        "a tier is listed once",
        "dice-sum",
        put("sheet.skillTiers", ["trained", "trained"]),
        "sheet.skillTiers",
    ),
    ("a dice-pool needs its target", "dice-pool", drop("resolution.target"), "resolution"),
    (
        "a dice-pool step needs whole successes",
        "dice-pool",
        put("resolution.difficultyLadder[0].successes", 1.5),
        "resolution.difficultyLadder[0].successes",
    ),
    (
        "a symbol pool holds at most 12 dice",
        "symbol-pool",
        put("resolution.pool.max", 13),
        "resolution.pool.max",
    ),
    (
        "a step-pool's training count is a number",
        "step-pool",
        put("resolution.training.count", "two"),
        "resolution.training.count",
    ),
    (
        "against is at-most or at-least",
        "roll-against",
        put("resolution.against", "below"),
        "resolution.against",
    ),
    (
        "dice-highest has no dice key (that is dice-sum's)",
        "dice-highest",
        put("resolution.dice", {"count": 1, "sides": 6}),
        "resolution",
    ),
    (
        "a layer's ladder steps fit the kind",
        "dice-sum",
        put(
            "layers",
            [{"id": "grim", "label": "Grim", "difficultyLadder": [{"label": "X", "dc": "high"}]}],
        ),
        "layers[0].difficultyLadder[0].dc",
    ),
    (
        "a packaged ruleset's skill names its ability by id",
        "dnd5e-srd",
        put("sheet.skills[0].ability", 3),
        "sheet.skills[0].ability",
    ),
]


def _start(name: str) -> dict[str, Any]:
    if name in KIND_BLOCKS:
        return ruleset_of_kind(name)
    return _load(DATA / "rulesets" / f"{name}.json")


@pytest.mark.parametrize(
    ("start", "edit", "at"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_what_the_schema_refuses_import_refuses(start: str, edit: Edit, at: str) -> None:
    doc = _start(start)
    edit(doc)
    where: list[PathPart] = parts(at)
    schema_paths = [list(e.absolute_path) for e in _schema_errors(doc)]
    assert where in schema_paths, f"the schema says nothing at {at or '$'}: {schema_paths}"
    problems = _import_problems(doc)
    assert problems, "import accepted a file the schema refuses"
    assert any(list(p.path[: len(where)]) == where for p in problems), [str(p) for p in problems]


# Random one-change edits of valid files: whatever the schema refuses, import refuses.

_STARTS = [*(ruleset_of_kind(k) for k in sorted(KIND_BLOCKS)), *(_load(p) for p in PACKAGED)]
_VALUES = st.sampled_from(
    [None, True, False, 0, -1, 3, 1.5, 10**6, "", "x", "Bad Id", "dice-sum", [], [1], {}, {"a": 1}]
)


def _paths(node: object, here: tuple[PathPart, ...] = ()) -> Iterator[tuple[PathPart, ...]]:
    if here:
        yield here
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*here, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*here, i))


@st.composite
def _edited(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(_STARTS)))
    path = draw(st.sampled_from(list(_paths(doc))))
    parent: Any = doc
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    how = draw(st.sampled_from(["replace", "drop", "add-key"]))
    if how == "drop" and isinstance(parent, dict):
        del parent[last]
    elif how == "add-key" and isinstance(parent[last], dict):
        parent[last][draw(st.sampled_from(["bogus", "Label", "$comment"]))] = draw(_VALUES)
    else:
        parent[last] = draw(_VALUES)
    return doc


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edited())
def test_any_edit_the_schema_refuses_import_refuses(doc: dict[str, Any]) -> None:
    if not VALIDATOR.is_valid(doc):
        assert _import_problems(doc), "import accepted a file the schema refuses"
