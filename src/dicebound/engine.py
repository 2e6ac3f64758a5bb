"""One check, start to end: tag → request → sheet math → kind → record.

``resolve_check`` resolves one ``[skill_check: ...]`` tag against the ruleset and the
party, throws its dice from the source it is given, and hands back its result and the
roller as the check left them; ``quick_check`` reads a seeded check off the memo of
throws it keeps on the ruleset; ``settle_after`` replays a thrown check to apply an
answer given once the dice were seen. A whole text is the tag pass's
(``dicebound.tagpass``), which calls these for its check tags. Pure: the dice source or
seed comes in, nothing is read or written outside.

A tag that cannot be resolved is an error with a sentence, written back sparse (the
ask only, still owing a roll); nothing is thrown or paid for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from dicebound.bands import Bands, read_band
from dicebound.dice import DiceSource, ForcedFaces, SeededDice, SeededThrow
from dicebound.errors import DiceError, TagError, UsageError
from dicebound.kinds.base import CheckAsk, KindPlayer, Prepared, Rolled, SkillAsk
from dicebound.kinds.registry import kind_player
from dicebound.overrides import Override, select_override
from dicebound.problems import did_you_mean
from dicebound.record import Record, build_record
from dicebound.ruleset.model import LadderStep, Layer, Ruleset
from dicebound.sheet import (
    Change,
    Character,
    PaymentRefused,
    SheetView,
    pay,
)
from dicebound.tag_notes import value_notes
from dicebound.tags.names import CheckTarget, normalize, resolve_target
from dicebound.tags.parse import TagMatch, parse_tags
from dicebound.values import frozen, new_tuple

__all__ = [
    "NO_CHOICES",
    "CheckFailure",
    "CheckResult",
    "PlayerChoices",
    "PreparedCheck",
    "PreparedSkill",
    "RememberedCheck",
    "Settlement",
    "find_roller",
    "ladder_in_force",
    "outcome_label",
    "pool_named",
    "prepare_check",
    "prepare_question",
    "prepare_skill",
    "quick_check",
    "quick_from_memo",
    "read_outcome",
    "remembered_check",
    "resolve_check",
    "settle_after",
]

Critical = Literal["success", "failure", "both"] | None
Result = Literal["success", "failure", "critical_success", "critical_failure"]


class CheckResult(NamedTuple):
    """A resolved tag: the record, who rolled, the outcome and the live-state changes.
    Immutable: a named tuple, the cheapest immutable value to build (one is made for
    every check thrown).

    ``ask`` (the tag as the model wrote it), ``roller`` (the roller as it stood when the
    tag was thrown, earlier tags of the text paid) and ``faces`` (the forced faces this
    tag consumed, in order; empty when seeded) let a caller settle the check later
    (``settle_after``); ``die_marks`` says what happened to each die, where the kind
    tells (a card shows it). They are not in ``to_json``.
    """

    record: Record
    who: str
    outcome: str
    success: bool
    critical: Critical
    choice: Literal["open", "succeed", "fail"] | None = None
    changes: tuple[Change, ...] = ()
    ask: str = ""
    roller: Character | None = None
    faces: tuple[int, ...] = ()
    die_marks: tuple[tuple[str, ...], ...] = ()  # per die of the record's rolls, for a card
    notes: tuple[str, ...] = ()  # each attribute value the ruleset did not know (tag_notes)

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
            "notes": list(self.notes),
        }


@frozen
class CheckFailure:
    """A tag that could not be resolved: the sparse record and the sentence why.

    ``dice_failed`` is true when the tag itself resolved but its dice could not be
    thrown: forced faces ran out or named a face a die lacks. It is not in ``to_json``.
    """

    record: Record
    error: str
    dice_failed: bool = False

    def to_json(self) -> dict[str, object]:
        return {"tag": self.record.to_tag(), "error": self.error}


@frozen
class PlayerChoices:
    """What the player decides once the dice are seen: a spend after the roll
    (``after``: a live pool and the most points to spend) and how an open choice is
    settled (``choose``). Both apply to every check of the text that offers them."""

    after: tuple[str, int] | None = None
    choose: Literal["fail", "succeed"] | None = None


@frozen
class PreparedCheck:
    """A tag resolved against the sheet, ready to throw: who, what, and the kind's
    prepared check."""

    target: CheckTarget
    who: Character
    player: KindPlayer[Any, Any, Any]
    prepared: Prepared
    override: Override | None = None
    notes: tuple[str, ...] = ()  # what the tag asked that the ruleset did not know

    @property
    def dc(self) -> int:
        return self.prepared.dc


NO_CHOICES = PlayerChoices()


def outcome_label(success: bool, critical_success: bool, critical_failure: bool) -> str:
    """The plain outcome words of a check read without bands."""
    if critical_success:
        return "Critical success"
    if critical_failure:
        return "Critical failure"
    return "Success" if success else "Failure"


def ladder_in_force(ruleset: Ruleset, layers: Sequence[str]) -> tuple[LadderStep, ...]:
    """The difficulty ladder in force with these layers on.

    Layers apply in the order the ruleset declares them, whatever order they were named
    in; of two that conflict, the one declared later is dropped (docs/design/format.md
    "Blocks accepted but not played": the same choices always give the same rules). The
    last layer left that replaces the ladder decides it; with none, the ruleset's own.

    Raises:
        UsageError: a name that is no layer of the ruleset.
    """
    if not layers:
        return ruleset.resolution.ladder
    for layer_id in layers:
        if ruleset.layer(layer_id) is None:
            known = ", ".join(layer.id for layer in ruleset.layers) or "none"
            raise UsageError(f'"{layer_id}" is not a layer of {ruleset.name} (layers: {known}).')
    kept: list[Layer] = []
    for layer in ruleset.layers:
        if layer.id not in layers:
            continue
        if any(layer.id in k.conflicts or k.id in layer.conflicts for k in kept):
            continue
        kept.append(layer)
    ladder = ruleset.resolution.ladder
    for layer in kept:
        if layer.ladder is not None:
            ladder = layer.ladder
    return ladder


def find_roller(party: Sequence[Character], who: str | None) -> Character:
    """The member ``who`` names (the party's first when none): the full card name, any
    case, or a first name no other card starts with.

    Raises:
        TagError: nobody, or more than one, answers to the name.
    """
    if not party:
        raise TagError("no character was given to roll the check.")
    if who is None or not who.strip():
        return party[0]
    wanted = normalize(who)
    hits = [c for c in party if normalize(c.name) == wanted]
    if not hits:  # "Bram" for "Bram Ironhand", when no other card starts so
        hits = [c for c in party if normalize(c.name).split(" ")[0] == wanted]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise TagError(f'who="{who}" names more than one character; use the full card name.')
    hint = did_you_mean(who, [c.name for c in party])
    names = ", ".join(c.name for c in party)
    raise TagError(f'who="{who}" is not a character of this party ({names}).{hint}')


def pool_named(ruleset: Ruleset, name: str) -> str:
    """The live pool a player names by id or label, any case.

    Raises:
        TagError: no pool answers to the name.
    """
    wanted = normalize(name)
    for pool in ruleset.sheet.pools:
        if wanted in (normalize(pool.id), normalize(pool.label)):
            return pool.id
    known = [p.id for p in ruleset.sheet.pools]
    raise TagError(f'"{name}" is not a pool of {ruleset.name}.{did_you_mean(name, known)}')


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


class PreparedSkill(NamedTuple):
    """What a check's roller and name decide, whatever the question asks of them: the
    check, who rolls it, the kind that plays it, the config in force (an override's,
    where one is selected) and the kind's own part (``KindPlayer.prepare_skill``). A
    named tuple: the odds keep one per character and check, and it is immutable."""

    target: CheckTarget
    who: Character
    player: KindPlayer[Any, Any, Any]
    config: Any
    override: Override | None
    with_ability: str | None
    part: Any


def prepare_check(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep] | None = None,
    *,
    view: SheetView | None = None,
) -> PreparedCheck:
    """Resolve a tag against the ruleset and the sheet, throwing nothing. ``view`` is a
    view of the roller's sheet that may already know some of its numbers (the odds keep
    them per character); it is read when the tag's roller is its character.

    The two parts of it, ``prepare_skill`` then ``prepare_question``.

    Raises:
        TagError: a sentence saying why the tag cannot be resolved.
    """
    attrs = dict(match.attrs)  # the keys are lower-case already, each once
    skill, view = _prepare_skill(ruleset, party, match, attrs, view)
    try:
        prepared = prepare_question(ruleset, skill, attrs, ladder, view)
    except TagError as exc:
        raise TagError(exc.message, match.span) from exc
    found = skill.with_ability is not None
    steps = ruleset.resolution.ladder if ladder is None else ladder
    notes = value_notes(ruleset, skill.config, steps, view, attrs, found)
    return PreparedCheck(skill.target, skill.who, skill.player, prepared, skill.override, notes)


def prepare_skill(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    attrs: Mapping[str, str],
    view: SheetView | None = None,
) -> PreparedSkill:
    """What a tag's roller and check decide: its names matched (``skill=``, ``who=``,
    ``with=``, and nothing else of ``attrs``, the tag's attributes as a dict), what
    cannot be rolled refused, the override selected and the kind's part read off the
    sheet. The same names of the same party give the same skill (the odds keep it).

    Raises:
        TagError: a sentence saying why the tag cannot be resolved.
    """
    return _prepare_skill(ruleset, party, match, attrs, view)[0]


def _prepare_skill(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    attrs: Mapping[str, str],
    view: SheetView | None,
) -> tuple[PreparedSkill, SheetView]:
    """``prepare_skill``, and the view of the roller's sheet it read."""
    if match.error is not None:
        raise TagError(match.error, match.span)
    kind = ruleset.resolution.kind
    player = kind_player(kind)
    if player is None:
        raise TagError(
            f"{kind} checks are not built yet in this version of dicebound, so the check "
            "was not rolled.",
            match.span,
        )
    name = attrs.get("skill")
    if name is None:
        raise TagError("the tag has no skill=: name a skill, a save or an ability.", match.span)
    target = resolve_target(ruleset, name)
    if isinstance(target, str):
        raise TagError(target, match.span)
    who_name = attrs.get("who")
    who = party[0] if who_name is None and party else find_roller(party, who_name)
    if view is None or view.character is not who:
        view = SheetView(ruleset, who)
    if (
        target.group != "ability"
        # the item's rule first (a lookup): only a skill that may refuse reads its tier
        and view.untrained_rule(target.group, target.id)[0] == "refuse"
        and view.check_number(target.group, target.id).untrained_rule == "refuse"
    ):
        raise TagError(
            f"{who.name} cannot attempt {target.label} untrained, so it was not rolled.",
            match.span,
        )
    with_name = attrs.get("with")
    with_id = None if with_name is None else _find_ability(ruleset, with_name)
    config = ruleset.resolution.config
    override = None
    if ruleset.resolution.overrides:
        sheet = view
        override = select_override(
            ruleset.resolution.overrides,
            target.group,
            target.id,
            lambda ref: float(sheet.value(ref)),
        )
    if override is not None:
        config = override.config
    ask: SkillAsk = new_tuple(SkillAsk, (view, target.group, target.id, target.label, with_id))
    try:
        part = player.prepare_skill(config, ask)
    except TagError as exc:
        raise TagError(exc.message, match.span) from exc
    fields = (target, who, player, config, override, with_id, part)
    skill: PreparedSkill = new_tuple(PreparedSkill, fields)
    return skill, view


