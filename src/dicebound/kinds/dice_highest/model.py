"""dice-highest's values (the compiled config, the prepared check, what a roll came to) and
the arithmetic the throw and the odds share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from dicebound.errors import UsageError
from dicebound.spend import Spend
from dicebound.values import frozen

ZeroDice = Literal["lowest-of-two", "fail"]
DarkOutcome = Literal["all", "light"]

MAX_POOL = 20
"""The page: a dice-highest pool is held to at most 20 dice."""
MAX_DARK = 10
"""The page: ``dark.max`` runs from 1 to 10."""
MAX_SIDES = 100


# -- compiled config and the check ------------------------------------------------------


@frozen
class CriticalRule:
    """``count`` dice at ``face`` or above make a critical success."""

    count: int
    face: int


@frozen
class Dark:
    """Trophy Dark's dark dice: what they are called, how many a check may add, and
    whether they are read with the rest (``all``) or only thrown beside them (``light``)."""

    label: str
    max: int
    text: str | None = None
    outcome: DarkOutcome = "all"


@frozen
class HighestConfig:
    """A compiled dice-highest block. Immutable."""

    sides: int = 6
    pool_min: int = 0
    pool_max: int = MAX_POOL
    keep: int = 1
    zero_dice: ZeroDice = "lowest-of-two"
    critical: CriticalRule | None = None
    dark: Dark | None = None
    situational: tuple[int, int] | None = None
    spend: tuple[Spend, ...] = ()  # each buys dice only

    def __post_init__(self) -> None:
        if not 2 <= self.sides <= MAX_SIDES:
            raise UsageError(f"a d{self.sides} is not a die this kind throws (2 to 100 sides)")
        if not 0 <= self.pool_min <= self.pool_max <= MAX_POOL:
            raise UsageError(f"pool {self.pool_min}..{self.pool_max} is not within 0..20")
        if not 1 <= self.keep <= 3:
            raise UsageError(f"keep is 1 to 3, not {self.keep}")
        if self.critical is not None and not 2 <= self.critical.face <= self.sides:
            raise UsageError(f"a d{self.sides} has no face {self.critical.face}")
        if self.dark is not None and not 1 <= self.dark.max <= MAX_DARK:
            raise UsageError(f"dark.max is 1 to 10, not {self.dark.max}")

    @property
    def light_only(self) -> bool:
        """Whether only light dice decide the result (``dark.outcome: "light"``)."""
        return self.dark is not None and self.dark.outcome == "light"

    @property
    def max_total(self) -> int:
        """The most the kept dice can add up to: the top of the dc range."""
        return self.keep * self.sides


@frozen
class HighestCheck:
    """One prepared check: the config, the light dice (the pool, after its range), the
    dc the kept dice must reach (0: none named, the bands read the total) and the dark
    dice added to it."""

    config: HighestConfig
    dice: int
    dc: int
    dark: int = 0

    def __post_init__(self) -> None:
        config = self.config
        if not config.pool_min <= self.dice <= config.pool_max:
            raise UsageError(
                f"{self.dice} dice is outside the pool's range {config.pool_min}..{config.pool_max}"
            )
        most_dark = config.dark.max if config.dark is not None else 0
        if not 0 <= self.dark <= most_dark:
            raise UsageError(f"{self.dark} dark dice is outside 0..{most_dark}")
        if not 0 <= self.dc <= config.max_total:
            raise UsageError(f"dc {self.dc} is outside 0..{config.max_total}")


class HighestOutcome(NamedTuple):
    """What one check came to: the kept dice's sum (what ``by: "total"`` reads), the
    result, and whether a dark die beat every light die."""

    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    dark_highest: bool


# -- the shared arithmetic -----------------------------------------------------------


class _Plan(NamedTuple):
    """Which dice a check throws: light dice, dark dice, and whether the zero-dice rule
    stands in for an empty pool (then ``light`` is the two fallback dice, or none)."""

    light: int
    dark: int
    zero: bool


def plan_of(check: HighestCheck) -> _Plan:
    config = check.config
    empty = check.dice == 0 if config.light_only else check.dice + check.dark == 0
    if not empty:
        return _Plan(check.dice, check.dark, False)
    return _Plan(2 if config.zero_dice == "lowest-of-two" else 0, check.dark, True)


def critical_face(config: HighestConfig) -> int:
    """The lowest face a critical counts; past the top face when there is no rule."""
    return config.critical.face if config.critical is not None else config.sides + 1


def critical_cap(config: HighestConfig) -> int:
    """How many critical faces matter: past the rule's count, more change nothing."""
    return config.critical.count if config.critical is not None else 1


def highest_faces(faces: Sequence[int], keep: int) -> list[int]:
    """The ``keep`` highest faces (all of them when there are fewer)."""
    return sorted(faces, reverse=True)[:keep]


def critical_hits(config: HighestConfig, faces: Sequence[int]) -> int:
    """How many faces count toward a critical, capped at the rule's count."""
    face = critical_face(config)
    return min(sum(1 for f in faces if f >= face), critical_cap(config))


def dark_wins(light: Sequence[int], dark: Sequence[int]) -> bool:
    """A dark die strictly above every light die; with no light die, any dark die wins."""
    return bool(dark) and max(dark) > max(light, default=0)


def outcome_of(
    check: HighestCheck, zero: bool, total: int, hits: int, dark_highest: bool
) -> HighestOutcome:
    """The result of what the dice read. ``fail`` on zero dice fails without a roll;
    ``lowest-of-two`` is never a critical; a critical success always succeeds."""
    config = check.config
    if zero and config.zero_dice == "fail":
        return HighestOutcome(0, False, False, False, dark_highest)
    critical = not zero and config.critical is not None and hits >= config.critical.count
    return HighestOutcome(total, critical or total >= check.dc, critical, False, dark_highest)


def kept_words(keep: int) -> str:
    return "highest die" if keep == 1 else f"{keep} highest dice"
