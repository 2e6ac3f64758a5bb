"""dice-highest: throw a handful of dice and read the highest (Capability API 1.138).

Blades in the Dark and Trophy Dark. The sheet's number is how many dice, as on a pool,
held to ``pool`` (at most 20). ``keep`` (1-3) of the highest are added up; that sum is
the check's total, compared with ``dc`` (1 to keep times the die's sides) and read by
outcome bands ``by: "total"``. The page's keys: ``die``, ``pool``, ``keep``,
``zeroDice``, ``critical``, ``dark`` (Trophy Dark's dark dice, with ``outcome`` from
1.149), ``situationalDice``, ``spend`` (dice only) and the ``difficultyLadder``.

One arithmetic serves both halves. ``_plan`` says which dice a check throws, ``_kept``,
``_hits`` and ``_dark_wins`` read thrown faces, and ``_outcome`` turns what they read
into the ``HighestOutcome``. ``roll`` applies them to thrown faces; ``distribution``
reads every face assignment at once, face by face from the top (a die's face decides
whether it is kept, counts toward a critical, or beats the other group), and hands its
classes to the same ``_outcome``.

Readings where the documents leave a choice (docs/design/readings.md settles the pool's
size):

- The pool's size is the sheet's number plus the wound penalty, ``adjust``, ``bonus=``
  (held to ``situationalDice``) and dice bought with ``spend`` (``dicebound.spend``:
  all or nothing, clamped to ``perCheck``), held to ``pool.min``..``pool.max`` once.
  A purchase that would not change how many dice are thrown (the range leaves no room
  for them) is not made and not paid; one that is writes ``spend="pool:N"``. ``pool`` defaults to ``{ "min": 0, "max": 20 }``; a ``pool.max``
  above 20 is refused.
- Fewer dice than ``keep`` add up all there are. ``lowest-of-two`` keeps one die, the
  lower, whatever ``keep`` says, and is never a critical. ``fail`` fails with a total
  of 0 (``rolls=""``), which bands read like any other total.
- Dark dice read ``"all"`` (the default) are dice of the check like any other: the
  check is a zero-dice check only when it throws neither light nor dark dice, and a
  critical counts dark faces too. Read ``"light"``, zero light dice is a zero-dice check
  on the light side (two light dice keep the lower, or no light die and a failure)
  while the dark dice are still thrown.
- ``darkHighest`` is written whenever dark dice were thrown and one of them is above
  every light die (all light dice, the two fallback dice included); with no light die
  thrown, any dark die wins.
- ``critical.count`` dice at ``critical.face`` or above (the top face by default) make
  a critical success, which always succeeds. A count above the most dice a check can
  read could never fire and is refused; so is an explicit ``zeroDice`` beside a
  ``pool.min`` of 1 or more, since no check would ever have zero dice.
- A tag with no ``dc=`` and no ``difficulty=`` is refused, as on a sum, unless the
  ruleset's bands read ``by: "total"``: then they need no difficulty, and the record
  writes ``dc="0"``. ``untrained: "harder"`` moves the dc to the next ladder step up.
- The record keeps the summed shape (``resolution="sum"``, ``modifier="0"``, the kept
  dice as ``used`` and ``total``) and adds ``highest`` = how many dice are kept
  (``keep``, so ``"1"`` on Blades), ``zeroDice="true"``, ``dark="N"`` (after the
  clamp, only when dark dice were thrown), ``darkHighest="true"`` and
  ``darkOutcome="light"`` (beside ``dark``). ``dice`` counts every die thrown (``0d6``
  when none); ``rolls`` lists the light dice, then the dark dice.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

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
from dicebound.kinds.words import situational_lines
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.ruleset.spec import (
    Arr,
    Enum,
    Int,
    Node,
    Obj,
    Str,
)
from dicebound.spend import Spend, buy, compile_spends, parse_spend, spend_node
from dicebound.values import frozen

__all__ = [
    "KIND",
    "MAX_DARK",
    "MAX_POOL",
    "PLAYER",
    "CriticalRule",
    "Dark",
    "DarkOutcome",
    "HighestCheck",
    "HighestConfig",
    "HighestOutcome",
    "ZeroDice",
    "distribution",
    "roll",
]

ZeroDice = Literal["lowest-of-two", "fail"]
DarkOutcome = Literal["all", "light"]

MAX_POOL = 20
"""The page: a dice-highest pool is held to at most 20 dice."""
MAX_DARK = 10
"""The page: ``dark.max`` runs from 1 to 10."""
MAX_SIDES = 100


# -- compiled config and the check ------------------------------------------------------


@frozen
class CriticalRule:
    """``count`` dice at ``face`` or above make a critical success."""

    count: int
    face: int


@frozen
class Dark:
    """Trophy Dark's dark dice: what they are called, how many a check may add, and
    whether they are read with the rest (``all``) or only thrown beside them (``light``)."""

    label: str
    max: int
    text: str | None = None
    outcome: DarkOutcome = "all"


@frozen
class HighestConfig:
    """A compiled dice-highest block. Immutable."""

    sides: int = 6
    pool_min: int = 0
    pool_max: int = MAX_POOL
    keep: int = 1
    zero_dice: ZeroDice = "lowest-of-two"
    critical: CriticalRule | None = None
    dark: Dark | None = None
    situational: tuple[int, int] | None = None
    spend: tuple[Spend, ...] = ()  # each buys dice only

    def __post_init__(self) -> None:
        if not 2 <= self.sides <= MAX_SIDES:
            raise UsageError(f"a d{self.sides} is not a die this kind throws (2 to 100 sides)")
        if not 0 <= self.pool_min <= self.pool_max <= MAX_POOL:
            raise UsageError(f"pool {self.pool_min}..{self.pool_max} is not within 0..20")
        if not 1 <= self.keep <= 3:
            raise UsageError(f"keep is 1 to 3, not {self.keep}")
        if self.critical is not None and not 2 <= self.critical.face <= self.sides:
            raise UsageError(f"a d{self.sides} has no face {self.critical.face}")
        if self.dark is not None and not 1 <= self.dark.max <= MAX_DARK:
            raise UsageError(f"dark.max is 1 to 10, not {self.dark.max}")

    @property
    def light_only(self) -> bool:
        """Whether only light dice decide the result (``dark.outcome: "light"``)."""
        return self.dark is not None and self.dark.outcome == "light"

    @property
    def max_total(self) -> int:
        """The most the kept dice can add up to: the top of the dc range."""
        return self.keep * self.sides


@frozen
class HighestCheck:
    """One prepared check: the config, the light dice (the pool, after its range), the
    dc the kept dice must reach (0: none named, the bands read the total) and the dark
    dice added to it."""

    config: HighestConfig
    dice: int
    dc: int
    dark: int = 0

    def __post_init__(self) -> None:
        config = self.config
        if not config.pool_min <= self.dice <= config.pool_max:
            raise UsageError(
                f"{self.dice} dice is outside the pool's range {config.pool_min}..{config.pool_max}"
            )
        most_dark = config.dark.max if config.dark is not None else 0
        if not 0 <= self.dark <= most_dark:
            raise UsageError(f"{self.dark} dark dice is outside 0..{most_dark}")
        if not 0 <= self.dc <= config.max_total:
            raise UsageError(f"dc {self.dc} is outside 0..{config.max_total}")


class HighestOutcome(NamedTuple):
    """What one check came to: the kept dice's sum (what ``by: "total"`` reads), the
    result, and whether a dark die beat every light die."""

    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    dark_highest: bool


# -- the shared arithmetic -----------------------------------------------------------


class _Plan(NamedTuple):
    """Which dice a check throws: light dice, dark dice, and whether the zero-dice rule
    stands in for an empty pool (then ``light`` is the two fallback dice, or none)."""

    light: int
    dark: int
    zero: bool


def _plan(check: HighestCheck) -> _Plan:
    config = check.config
    empty = check.dice == 0 if config.light_only else check.dice + check.dark == 0
    if not empty:
        return _Plan(check.dice, check.dark, False)
    return _Plan(2 if config.zero_dice == "lowest-of-two" else 0, check.dark, True)


def _crit_face(config: HighestConfig) -> int:
    """The lowest face a critical counts; past the top face when there is no rule."""
    return config.critical.face if config.critical is not None else config.sides + 1


def _crit_cap(config: HighestConfig) -> int:
    """How many critical faces matter: past the rule's count, more change nothing."""
    return config.critical.count if config.critical is not None else 1


