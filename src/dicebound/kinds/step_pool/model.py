"""step-pool's values (the compiled config, the prepared check, its outcome and what a
spend after the roll made of it, how its bands read) and the arithmetic the throw, the
spend and the odds share."""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.bands import Against, BandRules, Bands, By, read_band
from dicebound.errors import UsageError
from dicebound.kinds.asks import clamp
from dicebound.kinds.base import Rolled
from dicebound.values import field, frozen

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


def deficits_of(target: int, faces: Sequence[int]) -> tuple[int, ...]:
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


def outcome_of(
    effort: int, faces: tuple[int, ...] = (), placement: Placement | None = None
) -> StepOutcome:
    return StepOutcome(effort, _success(effort), faces=faces, placement=placement)


def placement_of(
    check: StepCheck, faces: Sequence[int], most: int = 0, rate: SpendRate | None = None
) -> Placement:
    deficits = deficits_of(check.target, faces)
    gain, q, t, p = best_placement(deficits, check.free_quality, check.tool, most)
    effort = sum(1 for d in deficits if d == 0) + gain
    if p is None or rate is None:
        return Placement(effort, q, t)
    raise_ = deficits[p]
    return Placement(effort, q, t, p, raise_, rate.pool, raise_ * rate.rate)


def signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def band_label(bands: Bands, effort: int) -> tuple[str, str]:
    band = read_band(bands, value=effort)
    return band.id, band.label


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
