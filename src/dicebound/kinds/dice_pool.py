"""dice-pool: throw the dice and count them.

The sheet's number is the size of the pool. The compile half reads every key the page
and docs/design/format.md "dice-pool" give the kind (``die``, ``pool``, ``target`` with
``from``, ``double``, ``explode``, ``cancel``, ``botch``, ``exceptional``,
``situationalDice``, ``reroll``, ``stances``, ``exact``, ``spend`` and the
``difficultyLadder``), refuses every rule that could never fire, and builds the frozen
``PoolConfig``.

The play half turns a tag's ask into a ``PoolCheck`` (``DicePoolPlayer.prepare``: the
pool's size, the per-die target, the faces a check moved, the one re-throw, what a
spend and a charm bought), throws it (``roll``) and gives its exact odds
(``distribution``). Both read a face through ``face_effect`` and a result through
``pool_outcome``, so the odds are the odds of what the roller does.

The pool's size is the sheet's number, the wound penalty, ``adjust``, ``bonus=`` (held
to ``situationalDice``) and bought dice added first, then held to
``pool.min..pool.max`` once (docs/design/readings.md "The pool's size"). Throw order, the
re-throw pass and the pool rules' readings are docs/design/readings.md's "Pools" and
"Throw order"; what the play half chose where the documents are silent is written on
``DicePoolPlayer``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from functools import lru_cache
from heapq import heappop, heappush
from itertools import chain
from types import MappingProxyType
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from dicebound.charms import EntryUse, spend_is_for_entry, use_entry
from dicebound.dice import DiceSource
from dicebound.dist import Dist
from dicebound.errors import LimitExceeded, TagError, UsageError
from dicebound.kinds.asks import (
    ability_label,
    clamp,
    ladder_labels,
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
from dicebound.problems import Path, Problem, did_you_mean
from dicebound.ruleset.model import LadderStep, Ruleset, ValueRef
from dicebound.ruleset.refs import VALUE_REF, sheet_ref
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Enum,
    Id,
    Int,
    Node,
    Obj,
    Str,
    is_int,
)
from dicebound.spend import Reroll, Spend, buy, compile_spends, parse_spend, spend_node
from dicebound.tags.names import normalize
from dicebound.values import field, frozen

__all__ = [
    "KIND",
    "MAX_RETHROWS",
    "PLAYER",
    "Count",
    "Exact",
    "FaceEffect",
    "FaceRule",
    "PoolCheck",
    "PoolConfig",
    "PoolOutcome",
    "Reroll",
    "Spend",
    "Stance",
    "distribution",
    "face_effect",
    "pool_outcome",
    "roll",
]

BotchRule = Literal["noSuccesses", "halfOrMore"]


# -- compiled config -------------------------------------------------------------------


@frozen
class FaceRule:
    """``explode`` or ``double``: faces at or above ``from_face`` fire (None: only when a
    check asks); ``min`` is the lowest face a tag or an entry may move it to."""

    from_face: int | None = None
    min: int | None = None


@frozen
class Stance:
    """Skills whose dice count under (``below``) or over (``above``) the target."""

    id: str
    label: str
    count: Literal["below", "above"]
    skills: tuple[str, ...]


@frozen
class Exact:
    """A die showing exactly the target: named, explained, counted unless ``counts`` is
    false."""

    label: str
    text: str | None = None
    counts: bool = True


@frozen
class PoolConfig:
    """A compiled dice-pool block. Immutable."""

    sides: int
    pool_min: int
    pool_max: int
    target_default: int
    target_min: int
    target_max: int
    ability_plus_ability: bool = False
    target_from: ValueRef | None = None
    double: FaceRule | None = None
    explode: FaceRule | None = None
    cancel_up_to: int | None = None
    botch_up_to: int | None = None
    botch_rule: BotchRule = "noSuccesses"
    exceptional: int | None = None
    situational: tuple[int, int] | None = None
    rerolls: tuple[Reroll, ...] = ()
    stances: tuple[Stance, ...] = ()
    exact: Exact | None = None
    spend: tuple[Spend, ...] = ()

    @property
    def target_adjustable(self) -> bool:
        """Whether ``threshold=`` (and a ladder step) may move the target."""
        return self.target_min < self.target_max

    @property
    def max_successes(self) -> int:
        return max_successes(self.pool_max, self.explode is not None, self.double is not None)


def max_successes(pool_max: int, explodes: bool, doubles: bool) -> int:
    """The most one roll can count: the pool's maximum, doubled when dice may explode
    (the extra dice are capped at ``pool.max``), doubled again when faces count twice."""
    return pool_max * (2 if explodes else 1) * (2 if doubles else 1)


# -- value references (target.from, spend.perCheck) ------------------------------------


def _unknown(path: Path, what: str, name: str, known: Sequence[str]) -> Problem:
    return Problem(
        path,
        "unknown-id",
        f'"{name}" is not {what} of this sheet.{did_you_mean(name, known)}',
    )


# -- the block's shape -----------------------------------------------------------------

_FACE = Int(2, 100)
_FACE_RULE = Obj({"from": _FACE, "min": _FACE}, at_least_one=("from", "min"))
_REROLL_MODE = Enum(("once", "until"))


_STEP = Obj(
    {"label": Str(hi=80), "successes": Int(1, 100), "target": _FACE},
    required=("label", "successes"),
)

_KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "die": Obj({"sides": Int(2, 100)}, required=("sides",)),
        "pool": Obj(
            {"min": Int(0, 100), "max": Int(1, 100), "abilityPlusAbility": Bool()},
            required=("min", "max"),
        ),
        "target": Obj(
            {"default": _FACE, "min": _FACE, "max": _FACE, "from": VALUE_REF},
            required=("default", "min", "max"),
        ),
        "double": _FACE_RULE,
        "explode": _FACE_RULE,
        "cancel": Obj({"upTo": Int(1, 99)}, required=("upTo",)),
        "botch": Obj(
            {"upTo": Int(1, 99), "rule": Enum(("noSuccesses", "halfOrMore"))},
            required=("upTo",),
        ),
        "exceptional": Obj({"successes": Int(1, 100)}, required=("successes",)),
        "situationalDice": Obj({"min": Int(-20, 0), "max": Int(0, 20)}, required=("min", "max")),
        "reroll": Arr(
            Obj(
                {"id": Id(), "upTo": Int(1, 999), "mode": _REROLL_MODE},
                required=("id", "upTo", "mode"),
            ),
            lo=1,
            hi=6,
            unique_key="id",
            noun="re-throw",
        ),
        "stances": Arr(
            Obj(
                {
                    "id": Id(),
                    "label": Str(hi=80),
                    "count": Enum(("below", "above")),
                    "skills": Arr(Id(), lo=1, hi=120, noun="skill"),
                },
                required=("id", "label", "count", "skills"),
            ),
            lo=1,
            hi=6,
            unique_key="id",
            noun="stance",
        ),
        "exact": Obj(
            {"label": Str(hi=80), "text": Str(hi=200), "counts": Bool()}, required=("label",)
        ),
        "spend": spend_node("dice-pool", dice_only=False),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


# -- cross-checks --------------------------------------------------------------------


class DicePoolKind(KindCompiler):
    """The compile half of dice-pool."""

    name = "dice-pool"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("target", "difficultyLadder")
    harder_moves_target = True
    honours_entry_checks = True

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        target = raw.get("target")
        return LadderStep(
            label=str(raw["label"]),
            successes=int(raw["successes"]),
            target=None if target is None else int(target),
            raw=raw,
        )

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[PoolConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        at = ctx.path
        problems: list[Problem] = []
        add = problems.append
        sides = int(block.get("die", {}).get("sides", 10))
        pool = block.get("pool", {"min": 1, "max": 40})
        pool_min, pool_max = int(pool["min"]), int(pool["max"])
        if pool_min > pool_max:
            add(
                Problem(
                    (*at, "pool", "min"),
                    "min-above-max",
                    f"{pool_min} is above pool.max {pool_max}; the pool is held to min..max.",
                )
            )

        def face_on_die(path: Path, face: int) -> bool:
            if face <= sides:
                return True
            add(
                Problem(
                    path,
                    "face-not-on-die",
                    f"{face} is not a face of a d{sides}, whose faces run from 1 to {sides}.",
                )
            )
            return False

        target = block["target"]
        t_default, t_min, t_max = int(target["default"]), int(target["min"]), int(target["max"])
        checked = [
            face_on_die((*at, "target", k), int(target[k])) for k in ("default", "min", "max")
        ]
        faces_ok = all(checked)
        if t_min > t_max:
            add(
                Problem(
                    (*at, "target", "min"),
                    "min-above-max",
                    f"{t_min} is above target.max {t_max}; the target runs from min to max.",
                )
            )
        elif not t_min <= t_default <= t_max and faces_ok:
            add(
                Problem(
                    (*at, "target", "default"),
                    "out-of-range",
                    f"{t_default} is not within target.min..target.max ({t_min} to {t_max}).",
                )
            )
        target_from: ValueRef | None = None
        if "from" in target:
            if t_min >= t_max:
                add(
                    Problem(
                        (*at, "target", "from"),
                        "target-fixed",
                        f"the target is fixed at {t_min}, so a target read off the sheet "
                        "could never change it; set target.min below target.max.",
                    )
                )
            else:
                target_from, found = sheet_ref(target["from"], (*at, "target", "from"), ctx.sheet)
                problems.extend(found)

        rules: dict[str, FaceRule] = {}
        for key in ("explode", "double"):
            if key not in block:
                continue
            raw = block[key]
            rule = FaceRule(
                from_face=None if "from" not in raw else int(raw["from"]),
                min=None if "min" not in raw else int(raw["min"]),
            )
            ok = True
            for part, face in (("from", rule.from_face), ("min", rule.min)):
                if face is not None:
                    ok = face_on_die((*at, key, part), face) and ok
            if (
                ok
                and rule.from_face is not None
                and rule.min is not None
                and rule.from_face < rule.min
            ):
                add(
                    Problem(
                        (*at, key, "from"),
                        "below-min",
                        f"{rule.from_face} is below {key}.min {rule.min}; from may not be below min.",
                    )
                )
            rules[key] = rule

        for key in ("cancel", "botch"):
            if key in block:
                up_to = int(block[key]["upTo"])
                if up_to >= t_min:
                    add(
                        Problem(
                            (*at, key, "upTo"),
                            "not-below-target",
                            f"{up_to} is not below the lowest target {t_min}; a face that "
                            f"counts as a success cannot also {key}.",
                        )
                    )

        most = max_successes(pool_max, "explode" in rules, "double" in rules)
        why = _most_text(pool_max, "explode" in rules, "double" in rules)
        exceptional: int | None = None
        if "exceptional" in block:
            exceptional = int(block["exceptional"]["successes"])
            if exceptional > most:
                add(
                    Problem(
                        (*at, "exceptional", "successes"),
                        "past-max-successes",
                        f"{exceptional} is more than one roll can count ({most}: {why}).",
                    )
                )
            if "outcomes" in block:
                add(
                    Problem(
                        (*at, "exceptional"),
                        "never-fires",
                        "a pool with outcome bands leaves exceptional out, because the bands "
                        "already say what a critical success is; remove one of them.",
                    )
                )

        rerolls: list[Reroll] = []
        for i, raw in enumerate(block.get("reroll", ())):
            rr = Reroll(int(raw["upTo"]), raw["mode"], str(raw["id"]))
            if _reroll_too_high(rr.up_to, sides, (*at, "reroll", i, "upTo"), add):
                continue
            rerolls.append(rr)

        stances: list[Stance] = []
        known_skills = [s.id for s in ctx.sheet.skills]
        stance_of: dict[str, str] = {}
        for i, raw in enumerate(block.get("stances", ())):
            skills = tuple(str(s) for s in raw["skills"])
            for j, skill in enumerate(skills):
                path = (*at, "stances", i, "skills", j)
                if skill not in known_skills:
                    add(_unknown(path, "a skill", skill, known_skills))
                elif skill in stance_of:
                    add(
                        Problem(
                            path,
                            "skill-in-two-stances",
                            f'"{skill}" is already in stance "{stance_of[skill]}"; a skill may '
                            "be in one stance only.",
                        )
                    )
                else:
                    stance_of[skill] = str(raw["id"])
            stances.append(Stance(str(raw["id"]), str(raw["label"]), raw["count"], skills))

        exact: Exact | None = None
        if "exact" in block:
            raw = block["exact"]
            exact = Exact(str(raw["label"]), raw.get("text"), bool(raw.get("counts", True)))

        spends = compile_spends(
            block.get("spend", ()),
            at,
            ctx.sheet,
            problems,
            lambda up_to, path: _reroll_too_high(up_to, sides, path, problems.append),
        )

        for i, raw in enumerate(block["difficultyLadder"]):
            need = int(raw["successes"])
            if need > most:
                add(
                    Problem(
                        (*at, "difficultyLadder", i, "successes"),
                        "past-max-successes",
                        f"{need} is more than one roll can count ({most}: {why}).",
                    )
                )
            if "target" in raw:
                step_target = int(raw["target"])
                path = (*at, "difficultyLadder", i, "target")
                if t_min >= t_max:
                    add(
                        Problem(
                            path,
                            "target-fixed",
                            f"the target is fixed at {t_default}, so a step may not name one; "
                            "a step names a target only when target.min is below target.max.",
                        )
                    )
                elif face_on_die(path, step_target) and not t_min <= step_target <= t_max:
                    add(
                        Problem(
                            path,
                            "out-of-range",
                            f"{step_target} is not within target.min..target.max "
                            f"({t_min} to {t_max}).",
                        )
                    )

        if problems:
            return None, problems
        situational = block.get("situationalDice")
        return (
            PoolConfig(
                sides=sides,
                pool_min=pool_min,
                pool_max=pool_max,
                target_default=t_default,
                target_min=t_min,
                target_max=t_max,
                ability_plus_ability=bool(pool.get("abilityPlusAbility", False)),
                target_from=target_from,
                double=rules.get("double"),
                explode=rules.get("explode"),
                cancel_up_to=int(block["cancel"]["upTo"]) if "cancel" in block else None,
                botch_up_to=int(block["botch"]["upTo"]) if "botch" in block else None,
                botch_rule=block["botch"].get("rule", "noSuccesses")
                if "botch" in block
                else "noSuccesses",
                exceptional=exceptional,
                situational=(
                    None
                    if situational is None
                    else (int(situational["min"]), int(situational["max"]))
                ),
                rerolls=tuple(rerolls),
                stances=tuple(stances),
                exact=exact,
                spend=spends,
            ),
            [],
        )

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        at: Path = ("resolution",)
        yield "1.24", (*at, "kind"), "the dice-pool kind"
        for key in ("explode", "double"):
            part = block.get(key)
            if isinstance(part, Mapping) and "min" in part:
                yield "1.37", (*at, key, "min"), f"{key}.min"
        pool = block.get("pool")
        if isinstance(pool, Mapping) and "abilityPlusAbility" in pool:
            yield "1.37", (*at, "pool", "abilityPlusAbility"), "pool.abilityPlusAbility"
        botch = block.get("botch")
        if isinstance(botch, Mapping) and "rule" in botch:
            yield "1.37", (*at, "botch", "rule"), "botch.rule"
        if "reroll" in block:
            yield "1.38", (*at, "reroll"), "reroll"
        spend = block.get("spend")
        if isinstance(spend, list):
            for i, entry in enumerate(spend):
                if isinstance(entry, Mapping) and "reroll" in entry:
                    yield "1.38", (*at, "spend", i, "reroll"), "a spend that buys a reroll"
                if isinstance(entry, Mapping) and not is_int(entry.get("perCheck", 1)):
                    yield "1.38", (*at, "spend", i, "perCheck"), "a perCheck that is not a number"
            if len(spend) > 2:
                yield "1.38", (*at, "spend", 2), "more than two spend entries"
        target = block.get("target")
        if isinstance(target, Mapping) and "from" in target:
            yield "1.137", (*at, "target", "from"), "target.from"
        for key in ("stances", "exact"):
            if key in block:
                yield "1.137", (*at, key), key


def _reroll_too_high(up_to: int, sides: int, path: Path, add: Callable[[Problem], None]) -> bool:
    if up_to < sides:
        return False
    add(
        Problem(
            path,
            "rerolls-every-face",
            f"{up_to} is not below the die's top face {sides}; a re-throw of every face "
            f"would never stop, so upTo runs from 1 to {sides - 1}.",
        )
    )
    return True


def _most_text(pool_max: int, explodes: bool, doubles: bool) -> str:
    said = f"pool.max {pool_max}"
    if explodes:
        said += ", doubled because dice explode"
    if doubles:
        said += (
            ", doubled again because faces count twice"
            if explodes
            else ", doubled because faces count twice"
        )
    return said


KIND = DicePoolKind()


# -- play: the check, the arithmetic shared by the roller and the odds --------------------

MAX_RETHROWS = 100
"""The most re-throws one check throws (Marinara's ``RULESET_POOL_MAX_REROLLS``)."""

MAX_ODDS_STATES = 1_000_000
"""The most states the exact odds of one check may hold at once; past it ``LimitExceeded``."""

Count = Literal["at-least", "below", "above"]


@frozen
class PoolCheck:
    """One prepared pool check: everything the throw and its odds read. Immutable.

    ``dice`` is the pool's size, already held to ``pool.min..pool.max`` (0: the pool is
    empty and fails with no roll). ``count`` is how a die counts: at or above the target,
    or under/over it on a stance (which leaves ``explode``, ``double``, ``cancel`` and
    ``botch`` out: they are None here). ``exact`` is None without the rule, else whether a
    die showing exactly the target counts. ``reroll`` is the one re-throw the check
    throws; ``reroll_id`` names it when it is the tag's standing one. ``auto`` are the
    successes nobody rolled. ``max_extra`` caps the dice explosions add (``pool.max``) and
    ``max_rethrows`` the re-throws.
    """

    sides: int
    dice: int
    target: int
    needed: int
    count: Count = "at-least"
    explode_from: int | None = None
    double_from: int | None = None
    cancel_up_to: int | None = None
    botch_up_to: int | None = None
    botch_rule: BotchRule = "noSuccesses"
    exceptional: int | None = None
    exact: bool | None = None
    reroll: Reroll | None = None
    reroll_id: str | None = None
    auto: int = 0
    max_extra: int = 0
    max_rethrows: int = MAX_RETHROWS

    def __post_init__(self) -> None:
        if self.sides < 2 or self.dice < 0 or self.needed < 1:
            raise UsageError(
                f"{self.dice}d{self.sides} needing {self.needed} is not a pool check this "
                "kind throws"
            )
        if not 1 <= self.target <= self.sides:
            raise UsageError(f"the target {self.target} is not a face of a d{self.sides}")
        if self.reroll is not None and not 1 <= self.reroll.up_to < self.sides:
            raise UsageError(
                f"a re-throw up to {self.reroll.up_to} on a d{self.sides} would never stop"
            )
        if self.explode_from is not None and self.explode_from < 2:
            raise UsageError(f"every face would explode from {self.explode_from}")
        if self.max_extra < 0 or self.max_rethrows < 0 or self.auto < 0:
            raise UsageError("caps and automatic successes are 0 or more")

    @property
    def dice_text(self) -> str:
        return f"{self.dice}d{self.sides}"


class FaceEffect(NamedTuple):
    """What one face does: the successes it counts (0, 1, or 2 when doubled), whether it
    cancels one, whether it is a botch face, whether it shows exactly the target, whether
    it rolls one more die, and whether the check's re-throw throws it again."""

    successes: int
    cancels: int
    low: int
    exact: int
    explodes: bool
    rethrow: bool


class PoolOutcome(NamedTuple):
    """What one check came to: the net successes (``total``), the result, whether a
    ``halfOrMore`` botch went wrong alongside it, and how many dice showed the exact
    target. A named tuple: a distribution holds many of them."""

    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    complication: bool = False
    exact: int = 0


def face_effect(check: PoolCheck, face: int) -> FaceEffect:
    """The one reading of a face, shared by the roller and the odds.

    A die showing exactly the target counts one success when ``exact`` counts and none
    when it does not, whatever else would have counted it, and doubling never touches
    it. Otherwise a die counts at or above the target (twice at or above the double
    face), or under/over it on a stance. A doubled face is a counted one: a face below
    the target counts nothing, whatever the double face.
    """
    target = check.target
    is_exact = check.exact is not None and face == target
    if is_exact:
        successes = 1 if check.exact else 0
    elif check.count == "below":
        successes = int(face < target)
    elif check.count == "above":
        successes = int(face > target)
    elif face >= target:
        doubled = check.double_from is not None and face >= check.double_from
        successes = 2 if doubled else 1
    else:
        successes = 0
    return FaceEffect(
        successes=successes,
        cancels=int(check.cancel_up_to is not None and face <= check.cancel_up_to),
        low=int(check.botch_up_to is not None and face <= check.botch_up_to),
        exact=int(is_exact),
        explodes=check.explode_from is not None and face >= check.explode_from,
        rethrow=check.reroll is not None and face <= check.reroll.up_to,
    )


def pool_outcome(
    check: PoolCheck, counted: int, succeeded: bool, low_seen: bool, low_first: int, exact: int
) -> PoolOutcome:
    """The check's result from what its standing dice came to, shared by both paths.

    ``counted`` is the dice's successes minus their cancels (the net never goes below
    zero; successes nobody rolled are added after). ``succeeded``: a die counted a
    success. ``low_seen``: a botch face stands. ``low_first``: how many of the dice
    first thrown stand on a botch face. A ``noSuccesses`` botch (no die succeeded and a
    botch face showed) and a ``halfOrMore`` one with no die succeeded are critical
    failures; a ``halfOrMore`` botch beside a succeeding die marks a complication.
    ``exceptional`` net successes on a check that succeeded are a critical success.
    """
    net = max(0, counted) + check.auto
    complication = False
    if check.botch_up_to is not None:
        if check.botch_rule == "halfOrMore":
            botched = 2 * low_first >= check.dice and not succeeded
            complication = 2 * low_first >= check.dice and succeeded
        else:
            botched = low_seen and not succeeded
        if botched:
            return PoolOutcome(net, False, False, True, False, exact)
    success = net >= check.needed
    critical = success and check.exceptional is not None and net >= check.exceptional
    return PoolOutcome(net, success, critical, False, complication, exact)


def _empty_outcome(check: PoolCheck) -> PoolOutcome:
    """An empty pool fails with no roll at all (the page)."""
    return PoolOutcome(0, False, False, False)


# -- the roller -----------------------------------------------------------------------


@lru_cache(maxsize=512)
def _face_table(check: PoolCheck) -> tuple[FaceEffect, ...]:
    """``face_effect`` of every face of the check's die, face ``f`` at index ``f`` (the
    roller reads a face twice or more: once for explosions, once to count it)."""
    return (face_effect(check, 1), *(face_effect(check, f) for f in range(1, check.sides + 1)))


def roll(check: PoolCheck, dice: DiceSource) -> Rolled:
    """Throw the check in the throw order docs/design/readings.md writes down, and count it.

    The pool's dice; then, in the order of the dice that set them off, each explosion's
    chain to its end (at most ``max_extra`` added dice in all); then one pass through the
    dice in throw order, throwing again each die at or below the re-throw's ``upTo``
    (once, or until it shows more), a new face that explodes setting off its chain at
    once, the chain's dice joining the end of the pass; the pass ends after
    ``max_rethrows`` re-throws. A face thrown again no longer counts for anything.
    """
    sides = check.sides
    effect_of = _face_table(check)
    if check.dice == 0:
        return _rolled(check, (), _empty_outcome(check), 0)
    shown: list[str] = []
    marks: list[list[str]] = []  # per shown die: what happened to it, for the card
    extra = 0

    def throw(why: str | None = None) -> int:
        face = dice.throw(sides)
        shown.append(str(face))
        marks.append([why] if why else [])
        return face

    def chain(at: int) -> list[tuple[int, int]]:
        """One explosion's dice (face, shown index), set off by the die shown at ``at``,
        followed to the end of the chain or of the cap."""
        nonlocal extra
        added: list[tuple[int, int]] = []
        while extra < check.max_extra:
            if "exploded" not in marks[at]:
                marks[at].append("exploded")
            face = throw("added")
            at = len(shown) - 1
            extra += 1
            added.append((face, at))
            if not effect_of[face].explodes:
                break
        return added

    throw_one = dice.throw
    faces = [throw_one(sides) for _ in range(check.dice)]  # the pool: nothing marked yet
    shown.extend(map(str, faces))
    marks.extend([] for _ in faces)
    where = list(range(check.dice))  # each standing face's index in ``shown``
    for i in range(check.dice):
        if effect_of[faces[i]].explodes:
            for face, at in chain(where[i]):
                faces.append(face)
                where.append(at)
    rerolled = rethrows = 0
    i = 0
    while check.reroll is not None and i < len(faces) and rethrows < check.max_rethrows:
        if effect_of[faces[i]].rethrow:
            rerolled += 1
            while True:
                marks[where[i]].append("rethrown")
                faces[i] = throw("thrown-again")
                where[i] = len(shown) - 1
                rethrows += 1
                effect = effect_of[faces[i]]
                if effect.explodes:
                    for face, at in chain(where[i]):
                        faces.append(face)
                        where.append(at)
                if check.reroll.mode == "once" or not effect.rethrow:
                    break
                if rethrows >= check.max_rethrows:
                    break
        i += 1
    counted = low_first = exact = 0
    succeeded = low_seen = False
    for index, (face, at) in enumerate(zip(faces, where, strict=True)):
        effect = effect_of[face]
        if effect.successes:
            marks[at].append("doubled" if effect.successes == 2 else "hit")
            counted += effect.successes
            succeeded = True
        if effect.cancels:
            marks[at].append("cancels")
            counted -= effect.cancels
        if effect.exact:
            marks[at].append("exact")
            exact += 1
        if effect.low:
            low_seen = True
            if index < check.dice:  # one of the dice first thrown
                low_first += 1
    outcome = pool_outcome(check, counted, succeeded, low_seen, low_first, exact)
    return _rolled(check, tuple(shown), outcome, rerolled, tuple(map(tuple, marks)))


def _rolled(
    check: PoolCheck,
    shown: tuple[str, ...],
    outcome: PoolOutcome,
    rerolled: int,
    marks: tuple[tuple[str, ...], ...] = (),
) -> Rolled:
    extras: list[tuple[str, str]] = []
    if rerolled:
        extras.append(("rerolled", str(rerolled)))
        if check.reroll_id is not None:
            extras.append(("reroll", check.reroll_id))
    if outcome.complication:
        extras.append(("complication", "true"))
    if outcome.exact:
        extras.append(("exact", str(outcome.exact)))
    return Rolled(
        rolls=shown,
        used=outcome.total,
        modifier=0,
        total=outcome.total,
        success=outcome.success,
        critical_success=outcome.critical_success,
        critical_failure=outcome.critical_failure,
        dice=f"{len(shown)}d{check.sides}",
        mode="normal",
        resolution="successes",
        extras=tuple(extras),
        outcome=outcome,
        marks=marks,
    )


# -- the odds -------------------------------------------------------------------------

# Where the odds' machine stands, apart from the counts it carries: pool dice not thrown
# yet, a die waiting to be thrown again (0 none, 1 a pool die, 2 an added one), added dice
# owed, added dice the cap still allows, re-throws thrown, whether a die succeeded, whether
# a botch face stands, and botch faces among the dice first thrown.
_Control = tuple[int, int, int, int, int, bool, bool, int]


class _Step(NamedTuple):
    """A face class as the odds' machine reads it (see ``FaceEffect``): ``faces`` is how
    many faces of the die read this way, ``shift`` what one adds to the packed counts
    (successes minus cancels, and exact dice)."""

    shift: int
    succeeded: bool
    low: bool
    first_low: int
    explodes: int
    rethrow: bool
    faces: int


# where one die thrown in a state leads: states (with their ``_Machine.order``, in the same
# order) and ends, each with the shifts of the packed counts and how many faces give each
_Moves = tuple[
    dict[_Control, dict[int, int]], dict[tuple[bool, bool, int], dict[int, int]], tuple[int, ...]
]
_KNOWN_STATES = 300_000  # states whose moves are kept between the estimate and the odds


@frozen
class _Machine:
    """The odds' machine for one check: its face classes and what bounds its states."""

    steps: tuple[_Step, ...]
    track: bool
    until: bool
    cap_rethrows: int
    low_cap: int
    stride: int
    start: _Control
    # visited each state once (``_ordered_weights``): moves come with their orders, and
    # re-throws thrown are forgotten (-1) once the cap can no longer bind, so states that
    # differ only there merge (the rounds would mix their denominators)
    ordered: bool = False
    merge: bool = False
    # where each state leads, worked out once for the estimate and the odds together
    known: dict[_Control, _Moves] = field(default_factory=dict)

    @staticmethod
    def of(check: PoolCheck, *, ordered: bool = False) -> _Machine:
        classes: dict[FaceEffect, int] = {}
        for face in range(1, check.sides + 1):
            effect = face_effect(check, face)
            classes[effect] = classes.get(effect, 0) + 1
        rethrow = check.reroll
        until = rethrow is not None and rethrow.mode == "until"
        cap_extra = _cap_extra(check)
        # Without "until" each die is thrown again once at most, so the cap only binds
        # when there could be more dice than re-throws allowed.
        track = rethrow is not None and (until or check.dice + cap_extra > check.max_rethrows)
        half = check.botch_up_to is not None and check.botch_rule == "halfOrMore"
        noted = check.botch_up_to is not None
        stride = check.dice + cap_extra + 1  # more than the exact dice one throw can show
        steps = tuple(
            _Step(
                (e.successes - e.cancels) * stride + e.exact,
                noted and e.successes > 0,
                noted and not half and bool(e.low),
                e.low if half else 0,
                int(e.explodes),
                e.rethrow,
                count,
            )
            for e, count in classes.items()
        )
        return _Machine(
            steps=steps,
            track=track,
            until=until,
            cap_rethrows=check.max_rethrows if track else check.dice + cap_extra + 1,
            low_cap=(check.dice + 1) // 2 if half else 0,
            stride=stride,
            start=(check.dice, 0, 0, cap_extra, 0, False, False, 0),
            ordered=ordered,
            merge=ordered and track and not until,
        )

    def order(self, control: _Control) -> int:
        """Where a state comes when each is visited once: every state it leads to comes
        later. A die first thrown moves to the next level (dice first thrown so far); a
        die thrown again stays on its level, before the level's other states, and an
        "until" re-throw goes on to one more re-throw thrown."""
        m, waiting, _, room, thrown = control[:5]
        level = self.start[0] - m + self.start[3] - room
        return ((2 * level + (not waiting)) * (self.cap_rethrows + 2)) + thrown + 1

    def level(self, order: int) -> int:
        """The level of an ``order``: dice first thrown so far."""
        return order // (2 * (self.cap_rethrows + 2))

    def moves(self, control: _Control) -> _Moves:
        """Where one die thrown in ``control`` leads: the states it goes on to, and the
        ends (ok, low, botch faces first thrown) it finishes in, each with the shifts of
        the packed counts and how many faces give each."""
        known = self.known.get(control)
        if known is not None:
            return known
        found = self._moves(control)
        if len(self.known) < _KNOWN_STATES:
            self.known[control] = found
        return found

    def _moves(self, control: _Control) -> _Moves:
        moves: dict[_Control, dict[int, int]] = {}
        ends: dict[tuple[bool, bool, int], dict[int, int]] = {}
        m, waiting, owed, room, thrown, ok, low, low_first = control
        track, until, cap_rethrows = self.track, self.until, self.cap_rethrows
        free = thrown < 0  # forgotten: the cap can no longer bind
        for step in self.steps:
            if waiting:  # a die thrown again
                pending, pool_die = waiting, waiting == 1
                n_thrown = thrown + 1 if track and not free else thrown
                n_m, n_room = m, room
                n_owed = owed + step.explodes
                stays = until and step.rethrow and n_thrown < cap_rethrows
            elif m:  # a pool die, first thrown
                pending, pool_die = 1, True
                n_thrown, n_m, n_room = thrown, m - 1, room
                n_owed = owed + step.explodes
                stays = step.rethrow and thrown < cap_rethrows
            else:  # a die an explosion added
                pending, pool_die = 2, False
                n_thrown, n_m, n_room = thrown, 0, room - 1
                n_owed = owed - 1 + step.explodes
                stays = step.rethrow and thrown < cap_rethrows
            n_owed = n_owed if n_owed < n_room else n_room  # past the cap nothing is thrown
            # "once": each die left (the one waiting, the pool's, those the cap may still
            # add) is thrown again once at most, so past this the cap cannot bind
            if self.merge and not free and n_thrown + stays + n_m + n_room <= cap_rethrows:
                n_thrown = -1
            if stays:
                key: _Control = (n_m, pending, n_owed, n_room, n_thrown, ok, low, low_first)
                kernel = moves.setdefault(key, {})
                kernel[0] = kernel.get(0, 0) + step.faces
                continue
            n_ok, n_low, n_first = ok or step.succeeded, low or step.low, low_first
            if pool_die and step.first_low:
                n_first = min(low_first + step.first_low, self.low_cap)
            if n_m == 0 and n_owed == 0:
                kernel = ends.setdefault((n_ok, n_low, n_first), {})
            else:
                key = (n_m, 0, n_owed, n_room, n_thrown, n_ok, n_low, n_first)
                kernel = moves.setdefault(key, {})
            kernel[step.shift] = kernel.get(step.shift, 0) + step.faces
        return moves, ends, tuple(map(self.order, moves)) if self.ordered else ()


# A state's span: the lowest and highest net successes, and exact dice, it could hold.
_Span = tuple[int, int, int, int]

MAX_RETHROWN_EXPLODING = 1600
"""A re-throw beside explosions whose odds go round by round: the most dice times the
explosion cap whose odds are worked at all (their work grows as its square); past it
they are refused at once, before the estimate."""

MAX_ODDS_WORK = 2_500_000
"""The most (state, count) pairs the exact odds of one pool check may work through, all
rounds together: about 1-1.7 s here, estimate included (``bench/odds_bounds.py``, a
20-die pool with explosions and an "until" re-throw). Past it, refused before any is
done."""

MAX_ORDERED_WORK = 4_500_000
"""``MAX_ODDS_WORK`` where each state is visited once (``_visits_once``), counting
``_VISIT`` a state visited beside its counts: about 1 s here at the edge, estimate
included (1 M of it takes 0.2-0.3 s)."""

MAX_FIRST_BOTCHES_EXPLODING = 100_000
"""A ``halfOrMore`` botch beside explosions: the most dice × explosion cap × botch faces
counted (half the dice) whose odds are estimated at all (55d10 with 55 added is about
85,000 and answered in about 1 s); past it they are refused at once."""

MAX_RETHROWS_KEPT = 200_000
"""Where each state is visited once and the re-throws thrown must be kept (more dice and
added dice than re-throws): the most dice × explosion cap × that excess whose odds are
estimated at all. Its work grows faster (past this the estimate passes
``MAX_ORDERED_WORK`` by far), so past it they are refused at once."""

_VISIT = 50
"""What visiting one state costs beside its counts, in counts, where each state is
visited once: working out where it leads and one product and sum a kernel (about
12-25 µs a state, 0.15-0.3 µs a count)."""


def _may_be_heavy(check: PoolCheck) -> bool:
    """Whether the odds' work can outgrow the pool: a re-throw beside explosions, exact
    dice counted beside the successes, or a ``halfOrMore`` botch beside explosions (the
    botch faces among the dice first thrown are counted in every state the explosions
    reach: 100d10 took 7 s unasked). Any other pool of up to 100 dice takes under a
    second (``bench/odds_bounds.py`` sweeps them)."""
    return (
        (check.reroll is not None and check.explode_from is not None)
        or check.exact is not None
        or _counts_first_botches(check)
    )


def _counts_first_botches(check: PoolCheck) -> bool:
    """A ``halfOrMore`` botch beside explosions: its count rides through every state."""
    return (
        check.botch_up_to is not None
        and check.botch_rule == "halfOrMore"
        and check.explode_from is not None
    )


def _visits_once(check: PoolCheck) -> bool:
    """Whether the odds visit each state once (``_ordered_weights``) rather than round by
    round: a "once" re-throw, no exact dice, and a re-throw cap at least half the dice
    and added dice. There a state is reached in many rounds, or merges once the cap can
    no longer bind; with "until", or a cap the re-throws soon reach, each state is
    reached in about one round and the rounds' lighter visits are faster."""
    if check.exact is not None or check.reroll is None or check.reroll.mode != "once":
        return False
    return 2 * check.max_rethrows >= check.dice + _cap_extra(check)


def _cap_extra(check: PoolCheck) -> int:
    """The most dice explosions may add."""
    return check.max_extra if check.explode_from is not None else 0


def _bound(machine: _Machine) -> int:
    """The most work its path may take: ``MAX_ORDERED_WORK`` or ``MAX_ODDS_WORK``."""
    return MAX_ORDERED_WORK if machine.ordered else MAX_ODDS_WORK


def _refuse_at_once(check: PoolCheck, ordered: bool) -> None:
    """Refuse, before the estimate, a re-throw beside explosions whose odds are sure to
    be past the bound: ``MAX_RETHROWN_EXPLODING`` round by round, ``MAX_RETHROWS_KEPT``
    visiting each state once; and a ``halfOrMore`` botch beside explosions past
    ``MAX_FIRST_BOTCHES_EXPLODING``."""
    if _counts_first_botches(check):
        counted = (check.dice + 1) // 2
        if check.dice * check.max_extra * counted > MAX_FIRST_BOTCHES_EXPLODING:
            raise LimitExceeded(
                f"the exact odds of {check.dice_text} with a halfOrMore botch beside "
                f"explosions are refused past {MAX_FIRST_BOTCHES_EXPLODING:,} (dice times "
                f"the explosion cap times half the dice, here {check.dice} × "
                f"{check.max_extra} × {counted}): they would take too long. Ask for fewer "
                "dice, or without the explosions."
            )
    if check.reroll is None or check.explode_from is None:
        return
    if not ordered and check.dice * check.max_extra > MAX_RETHROWN_EXPLODING:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with a re-throw beside explosions are "
            f"refused past {MAX_RETHROWN_EXPLODING:,} (dice times the explosion cap, here "
            f"{check.dice} × {check.max_extra}): they would take too long. Ask for fewer "
            "dice, or without the re-throw."
        )
    excess = check.dice + check.max_extra - check.max_rethrows
    if ordered and excess > 0 and check.dice * check.max_extra * excess > MAX_RETHROWS_KEPT:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with a re-throw beside explosions are "
            f"refused past {MAX_RETHROWS_KEPT:,} (dice times the explosion cap times the "
            f"dice past the re-throw cap, here {check.dice} × {check.max_extra} × "
            f"{excess}): they would take too long. Ask for fewer dice, or without the "
            "re-throw."
        )


