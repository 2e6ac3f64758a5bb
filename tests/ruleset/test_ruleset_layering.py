"""The ruleset's vocabulary sits below everything that uses it.

The compiled model, the spec nodes, value references and the problems they report
import nothing above them (no kind, bands, overrides, sheet, tags, nor the compiler),
so a kind or a reader can use them without pulling in what uses it
(docs/design/problems.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dicebound

SRC = Path(dicebound.__file__).resolve().parent

# Each module of the vocabulary, with the only dicebound modules it may import.
BELOW = {
    "problem_codes.py": set(),
    "problems.py": {"dicebound.problem_codes", "dicebound.values"},
    "ruleset/model.py": {"dicebound.values"},
    "ruleset/spec.py": {"dicebound.problem_codes", "dicebound.problems"},
    "ruleset/refs.py": {
        "dicebound.problem_codes",
        "dicebound.problems",
        "dicebound.ruleset.model",
        "dicebound.ruleset.spec",
        "dicebound.values",
    },
}


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
