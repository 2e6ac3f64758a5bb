"""Regenerate docs/design/problems.md, the page listing every problem code, from
``dicebound.problem_codes``.

    .venv/bin/python scripts/gen_problem_codes.py          write docs/design/problems.md
    .venv/bin/python scripts/gen_problem_codes.py --check  exit 1 if the page is out of date

Each code is read with the ``#:`` comment above its constant, which says what it means;
``tests/ruleset/test_problem_codes.py`` fails when the page and the module drift apart.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "src" / "dicebound" / "problem_codes.py"
PAGE = ROOT / "docs" / "design" / "problems.md"

HEAD = """\
# Problems and their codes

A ruleset file or a character file that dicebound refuses comes back with every
problem found, not the first one. Each problem is three things (`dicebound.problems`):

- a **path** into the submitted JSON, written the way an author reads it:
  `resolution.difficultyLadder[2].dc`, or `$` for the document itself;
- a stable **code**, below, that a client can tell problems apart by;
- one plain **sentence** that says what is wrong and, where it can, what to write
  instead (an unknown name gets a "Did you mean" when a known one is close).

A ruleset's problems are listed in the order their places come in the file, keys as
written; a character file's by path. The sentences may be reworded between versions;
the codes do not change.

## Where they are made

- `dicebound/problem_codes.py` holds every code as a named constant with a one-line
  meaning; this page is generated from it (`scripts/gen_problem_codes.py`).
- `dicebound/problems.py` holds the `Problem` value and the few factories most
  problems are built by: an unknown name with its "did you mean"
  (`unknown_id`), an unknown key (`unknown_key`), a value of the wrong type
  (`wrong_type`), a number out of its range (`too_small`, `too_large`,
  `min_above_max`, `out_of_range`), a missing key (`missing_key`), a list column
  that is not there (`not_a_column`).
- `dicebound/ruleset/spec.py` checks the shape of a file with spec nodes (types,
  ranges, required and unknown keys); the shape of a ruleset is in
  `compiler/schema.py`, the shape of a character file in `character_schema.py`.
- The cross-checks a shape cannot say (names that must exist, order, rules that could
  never fire) are the compiler's passes (`compiler/passes/`), each kind's own compile
  (`kinds/`), and the character file's checks against its ruleset (`character.py`).

## Every code

| Code | Constant | What it means |
| --- | --- | --- |
"""


def codes() -> list[tuple[str, str, str]]:
    """``(code, constant, meaning)`` for every constant, in the module's order."""
    lines = MODULE.read_text(encoding="utf-8").splitlines()
    out: list[tuple[str, str, str]] = []
    for node in ast.parse("\n".join(lines)).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)):
            continue
        target = node.targets[0]
        assert isinstance(target, ast.Name)
        comment = lines[node.lineno - 2].strip()
        meaning = comment[3:] if comment.startswith("#: ") else ""
        out.append((str(node.value.value), target.id, meaning))
    return out


def page_text() -> str:
    rows = [f"| `{code}` | `{name}` | {meaning} |" for code, name, meaning in codes()]
    return HEAD + "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    text = page_text()
    if argv == ["--check"]:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != text:
            print(f"{PAGE} is out of date: run scripts/gen_problem_codes.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: gen_problem_codes.py [--check]", file=sys.stderr)
        return 2
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
