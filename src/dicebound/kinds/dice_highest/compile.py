"""dice-highest's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.dice_highest.model import (
    MAX_POOL,
    CriticalRule,
    Dark,
    HighestConfig,
    kept_words,
)
from dicebound.kinds.dice_highest.schema import KEYS
from dicebound.problem_codes import (
    COMBAT_NOT_ALLOWED,
    DC_OUT_OF_RANGE,
    FACE_NOT_ON_DIE,
    MIN_ABOVE_MAX,
    NEVER_FIRES,
    POOL_TOO_LARGE,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Node
from dicebound.spend import compile_spends

Add = Callable[[Problem], None]
"""Where a step reports a problem (the compile's list's ``append``)."""


class DiceHighestKind(KindCompiler):
    """The compile half of dice-highest (the play half is ``PLAYER``)."""

    name = "dice-highest"
    fights = False
    keys: Mapping[str, Node] = KEYS
    required: tuple[str, ...] = ("difficultyLadder",)

    def refused_fights(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        """The page: a ruleset of this kind has no fight of its own."""
        if "combat" in raw:
            yield Problem(
                ("combat",),
                COMBAT_NOT_ALLOWED,
                "a dice-highest ruleset has no fight of its own, so a combat block is refused "
                "beside it; remove combat.",
            )

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[HighestConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config, in named steps
        whose order is the order the problems are reported in."""
        at = ctx.path
        problems: list[Problem] = []
        add = problems.append
        sides = int(block.get("die", {}).get("sides", 6))
        keep = int(block.get("keep", 1))
        pool_min, pool_max = _pool(block, at, add)
        dark = _dark(block)
        critical = _critical(block, at, add, sides, min(pool_max, MAX_POOL), dark)
        _ladder(block, at, add, keep, sides)
        spends = compile_spends(block.get("spend", ()), at, ctx.sheet, problems)
        if problems:
            return None, problems
        situational = block.get("situationalDice")
        config = HighestConfig(
            sides=sides,
            pool_min=pool_min,
            pool_max=pool_max,
            keep=keep,
            zero_dice=block.get("zeroDice", "lowest-of-two"),
            critical=critical,
            dark=dark,
            situational=(
                None if situational is None else (int(situational["min"]), int(situational["max"]))
            ),
            spend=spends,
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        at: Path = ("resolution",)
        yield "1.138", (*at, "kind"), "the dice-highest kind"
        dark = block.get("dark")
        if isinstance(dark, Mapping) and "outcome" in dark:
            yield "1.149", (*at, "dark", "outcome"), "dark.outcome"


KIND = DiceHighestKind()


def _pool(block: Mapping[str, Any], at: Path, add: Add) -> tuple[int, int]:
    """``pool``: at most ``MAX_POOL`` dice, min no higher than max, and a min of 0
    where ``zeroDice`` says what no dice throw."""
    pool = block.get("pool", {"min": 0, "max": MAX_POOL})
    pool_min, pool_max = int(pool["min"]), int(pool["max"])
    if pool_max > MAX_POOL:
        add(
            Problem(
                (*at, "pool", "max"),
                POOL_TOO_LARGE,
                f"{pool_max} is above {MAX_POOL}; a dice-highest pool throws at most "
                f"{MAX_POOL} dice.",
            )
        )
    elif pool_min > pool_max:
        add(
            Problem(
                (*at, "pool", "min"),
                MIN_ABOVE_MAX,
                f"{pool_min} is above pool.max {pool_max}; the pool is held to min..max.",
            )
        )
    if "zeroDice" in block and pool_min > 0:
        add(
            Problem(
                (*at, "zeroDice"),
                NEVER_FIRES,
                f"pool.min is {pool_min}, so no check ever has zero dice and zeroDice could "
                "never apply; set pool.min to 0 or remove zeroDice.",
            )
        )
    return pool_min, pool_max


def _dark(block: Mapping[str, Any]) -> Dark | None:
    """``dark``: the second pool, which the schema has checked whole."""
    if "dark" not in block:
        return None
    raw = block["dark"]
    return Dark(str(raw["label"]), int(raw["max"]), raw.get("text"), raw.get("outcome", "all"))


def _critical(
    block: Mapping[str, Any], at: Path, add: Add, sides: int, pool_max: int, dark: Dark | None
) -> CriticalRule | None:
    """``critical``: a face of the die, and a count of dice a check can read."""
    if "critical" not in block:
        return None
    raw = block["critical"]
    face = int(raw.get("face", sides))
    count = int(raw["count"])
    ok = True
    if face > sides:
        ok = False
        add(
            Problem(
                (*at, "critical", "face"),
                FACE_NOT_ON_DIE,
                f"{face} is not a face of a d{sides}, whose faces run from 1 to {sides}.",
            )
        )
    most = pool_max + (dark.max if dark and dark.outcome == "all" else 0)
    if count > most:
        ok = False
        add(
            Problem(
                (*at, "critical", "count"),
                NEVER_FIRES,
                f"{count} is more dice than a check ever reads ({most}), so the critical "
                "could never fire.",
            )
        )
    return CriticalRule(count, face) if ok else None


def _ladder(block: Mapping[str, Any], at: Path, add: Add, keep: int, sides: int) -> None:
    """Every ladder step's dc within what the kept dice can add up to."""
    top = keep * sides
    for i, raw in enumerate(block["difficultyLadder"]):
        dc = int(raw["dc"])
        if not 1 <= dc <= top:
            add(
                Problem(
                    (*at, "difficultyLadder", i, "dc"),
                    DC_OUT_OF_RANGE,
                    f"{dc} is outside 1..{top}: the {kept_words(keep)} of d{sides} add up "
                    f"to at most {top}, and a dc is at least 1.",
                )
            )
