"""dice-sum: add the dice up, add the check number, and reach the difficulty.

What the page and docs/design/format.md "dice-sum" give this kind: ``dice`` (count 1-10,
sides 2-1000, 1d20 by default) with ``faces`` (what each face is worth, face 1 first:
Fate's dice are ``[-1, 0, 1]``), ``openEnded`` (a single die that rolls on: at or above
``high`` it adds another die, at or below ``low`` it takes the chain away; at most 20
dice), ``unmodified`` (faces the record marks when the first die shows them),
``advantage`` (roll the dice twice and keep the better or worse total), ``naturals``
(the top and bottom face of a single die succeed or fail by themselves) and the
``difficultyLadder``.

One arithmetic serves both halves. A thrown set of dice reduces to a ``SetResult``
(kept total, what its first die showed); ``_outcomes`` turns set results and the check
into the ``SumOutcome``. ``roll`` applies them to thrown faces; ``distribution`` applies
the same functions to every face class, chains and the advantage pick included, and
weighs them exactly. The set distributions depend only on the ruleset, so they are
worked out once when the block is compiled.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- ``openEnded``, ``unmodified`` and a die's top and bottom compare what faces are worth;
  the *top face* a natural reads is the last face (number ``sides``), the bottom face 1.
- ``openEnded`` and ``unmodified`` are resolution keys beside ``dice``, as the page
  lists them; written inside ``dice`` they are refused with a pointer.
- A Rolemaster low end keeps its first face and takes the chain thrown for it away; the
  chain's own dice roll on only upward. The 20-dice cap holds per set of dice: with
  advantage each set may throw its own 20.
- Advantage keeps the first set on a tie. Naturals and ``unmodified`` read the first
  die of the kept set.
- The record's ``dice`` is the set as declared (``1d100`` for an open-ended roll,
  ``4d3`` for Fate's dice), and ``rolls`` shows what each face is worth.
- A bound, a face value or an unmodified face lies in -1000..1000. ``high`` on the
  lowest face, or ``low`` on the highest, would fire on every roll and is refused.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from dicebound.bands import BandRules, Group, group_of
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import TagError, UsageError
from dicebound.kinds.asks import (
    clamp,
    ladder_labels,
    next_step_dc,
    sheet_extras,
    step_by_label,
    written_int,
)
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
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Custom,
    Enum,
    Int,
    JsonSchema,
    Node,
    Obj,
    Str,
    describe,
)
from dicebound.values import field, frozen, new_tuple

__all__ = [
    "KIND",
    "MAX_CHAIN_DICE",
    "PLAYER",
    "MarkedPart",
    "Mode",
    "Natural",
    "NaturalRule",
    "OpenEnded",
    "SetDist",
    "SetResult",
    "SumCheck",
    "SumConfig",
    "SumOutcome",
    "distribution",
    "roll",
]

Mode = Literal["normal", "advantage", "disadvantage"]
NaturalRule = Literal["none", "both", "max-only", "min-only"]
Natural = Literal["top", "bottom"] | None

MAX_CHAIN_DICE = 20
"""The page: one open-ended roll throws at most 20 dice."""

FACE_VALUE_LIMIT = 1000
"""A face's value, an open-ended bound and an unmodified face lie in -1000..1000."""

_NATURAL_RULES: tuple[NaturalRule, ...] = ("none", "both", "max-only", "min-only")


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
    total. Totals are distinct within a part; no two parts carry the same marks.
    """

    natural: Natural
    unmodified: int | None
    totals: tuple[int, ...]
    weights: tuple[int, ...]


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

    def value(self, face: int) -> int:
        """What face number ``face`` (1..sides) is worth."""
        return face if self.faces is None else self.faces[face - 1]

    def values(self) -> tuple[int, ...]:
        """Every face's value, face 1 first."""
        return self.faces if self.faces is not None else tuple(range(1, self.sides + 1))

    @property
    def dice_text(self) -> str:
        return f"{self.count}d{self.sides}"

    def natural_rule(self, group: Literal["skill", "save", "ability"]) -> NaturalRule:
        """The natural rule of a check's group: saves read ``naturals.save``, skill and
        ability checks ``naturals.check``."""
        return self.naturals_save if group == "save" else self.naturals_check


@frozen
class SumCheck:
    """One prepared check: the config, the check number, the dc, the advantage mode and
    the natural rule of this check's group (checks or saves)."""

    config: SumConfig
    modifier: int
    dc: int
    mode: Mode = "normal"
    naturals: NaturalRule = "none"

    def __post_init__(self) -> None:
        if self.mode != "normal" and self.mode not in self.config.set_dists:
            raise UsageError(
                f'mode "{self.mode}" needs a ruleset with "advantage": true; this one has none'
            )
        if self.naturals not in _NATURAL_RULES:
            raise UsageError(f"{self.naturals!r} is not a natural rule")


