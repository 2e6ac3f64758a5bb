"""dice-pool's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.dice_pool.model import Exact, FaceRule, PoolConfig, Stance, max_successes
from dicebound.kinds.dice_pool.schema import KEYS
from dicebound.problem_codes import (
    BELOW_MIN,
    FACE_NOT_ON_DIE,
    MIN_ABOVE_MAX,
    NEVER_FIRES,
    NOT_BELOW_TARGET,
    OUT_OF_RANGE,
    PAST_MAX_SUCCESSES,
    REROLLS_EVERY_FACE,
    SKILL_IN_TWO_STANCES,
    TARGET_FIXED,
)
from dicebound.problems import Path, Problem, unknown_id
from dicebound.ruleset.model import LadderStep, ValueRef
from dicebound.ruleset.refs import sheet_ref
from dicebound.ruleset.spec import Node, is_int
from dicebound.spend import Reroll, Spend, compile_spends


class DicePoolKind(KindCompiler):
    """The compile half of dice-pool."""

    name = "dice-pool"
    pool_fights = True
    keys: Mapping[str, Node] = KEYS
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
        """Cross-check a structurally valid block and build its config, in named steps
        whose order is the order the problems are reported in."""
        read = _Reading(block, ctx)
        pool_min, pool_max = read.pool()
        target = read.target()
        rules = read.face_rules()
        read.below_target(target.min)
        most = max_successes(pool_max, "explode" in rules, "double" in rules)
        why = _most_text(pool_max, "explode" in rules, "double" in rules)
        exceptional = read.exceptional(most, why)
        rerolls = read.rerolls()
        stances = read.stances()
        exact = read.exact()
        spends = read.spends()
        read.ladder(target, most, why)
        if read.problems:
            return None, read.problems
        situational = block.get("situationalDice")
        return (
            PoolConfig(
                sides=read.sides,
                pool_min=pool_min,
                pool_max=pool_max,
                target_default=target.default,
                target_min=target.min,
                target_max=target.max,
                ability_plus_ability=bool(block.get("pool", {}).get("abilityPlusAbility", False)),
                target_from=target.source,
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
                rerolls=rerolls,
                stances=stances,
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


class _Target(NamedTuple):
    """The block's per-die target: its default and range, and where the sheet gives it."""

    default: int
    min: int
    max: int
    source: ValueRef | None