def odds_work(
    check: PoolCheck, limit: int | None = None, *, machine: _Machine | None = None
) -> int:
    """An upper bound on the work ``distribution`` would do (``MAX_ODDS_WORK``'s steps,
    or ``MAX_ORDERED_WORK``'s), found by running its machine over the states alone,
    each with the span of counts it could hold, in the order its odds take them; it
    stops as soon as the bound passes ``limit`` (by default, its path's bound). Cheap: a
    state holds many counts."""
    if check.dice == 0:
        return 0
    machine = machine or _Machine.of(check, ordered=_visits_once(check))
    if limit is None:
        limit = _bound(machine)
    reaches: dict[tuple[int, ...], _Span] = {}  # a kernel's shifts: how far they move a span
    work = 0
    start: dict[_Control, _Span] = {machine.start: (0, 0, 0, 0)}
    if not machine.ordered:  # round by round
        active = start
        while active:
            following: dict[_Control, _Span] = {}
            for control, span in active.items():
                work += (span[1] - span[0] + 1) * (span[3] - span[2] + 1)
                if work > limit:
                    return work
                for key, moved in _spread(machine, machine.moves(control)[0], span, reaches):
                    _widen(following, key, moved)
            active = following
        return work
    buckets = _Buckets(machine, start)
    for _, states in buckets:  # each state once
        for control, span in states.items():
            work += (span[1] - span[0] + 1) * (span[3] - span[2] + 1) + _VISIT
            if work > limit:
                return work
            moves, _, orders = machine.moves(control)
            spread = _spread(machine, moves, span, reaches)
            for (key, moved), order in zip(spread, orders, strict=True):
                _widen(buckets.at(order), key, moved)
    return work


