"""dice-pool's play half: from a tag's ask to a prepared check, and its words."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from dicebound.charms import EntryUse, spend_is_for_entry, use_entry
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError
from dicebound.kinds.asks import (
    ability_label,
    asked_step,
    clamp,
    ladder_labels,
    sheet_extras,
    written_int,
)
from dicebound.kinds.base import CheckAsk, KindPlayer, Prepared, Rolled, SkillAsk, Tables
from dicebound.kinds.dice_pool.model import FaceRule, PoolCheck, PoolConfig, PoolOutcome, Stance
from dicebound.kinds.dice_pool.odds import distribution, kept_distribution
from dicebound.kinds.dice_pool.roll import roll
from dicebound.kinds.words import situational_lines
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.spend import Reroll, Spend, buy, parse_spend
from dicebound.tags.names import normalize


def _needed(config: PoolConfig, ask: CheckAsk) -> tuple[int, LadderStep | None]:
    """The successes the check needs and the ladder step whose target it counts with.

    ``dc=`` wins for the number, held to 1..the most one roll could count; else the
    ``difficulty=`` step's. The step is the one ``difficulty=`` names, else the one step
    needing exactly the ``dc=`` (none where several steps need it).
    """
    most = config.max_successes
    named = asked_step(ask)
    written = written_int(ask.attrs, "dc")
    if written is not None:
        needed = clamp(written, 1, most)
        if named is None:
            same = [s for s in ask.ladder if s.successes == needed]
            named = same[0] if len(same) == 1 else None
        return needed, named
    if named is not None and named.successes is not None:
        return clamp(named.successes, 1, most), named
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(
        f"the tag names no difficulty: write dc=N (the successes needed) or difficulty= "
        f"one of {labels}."
    )


def _moved_face(
    rule: FaceRule | None, written: int | None, entry: int | None, sides: int
) -> int | None:
    """A rule's face for one check: an entry's outranks the tag's, each held to the rule's
    ``min`` and the die's top face, and only where the rule has a ``min``."""
    if rule is None:
        return None
    if rule.min is None:
        return rule.from_face
    for asked in (entry, written):
        if asked is not None:
            return clamp(asked, rule.min, sides)
    return rule.from_face


def _standing_reroll(config: PoolConfig, name: str | None) -> Reroll | None:
    """The ``resolution.reroll`` a ``reroll=`` names (by id, any case), or None."""
    if name is None:
        return None
    wanted = normalize(name)
    return next((r for r in config.rerolls if r.id is not None and normalize(r.id) == wanted), None)


def _spent(payments: Sequence[tuple[str, int]]) -> str:
    """The record's ``spend``: each pool paid and how much, ``pool:N``, comma-joined."""
    paid: dict[str, int] = {}
    for key, amount in payments:
        paid[key] = paid.get(key, 0) + amount
    return ",".join(f"{key}:{amount}" for key, amount in paid.items())


class PoolSkill(NamedTuple):
    """What a dice-pool check's roller decides: the sheet's number (what a spend reads),
    the dice it throws before the question (penalty and adjust in), the stance its
    skill takes, the per-die target the sheet sets (None: the question's), whether
    untrained makes it a step harder, and the record attributes the sheet wrote."""

    number: int
    dice: int
    stance: Stance | None
    target: int | None
    harder: bool
    extras: tuple[tuple[str, str | int], ...]


