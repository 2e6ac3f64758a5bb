"""dice-pool: throw the dice and count them (the compile half).

The sheet's number is the size of the pool. This module reads every key the page and
FORMAT.md §4.3 give the kind (``die``, ``pool``, ``target`` with ``from``, ``double``,
``explode``, ``cancel``, ``botch``, ``exceptional``, ``situationalDice``, ``reroll``,
``stances``, ``exact``, ``spend`` and the ``difficultyLadder``), refuses every rule that
could never fire, and builds the frozen ``PoolConfig``. Throwing a pool is not built
yet: the engine refuses a pool check with "dice-pool checks are not built yet".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from dicebound.kinds.base import CompileContext
from dicebound.problems import Path, Problem, did_you_mean
from dicebound.ruleset.model import LadderStep, Sheet, ValueRef
from dicebound.ruleset.refs import VALUE_REF, RefScope, compile_ref
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Const,
    Enum,
    Id,
    Int,
    Node,
    Obj,
    OneOf,
    Str,
    is_int,
)

__all__ = [
    "KIND",
    "Exact",
    "FaceRule",
    "PoolConfig",
    "Reroll",
    "Spend",
    "Stance",
]

RerollMode = Literal["once", "until"]
BotchRule = Literal["noSuccesses", "halfOrMore"]


# -- compiled config -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FaceRule:
    """``explode`` or ``double``: faces at or above ``from_face`` fire (None: only when a
    check asks); ``min`` is the lowest face a tag or an entry may move it to."""

    from_face: int | None = None
    min: int | None = None


@dataclass(frozen=True, slots=True)
class Reroll:
    """A re-throw: faces at or below ``up_to`` are thrown again, once or until they show
    more. ``id`` names a standing re-throw (None for one a spend buys)."""

    up_to: int
    mode: RerollMode
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Stance:
    """Skills whose dice count under (``below``) or over (``above``) the target."""

    id: str
    label: str
    count: Literal["below", "above"]
    skills: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Exact:
    """A die showing exactly the target: named, explained, counted unless ``counts`` is
    false."""

    label: str
    text: str | None = None
    counts: bool = True


@dataclass(frozen=True, slots=True)
class Spend:
    """A standing purchase: every ``amount`` points of live pool ``pool`` buys the listed
    effect, at most ``per_check`` times per check (a number, a sheet value, or ``"pool"``:
    as many as the check has dice)."""

    pool: str
    amount: int
    per_check: int | ValueRef | Literal["pool"]
    successes: int = 0
    dice: int = 0
    reroll: Reroll | None = None


@dataclass(frozen=True, slots=True)
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

_NAMESPACES = ("fields", "derived", "abilities", "skills", "saves", "tracks", "pools", "lists")


def _read_ref(
    raw: Mapping[str, Any], path: Path, sheet: Sheet
) -> tuple[ValueRef | None, list[Problem]]:
    """Compile a value reference against the sheet, as the ruleset compiler does."""
    names = {ns: [item.id for item in getattr(sheet, ns)] for ns in _NAMESPACES}
    return compile_ref(raw, path, RefScope(sheet, names, reader="this reference"))


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


def _pick_per_check(value: object) -> str | None:
    if is_int(value):
        return "number"
    if isinstance(value, dict):
        return "ref"
    if isinstance(value, str):
        return "pool"
    return None


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
        "spend": Arr(
            Obj(
                {
                    "pool": Id(),
                    "amount": Int(1, 100),
                    "perCheck": OneOf(
                        {"number": Int(1, 10), "ref": VALUE_REF, "pool": Const("pool")},
                        _pick_per_check,
                        wanted='a whole number from 1 to 10, a value reference or "pool"',
                    ),
                    "successes": Int(1, 10),
                    "dice": Int(1, 10),
                    "reroll": Obj(
                        {"upTo": Int(1, 999), "mode": _REROLL_MODE}, required=("upTo", "mode")
                    ),
                },
                required=("pool", "amount", "perCheck"),
                at_least_one=("successes", "dice", "reroll"),
            ),
            hi=4,
            noun="spend entry",
        ),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)


# -- cross-checks --------------------------------------------------------------------


class DicePoolKind:
    """The compile half of dice-pool."""

    name = "dice-pool"
    keys: Mapping[str, Node] = _KEYS
    required: tuple[str, ...] = ("target", "difficultyLadder")

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
                target_from, found = _read_ref(target["from"], (*at, "target", "from"), ctx.sheet)
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

        spends = self._spends(block.get("spend", ()), at, sides, ctx.sheet, problems)

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

    def _spends(
        self,
        entries: Sequence[Mapping[str, Any]],
        at: Path,
        sides: int,
        sheet: Sheet,
        problems: list[Problem],
    ) -> tuple[Spend, ...]:
        """Read the ``spend`` entries: live pools that start full, one entry per pool."""
        out: list[Spend] = []
        pools = {p.id: p for p in sheet.pools}
        first_entry: dict[str, int] = {}
        for i, raw in enumerate(entries):
            here = (*at, "spend", i)
            name = str(raw["pool"])
            pool = pools.get(name)
            if pool is None:
                problems.append(_unknown((*here, "pool"), "a live pool", name, list(pools)))
            elif pool.start == "empty":
                problems.append(
                    Problem(
                        (*here, "pool"),
                        "pool-starts-empty",
                        f'"{name}" starts empty, so there would be nothing in it to spend when '
                        "play begins; name a pool that starts full.",
                    )
                )
            if name in first_entry:
                problems.append(
                    Problem(
                        (*here, "pool"),
                        "duplicate-pool",
                        f'"{name}" is already spent by entry {first_entry[name]}; two entries '
                        "may not name the same pool, or a check could not say which it meant.",
                    )
                )
            else:
                first_entry[name] = i
            per_raw = raw["perCheck"]
            per_check: int | ValueRef | Literal["pool"] | None
            if isinstance(per_raw, dict):
                per_check, found = _read_ref(per_raw, (*here, "perCheck"), sheet)
                problems.extend(found)
            elif per_raw == "pool":
                per_check = "pool"
            else:
                per_check = int(per_raw)
            reroll: Reroll | None = None
            if "reroll" in raw:
                rr = raw["reroll"]
                reroll = Reroll(int(rr["upTo"]), rr["mode"])
                _reroll_too_high(reroll.up_to, sides, (*here, "reroll", "upTo"), problems.append)
            if per_check is not None:
                out.append(
                    Spend(
                        pool=name,
                        amount=int(raw["amount"]),
                        per_check=per_check,
                        successes=int(raw.get("successes", 0)),
                        dice=int(raw.get("dice", 0)),
                        reroll=reroll,
                    )
                )
        return tuple(out)

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
