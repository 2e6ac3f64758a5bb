"""Read the examples out of a Markdown page and run them (tests/project/test_docs_examples.py).

The convention (docs/about-these-docs.md says it for authors):

- A fence's language says what it is. ``json`` is validated, ``console`` holds commands
  after ``$ `` with the output they print below them, ``sh`` holds commands whose output
  is not shown, ``python`` is executed. A fence with no language, or ``text``, is a
  picture (a synopsis, a diagram, a report's table) and is not run. Any other language
  is a mistake, so nothing is skipped by accident.
- An HTML comment right before a fence, ``<!-- test: WORDS -->``, says more, in
  ``key=value`` words (values may be quoted):

  ``file=NAME``         write the block into the page's folder as NAME (later blocks use it)
  ``at=PATH base=B``    a JSON fragment: placed at PATH (``resolution.outcomes``) inside the
                        ruleset B (a file written earlier on the page, or a packaged id),
                        and the whole validated; with ``file=`` the whole is written there
  ``ruleset=R``         a JSON character file, loaded against the ruleset R
  ``invalid``           the ruleset (or fragment) must be refused
  ``exit=N``            the commands of the block end with exit code N (default 0)
  ``dicebound-only``    of each ``A && B`` line run only the parts that call dicebound
                        (the README's quick start installs first; the suite is installed)
  ``skip="REASON"``     not run, with the reason (a JSON block is still parsed)

- Commands run in a fresh folder per page, where the page's files are written, with the
  project's ``src`` and ``.venv`` linked in (so ``.venv/bin/dicebound`` and
  ``src/dicebound/data/...`` mean what they mean at the root of a checkout) and ``$HOME``
  pointing at the folder. A plain ``dicebound ARGS`` runs in-process through
  ``dicebound.edge.cli.main``, the function the ``dicebound`` script calls, because a
  process start costs half a second; a command with any shell syntax runs in bash with
  the venv's ``bin`` first on ``PATH``. ``DICEBOUND_DOCS_SUBPROCESS=1`` runs every command
  through the venv's binary.
- Output is compared line by line, trailing spaces ignored. A line ``...`` in the shown
  output stands for any number of lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# ts: the TypeScript client's snippets (docs/client-typescript.md), not run here: the
# client's own tests (clients/typescript/test/) run its example and every call
LANGUAGES = {"json", "console", "sh", "python", "", "text", "ts"}
_DIRECTIVE = re.compile(r"<!--\s*test:(?P<words>.*?)-->\s*$", re.DOTALL)
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")


@dataclass
class Block:
    """One fenced block of a page: where it is, its language, its text and its directive."""

    page: str
    line: int
    lang: str
    text: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def parse_directive(words: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for word in shlex.split(words):
        key, _, value = word.partition("=")
        options[key] = value
    return options


def blocks_of(page: str, text: str) -> list[Block]:
    """Every fenced block of a Markdown text, with the directive written right before it."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    pending: dict[str, str] | None = None
    comment: list[str] = []
    while i < len(lines):
        line = lines[i]
        if comment or line.lstrip().startswith("<!--"):
            comment.append(line)
            joined = "\n".join(comment)
            if "-->" in line:
                match = _DIRECTIVE.search(joined.strip())
                pending = parse_directive(match["words"]) if match else None
                comment = []
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            indent, start = len(fence["indent"]), i
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i][indent:])
                i += 1
            found.append(
                Block(page, start + 1, fence["lang"], "\n".join(body) + "\n", pending or {})
            )
            pending = None
        elif line.strip():
            pending = None
        i += 1
    return found


# ── commands ─────────────────────────────────────────────────────────────────


@dataclass
class Command:
    line: str
    expected: list[str] | None  # None: the page shows no output


def commands_of(block: Block) -> list[Command]:
    """The commands of a console or sh block, each with the output the page shows."""
    commands: list[Command] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if block.lang == "console" and not line.startswith("$ "):
            if commands and commands[-1].expected is not None:
                commands[-1].expected.append(line)
                i += 1
                continue
            raise AssertionError(f"{block.name}: output before any command: {line!r}")
        text = line[2:] if block.lang == "console" else line
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        text = text.strip()
        if block.lang == "sh":
            text = re.sub(r"\s+#.*$", "", text) if not text.startswith("#") else ""
            if not text:
                continue
        commands.append(Command(text, [] if block.lang == "console" else None))
    return commands


_SHELLY = re.compile(r"[$`*?~|&;<>(){}]")


def is_plain(line: str) -> bool:
    """A bare ``dicebound ARGS`` with no shell syntax outside single quotes."""
    outside = re.sub(r"'[^']*'", "''", line)
    if _SHELLY.search(outside) or "[" in outside:
        return False
    try:
        first = shlex.split(line)[0]
    except (ValueError, IndexError):
        return False
    return first in ("dicebound", ".venv/bin/dicebound")


def dicebound_parts(line: str) -> str:
    parts = [p.strip() for p in line.split("&&")]
    kept = [p for p in parts if shlex.split(p)[0].endswith("dicebound")]
    return " && ".join(kept)


_NEVER_RUN = re.compile(r"(^|&&\s*|\s)(\S*/)?(pip3?|curl)\s|dicebound\s+(serve|mcp)\b")


def never_run(line: str) -> bool:
    """An install, a request to a server or a server that runs until stopped: such a block
    must say ``skip="REASON"`` (the runner refuses it rather than hang or install)."""
    return _NEVER_RUN.search(line) is not None


def run_command(line: str, where: Path) -> tuple[int, str]:
    """Run one command line in ``where``; its exit code and what it printed."""
    if is_plain(line) and not os.environ.get("DICEBOUND_DOCS_SUBPROCESS"):
        from dicebound.edge.cli import main

        out, err = io.StringIO(), io.StringIO()
        before = Path.cwd()
        os.chdir(where)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(shlex.split(line)[1:])
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os.chdir(before)
        return code, out.getvalue() + err.getvalue()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["HOME"] = str(where)
    env.pop("DICEBOUND_DB", None)
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def output_matches(expected: list[str], got: str) -> bool:
    want = [line.rstrip() for line in expected]
    have = [line.rstrip() for line in got.rstrip("\n").splitlines()]
    while want and not want[-1]:
        want.pop()
    pattern = "\n".join(".*?" if w == "..." else re.escape(w) for w in want)
    pattern = pattern.replace("\n.*?\n", "(?:\n.*?)?\n")
    return re.fullmatch(pattern, "\n".join(have), flags=re.DOTALL) is not None


# ── JSON ─────────────────────────────────────────────────────────────────────


def ruleset_json(where: str, folder: Path) -> Any:
    """A ruleset named by a page: a file in the page's folder, or a packaged id."""
    path = folder / where
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    packaged = ROOT / "src" / "dicebound" / "data" / "rulesets" / f"{where}.json"
    return json.loads(packaged.read_text(encoding="utf-8"))


def place(base: Any, at: str, value: Any) -> Any:
    """``base`` with ``value`` at the dotted path ``at`` (a list index is a number)."""
    whole = json.loads(json.dumps(base))
    parts = at.split(".")
    node = whole
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return whole


def page_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("src", ".venv"):
        link = folder / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    return folder