class _Reading:
    """One dice-pool block being compiled: where it sits, its die, and the problems found
    so far. Each method is one step of ``DicePoolKind.compile``."""

    def __init__(self, block: Mapping[str, Any], ctx: CompileContext) -> None:
        self.block = block
        self.at = ctx.path
        self.sheet = ctx.sheet
        self.problems: list[Problem] = []
        self.add = self.problems.append
        self.sides = int(block.get("die", {}).get("sides", 10))

    def face_on_die(self, path: Path, face: int) -> bool:
        if face <= self.sides:
            return True
        sides = self.sides
        self.add(
            Problem(
                path,
                FACE_NOT_ON_DIE,
                f"{face} is not a face of a d{sides}, whose faces run from 1 to {sides}.",
            )
        )
        return False

    def pool(self) -> tuple[int, int]:
        """``pool.min`` and ``pool.max``, the first no higher than the second."""
        pool = self.block.get("pool", {"min": 1, "max": 40})
        pool_min, pool_max = int(pool["min"]), int(pool["max"])
        if pool_min > pool_max:
            self.add(
                Problem(
                    (*self.at, "pool", "min"),
                    MIN_ABOVE_MAX,
                    f"{pool_min} is above pool.max {pool_max}; the pool is held to min..max.",
                )
            )
        return pool_min, pool_max

    def target(self) -> _Target:
        """The target's faces on the die and in order, and ``from`` where it can move."""
        at, add = self.at, self.add
        target = self.block["target"]
        t_default, t_min, t_max = int(target["default"]), int(target["min"]), int(target["max"])
        checked = [
            self.face_on_die((*at, "target", k), int(target[k])) for k in ("default", "min", "max")
        ]
        faces_ok = all(checked)
        if t_min > t_max:
            add(
                Problem(
                    (*at, "target", "min"),
                    MIN_ABOVE_MAX,
                    f"{t_min} is above target.max {t_max}; the target runs from min to max.",
                )
            )
        elif not t_min <= t_default <= t_max and faces_ok:
            add(
                Problem(
                    (*at, "target", "default"),
                    OUT_OF_RANGE,
                    f"{t_default} is not within target.min..target.max ({t_min} to {t_max}).",
                )
            )
        target_from: ValueRef | None = None
        if "from" in target:
            if t_min >= t_max:
                add(
                    Problem(
                        (*at, "target", "from"),
                        TARGET_FIXED,
                        f"the target is fixed at {t_min}, so a target read off the sheet "
                        "could never change it; set target.min below target.max.",
                    )
                )
            else:
                target_from, found = sheet_ref(target["from"], (*at, "target", "from"), self.sheet)
                self.problems.extend(found)
        return _Target(t_default, t_min, t_max, target_from)

    def face_rules(self) -> dict[str, FaceRule]:
        """``explode`` and ``double``: faces on the die, ``from`` not below ``min``."""
        at, block = self.at, self.block
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
                    ok = self.face_on_die((*at, key, part), face) and ok
            if (
                ok
                and rule.from_face is not None
                and rule.min is not None
                and rule.from_face < rule.min
            ):
                self.add(
                    Problem(
                        (*at, key, "from"),
                        BELOW_MIN,
                        f"{rule.from_face} is below {key}.min {rule.min}; from may not be below min.",
                    )
                )
            rules[key] = rule
        return rules

    def below_target(self, t_min: int) -> None:
        """``cancel`` and ``botch`` reach only faces below the lowest target."""
        for key in ("cancel", "botch"):
            if key in self.block:
                up_to = int(self.block[key]["upTo"])
                if up_to >= t_min:
                    self.add(
                        Problem(
                            (*self.at, key, "upTo"),
                            NOT_BELOW_TARGET,
                            f"{up_to} is not below the lowest target {t_min}; a face that "
                            f"counts as a success cannot also {key}.",
                        )
                    )

    def exceptional(self, most: int, why: str) -> int | None:
        """``exceptional``: reachable, and not beside outcome bands."""
        if "exceptional" not in self.block:
            return None
        at = self.at
        exceptional = int(self.block["exceptional"]["successes"])
        if exceptional > most:
            self.add(
                Problem(
                    (*at, "exceptional", "successes"),
                    PAST_MAX_SUCCESSES,
                    f"{exceptional} is more than one roll can count ({most}: {why}).",
                )
            )
        if "outcomes" in self.block:
            self.add(
                Problem(
                    (*at, "exceptional"),
                    NEVER_FIRES,
                    "a pool with outcome bands leaves exceptional out, because the bands "
                    "already say what a critical success is; remove one of them.",
                )
            )
        return exceptional

    def rerolls(self) -> tuple[Reroll, ...]:
        """The standing re-throws, each below the die's top face."""
        rerolls: list[Reroll] = []
        for i, raw in enumerate(self.block.get("reroll", ())):
            rr = Reroll(int(raw["upTo"]), raw["mode"], str(raw["id"]))
            if _reroll_too_high(rr.up_to, self.sides, (*self.at, "reroll", i, "upTo"), self.add):
                continue
            rerolls.append(rr)
        return tuple(rerolls)

    def stances(self) -> tuple[Stance, ...]:
        """The stances, each skill on the sheet and in one stance only."""
        stances: list[Stance] = []
        known_skills = [s.id for s in self.sheet.skills]
        stance_of: dict[str, str] = {}
        for i, raw in enumerate(self.block.get("stances", ())):
            skills = tuple(str(s) for s in raw["skills"])
            for j, skill in enumerate(skills):
                path = (*self.at, "stances", i, "skills", j)
                if skill not in known_skills:
                    self.add(unknown_id(path, skill, "a skill", known_skills, of="this sheet"))
                elif skill in stance_of:
                    self.add(
                        Problem(
                            path,
                            SKILL_IN_TWO_STANCES,
                            f'"{skill}" is already in stance "{stance_of[skill]}"; a skill may '
                            "be in one stance only.",
                        )
                    )
                else:
                    stance_of[skill] = str(raw["id"])
            stances.append(Stance(str(raw["id"]), str(raw["label"]), raw["count"], skills))
        return tuple(stances)

    def exact(self) -> Exact | None:
        """``exact``: a die showing exactly the target."""
        if "exact" not in self.block:
            return None
        raw = self.block["exact"]
        return Exact(str(raw["label"]), raw.get("text"), bool(raw.get("counts", True)))

    def spends(self) -> tuple[Spend, ...]:
        """The standing purchases, a re-throw among them below the die's top face."""
        sides = self.sides
        return compile_spends(
            self.block.get("spend", ()),
            self.at,
            self.sheet,
            self.problems,
            lambda up_to, path: _reroll_too_high(up_to, sides, path, self.add),
        )

    def ladder(self, target: _Target, most: int, why: str) -> None:
        """Each ladder step reachable, and its target on the die and in range."""
        t_default, t_min, t_max = target.default, target.min, target.max
        for i, raw in enumerate(self.block["difficultyLadder"]):
            need = int(raw["successes"])
            if need > most:
                self.add(
                    Problem(
                        (*self.at, "difficultyLadder", i, "successes"),
                        PAST_MAX_SUCCESSES,
                        f"{need} is more than one roll can count ({most}: {why}).",
                    )
                )
            if "target" in raw:
                step_target = int(raw["target"])
                path = (*self.at, "difficultyLadder", i, "target")
                if t_min >= t_max:
                    self.add(
                        Problem(
                            path,
                            TARGET_FIXED,
                            f"the target is fixed at {t_default}, so a step may not name one; "
                            "a step names a target only when target.min is below target.max.",
                        )
                    )
                elif self.face_on_die(path, step_target) and not t_min <= step_target <= t_max:
                    self.add(
                        Problem(
                            path,
                            OUT_OF_RANGE,
                            f"{step_target} is not within target.min..target.max "
                            f"({t_min} to {t_max}).",
                        )
                    )


def _reroll_too_high(up_to: int, sides: int, path: Path, add: Callable[[Problem], None]) -> bool:
    if up_to < sides:
        return False
    add(
        Problem(
            path,
            REROLLS_EVERY_FACE,
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