def _kept(faces: Sequence[int], keep: int) -> list[int]:
    """The ``keep`` highest faces (all of them when there are fewer)."""
    return sorted(faces, reverse=True)[:keep]


def _hits(config: HighestConfig, faces: Sequence[int]) -> int:
    """How many faces count toward a critical, capped at the rule's count."""
    face = _crit_face(config)
    return min(sum(1 for f in faces if f >= face), _crit_cap(config))


def _dark_wins(light: Sequence[int], dark: Sequence[int]) -> bool:
    """A dark die strictly above every light die; with no light die, any dark die wins."""
    return bool(dark) and max(dark) > max(light, default=0)


def _outcome(
    check: HighestCheck, zero: bool, total: int, hits: int, dark_highest: bool
) -> HighestOutcome:
    """The result of what the dice read. ``fail`` on zero dice fails without a roll;
    ``lowest-of-two`` is never a critical; a critical success always succeeds."""
    config = check.config
    if zero and config.zero_dice == "fail":
        return HighestOutcome(0, False, False, False, dark_highest)
    critical = not zero and config.critical is not None and hits >= config.critical.count
    return HighestOutcome(total, critical or total >= check.dc, critical, False, dark_highest)


# -- play ------------------------------------------------------------------------------


def roll(check: HighestCheck, dice: DiceSource) -> Rolled:
    """Throw the light dice (or the two fallback dice), then the dark dice, and read them."""
    config = check.config
    plan = _plan(check)
    light = [dice.throw(config.sides) for _ in range(plan.light)]
    dark = [dice.throw(config.sides) for _ in range(plan.dark)]
    reading = light if config.light_only else light + dark
    if plan.zero:
        kept = [min(light)] if light else []
        hits = 0
    else:
        kept = _kept(reading, config.keep)
        hits = _hits(config, reading)
    out = _outcome(check, plan.zero, sum(kept), hits, _dark_wins(light, dark))
    extras: list[tuple[str, str]] = [("highest", str(config.keep))]
    if plan.zero:
        extras.append(("zeroDice", "true"))
    if plan.dark:
        extras.append(("dark", str(plan.dark)))
        if out.dark_highest:
            extras.append(("darkHighest", "true"))
        if config.light_only:
            extras.append(("darkOutcome", "light"))
    return Rolled(
        rolls=tuple(str(f) for f in (*light, *dark)),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=f"{plan.light + plan.dark}d{config.sides}",
        extras=tuple(extras),
        outcome=out,
    )


