"""roll-against's values (the compiled config, the prepared check, what a roll came to, how
its bands read) and the arithmetic the throw and the odds share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from dicebound.bands import BandRules, By
from dicebound.errors import UsageError
from dicebound.values import frozen

Against = Literal["at-most", "at-least"]
Natural = Literal["top", "bottom"] | None

TAG_DC_RANGE = (-100, 100)
"""The page: ``dc=`` on a roll-against tag moves the target by -100 to 100."""
NUMBER_LIMIT = 100_000
"""A face or a target a rule names lies in -100000..100000."""
MAX_TENS = 10
"""The most extra tens dice ``tens.max`` may allow."""


# -- compiled config and the check ------------------------------------------------------


@frozen
class CritRule:
    """One critical rule: rolls ``low``..``high`` (either open), or for a failure a roll
    ``past_target`` or more past the target on the failing side; only for targets at or
    above ``target_at_least`` and below ``target_below``."""

    low: int | None = None
    high: int | None = None
    past_target: int | None = None
    target_at_least: int | None = None
    target_below: int | None = None

    def fires(self, roll: int, target: int, against: Against) -> bool:
        if self.target_at_least is not None and target < self.target_at_least:
            return False
        if self.target_below is not None and target >= self.target_below:
            return False
        if self.past_target is not None:
            past = roll - target if against == "at-most" else target - roll
            return past >= self.past_target
        return (self.low is None or roll >= self.low) and (self.high is None or roll <= self.high)


@frozen
class AgainstConfig:
    """A compiled roll-against block. Immutable. ``tens_max`` is None without ``tens``."""

    count: int = 1
    sides: int = 100
    against: Against = "at-most"
    critical_success: tuple[CritRule, ...] = ()
    critical_failure: tuple[CritRule, ...] = ()
    tens_max: int | None = None

    def __post_init__(self) -> None:
        if self.count < 1 or self.sides < 2:
            raise UsageError(f"{self.count}d{self.sides} is not a set of dice this kind throws")
        if self.tens_max is not None and (self.count, self.sides) != (1, 100):
            raise UsageError("tens dice need a single d100")

    @property
    def lowest(self) -> int:
        return self.count

    @property
    def highest(self) -> int:
        return self.count * self.sides

    @property
    def dice_text(self) -> str:
        return f"{self.count}d{self.sides}"


@frozen
class AgainstCheck:
    """One prepared check: the config, the target the roll is read against, and the tens
    dice (``+N`` bonus dice keep the best roll, ``-N`` penalty dice the worst)."""

    config: AgainstConfig
    target: int
    tens: int = 0

    def __post_init__(self) -> None:
        if self.tens and (self.config.tens_max is None or abs(self.tens) > self.config.tens_max):
            raise UsageError(f"{self.tens:+d} tens dice is more than this ruleset allows")


class AgainstOutcome(NamedTuple):
    """What one check came to: the roll (what ``by: "total"`` reads), what a single die
    showed, and the result."""

    total: int
    natural: Natural
    success: bool
    critical_success: bool
    critical_failure: bool


# -- the shared arithmetic -----------------------------------------------------------


def percentile_of(tens_digit: int, ones: int) -> int:
    """A tens digit and a ones digit as a roll of 1-100: 00 with 0 reads 100."""
    value = 10 * tens_digit + ones
    return value or 100


def keeps_lowest(tens: int, against: Against) -> bool:
    """Bonus dice keep the best roll, penalty dice the worst; the best roll is the lowest
    at most and the highest at least."""
    return (tens > 0) == (against == "at-most")


def _natural(config: AgainstConfig, roll: int) -> Natural:
    if config.count != 1 or config.tens_max is not None:
        return None
    return "top" if roll == config.sides else "bottom" if roll == 1 else None


def outcome_of(check: AgainstCheck, roll: int) -> AgainstOutcome:
    """Read a roll against the check's target. A critical success always succeeds and a
    critical failure always fails; a roll matching both keeps the one on its own side."""
    config, target = check.config, check.target
    against = config.against
    made = roll <= target if against == "at-most" else roll >= target
    high = any(rule.fires(roll, target, against) for rule in config.critical_success)
    low = any(rule.fires(roll, target, against) for rule in config.critical_failure)
    if high and low:
        high, low = made, not made
    success = (made or high) and not low
    return AgainstOutcome(roll, _natural(config, roll), success, high, low)


class _AgainstBands(BandRules):
    """Bands read how far on the succeeding side of the target a roll is, or (at most)
    the share of the target it came under; a lone die without tens dice shows naturals."""

    reads: tuple[By, ...] = ("margin", "total", "fraction")

    def margin(self, total: int, dc: int, against: Against) -> int:
        return dc - total if against == "at-most" else total - dc

    def margin_edges(
        self, cuts: Sequence[int], against: Against
    ) -> tuple[tuple[int, ...], bool, bool] | None:
        if against == "at-most":
            return tuple(-cut for cut in cuts), False, True
        return tuple(cuts), True, True

    def single_die(self, block: Mapping[str, Any]) -> bool:
        dice = block.get("dice")
        count = dice.get("count", 1) if isinstance(dice, Mapping) else 1
        return count == 1 and "tens" not in block


BANDS = _AgainstBands()
