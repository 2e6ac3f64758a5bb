"""roll-against: roll at most (or at least) the sheet's number (Capability API 1.139).

Call of Cthulhu, GURPS and an old-school thief's percentages roll against a number on
the sheet instead of adding it to the dice. The page's keys: ``dice`` (1d100 by
default), ``against`` (``at-most`` by default, or ``at-least``), ``criticalSuccess``
and ``criticalFailure`` (up to six rules each: faces ``from``..``to``, or for a
failure ``pastTarget``, limited by ``whenTarget``), ``tens`` (Call of Cthulhu's bonus
and penalty dice on a single d100) and the ``difficultyLadder`` (``dc`` and
``divide``). A roll-against ruleset cannot declare ``spend``.

One arithmetic serves both halves: ``_percentile`` and ``_keeps_lowest`` read tens dice,
and ``_outcome`` reads a roll against the target, criticals included. ``roll`` applies
them to thrown faces; ``distribution`` gives the exact distribution of the roll (a sum
of dice, or the kept roll of several tens dice sharing one ones die, by order
statistics) and maps every roll through the same ``_outcome``.

Readings where the documents leave a choice (docs/design/readings.md settles the target
and tens):

- The target is the sheet's number plus the wound penalty and ``adjust`` (they change
  the number the sheet gives), divided by a ladder step's ``divide`` and rounded down,
  plus the step's ``dc``, plus the tag's ``dc=`` (held to -100..100). ``difficulty=``
  and ``dc=`` both apply; a tag with neither reads the bare number. The record's
  ``dc`` is that target. ``untrained: "harder"`` reads the nearest ladder step whose
  target is harder than the one asked (lower for ``at-most``, higher for ``at-least``).
- A roll succeeds at or under the target (``at-most``) or at or over it
  (``at-least``). A critical success always succeeds and a critical failure always
  fails. Where a roll matches rules of both, the roll's own side of the target
  decides: a roll that made the target is the critical success, one that missed it is
  the critical failure. A roll is never both.
- ``pastTarget`` N fires on a roll N or more past the target on the failing side
  (``roll - target >= N`` at most; ``target - roll >= N`` at least). ``whenTarget``
  holds for targets at or above ``atLeast`` and below ``below``.
- ``tens``: ``bonus="+N"`` throws N more tens dice and keeps the best roll,
  ``bonus="-N"`` the worst, N held to ``tens.max``; the ones die is shared; 00 with 0
  reads 100; best is the lowest roll at most and the highest at least. Throw order: the
  d100 (its face 1-100), then the tens dice (a face of 10 is the digit 0). ``rolls``
  shows the d100's roll, then each tens die as 0..90; ``used`` and ``total`` are the
  kept roll. ``dice`` is ``1d100`` plus ``+Nd10`` when tens dice were thrown. Without
  ``tens``, ``bonus=`` is not offered and is ignored.
- Refused as rules that could never fire (or would always): a face no roll of the dice
  shows, ``from`` above ``to``, a ``whenTarget`` no target meets, a ``pastTarget`` no
  roll could reach inside its ``whenTarget``, ``pastTarget`` on a critical success
  (it measures a failure), a rule naming faces and ``pastTarget`` together, and a face
  rule without ``whenTarget`` that takes in every roll. ``tens`` needs exactly 1d100.
- ``natural`` (what outcome bands' ``naturals: "shift"`` reads) is the page's literal
  rule: the highest face of a single die is ``top``, the lowest ``bottom``, whichever
  way the roll is read. A roll with ``tens`` declared has no natural.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from dicebound.bands import BandRules, By
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import UsageError
from dicebound.kinds.asks import clamp, sheet_extras, step_by_label, written_int
from dicebound.kinds.base import (
    CheckAsk,
    CompileContext,
    KindCompiler,
    KindPlayer,
    Prepared,
    Rolled,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.ruleset.spec import Arr, Custom, Enum, Int, JsonSchema, Node, Obj, Str
from dicebound.values import frozen

__all__ = [
    "KIND",
    "PLAYER",
    "Against",
    "AgainstCheck",
    "AgainstConfig",
    "AgainstOutcome",
    "CritRule",
    "Natural",
    "distribution",
    "roll",
    "roll_distribution",
]

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


def _percentile(tens_digit: int, ones: int) -> int:
    """A tens digit and a ones digit as a roll of 1-100: 00 with 0 reads 100."""
    value = 10 * tens_digit + ones
    return value or 100


def _keeps_lowest(tens: int, against: Against) -> bool:
    """Bonus dice keep the best roll, penalty dice the worst; the best roll is the lowest
    at most and the highest at least."""
    return (tens > 0) == (against == "at-most")


def _natural(config: AgainstConfig, roll: int) -> Natural:
    if config.count != 1 or config.tens_max is not None:
        return None
    return "top" if roll == config.sides else "bottom" if roll == 1 else None


def _outcome(check: AgainstCheck, roll: int) -> AgainstOutcome:
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


# -- play ------------------------------------------------------------------------------


def roll(check: AgainstCheck, dice: DiceSource) -> Rolled:
    """Throw the dice (with tens: the d100, then the extra tens dice) and read the roll."""
    config = check.config
    shown: list[str] = []
    if check.tens:
        face = dice.throw(100)
        ones = face % 10
        digits = [(face // 10) % 10]
        shown.append(str(face))
        for _ in range(abs(check.tens)):
            digit = dice.throw(10) % 10
            digits.append(digit)
            shown.append(str(10 * digit))
        rolls = [_percentile(d, ones) for d in digits]
        kept = min(rolls) if _keeps_lowest(check.tens, config.against) else max(rolls)
        dice_text = f"{config.dice_text}+{abs(check.tens)}d10"
    else:
        faces = [dice.throw(config.sides) for _ in range(config.count)]
        shown.extend(str(f) for f in faces)
        kept = sum(faces)
        dice_text = config.dice_text
    out = _outcome(check, kept)
    return Rolled(
        rolls=tuple(shown),
        used=kept,
        modifier=0,
        total=kept,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=dice_text,
        extras=(("against", config.against),),
        outcome=out,
    )


# -- odds ------------------------------------------------------------------------------


def roll_distribution(check: AgainstCheck) -> Dist[int]:
    """The exact distribution of the roll a check keeps, before it is read."""
    config = check.config
    if not check.tens:
        return Dist.die(config.sides).sum_of(config.count)
    # Each of the n tens digits is uniform over 0..9 and the ones die is shared: for one
    # ones digit, the kept roll is the i-th lowest of ten values with weight
    # (10-i)^n - (9-i)^n (keeping the lowest) or (i+1)^n - i^n (keeping the highest).
    n = abs(check.tens) + 1
    lowest = _keeps_lowest(check.tens, config.against)
    weights: dict[int, int] = {}
    for ones in range(10):
        values = sorted(_percentile(d, ones) for d in range(10))
        for i, value in enumerate(values):
            w = (10 - i) ** n - (9 - i) ** n if lowest else (i + 1) ** n - i**n
            weights[value] = weights.get(value, 0) + w
    return Dist(weights)


def distribution(check: AgainstCheck) -> Dist[AgainstOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    return roll_distribution(check).map(lambda r: _outcome(check, r))


# -- import: the block's keys, its cross-checks, and its capability features -------------


def _no_spend(value: object, path: Path) -> Iterator[Problem]:
    yield Problem(
        path,
        "spend-not-allowed",
        "a roll-against ruleset cannot declare spend; only dice-pool, dice-highest and "
        "symbol-pool checks buy with it.",
    )


_NO_SPEND_SCHEMA: JsonSchema = {"not": {}}

_NUMBER = Int(-NUMBER_LIMIT, NUMBER_LIMIT)
_RULE = Obj(
    {
        "from": _NUMBER,
        "to": _NUMBER,
        "pastTarget": Int(1, NUMBER_LIMIT),
        "whenTarget": Obj(
            {"atLeast": _NUMBER, "below": _NUMBER}, at_least_one=("atLeast", "below")
        ),
    },
    at_least_one=("from", "to", "pastTarget"),
)
_STEP = Obj(
    {"label": Str(hi=80), "dc": Int(*TAG_DC_RANGE), "divide": Int(2, 10)},
    required=("label",),
    at_least_one=("dc", "divide"),
)

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "dice": Obj({"count": Int(1, 10), "sides": Int(2, 1000)}, required=("count", "sides")),
        "against": Enum(("at-most", "at-least")),
        "criticalSuccess": Arr(_RULE, hi=6, noun="rule"),
        "criticalFailure": Arr(_RULE, hi=6, noun="rule"),
        "tens": Obj({"max": Int(1, MAX_TENS)}, required=("max",)),
        "spend": Custom(_no_spend, _NO_SPEND_SCHEMA),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


def _rule(
    raw: Mapping[str, Any],
    here: Path,
    success: bool,
    config: tuple[int, int, Against, str],
    problems: list[Problem],
) -> CritRule | None:
    """Cross-check one critical rule; the rule, or None when it is refused."""
    lo, hi, against, dice_text = config
    before = len(problems)
    add = problems.append
    low, high = raw.get("from"), raw.get("to")
    past = raw.get("pastTarget")
    when = raw.get("whenTarget", {})
    at_least, below = when.get("atLeast"), when.get("below")
    if past is not None and success:
        add(
            Problem(
                (*here, "pastTarget"),
                "past-target-success",
                f"{past} past the target measures a failure, so pastTarget belongs in "
                "criticalFailure; a critical success names faces.",
            )
        )
    elif past is not None and (low is not None or high is not None):
        add(
            Problem(
                (*here, "pastTarget"),
                "faces-and-past-target",
                "a rule names faces (from, to) or pastTarget, not both; write them as two rules.",
            )
        )
    for key, face in (("from", low), ("to", high)):
        if face is not None and not lo <= face <= hi:
            add(
                Problem(
                    (*here, key),
                    "face-not-on-die",
                    f"{face} is not a roll {dice_text} can show: it shows {lo} to {hi}.",
                )
            )
    if low is not None and high is not None and low > high and lo <= low <= hi and lo <= high <= hi:
        add(
            Problem(
                (*here, "from"),
                "from-above-to",
                f"{low} is above to {high}, so no roll lies between them; from is the lower end.",
            )
        )
    if at_least is not None and below is not None and at_least >= below:
        add(
            Problem(
                (*here, "whenTarget"),
                "never-fires",
                f"no target is at least {at_least} and below {below}, so the rule could never "
                "fire; atLeast must be below below.",
            )
        )
    elif past is not None and not success:
        if against == "at-most" and at_least is not None and at_least > hi - past:
            add(
                Problem(
                    (*here, "pastTarget"),
                    "never-fires",
                    f"a roll {past} past a target of {at_least} or more would be above {hi}, the "
                    f"highest {dice_text} shows, so the rule could never fire.",
                )
            )
        if against == "at-least" and below is not None and below - 1 < lo + past:
            add(
                Problem(
                    (*here, "pastTarget"),
                    "never-fires",
                    f"a roll {past} under a target below {below} would be under {lo}, the "
                    f"lowest {dice_text} shows, so the rule could never fire.",
                )
            )
    every = (low is None or low == lo) and (high is None or high == hi)
    if past is None and every and not when:
        what = "critical success" if success else "critical failure"
        add(
            Problem(
                here,
                "always-fires",
                f"takes in every roll {dice_text} can show ({lo} to {hi}), so every check "
                f"would be a {what}; narrow from and to, or limit it with whenTarget.",
            )
        )
    if len(problems) > before:
        return None
    return CritRule(low, high, past, at_least, below)


class _AgainstBands(BandRules):
    """Bands read how far on the succeeding side of the target a roll is, or (at most)
    the share of the target it came under; a lone die without tens dice shows naturals."""

    reads: tuple[By, ...] = ("margin", "total", "fraction")

    def margin(self, total: int, dc: int, against: Against) -> int:
        return dc - total if against == "at-most" else total - dc

    def single_die(self, block: Mapping[str, Any]) -> bool:
        dice = block.get("dice")
        count = dice.get("count", 1) if isinstance(dice, Mapping) else 1
        return count == 1 and "tens" not in block


BANDS = _AgainstBands()


class RollAgainstKind(KindCompiler):
    """The compile half of roll-against (the play half is ``PLAYER``)."""

    name = "roll-against"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("difficultyLadder",)
    bands = BANDS

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        divide = raw.get("divide")
        return LadderStep(
            label=str(raw["label"]),
            dc=int(raw.get("dc", 0)),
            divide=None if divide is None else int(divide),
            raw=raw,
        )

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[AgainstConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        at = ctx.path
        problems: list[Problem] = []
        dice = block.get("dice", {"count": 1, "sides": 100})
        count, sides = int(dice["count"]), int(dice["sides"])
        against: Against = block.get("against", "at-most")
        tens_max: int | None = None
        if "tens" in block:
            if (count, sides) != (1, 100):
                problems.append(
                    Problem(
                        (*at, "tens"),
                        "tens-needs-d100",
                        f"tens dice read a percentile roll, so they need a single d100, and "
                        f"this ruleset throws {count}d{sides}.",
                    )
                )
            else:
                tens_max = int(block["tens"]["max"])
        facts = (count, count * sides, against, f"{count}d{sides}")
        rules: dict[str, list[CritRule]] = {}
        for key in ("criticalSuccess", "criticalFailure"):
            rules[key] = []
            for i, raw in enumerate(block.get(key, ())):
                rule = _rule(raw, (*at, key, i), key == "criticalSuccess", facts, problems)
                if rule is not None:
                    rules[key].append(rule)
        if problems:
            return None, problems
        config = AgainstConfig(
            count=count,
            sides=sides,
            against=against,
            critical_success=tuple(rules["criticalSuccess"]),
            critical_failure=tuple(rules["criticalFailure"]),
            tens_max=tens_max,
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        yield "1.139", ("resolution", "kind"), "the roll-against kind"


KIND = RollAgainstKind()


# -- play: from a tag's ask to a prepared check ----------------------------------------


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


class RollAgainstPlayer(KindPlayer[AgainstConfig, AgainstCheck, AgainstOutcome]):
    """The play half of roll-against: the sheet's number is the target."""

    bands = BANDS
    dc_words = "shift of the target, -100 to +100"

    def prepare(self, config: AgainstConfig, ask: CheckAsk) -> Prepared:
        with_id = ask.with_ability if ask.group != "ability" else None
        number = ask.view.check_number(ask.group, ask.item_id, with_id)
        penalty = ask.view.penalty()
        adjust = ask.view.adjust_for(number.abilities)
        base = number.number + penalty + adjust
        shift = clamp(written_int(ask.attrs, "dc") or 0, *TAG_DC_RANGE)
        step = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
        target = _step_target(base, step, shift)
        if number.untrained_rule == "harder":
            target = _harder(target, base, shift, ask.ladder, config.against)
        tens = 0
        if config.tens_max is not None:
            tens = clamp(written_int(ask.attrs, "bonus") or 0, -config.tens_max, config.tens_max)
        extras = sheet_extras(ask.view, number, penalty, adjust)
        if tens:
            extras.append(("bonus", tens))
        way = "at most" if config.against == "at-most" else "at least"
        summary = f"{config.dice_text} {way} {target}"
        if tens:
            summary += f" with {abs(tens)} {'bonus' if tens > 0 else 'penalty'} tens dice"
        check = AgainstCheck(config, target, tens)
        return Prepared(check, target, tuple(extras), summary)

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

    # -- words --------------------------------------------------------------------------

    def step_words(self, step: LadderStep) -> str:
        base = f"number ÷ {step.divide}" if step.divide else "number"
        shift = step.dc or 0
        return base + (f" {shift:+d}" if shift else "")

    def ladder_words(self, step: LadderStep) -> str:
        parts = [f"{step.dc:+d} to the target"] if step.dc else []
        if step.divide:
            parts.insert(0, f"the sheet's number divided by {step.divide}")
        return f"{step.label}: " + (", ".join(parts) or "the sheet's number as it is")

    def step_by_dc(
        self, kind: str, ladder: Sequence[LadderStep], step: LadderStep, shared: str
    ) -> list[tuple[str, str]] | str:
        """``dc=`` shifts the target rather than naming a step."""
        return f"{shared}, and dc= does not name a step on a {kind} check."

    def attribute_lines(self, ruleset: Ruleset, config: AgainstConfig) -> list[str]:
        if config.tens_max is None:
            return []
        return [
            f'bonus="+N" or "-N": up to {config.tens_max} bonus or penalty tens dice '
            "(keep the best or the worst roll)."
        ]


PLAYER = RollAgainstPlayer()
