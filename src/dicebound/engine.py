"""One check, start to end: tag → request → sheet math → kind → record.

``resolve_text`` finds every ``[skill_check: ...]`` in a Game Master's text, resolves
each against the ruleset and the party, throws the dice from the source it is given
(or from seeds it is given), and hands back the text with every tag rewritten as its
record, one result or error per tag, and the characters as they stand afterwards.
Pure: the dice source or seed comes in, nothing is read or written outside.

A tag that cannot be resolved is an error with a sentence, written back sparse (the
ask only, still owing a roll); nothing is thrown or paid for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from dicebound.dice import DiceSource, ForcedFaces, SeededDice
from dicebound.errors import DiceError, TagError, UsageError
from dicebound.kinds import dice_sum
from dicebound.kinds.base import Rolled
from dicebound.problems import did_you_mean
from dicebound.record import Record, build_record, sparse_record
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Change, Character, CheckNumber, SheetView
from dicebound.tags.names import CheckTarget, normalize, resolve_target
from dicebound.tags.parse import TagMatch, parse_tags, rewrite

__all__ = [
    "CheckFailure",
    "CheckReport",
    "CheckResult",
    "PreparedCheck",
    "outcome_label",
    "prepare_check",
    "resolve_text",
    "tag_seed",
]

Critical = Literal["success", "failure", "both"] | None
SUM_DC_RANGE = (1, 40)
"""A summed check's dc range before the ladder widens it (FORMAT.md §11.2)."""

