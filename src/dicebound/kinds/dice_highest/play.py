"""dice-highest's play half: from a tag's ask to a prepared check, and its words."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from dicebound.bands import Group
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError
from dicebound.kinds.asks import (
    asked_step,
    clamp,
    ladder_labels,
    next_step_dc,
    sheet_extras,
    written_int,
)
from dicebound.kinds.base import CheckAsk, Prepared, Rolled, SkillAsk, Tables
from dicebound.kinds.dice_highest.model import (
    HighestCheck,
    HighestConfig,
    HighestOutcome,
    kept_words,
    plan_of,
)
from dicebound.kinds.dice_highest.odds import distribution, folded
from dicebound.kinds.dice_highest.roll import roll
from dicebound.kinds.dice_highest.words import DiceHighestWords
from dicebound.ruleset.model import LadderStep
from dicebound.spend import buy, parse_spend


def _bands_read_total(ask: CheckAsk) -> bool:
    """Whether the ruleset's outcome bands read the total, and so need no difficulty."""
    bands = ask.view.ruleset.resolution.outcomes
    return bands is not None and getattr(bands, "by", None) == "total"


def _dc(config: HighestConfig, ask: CheckAsk) -> int:
    """``dc=`` wins (held to 1..keep×sides), else the ``difficulty=`` step's; without
    either, 0 where bands read the total, else the tag is refused."""
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, 1, config.max_total)
    step = asked_step(ask)
    if step is not None and step.dc is not None:
        return clamp(step.dc, 1, config.max_total)
    if _bands_read_total(ask):
        return 0
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(f"the tag names no difficulty: write dc=N or difficulty= one of {labels}.")


class HighestSkill(NamedTuple):
    """What a dice-highest check's roller decides: the sheet's number (what a spend
    reads), the dice it throws before the question (penalty and adjust in), whether
    untrained makes it a step harder, and the record attributes the sheet wrote."""

    number: int
    dice: int
    harder: bool
    extras: tuple[tuple[str, str | int], ...]


def _harder(dc: int, ladder: Sequence[LadderStep]) -> int:
    """One step harder (unchanged where no dc was named)."""
    return dc if dc == 0 else next_step_dc(dc, ladder)


class DiceHighestPlayer(DiceHighestWords):
    """The play half of dice-highest: the sheet's number is how many dice are thrown."""

    def prepare_skill(self, config: HighestConfig, ask: SkillAsk) -> HighestSkill:
        with_id = ask.with_ability if ask.group != "ability" else None
        number = ask.view.check_number(ask.group, ask.item_id, with_id)
        penalty = ask.view.penalty()
        adjust = ask.view.adjust_for(number.abilities)
        extras = tuple(sheet_extras(ask.view, number, penalty, adjust))
        harder = number.untrained_rule == "harder"
        return HighestSkill(number.number, number.number + penalty + adjust, harder, extras)

    def prepare_question(
        self, config: HighestConfig, skill: HighestSkill, ask: CheckAsk
    ) -> Prepared:
        bonus = 0
        if config.situational is not None:
            bonus = clamp(written_int(ask.attrs, "bonus") or 0, *config.situational)
        unbought = skill.dice + bonus
        dice = clamp(unbought, config.pool_min, config.pool_max)
        purchase = buy(
            config.spend, parse_spend(ask.attrs.get("spend")), ask.view, sheet_number=skill.number
        )
        if purchase is not None:
            with_bought = clamp(unbought + purchase.dice, config.pool_min, config.pool_max)
            if with_bought == dice:  # the pool's range left no room: nothing bought or paid
                purchase = None
            dice = with_bought
        dark = 0
        if config.dark is not None:
            dark = clamp(written_int(ask.attrs, "dark") or 0, 0, config.dark.max)
        dc = _dc(config, ask)
        if skill.harder:
            dc = _harder(dc, ask.ladder)
        extras = list(skill.extras)
        if bonus:
            extras.append(("bonus", bonus))
        costs: tuple[tuple[str, int], ...] = ()
        if purchase is not None:
            costs = ((purchase.pool, purchase.paid),)
            extras.append(("spend", f"{purchase.pool}:{purchase.paid}"))
        summary = f"{dice}d{config.sides}" + (f" and {dark} dark" if dark else "")
        summary += f", the {kept_words(config.keep)}" + (f" against {dc}" if dc else "")
        check = HighestCheck(config, dice, dc, dark)
        return Prepared(check, dc, tuple(extras), summary, costs)

    def roll(self, check: HighestCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: HighestCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order (light dice, then dark): never decided by a face."""
        plan = plan_of(check)
        return (check.config.sides,) * (plan.light + plan.dark)

    def distribution(self, check: HighestCheck) -> Dist[HighestOutcome]:
        return distribution(check)

    def odds_distribution(self, check: HighestCheck, tables: Tables) -> Dist[HighestOutcome]:
        return distribution(check, tables)

    def folded(
        self, check: HighestCheck, tables: Tables | None = None, naturals: bool = True
    ) -> list[Group] | None:
        return folded(check, tables)

    def odds_key(self, check: HighestCheck) -> Hashable:
        """The dice thrown make the groups (``folded``); the dc reads them."""
        return (check.dice, check.dark)

    def margin(self, check: HighestCheck, outcome: HighestOutcome) -> int:
        return outcome.total - check.dc


PLAYER = DiceHighestPlayer()