# -- the shared arithmetic -----------------------------------------------------------


def _rolls_on(config: SumConfig, position: int, value: int) -> int:
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


def _first_marks(config: SumConfig, face: int) -> tuple[Natural, int | None]:
    """What the record and the bands read off the first die of a set (single die only)."""
    if config.count != 1:
        return None, None
    natural: Natural = "top" if face == config.sides else "bottom" if face == 1 else None
    value = config.value(face)
    return natural, (value if value in config.unmodified else None)


def _keeps_first(mode: Mode, first: int, second: int) -> bool:
    """Advantage keeps the better total, disadvantage the worse; a tie keeps the first."""
    return first >= second if mode == "advantage" else first <= second


def _outcomes(
    check: SumCheck, natural: Natural, unmodified: int | None, kept: Iterable[int]
) -> list[SumOutcome]:
    """The check's results for kept set totals whose first die marked the same.

    Naturals first (the top face succeeds, the bottom fails, critically, where the rule
    says so), else the total against the dc. Written for many totals at once because
    the odds read every total of a part; a roll passes its one total.
    """
    modifier, dc, rule, new = check.modifier, check.dc, check.naturals, new_tuple
    if natural == "top" and rule in ("both", "max-only"):
        return [
            new(SumOutcome, (u + modifier, natural, unmodified, True, True, False)) for u in kept
        ]
    if natural == "bottom" and rule in ("both", "min-only"):
        return [
            new(SumOutcome, (u + modifier, natural, unmodified, False, False, True)) for u in kept
        ]
    return [
        new(SumOutcome, (u + modifier, natural, unmodified, u + modifier >= dc, False, False))
        for u in kept
    ]


# -- play ------------------------------------------------------------------------------


def _throw_set(config: SumConfig, dice: DiceSource, shown: list[str]) -> SetResult:
    """Throw one set in throw order (an open-ended die's chain right after it)."""
    used = 0
    marks: tuple[Natural, int | None] = (None, None)
    sides, faces, open_ended = config.sides, config.faces, config.open_ended
    throw = dice.throw
    for i in range(config.count):
        face = throw(sides)
        value = face if faces is None else faces[face - 1]
        shown.append(str(value))
        if i == 0:
            marks = _first_marks(config, face)
        if open_ended is None:  # no die rolls on: the usual check
            used += value
            continue
        sign = _rolls_on(config, 1, value)
        position, chain, going = 1, 0, sign != 0
        while going:
            position += 1
            extra = config.value(throw(sides))
            shown.append(str(extra))
            chain += extra
            going = _rolls_on(config, position, extra) != 0
        used += value + sign * chain
    return SetResult(used, *marks)


def roll(check: SumCheck, dice: DiceSource) -> Rolled:
    """Throw the check: the first set, then (advantage) the second, and read the result."""
    config = check.config
    shown: list[str] = []
    kept = _throw_set(config, dice, shown)
    if check.mode != "normal":
        second = _throw_set(config, dice, shown)
        if not _keeps_first(check.mode, kept.used, second.used):
            kept = second
    (out,) = _outcomes(check, kept.natural, kept.unmodified, (kept.used,))
    extras = () if kept.unmodified is None else (("unmodified", str(kept.unmodified)),)
    rolled: Rolled = new_tuple(  # the record's numbers in Rolled's field order
        Rolled,
        (
            tuple(shown),
            kept.used,
            check.modifier,
            out.total,
            out.success,
            out.critical_success,
            out.critical_failure,
            config.dice_text,
            check.mode,
            "sum",
            extras,
            out,
            (),
        ),
    )
    return rolled


# -- odds ------------------------------------------------------------------------------


