"""dice-sum's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.dice_sum.model import BANDS, NaturalRule, OpenEnded, SumConfig
from dicebound.kinds.dice_sum.schema import KEYS
from dicebound.problem_codes import (
    ALWAYS_FIRES,
    FACE_NOT_ON_DIE,
    FACES_COUNT,
    LOW_NOT_BELOW_HIGH,
    SINGLE_DIE_ONLY,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Node, describe


def _faces_text(config_values: tuple[int, ...], sides: int, has_faces: bool) -> str:
    if not has_faces:
        return f"a d{sides} has faces 1 to {sides}"
    shown = ", ".join(str(v) for v in config_values[:12])
    more = ", ..." if len(config_values) > 12 else ""
    return f"its faces are worth {shown}{more}"


class DiceSumKind(KindCompiler):
    """The compile half of dice-sum (the play half is ``roll`` and ``distribution``)."""

    name = "dice-sum"
    keys: Mapping[str, Node] = KEYS
    required: tuple[str, ...] = ("difficultyLadder",)
    bands = BANDS

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[SumConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config, in named steps
        whose order is the order the problems are reported in."""
        read = _Reading(block, ctx)
        open_ended = read.open_ended()
        unmodified = read.unmodified()
        rules = read.naturals()
        if read.problems:
            return None, read.problems
        config = SumConfig(
            count=read.count,
            sides=read.sides,
            faces=read.faces,
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


class _Reading:
    """One dice-sum block being compiled: where it sits, its dice and their faces, and
    the problems found so far. Reading the dice (``dice.faces``, one value per face) is
    the first step; each method is one more step of ``DiceSumKind.compile``."""

    def __init__(self, block: Mapping[str, Any], ctx: CompileContext) -> None:
        self.block = block
        self.at = at = ctx.path
        self.problems: list[Problem] = []
        self.add = self.problems.append
        dice = block.get("dice", {})
        self.count = int(dice.get("count", 1))
        self.sides = sides = int(dice.get("sides", 20))
        raw_faces = dice.get("faces")
        self.faces = faces = tuple(int(v) for v in raw_faces) if raw_faces is not None else None
        if faces is not None and len(faces) != sides:
            self.add(
                Problem(
                    (*at, "dice", "faces"),
                    FACES_COUNT,
                    f"gives {len(faces)} face values for a die of {sides} sides; "
                    "give one value per face, lowest face first.",
                )
            )
        self.values = values = faces if faces is not None else tuple(range(1, sides + 1))
        self.on_die = set(values)
        self.faces_text = _faces_text(values, sides, faces is not None)

    def single_die_only(self, key: str, what: str) -> None:
        self.add(
            Problem(
                (*self.at, key),
                SINGLE_DIE_ONLY,
                f"{what} needs a single die, and this ruleset throws {self.count}d{self.sides}.",
            )
        )

    def open_ended(self) -> OpenEnded | None:
        """``openEnded``: one die, its bounds faces of it, low below high, neither
        firing on every face."""
        if "openEnded" not in self.block:
            return None
        at, add, values = self.at, self.add, self.values
        raw = self.block["openEnded"]
        high, low = raw.get("high"), raw.get("low")
        high = None if high is None else int(high)
        low = None if low is None else int(low)
        bad = False
        if self.count != 1:
            self.single_die_only("openEnded", "openEnded")
            bad = True
        for key, bound in (("high", high), ("low", low)):
            if bound is not None and bound not in self.on_die:
                add(
                    Problem(
                        (*at, "openEnded", key),
                        FACE_NOT_ON_DIE,
                        f"{bound} is not a face of the die: {self.faces_text}.",
                    )
                )
                bad = True
        if bad:
            return None
        if high is not None and low is not None and low >= high:
            add(
                Problem(
                    (*at, "openEnded", "low"),
                    LOW_NOT_BELOW_HIGH,
                    f"{low} is not below high {high}; a face at or below low rolls "
                    "down and one at or above high rolls up, so low must be the lower.",
                )
            )
        elif high is not None and high <= min(values):
            add(
                Problem(
                    (*at, "openEnded", "high"),
                    ALWAYS_FIRES,
                    f"{high} is the die's lowest face, so every face would roll on; "
                    "high must be above the lowest face.",
                )
            )
        elif low is not None and low >= max(values):
            add(
                Problem(
                    (*at, "openEnded", "low"),
                    ALWAYS_FIRES,
                    f"{low} is the die's highest face, so every face would roll down; "
                    "low must be below the highest face.",
                )
            )
        else:
            return OpenEnded(high=high, low=low)
        return None

    def unmodified(self) -> frozenset[int]:
        """``unmodified``: one die, and faces of it."""
        if "unmodified" not in self.block:
            return frozenset()
        marked = [int(v) for v in self.block["unmodified"]]
        if self.count != 1:
            self.single_die_only("unmodified", "unmodified")
        for i, v in enumerate(marked):
            if v not in self.on_die:
                self.add(
                    Problem(
                        (*self.at, "unmodified", i),
                        FACE_NOT_ON_DIE,
                        f"{v} is not a face of the die: {self.faces_text}.",
                    )
                )
        return frozenset(marked)

    def naturals(self) -> dict[str, NaturalRule]:
        """``naturals.check`` and ``naturals.save``: a rule other than "none" needs one die."""
        naturals = self.block.get("naturals", {})
        rules: dict[str, NaturalRule] = {}
        for group in ("check", "save"):
            rule = naturals.get(group, "none")
            if rule != "none" and self.count != 1:
                self.add(
                    Problem(
                        (*self.at, "naturals", group),
                        SINGLE_DIE_ONLY,
                        f"{describe(rule)} needs a single die, and this ruleset throws "
                        f'{self.count}d{self.sides}; a ruleset with more dice uses "none".',
                    )
                )
            rules[group] = rule
        return rules
