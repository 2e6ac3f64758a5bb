"""dice-sum's play half: from a tag's ask to a prepared check, and its words."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple

from dicebound.bands import Group
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError
from dicebound.kinds.asks import (
    ladder_labels,
    next_step_dc,
    sheet_extras,
    written_int,
)
from dicebound.kinds.base import CheckAsk, KindPlayer, Prepared, Rolled, SkillAsk, Tables
from dicebound.kinds.dice_sum.model import (
    BANDS,
    Mode,
    Natural,
    NaturalRule,
    SumCheck,
    SumConfig,
    SumOutcome,
)
from dicebound.kinds.dice_sum.odds import distribution, folded
from dicebound.kinds.dice_sum.roll import roll
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.tags.names import ladder_dcs, step_named
from dicebound.values import new_tuple

SUM_DC_RANGE = (1, 40)
"""A summed check's dc range before the ladder widens it (docs/design/format.md "dice-sum")."""


def _dc(ruleset: Ruleset, attrs: Mapping[str, str], ladder: Sequence[LadderStep]) -> int:
    """``dc=`` wins, else the ``difficulty=`` step's; held to 1..40 widened by the ladder."""
    written = written_int(attrs, "dc") if "dc" in attrs else None
    if written is not None:
        dcs = ladder_dcs(ruleset, ladder)
        low, high = min((SUM_DC_RANGE[0], *dcs)), max((SUM_DC_RANGE[1], *dcs))
        return low if written < low else high if written > high else written  # clamped
    step = step_named(ruleset, ladder, attrs.get("difficulty"))
    if step is not None and step.dc is not None:
        return step.dc
    asked = attrs.get("difficulty")
    labels = ladder_labels(ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(f"the tag names no difficulty: write dc=N or difficulty= one of {labels}.")


def _mode(attrs: Mapping[str, str], advantage: bool) -> Mode:
    """``mode=`` or a bare flag; both at once is not rolled; ignored without advantage."""
    mode = attrs.get("mode", "").strip().lower()
    better = mode == "advantage" or "advantage" in attrs
    worse = mode == "disadvantage" or "disadvantage" in attrs
    if better and worse:
        raise TagError("the tag asks for advantage and disadvantage at once; ask for one.")
    if not advantage or not (better or worse):
        return "normal"
    return "advantage" if better else "disadvantage"


class SumSkill(NamedTuple):
    """What a dice-sum check's roller decides: the number added to the dice (the sheet's,
    its penalty and adjust), the natural rule its group reads, whether untrained makes
    it a step harder, the record attributes the sheet wrote, and the summary's start
    (the dice and the number: "4d3+4 against ")."""

    modifier: int
    naturals: NaturalRule
    harder: bool
    extras: tuple[tuple[str, str | int], ...]
    summary: str


class DiceSumPlayer(KindPlayer[SumConfig, SumCheck, SumOutcome]):
    """The play half of dice-sum: the sheet's number is added to the dice."""

    bands = BANDS
    signed_numbers = True

    def prepare_skill(self, config: SumConfig, ask: SkillAsk) -> SumSkill:
        with_id = ask.with_ability if ask.group != "ability" else None
        view = ask.view
        number = view.check_number(ask.group, ask.item_id, with_id)
        penalty = view.penalty()
        # ``adjust_for`` is 0 without entries: its abilities need not be gathered then
        adjust = view.adjust_for(number.abilities) if view.ruleset.resolution.adjust else 0
        naturals = config.naturals_save if ask.group == "save" else config.naturals_check
        extras = tuple(sheet_extras(view, number, penalty, adjust))
        harder = number.untrained_rule == "harder"
        modifier = number.number + penalty + adjust
        summary = f"{config.dice_text}{modifier:+d} against "
        return SumSkill(modifier, naturals, harder, extras, summary)

    def prepare_question(self, config: SumConfig, skill: SumSkill, ask: CheckAsk) -> Prepared:
        question = self.odds_question(config, skill, ask.view.ruleset, ask.attrs, ask.ladder)
        (mode, naturals), dc, modifier, summary = question
        # made without SumCheck's checks: the mode is one the config throws (``_mode``
        # asks for advantage only where it has it) and the rule is the config's own
        check: SumCheck = new_tuple(SumCheck, (config, modifier, dc, mode, naturals))
        return new_tuple(Prepared, (check, dc, skill.extras, summary, ()))  # type: ignore[no-any-return]

    def odds_question(
        self,
        config: SumConfig,
        skill: SumSkill,
        ruleset: Ruleset,
        attrs: Mapping[str, str],
        ladder: Sequence[LadderStep],
    ) -> tuple[tuple[Mode, NaturalRule], int, int, str]:
        """What a question adds to a skill: its dc (a step harder untrained), its mode
        and the summary, the mode beside the natural rule its ``odds_key`` reads, and
        the modifier, its ``odds_shift`` (``prepare_question`` makes its check of
        these)."""
        # the usual difficulty= first: a dc= or a step without a dc is ``_dc``'s
        step = None if "dc" in attrs else step_named(ruleset, ladder, attrs.get("difficulty"))
        dc = step.dc if step is not None and step.dc is not None else _dc(ruleset, attrs, ladder)
        if skill.harder:
            dc = next_step_dc(dc, ladder)
        mode: Mode = "normal"
        if "mode" in attrs or "advantage" in attrs or "disadvantage" in attrs:
            mode = _mode(attrs, config.advantage)
        summary = f"{skill.summary}{dc}" if mode == "normal" else f"{skill.summary}{dc} with {mode}"
        return (mode, skill.naturals), dc, skill.modifier, summary

    def odds_key(self, check: SumCheck) -> Hashable:
        """The mode picks the dice's table and the natural rule marks its parts; the
        modifier moves it (``odds_shift``) and the dc reads it."""
        return (check.mode, check.naturals)

    def odds_shift(self, check: SumCheck) -> int:
        """The modifier: every total of the dice's table moved by it, marks unchanged."""
        return check.modifier

    def roll(self, check: SumCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: SumCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order; None when a die may roll on (open-ended)."""
        config = check.config
        if config.open_ended is not None:
            return None
        return (config.sides,) * (config.count * (1 if check.mode == "normal" else 2))

    def distribution(self, check: SumCheck) -> Dist[SumOutcome]:
        return distribution(check)

    def folded(
        self, check: SumCheck, tables: Tables | None = None, naturals: bool = True
    ) -> list[Group]:
        return folded(check, tables, naturals)

    def margin(self, check: SumCheck, outcome: SumOutcome) -> int:
        return outcome.total - check.dc

    def natural(self, outcome: SumOutcome) -> Natural:
        return outcome.natural

    def unmodified(self, config: SumConfig) -> Sequence[int]:
        return tuple(config.unmodified)

    def attribute_lines(self, ruleset: Ruleset, config: SumConfig) -> list[str]:
        if not config.advantage:
            return []
        return ['mode="advantage" or mode="disadvantage": roll twice, keep the better or worse.']


PLAYER = DiceSumPlayer()
