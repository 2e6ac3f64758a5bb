"""The 21 refusal reasons: exactly the words of the sheet-command contract, each written
once (in ``sheet_commands/reasons.py``) and named everywhere else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import dicebound.sheet_commands
from dicebound.sheet_commands import reasons
from shared_files import shared_path

PACKAGE = Path(dicebound.sheet_commands.__file__).resolve().parent


def test_the_reasons_are_the_contracts_table_in_its_order() -> None:
    page = shared_path("SHEET.md").read_text(encoding="utf-8")
    table = page[page.index("### 3.11 Every refusal reason") :].split("\n---")[0]
    written = re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE)
    assert tuple(written) == reasons.REASONS and len(written) == 21


def test_each_constant_is_its_own_reason() -> None:
    for word in reasons.REASONS:
        assert getattr(reasons, word.upper().replace("-", "_")) == word


def test_no_other_sheet_module_spells_a_reason() -> None:
    words = set(reasons.REASONS)
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "reasons.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        spelled = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in words
        ]
        assert not spelled, f"{path.name} spells {spelled}"