def prepare_question(
    ruleset: Ruleset,
    skill: PreparedSkill,
    attrs: Mapping[str, str],
    ladder: Sequence[LadderStep] | None,
    view: SheetView,
) -> Prepared:
    """The check a tag asks of a skill ``prepare_skill`` made of its names: what the
    rest of the tag (``attrs``) asks under ``ladder`` (None: the ruleset's own), as
    the kind prepares it (``KindPlayer.prepare_question``) over ``view``, a view of the
    roller's sheet. Its ``TagError`` has no span: the caller knows where the tag is.

    Raises:
        TagError: a sentence saying why the tag cannot be resolved.
    """
    target = skill.target
    fields = (
        view,
        target.group,
        target.id,
        target.label,
        skill.with_ability,
        attrs,
        ruleset.resolution.ladder if ladder is None else tuple(ladder),
    )
    ask: CheckAsk = new_tuple(CheckAsk, fields)
    prepared: Prepared = skill.player.prepare_question(skill.config, skill.part, ask)
    return prepared


_MEMO_SIZE = 4096

_THROW_SPACE = 1024
"""A check with at most this many possible throws remembers what each one came to."""

_THROWS_KEPT = 10_000
"""The most throws remembered on one ruleset, all its checks together (about 1.7 KB
each: some 17 MB); past it everything remembered on the ruleset is let go, as past
``_MEMO_SIZE``."""


