"""step-pool: a talent die and training dice against a target number, raised after the roll.

dicebound's own kind (docs/design/format.md "The step-pool kind"), built for the
Advanced Resolution rule: the ability's number picks the talent die off ``steps``, the
skill's tier number picks ``training.count`` training dice off the same steps, every die
at or above the target is one EFFORT, and outcome bands read the EFFORT (``by:
"total"``). After the throw, single dice may be raised once each: by the roller's
quality (a number field the tag names with ``quality=``), by a tool (``tool=``, held to
``afterRoll.tool.max``), and by points of a live pool the player spends
(``afterRoll.spend``, ``rate`` points for +1).

Keys: ``steps`` (die sizes, smallest first), ``talent`` ``{label}``, ``training``
``{label, count}``, ``target`` ``{default, min, max}``, ``afterRoll`` ``{quality?,
tool?, spend?}`` and the ``difficultyLadder`` (steps ``{label, dc}``, each dc inside the
target's range). A packaged ruleset needs Capability API 1.200 for this kind: it is
dicebound's, not Marinara's, and 1.200 is the number dicebound gives it.

One arithmetic serves every path. ``best_placement`` places the raises on a list of
deficits (how far each die is below the target): the most EFFORT, then the fewest points
paid. ``roll`` applies it to thrown faces, ``spend_after`` to the same faces with a pool's
points, and the distributions to every class of throw: only the smallest deficits a raise
can close matter, so the odds walk the dice one by one keeping (dice that count, the few
smallest closable deficits), which stays small for every allowed die and target.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- Die sizes are the real dice 2, 3, 4, 6, 8, 10, 12 and 20; steps run strictly upward.
  A number n picks ``steps[n]``, held to the list's ends (a negative number, the first).
- The talent number is the ability's modifier (``abilityModifier``), rounded down; on a
  skill or save it is its ability's (or the ``with=`` ability's), and 0 for one without
  an ability. The training number is the tier number (round(multiplier x proficiency
  bonus) + flat), plus the build's ``bonuses`` for that skill and an untrained ``by``,
  held to at most its ``cap``. An ability check throws the talent die and the dice of the
  first (untrained) tier. ``untrained: "harder"`` moves the target to the next ladder step
  above it. ``penaltyFrom`` and ``adjust`` have no number to move here and are refused.
- The target is ``dc=`` held to ``target.min..max``, else the ``difficulty=`` step's,
  else ``target.default``. A ``difficulty=`` no single step answers to is refused, as on
  the other kinds.
- ``quality=`` names a number field by id or label (any case); its value, rounded down,
  is the quality modifier. A name no number field answers to is refused with a "did you
  mean". A modifier of 0 or less is one the player would not apply, so it never is; the
  record still shows it. ``tool=`` is a whole number held to 0..``tool.max``; anything
  else is ignored. Both are ignored where ``afterRoll`` does not offer them.
- A raise goes only on a die below the target that it lifts to the target; a raise that
  could lift none is not applied. Among placements with the most EFFORT the first in
  throw order wins, the quality before the tool. Spending places every raise afresh
  (free and paid) for the most EFFORT and then the fewest points, and pays only when the
  EFFORT rises. One spend per check, from one pool, on one die, all or nothing.
- Without bands a check succeeds with one EFFORT or more, and ``margin`` is EFFORT - 1.
  No EFFORT is ever a critical by itself; the bands say what is.
- The record: ``rolls`` shows the faces as thrown, ``used`` and ``total`` the EFFORT,
  ``modifier="0"``, ``resolution="successes"``, ``dice="1d10+2d6"`` (talent first). Then
  ``quality="agility:+1@1"`` (the field, its modifier, and the die it raised, counted
  from 1 in throw order; no ``@`` when it raised none), ``tool="+1@2"`` (likewise),
  ``effort="2"``, ``raises="+1|0|0"`` (what was added to each die, in throw order; only
  when a die was raised), ``offer="Triumph: 5 from body, mind or luck"`` (the better band
  one more EFFORT reaches, the fewest points that buy it from each pool, cheapest first
  and in the ruleset's order, listing only the pools the roller holds enough in, so
  none the character does not have; no offer when no pool holds enough, and none once a
  spend is made; ``read_offer`` reads it back), and after a spend ``after="luck:5@2"``
  (pool, points paid, die raised).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from dicebound.bands import Against, BandRules, Bands, By, read_band
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError, UsageError
from dicebound.kinds.asks import ability_label, clamp, ladder_labels, step_by_label, written_int
from dicebound.kinds.base import (
    CheckAsk,
    CompileContext,
    KindCompiler,
    KindPlayer,
    OfferRead,
    Prepared,
    Rolled,
)
from dicebound.problems import Path, Problem, did_you_mean
from dicebound.ruleset.model import Field, LadderStep, Ruleset
from dicebound.ruleset.spec import Arr, Custom, Id, Int, JsonSchema, Node, Obj, Str
from dicebound.sheet import SheetView
from dicebound.tags.names import normalize
from dicebound.values import field, frozen

__all__ = [
    "CAPABILITY_VERSION",
    "DIE_SIZES",
    "KIND",
    "PLAYER",
    "AfterResult",
    "Offer",
    "Placement",
    "SpendRate",
    "StepCheck",
    "StepConfig",
    "StepOutcome",
    "best_placement",
    "distribution",
    "distribution_after",
    "read_offer",
    "roll",
    "spend_after",
]

DIE_SIZES: tuple[int, ...] = (2, 3, 4, 6, 8, 10, 12, 20)
"""The die sizes a step may name: the real dice, a coin to a d20."""

CAPABILITY_VERSION = "1.200"
"""What a packaged ruleset declares to use this kind (dicebound's number for it)."""

MAX_TRAINING = 6
TARGET_RANGE = (2, 100)
TOOL_MAX = 20
RATE_MAX = 10


# -- compiled config, the check and its outcome ------------------------------------------


@frozen
class SpendRate:
    """One ``afterRoll.spend`` entry: a live pool and the points it pays for +1."""

    pool: str
    rate: int = 1


@frozen
class StepConfig:
    """A compiled step-pool block. Immutable. Steps are die sizes, strictly ascending."""

    steps: tuple[int, ...] = (4, 6, 8, 10, 12)
    training_count: int = 2
    target_default: int = 4
    target_min: int = 2
    target_max: int = 12
    talent_label: str = "Talent"
    training_label: str = "Training"
    quality_label: str | None = None
    tool_label: str | None = None
    tool_max: int = 0
    spend: tuple[SpendRate, ...] = ()

    def __post_init__(self) -> None:
        if not self.steps or any(s not in DIE_SIZES for s in self.steps):
            raise UsageError(f"{self.steps} are not step sizes: each is one of {DIE_SIZES}")
        if any(a >= b for a, b in zip(self.steps, self.steps[1:], strict=False)):
            raise UsageError(f"steps {self.steps} do not run strictly upward")
        if not 1 <= self.training_count <= MAX_TRAINING:
            raise UsageError(f"{self.training_count} training dice is not 1 to {MAX_TRAINING}")
        if not self.target_min <= self.target_default <= self.target_max:
            raise UsageError(
                f"target default {self.target_default} is outside "
                f"{self.target_min}..{self.target_max}"
            )

    def step(self, number: int) -> int:
        """The die a number picks: ``steps[n]``, held to the list's ends."""
        return self.steps[clamp(number, 0, len(self.steps) - 1)]

    def rate(self, pool: str) -> SpendRate | None:
        return next((s for s in self.spend if s.pool == pool), None)


@frozen
class StepCheck:
    """One prepared check. Immutable.

    ``talent`` and ``training`` are die sizes; ``quality`` is the modifier read off the
    sheet (``quality_field`` names it; None when the tag named none) and ``tool`` the
    tool's quality, already held to its range. ``holdings`` is what the roller held in
    each spend pool when the check was prepared (config order), which the offer reads;
    ``bands`` are the ruleset's, which name the offer.
    """

    config: StepConfig
    talent: int
    training: int
    target: int
    quality: int = 0
    quality_field: str | None = None
    tool: int = 0
    holdings: tuple[tuple[str, int], ...] = ()
    bands: Bands | None = None

    def __post_init__(self) -> None:
        if self.talent < 2 or self.training < 2:
            raise UsageError(f"d{self.talent} and d{self.training} are not dice this kind throws")
        if self.target < 1:
            raise UsageError(f"a target of {self.target} is below 1")
        if self.tool < 0:
            raise UsageError(f"a tool quality of {self.tool} is below 0")

    @property
    def dice(self) -> tuple[int, ...]:
        """The sides of every die, in throw order: the talent die, then the training dice."""
        return (self.talent,) + (self.training,) * self.config.training_count

    @property
    def dice_text(self) -> str:
        return f"1d{self.talent}+{self.config.training_count}d{self.training}"

    @property
    def free_quality(self) -> int:
        """The quality raise the Engine applies: a modifier of 0 or less is never applied."""
        return max(self.quality, 0)


@frozen
class Placement:
    """Where the raises went. Dice are counted from 0 in throw order; None: not applied.

    ``paid_raise`` is what the paid raise added to its die, ``paid_points`` what it cost
    from ``paid_pool``.
    """

    effort: int
    quality_die: int | None = None
    tool_die: int | None = None
    paid_die: int | None = None
    paid_raise: int = 0
    paid_pool: str | None = None
    paid_points: int = 0


@frozen
class StepOutcome:
    """What one check came to: its EFFORT (``total``) and what bands read.

    ``faces`` and ``placement`` ride along on a thrown outcome (a spend after the roll
    reads them) and take no part in equality, so a thrown outcome equals the outcome of
    the same EFFORT in the distribution.
    """

    total: int
    success: bool
    critical_success: bool = False
    critical_failure: bool = False
    faces: tuple[int, ...] = field(default=(), compare=False)
    placement: Placement | None = field(default=None, compare=False)


@frozen
class AfterResult:
    """What a spend after the roll came to. ``cost`` is ``(pool, points)`` when paid and
    None when nothing was (the outcome and the record then stand as they were);
    ``rolled`` is the whole result as the record writes it, ``message`` one sentence."""

    outcome: StepOutcome
    placement: Placement
    cost: tuple[str, int] | None
    rolled: Rolled
    message: str

    @property
    def extras(self) -> tuple[tuple[str, str], ...]:
        return self.rolled.extras


# -- the shared arithmetic -------------------------------------------------------------


def _deficits(target: int, faces: Sequence[int]) -> tuple[int, ...]:
    """How far each die is below the target (0: it counts)."""
    return tuple(max(0, target - f) for f in faces)


def best_placement(
    deficits: Sequence[int], quality: int, tool: int, most: int = 0
) -> tuple[int, int | None, int | None, int | None]:
    """The best place for each raise: (EFFORT gained, quality die, tool die, paid die).

    A raise goes on a die below the target that it lifts to it, one raise a die; the
    paid raise is whatever that die lacks, at most ``most``. The most EFFORT wins, then
    the fewest points paid, then the first placement in throw order (quality before tool).
    """
    below = [(i, d) for i, d in enumerate(deficits) if d > 0]

    def places(size: int) -> list[int | None]:
        return [*(i for i, d in below if d <= size), None]

    best: tuple[int, int | None, int | None, int | None] = (0, None, None, None)
    best_key = (0, 0)
    for q in places(quality):
        for t in places(tool):
            if t is not None and t == q:
                continue
            for p in places(most):
                if p is not None and p in (q, t):
                    continue
                gain = (q is not None) + (t is not None) + (p is not None)
                key = (gain, -deficits[p] if p is not None else 0)
                if key > best_key:
                    best, best_key = (gain, q, t, p), key
    return best


def _success(effort: int) -> bool:
    """Without bands a check succeeds with one EFFORT or more."""
    return effort >= 1


def _outcome(
    effort: int, faces: tuple[int, ...] = (), placement: Placement | None = None
) -> StepOutcome:
    return StepOutcome(effort, _success(effort), faces=faces, placement=placement)


def _place(
    check: StepCheck, faces: Sequence[int], most: int = 0, rate: SpendRate | None = None
) -> Placement:
    deficits = _deficits(check.target, faces)
    gain, q, t, p = best_placement(deficits, check.free_quality, check.tool, most)
    effort = sum(1 for d in deficits if d == 0) + gain
    if p is None or rate is None:
        return Placement(effort, q, t)
    raise_ = deficits[p]
    return Placement(effort, q, t, p, raise_, rate.pool, raise_ * rate.rate)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _band_label(bands: Bands, effort: int) -> tuple[str, str]:
    band = read_band(bands, value=effort)
    return band.id, band.label


@frozen
class Offer:
    """What one more EFFORT would buy (a record's ``offer``): the band it reaches and,
    for each pool that can pay, the fewest points, cheapest first and in the ruleset's
    order. ``text`` is the attribute as the record writes it; ``read_offer`` reads it
    back, so a client can list the pools without parsing words."""

    label: str
    costs: tuple[tuple[str, int], ...]

    @property
    def text(self) -> str:
        groups: dict[int, list[str]] = {}
        for pool, points in self.costs:
            groups.setdefault(points, []).append(pool)
        parts = [f"{points} from {_or_list(pools)}" for points, pools in groups.items()]
        return f"{self.label}: {', '.join(parts)}"


_OFFER_PART = re.compile(r"(\d+) from ([a-z][a-z0-9_]*(?:(?:, | or )[a-z][a-z0-9_]*)*)")


def read_offer(text: str) -> Offer | None:
    """An ``offer`` attribute read back into its band and its costs; None when the text
    is not one this kind writes. Pool ids never hold ": ", ", " or " or ", so the band is
    everything before the last ": " and each cost's pools run to the next number."""
    label, colon, costs = text.rpartition(": ")
    if not colon or not label:
        return None
    found: list[tuple[str, int]] = []
    for part in re.split(r", (?=\d)", costs):
        matched = _OFFER_PART.fullmatch(part)
        if matched is None:
            return None
        points = int(matched[1])
        found += [(pool, points) for pool in re.split(r", | or ", matched[2])]
    return Offer(label, tuple(found))


def _offer(check: StepCheck, faces: Sequence[int], placement: Placement) -> Offer | None:
    """What one more EFFORT would buy, if it reaches a better band: the fewest points from
    each spend pool the roller holds enough in, cheapest first. A roller who holds enough
    in none (every pool spent, or a pool whose maximum is 0, which the character does not
    have) is offered nothing."""
    if not check.config.spend or placement.paid_die is not None:
        return None
    deficits = _deficits(check.target, faces)
    *_, p = best_placement(deficits, check.free_quality, check.tool, most=check.target)
    if p is None:
        return None
    effort = placement.effort + 1
    if check.bands is not None:
        now, _ = _band_label(check.bands, placement.effort)
        then, label = _band_label(check.bands, effort)
        if then == now:
            return None
    else:
        label = f"{effort} EFFORT"
    need = deficits[p]
    held = dict(check.holdings)
    costs = [
        (entry.pool, need * entry.rate)
        for entry in check.config.spend
        if held.get(entry.pool, 0) >= need * entry.rate
    ]
    if not costs:
        return None
    return Offer(label, tuple(sorted(costs, key=lambda c: c[1])))


def _or_list(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _extras(
    check: StepCheck, faces: Sequence[int], placement: Placement
) -> tuple[tuple[str, str], ...]:
    """The kind's record attributes (module docstring), in the record's order."""
    out: list[tuple[str, str]] = []
    if check.quality_field is not None:
        where = "" if placement.quality_die is None else f"@{placement.quality_die + 1}"
        out.append(("quality", f"{check.quality_field}:{_signed(check.quality)}{where}"))
    if check.tool:
        where = "" if placement.tool_die is None else f"@{placement.tool_die + 1}"
        out.append(("tool", f"{_signed(check.tool)}{where}"))
    out.append(("effort", str(placement.effort)))
    raised = _raises(check, len(faces), placement)
    if any(raised):
        out.append(("raises", "|".join(_signed(r) for r in raised)))
    offer = _offer(check, faces, placement)
    if offer is not None:
        out.append(("offer", offer.text))
    if placement.paid_die is not None:
        out.append(
            ("after", f"{placement.paid_pool}:{placement.paid_points}@{placement.paid_die + 1}")
        )
    return tuple(out)


def _raises(check: StepCheck, count: int, placement: Placement) -> tuple[int, ...]:
    """What each die was raised by, in throw order."""
    out = [0] * count
    if placement.quality_die is not None:
        out[placement.quality_die] = check.free_quality
    if placement.tool_die is not None:
        out[placement.tool_die] = check.tool
    if placement.paid_die is not None:
        out[placement.paid_die] = placement.paid_raise
    return tuple(out)


def _rolled(check: StepCheck, faces: tuple[int, ...], placement: Placement) -> Rolled:
    out = _outcome(placement.effort, faces, placement)
    return Rolled(
        rolls=tuple(str(f) for f in faces),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=False,
        critical_failure=False,
        dice=check.dice_text,
        resolution="successes",
        extras=_extras(check, faces, placement),
        outcome=out,
    )


# -- play ------------------------------------------------------------------------------


def roll(check: StepCheck, dice: DiceSource) -> Rolled:
    """Throw the talent die, then the training dice; place the free raises."""
    faces = tuple(dice.throw(sides) for sides in check.dice)
    return _rolled(check, faces, _place(check, faces))


def _spend_entry(config: StepConfig, pool: str) -> SpendRate:
    """The spend entry a pool id (any case) names; a TagError with a "did you mean"."""
    wanted = normalize(pool)
    for entry in config.spend:
        if normalize(entry.pool) == wanted:
            return entry
    names = [e.pool for e in config.spend]
    if not names:
        raise TagError("this check offers no spending after the roll.")
    listed = _or_list([f'"{n}"' for n in names])
    raise TagError(
        f'"{pool}" is not a pool this check spends after the roll; it spends {listed}.'
        f"{did_you_mean(pool, names)}"
    )


def spend_after(
    check: StepCheck, outcome: StepOutcome, pool_id: str, points: int, view: SheetView
) -> AfterResult:
    """The player spends up to ``points`` of one pool on one die after the roll.

    Every raise is placed afresh (free and paid) for the most EFFORT and the fewest
    points; the pool pays only what the raised die lacks (times the pool's rate), only
    when the EFFORT rises, and all or nothing. ``view`` is the roller's sheet, read for
    what the pool holds now.

    Raises:
        TagError: the pool is not one the check spends, the points are not 1 or more,
            or the check has already been spent on.
        UsageError: ``outcome`` is not a thrown outcome of this check.
    """
    placement = outcome.placement
    faces = outcome.faces
    if placement is None or len(faces) != len(check.dice):
        raise UsageError("spend_after needs the thrown outcome of this check")
    if placement.paid_die is not None:
        raise TagError(
            f"this check was already spent on ({placement.paid_pool}:{placement.paid_points}); "
            "a check takes one spend."
        )
    entry = _spend_entry(check.config, pool_id)
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise TagError(f"{points} is not a number of points to spend: spend 1 or more.")
    label = view.pool_label(entry.pool)
    holds = view.pool_value(entry.pool)
    budget = min(points, holds)
    before = _rolled(check, faces, placement)
    after = _place(check, faces, budget // entry.rate, entry)
    if after.paid_die is not None and after.effort > placement.effort:
        rolled = _rolled(check, faces, after)
        assert isinstance(rolled.outcome, StepOutcome)
        message = (
            f"{after.paid_points} {label} raised die {after.paid_die + 1} by "
            f"{after.paid_raise}: {after.effort} EFFORT."
        )
        return AfterResult(rolled.outcome, after, (entry.pool, after.paid_points), rolled, message)
    cheapest = _place(check, faces, check.target, entry)
    if cheapest.paid_die is None or cheapest.effort <= placement.effort:
        message = f"{entry.pool}:{points} buys nothing: no raise can add EFFORT to this roll."
    elif holds < cheapest.paid_points:
        message = (
            f"{label} holds {holds}, less than the {cheapest.paid_points} the cheapest raise "
            "that adds EFFORT costs, so nothing was paid."
        )
    else:
        message = (
            f"{entry.pool}:{points} buys nothing: the cheapest raise that adds EFFORT costs "
            f"{cheapest.paid_points} {label}, so nothing was paid."
        )
    return AfterResult(outcome, placement, None, before, message)


# -- odds ------------------------------------------------------------------------------


def _effort_dist(check: StepCheck, most: int) -> Dist[StepOutcome]:
    """The EFFORT of every throw, with the free raises and a paid raise of at most
    ``most`` placed by ``best_placement``.

    A die either counts, or falls short by a deficit. Only deficits some raise can close
    matter, and of those only the smallest (as many as there are raises): a raise placed
    on a larger one does at least as well on a smaller one left free. So the dice are
    walked keeping (dice that count, the smallest closable deficits, sorted).
    """
    quality, tool = check.free_quality, check.tool
    sizes = [r for r in (quality, tool, most) if r > 0]
    keep, reach = len(sizes), max(sizes, default=0)
    target = check.target
    states: dict[tuple[int, tuple[int, ...]], int] = {(0, ()): 1}
    for sides in check.dice:
        classes: dict[int, int] = {}
        for face in range(1, sides + 1):
            d = max(0, target - face)
            key = d if d <= reach else -1  # -1: short by more than any raise closes
            classes[key] = classes.get(key, 0) + 1
        grown: dict[tuple[int, tuple[int, ...]], int] = {}
        for (counted, short), weight in states.items():
            for d, ways in classes.items():
                if d == 0:
                    key2 = (counted + 1, short)
                elif d < 0 or keep == 0:
                    key2 = (counted, short)
                else:
                    key2 = (counted, tuple(sorted((*short, d)))[:keep])
                grown[key2] = grown.get(key2, 0) + weight * ways
        states = grown
    gains: dict[tuple[int, ...], int] = {}
    weights: dict[int, int] = {}
    for (counted, short), weight in states.items():
        gain = gains.get(short)
        if gain is None:
            gain = gains[short] = best_placement(short, quality, tool, most)[0]
        effort = counted + gain
        weights[effort] = weights.get(effort, 0) + weight
    return Dist.from_positive({_outcome(e): w for e, w in weights.items()})


def distribution(check: StepCheck) -> Dist[StepOutcome]:
    """The exact distribution of what ``roll`` gives: the free raises placed best, no spend."""
    return _effort_dist(check, 0)


def distribution_after(
    check: StepCheck, pool_id: str, points: int, pool_value: int
) -> Dist[StepOutcome]:
    """The exact distribution when, after every throw, the player spends up to ``points``
    of ``pool_id`` (which holds ``pool_value``) as ``spend_after`` does: whenever it
    raises the EFFORT, placed best.

    Raises:
        TagError: the pool is not one the check spends.
    """
    entry = _spend_entry(check.config, pool_id)
    budget = max(0, min(points, pool_value))
    return _effort_dist(check, budget // entry.rate)


# -- import: the block's keys, its cross-checks, and its capability features -------------


def _refused_here(message: str, code: str) -> Custom:
    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(path, code, message)

    schema: JsonSchema = {"not": {}}
    return Custom(check, schema)


_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))
_TARGET = Int(*TARGET_RANGE)

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "steps": Arr(Int(2, 1000), lo=1, hi=len(DIE_SIZES), noun="step"),
        "talent": Obj({"label": Str(hi=80)}, required=("label",)),
        "training": Obj(
            {"label": Str(hi=80), "count": Int(1, MAX_TRAINING)}, required=("label", "count")
        ),
        "target": Obj(
            {"default": _TARGET, "min": _TARGET, "max": _TARGET},
            required=("default", "min", "max"),
        ),
        "afterRoll": Obj(
            {
                "quality": Obj({"label": Str(hi=80)}, required=("label",)),
                "tool": Obj(
                    {"label": Str(hi=80), "max": Int(1, TOOL_MAX)}, required=("label", "max")
                ),
                "spend": Arr(
                    Obj({"pool": Id(), "rate": Int(1, RATE_MAX)}, required=("pool", "rate")),
                    lo=1,
                    hi=4,
                    noun="spend entry",
                ),
            },
            at_least_one=("quality", "tool", "spend"),
        ),
        "spend": _refused_here(
            "a step-pool check spends after the roll, on one die: put the pools in "
            "afterRoll.spend as { pool, rate }.",
            "misplaced-key",
        ),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


class _StepBands(BandRules):
    """Bands read the EFFORT itself: the difficulty is a target for each die, not a
    number of successes, so there is no margin."""

    reads: tuple[By, ...] = ("total",)

    def margin(self, total: int, dc: int, against: Against) -> int:
        raise UsageError('step-pool bands read by "total"; it has no margin')

    def by_refused(self, by: str, kind: str, written: bool) -> str:
        if by == "fraction":
            return super().by_refused(by, kind, written)
        said = '"margin"' if written else '"by" is left out, so the bands read "margin", which'
        return (
            f"{said} needs a number of successes the check must reach, but a step-pool "
            'difficulty is a target for each die; step-pool bands read by "total".'
        )


BANDS = _StepBands()


class StepPoolKind(KindCompiler):
    """The compile half of step-pool (the play half is ``PLAYER``)."""

    name = "step-pool"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("steps", "talent", "training", "target", "difficultyLadder")
    bands = BANDS

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[StepConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        at = ctx.path
        problems: list[Problem] = []
        add = problems.append
        sizes = ", ".join(str(s) for s in DIE_SIZES[:-1]) + f" or {DIE_SIZES[-1]}"

        steps = tuple(int(s) for s in block["steps"])
        for i, size in enumerate(steps):
            if size not in DIE_SIZES:
                add(
                    Problem(
                        (*at, "steps", i),
                        "not-a-die",
                        f"{size} is not a die size; a step is a die of {sizes} sides.",
                    )
                )
            elif i and size <= steps[i - 1]:
                add(
                    Problem(
                        (*at, "steps", i),
                        "not-ascending",
                        f"{size} is not above {steps[i - 1]}, the step before it; steps run "
                        "smallest first, each larger than the last.",
                    )
                )

        target = block["target"]
        t_default, t_min, t_max = int(target["default"]), int(target["min"]), int(target["max"])
        range_ok = t_min <= t_max
        if not range_ok:
            add(
                Problem(
                    (*at, "target", "min"),
                    "min-above-max",
                    f"{t_min} is above target.max {t_max}; the target is held to min..max.",
                )
            )
        elif not t_min <= t_default <= t_max:
            add(
                Problem(
                    (*at, "target", "default"),
                    "outside-target",
                    f"{t_default} is outside the target's range {t_min}..{t_max}; the default "
                    "target lies inside it.",
                )
            )
        if range_ok:
            for i, step in enumerate(block["difficultyLadder"]):
                dc = int(step["dc"])
                if not t_min <= dc <= t_max:
                    add(
                        Problem(
                            (*at, "difficultyLadder", i, "dc"),
                            "outside-target",
                            f"{dc} is outside the target's range {t_min}..{t_max}; a ladder "
                            "step's dc is a target number, so it lies inside that range.",
                        )
                    )

        for key, what in (
            ("penaltyFrom", "a wound penalty"),
            ("adjust", "an adjustment"),
        ):
            if key in block:
                add(
                    Problem(
                        (*at, key),
                        "not-for-kind",
                        f"a step-pool check adds no number to its dice, so {what} has nothing "
                        f"to change; remove {key}.",
                    )
                )

        after = block.get("afterRoll", {})
        spend: list[SpendRate] = []
        live = {p.id: p for p in ctx.sheet.pools}
        seen: dict[str, int] = {}
        for i, raw in enumerate(after.get("spend", ())):
            here = (*at, "afterRoll", "spend", i, "pool")
            pool = str(raw["pool"])
            decl = live.get(pool)
            if decl is None:
                add(
                    Problem(
                        here,
                        "unknown-id",
                        f'"{pool}" is not a live pool of this ruleset.{did_you_mean(pool, live)}',
                    )
                )
            elif decl.start == "empty":
                add(
                    Problem(
                        here,
                        "pool-starts-empty",
                        f'"{pool}" starts empty, so there would be nothing in it to spend when '
                        "play begins; name a pool that starts full.",
                    )
                )
            if pool in seen:
                add(
                    Problem(
                        here,
                        "duplicate-pool",
                        f'"{pool}" is already spent by entry {seen[pool]}; two entries may not '
                        "name the same pool, or a spend could not say which rate it meant.",
                    )
                )
                continue
            seen[pool] = i
            spend.append(SpendRate(pool, int(raw["rate"])))

        if problems:
            return None, problems
        quality = after.get("quality")
        tool = after.get("tool")
        config = StepConfig(
            steps=steps,
            training_count=int(block["training"]["count"]),
            target_default=t_default,
            target_min=t_min,
            target_max=t_max,
            talent_label=str(block["talent"]["label"]),
            training_label=str(block["training"]["label"]),
            quality_label=None if quality is None else str(quality["label"]),
            tool_label=None if tool is None else str(tool["label"]),
            tool_max=0 if tool is None else int(tool["max"]),
            spend=tuple(spend),
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The kind itself is dicebound's: a packaged ruleset declares 1.200 to use it."""
        yield CAPABILITY_VERSION, ("resolution", "kind"), "step-pool"


KIND = StepPoolKind()


# -- play: from a tag's ask to a prepared check ----------------------------------------


def _target(config: StepConfig, ask: CheckAsk) -> int:
    """``dc=`` held to the target's range, else the ``difficulty=`` step's, else the
    default target."""
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, config.target_min, config.target_max)
    step = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
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


def _numbers(config: StepConfig, ask: CheckAsk) -> tuple[int, int, list[tuple[str, str | int]]]:
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


class StepPoolPlayer(KindPlayer[StepConfig, StepCheck, StepOutcome]):
    """The play half of step-pool: the sheet's numbers pick the dice."""

    bands = BANDS
    spends_after = True
    dc_words = "target number each die must reach"

    def prepare(self, config: StepConfig, ask: CheckAsk) -> Prepared:
        talent_n, training_n, extras = _numbers(config, ask)
        target = _target(config, ask)
        untrained = None
        if ask.group != "ability":
            number = ask.view.check_number(ask.group, ask.item_id, ask.with_ability)
            untrained = number.untrained_rule if number.untrained else None
        if untrained == "harder":
            target = _harder(config, target, ask.ladder)
        if untrained in ("harder", "by"):
            extras.append(("reason", "untrained"))
        field_id, quality = _quality(config, ask)
        tool = _tool(config, ask)
        holdings = tuple((s.pool, ask.view.pool_value(s.pool)) for s in config.spend)
        bands = ask.view.ruleset.resolution.outcomes
        check = StepCheck(
            config=config,
            talent=config.step(talent_n),
            training=config.step(training_n),
            target=target,
            quality=quality,
            quality_field=field_id,
            tool=tool,
            holdings=holdings,
            bands=bands if isinstance(bands, Bands) else None,
        )
        summary = f"{check.dice_text} against {target}"
        if check.free_quality:
            summary += f", quality {_signed(quality)}"
        if tool:
            summary += f", tool {_signed(tool)}"
        return Prepared(check, target, tuple(extras), summary)

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

    # -- words --------------------------------------------------------------------------

    def step_words(self, step: LadderStep) -> str:
        return f"target {step.dc}"

    def ladder_words(self, step: LadderStep) -> str:
        return f"{step.label}: target number {step.dc}"

    def attribute_lines(self, ruleset: Ruleset, config: StepConfig) -> list[str]:
        lines = []
        if config.quality_label is not None:
            lines.append(
                f'quality="field": the {config.quality_label} the task leans on, a number '
                "field of the sheet (such as agility); it raises one die after the roll."
            )
        if config.tool_label is not None:
            lines.append(
                f'tool="N": the {config.tool_label}, 0 to {config.tool_max}; it raises one '
                "other die after the roll."
            )
        return lines

    def after_roll_lines(self, ruleset: Ruleset, config: StepConfig) -> list[str]:
        if not config.spend:
            return []
        labels = {p.id: p.label for p in ruleset.sheet.pools}
        pools = ", ".join(labels.get(s.pool, s.pool) for s in config.spend)
        return [
            "",
            "After the roll the player may spend points of "
            f"{pools} on one die to raise it. That is the player's choice, once the dice are "
            "seen: the record offers what a spend could still buy. Never spend for them.",
        ]


PLAYER = StepPoolPlayer()