class DicePoolPlayer(KindPlayer[PoolConfig, PoolCheck, PoolOutcome]):
    """The play half of dice-pool: the sheet's number is how many dice are thrown.

    Readings where the documents are silent (docs/design/readings.md settles the rest):

    - The per-die target: ``target.from`` (the character's own number) or the default;
      then a ladder step's target, then ``threshold=`` (neither moves a target read off
      the sheet, both only where the target moves); then an entry's ``threshold``, which
      outranks them all; then ``untrained: "harder"`` adds one. Held to
      ``target.min..target.max``.
    - ``with=`` naming the ability an ability check already rolls adds nothing.
    - A botch reads the dice: successes nobody rolled (bought by a spend or an entry)
      neither stop it nor make "a die succeeded".
    - ``reroll=`` names a standing re-throw by id, in any case. ``explode=`` and
      ``double=`` are written on the record only when the face differs from the rule's
      own ``from``.
    - An empty pool buys nothing: a spend or an entry on a check whose pool comes to no
      dice, bought dice included, is not applied and not paid.
    - A purchase that does not happen (cannot be paid, not a whole number of purchases,
      a name nothing answers to) leaves no mark on the record: the record's ``spend``,
      ``use`` and ``auto`` say only what was paid and applied.
    - ``spend=`` goes to a used entry when it names a pool the entry pays from, else to
      ``resolution.spend``; both may be bought on one check, and together they must fit
      in the pools. Beside a ``use=`` naming no entry the roller picked, ``spend=`` buys
      nothing (``charms.spend_is_for_entry``).
    - The record's ``spend`` lists every pool paid (an entry's cost and a spend), as
      ``pool:N`` joined by commas; an entry's list-row counters show in the changes only.
    - ``rerolled`` counts the dice thrown again (an ``until`` die thrown again three
      times is one), written when there is at least one; ``exact`` when at least one die
      showed the exact target.
    """

    def prepare_skill(self, config: PoolConfig, ask: SkillAsk) -> PoolSkill:
        view = ask.view
        second: str | None = None
        if ask.group == "ability":
            if config.ability_plus_ability and ask.with_ability not in (None, ask.item_id):
                second = ask.with_ability
            number = view.check_number("ability", ask.item_id, second)
        else:
            number = view.check_number(ask.group, ask.item_id, ask.with_ability)
        stance = None
        if ask.group == "skill":
            stance = next((s for s in config.stances if ask.item_id in s.skills), None)
        penalty = view.penalty()
        adjust = view.adjust_for(number.abilities)
        target = None
        if config.target_from is not None:
            low, high = config.target_min, config.target_max
            target = clamp(math.floor(view.value(config.target_from)), low, high)
        harder = number.untrained and number.untrained_rule == "harder"
        extras = sheet_extras(view, number, penalty, adjust)
        if second is not None:
            extras.append(("with", ability_label(view, second)))
        return PoolSkill(
            number.number, number.number + penalty + adjust, stance, target, harder, tuple(extras)
        )

    def prepare_question(self, config: PoolConfig, skill: PoolSkill, ask: CheckAsk) -> Prepared:
        view, attrs = ask.view, ask.attrs
        needed, step = _needed(config, ask)
        stance = skill.stance

        spend_ask = parse_spend(attrs.get("spend"))
        entry = use_entry(view, attrs.get("use"), spend_ask)
        owed: dict[str, int] = {}
        for key, amount in entry.payments if entry is not None else ():
            owed[key] = owed.get(key, 0) + amount
        purchase = buy(
            config.spend,
            None if spend_is_for_entry(view, attrs.get("use"), spend_ask) else spend_ask,
            view,
            sheet_number=skill.number,
            committed=owed,
        )

        bonus = 0
        if config.situational is not None:
            bonus = clamp(written_int(attrs, "bonus") or 0, *config.situational)
        bought = (entry.effect.dice if entry else 0) + (purchase.dice if purchase else 0)
        size = clamp(skill.dice + bonus + bought, config.pool_min, config.pool_max)
        if size == 0:
            entry = purchase = None

        target = self._target(config, skill.target, ask, step, entry)
        if skill.harder:
            target = min(target + 1, config.target_max)

        sides = config.sides
        explode = double = None
        if stance is None:
            explode = _moved_face(
                config.explode,
                written_int(attrs, "explode"),
                entry.effect.explode if entry else None,
                sides,
            )
            double = _moved_face(
                config.double,
                written_int(attrs, "double"),
                entry.effect.double if entry else None,
                sides,
            )

        standing = _standing_reroll(config, attrs.get("reroll"))
        # One re-throw a check: the one reaching more faces, "until" over "once" on a tie,
        # the tag's first, then a spend's, then an entry's where they are the same.
        offers = [
            r
            for r in (
                standing,
                purchase.reroll if purchase is not None else None,
                entry.effect.reroll if entry is not None else None,
            )
            if r is not None
        ]
        chosen = max(offers, key=lambda r: (r.up_to, r.mode == "until"), default=None)
        auto = (entry.effect.successes if entry else 0) + (purchase.successes if purchase else 0)
        check = PoolCheck(
            sides=sides,
            dice=size,
            target=target,
            needed=needed,
            count="at-least" if stance is None else stance.count,
            explode_from=explode,
            double_from=double,
            cancel_up_to=config.cancel_up_to if stance is None else None,
            botch_up_to=config.botch_up_to if stance is None else None,
            botch_rule=config.botch_rule,
            exceptional=config.exceptional,
            exact=None if config.exact is None else config.exact.counts,
            reroll=chosen,
            reroll_id=chosen.id if chosen is not None and chosen is standing else None,
            auto=auto,
            max_extra=config.pool_max,
        )

        extras: list[tuple[str, str | int]] = [("threshold", target), *skill.extras]
        if bonus:
            extras.append(("bonus", bonus))
        costs: list[tuple[str, int]] = []
        if entry is not None:
            costs.extend(entry.payments)
        if purchase is not None:
            costs.append((purchase.pool, purchase.paid))
        spent = list(entry.costs) if entry is not None else []
        if purchase is not None:
            spent.append((purchase.pool, purchase.paid))
        if spent:
            extras.append(("spend", _spent(spent)))
        if auto:
            extras.append(("auto", auto))
        if entry is not None:
            extras.append(("use", entry.entry.label))
        for key, face, rule in (
            ("explode", explode, config.explode),
            ("double", double, config.double),
        ):
            if face is not None and rule is not None and face != rule.from_face:
                extras.append((key, face))
        return Prepared(check, needed, tuple(extras), _summary(check), tuple(costs))

    @staticmethod
    def _target(
        config: PoolConfig,
        sheet: int | None,
        ask: CheckAsk,
        step: LadderStep | None,
        entry: EntryUse | None,
    ) -> int:
        """The per-die target: the sheet's (``sheet``, read by ``prepare_skill``), else
        the default moved by the ladder step and ``threshold=``; an entry's outranks
        both."""
        low, high = config.target_min, config.target_max
        if sheet is not None:
            target = sheet
        else:
            target = config.target_default
            if config.target_adjustable:
                if step is not None and step.target is not None:
                    target = clamp(step.target, low, high)
                written = written_int(ask.attrs, "threshold")
                if written is not None:
                    target = clamp(written, low, high)
        if entry is not None and entry.effect.threshold is not None:
            target = clamp(entry.effect.threshold, low, high)
        return target

    def roll(self, check: PoolCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: PoolCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order; None when a face may add or re-throw dice."""
        if check.explode_from is not None or check.reroll is not None:
            return None
        return (check.sides,) * check.dice

    def distribution(self, check: PoolCheck) -> Dist[PoolOutcome]:
        return distribution(check)

    def odds_distribution(self, check: PoolCheck, tables: Tables) -> Dist[PoolOutcome]:
        return kept_distribution(check, tables)

    def margin(self, check: PoolCheck, outcome: PoolOutcome) -> int:
        """Net successes minus those needed (the page's pool margin)."""
        return outcome.total - check.needed

    # -- words --------------------------------------------------------------------------

    dc_words = "successes needed"

    def step_words(self, step: LadderStep) -> str:
        target = f", target {step.target}" if step.target is not None else ""
        noun = "success" if step.successes == 1 else "successes"
        return f"{step.successes} {noun}{target}"

    def ladder_words(self, step: LadderStep) -> str:
        target = f" (target {step.target})" if step.target is not None else ""
        return f"{step.label}: {step.successes} successes{target}"

    def step_by_dc(
        self, kind: str, ladder: Sequence[LadderStep], step: LadderStep, shared: str
    ) -> list[tuple[str, str]] | str:
        """``dc=`` is the successes needed: it names a step no other step matches."""
        if step.successes is None:
            return f"{shared}, and dc= does not name a step on a {kind} check."
        same = [s for s in ladder if s.successes == step.successes]
        if same == [step]:
            return [("dc", str(step.successes))]
        return f"{shared}, and another step needs {step.successes} successes too."

    def attribute_lines(self, ruleset: Ruleset, config: PoolConfig) -> list[str]:
        lines: list[str] = []
        if config.target_min < config.target_max and config.target_from is None:
            lines.append(
                f'threshold="N": the face a die must reach, {config.target_min} to '
                f"{config.target_max} (default {config.target_default})."
            )
        for name, rule in (("explode", config.explode), ("double", config.double)):
            if rule is not None and rule.min is not None:
                lines.append(
                    f'{name}="N": move the {name} face for this check, down to {rule.min}.'
                )
        if config.rerolls:
            ids = ", ".join(f'"{r.id}"' for r in config.rerolls)
            lines.append(f"reroll=one of {ids}: a re-throw the situation grants for free.")
        if config.ability_plus_ability:
            lines.append('with="Ability" on an ability check: throw a second ability too.')
        if any(e.check for c in ruleset.catalogs for e in c.entries):
            lines.append('use="Name": a charm the character picked, applied to this check.')
        return lines + situational_lines(config.situational)

    def spends(self, config: PoolConfig) -> Sequence[Spend]:
        return config.spend

    def mark_texts(self, config: PoolConfig) -> list[str]:
        exact = config.exact
        return [f"- {exact.label}: {exact.text}"] if exact is not None and exact.text else []


def _summary(check: PoolCheck) -> str:
    """A short line for odds titles: "8d10, 7+ a die, 2 successes needed"."""
    if check.dice == 0:
        return f"no dice ({check.dice_text}): fails with no roll"
    per_die = {
        "at-least": f"{check.target}+ a die",
        "below": f"under {check.target} a die",
        "above": f"over {check.target} a die",
    }[check.count]
    need = f"{check.needed} success{'es' if check.needed != 1 else ''} needed"
    auto = f", {check.auto} bought" if check.auto else ""
    return f"{check.dice_text}, {per_die}, {need}{auto}"


PLAYER = DicePoolPlayer()
