"""roll-against's play half: from a tag's ask to a prepared check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.kinds.asks import asked_step, clamp, sheet_extras, written_int
from dicebound.kinds.base import CheckAsk, Prepared, Rolled, SkillAsk
from dicebound.kinds.roll_against.model import (
    BANDS,
    TAG_DC_RANGE,
    Against,
    AgainstCheck,
    AgainstConfig,
    AgainstOutcome,
    Natural,
)
from dicebound.kinds.roll_against.odds import distribution
from dicebound.kinds.roll_against.roll import roll
from dicebound.kinds.roll_against.words import RollAgainstWords
from dicebound.ruleset.model import LadderStep


class AgainstSkill(NamedTuple):
    """What a roll-against check's roller decides: the number rolled against before the
    question moves it (penalty and adjust in), whether untrained makes it a step
    harder, and the record attributes the sheet wrote."""

    base: int
    harder: bool
    extras: tuple[tuple[str, str | int], ...]


def _step_target(base: int, step: LadderStep | None, shift: int) -> int:
    """The target at a ladder step: the number divided (rounded down), plus the step's dc,
    plus the tag's ``dc=``."""
    if step is None:
        return base + shift
    divide = step.divide or 1
    return base // divide + (step.dc or 0) + shift


def _harder(
    target: int, base: int, shift: int, ladder: Sequence[LadderStep], against: Against
) -> int:
    """One step harder: the nearest target a ladder step gives that is harder than
    ``target`` (lower at most, higher at least); unchanged where none is."""
    targets = [_step_target(base, step, shift) for step in ladder]
    if against == "at-most":
        lower = [t for t in targets if t < target]
        return max(lower) if lower else target
    higher = [t for t in targets if t > target]
    return min(higher) if higher else target


class RollAgainstPlayer(RollAgainstWords):
    """The play half of roll-against: the sheet's number is the target."""

    bands = BANDS
    dc_words = "shift of the target, -100 to +100"

    def prepare_skill(self, config: AgainstConfig, ask: SkillAsk) -> AgainstSkill:
        with_id = ask.with_ability if ask.group != "ability" else None
        number = ask.view.check_number(ask.group, ask.item_id, with_id)
        penalty = ask.view.penalty()
        adjust = ask.view.adjust_for(number.abilities)
        extras = tuple(sheet_extras(ask.view, number, penalty, adjust))
        harder = number.untrained_rule == "harder"
        return AgainstSkill(number.number + penalty + adjust, harder, extras)

    def prepare_question(
        self, config: AgainstConfig, skill: AgainstSkill, ask: CheckAsk
    ) -> Prepared:
        base = skill.base
        shift = clamp(written_int(ask.attrs, "dc") or 0, *TAG_DC_RANGE)
        step = asked_step(ask)
        target = _step_target(base, step, shift)
        if skill.harder:
            target = _harder(target, base, shift, ask.ladder, config.against)
        tens = 0
        if config.tens_max is not None:
            tens = clamp(written_int(ask.attrs, "bonus") or 0, -config.tens_max, config.tens_max)
        extras = skill.extras
        if tens:
            extras += (("bonus", tens),)
        way = "at most" if config.against == "at-most" else "at least"
        summary = f"{config.dice_text} {way} {target}"
        if tens:
            summary += f" with {abs(tens)} {'bonus' if tens > 0 else 'penalty'} tens dice"
        check = AgainstCheck(config, target, tens)
        return Prepared(check, target, extras, summary)

    def roll(self, check: AgainstCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: AgainstCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order (the d100, then the tens dice): never decided by
        a face."""
        if check.tens:
            return (100,) + (10,) * abs(check.tens)
        return (check.config.sides,) * check.config.count

    def distribution(self, check: AgainstCheck) -> Dist[AgainstOutcome]:
        return distribution(check)

    def margin(self, check: AgainstCheck, outcome: AgainstOutcome) -> int:
        """How far on the succeeding side of the target the roll is."""
        if check.config.against == "at-most":
            return check.target - outcome.total
        return outcome.total - check.target

    def natural(self, outcome: AgainstOutcome) -> Natural:
        return outcome.natural

    def against(self, config: AgainstConfig) -> Against:
        return config.against


PLAYER = RollAgainstPlayer()