class _Template(NamedTuple):
    """What one throw of a remembered check comes to, its seed and its ask left out: the
    record's attributes before the seed (its last), its tag up to the seed's value, and
    the result's other fields, in field order, around the ask."""

    stem: tuple[tuple[str, str], ...]
    tag_stem: str
    before_ask: tuple[Any, ...]  # who, outcome, success, critical, choice, changes
    after_ask: tuple[Any, ...]  # roller, faces (none: seeded), die_marks, notes


class RememberedCheck:
    """A prepared check remembered on the ruleset with the attributes, the characters and
    the ladder it was made for (held, so while it is kept no other value can take their
    ids), the dice it throws when a face never decides what is thrown next, and what
    each throw came to."""

    __slots__ = ("attrs", "dice", "ladder", "party", "prepared", "throws")

    def __init__(
        self,
        attrs: tuple[tuple[str, str], ...],
        party: tuple[Character, ...],
        ladder: Sequence[LadderStep],
        prepared: PreparedCheck,
    ) -> None:
        self.attrs = attrs
        self.party = party
        self.ladder = ladder
        self.prepared = prepared
        sides = _throw_sides(prepared)
        self.dice = None if sides is None else SeededThrow(sides)
        self.throws: dict[tuple[int, ...], _Template | None] = {}


