"""Every example in docs/ and README.md runs: JSON validated, commands executed and their
shown output compared, Python executed (the convention: tests/docs_examples.py).

A page's blocks run in order in one folder (a later command reads a file an earlier
block wrote), so each page is one test; a failure names the page, the line of the
block and what differed, and the page's other blocks still run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dicebound.character import load_character
from dicebound.compiler import load_ruleset_text
from dicebound.errors import CharacterInvalid, RulesetInvalid
from docs_examples import (
    LANGUAGES,
    ROOT,
    Block,
    blocks_of,
    commands_of,
    dicebound_parts,
    never_run,
    output_matches,
    page_folder,
    place,
    ruleset_json,
    run_command,
)

PAGES = sorted(
    [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")] + ["README.md"]
)


def _validate(block: Block, text: str, invalid: bool) -> list[str]:
    try:
        load_ruleset_text(text)
    except RulesetInvalid as exc:
        if invalid:
            return []
        return [f"{block.name}: the ruleset is refused:\n" + "\n".join(map(str, exc.problems))]
    return [f"{block.name}: marked invalid, but the ruleset is valid"] if invalid else []


def _json_block(block: Block, folder: Path) -> list[str]:
    opts = block.options
    try:
        value = json.loads(block.text)
    except json.JSONDecodeError as exc:
        return [f"{block.name}: not JSON: {exc}"]
    if "skip" in opts:
        return []
    out = folder / opts["file"] if "file" in opts else None
    if "at" in opts:
        if "base" not in opts:
            return [f"{block.name}: a fragment (at=) needs base="]
        whole = place(ruleset_json(opts["base"], folder), opts["at"], value)
        text = json.dumps(whole, indent=2, ensure_ascii=False) + "\n"
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        return _validate(block, text, "invalid" in opts)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(block.text, encoding="utf-8")
    if "ruleset" in opts:
        try:
            ruleset = load_ruleset_text(json.dumps(ruleset_json(opts["ruleset"], folder)))
            load_character(ruleset, value)
        except (RulesetInvalid, CharacterInvalid) as exc:
            return [f"{block.name}: the character is refused: {exc}"]
        return []
    if isinstance(value, dict) and "schemaVersion" in value:
        return _validate(block, block.text, "invalid" in opts)
    return [
        f"{block.name}: a JSON block that is not a whole ruleset needs a directive "
        "(at= base= for a fragment, ruleset= for a character, or skip=REASON)"
    ]


def _command_block(block: Block, folder: Path) -> list[str]:
    problems: list[str] = []
    want_exit = int(block.options.get("exit", "0"))
    for command in commands_of(block):
        line = command.line
        if "dicebound-only" in block.options:
            line = dicebound_parts(line)
            if not line:
                problems.append(f"{block.name}: no dicebound command in {command.line!r}")
                continue
        if never_run(line):
            problems.append(f"{block.name}: `{line}` installs or serves: mark it skip=REASON")
            continue
        code, printed = run_command(line, folder)
        if code != want_exit:
            problems.append(
                f"{block.name}: `{line}` exited {code}, not {want_exit}:\n{printed[-2000:]}"
            )
        elif command.expected is not None and not output_matches(command.expected, printed):
            shown = "\n".join(command.expected)
            problems.append(
                f"{block.name}: `{line}` printed\n{printed}\n--- but the page shows ---\n{shown}"
            )
    return problems


def _python_block(block: Block, folder: Path, namespace: dict[str, object]) -> list[str]:
    if "file" in block.options:
        (folder / block.options["file"]).write_text(block.text, encoding="utf-8")
        return []
    before = Path.cwd()
    os.chdir(folder)
    try:
        exec(compile(block.text, block.name, "exec"), namespace)
    except Exception as exc:
        return [f"{block.name}: {type(exc).__name__}: {exc}"]
    finally:
        os.chdir(before)
    return []


def run_page(page: str, folder: Path, text: str | None = None) -> list[str]:
    """Run every block of a page (``text``, or the file ``page`` under the root)."""
    page_folder(folder)
    problems: list[str] = []
    namespace: dict[str, object] = {"__name__": "__docs__"}
    if text is None:
        text = (ROOT / page).read_text(encoding="utf-8")
    for block in blocks_of(page, text):
        if block.lang not in LANGUAGES:
            problems.append(f"{block.name}: unknown fence language {block.lang!r}")
            continue
        if "skip" in block.options and not block.options["skip"].strip():
            problems.append(f'{block.name}: skip needs a reason: skip="..."')
            continue
        if block.lang == "json":
            problems += _json_block(block, folder)
        elif "skip" in block.options:
            continue
        elif block.lang in ("console", "sh"):
            problems += _command_block(block, folder)
        elif block.lang == "python":
            problems += _python_block(block, folder, namespace)
        elif "file" in block.options:
            (folder / block.options["file"]).write_text(block.text, encoding="utf-8")
    return problems


@pytest.mark.parametrize("page", PAGES)
def test_every_example_on_the_page_runs(page: str, tmp_path: Path) -> None:
    problems = run_page(page, tmp_path)
    assert not problems, "\n\n".join(problems)


BROKEN_PAGE = """
```console
$ dicebound odds --ruleset dnd5e-srd --character mira 'skill="Stealth" dc="15"'
Stealth for Mira Quickfoot: 1d20+9 against 15
  Success                80.00%  (4/5)
```

