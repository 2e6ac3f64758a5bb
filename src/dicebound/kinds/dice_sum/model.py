"""dice-sum's values (the compiled config, the prepared check, what a set of dice came to,
how its bands read) and the arithmetic the throw and the odds share."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import accumulate
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from dicebound.bands import BandRules
from dicebound.dist import Dist
from dicebound.errors import UsageError
from dicebound.values import field, frozen, new_tuple

Mode = Literal["normal", "advantage", "disadvantage"]
NaturalRule = Literal["none", "both", "max-only", "min-only"]
Natural = Literal["top", "bottom"] | None

MAX_CHAIN_DICE = 20
"""The page: one open-ended roll throws at most 20 dice."""

FACE_VALUE_LIMIT = 1000
"""A face's value, an open-ended bound and an unmodified face lie in -1000..1000."""

NATURAL_RULES: tuple[NaturalRule, ...] = ("none", "both", "max-only", "min-only")


# -- compiled config and the check ------------------------------------------------------


@frozen
class OpenEnded:
    """A die that rolls on: at or above ``high`` adds a die, at or below ``low`` takes the
    chain away. Either bound may be absent. Bounds compare the faces' values."""

    high: int | None = None
    low: int | None = None


class SetResult(NamedTuple):
    """One thrown set of dice: the total it keeps and what its first die showed.

    ``natural`` is ``"top"``/``"bottom"`` when a single die's first face is its highest or
    lowest face; ``unmodified`` is the first face's value when the ruleset marks it.
    """

    used: int
    natural: Natural
    unmodified: int | None


@frozen
class MarkedPart:
    """The kept totals of one set distribution whose first die marks the same.

    ``weights[i]`` is the weight of ``totals[i]`` over the whole set distribution's
    total. Totals are distinct within a part and ascending; no two parts carry the same
    marks. ``running[i]`` is the weight of the first ``i`` totals (derived): a band
    reading moves the part by a check's modifier instead of sorting it again.
    """

    natural: Natural
    unmodified: int | None
    totals: tuple[int, ...]
    weights: tuple[int, ...]
    running: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "running", (0, *accumulate(self.weights)))


@frozen
class SetDist:
    """The exact distribution of one kept set, split by what its first die marks.

    Keeping the marks beside the totals, not inside every outcome, lets the odds of a
    check read each total once, with no merging.
    """

    parts: tuple[MarkedPart, ...]
    total: int


class SumOutcome(NamedTuple):
    """What one check came to, carrying what outcome bands read later.

    A named tuple rather than a dataclass: a distribution holds thousands of them.
    """

    total: int
    natural: Natural
    unmodified: int | None
    success: bool
    critical_success: bool
    critical_failure: bool


@frozen
class SumConfig:
    """A compiled dice-sum block. Immutable.

    ``faces`` gives face i's value at index i-1 (None: a face reads its own number).
    ``set_dists`` holds, per mode, the exact distribution of the kept set; it is derived
    from the other fields on construction.
    """

    count: int = 1
    sides: int = 20
    faces: tuple[int, ...] | None = None
    open_ended: OpenEnded | None = None
    unmodified: frozenset[int] = frozenset()
    advantage: bool = False
    naturals_check: NaturalRule = "none"
    naturals_save: NaturalRule = "none"
    max_chain: int = MAX_CHAIN_DICE
    set_dists: Mapping[Mode, SetDist] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    dice_text: str = field(init=False, repr=False, compare=False, default="")
    """The set as the record writes it (``1d100``, ``4d3``; derived)."""

    def __post_init__(self) -> None:
        if self.count < 1 or self.sides < 2:
            raise UsageError(f"{self.count}d{self.sides} is not a set of dice this kind throws")
        if self.faces is not None and len(self.faces) != self.sides:
            raise UsageError(f"{len(self.faces)} face values were given for {self.sides} sides")
        if (self.open_ended or self.unmodified) and self.count != 1:
            raise UsageError("openEnded and unmodified need a single die")
        if self.max_chain < 1:
            raise UsageError(f"a chain needs room for at least one die, not {self.max_chain}")
        normal = _set_dist(self)
        dists: dict[Mode, SetDist] = {"normal": normal}
        if self.advantage:
            dists["advantage"] = _kept_dist(normal, "advantage")
            dists["disadvantage"] = _kept_dist(normal, "disadvantage")
        object.__setattr__(self, "set_dists", MappingProxyType(dists))
        object.__setattr__(self, "dice_text", f"{self.count}d{self.sides}")

    def value(self, face: int) -> int:
        """What face number ``face`` (1..sides) is worth."""
        return face if self.faces is None else self.faces[face - 1]

    def values(self) -> tuple[int, ...]:
        """Every face's value, face 1 first."""
        return self.faces if self.faces is not None else tuple(range(1, self.sides + 1))

    def natural_rule(self, group: Literal["skill", "save", "ability"]) -> NaturalRule:
        """The natural rule of a check's group: saves read ``naturals.save``, skill and
        ability checks ``naturals.check``."""
        return self.naturals_save if group == "save" else self.naturals_check