def _throw_sides(prepared: PreparedCheck) -> tuple[int, ...] | None:
    """The sides of the dice the check throws, in throw order, when they are the same
    whatever the dice show, the check pays nothing and it has at most ``_THROW_SPACE``
    throws; else None (such a check is thrown afresh every time)."""
    if prepared.prepared.costs:
        return None
    sides = prepared.player.throw_sides(prepared.prepared.check)
    if sides is None or math.prod(sides) > _THROW_SPACE:
        return None
    return sides


def remembered_check(
    ruleset: Ruleset, party: Sequence[Character], match: TagMatch, ladder: Sequence[LadderStep]
) -> RememberedCheck:
    """``prepare_check``, remembered on the ruleset: the same characters (the very same
    immutable values), the same attributes and the same ladder prepare the same check,
    so a repeated ask skips the name matching and the sheet math.

    Keyed by identity: a tag read again gives the very same attributes (the lexer
    remembers them), and the entry holds every value whose id it is keyed by. An equal
    value that is not the same one prepares the check afresh: slower, never wrong.
    """
    key = ("prepared", id(match.attrs), id(ladder), *map(id, party))
    hit: RememberedCheck | None = ruleset.memo.get(key)
    if hit is not None and match.error is None:
        return hit
    prepared = prepare_check(ruleset, party, match, ladder)  # a TagError for an error
    if len(ruleset.memo) > _MEMO_SIZE:
        ruleset.memo.clear()
    remembered = ruleset.memo[key] = RememberedCheck(match.attrs, tuple(party), ladder, prepared)
    return remembered


def _template(
    ruleset: Ruleset, remembered: RememberedCheck, match: TagMatch, faces: tuple[int, ...]
) -> _Template | None:
    """What the remembered check comes to when its dice show ``faces``: thrown and read
    the one way every check is (``_settle``), from the faces forced, seed "0" written.
    None when the record cannot be cut at its seed (its values needed escaping)."""
    prepared = remembered.prepared
    forced = ForcedFaces(faces)
    rolled = prepared.player.roll(prepared.prepared.check, forced)
    if forced.left:  # the kind's throw_sides and its roll disagree: a kind's bug
        raise AssertionError(f"{ruleset.resolution.kind}: throw_sides said {len(faces)} dice")
    settled = _settle(ruleset, match, _Thrown(prepared, rolled), prepared.who, (), "0", NO_CHOICES)
    record = settled.result.record
    tag = record.to_tag()
    if record.attrs[-1] != ("seed", "0") or not tag.endswith(' seed="0"]'):
        return None
    was = settled.result
    return _Template(
        record.attrs[:-1],
        tag[: -len('0"]')],
        (was.who, was.outcome, was.success, was.critical, was.choice, was.changes),
        (was.roller, (), was.die_marks, was.notes),
    )


