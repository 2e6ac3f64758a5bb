"""Regenerate the shipped JSON Schemas: a ruleset file's from the spec nodes, a check's
answer from ``check_schema.CHECK_MEMBERS``.

    .venv/bin/python scripts/gen_schema.py          write src/dicebound/data/*.schema.json
    .venv/bin/python scripts/gen_schema.py --check  exit 1 if a shipped copy is out of date

The shipped copies are what ``dicebound schema`` prints (``--output check`` for the
second), kept as files so an editor can point a ruleset's ``$schema`` at one and a
program can validate an answer with the other; ``tests/ruleset/test_schema.py`` and
``tests/edge/cli/test_check_schema.py`` fail when one drifts from the code, and this
script mends it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicebound.check_schema import check_json_schema
from dicebound.compiler.schema import ruleset_json_schema

DATA = Path(__file__).resolve().parents[1] / "src" / "dicebound" / "data"
SHIPPED: dict[Path, Callable[[], dict[str, Any]]] = {
    DATA / "ruleset.schema.json": ruleset_json_schema,
    DATA / "check.schema.json": check_json_schema,
}


def schema_text(schema: Callable[[], dict[str, Any]] = ruleset_json_schema) -> str:
    """A schema as the shipped file holds it (and ``dicebound schema`` prints it)."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: gen_schema.py [--check]", file=sys.stderr)
        return 2
    stale = 0
    for path, schema in SHIPPED.items():
        text = schema_text(schema)
        if argv == ["--check"]:
            current = path.read_text(encoding="utf-8") if path.is_file() else ""
            if current != text:
                print(f"{path} is out of date: run scripts/gen_schema.py", file=sys.stderr)
                stale = 1
            continue
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({len(text)} characters)")
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