class _SumCheckFields(NamedTuple):
    config: SumConfig
    modifier: int
    dc: int
    mode: Mode = "normal"
    naturals: NaturalRule = "none"


class SumCheck(_SumCheckFields):
    """One prepared check: the config, the check number, the dc, the advantage mode and
    the natural rule of this check's group (checks or saves). A named tuple (one is
    made for every question the odds are asked); made by its name, it is checked."""

    __slots__ = ()

    def __new__(
        cls,
        config: SumConfig,
        modifier: int,
        dc: int,
        mode: Mode = "normal",
        naturals: NaturalRule = "none",
    ) -> SumCheck:
        if mode != "normal" and mode not in config.set_dists:
            raise UsageError(
                f'mode "{mode}" needs a ruleset with "advantage": true; this one has none'
            )
        if naturals not in NATURAL_RULES:
            raise UsageError(f"{naturals!r} is not a natural rule")
        made: SumCheck = new_tuple(cls, (config, modifier, dc, mode, naturals))
        return made


# -- the shared arithmetic -----------------------------------------------------------


def rolls_on(config: SumConfig, position: int, value: int) -> int:
    """Whether the die at ``position`` (1 = the first) throws another after it.

    +1: the next die is added (at or above ``high``); -1: the chain that follows is taken
    away (only the first die, at or below ``low``); 0: the roll stops. The chain holds
    at most ``max_chain`` dice.
    """
    rule = config.open_ended
    if rule is None or position >= config.max_chain:
        return 0
    if position == 1 and rule.low is not None and value <= rule.low:
        return -1
    if rule.high is not None and value >= rule.high:
        return 1
    return 0


def first_marks(config: SumConfig, face: int) -> tuple[Natural, int | None]:
    """What the record and the bands read off the first die of a set (single die only)."""
    if config.count != 1:
        return None, None
    natural: Natural = "top" if face == config.sides else "bottom" if face == 1 else None
    value = config.value(face)
    return natural, (value if value in config.unmodified else None)


def keeps_first(mode: Mode, first: int, second: int) -> bool:
    """Advantage keeps the better total, disadvantage the worse; a tie keeps the first."""
    return first >= second if mode == "advantage" else first <= second


def natural_criticals(rule: NaturalRule, natural: Natural) -> tuple[bool, bool]:
    """Whether the face a set's first die showed makes it a critical success (the top
    face) or failure (the bottom face) under the check's natural rule."""
    return (
        natural == "top" and rule in ("both", "max-only"),
        natural == "bottom" and rule in ("both", "min-only"),
    )


def outcomes(
    check: SumCheck, natural: Natural, unmodified: int | None, kept: Iterable[int]
) -> list[SumOutcome]:
    """The check's results for kept set totals whose first die marked the same.

    Naturals first (the top face succeeds, the bottom fails, critically, where the rule
    says so), else the total against the dc. Written for many totals at once because
    the odds read every total of a part; a roll passes its one total.
    """
    modifier, dc, new = check.modifier, check.dc, new_tuple
    top, bottom = natural_criticals(check.naturals, natural)
    if top:
        return [
            new(SumOutcome, (u + modifier, natural, unmodified, True, True, False)) for u in kept
        ]
    if bottom:
        return [
            new(SumOutcome, (u + modifier, natural, unmodified, False, False, True)) for u in kept
        ]
    return [
        new(SumOutcome, (u + modifier, natural, unmodified, u + modifier >= dc, False, False))
        for u in kept
    ]