def quick_check(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep],
    seed: str,
) -> tuple[CheckResult, str] | None:
    """A seeded check whose every throw is remembered: its dice thrown from ``seed`` and
    the result of those faces read off the memo (made the first time they show), with
    ``seed`` written in. The same result and tag as ``resolve_check``, whose work the memo
    holds; None when the check is not one remembered per throw (see ``_throw_sides``)."""
    return quick_from_memo(ruleset, remembered_check(ruleset, party, match, ladder), match, seed)


def quick_from_memo(
    ruleset: Ruleset, remembered: RememberedCheck, match: TagMatch, seed: str
) -> tuple[CheckResult, str] | None:
    """``quick_check`` of a check already remembered."""
    if remembered.dice is None:
        return None
    faces = remembered.dice.faces(seed)
    template = remembered.throws.get(faces, _UNSEEN)
    if template is _UNSEEN:
        template = remembered.throws[faces] = _template(ruleset, remembered, match, faces)
        kept = ruleset.memo.get("throws kept", 0) + 1
        if kept > _THROWS_KEPT:
            ruleset.memo.clear()  # this check's memo goes with it, once this throw is read
            kept = 0
        ruleset.memo["throws kept"] = kept
    if template is None:
        return None
    record = object.__new__(Record)  # the stem is a record's: nothing to check again
    _set_record_attrs(record, template.stem + (("seed", seed),))  # noqa: RUF005 (quicker)
    result = new_tuple(CheckResult, (record, *template.before_ask, match.raw, *template.after_ask))
    return result, f'{template.tag_stem}{seed}"]'


_UNSEEN: Any = object()  # a throw not seen yet (None: seen, and not remembered)
_set_record_attrs = Record.__dict__["attrs"].__set__  # the slot itself: no checks again


def _result_word(success: bool, critical: Critical) -> Result:
    if critical == "success":
        return "critical_success"
    if critical == "failure":
        return "critical_failure"
    return "success" if success else "failure"


class Reading(NamedTuple):
    """What one result of a check comes to: the outcome's label, success, critical,
    the band (when the ruleset declares bands) and whether a choice stays open."""

    label: str
    success: bool
    critical: Critical
    band_id: str | None = None
    choice: Literal["open", "succeed", "fail"] | None = None
    plain: bool = False  # the record's result says success or failure only (symbol markers)


def read_outcome(ruleset: Ruleset, prepared: PreparedCheck, outcome: Any) -> Reading:
    """Read one outcome of a prepared check: by its bands where the ruleset declares them
    (the band decides success and both criticals), else by the plain comparison."""
    bands: Bands | None = ruleset.resolution.outcomes
    player = prepared.player
    if bands is None:
        if player.plain_marks:
            # A symbol pool's markers never change success: they ride beside the words.
            marks: Critical = player.critical_marks(outcome)
            label = "Success" if outcome.success else "Failure"
            return Reading(label, outcome.success, marks, plain=True)
        crit: Critical = (
            "success"
            if outcome.critical_success
            else "failure"
            if outcome.critical_failure
            else None
        )
        label = outcome_label(outcome.success, outcome.critical_success, outcome.critical_failure)
        return Reading(label, outcome.success, crit)
    config = prepared.override.config if prepared.override else ruleset.resolution.config
    value = player.bands.value(bands.by, outcome.total, prepared.dc, player.against(config))
    band = read_band(
        bands,
        value=value,
        critical_success=outcome.critical_success,
        critical_failure=outcome.critical_failure,
        natural=player.natural(outcome),
    )
    if band.choice:
        return Reading(band.label, False, band.critical, band.id, "open")
    return Reading(band.label, band.success, band.critical, band.id)


class _Thrown(NamedTuple):
    """One tag prepared and thrown, nothing read or paid yet."""

    prepared: PreparedCheck
    rolled: Rolled


def _throw(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep],
    dice: DiceSource,
    prepared: PreparedCheck | None = None,
) -> _Thrown:
    if prepared is None:
        prepared = remembered_check(ruleset, party, match, ladder).prepared
    try:
        rolled = prepared.player.roll(prepared.prepared.check, dice)
    except DiceError as exc:
        raise TagError(str(exc), match.span) from exc
    return _Thrown(prepared, rolled)


