"""symbol-pool's play half: from a tag's ask to a prepared check."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

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
from dicebound.kinds.base import (
    CheckAsk,
    DiceThrower,
    Marks,
    Prepared,
    Rolled,
    SkillAsk,
    Tables,
)
from dicebound.kinds.symbol_pool.words import SymbolPoolWords
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.spend import buy, parse_spend

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.model import (
    BANDS,
    SymbolCheck,
    SymbolConfig,
    SymbolOutcome,
    dice_text,
)
from dicebound.kinds.symbol_pool.odds import distribution, folded
from dicebound.kinds.symbol_pool.roll import roll
from dicebound.kinds.symbol_pool.throw import Thrower, symbol_config


def _opposing(config: SymbolConfig, ask: CheckAsk) -> int:
    """``dc=`` wins (held to 0..difficulty.max), else the ``difficulty=`` step's."""
    top = config.difficulty.max
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, 0, top)
    step = asked_step(ask)
    if step is not None and step.dc is not None:
        return clamp(step.dc, 0, top)
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(
        f"the tag names no difficulty: write dc=N (opposing dice) or difficulty= one of {labels}."
    )


def _harder(dc: int, ladder: Sequence[LadderStep], top: int) -> int:
    """One step harder: the next ladder step above ``dc`` (unchanged at the top)."""
    return min(next_step_dc(dc, ladder), max(top, dc))


def _asked_count(attrs: Mapping[str, str], key: str) -> int:
    """A nonnegative count a tag asks for (``upgrade``, ``setback``, ``upgradeOwn``);
    anything else reads as 0 (ignored)."""
    value = written_int(attrs, key)
    return value if value is not None and value > 0 else 0


class SymbolSkill(NamedTuple):
    """What a symbol-pool check's roller decides: the dice the sheet builds and how many
    of them are upgraded, the signed number the sheet adds (its bonus, penalty and
    adjust: boost or setback dice), whether untrained makes it a step harder, and the
    record attributes the sheet wrote."""

    dice: int
    upgraded: int
    signed: int
    harder: bool
    extras: tuple[tuple[str, str | int], ...]


class SymbolPoolPlayer(SymbolPoolWords):
    """The play half of symbol-pool: ability and rank build the pool, the difficulty
    the opposing dice, and signed adjustments add boost or setback dice."""

    bands = BANDS
    plain_marks = True
    dc_words = "difficulty dice"

    def prepare_skill(self, config: SymbolConfig, ask: SkillAsk) -> SymbolSkill:
        view = ask.view
        with_id = ask.with_ability if ask.group != "ability" else None
        number = view.check_number(ask.group, ask.item_id, with_id)
        ability = max(0, math.floor(number.ability_mod))
        rank = max(0, number.tier_bonus) if ask.group != "ability" else 0
        if config.build == "sum":
            sheet_dice, sheet_up = ability + rank, 0
        else:
            sheet_dice = max(ability, rank)
            sheet_up = min(ability, rank) if config.pool.upgrade is not None else 0
        if number.cap is not None:  # the dice the sheet builds, as a pool's number is held
            sheet_dice = min(sheet_dice, max(0, number.cap))
            sheet_up = min(sheet_up, sheet_dice)
        penalty = view.penalty()
        adjust = view.adjust_for(number.abilities)
        sheet_bonus = number.bonus + number.untrained_by if ask.group != "ability" else 0
        harder = number.untrained and number.untrained_rule == "harder"
        extras = tuple(sheet_extras(view, number, penalty, adjust))
        return SymbolSkill(sheet_dice, sheet_up, sheet_bonus + penalty + adjust, harder, extras)

    def prepare_question(self, config: SymbolConfig, skill: SymbolSkill, ask: CheckAsk) -> Prepared:
        view, attrs = ask.view, ask.attrs
        sheet_dice, sheet_up = skill.dice, skill.upgraded
        top = config.pool.max
        size = min(sheet_dice, top)
        upgraded = min(sheet_up, size)

        purchase = buy(config.spend, parse_spend(attrs.get("spend")), view, sheet_number=sheet_dice)
        if purchase is not None:
            with_bought = min(size + purchase.dice, top)
            if with_bought == size:  # no room within pool.max: nothing bought or paid
                purchase = None
            size = with_bought

        own = 0
        if config.allow_own_upgrade and config.pool.upgrade is not None:
            asked = _asked_count(attrs, "upgradeown")
            convert = min(asked, size - upgraded)
            added = min(asked - convert, top - size)
            upgraded += convert + added
            size += added
            own = convert + added

        tag_bonus = written_int(attrs, "bonus") or 0
        boost_top = config.boost.max if config.boost is not None else 0
        setback_top = config.setback.max if config.setback is not None else 0
        signed = tag_bonus + skill.signed
        boost = clamp(signed, 0, boost_top)
        shared_setback = clamp(-signed, 0, setback_top)
        setback = min(shared_setback + _asked_count(attrs, "setback"), setback_top)
        shown_bonus = clamp(tag_bonus, -setback_top, boost_top)

        opposing = _opposing(config, ask)
        if skill.harder:
            opposing = _harder(opposing, ask.ladder, config.difficulty.max)
        up = 0
        if config.difficulty.upgrade is not None:
            up = min(_asked_count(attrs, "upgrade"), opposing)

        thrown: list[str] = [config.pool.die] * (size - upgraded)
        if config.pool.upgrade is not None:
            thrown += [config.pool.upgrade] * upgraded
        if config.boost is not None:
            thrown += [config.boost.die] * boost
        vs_at = len(thrown)
        thrown += [config.difficulty.die] * (opposing - up)
        if config.difficulty.upgrade is not None:
            thrown += [config.difficulty.upgrade] * up
        if config.setback is not None:
            thrown += [config.setback.die] * setback
        check = SymbolCheck(config, tuple(thrown), config.needed, vs_at)

        extras = list(skill.extras)
        if shown_bonus:
            extras.append(("bonus", shown_bonus))
        costs: tuple[tuple[str, int], ...] = ()
        if purchase is not None:
            costs = ((purchase.pool, purchase.paid),)
            extras.append(("spend", f"{purchase.pool}:{purchase.paid}"))
        if up:
            extras.append(("upgrade", up))
        if setback > shared_setback:
            extras.append(("setback", setback - shared_setback))
        if own:
            extras.append(("upgradeOwn", own))
        success_label = config.symbol(config.success).label
        summary = f"{dice_text(check.thrown, vs_at)}, needing {config.needed} {success_label}"
        return Prepared(check, config.needed, tuple(extras), summary, costs)

    def roll(self, check: SymbolCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: SymbolCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order: never decided by a face."""
        config = check.config
        return tuple(config.die(die_id).sides for die_id in check.thrown)

    def distribution(self, check: SymbolCheck) -> Dist[SymbolOutcome]:
        return distribution(check)

    def odds_distribution(self, check: SymbolCheck, tables: Tables) -> Dist[SymbolOutcome]:
        return distribution(check, tables)

    def folded(
        self, check: SymbolCheck, tables: Tables | None = None, naturals: bool = True
    ) -> list[Group]:
        return folded(check, tables)

    def margin(self, check: SymbolCheck, outcome: SymbolOutcome) -> int:
        """Net successes minus those needed, plus one (the page)."""
        return outcome.total - check.needed + 1

    def critical_marks(self, outcome: SymbolOutcome) -> Marks:
        return outcome.critical_marks

    def thrower(self, ruleset: Ruleset) -> DiceThrower:
        symbol_config(ruleset)
        return Thrower(ruleset)


PLAYER = SymbolPoolPlayer()