```json
{"by": "total", "tiers": []}
```

<!-- test: at=resolution.outcomes base=dnd5e-srd invalid -->
```json
{"by": "margin", "tiers": [{"id": "a", "label": "A", "atLeast": 0, "success": true}, {"id": "b", "label": "B"}]}
```

```yaml
key: value
```

<!-- test: skip="" -->
```sh
dicebound rulesets
```

```sh
pip install dicebound
dicebound validate nothing-by-that-name
```

```python
assert 1 + 1 == 3
```
"""


def test_a_page_that_disagrees_with_the_code_fails_and_says_where(tmp_path: Path) -> None:
    problems = run_page("broken.md", tmp_path, BROKEN_PAGE)
    said = "\n".join(problems)
    assert "broken.md:2: `dicebound odds" in said and "but the page shows" in said
    assert "broken.md:8: a JSON block that is not a whole ruleset needs a directive" in said
    assert "broken.md:13: marked invalid, but the ruleset is valid" in said
    assert "broken.md:17: unknown fence language 'yaml'" in said
    assert "broken.md:22: skip needs a reason" in said
    assert "broken.md:26: `pip install dicebound` installs or serves" in said
    assert "broken.md:26: `dicebound validate nothing-by-that-name` exited 2" in said
    assert "broken.md:31: AssertionError" in said
    assert len(problems) == 8, said


def test_elided_output_matches_any_lines_in_between() -> None:
    assert output_matches(["a", "...", "d"], "a\nb\nc\nd\n")
    assert output_matches(["a", "...", "d"], "a\nd\n")
    assert not output_matches(["a", "...", "d"], "a\nb\nc\n")
    assert not output_matches(["a", "b"], "a\nb\nc\n")


def test_the_readme_quick_start_runs_through_the_venvs_own_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The in-process shortcut must not hide a broken entry point: this one runs the
    # README's first block exactly, through the venv's `dicebound` script.
    readme = blocks_of("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))
    first = next(b for b in readme if b.lang == "sh")
    assert "dicebound-only" in first.options
    line = dicebound_parts(commands_of(first)[0].line)
    assert line.startswith(".venv/bin/dicebound check --ruleset dnd5e-srd --character mira")
    monkeypatch.setenv("DICEBOUND_DOCS_SUBPROCESS", "1")
    code, printed = run_command(line, page_folder(tmp_path))
    assert code == 0, printed
    assert "Stealth check — Mira Quickfoot" in printed