class _Settled(NamedTuple):
    """A thrown check read and paid for: its result, the payer as it stands after paying
    (None when nothing was paid), the after-spend's sentence when it bought nothing, and
    whether the reading left a choice open before ``choose``."""

    result: CheckResult
    after: Character | None
    message: str | None
    was_open: bool


def _settle(
    ruleset: Ruleset,
    match: TagMatch,
    thrown: _Thrown,
    payer: Character,
    costs: tuple[tuple[str, int], ...],
    seed: str | None,
    choices: PlayerChoices,
) -> _Settled:
    """Apply the player's choices to a thrown check, read it, write its record and pay
    ``costs`` plus what a spend after the roll bought, all from ``payer``."""
    prepared, rolled = thrown.prepared, thrown.rolled
    message: str | None = None
    if choices.after is not None and prepared.player.spends_after:
        pool_id = pool_named(ruleset, choices.after[0])
        try:
            spent = prepared.player.after(
                prepared.prepared.check,
                rolled.outcome,
                pool_id,
                choices.after[1],
                SheetView(ruleset, payer),
            )
        except TagError as exc:
            raise TagError(exc.message, match.span) from exc
        rolled = spent.rolled
        if spent.cost is not None:
            costs = (*costs, spent.cost)
        else:
            message = spent.message
    reading = read_outcome(ruleset, prepared, rolled.outcome)
    was_open = reading.choice == "open"
    if was_open and choices.choose is not None:
        # Sacrifice: the player fails, or succeeds at a cost (docs/design/readings.md "Sacrifice").
        reading = reading._replace(success=choices.choose == "succeed", choice=choices.choose)
    extras: list[tuple[str, str | int]] = [("who", prepared.who.name)]
    extras += [*prepared.prepared.extras, *rolled.extras]
    if ruleset.resolution.outcomes is not None:
        extras.append(("outcome", reading.label))
    if reading.choice is not None:
        extras.append(("choice", reading.choice))
    record = build_record(
        skill=prepared.target.label,
        dc=prepared.dc,
        rolls=rolled.rolls,
        used=rolled.used,
        modifier=rolled.modifier,
        total=rolled.total,
        result=_result_word(reading.success, None if reading.plain else reading.critical),
        mode=rolled.mode,
        resolution=rolled.resolution,
        dice=rolled.dice,
        extras=extras,
        seed=seed,
        forced=seed is None,
    )
    changes: tuple[Change, ...] = ()
    after: Character | None = None
    if costs:
        paid = pay(ruleset, payer, costs)
        if isinstance(paid, PaymentRefused):  # prepare checked it: this is a kind's bug
            raise TagError(f"the check could not be paid for: {paid.message}", match.span)
        changes, after = paid.changes, paid.character
    result = new_tuple(
        CheckResult,
        (
            record,
            prepared.who.name,
            reading.label,
            reading.success,
            reading.critical,
            reading.choice,
            changes,
            match.raw,  # ask
            prepared.who,  # roller
            (),  # faces: the tag pass fills them in when they were forced
            rolled.marks if len(rolled.marks) == len(rolled.rolls) else (),  # die_marks
            prepared.notes,
        ),
    )
    return _Settled(result, after, message, was_open)


def resolve_check(
    ruleset: Ruleset,
    party: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep],
    dice: DiceSource,
    seed: str | None,
    choices: PlayerChoices,
    prepared: PreparedCheck | None = None,
) -> tuple[CheckResult, Character | None]:
    """Throw one tag's check (``prepared`` when it is at hand already); give its result
    and the roller as they stand after it (None when the check changed nothing)."""
    thrown = _throw(ruleset, party, match, ladder, dice, prepared)
    prepared = thrown.prepared
    settled = _settle(ruleset, match, thrown, prepared.who, prepared.prepared.costs, seed, choices)
    return settled.result, settled.after


@frozen
class Settlement:
    """A check settled after it was thrown (``settle_after``).

    ``result`` is the check as ``check --after``/``--choose`` would have made it with
    every answer, earlier and new; its ``changes`` are what its raise paid, now or when
    it was answered. ``paid`` is only what this settlement pays now; ``character`` is
    the roller as it stands after paying (None when nothing was paid now); ``message``
    says why nothing was paid when a raise given now bought nothing.
    """

    result: CheckResult
    paid: tuple[Change, ...]
    character: Character | None
    message: str | None