def _chain_tail(config: SumConfig, position: int) -> Dist[int]:
    """The sum of the dice thrown from ``position`` on, given that one is thrown there.

    Each position's faces split, by ``rolls_on``, into those that stop the chain and
    those that throw the next die; the last position the chain may hold always stops.
    """
    values = config.values()
    levels = []
    for pos in range(position, config.max_chain + 1):
        stop = [v for v in values if rolls_on(config, pos, v) == 0]
        going = [v for v in values if rolls_on(config, pos, v) != 0]
        levels.append((stop, going))
    return Dist.chain(levels)


def _set_dist(config: SumConfig) -> SetDist:
    """The distribution of one thrown set, by the same rules ``_throw_set`` follows."""
    if config.count > 1:
        total = Dist.uniform(config.values()).sum_of(config.count)
        return _marked([(None, None, total, 1)])
    # A single die: group its faces by how the chain goes on and what the first die marks.
    groups: dict[tuple[int, Natural, int | None], list[int]] = {}
    for face in range(1, config.sides + 1):
        value = config.value(face)
        key = (rolls_on(config, 1, value), *first_marks(config, face))
        groups.setdefault(key, []).append(value)
    tail = _chain_tail(config, 2) if any(key[0] for key in groups) else None
    shares: list[tuple[Natural, int | None, Dist[int], int]] = []
    for (sign, natural, unmodified), group in groups.items():
        used = Dist.uniform(group)
        if sign:
            assert tail is not None
            used = used + tail if sign > 0 else used - tail
        shares.append((natural, unmodified, used, len(group)))
    return _marked(shares)


def _marked(shares: list[tuple[Natural, int | None, Dist[int], int]]) -> SetDist:
    """A set distribution from shares (marks, totals, how many faces lead there)."""
    by_marks: dict[tuple[Natural, int | None], list[tuple[Dist[int], int]]] = {}
    for natural, unmodified, used, weight in shares:
        by_marks.setdefault((natural, unmodified), []).append((used, weight))
    merged = {marks: Dist.mix(group) for marks, group in by_marks.items()}
    share = {marks: sum(w for _, w in group) for marks, group in by_marks.items()}
    common = math.lcm(*(d.total for d in merged.values()))
    raw = {
        marks: {t: w * share[marks] * (common // d.total) for t, w in d.items()}
        for marks, d in merged.items()
    }
    return _set_dist_of(raw)


def _set_dist_of(raw: Mapping[tuple[Natural, int | None], Mapping[int, int]]) -> SetDist:
    """Parts from weights per marks and total, divided by their common gcd."""
    g = math.gcd(*(w for weights in raw.values() for w in weights.values()))
    parts = []
    for (natural, unmodified), weights in raw.items():
        ordered = sorted(weights.items())
        totals = tuple(t for t, _ in ordered)
        parts.append(MarkedPart(natural, unmodified, totals, tuple(w // g for _, w in ordered)))
    return SetDist(tuple(parts), sum(part.running[-1] for part in parts))


def _kept_dist(one: SetDist, mode: Mode) -> SetDist:
    """Two independent sets, one kept as ``keeps_first`` says.

    The first set is kept when it wins or ties, the second when it strictly wins, so a
    kept set of total t weighs w * (P[other ≤ t] + P[other < t]) for advantage
    (mirrored for disadvantage), over the square of the total weight.
    """
    by_total: dict[int, int] = {}
    for part in one.parts:
        for t, w in zip(part.totals, part.weights, strict=True):
            by_total[t] = by_total.get(t, 0) + w
    # ``before[t]``: the weight of the totals a kept total t strictly beats.
    before: dict[int, int] = {}
    running = 0
    for t in sorted(by_total, reverse=mode == "disadvantage"):
        before[t] = running
        running += by_total[t]
    return _set_dist_of(
        {
            (part.natural, part.unmodified): {
                t: w * (2 * before[t] + by_total[t])
                for t, w in zip(part.totals, part.weights, strict=True)
            }
            for part in one.parts
        }
    )


class _SumBands(BandRules):
    """A sum's bands, read off the total; a single die's faces are naturals."""

    def single_die(self, block: Mapping[str, Any]) -> bool:
        dice = block.get("dice")
        return (dice.get("count", 1) if isinstance(dice, Mapping) else 1) == 1


BANDS = _SumBands()
