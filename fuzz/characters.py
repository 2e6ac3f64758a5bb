"""Campaign (c): character files, mutated. Every packaged character is mutated by
structure (``mutate.py``), loaded against its ruleset, and played: its sheet summary,
a check of the first thing it can roll, with a spend where the ruleset has one, and the
check's exact odds.

Each input must give a result or dicebound's own error within the harness's bounds.

Run: ``python fuzz/characters.py --count 400000`` (a full run) or ``--seconds 10``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import budget_arguments, finish, run
from mutate import base_characters, mutated_text

from dicebound.character import load_character
from dicebound.edge.files import read_ruleset
from dicebound.errors import CharacterInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.lesson import rollable_target
from dicebound.odds import check_odds
from dicebound.problems import Problem
from dicebound.tagpass import resolve_text
from dicebound.teach import sheet_summary

CHARACTERS = base_characters()
RULESETS = {rid: read_ruleset(rid) for rid, _ in CHARACTERS.values()}


def inputs(seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    names = sorted(CHARACTERS)
    while True:
        for name in names:
            ruleset_id, text = CHARACTERS[name]
            yield f"{ruleset_id}\x1f{mutated_text(rng, text)}"


def play(entry: str) -> str:
    ruleset_id, _, text = entry.partition("\x1f")
    ruleset = RULESETS[ruleset_id]
    try:
        raw, twice = read_json(text)
    except Unreadable as exc:
        raise CharacterInvalid([Problem((), "not-json", str(exc))]) from exc
    if twice:
        raise CharacterInvalid(twice)
    character = load_character(ruleset, raw)
    sheet_summary(ruleset, character)
    target = rollable_target(ruleset, character)
    spends = getattr(ruleset.resolution.config, "spend", ())
    spend = f' spend="{spends[0].pool}:1"' if spends and hasattr(spends[0], "pool") else ""
    tag = f'[skill_check: skill="{target}" dc="3"{spend}]'
    resolve_text(ruleset, [character], tag, seed="fuzz")
    check_odds(ruleset, character, tag)
    return "loaded and played"


if __name__ == "__main__":
    args = budget_arguments(__doc__.splitlines()[0])
    figures = run("characters", inputs(args.seed), play, seconds=args.seconds, count=args.count)
    sys.exit(finish(figures))