_PLAYED_KINDS = ("dice-sum",)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A resolved tag: the record, who rolled, the outcome and the live-state changes."""

    record: Record
    who: str
    outcome: str
    success: bool
    critical: Critical
    choice: Literal["open", "succeed", "fail"] | None = None
    changes: tuple[Change, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "tag": self.record.to_tag(),
            "who": self.who,
            "outcome": self.outcome,
            "success": self.success,
            "critical": self.critical,
            "choice": self.choice,
            "attrs": self.record.as_dict(),
            "changes": [c.to_json() for c in self.changes],
        }


@dataclass(frozen=True, slots=True)
class CheckFailure:
    """A tag that could not be resolved: the sparse record and the sentence why."""

    record: Record
    error: str

    def to_json(self) -> dict[str, object]:
        return {"tag": self.record.to_tag(), "error": self.error}


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Everything one text's tags came to, in the order they stand in the text."""

    text: str
    items: tuple[CheckResult | CheckFailure, ...]
    party: tuple[Character, ...] = field(default=())

    @property
    def results(self) -> tuple[CheckResult, ...]:
        return tuple(i for i in self.items if isinstance(i, CheckResult))

    @property
    def errors(self) -> tuple[CheckFailure, ...]:
        return tuple(i for i in self.items if isinstance(i, CheckFailure))

    def to_json(self) -> dict[str, object]:
        return {
            "results": [r.to_json() for r in self.results],
            "errors": [e.to_json() for e in self.errors],
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class PreparedCheck:
    """A tag resolved against the sheet, ready to throw: the kind's check plus what
    the record writes around the kind's numbers."""

    target: CheckTarget
    who: Character
    number: CheckNumber
    dc: int
    kind_check: dice_sum.SumCheck
    extras: tuple[tuple[str, str | int], ...] = ()


def tag_seed(seed: str, index: int) -> str:
    """Tag ``index`` (from 0) of a text uses ``S``, then ``S-1``, ``S-2``, ... (DESIGN.md)."""
    return seed if index == 0 else f"{seed}-{index}"


def outcome_label(success: bool, critical_success: bool, critical_failure: bool) -> str:
    """The plain outcome words of a check read without bands."""
    if critical_success:
        return "Critical success"
    if critical_failure:
        return "Critical failure"
    return "Success" if success else "Failure"


def _ladder(ruleset: Ruleset, layers: Sequence[str]) -> tuple[LadderStep, ...]:
    """The difficulty ladder in force: the last enabled layer that replaces it, else the
    ruleset's own."""
    ladder = ruleset.resolution.ladder
    for layer_id in layers:
        layer = ruleset.layer(layer_id)
        if layer is None:
            known = ", ".join(layer.id for layer in ruleset.layers) or "none"
            raise UsageError(f'"{layer_id}" is not a layer of {ruleset.name} (layers: {known}).')
        if layer.ladder is not None:
            ladder = layer.ladder
    return ladder


def _int_value(text: str | None) -> int | None:
    """A whole number as a model writes one ("15", "+2", " -3 ", "15.0"), or None."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*([+-]?)\s*(\d{1,9})(?:\.0*)?\s*", text)
    if match is None:
        return None
    return int(match.group(1) + match.group(2))


def _find_character(party: Sequence[Character], who: str | None) -> Character:
    if not party:
        raise TagError("no character was given to roll the check.")
    if who is None or not who.strip():
        return party[0]
    wanted = normalize(who)
    hits = [c for c in party if normalize(c.name) == wanted]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise TagError(f'who="{who}" names more than one character; use the full card name.')
    hint = did_you_mean(who, [c.name for c in party])
    names = ", ".join(c.name for c in party)
    raise TagError(f'who="{who}" is not a character of this party ({names}).{hint}')


def _find_ability(ruleset: Ruleset, name: str | None) -> str | None:
    """The ability id a ``with=`` names, or None (an unknown ability is ignored)."""
    if name is None:
        return None
    wanted = normalize(name)
    for ability in ruleset.sheet.abilities:
        names = (ability.id, ability.label, ability.short or "")
        if any(n and normalize(n) == wanted for n in names):
            return ability.id
    return None


def _step_by_label(ladder: Sequence[LadderStep], label: str | None) -> LadderStep | None:
    """The one ladder step a ``difficulty=`` names; a name no step or two steps answer
    to is ignored (the page)."""
    if label is None:
        return None
    hits = [s for s in ladder if normalize(s.label) == normalize(label)]
    return hits[0] if len(hits) == 1 else None


def _sum_dc(match: TagMatch, ladder: Sequence[LadderStep]) -> tuple[int, LadderStep | None]:
    """The dc of a summed check: ``dc=`` wins, else the ``difficulty=`` step's; held to
    the range 1..40 widened by the ladder."""
    dcs = [s.dc for s in ladder if s.dc is not None]
    low = min([SUM_DC_RANGE[0], *dcs])
    high = max([SUM_DC_RANGE[1], *dcs])
    step = _step_by_label(ladder, match.get("difficulty"))
    written = _int_value(match.get("dc"))
    if written is not None:
        return max(low, min(high, written)), step
    if step is not None and step.dc is not None:
        return step.dc, step
    labels = ", ".join(f'"{s.label}"' for s in ladder)
    asked = match.get("difficulty")
    why = (
        f'difficulty="{asked}" names no single step of the ladder ({labels})'
        if asked is not None
        else f"the tag names no difficulty: write dc=N or difficulty= one of {labels}"
    )
    raise TagError(f"{why}.")


def _harder(dc: int, ladder: Sequence[LadderStep]) -> int:
    """One step harder: the dc of the next ladder step above ``dc`` (unchanged at the top)."""
    above = sorted(s.dc for s in ladder if s.dc is not None and s.dc > dc)
    return above[0] if above else dc


def _mode(match: TagMatch, advantage: bool) -> Literal["normal", "advantage", "disadvantage"]:
    asked = {v for v in (normalize(match.get("mode") or ""),) if v}
    asked |= {k for k in ("advantage", "disadvantage") if match.has(k)}
    asked &= {"advantage", "disadvantage", "normal"}
    asked.discard("normal")
    if len(asked) > 1:
        raise TagError("the tag asks for advantage and disadvantage at once; ask for one.")
    if not advantage or not asked:
        return "normal"
    return "advantage" if "advantage" in asked else "disadvantage"


def prepare_check(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep] | None = None,
) -> PreparedCheck:
    """Resolve a tag against the ruleset and the sheet, throwing nothing.

    Raises:
        TagError: a sentence saying why the tag cannot be resolved.
    """
    if match.error is not None:
        raise TagError(match.error, match.span)
    kind = ruleset.resolution.kind
    if kind not in _PLAYED_KINDS:
        raise TagError(
            f"{kind} checks are not built yet in this version of dicebound, so the check "
            "was not rolled.",
            match.span,
        )
    ladder = ruleset.resolution.ladder if ladder is None else ladder
    name = match.get("skill")
    if name is None:
        raise TagError("the tag has no skill=: name a skill, a save or an ability.", match.span)
    target = resolve_target(ruleset, name)
    if isinstance(target, str):
        raise TagError(target, match.span)
    who = _find_character(party, match.get("who"))
    view = SheetView(ruleset, who)
    with_id = _find_ability(ruleset, match.get("with"))
    if target.group == "ability":
        with_id = None  # a summed ability check has no second ability
    number = view.check_number(target.group, target.id, with_id)
    if number.untrained_rule == "refuse":
        raise TagError(
            f"{who.name} cannot attempt {target.label} untrained, so it was not rolled.",
            match.span,
        )
    config = ruleset.resolution.config
    assert isinstance(config, dice_sum.SumConfig)
    dc, _step = _sum_dc(match, ladder)
    if number.untrained_rule == "harder":
        dc = _harder(dc, ladder)
    penalty = view.penalty()
    adjust = view.adjust_for(number.abilities)
    mode = _mode(match, config.advantage)
    naturals = config.naturals_save if target.group == "save" else config.naturals_check
    check = dice_sum.SumCheck(config, number.number + penalty + adjust, dc, mode, naturals)
    extras: list[tuple[str, str | int]] = [("who", who.name)]
    if number.swapped and number.ability is not None:
        ability = ruleset.sheet.ability(number.ability)
        extras.append(("with", ability.label if ability else number.ability))
    if penalty:
        extras.append(("penalty", penalty))
    if adjust:
        extras.append(("adjust", adjust))
    if number.untrained and number.untrained_rule in ("harder", "by"):
        extras.append(("reason", "untrained"))
    return PreparedCheck(target, who, number, dc, check, tuple(extras))


def _result_word(
    rolled: Rolled,
) -> Literal["success", "failure", "critical_success", "critical_failure"]:
    if rolled.critical_success:
        return "critical_success"
    if rolled.critical_failure:
        return "critical_failure"
    return "success" if rolled.success else "failure"


def _resolve_one(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep],
    dice: DiceSource,
    seed: str | None,
) -> CheckResult:
    prepared = prepare_check(ruleset, party, match, ladder)
    try:
        rolled = dice_sum.roll(prepared.kind_check, dice)
    except DiceError as exc:
        raise TagError(str(exc), match.span) from exc
    record = build_record(
        skill=prepared.target.label,
        dc=prepared.dc,
        rolls=rolled.rolls,
        used=rolled.used,
        modifier=rolled.modifier,
        total=rolled.total,
        result=_result_word(rolled),
        mode=rolled.mode,
        resolution=rolled.resolution,
        dice=rolled.dice,
        extras=(*prepared.extras, *rolled.extras),
        seed=seed,
        forced=seed is None,
    )
    critical: Critical = (
        "success" if rolled.critical_success else "failure" if rolled.critical_failure else None
    )
    return CheckResult(
        record=record,
        who=prepared.who.name,
        outcome=outcome_label(rolled.success, rolled.critical_success, rolled.critical_failure),
        success=rolled.success,
        critical=critical,
    )


def resolve_text(
    ruleset: Ruleset,
    party: Sequence[Character],
    text: str,
    *,
    seed: str | int | None = None,
    faces: Sequence[int] | None = None,
    layers: Sequence[str] = (),
) -> CheckReport:
    """Resolve every check tag in ``text``.

    Give ``seed`` (tag i throws from seed ``S`` then ``S-i``) or ``faces`` (forced, used in
    throw order across the tags). With neither, the caller must have picked a seed:
    the edge does that with ``fresh_seed()``, so the core stays free of randomness.

    Raises:
        UsageError: both or neither of ``seed`` and ``faces``, or an unknown layer.
    """
    if (seed is None) == (faces is None):
        raise UsageError("give exactly one of seed and faces.")
    ladder = _ladder(ruleset, layers)
    forced = ForcedFaces(faces) if faces is not None else None
    items: list[CheckResult | CheckFailure] = []
    replacements: list[tuple[tuple[int, int], str]] = []
    for index, match in enumerate(parse_tags(text)):
        tag_seed_text = None if seed is None else tag_seed(str(seed), index)
        dice: DiceSource = forced if forced is not None else SeededDice(str(tag_seed_text))
        item: CheckResult | CheckFailure
        try:
            item = _resolve_one(ruleset, party, match, ladder, dice, tag_seed_text)
        except TagError as exc:
            item = CheckFailure(sparse_record(match.attrs), exc.message)
        items.append(item)
        # A tag that could not even be read stays as the model wrote it.
        written = match.raw if match.error is not None else item.record.to_tag()
        replacements.append((match.span, written))
    if forced is not None and forced.left:
        raise UsageError(
            f"{forced.left} forced face(s) were left over: the checks threw {forced.used}."
        )
    return CheckReport(rewrite(text, replacements), tuple(items), tuple(party))