def _spread(
    machine: _Machine,
    moves: Mapping[_Control, Mapping[int, int]],
    span: _Span,
    reaches: dict[tuple[int, ...], _Span],
) -> Iterator[tuple[_Control, _Span]]:
    """The states a state's ``moves`` lead to, each with ``span`` moved by its kernel's
    shifts."""
    stride = machine.stride
    net_lo, net_hi, ex_lo, ex_hi = span
    for key, kernel in moves.items():
        shifts = tuple(kernel)
        reach = reaches.get(shifts)
        if reach is None:
            nets = [shift // stride for shift in shifts]  # shifts: net*stride + exact
            exacts = [shift % stride for shift in shifts]
            reach = reaches[shifts] = (min(nets), max(nets), min(exacts), max(exacts))
        yield key, (net_lo + reach[0], net_hi + reach[1], ex_lo + reach[2], ex_hi + reach[3])


def _widen(spans: dict[_Control, _Span], key: _Control, span: _Span) -> None:
    """Widen the span kept for ``key`` to cover ``span`` too."""
    seen = spans.get(key)
    if seen is not None:
        span = (
            min(seen[0], span[0]),
            max(seen[1], span[1]),
            min(seen[2], span[2]),
            max(seen[3], span[3]),
        )
    spans[key] = span


def distribution(check: PoolCheck) -> Dist[PoolOutcome]:
    """The exact distribution of what ``roll`` gives for this check, computed.

    A state machine over what the throw has come to so far (counts, never faces): each
    move throws one die, so a weight is over ``sides ** (dice thrown)``. The dice the
    pool adds (explosions) are owed as a count: every added die is a fresh die, thrown,
    then visited by the re-throw, and owing one more when its first face explodes or
    when a face thrown again does. The throw order only matters through the caps, and
    the count keeps each cap's order: explosions spend the ``max_extra`` cap die by die,
    re-throws the ``max_rethrows`` cap in the order the pass visits the dice. ``roll``
    and this function share ``face_effect`` and ``pool_outcome``; the brute-force tests
    confirm the rest.

    The counts (net successes, exact dice) of the states that share the rest are kept
    together, packed one number each, so a face is applied to them all at once: round
    by round, a dict of them a state (``_counted_weights``) or, without exact dice, one
    big integer (``_packed_weights``); or, with a "once" re-throw, one big integer with
    each state visited once and the re-throws thrown forgotten once their cap cannot
    bind (``_ordered_weights``). Each takes the pools it is fastest on.

    An exploding pool is counted as sequences instead (``pool_sequences``: 100 dice with
    100 added and 100 re-throws in well under a second), unless a face both explodes and
    is thrown again, exact dice are counted, or a ``halfOrMore`` botch reads the pool's
    own dice; those come here.

    Raises:
        LimitExceeded: the work would pass its bound (said before any is done).
    """
    if check.dice == 0:
        return Dist.constant(_empty_outcome(check))
    from dicebound.kinds import pool_sequences  # it reads this module's checks and faces

    if pool_sequences.applies(check):
        return Dist.from_positive(pool_sequences.weights(check))
    ordered = _visits_once(check)
    _refuse_at_once(check, ordered)
    machine = _Machine.of(check, ordered=ordered)
    bound = _bound(machine)
    if _may_be_heavy(check) and odds_work(check, bound, machine=machine) > bound:
        without = "the re-throw" if check.reroll is not None else "the explosions"
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with these rules would take more than "
            f"{bound:,} steps to compute (more than about a second); ask for fewer dice, "
            f"a smaller explosion cap, or without {without}."
        )
    if ordered:
        return Dist.from_positive(_ordered_weights(check, machine))
    if all(step.shift % machine.stride == 0 for step in machine.steps):  # no exact dice
        return Dist.from_positive(_packed_weights(check, machine))
    return Dist.from_positive(_counted_weights(check, machine))


