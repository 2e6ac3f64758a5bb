"""Regenerate the shipped JSON Schema of a ruleset file from the spec nodes.

    .venv/bin/python scripts/gen_schema.py          write src/dicebound/data/ruleset.schema.json
    .venv/bin/python scripts/gen_schema.py --check  exit 1 if the shipped copy is out of date

The shipped copy is what ``dicebound schema`` prints, kept as a file so an editor can
point a ruleset's ``$schema`` at it; ``tests/ruleset/test_schema.py`` fails when it drifts from
``ruleset_json_schema()`` (a kind added or a key changed), and this script mends it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dicebound.compiler.schema import ruleset_json_schema

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "dicebound" / "data" / "ruleset.schema.json"


def schema_text() -> str:
    """The schema as the shipped file holds it (and ``dicebound schema`` prints it)."""
    return json.dumps(ruleset_json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = schema_text()
    if argv == ["--check"]:
        current = SHIPPED.read_text(encoding="utf-8") if SHIPPED.is_file() else ""
        if current != text:
            print(f"{SHIPPED} is out of date: run scripts/gen_schema.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: gen_schema.py [--check]", file=sys.stderr)
        return 2
    SHIPPED.write_text(text, encoding="utf-8")
    print(f"wrote {SHIPPED} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