def distribution(check: SumCheck) -> Dist[SumOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    dist = check.config.set_dists[check.mode]
    out: dict[SumOutcome, int] = {}
    for part in dist.parts:  # every outcome is new: a part's marks and totals tell it apart
        keys = _outcomes(check, part.natural, part.unmodified, part.totals)
        out.update(zip(keys, part.weights, strict=True))
    return Dist.from_positive(out, total=dist.total)


def folded(check: SumCheck) -> list[Group]:
    """The distribution of this check folded for a band reading (see ``dicebound.odds``),
    worked from the set distribution without an outcome per total: a group per part of
    it, its totals moved by the modifier (a part's criticals and natural are the same
    for every total it holds, as ``_outcomes`` reads them)."""
    dist = check.config.set_dists[check.mode]
    modifier = check.modifier
    groups = []
    for part in dist.parts:

        def outcome(total: int, part: MarkedPart = part) -> SumOutcome:
            return _outcomes(check, part.natural, part.unmodified, (total - modifier,))[0]

        groups.append(
            group_of(zip([u + modifier for u in part.totals], part.weights, strict=True), outcome)
        )
    return groups


def _chain_tail(config: SumConfig, position: int) -> Dist[int]:
    """The sum of the dice thrown from ``position`` on, given that one is thrown there.

    Each position's faces split, by ``_rolls_on``, into those that stop the chain and
    those that throw the next die; the last position the chain may hold always stops.
    """
    values = config.values()
    levels = []
    for pos in range(position, config.max_chain + 1):
        stop = [v for v in values if _rolls_on(config, pos, v) == 0]
        going = [v for v in values if _rolls_on(config, pos, v) != 0]
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
        key = (_rolls_on(config, 1, value), *_first_marks(config, face))
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
    parts = tuple(
        MarkedPart(natural, unmodified, tuple(weights), tuple(w // g for w in weights.values()))
        for (natural, unmodified), weights in raw.items()
    )
    return SetDist(parts, sum(sum(part.weights) for part in parts))


def _kept_dist(one: SetDist, mode: Mode) -> SetDist:
    """Two independent sets, one kept as ``_keeps_first`` says.

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


# -- import: the block's keys, its cross-checks, and its capability features ---------------


def _misplaced(name: str) -> Custom:
    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(
            path,
            "misplaced-key",
            f'"{name}" belongs in resolution beside "dice", not inside it.',
        )

    schema: JsonSchema = {"not": {}}
    return Custom(check, schema)


_FACE = Int(-FACE_VALUE_LIMIT, FACE_VALUE_LIMIT)

_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "dice": Obj(
            {
                "count": Int(1, 10),
                "sides": Int(2, 1000),
                "faces": Arr(_FACE, lo=2, hi=1000, noun="face value"),
                "openEnded": _misplaced("openEnded"),
                "unmodified": _misplaced("unmodified"),
            },
            required=("count", "sides"),
        ),
        "advantage": Bool(),
        "naturals": Obj({"check": Enum(_NATURAL_RULES), "save": Enum(_NATURAL_RULES)}),
        "openEnded": Obj({"high": _FACE, "low": _FACE}, at_least_one=("high", "low")),
        "unmodified": Arr(_FACE, lo=1, hi=100, noun="face"),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


def _faces_text(config_values: tuple[int, ...], sides: int, has_faces: bool) -> str:
    if not has_faces:
        return f"a d{sides} has faces 1 to {sides}"
    shown = ", ".join(str(v) for v in config_values[:12])
    more = ", ..." if len(config_values) > 12 else ""
    return f"its faces are worth {shown}{more}"


class _SumBands(BandRules):
    """A sum's bands, read off the total; a single die's faces are naturals."""

    def single_die(self, block: Mapping[str, Any]) -> bool:
        dice = block.get("dice")
        return (dice.get("count", 1) if isinstance(dice, Mapping) else 1) == 1


BANDS = _SumBands()


class DiceSumKind(KindCompiler):
    """The compile half of dice-sum (the play half is ``roll`` and ``distribution``)."""

    name = "dice-sum"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("difficultyLadder",)
    bands = BANDS

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[SumConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        at = ctx.path
        problems: list[Problem] = []
        dice = block.get("dice", {})
        count, sides = int(dice.get("count", 1)), int(dice.get("sides", 20))
        raw_faces = dice.get("faces")
        faces = tuple(int(v) for v in raw_faces) if raw_faces is not None else None
        if faces is not None and len(faces) != sides:
            problems.append(
                Problem(
                    (*at, "dice", "faces"),
                    "faces-count",
                    f"gives {len(faces)} face values for a die of {sides} sides; "
                    "give one value per face, lowest face first.",
                )
            )
        values = faces if faces is not None else tuple(range(1, sides + 1))
        on_die = set(values)
        faces_text = _faces_text(values, sides, faces is not None)

        def single_die_only(key: str, what: str) -> None:
            problems.append(
                Problem(
                    (*at, key),
                    "single-die-only",
                    f"{what} needs a single die, and this ruleset throws {count}d{sides}.",
                )
            )

        open_ended: OpenEnded | None = None
        if "openEnded" in block:
            raw = block["openEnded"]
            high, low = raw.get("high"), raw.get("low")
            high = None if high is None else int(high)
            low = None if low is None else int(low)
            bad = False
            if count != 1:
                single_die_only("openEnded", "openEnded")
                bad = True
            for key, bound in (("high", high), ("low", low)):
                if bound is not None and bound not in on_die:
                    problems.append(
                        Problem(
                            (*at, "openEnded", key),
                            "face-not-on-die",
                            f"{bound} is not a face of the die: {faces_text}.",
                        )
                    )
                    bad = True
            if not bad:
                if high is not None and low is not None and low >= high:
                    problems.append(
                        Problem(
                            (*at, "openEnded", "low"),
                            "low-not-below-high",
                            f"{low} is not below high {high}; a face at or below low rolls "
                            "down and one at or above high rolls up, so low must be the lower.",
                        )
                    )
                elif high is not None and high <= min(values):
                    problems.append(
                        Problem(
                            (*at, "openEnded", "high"),
                            "always-fires",
                            f"{high} is the die's lowest face, so every face would roll on; "
                            "high must be above the lowest face.",
                        )
                    )
                elif low is not None and low >= max(values):
                    problems.append(
                        Problem(
                            (*at, "openEnded", "low"),
                            "always-fires",
                            f"{low} is the die's highest face, so every face would roll down; "
                            "low must be below the highest face.",
                        )
                    )
                else:
                    open_ended = OpenEnded(high=high, low=low)

        unmodified: frozenset[int] = frozenset()
        if "unmodified" in block:
            marked = [int(v) for v in block["unmodified"]]
            if count != 1:
                single_die_only("unmodified", "unmodified")
            for i, v in enumerate(marked):
                if v not in on_die:
                    problems.append(
                        Problem(
                            (*at, "unmodified", i),
                            "face-not-on-die",
                            f"{v} is not a face of the die: {faces_text}.",
                        )
                    )
            unmodified = frozenset(marked)

        naturals = block.get("naturals", {})
        rules: dict[str, NaturalRule] = {}
        for group in ("check", "save"):
            rule = naturals.get(group, "none")
            if rule != "none" and count != 1:
                problems.append(
                    Problem(
                        (*at, "naturals", group),
                        "single-die-only",
                        f"{describe(rule)} needs a single die, and this ruleset throws "
                        f'{count}d{sides}; a ruleset with more dice uses "none".',
                    )
                )
            rules[group] = rule
        if problems:
            return None, problems
        config = SumConfig(
            count=count,
            sides=sides,
            faces=faces,
            open_ended=open_ended,
            unmodified=unmodified,
            advantage=bool(block.get("advantage", False)),
            naturals_check=rules["check"],
            naturals_save=rules["save"],
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        dice = block.get("dice")
        if isinstance(dice, Mapping) and "faces" in dice:
            yield "1.136", ("resolution", "dice", "faces"), "dice.faces"
        for key in ("openEnded", "unmodified"):
            if key in block:
                yield "1.136", ("resolution", key), key


KIND = DiceSumKind()


# -- play: from a tag's ask to a prepared check ----------------------------------------

SUM_DC_RANGE = (1, 40)
"""A summed check's dc range before the ladder widens it (docs/design/format.md "dice-sum")."""


def _dc(ask: CheckAsk) -> int:
    """``dc=`` wins, else the ``difficulty=`` step's; held to 1..40 widened by the ladder."""
    dcs = [s.dc for s in ask.ladder if s.dc is not None]
    low, high = min([SUM_DC_RANGE[0], *dcs]), max([SUM_DC_RANGE[1], *dcs])
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, low, high)
    step = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
    if step is not None and step.dc is not None:
        return step.dc
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(f"the tag names no difficulty: write dc=N or difficulty= one of {labels}.")


def _mode(attrs: Mapping[str, str], advantage: bool) -> Mode:
    """``mode=`` or a bare flag; both at once is not rolled; ignored without advantage."""
    asked = {attrs.get("mode", "").strip().lower()} | {
        k for k in ("advantage", "disadvantage") if k in attrs
    }
    asked &= {"advantage", "disadvantage"}
    if len(asked) > 1:
        raise TagError("the tag asks for advantage and disadvantage at once; ask for one.")
    if not advantage or not asked:
        return "normal"
    return "advantage" if "advantage" in asked else "disadvantage"


class DiceSumPlayer(KindPlayer[SumConfig, SumCheck, SumOutcome]):
    """The play half of dice-sum: the sheet's number is added to the dice."""

    bands = BANDS
    signed_numbers = True

    def prepare(self, config: SumConfig, ask: CheckAsk) -> Prepared:
        with_id = ask.with_ability if ask.group != "ability" else None
        number = ask.view.check_number(ask.group, ask.item_id, with_id)
        dc = _dc(ask)
        if number.untrained_rule == "harder":
            dc = next_step_dc(dc, ask.ladder)
        penalty = ask.view.penalty()
        adjust = ask.view.adjust_for(number.abilities)
        mode = _mode(ask.attrs, config.advantage)
        naturals = config.naturals_save if ask.group == "save" else config.naturals_check
        modifier = number.number + penalty + adjust
        extras = sheet_extras(ask.view, number, penalty, adjust)
        summary = f"{config.dice_text}{modifier:+d} against {dc}" + (
            f" with {mode}" if mode != "normal" else ""
        )
        check = SumCheck(config, modifier, dc, mode, naturals)
        return Prepared(check, dc, tuple(extras), summary)

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

    def folded(self, check: SumCheck) -> list[Group]:
        return folded(check)

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