def _answer_refused(choices: PlayerChoices, answered: PlayerChoices) -> str | None:
    """Why an answer cannot be taken before the dice are even replayed: each of a raise
    and a choice is given once."""
    if choices.after is not None and answered.after is not None:
        pool, points = answered.after
        return f"this check was already raised ({pool}:{points}); a check takes one raise."
    if choices.choose is not None and answered.choose is not None:
        made = answered.choose
        return f'this check\'s choice was already made ("{made}"); a choice is made once.'
    return None


def settle_after(
    ruleset: Ruleset,
    then: Sequence[Character],
    now: Character,
    ask: str,
    *,
    seed: str | None = None,
    faces: Sequence[int] | None = None,
    layers: Sequence[str] = (),
    choices: PlayerChoices,
    answered: PlayerChoices = NO_CHOICES,
) -> Settlement:
    """Replay one thrown tag and apply the player's answer made once the dice were seen.

    ``ask`` is the tag as written (with its ``[skill_check: ...]`` brackets), ``then``
    the party as it stood when it was thrown, from exactly one of ``seed`` (used as it
    is: the tag's own seed) or ``faces`` (exactly the faces it consumed). ``choices`` is
    the answer given now: a raise (``after``), a choice (``choose``) or both, the raise
    applied first. ``answered`` is what was answered and taken before (a raise, or a
    choice made when the check was thrown): it is applied first, as ``resolve_text``
    would (a choice there settles only a choice left open), and not paid again. A raise,
    given now or before, is judged against and paid from ``now``: the roller as it
    stood when that raise was answered. What the check cost when it was first thrown is
    not paid again. With ``choices`` empty nothing new is answered: the check is read
    again as its earlier answers made it (how ``verify`` replays a record).

    A Sacrifice a raise opens stays open until a choice settles it, given with the raise
    or later, once. A raise given now that buys nothing is no refusal: ``message`` says
    why, and the caller pays nothing.

    Raises:
        TagError: the tag does not resolve; a raise where the kind offers no spending
            after the roll, or a second raise; a choice where none is open once the
            raises are applied (beside a raise: the band the raise reaches leaves
            none), or a second choice.
        UsageError: not exactly one tag, not exactly one of ``seed`` and ``faces``, faces
            left over, ``now`` not the roller, or an unknown layer.
    """
    if (seed is None) == (faces is None):
        raise UsageError("give exactly one of seed and faces.")
    matches = parse_tags(ask)
    if len(matches) != 1:
        raise UsageError(f"a settlement takes exactly one check tag, not {len(matches)}.")
    match = matches[0]
    refused = _answer_refused(choices, answered)
    if refused is not None:
        raise TagError(refused, match.span)
    ladder = ladder_in_force(ruleset, layers)
    forced = ForcedFaces(faces) if faces is not None else None
    dice: DiceSource = forced if forced is not None else SeededDice(str(seed))
    thrown = _throw(ruleset, list(then), match, ladder, dice)
    if forced is not None and forced.left:
        raise UsageError(
            f"{forced.left} forced face(s) were left over: the check threw {forced.used}."
        )
    roller = thrown.prepared.who
    if now.name != roller.name:
        raise UsageError(f"{now.name} is not the roller of this check ({roller.name}).")
    if choices.after is not None and not thrown.prepared.player.spends_after:
        raise TagError(
            f"{ruleset.resolution.kind} checks offer no spending after the roll.", match.span
        )
    whole = PlayerChoices(
        after=choices.after or answered.after, choose=choices.choose or answered.choose
    )
    settled = _settle(ruleset, match, thrown, now, (), seed, whole)
    result = settled.result._replace(faces=tuple(faces) if faces is not None else ())
    if choices.after is not None and settled.message is not None:
        return Settlement(result, (), None, settled.message)  # bought nothing: none paid
    if choices.choose is not None and not settled.was_open:
        if choices.after is not None:
            raise TagError(
                f"the raise makes it a {result.outcome}, which leaves no choice to make; "
                "answer with the raise alone.",
                match.span,
            )
        raise TagError("this check has no open choice to settle.", match.span)
    if choices.after is None:  # the raise, if any, was paid when it was answered
        return Settlement(result, (), None, None)
    return Settlement(result, result.changes, settled.after, None)