# -- odds ------------------------------------------------------------------------------


def distribution(check: HighestCheck) -> Dist[HighestOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    config = check.config
    plan = _plan(check)
    sides = config.sides
    weights: dict[HighestOutcome, int] = {}

    def add(total: int, hits: int, dark_highest: bool, weight: int) -> None:
        if weight:
            out = _outcome(check, plan.zero, total, hits, dark_highest)
            weights[out] = weights.get(out, 0) + weight

    if plan.zero and plan.light == 0:  # fails unrolled; the dark dice are still thrown
        add(0, 0, plan.dark > 0, sides**plan.dark)
    elif plan.zero:  # two dice, the lower kept; dark dice beat the higher of the two
        every = sides**plan.dark
        for a in range(1, sides + 1):
            for b in range(1, sides + 1):
                high = max(a, b) ** plan.dark
                add(min(a, b), 0, False, high)
                add(min(a, b), 0, True, every - high)
    else:
        pooled = not config.light_only
        reading = plan.light + (plan.dark if pooled else 0)
        classes = _top_down(
            reading, plan.dark, pooled, sides, config.keep, _crit_face(config), _crit_cap(config)
        )
        for (total, hits, dark_first), weight in classes.items():
            add(total, hits, dark_first, weight)
    return Dist(weights)


_UNDECIDED, _DARK_FIRST, _LIGHT_FIRST = 0, 1, 2


def _top_down(
    reading: int,
    dark: int,
    pooled: bool,
    sides: int,
    keep: int,
    crit_face: int,
    crit_cap: int,
) -> dict[tuple[int, int, bool], int]:
    """Every assignment of faces to the dice, grouped by (kept total, critical hits,
    whether a dark die is strictly highest), counted exactly.

    Faces are taken from the top down. At each face some of the dice not yet placed
    show it (``comb`` ways): the first ``keep`` placed are the kept dice, those at or
    above ``crit_face`` count toward the critical. ``reading`` dice are read; with
    ``pooled`` the ``dark`` dice are among them (a dark die is highest when every die
    at the top face is dark), otherwise the dark dice are thrown beside them and only
    their highest face matters. A class is finished as soon as its kept dice are: its
    remaining dice spread over the faces below at once, binomially split by how many of
    them still reach the critical face.
    """
    if reading < 1:
        raise UsageError("the face-by-face count needs at least one die read")
    comb = math.comb
    states: dict[tuple[int, int, int, int, int], int] = {(0, 0, 0, 0, _UNDECIDED): 1}
    done: dict[tuple[int, int, bool], int] = {}
    for face in range(sides, 0, -1):
        below = face - 1
        grown: dict[tuple[int, int, int, int, int], int] = {}
        for (placed, kept, total, hits, first), w in states.items():
            left = reading - placed
            for here in range(left + 1):
                ways = comb(left, here)
                branches: tuple[tuple[int, int], ...]
                if first != _UNDECIDED:
                    branches = ((first, ways),)
                elif here == 0:
                    # Nothing read shows this face: still undecided, or a dark die thrown
                    # beside the read ones is the highest and shows it.
                    key = (0, 0, 0, 0, _UNDECIDED)
                    grown[key] = grown.get(key, 0) + w
                    if not pooled and dark:
                        key = (0, 0, 0, 0, _DARK_FIRST)
                        grown[key] = grown.get(key, 0) + w * (face**dark - below**dark)
                    continue
                elif pooled:
                    all_dark = comb(dark, here)
                    branches = ((_DARK_FIRST, all_dark), (_LIGHT_FIRST, ways - all_dark))
                else:  # a light die shows the top face: the dark dice show it or less
                    branches = ((_LIGHT_FIRST, ways * face**dark),)
                take = min(keep - kept, here)
                new_hits = min(hits + here, crit_cap) if face >= crit_face else hits
                for new_first, branch_ways in branches:
                    if branch_ways:
                        key = (placed + here, kept + take, total + take * face, new_hits, new_first)
                        grown[key] = grown.get(key, 0) + w * branch_ways
        states = {}
        for key, w in grown.items():
            placed, kept, total, hits, first = key
            if first == _UNDECIDED or (kept < keep and placed < reading):
                states[key] = w
                continue
            # The kept dice are settled: the dice left all show less than this face, and
            # only how many of them reach the critical face can still matter (binomial).
            left = reading - placed
            reach = max(0, below - crit_face + 1)
            every = below**left
            short = min(left + 1, crit_cap - hits) if reach else 0  # counts below the cap
            for more in range(short):
                spread = comb(left, more) * reach**more * (below - reach) ** (left - more)
                every -= spread
                if spread:
                    out = (total, hits + more, first == _DARK_FIRST)
                    done[out] = done.get(out, 0) + w * spread
            if every:  # the rest: no die left reaches it, or the cap is reached
                out = (total, min(hits + short, crit_cap), first == _DARK_FIRST)
                done[out] = done.get(out, 0) + w * every
    return done


# -- import: the block's keys, its cross-checks, and its capability features -------------


_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "die": Obj({"sides": Int(2, MAX_SIDES)}, required=("sides",)),
        "pool": Obj({"min": Int(0, MAX_POOL), "max": Int(1, 100)}, required=("min", "max")),
        "keep": Int(1, 3),
        "zeroDice": Enum(("lowest-of-two", "fail")),
        "critical": Obj({"count": Int(1, 30), "face": Int(2, MAX_SIDES)}, required=("count",)),
        "dark": Obj(
            {
                "label": Str(hi=80),
                "max": Int(1, MAX_DARK),
                "text": Str(hi=200),
                "outcome": Enum(("all", "light")),
            },
            required=("label", "max"),
        ),
        "situationalDice": Obj({"min": Int(-20, 0), "max": Int(0, 20)}, required=("min", "max")),
        "spend": spend_node("dice-highest", dice_only=True),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


class DiceHighestKind(KindCompiler):
    """The compile half of dice-highest (the play half is ``PLAYER``)."""

    name = "dice-highest"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("difficultyLadder",)

    def refused_fights(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        """The page: a ruleset of this kind has no fight of its own."""
        if "combat" in raw:
            yield Problem(
                ("combat",),
                "combat-not-allowed",
                "a dice-highest ruleset has no fight of its own, so a combat block is refused "
                "beside it; remove combat.",
            )

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[HighestConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        at = ctx.path
        problems: list[Problem] = []
        add = problems.append
        sides = int(block.get("die", {}).get("sides", 6))
        pool = block.get("pool", {"min": 0, "max": MAX_POOL})
        pool_min, pool_max = int(pool["min"]), int(pool["max"])
        keep = int(block.get("keep", 1))
        if pool_max > MAX_POOL:
            add(
                Problem(
                    (*at, "pool", "max"),
                    "pool-too-large",
                    f"{pool_max} is above {MAX_POOL}; a dice-highest pool throws at most "
                    f"{MAX_POOL} dice.",
                )
            )
        elif pool_min > pool_max:
            add(
                Problem(
                    (*at, "pool", "min"),
                    "min-above-max",
                    f"{pool_min} is above pool.max {pool_max}; the pool is held to min..max.",
                )
            )
        if "zeroDice" in block and pool_min > 0:
            add(
                Problem(
                    (*at, "zeroDice"),
                    "never-fires",
                    f"pool.min is {pool_min}, so no check ever has zero dice and zeroDice could "
                    "never apply; set pool.min to 0 or remove zeroDice.",
                )
            )

        dark: Dark | None = None
        if "dark" in block:
            raw = block["dark"]
            dark = Dark(
                str(raw["label"]), int(raw["max"]), raw.get("text"), raw.get("outcome", "all")
            )

        critical: CriticalRule | None = None
        if "critical" in block:
            raw = block["critical"]
            face = int(raw.get("face", sides))
            count = int(raw["count"])
            ok = True
            if face > sides:
                ok = False
                add(
                    Problem(
                        (*at, "critical", "face"),
                        "face-not-on-die",
                        f"{face} is not a face of a d{sides}, whose faces run from 1 to {sides}.",
                    )
                )
            most = min(pool_max, MAX_POOL) + (dark.max if dark and dark.outcome == "all" else 0)
            if count > most:
                ok = False
                add(
                    Problem(
                        (*at, "critical", "count"),
                        "never-fires",
                        f"{count} is more dice than a check ever reads ({most}), so the critical "
                        "could never fire.",
                    )
                )
            if ok:
                critical = CriticalRule(count, face)

        top = keep * sides
        for i, raw in enumerate(block["difficultyLadder"]):
            dc = int(raw["dc"])
            if not 1 <= dc <= top:
                add(
                    Problem(
                        (*at, "difficultyLadder", i, "dc"),
                        "dc-out-of-range",
                        f"{dc} is outside 1..{top}: the {_kept_words(keep)} of d{sides} add up "
                        f"to at most {top}, and a dc is at least 1.",
                    )
                )

        spends = compile_spends(block.get("spend", ()), at, ctx.sheet, problems)
        if problems:
            return None, problems
        situational = block.get("situationalDice")
        config = HighestConfig(
            sides=sides,
            pool_min=pool_min,
            pool_max=pool_max,
            keep=keep,
            zero_dice=block.get("zeroDice", "lowest-of-two"),
            critical=critical,
            dark=dark,
            situational=(
                None if situational is None else (int(situational["min"]), int(situational["max"]))
            ),
            spend=spends,
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        at: Path = ("resolution",)
        yield "1.138", (*at, "kind"), "the dice-highest kind"
        dark = block.get("dark")
        if isinstance(dark, Mapping) and "outcome" in dark:
            yield "1.149", (*at, "dark", "outcome"), "dark.outcome"


def _kept_words(keep: int) -> str:
    return "highest die" if keep == 1 else f"{keep} highest dice"


KIND = DiceHighestKind()


# -- play: from a tag's ask to a prepared check ----------------------------------------


def _bands_read_total(ask: CheckAsk) -> bool:
    """Whether the ruleset's outcome bands read the total, and so need no difficulty."""
    bands = ask.view.ruleset.resolution.outcomes
    return bands is not None and getattr(bands, "by", None) == "total"


def _dc(config: HighestConfig, ask: CheckAsk) -> int:
    """``dc=`` wins (held to 1..keep×sides), else the ``difficulty=`` step's; without
    either, 0 where bands read the total, else the tag is refused."""
    written = written_int(ask.attrs, "dc")
    if written is not None:
        return clamp(written, 1, config.max_total)
    step = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
    if step is not None and step.dc is not None:
        return clamp(step.dc, 1, config.max_total)
    if _bands_read_total(ask):
        return 0
    asked = ask.attrs.get("difficulty")
    labels = ladder_labels(ask.ladder)
    if asked is not None:
        raise TagError(f'difficulty="{asked}" names no single step of the ladder ({labels}).')
    raise TagError(f"the tag names no difficulty: write dc=N or difficulty= one of {labels}.")


def _harder(dc: int, ladder: Sequence[LadderStep]) -> int:
    """One step harder (unchanged where no dc was named)."""
    return dc if dc == 0 else next_step_dc(dc, ladder)


class DiceHighestPlayer(KindPlayer[HighestConfig, HighestCheck, HighestOutcome]):
    """The play half of dice-highest: the sheet's number is how many dice are thrown."""

    def prepare(self, config: HighestConfig, ask: CheckAsk) -> Prepared:
        with_id = ask.with_ability if ask.group != "ability" else None
        number = ask.view.check_number(ask.group, ask.item_id, with_id)
        penalty = ask.view.penalty()
        adjust = ask.view.adjust_for(number.abilities)
        bonus = 0
        if config.situational is not None:
            bonus = clamp(written_int(ask.attrs, "bonus") or 0, *config.situational)
        unbought = number.number + penalty + adjust + bonus
        dice = clamp(unbought, config.pool_min, config.pool_max)
        purchase = buy(
            config.spend, parse_spend(ask.attrs.get("spend")), ask.view, sheet_number=number.number
        )
        if purchase is not None:
            with_bought = clamp(unbought + purchase.dice, config.pool_min, config.pool_max)
            if with_bought == dice:  # the pool's range left no room: nothing bought or paid
                purchase = None
            dice = with_bought
        dark = 0
        if config.dark is not None:
            dark = clamp(written_int(ask.attrs, "dark") or 0, 0, config.dark.max)
        dc = _dc(config, ask)
        if number.untrained_rule == "harder":
            dc = _harder(dc, ask.ladder)
        extras = sheet_extras(ask.view, number, penalty, adjust)
        if bonus:
            extras.append(("bonus", bonus))
        costs: tuple[tuple[str, int], ...] = ()
        if purchase is not None:
            costs = ((purchase.pool, purchase.paid),)
            extras.append(("spend", f"{purchase.pool}:{purchase.paid}"))
        summary = f"{dice}d{config.sides}" + (f" and {dark} dark" if dark else "")
        summary += f", the {_kept_words(config.keep)}" + (f" against {dc}" if dc else "")
        check = HighestCheck(config, dice, dc, dark)
        return Prepared(check, dc, tuple(extras), summary, costs)

    def roll(self, check: HighestCheck, dice: DiceSource) -> Rolled:
        return roll(check, dice)

    def throw_sides(self, check: HighestCheck) -> tuple[int, ...] | None:
        """Every die's sides in throw order (light dice, then dark): never decided by a face."""
        plan = _plan(check)
        return (check.config.sides,) * (plan.light + plan.dark)

    def distribution(self, check: HighestCheck) -> Dist[HighestOutcome]:
        return distribution(check)

    def margin(self, check: HighestCheck, outcome: HighestOutcome) -> int:
        return outcome.total - check.dc

    # -- words --------------------------------------------------------------------------

    def attribute_lines(self, ruleset: Ruleset, config: HighestConfig) -> list[str]:
        lines = situational_lines(config.situational)
        if config.dark is not None:
            lines.append(f'dark="N": add up to {config.dark.max} {config.dark.label} dice.')
        return lines

    def spends(self, config: HighestConfig) -> Sequence[Spend]:
        return config.spend

    def mark_texts(self, config: HighestConfig) -> list[str]:
        dark = config.dark
        return [f"- {dark.label}: {dark.text}"] if dark is not None and dark.text else []


PLAYER = DiceHighestPlayer()
