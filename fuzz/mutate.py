"""Structure-aware mutations of JSON files, for the ruleset and character campaigns.

Each mutation walks to a random place of the parsed file and does what an author (or a
broken tool) does: deletes a key or an element, retypes a value, writes an extreme
number or a long string, duplicates an element (two items with one id), points a name at
another name of the file (a reference that loops back), or breaks the text itself
(truncated, a key written twice, a stray character).
"""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

from dicebound.edge.files import packaged_characters, packaged_rulesets, ruleset_text

MARINARA = Path(__file__).resolve().parents[1].parent / "shared" / "marinara"
EXTREMES: list[Any] = [
    0,
    -1,
    1,
    2**31,
    -(2**31),
    2**63,
    -(2**63),
    10**30,
    1e308,
    -1e308,
    0.5,
    -0.0,
    1e-300,
    99,
    100,
    101,
    1000,
]
LONG = ["x" * 10_000, "é" * 5000, "\u0000" * 100, "🎲" * 3000, " ", "", "\ud800"]


def base_rulesets() -> dict[str, str]:
    """Every packaged ruleset's text, and the Marinara ones when ``../shared`` is here."""
    bases = {ruleset_id: ruleset_text(ruleset_id)[0] for ruleset_id in packaged_rulesets()}
    if MARINARA.is_dir():
        for path in sorted(MARINARA.glob("*.json")):
            if path.name != "ruleset.schema.json":
                bases[f"marinara/{path.stem}"] = path.read_text(encoding="utf-8")
    return bases


def base_characters() -> dict[str, tuple[str, str]]:
    """Every packaged character: ``ruleset/name`` to (ruleset id, the file's text)."""
    data = resources.files("dicebound.data")
    found = {}
    for ruleset_id in packaged_rulesets():
        for name in packaged_characters(ruleset_id):
            text = (data / "characters" / ruleset_id / f"{name}.json").read_text("utf-8")
            found[f"{ruleset_id}/{name}"] = (ruleset_id, text)
    return found


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    places = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places += _places(item, (*path, index))
    return places


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _random_value(rng: random.Random, doc: Any) -> Any:
    pick = rng.randrange(8)
    if pick == 0:
        return rng.choice(EXTREMES)
    if pick == 1:
        return rng.choice(LONG)
    if pick == 2:
        return None
    if pick == 3:
        return rng.choice([True, False])
    if pick == 4:
        return [] if rng.random() < 0.5 else [rng.choice(EXTREMES)] * rng.randint(1, 300)
    if pick == 5:
        return {} if rng.random() < 0.5 else {"id": "x", "label": "X"}
    names = _strings(doc)
    return rng.choice(names) if names else "x"


def mutate(rng: random.Random, doc: Any) -> Any:
    """One mutation of ``doc`` (changed in place when it can be; the result is returned)."""
    places = _places(doc)
    path = rng.choice(places)
    if not path:
        return _random_value(rng, doc) if rng.random() < 0.1 else doc
    parent, last = _get(doc, path[:-1]), path[-1]
    action = rng.randrange(7)
    if action == 0:  # delete
        del parent[last]
    elif action == 1:  # retype
        parent[last] = _random_value(rng, doc)
    elif action == 2:  # an extreme number
        parent[last] = rng.choice(EXTREMES)
    elif action == 3:  # a long string
        parent[last] = rng.choice(LONG)
    elif action == 4 and isinstance(parent, list):  # two items with one id
        parent.insert(last, json.loads(json.dumps(parent[last])))
    elif action == 5:  # a name pointing at another name of the file: loops, wrong kinds
        names = _strings(doc)
        if names:
            parent[last] = rng.choice(names)
    elif isinstance(parent, dict):  # a key renamed
        parent[rng.choice(["id", "label", "max", "min", "$ref", "kind", last + "s"])] = parent.pop(
            last
        )
    return doc


def mutated_text(rng: random.Random, text: str) -> str:
    """The file's text after one to three structural mutations, and now and then a
    textual one."""
    doc = json.loads(text)
    for _ in range(rng.randint(1, 3)):
        doc = mutate(rng, doc)
    out = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    pick = rng.random()
    if pick < 0.03:
        out = out[: rng.randrange(len(out) + 1)]  # truncated
    elif pick < 0.06 and out.startswith("{"):
        out = '{"id": "twice", ' + out[1:]  # a key written twice (when it has an id)
    elif pick < 0.08:
        at = rng.randrange(len(out) + 1)
        out = out[:at] + rng.choice(["\x00", "NaN", "]", "{", ",", "\ufeff", "1e999"]) + out[at:]
    return out
