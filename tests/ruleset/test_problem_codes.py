"""Every problem code is a named constant, and every constant is on the docs page.

The codes are stable: clients tell problems apart by them. ``dicebound.problem_codes``
holds each one once, docs/design/problems.md lists them (made by
scripts/gen_problem_codes.py), and every other module of the package names the
constants, never a bare string.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import dicebound
from dicebound import problem_codes
from repo_paths import REPO

ROOT = REPO
SRC = Path(dicebound.__file__).resolve().parent
PAGE = ROOT / "docs" / "design" / "problems.md"

CONSTANTS = {
    name: value
    for name, value in vars(problem_codes).items()
    if name.isupper() and isinstance(value, str)
}

# Every module of the package names the constants; only problem_codes.py spells them,
# and sheet_commands/reasons.py, the other vocabulary: why a sheet command was refused
# (a few of its words are also problem codes, such as "insufficient").
SPELLERS = (
    SRC / "problem_codes.py",
    SRC / "sheet_commands" / "reasons.py",
    SRC / "fight" / "reasons.py",
)
MODULES = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if p not in SPELLERS)

# Where a call takes its problem code: the position of the argument, by the callee's name.
CODE_AT = {
    "Problem": 1,
    "add": 1,
    "unknown_id": None,
    "PaymentRefused": 0,
    "_refuse": 0,
    "_refused_here": 1,
}


def test_each_constant_is_its_own_code_written_once() -> None:
    assert CONSTANTS, "problem_codes holds no constants"
    for name, value in CONSTANTS.items():
        assert name == value.upper().replace("-", "_"), name
    assert len(set(CONSTANTS.values())) == len(CONSTANTS)


def test_each_constant_says_what_it_means() -> None:
    lines = (SRC / "problem_codes.py").read_text(encoding="utf-8").splitlines()
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, ast.Assign):
            above = lines[node.lineno - 2]
            assert above.startswith("#: ") and len(above) > 10, ast.unparse(node)


def test_every_constant_is_listed_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    missing = [code for code in CONSTANTS.values() if f"| `{code}` |" not in page]
    assert not missing, f"not on {PAGE.name}: {missing} (run scripts/gen_problem_codes.py)"


def test_the_page_is_the_generated_one() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_problem_codes.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def _codes_given(tree: ast.AST) -> list[tuple[int, ast.expr]]:
    """Every expression passed as a problem's code in ``tree``, with its line."""
    out: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        for keyword in node.keywords:
            if keyword.arg == "code":
                out.append((node.lineno, keyword.value))
        if name not in CODE_AT:
            continue
        at = CODE_AT[name]
        if at is not None and len(node.args) > at and (name != "add" or len(node.args) == 3):
            out.append((node.lineno, node.args[at]))
    return out


@pytest.mark.parametrize("module", MODULES)
def test_every_code_a_module_gives_is_a_constant(module: str) -> None:
    tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
    bare = []
    for line, expr in _codes_given(tree):
        if isinstance(expr, ast.Constant):
            bare.append(f"{module}:{line}: {expr.value!r}")
        for name in ast.walk(expr):
            if isinstance(name, ast.Name) and name.id.isupper():
                assert name.id in CONSTANTS, f"{module}:{line}: {name.id} is no problem code"
    assert not bare, "bare problem codes (name a problem_codes constant):\n" + "\n".join(bare)


def test_no_module_writes_a_code_as_text() -> None:
    """Not even outside a call: a code is named, not spelled."""
    codes = set(CONSTANTS.values())
    for module in MODULES:
        tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
        spelled = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in codes
        ]
        assert not spelled, f"{module} spells {spelled}"


def test_every_code_anywhere_in_the_package_is_a_constant() -> None:
    """A code given anywhere (a kind, bands, the service...) is one of the constants, so
    the page lists every code a client can meet."""
    codes = set(CONSTANTS.values())
    unknown = []
    for path in sorted(SRC.rglob("*.py")):
        for line, expr in _codes_given(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(expr, ast.Constant) and expr.value not in codes:
                unknown.append(f"{path.relative_to(SRC)}:{line}: {expr.value!r}")
    assert not unknown, "codes missing from problem_codes:\n" + "\n".join(unknown)
