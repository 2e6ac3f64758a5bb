"""Campaign (b): ruleset files, mutated. Every packaged ruleset (and Marinara's three
when ``../shared`` is beside the project) is mutated by structure (``mutate.py``) and
imported; a mutation that still imports is played: what ``gm`` teaches, then a check
and its exact odds for a packaged character, where it has one.

Each input must give a result or dicebound's own error within the harness's bounds.

Run: ``python fuzz/rulesets.py --count 400000`` (a full run: over 20,000 of each) or
``--seconds 10``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import budget_arguments, finish, run
from mutate import base_characters, base_rulesets, mutated_text

from dicebound.character import load_character
from dicebound.compiler import load_ruleset_text
from dicebound.jsontext import read_json
from dicebound.lesson import gm_lesson, rollable_target
from dicebound.odds import check_odds
from dicebound.tagpass import resolve_text

BASES = base_rulesets()
CHARACTERS = base_characters()


def inputs(seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    names = sorted(BASES)
    while True:
        for name in names:  # every base in turn, so each gets its share
            yield f"{name}\x1f{mutated_text(rng, BASES[name])}"


def play(entry: str) -> str:
    name, _, text = entry.partition("\x1f")
    ruleset = load_ruleset_text(text)
    gm_lesson(ruleset)
    files = [t for key, (rid, t) in CHARACTERS.items() if rid == name]
    if not files:
        return "imported"
    raw, _ = read_json(files[0])
    character = load_character(ruleset, raw)
    target = rollable_target(ruleset, character)
    tag = f'[skill_check: skill="{target}" dc="3"]'
    resolve_text(ruleset, [character], tag, seed="fuzz")
    check_odds(ruleset, character, tag)
    return "imported and played"


if __name__ == "__main__":
    args = budget_arguments(__doc__.splitlines()[0])
    print(f"bases: {len(BASES)} ({', '.join(sorted(BASES))})")
    figures = run("rulesets", inputs(args.seed), play, seconds=args.seconds, count=args.count)
    sys.exit(finish(figures))
