"""What a condition or a level does in a fight: effects from a closed list, and
modifiers to the numbers a fight reads (FIGHTS §2.1 "Modifiers", §2.2)."""

from __future__ import annotations

from typing import Literal

from dicebound.values import frozen

__all__ = [
    "EFFECTS",
    "INERT_EFFECTS",
    "LEVEL_REFUSED_EFFECTS",
    "ConditionRule",
    "LevelRule",
    "Modifier",
]

EFFECTS: tuple[str, ...] = (
    "own-attacks-advantage",
    "own-attacks-disadvantage",
    "attacks-against-advantage",
    "attacks-against-disadvantage",
    "cannot-act",
    "cannot-react",
    "ends-on-damage",
    "own-saves-advantage",
    "own-saves-disadvantage",
    "resist-all",
    "cannot-target-source",
    "own-checks-advantage",
    "own-checks-disadvantage",
    "attacks-against-adjacent-advantage",
    "attacks-against-far-disadvantage",
    "attacks-from-adjacent-critical",
    "speed-zero",
    "half-move-to-stand",
    "cannot-approach-source",
)
"""The closed list of effects, played ones first."""

INERT_EFFECTS: frozenset[str] = frozenset(
    {
        "attacks-against-adjacent-advantage",
        "attacks-against-far-disadvantage",
        "attacks-from-adjacent-critical",
        "speed-zero",
        "half-move-to-stand",
        "cannot-approach-source",
    }
)
"""Effects kept and never played: each needs a board, and dicebound has none."""

LEVEL_REFUSED_EFFECTS: tuple[str, ...] = (
    "half-move-to-stand",
    "ends-on-damage",
    "cannot-target-source",
    "cannot-approach-source",
)
"""Effects a level may not carry: a level has no source and never ends on a blow."""


@frozen
class Modifier:
    """A change to one number: ``flat`` (dice, in a pool fight), ``dice`` thrown and
    added (or taken off, ``minus``), ``times`` (speed only), or a ``mode`` (advantage or
    disadvantage on checks or saves). ``skills``/``saves`` narrow it; empty: all."""

    to: Literal["defense", "attacks", "saves", "checks", "speed"]
    flat: int = 0
    dice: str | None = None
    minus: bool = False
    times: float | None = None
    skills: tuple[str, ...] = ()
    saves: tuple[str, ...] = ()
    mode: Literal["advantage", "disadvantage"] | None = None


@frozen
class ConditionRule:
    """What a live condition does while it is on (``combat.conditions[]``).

    ``in_sight_only`` names the effects that hold only while the source is in sight
    (``"all"`` for ``true``); with no board the source is always in sight."""

    condition: str
    effects: tuple[str, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    fails_saves: tuple[str, ...] = ()
    saves: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    in_sight_only: Literal["all"] | tuple[str, ...] = ()
    ends_when_source_down: bool = False


@frozen
class LevelRule:
    """What a track or derived value does from ``at`` up (``combat.levels[]``)."""

    source: Literal["track", "derived"]
    name: str
    at: int
    effects: tuple[str, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    fails_saves: tuple[str, ...] = ()
    saves: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