def _refuse_past_states(check: PoolCheck, size: int) -> None:
    """Refuse odds that hold more than ``MAX_ODDS_STATES`` states at once."""
    if size > MAX_ODDS_STATES:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with these rules need more than "
            f"{MAX_ODDS_STATES} states at once; ask for fewer dice."
        )


def _counted_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``distribution``'s rounds with a dict of packed counts (net successes and exact
    dice, one number) per state: each face applied to every count of a state. Each round
    throws one die in every state, so every weight of a round shares the denominator
    ``sides ** round``; its machine must not merge states (``_Machine.merge``), which
    would mix rounds."""
    stride = machine.stride
    outcomes: dict[tuple[bool, bool, int, int], PoolOutcome] = {}
    rounds: list[dict[PoolOutcome, int]] = []
    active: dict[_Control, dict[int, int]] = {machine.start: {0: 1}}
    while active:
        done: dict[PoolOutcome, int] = {}
        following: dict[_Control, dict[int, int]] = {}
        size = 0
        for control, counts in active.items():
            moves, ends, _ = machine.moves(control)
            for (n_ok, n_low, n_first), kernel in ends.items():
                for shift, count in kernel.items():
                    for packed, weight in counts.items():
                        memo = (n_ok, n_low, n_first, packed + shift)
                        outcome = outcomes.get(memo)
                        if outcome is None:
                            counted, exact = divmod(packed + shift, stride)
                            outcome = pool_outcome(check, counted, n_ok, n_low, n_first, exact)
                            outcomes[memo] = outcome
                        done[outcome] = done.get(outcome, 0) + weight * count
            for key, kernel in moves.items():
                into = following.setdefault(key, {})
                get = into.get
                for shift, count in kernel.items():
                    for packed, weight in counts.items():
                        moved = packed + shift
                        into[moved] = get(moved, 0) + weight * count
        for counts in following.values():
            size += len(counts)
        _refuse_past_states(check, size)
        rounds.append(done)
        active = following
    last = len(rounds)
    weights: dict[PoolOutcome, int] = {}
    for index, done in enumerate(rounds):
        scale = check.sides ** (last - index - 1)
        for outcome, w in done.items():
            weights[outcome] = weights.get(outcome, 0) + w * scale
    return weights


def _packed_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``distribution``'s rounds with each state's counts packed into one big integer.

    Where no exact dice are counted, a state's counts are net successes only: a state
    holds ``(low, poly)``, slot ``i`` of ``poly`` (``width`` bits) the weight of net
    ``low + i``, so a face applied to every count of a state moves ``low`` and takes one
    product and one sum of big integers (CPython's, in C) rather than a dict entry each.
    Every weight of round ``r`` is at most ``sides ** r`` and the rounds are bounded
    (each pool die is thrown first once, each added die once, and the re-throws are
    capped), so the slots never overflow; the ends are gathered by Horner's rule (times
    ``sides`` a round), which gives each the scale ``sides ** (rounds left)`` the plain
    loop gives it. Same weights, exactly.
    """
    stride, sides = machine.stride, check.sides
    most_rounds, width = _slots(check, machine)
    ends: dict[tuple[bool, bool, int], Packed] = {}
    active: dict[_Control, Packed] = {machine.start: (0, 1)}
    rounds = 0
    while active:
        rounds += 1
        if rounds > most_rounds:  # cannot happen: the slots would be too narrow
            raise AssertionError(f"{check.dice_text}: more rounds than {most_rounds}")
        following: dict[_Control, Packed] = {}
        done: dict[tuple[bool, bool, int], Packed] = {}
        for control, (low, poly) in active.items():
            moves, finished, _ = machine.moves(control)
            _apply(done, finished, low, poly, stride, width)
            _apply(following, moves, low, poly, stride, width)
        for end in ends.keys() | done.keys():  # Horner: earlier ends wait a round more
            before, now = ends.get(end), done.get(end)
            if before is not None:
                before = (before[0], before[1] * sides)
                now = before if now is None else packed_sum(before, now, width)
            assert now is not None
            ends[end] = now
        size = sum(poly.bit_length() // width + 1 for _, poly in following.values())
        _refuse_past_states(check, size)
        active = following
    return _unpacked(check, ends, width)


def _slots(check: PoolCheck, machine: _Machine) -> tuple[int, int]:
    """The most dice one throw may throw, plus one, and the bits of a slot wide enough
    for any weight over ``sides`` to that power: each pool die is thrown first once,
    each added die once, and the re-throws are capped."""
    room = machine.start[3]
    if check.reroll is None:
        rethrows = 0
    else:
        rethrows = machine.cap_rethrows if machine.track else check.dice + room
    most = check.dice + room + rethrows + 1
    return most, ((check.sides**most).bit_length() + 8) // 8 * 8  # whole bytes a slot


def _unpacked(
    check: PoolCheck, ends: Mapping[tuple[bool, bool, int], Packed], width: int
) -> dict[PoolOutcome, int]:
    """The weight of each outcome, read from the ends' packed slots."""
    weights: dict[PoolOutcome, int] = {}
    for (n_ok, n_low, n_first), packed in ends.items():
        for net, w in packed_slots(packed, width):
            outcome = pool_outcome(check, net, n_ok, n_low, n_first, 0)
            weights[outcome] = weights.get(outcome, 0) + w
    return weights


Packed = tuple[int, int]  # (the net of slot 0, the weights packed a slot each)


def packed_slots(packed: Packed, width: int) -> Iterator[tuple[int, int]]:
    """The (net, weight) of every slot of packed counts that holds a weight."""
    low, poly = packed
    nbytes = width // 8
    raw = poly.to_bytes((poly.bit_length() + width - 1) // width * nbytes, "little")
    for slot in range(len(raw) // nbytes):
        w = int.from_bytes(raw[slot * nbytes : (slot + 1) * nbytes], "little")
        if w:
            yield low + slot, w


K = TypeVar("K", bound=Hashable)


def _apply(
    into: dict[K, Packed],
    kernels: Mapping[K, Mapping[int, int]],
    low: int,
    poly: int,
    stride: int,
    width: int,
) -> None:
    """Add one state's packed counts, moved by each kernel's shifts, to where they lead."""
    for key, kernel in kernels.items():
        for shift, count in kernel.items():
            moved = (low + shift // stride, poly * count)
            seen = into.get(key)
            into[key] = moved if seen is None else packed_sum(seen, moved, width)


def packed_sum(a: Packed, b: Packed, width: int) -> Packed:
    """Two packed count sets added, slot by slot, on the lower one's slots."""
    if a[0] > b[0]:
        a, b = b, a
    return a[0], a[1] + (b[1] << ((b[0] - a[0]) * width))


def _ordered_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``_packed_weights`` with each state visited once, on a machine built for it
    (``_Machine.of(check, ordered=True)``, which may merge states).

    A state holds ``(thrown, low, poly)``: ``_packed_weights``'s slots, over
    ``sides ** thrown``. States are taken in ``_Machine.order``, so all that leads to one
    has come in before it is thrown: it is visited once however many dice were thrown on
    the ways to it (the rounds visit it once per round it can be reached in), the
    lighter of two weights brought to the other's denominator when they meet. The ends
    are brought to the denominator of the most dice any end threw, as the rounds bring
    them. Same weights, exactly.
    """
    stride, sides = machine.stride, check.sides
    most, width = _slots(check, machine)
    powers = [sides**k for k in range(most + 1)]
    ends: dict[tuple[bool, bool, int], _Mass] = {}
    buckets = _Buckets(machine, {machine.start: (0, 0, 1)})
    level = 0
    for at, states in buckets:
        if machine.level(at) > level:  # every state still held is on this level or the next
            level = machine.level(at)
            held = chain(states.values(), buckets.held())
            size = sum(poly.bit_length() // width + 1 for _, _, poly in held)
            _refuse_past_states(check, size)
        for control, (thrown, low, poly) in states.items():
            if thrown >= most:  # cannot happen: the slots would be too narrow
                raise AssertionError(f"{check.dice_text}: more dice thrown than {most}")
            moves, finished, orders = machine.moves(control)
            mass = (thrown + 1, low, poly)
            for end, kernel in finished.items():
                _gather(ends, end, kernel, mass, stride, width, powers)
            for (key, kernel), order in zip(moves.items(), orders, strict=True):
                _gather(buckets.at(order), key, kernel, mass, stride, width, powers)
    last = max(thrown for thrown, _, _ in ends.values())
    scaled = {end: (low, poly * powers[last - thrown]) for end, (thrown, low, poly) in ends.items()}
    return _unpacked(check, scaled, width)


_Mass = tuple[int, int, int]  # (dice thrown, the net of slot 0, the weights a slot each)
V = TypeVar("V")


class _Buckets(Generic[V]):
    """The states still to visit, one bucket per ``_Machine.order``, taken lowest first:
    every move goes to a later bucket, so a bucket is whole when it is taken."""

    def __init__(self, machine: _Machine, start: dict[_Control, V]) -> None:
        self.buckets = {machine.order(next(iter(start))): start}
        self.orders = list(self.buckets)

    def __iter__(self) -> Iterator[tuple[int, dict[_Control, V]]]:
        while self.orders:
            at = heappop(self.orders)
            yield at, self.buckets.pop(at)

    def at(self, order: int) -> dict[_Control, V]:
        """The bucket of states of that ``_Machine.order``, made when it is first asked."""
        bucket = self.buckets.get(order)
        if bucket is None:
            bucket = self.buckets[order] = {}
            heappush(self.orders, order)
        return bucket

    def held(self) -> Iterator[V]:
        """Everything in the buckets not yet taken."""
        for bucket in self.buckets.values():
            yield from bucket.values()


def _gather(
    into: dict[K, _Mass],
    key: K,
    kernel: Mapping[int, int],
    mass: _Mass,
    stride: int,
    width: int,
    powers: Sequence[int],
) -> None:
    """Add one state's packed counts, moved by each of a kernel's shifts, to ``key``: on
    the lower net's slots, over the larger denominator (the other weights scaled)."""
    thrown, low, poly = mass
    for shift, count in kernel.items():
        m_low, m_poly = low + shift // stride, poly * count
        seen = into.get(key)
        if seen is None:
            into[key] = (thrown, m_low, m_poly)
            continue
        s_thrown, s_low, s_poly = seen
        if s_thrown < thrown:
            s_poly *= powers[thrown - s_thrown]
            s_thrown = thrown
        elif s_thrown > thrown:
            m_poly *= powers[s_thrown - thrown]
        into[key] = (s_thrown, *packed_sum((s_low, s_poly), (m_low, m_poly), width))


# -- play: from a tag's ask to a prepared check ----------------------------------------


def _needed(config: PoolConfig, ask: CheckAsk) -> tuple[int, LadderStep | None]:
    """The successes the check needs and the ladder step whose target it counts with.

    ``dc=`` wins for the number, held to 1..the most one roll could count; else the
    ``difficulty=`` step's. The step is the one ``difficulty=`` names, else the one step
    needing exactly the ``dc=`` (none where several steps need it).
    """
    most = config.max_successes
    named = step_by_label(ask.ladder, ask.attrs.get("difficulty"))
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


def _stance(config: PoolConfig, ask: CheckAsk) -> Stance | None:
    if ask.group != "skill":
        return None
    return next((s for s in config.stances if ask.item_id in s.skills), None)


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

    def prepare(self, config: PoolConfig, ask: CheckAsk) -> Prepared:
        view, attrs = ask.view, ask.attrs
        second: str | None = None
        if ask.group == "ability":
            if config.ability_plus_ability and ask.with_ability not in (None, ask.item_id):
                second = ask.with_ability
            number = view.check_number("ability", ask.item_id, second)
        else:
            number = view.check_number(ask.group, ask.item_id, ask.with_ability)
        needed, step = _needed(config, ask)
        stance = _stance(config, ask)

        spend_ask = parse_spend(attrs.get("spend"))
        entry = use_entry(view, attrs.get("use"), spend_ask)
        owed: dict[str, int] = {}
        for key, amount in entry.payments if entry is not None else ():
            owed[key] = owed.get(key, 0) + amount
        purchase = buy(
            config.spend,
            None if spend_is_for_entry(view, attrs.get("use"), spend_ask) else spend_ask,
            view,
            sheet_number=number.number,
            committed=owed,
        )

        penalty = view.penalty()
        adjust = view.adjust_for(number.abilities)
        bonus = 0
        if config.situational is not None:
            bonus = clamp(written_int(attrs, "bonus") or 0, *config.situational)
        bought = (entry.effect.dice if entry else 0) + (purchase.dice if purchase else 0)
        size = clamp(
            number.number + penalty + adjust + bonus + bought, config.pool_min, config.pool_max
        )
        if size == 0:
            entry = purchase = None

        target = self._target(config, ask, step, entry)
        harder = number.untrained and number.untrained_rule == "harder"
        if harder:
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

        extras: list[tuple[str, str | int]] = [("threshold", target)]
        extras += sheet_extras(view, number, penalty, adjust)
        if second is not None:
            extras.append(("with", ability_label(view, second)))
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
        config: PoolConfig, ask: CheckAsk, step: LadderStep | None, entry: EntryUse | None
    ) -> int:
        low, high = config.target_min, config.target_max
        if config.target_from is not None:
            target = clamp(math.floor(ask.view.value(config.target_from)), low, high)
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
