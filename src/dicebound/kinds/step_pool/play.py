"""step-pool's play half: from a tag's ask to a prepared check."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from dicebound.bands import Bands
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError
from dicebound.kinds.asks import ability_label, asked_step, clamp, ladder_labels, written_int
from dicebound.kinds.base import CheckAsk, OfferRead, Prepared, Rolled, SkillAsk
from dicebound.kinds.step_pool.after import spend_after
from dicebound.kinds.step_pool.model import (
    BANDS,
    AfterResult,
    StepCheck,
    StepConfig,
    StepOutcome,
    signed,
)
from dicebound.kinds.step_pool.odds import distribution, distribution_after
from dicebound.kinds.step_pool.offer import read_offer
from dicebound.kinds.step_pool.roll import roll
from dicebound.kinds.step_pool.words import StepPoolWords
from dicebound.problems import did_you_mean
from dicebound.ruleset.model import Field, LadderStep
from dicebound.sheet import SheetView
from dicebound.tags.names import normalize


def _target(config: StepConfig, ask: CheckAsk) -> int:
    """``dc=`` held to the target's range, else the ``difficulty=`` step's, else the
    default target."""
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, config.target_min, config.target_max)
    step = asked_step(ask)
    if step is not None and step.dc is not None:
        return clamp(step.dc, config.target_min, config.target_max)
    asked = ask.attrs.get("difficulty")
    if asked is not None:
        labels = ladder_labels(ask.ladder)
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    return config.target_default


def _harder(config: StepConfig, target: int, ladder: Sequence[LadderStep]) -> int:
    """One step harder: the next ladder step above the target, held to the target's max."""
    above = sorted(s.dc for s in ladder if s.dc is not None and s.dc > target)
    return min(above[0], config.target_max) if above else target


def _quality(config: StepConfig, ask: CheckAsk) -> tuple[str | None, int]:
    """The number field ``quality=`` names and its value rounded down; (None, 0) when the
    tag names none or the ruleset offers no quality."""
    asked = ask.attrs.get("quality")
    if config.quality_label is None or asked is None or not asked.strip():
        return None, 0
    name = asked.split(":")[0]  # a record's "agility:+1@1" reads back as its field
    fields = ask.view.ruleset.sheet.fields
    hit = _field_named(fields, name)
    numbers = [f.id for f in fields if f.type == "number"]
    if hit is None:
        raise TagError(
            f'quality="{asked}" names no number field of the sheet.{did_you_mean(name, numbers)}'
        )
    if hit.type != "number":
        raise TagError(
            f'quality="{asked}" names {hit.label}, a {hit.type} field; a quality is a number field.'
        )
    return hit.id, math.floor(ask.view.field_number(hit.id))


def _field_named(fields: Sequence[Field], name: str) -> Field | None:
    wanted = normalize(name)
    for f in fields:
        if wanted in (normalize(f.id), normalize(f.label)):
            return f
    return None


def _tool(config: StepConfig, ask: CheckAsk) -> int:
    """``tool=`` held to 0..max; ignored when not a whole number or not offered."""
    asked = ask.attrs.get("tool")
    if config.tool_label is None or asked is None:
        return 0
    written = re.sub(r"@\d+\s*$", "", asked)  # a record's "+1@2" reads back as +1
    value = written_int({"tool": written}, "tool")
    return 0 if value is None else clamp(value, 0, config.tool_max)


def _numbers(config: StepConfig, ask: SkillAsk) -> tuple[int, int, list[tuple[str, str | int]]]:
    """The talent number, the training number, and the record's extras they bring."""
    view = ask.view
    extras: list[tuple[str, str | int]] = []
    if ask.group == "ability":
        first = view.ruleset.resolution.tiers[0]
        return math.floor(view.ability_mod(ask.item_id)), view.tier_bonus(first), extras
    number = view.check_number(ask.group, ask.item_id, ask.with_ability)
    talent = math.floor(number.ability_mod) if number.ability is not None else 0
    training = number.tier_bonus + number.bonus + number.untrained_by
    if number.cap is not None:
        training = min(training, number.cap)
    if number.swapped and number.ability is not None:
        extras.append(("with", ability_label(view, number.ability)))
    return talent, training, extras


class StepSkill(NamedTuple):
    """What a step-pool check's roller decides: the talent and training dice the sheet's
    numbers pick, whether untrained makes it a step harder, what the roller holds in
    each pool a spend after the roll reads, and the record attributes the sheet wrote."""

    talent: int
    training: int
    harder: bool
    holdings: tuple[tuple[str, int], ...]
    extras: tuple[tuple[str, str | int], ...]


class StepPoolPlayer(StepPoolWords):
    """The play half of step-pool: the sheet's numbers pick the dice."""

    bands = BANDS
    spends_after = True
    dc_words = "target number each die must reach"

    def prepare_skill(self, config: StepConfig, ask: SkillAsk) -> StepSkill:
        talent_n, training_n, extras = _numbers(config, ask)
        untrained = None
        if ask.group != "ability":
            number = ask.view.check_number(ask.group, ask.item_id, ask.with_ability)
            untrained = number.untrained_rule if number.untrained else None
        if untrained in ("harder", "by"):
            extras.append(("reason", "untrained"))
        holdings = tuple((s.pool, ask.view.pool_value(s.pool)) for s in config.spend)
        return StepSkill(
            config.step(talent_n),
            config.step(training_n),
            untrained == "harder",
            holdings,
            tuple(extras),
        )

    def prepare_question(self, config: StepConfig, skill: StepSkill, ask: CheckAsk) -> Prepared:
        target = _target(config, ask)
        if skill.harder:
            target = _harder(config, target, ask.ladder)
        field_id, quality = _quality(config, ask)
        tool = _tool(config, ask)
        bands = ask.view.ruleset.resolution.outcomes
        check = StepCheck(
            config=config,
            talent=skill.talent,
            training=skill.training,
            target=target,
            quality=quality,
            quality_field=field_id,
            tool=tool,
            holdings=skill.holdings,
            bands=bands if isinstance(bands, Bands) else None,
        )
        summary = f"{check.dice_text} against {target}"
        if check.free_quality:
            summary += f", quality {signed(quality)}"
        if tool:
            summary += f", tool {signed(tool)}"
        return Prepared(check, target, skill.extras, summary)

    def roll(self, check: StepCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: StepCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order (talent, then training): never decided by a face."""
        return check.dice

    def distribution(self, check: StepCheck) -> Dist[StepOutcome]:
        return distribution(check)

    def margin(self, check: StepCheck, outcome: StepOutcome) -> int:
        return outcome.total - 1

    def after(
        self, check: StepCheck, outcome: StepOutcome, pool_id: str, points: int, view: SheetView
    ) -> AfterResult:
        """The player's spend after the roll (``spend_after``)."""
        return spend_after(check, outcome, pool_id, points, view)

    def distribution_after(
        self, check: StepCheck, pool_id: str, points: int, view: SheetView
    ) -> Dist[StepOutcome]:
        """The odds when the player spends up to ``points`` whenever it raises the EFFORT."""
        return distribution_after(check, pool_id, points, view.pool_value(pool_id))

    def read_offer(self, text: str) -> OfferRead | None:
        offer = read_offer(text)
        return None if offer is None else OfferRead(offer.label, offer.costs)


PLAYER = StepPoolPlayer()
