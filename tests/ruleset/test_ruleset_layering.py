"""The ruleset's vocabulary sits below everything that uses it; the compiler above.

The compiled model, the spec nodes, value references and the problems they report
import nothing above them (no kind, bands, overrides, sheet, tags, nor the compiler),
so a kind or a reader can use them without pulling in what uses it
(docs/design/problems.md). The compiler (``dicebound.compiler``) may import the
vocabulary and the kinds; neither the vocabulary nor the kinds import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dicebound

SRC = Path(dicebound.__file__).resolve().parent

# Each module of the vocabulary, with the only dicebound modules it may import.
BELOW = {
    "folding.py": set(),  # names folded for comparison: a leaf, below the model
    "problem_codes.py": set(),
    "problems.py": {"dicebound.problem_codes", "dicebound.values"},
    "ruleset/__init__.py": set(),
    "ruleset/model.py": {
        "dicebound.folding",
        "dicebound.ruleset.combat",
        "dicebound.ruleset.reference",
        "dicebound.values",
    },
    "ruleset/reference.py": {"dicebound.values"},
    "ruleset/combat/__init__.py": {
        "dicebound.ruleset.combat.block",
        "dicebound.ruleset.combat.catalog",
        "dicebound.ruleset.combat.effects",
        "dicebound.ruleset.combat.sources",
    },
    "ruleset/combat/block.py": {
        "dicebound.ruleset.combat.catalog",
        "dicebound.ruleset.combat.effects",
        "dicebound.ruleset.combat.sources",
        "dicebound.ruleset.reference",
        "dicebound.values",
    },
    "ruleset/combat/catalog.py": {"dicebound.ruleset.reference", "dicebound.values"},
    "ruleset/combat/effects.py": {"dicebound.values"},
    "ruleset/combat/sources.py": {"dicebound.ruleset.reference", "dicebound.values"},
    "ruleset/spec.py": {"dicebound.problem_codes", "dicebound.problems"},
    "ruleset/refs.py": {
        "dicebound.problem_codes",
        "dicebound.problems",
        "dicebound.ruleset.model",
        "dicebound.ruleset.reference",
        "dicebound.ruleset.spec",
        "dicebound.values",
    },
}

# The vocabulary is exactly the modules listed: a new one in ruleset/ is placed on purpose.
VOCABULARY = sorted(p.relative_to(SRC).as_posix() for p in (SRC / "ruleset").rglob("*.py"))

# Packages that sit below the compiler: none of their modules imports it.
BELOW_THE_COMPILER = ("ruleset", "kinds")


def _imports(path: Path) -> set[str]:
    """The dicebound modules ``path`` imports, anywhere in it (lazily too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {name for name in out if name.split(".")[0] == "dicebound"}


@pytest.mark.parametrize("module", sorted(BELOW))
def test_the_vocabulary_imports_nothing_above_it(module: str) -> None:
    above = _imports(SRC / module) - BELOW[module]
    assert not above, f"{module} imports {sorted(above)}, which sit above it"


def test_the_ruleset_package_holds_only_the_vocabulary() -> None:
    assert [m for m in VOCABULARY if m not in BELOW] == []


@pytest.mark.parametrize(
    "module",
    sorted(
        p.relative_to(SRC).as_posix()
        for package in BELOW_THE_COMPILER
        for p in (SRC / package).rglob("*.py")
    ),
)
def test_nothing_below_the_compiler_imports_it(module: str) -> None:
    up = {
        name
        for name in _imports(SRC / module)
        if name == "dicebound.compiler" or name.startswith("dicebound.compiler.")
    }
    assert not up, f"{module} imports {sorted(up)}, the compiler that sits above it"
