"""Campaign (a): the text a model writes. Generated Game Master texts, grammar-aware,
resolved against every packaged ruleset and its characters.

The generator writes what models get wrong: near-miss tag names and brackets, every
quote style (straight, single, curly, guillemets, none, unclosed), attribute names and
values from the ruleset beside made-up ones, huge and negative numbers, unicode (lone
surrogates included), control characters, and now and then thousands of tags. Each text
must give a report (every tag a result or an error) or dicebound's own error, within
the harness's bounds; the text of every tag must come back at its place.

Most texts also hold ``[sheet:]`` commands, on the packaged rulesets and on Marinara's
examples (when ../shared is there), and are held to stronger properties
(``sheet_text.py``): a text of sheet commands alone never raises, each tag is rewritten
once into one that reads back answered and into the same request, and a refused
command changes nothing.

Run: ``python fuzz/tags.py --count 1000000`` (a full run) or ``--seconds 10``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import budget_arguments, finish, run
from sheet_text import Table, crowded, make_table, marinara_tables, sheet_text, verify

from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text

TABLES: list[tuple[Ruleset, list[Character]]] = []
for _id in packaged_rulesets():
    _ruleset = read_ruleset(_id)
    TABLES.append(
        (_ruleset, [read_character(_ruleset, f"{_id}/{c}") for c in packaged_characters(_id)])
    )
SHEET_TABLES: dict[str, Table] = {}
for _ruleset, _party in TABLES:
    for _table in (
        make_table(_ruleset.id, _ruleset, _party),
        make_table(f"{_ruleset.id}+crowd", _ruleset, crowded(_ruleset, _party)),
    ):
        SHEET_TABLES[_table.key] = _table
PACKAGED_KEYS = sorted(SHEET_TABLES)
MARINARA_KEYS = []  # the examples hold every kind of thing a command names: more of them
for _table in marinara_tables():
    SHEET_TABLES[_table.key] = _table
    MARINARA_KEYS.append(_table.key)
SHEET = "sheet:"
"""How an entry whose text holds sheet commands starts: ``sheet:<table>\x1f<text>``."""

NAMES = [
    "skill_check",
    "skill_check",
    "skill_check",
    "Skill_Check",
    "skill check",
    "skillcheck",
    "skill_chek",
    "skill-check",
    "SKILL_CHECK",
    "skill_check:",
    "check",
]
OPENERS = ["[", "[", "[", "［", "(", "[[", ""]
CLOSERS = ["]", "]", "]", "］", ")", "]]", ""]
QUOTES = [
    ('"', '"'),
    ("'", "'"),
    ("\u201c", "\u201d"),
    ("\u2018", "\u2019"),
    ("\u00ab", "\u00bb"),
    ("", ""),
    ('"', ""),
    ("\u201c", '"'),
    ('"', "'"),
]
KEYS = [
    "skill",
    "dc",
    "difficulty",
    "who",
    "with",
    "mode",
    "bonus",
    "threshold",
    "spend",
    "use",
    "quality",
    "tool",
    "reroll",
    "explode",
    "double",
    "stance",
    "dark",
    "advantage",
    "disadvantage",
    "seed",
    "rolls",
    "total",
    "result",
    "after",
    "choose",
    "x",
    "SKILL",
    "dc ",
    "",
    "=",
    "skill=skill",
]
NOISE = [
    "",
    " ",
    "\n",
    "\t",
    "\x00",
    "\x07",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\udfff",
    "é",
    "漢字",
    "🎲",
    "\u202e",
    "]",
    "[",
    "=",
    '"',
    "'",
    ",",
    ":",
    "\\",
    "\r\n",
]


def _number(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.5:
        return str(rng.randint(-5, 40))
    if pick < 0.7:
        return str(rng.randint(-(10**6), 10**6))
    if pick < 0.8:
        return "9" * rng.randint(10, 400)  # huge
    if pick < 0.9:
        return rng.choice(["1.5", "1e9", "-0", "+7", " 12 ", "0x1F", "½", "٣", "NaN", "inf"])
    return "-" + "1" * rng.randint(10, 60)


def _value(rng: random.Random, key: str, ruleset: Ruleset, party: list[Character]) -> str:
    if key in ("dc", "bonus", "threshold", "quality", "tool", "explode", "double", "dark"):
        return _number(rng)
    if key == "skill":
        labels = [s.label for s in ruleset.sheet.skills] + [s.label for s in ruleset.sheet.saves]
        labels += [a.label for a in ruleset.sheet.abilities] + ["Stelth", "", "x" * 300]
        return rng.choice(labels) if labels else "Anything"
    if key == "who" and party:
        return rng.choice([c.name for c in party] + ["Nobody", party[0].name.upper()])
    if key == "difficulty":
        steps = (
            [s.label for s in ruleset.resolution.config.difficulty_ladder]
            if hasattr(ruleset.resolution.config, "difficulty_ladder")
            else []
        )
        return rng.choice([*steps, "Impossible", ""])
    if key == "mode":
        return rng.choice(["advantage", "disadvantage", "normal", "both", "ADVANTAGE"])
    if key == "spend":
        return rng.choice(["luck:1", "willpower_points:1", "edge:99", ":", "x:-1", "body:2"])
    return "".join(rng.choice(NOISE) + rng.choice("abc1 ") for _ in range(rng.randint(0, 6)))


def _well_formed(rng: random.Random, ruleset: Ruleset, party: list[Character]) -> str:
    """A tag as the guidance teaches it: the skill, a difficulty, sometimes more."""
    keys = ["skill", rng.choice(["dc", "difficulty"])]
    keys += rng.sample(
        ["who", "mode", "bonus", "threshold", "spend", "with", "quality"], rng.randint(0, 2)
    )
    parts = [f'{k}="{_value(rng, k, ruleset, party)}"' for k in keys]
    return f"[skill_check: {' '.join(parts)}]"


def _near_miss(rng: random.Random, ruleset: Ruleset, party: list[Character]) -> str:
    """A tag as a model might botch it: any name, bracket, quote, separator or key."""
    opener = rng.choice(OPENERS)
    closer = (
        rng.choice(CLOSERS)
        if rng.random() < 0.2
        else ("]" if opener == "[" else rng.choice(CLOSERS))
    )
    parts = []
    for _ in range(rng.randint(0, 6)):
        key = rng.choice(KEYS)
        left, right = rng.choice(QUOTES)
        separator = rng.choice(["=", "=", " = ", ":", "==", ""])
        parts.append(
            f"{key}{separator}{left}{_value(rng, key.strip().lower(), ruleset, party)}{right}"
        )
    joint = rng.choice([" ", " ", ", ", "  ", "\n", ""])
    return (
        f"{opener}{rng.choice(NAMES)}{rng.choice([':', ': ', ' ', ''])}{joint.join(parts)}{closer}"
    )


def _tag(rng: random.Random, ruleset: Ruleset, party: list[Character]) -> str:
    pick = rng.random()
    if pick < 0.5:
        return _well_formed(rng, ruleset, party)
    if pick < 0.75:  # well formed, then one slip
        tag = _well_formed(rng, ruleset, party)
        at = rng.randrange(len(tag))
        slip = rng.choice([*NOISE, "", "'", "“", "]", "=", "  "])
        return tag[:at] + slip + tag[at + rng.randint(0, 2) :]
    return _near_miss(rng, ruleset, party)


def texts(seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    while True:
        if rng.random() < 0.6:
            keys = MARINARA_KEYS if MARINARA_KEYS and rng.random() < 0.5 else PACKAGED_KEYS
            table = SHEET_TABLES[rng.choice(keys)]
            yield f"{SHEET}{table.key}\x1f{sheet_text(rng, table, _tag)}"
            continue
        ruleset, party = rng.choice(TABLES)
        if rng.random() < 0.001:  # thousands of tags
            tags = [_tag(rng, ruleset, party) for _ in range(rng.choice([999, 1000, 1001, 3000]))]
        else:
            tags = [_tag(rng, ruleset, party) for _ in range(rng.randint(0, 4))]
        prose = [rng.choice(NOISE) + rng.choice(["The door.", "", "She runs", "💥"]) for _ in tags]
        yield f"{ruleset.id}\x1f" + "".join(p + t for p, t in zip(prose, tags, strict=True))


def resolve(entry: str) -> str:
    ruleset_id, _, text = entry.partition("\x1f")
    if ruleset_id.startswith(SHEET):
        return verify(SHEET_TABLES[ruleset_id.removeprefix(SHEET)], text, str(len(text)))
    ruleset, party = next(t for t in TABLES if t[0].id == ruleset_id)
    report = resolve_text(ruleset, party, text, seed=str(len(text)))
    return f"{len(report.results)} resolved" if len(report.results) < 3 else "3+ resolved"


if __name__ == "__main__":
    args = budget_arguments(__doc__.splitlines()[0])
    figures = run("tags", texts(args.seed), resolve, seconds=args.seconds, count=args.count)
    sys.exit(finish(figures))
