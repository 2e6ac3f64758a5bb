"""Campaign (e): fights. Texts of ``[fight:]`` tags, generated from the tag's grammar and
its near misses, are resolved on the 5e draft's fight with a small party, each on a fresh
fight or on one a mutated state file carries (``mutate.py`` over a real state).

Each input must give a result or dicebound's own error within the harness's bounds, and
every fight a text leaves must read back (``load_state``: ids unique, the order a
permutation, health in range) with no defeated combatant having acted.

Run: ``python fuzz/fights.py --count 100000`` (a full run) or ``--seconds 10``.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import budget_arguments, finish, run
from mutate import mutated_text

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.errors import UsageError
from dicebound.fight import load_state
from dicebound.fight.state import health_of
from dicebound.jsontext import Unreadable, read_json
from dicebound.tagpass import resolve_text

MARINARA = Path(__file__).resolve().parents[1].parent / "shared" / "marinara"
RULESET = compile_ruleset(
    json.loads((MARINARA / "ruleset-5e-2014.example.json").read_text("utf-8")),
    capability_api="1.70",
)


def _member(name: str, hp: int) -> object:
    build = {
        "abilities": {"str": 16, "dex": 14, "con": 14, "int": 10, "wis": 12, "cha": 8},
        "skills": {},
        "saves": {"str_save": "proficient"},
        "bonuses": {},
        "fields": {"level": 5, "ac": 15, "hp_max": 30},
        "lists": {"attacks": [{"name": "Spear", "ability": "str", "damage": "1d8"}]},
    }
    return {
        "name": name,
        "sheet": {"v": 1, "build": build},
        "live": {"pools": {"hp": {"value": hp}}},
    }


PARTY = (
    load_character(RULESET, _member("Aldo", 30)),
    load_character(RULESET, _member("Bea", 2)),
)
NAMES = ["Aldo", "Bea", "Lurker", "Hound", "Rat 1", "Rat 2", "Bandit", "aldo", "nobody", ""]
OPTIONS = [
    "Spear",
    "dodge",
    "help",
    "Barbed claw",
    "Sear bite",
    "Bandit: attack",
    "strike",
    "attack:0:0",
    "standard:dodge",
    "end-turn",
    "pass",
    "Claw and snare",
    "x",
]
ENEMIES = [
    "Lurker (creatures/thorn-lurker), Hound (creatures/cinder-hound)",
    "Rat x2 (tier cr_0)",
    "Bandit (tier cr_1_4; health 99; hit 30; damage 9d12+9 fire)",
    "Bandit",
    "Piper (creatures/grave-piper)",
]
START = '[fight: op="start" enemies="{}"]'


def _tag(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return '[fight: op="end-turn"]'
    if roll < 0.75:
        target = ", ".join(rng.sample(NAMES, rng.randint(1, 2)))
        return f'[fight: op="act" option="{rng.choice(OPTIONS)}" target="{target}"]'
    if roll < 0.8:
        return rng.choice(['[fight: op="flee"]', '[fight: op="end"]', "[fight:]", "[fight: op="])
    keys = ["op", "who", "option", "target", "party", "enemies", "window", "pay", "mode"]
    body = " ".join(
        f'{rng.choice(keys)}="{rng.choice(NAMES + OPTIONS + ENEMIES)}"'
        for _ in range(rng.randint(0, 5))
    )
    return f"[fight: {body}]"


def _text(rng: random.Random) -> str:
    tags = [_tag(rng) for _ in range(rng.randint(1, 30))]
    return " ".join(tags)


_BASE = resolve_text(RULESET, PARTY, START.format(ENEMIES[0]), seed="base").fight


def inputs(seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    state = json.dumps(_BASE)
    while True:
        start = START.format(rng.choice(ENEMIES))
        yield f"fresh\x1f{start} {_text(rng)}\x1f{rng.randint(0, 10**6)}"
        yield f"{mutated_text(rng, state)}\x1f{_text(rng)}\x1f{rng.randint(0, 10**6)}"


def _carried(text: str) -> dict[str, object] | None:
    """A fight file's state, read as ``check --fight`` reads one."""
    try:
        body, _ = read_json(text)
    except Unreadable as exc:
        raise UsageError(f"the fight file {exc}") from exc
    return load_state(body)


def play(entry: str) -> str:
    carried, text, seed = entry.split("\x1f")
    fight = None if carried == "fresh" else _carried(carried)
    report = resolve_text(RULESET, PARTY, text, seed=seed, fight=fight)
    if report.fight is None:
        return "no fight"
    after = load_state(json.loads(json.dumps(report.fight)))
    for c in after["combatants"]:
        value, top, temp = health_of(RULESET, c, report.party)
        if not 0 <= value <= top or temp < 0:
            raise AssertionError(f"{c['id']} has health {value}/{top}")
    fallen: set[str] = set()
    for _, step in report.fight_steps:
        if step.ok and step.asked[0] == ("op", "act") and dict(step.asked).get("who") in fallen:
            raise AssertionError("a defeated combatant acted")
        for event in step.events:
            if event["type"] == "defeated" or event.get("result") == "dead":
                fallen.add(str(event["name"]))
    return after["outcome"]


if __name__ == "__main__":
    args = budget_arguments(__doc__.splitlines()[0])
    figures = run("fights", inputs(args.seed), play, seconds=args.seconds, count=args.count)
    sys.exit(finish(figures))
