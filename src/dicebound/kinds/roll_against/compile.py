"""roll-against's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.roll_against.model import BANDS, Against, AgainstConfig, CritRule
from dicebound.kinds.roll_against.schema import KEYS
from dicebound.problem_codes import (
    ALWAYS_FIRES,
    FACE_NOT_ON_DIE,
    FACES_AND_PAST_TARGET,
    FROM_ABOVE_TO,
    NEVER_FIRES,
    PAST_TARGET_SUCCESS,
    TENS_NEEDS_D100,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Node

Add = Callable[[Problem], None]
"""Where a step reports a problem (the problems' list's ``append``)."""


def _rule(
    raw: Mapping[str, Any],
    here: Path,
    success: bool,
    config: tuple[int, int, Against, str],
    problems: list[Problem],
) -> CritRule | None:
    """Cross-check one critical rule in named steps, in the order the problems are
    reported; the rule, or None when it is refused."""
    before = len(problems)
    rule = CritRule(raw.get("from"), raw.get("to"), raw.get("pastTarget"), *_when(raw))
    add = problems.append
    _what_it_names(rule, here, success, add)
    _faces(rule, here, config, add)
    _reach(rule, here, success, config, add)
    _everything(rule, raw, here, success, config, add)
    if len(problems) > before:
        return None
    return rule


def _when(raw: Mapping[str, Any]) -> tuple[Any, Any]:
    when = raw.get("whenTarget", {})
    return when.get("atLeast"), when.get("below")


def _what_it_names(rule: CritRule, here: Path, success: bool, add: Add) -> None:
    """``pastTarget`` only on a critical failure, and never beside faces."""
    past = rule.past_target
    if past is not None and success:
        add(
            Problem(
                (*here, "pastTarget"),
                PAST_TARGET_SUCCESS,
                f"{past} past the target measures a failure, so pastTarget belongs in "
                "criticalFailure; a critical success names faces.",
            )
        )
    elif past is not None and (rule.low is not None or rule.high is not None):
        add(
            Problem(
                (*here, "pastTarget"),
                FACES_AND_PAST_TARGET,
                "a rule names faces (from, to) or pastTarget, not both; write them as two rules.",
            )
        )


def _faces(rule: CritRule, here: Path, config: tuple[int, int, Against, str], add: Add) -> None:
    """``from`` and ``to``: rolls the dice can show, the lower end first."""
    lo, hi, _, dice_text = config
    low, high = rule.low, rule.high
    for key, face in (("from", low), ("to", high)):
        if face is not None and not lo <= face <= hi:
            add(
                Problem(
                    (*here, key),
                    FACE_NOT_ON_DIE,
                    f"{face} is not a roll {dice_text} can show: it shows {lo} to {hi}.",
                )
            )
    if low is not None and high is not None and low > high and lo <= low <= hi and lo <= high <= hi:
        add(
            Problem(
                (*here, "from"),
                FROM_ABOVE_TO,
                f"{low} is above to {high}, so no roll lies between them; from is the lower end.",
            )
        )


def _reach(
    rule: CritRule, here: Path, success: bool, config: tuple[int, int, Against, str], add: Add
) -> None:
    """``whenTarget`` and ``pastTarget``: a target the rule can meet, and a roll past it
    the dice can show."""
    lo, hi, against, dice_text = config
    past, at_least, below = rule.past_target, rule.target_at_least, rule.target_below
    if at_least is not None and below is not None and at_least >= below:
        add(
            Problem(
                (*here, "whenTarget"),
                NEVER_FIRES,
                f"no target is at least {at_least} and below {below}, so the rule could never "
                "fire; atLeast must be below below.",
            )
        )
    elif past is not None and not success:
        if against == "at-most" and at_least is not None and at_least > hi - past:
            add(
                Problem(
                    (*here, "pastTarget"),
                    NEVER_FIRES,
                    f"a roll {past} past a target of {at_least} or more would be above {hi}, the "
                    f"highest {dice_text} shows, so the rule could never fire.",
                )
            )
        if against == "at-least" and below is not None and below - 1 < lo + past:
            add(
                Problem(
                    (*here, "pastTarget"),
                    NEVER_FIRES,
                    f"a roll {past} under a target below {below} would be under {lo}, the "
                    f"lowest {dice_text} shows, so the rule could never fire.",
                )
            )


def _everything(
    rule: CritRule,
    raw: Mapping[str, Any],
    here: Path,
    success: bool,
    config: tuple[int, int, Against, str],
    add: Add,
) -> None:
    """A rule that takes in every roll, with no target to limit it."""
    lo, hi, _, dice_text = config
    every = (rule.low is None or rule.low == lo) and (rule.high is None or rule.high == hi)
    if rule.past_target is None and every and not raw.get("whenTarget", {}):
        what = "critical success" if success else "critical failure"
        add(
            Problem(
                here,
                ALWAYS_FIRES,
                f"takes in every roll {dice_text} can show ({lo} to {hi}), so every check "
                f"would be a {what}; narrow from and to, or limit it with whenTarget.",
            )
        )


class RollAgainstKind(KindCompiler):
    """The compile half of roll-against (the play half is ``PLAYER``)."""

    name = "roll-against"
    keys: Mapping[str, Node] = KEYS
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
                        TENS_NEEDS_D100,
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
