"""The Capability API version each combat key needs (FIGHTS §2), for a packaged ruleset
that declares one: the block, its keys, creature keys and the mechanics a fight reads.

Safe on any JSON: a key is gated where it stands, whatever its shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dicebound.compiler.passes.context import as_dict, as_list
from dicebound.problems import Path

__all__ = ["combat_features", "creature_features", "mechanics_features"]

Gate = tuple[str, Path, str]

_BLOCK_KEYS: tuple[tuple[str, str], ...] = (
    ("distance", "1.28"),
    ("ranged", "1.28"),
    ("cover", "1.28"),
    ("opportunity", "1.28"),
    ("offHand", "1.58"),
    ("standardEffects", "1.29"),
    ("levels", "1.45"),
    ("checks", "1.43"),
    ("contests", "1.43"),
    ("damageKinds", "1.30"),
    ("pool", "1.47"),
    ("spendLimits", "1.47"),
)
_INITIATIVE_KEYS = (("pool", "1.48"), ("plus", "1.48"), ("each", "1.47"), ("resource", "1.48"))
_ATTACK_KEYS = (
    ("strikes", "1.29"),
    ("strikesCappedBy", "1.32"),
    ("reach", "1.28"),
    ("range", "1.28"),
)
_EFFECT_VERSIONS: Mapping[str, str] = {
    "own-saves-advantage": "1.29",
    "own-saves-disadvantage": "1.29",
    "resist-all": "1.29",
    "cannot-target-source": "1.29",
    "cannot-approach-source": "1.29",
    "own-checks-advantage": "1.45",
    "own-checks-disadvantage": "1.45",
}
_CREATURE_KEYS = (("checks", "1.43"), ("soak", "1.47"), ("hardness", "1.56"), ("riders", "1.29"))


def combat_features(raw: Mapping[str, Any]) -> Iterator[Gate]:
    """Every gated key of a ruleset's ``combat`` block, with its path."""
    if "combat" not in raw:
        return
    here: Path = ("combat",)
    yield "1.26", here, "combat"
    block = as_dict(raw["combat"])
    if block.get("kind") == "dice-pool":
        yield "1.47", (*here, "kind"), 'a "dice-pool" fight'
    if "track" in as_dict(block.get("health")):
        yield "1.30", (*here, "health", "track"), "health on a wound track"
    for key, version in _BLOCK_KEYS:
        if key in block:
            yield version, (*here, key), f"combat.{key}"
    if "hardness" in as_dict(block.get("pool")):
        yield "1.56", (*here, "pool", "hardness"), "pool.hardness"
    initiative = as_dict(block.get("initiative"))
    for key, version in _INITIATIVE_KEYS:
        if key in initiative:
            yield version, (*here, "initiative", key), f"initiative.{key}"
    for i, attack in enumerate(as_list(block.get("attacks"))):
        attack = as_dict(attack)
        for key, version in _ATTACK_KEYS:
            if key in attack:
                yield version, (*here, "attacks", i, key), f"an attack source's {key}"
        if "skill" in as_dict(attack.get("toHit")):
            yield "1.47", (*here, "attacks", i, "toHit", "skill"), "toHit.skill"
    for group in ("conditions", "levels"):
        for i, item in enumerate(as_list(block.get(group))):
            item = as_dict(item)
            at = (*here, group, i)
            for j, effect in enumerate(as_list(item.get("effects"))):
                needs = _EFFECT_VERSIONS.get(effect) if isinstance(effect, str) else None
                if needs is not None:
                    yield needs, (*at, "effects", j), f'the effect "{effect}"'
            if "saves" in item:
                yield "1.29", (*at, "saves"), "saves narrowing a condition"
            if "skills" in item:
                yield "1.45", (*at, "skills"), "skills narrowing a condition"
            if group == "levels" and "derived" in item:
                yield "1.54", (*at, "derived"), "a level read off a derived value"


def creature_features(creature: Mapping[str, Any], at: Path) -> Iterator[Gate]:
    """The gated keys of one bestiary creature (``sheet`` and ``loot`` are gated with the
    catalogs)."""
    for key, version in _CREATURE_KEYS:
        if key in creature:
            yield version, (*at, key), f"creature.{key}"
    for group in ("resist", "immune"):
        for i, item in enumerate(as_list(creature.get(group))):
            if isinstance(item, dict):
                yield "1.55", (*at, group, i), "a resistance with exceptions"
    for i, action in enumerate(as_list(creature.get("actions"))):
        action = as_dict(action)
        yield from _applies((*at, "actions", i), action)
        yield from _reaction((*at, "actions", i), action)
        if "plus" in as_dict(action.get("damage")):
            yield "1.29", (*at, "actions", i, "damage", "plus"), "damage.plus"


def mechanics_features(mechanics: Mapping[str, Any], at: Path) -> Iterator[Gate]:
    """The gated keys of one entry's fight mechanics."""
    if "plus" in mechanics:
        yield "1.29", (*at, "plus"), "mechanics.plus"
    yield from _applies(at, mechanics)
    yield from _reaction(at, mechanics)


def _applies(at: Path, holder: Mapping[str, Any]) -> Iterator[Gate]:
    for i, item in enumerate(as_list(holder.get("applies"))):
        item = as_dict(item)
        if "at" in as_dict(item.get("duration")):
            yield "1.45", (*at, "applies", i, "duration", "at"), "duration.at"
        if "endsAfter" in item:
            yield "1.45", (*at, "applies", i, "endsAfter"), "endsAfter"


def _reaction(at: Path, holder: Mapping[str, Any]) -> Iterator[Gate]:
    reaction = holder.get("reaction")
    if not isinstance(reaction, dict):
        return
    here = (*at, "reaction")
    yield "1.33", here, "a reaction written as an object"
    on = reaction.get("on")
    if on == "used":
        yield "1.44", (*here, "on"), 'a reaction on "used"'
    elif on == "hit":
        yield "1.46", (*here, "on"), 'a reaction on "hit"'
    if "against" in reaction:
        yield "1.44", (*here, "against"), "reaction.against"
