"""Campaign (d): coverage-guided fuzzing with atheris (libFuzzer for Python) on the two
readers of outside text: the tag lexer (``parse_tags``) and the ruleset compiler
(``load_ruleset_text``). dicebound's code is instrumented, so atheris steers its
mutations toward branches it has not reached yet.

Each input must return, or raise dicebound's own error; libFuzzer enforces the bounds
(``-timeout=5`` seconds per input, ``-rss_limit_mb=4096``) and writes any crashing input
to ``fuzz/found/``.

Run: ``python fuzz/atheris_targets.py lexer -max_total_time=600`` (or ``compiler``),
or ``-runs=N`` for a count.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["dicebound"]):
    from dicebound.compiler import load_ruleset_text
    from dicebound.edge.files import packaged_rulesets, ruleset_text
    from dicebound.errors import DiceboundError
    from dicebound.tags.parse import parse_tags

HERE = Path(__file__).resolve().parent
SEED_TAGS = [
    '[skill_check: skill="Stealth" dc="15"]',
    "[skill_check: skill='Ward' dc=2 who=\u201cBram the Quiet\u201d]",
    '[skill_check skill="x" dc="1" mode=advantage spend="luck:1"]',
]


def lexer(data: bytes) -> None:
    """The lexer never raises: every tag it finds is a match or a match with an error,
    and the spans never overlap and stay inside the text."""
    text = data.decode("utf-8", errors="surrogateescape" if len(data) % 2 else "replace")
    end = 0
    for match in parse_tags(text):
        start, stop = match.span
        if not end <= start <= stop <= len(text) or text[start:stop] != match.raw:
            raise AssertionError(f"a bad span {match.span} after {end}")
        end = stop


def compiler(data: bytes) -> None:
    """A ruleset text compiles or is refused with its problems."""
    with contextlib.suppress(DiceboundError):
        load_ruleset_text(data.decode("utf-8", errors="replace"))


def seeds(target: str) -> Path:
    """A folder of starting inputs for the target (kept out of git)."""
    folder = HERE / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    starts = SEED_TAGS if target == "lexer" else [ruleset_text(r)[0] for r in packaged_rulesets()]
    for index, text in enumerate(starts):
        (folder / f"seed-{index}").write_text(text, encoding="utf-8")
    return folder


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else ""
    targets = {"lexer": lexer, "compiler": compiler}
    if target not in targets:
        sys.exit("usage: atheris_targets.py lexer|compiler [libFuzzer flags]")
    found = HERE / "found"
    found.mkdir(exist_ok=True)
    flags = [
        "-timeout=5",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={found}/{target}-",
        "-print_final_stats=1",
        *sys.argv[2:],
        str(seeds(target)),
    ]
    atheris.Setup([sys.argv[0], *flags], targets[target])
    atheris.Fuzz()
