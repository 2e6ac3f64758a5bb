"""symbol-pool's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.problem_codes import (
    AMBIGUOUS_DIE_NAME,
    CANCELS_ITSELF,
    COMBAT_NOT_ALLOWED,
    COUNTS_CHAIN,
    COUNTS_ITSELF,
    DC_OUT_OF_RANGE,
    NEEDS_UPGRADE,
    NEVER_FIRES,
    NEVER_SUCCEEDS,
    TWO_PARTNERS,
    UPGRADE_SAME_DIE,
)
from dicebound.problems import Path, Problem, unknown_id
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Node, describe
from dicebound.spend import compile_spends
from dicebound.tags.names import normalize

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.model import (
    BANDS,
    DieSlot,
    ExtraDice,
    SymbolConfig,
    SymbolDie,
    SymbolRule,
)
from dicebound.kinds.symbol_pool.schema import KEYS


class _Checker:
    """The cross-checks of one structurally valid block, collecting problems."""

    def __init__(self, block: Mapping[str, Any], at: Path) -> None:
        self.block = block
        self.at = at
        self.problems: list[Problem] = []
        self.symbol_ids = [str(s["id"]) for s in block["symbols"]]
        self.die_ids = [str(d["id"]) for d in block["dice"]]

    def add(self, path: Path, code: str, message: str) -> None:
        self.problems.append(Problem((*self.at, *path), code, message))

    def symbol_ref(self, path: Path, name: str, what: str) -> bool:
        if name in self.symbol_ids:
            return True
        self.problems.append(
            unknown_id(
                (*self.at, *path),
                name,
                "a symbol",
                self.symbol_ids,
                of=f"this pool; {what} names one of its symbols",
            )
        )
        return False

    def die_ref(self, path: Path, name: str) -> bool:
        if name in self.die_ids:
            return True
        self.problems.append(
            unknown_id((*self.at, *path), name, "a die", self.die_ids, of="this pool")
        )
        return False

    def symbols(self) -> tuple[SymbolRule, ...] | None:
        raw = self.block["symbols"]
        counts = {str(s["id"]): s.get("counts") for s in raw}
        partners: dict[str, tuple[str, int]] = {}  # symbol -> (partner, where declared)
        ok = True
        for i, s in enumerate(raw):
            sid = str(s["id"])
            target = s.get("counts")
            if target is not None:
                if target == sid:
                    ok = False
                    self.add(
                        ("symbols", i, "counts"),
                        COUNTS_ITSELF,
                        f'"{sid}" counts as itself; counts names another symbol that one '
                        f'"{sid}" also adds.',
                    )
                elif not self.symbol_ref(("symbols", i, "counts"), target, "counts"):
                    ok = False
                elif counts.get(target) is not None:
                    ok = False
                    self.add(
                        ("symbols", i, "counts"),
                        COUNTS_CHAIN,
                        f'"{target}" counts as "{counts[target]}" itself, so counting "{sid}" '
                        "as it would chain; counts names a symbol without its own counts.",
                    )
            other = s.get("cancels")
            if other is None:
                continue
            if other == sid:
                ok = False
                self.add(
                    ("symbols", i, "cancels"),
                    CANCELS_ITSELF,
                    f'"{sid}" cannot cancel itself; cancels pairs two different symbols.',
                )
                continue
            if not self.symbol_ref(("symbols", i, "cancels"), other, "cancels"):
                ok = False
                continue
            for one, two in ((sid, other), (other, sid)):
                held = partners.get(one)
                if held is None:
                    partners[one] = (two, i)
                elif held[0] != two:
                    ok = False
                    self.add(
                        ("symbols", i, "cancels"),
                        TWO_PARTNERS,
                        f'"{one}" already cancels against "{held[0]}" (symbol {held[1]}); each '
                        "symbol has at most one partner.",
                    )
        if not ok:
            return None
        return tuple(
            SymbolRule(
                id=str(s["id"]),
                label=str(s["label"]),
                counts=s.get("counts"),
                partner=partners.get(str(s["id"]), (None, 0))[0],
                text=s.get("text"),
            )
            for s in raw
        )

    def dice(self) -> tuple[SymbolDie, ...] | None:
        ok = True
        names: dict[str, tuple[int, str]] = {}
        for i, d in enumerate(self.block["dice"]):
            for j, face in enumerate(d["faces"]):
                for k, sid in enumerate(face):
                    if not self.symbol_ref(("dice", i, "faces", j, k), str(sid), "a face"):
                        ok = False
            for key in ("id", "label"):
                name = normalize(str(d[key]))
                held = names.get(name)
                if held is not None and held[0] != i:
                    ok = False
                    self.add(
                        ("dice", i, key),
                        AMBIGUOUS_DIE_NAME,
                        f"{describe(d[key])} is also the {held[1]} of die {held[0]}; dice are "
                        "thrown by name, so every die needs its own id and label.",
                    )
                else:
                    names.setdefault(name, (i, key))
        if not ok:
            return None
        return tuple(
            SymbolDie(
                str(d["id"]),
                str(d["label"]),
                tuple(tuple(str(s) for s in face) for face in d["faces"]),
            )
            for d in self.block["dice"]
        )

    def slot(self, key: str, default_max: int) -> DieSlot | None:
        raw = self.block[key]
        ok = self.die_ref((key, "die"), str(raw["die"]))
        upgrade = raw.get("upgrade")
        if upgrade is not None:
            if not self.die_ref((key, "upgrade"), str(upgrade)):
                ok = False
            elif upgrade == raw["die"]:
                ok = False
                self.add(
                    (key, "upgrade"),
                    UPGRADE_SAME_DIE,
                    f'"{upgrade}" is the die it would upgrade, so an upgrade could never change '
                    "a roll; name another die or leave upgrade out.",
                )
        if not ok:
            return None
        return DieSlot(str(raw["die"]), upgrade, int(raw.get("max", default_max)))

    def extra(self, key: str) -> ExtraDice | None:
        raw = self.block.get(key)
        if raw is None or not self.die_ref((key, "die"), str(raw["die"])):
            return None
        return ExtraDice(str(raw["die"]), int(raw.get("max", 3)))


def _most_lead(config: SymbolConfig) -> int:
    """The most net successes one check can count: every die a check may throw at its
    best face, as many as each slot allows."""

    def best(*die_ids: str | None) -> int:
        leads = [e.lead for d in die_ids if d is not None for e in config.effects[d]]
        return max([0, *leads])

    most = config.pool.max * best(config.pool.die, config.pool.upgrade)
    most += config.difficulty.max * best(config.difficulty.die, config.difficulty.upgrade)
    for extra in (config.boost, config.setback):
        if extra is not None:
            most += extra.max * best(extra.die)
    return most


class SymbolPoolKind(KindCompiler):
    """The compile half of symbol-pool (the play half is ``PLAYER``)."""

    name = "symbol-pool"
    keys: Mapping[str, Node] = KEYS
    bands = BANDS
    override_locks = ("symbols", "dice")
    required: tuple[str, ...] = (
        "symbols",
        "dice",
        "pool",
        "difficulty",
        "success",
        "difficultyLadder",
    )

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def refused_fights(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        """Only a symbol-pool fight (1.382) may stand beside a symbol pool, and dicebound
        plays none (the combat shape refuses that kind wherever it appears, ``not-allowed``);
        any other combat kind is refused here, so every combat block is refused beside it."""
        combat = raw.get("combat")
        if isinstance(combat, dict):
            fight = combat.get("kind")
            if fight != self.name:
                yield Problem(
                    ("combat", "kind"),
                    COMBAT_NOT_ALLOWED,
                    f"{describe(fight)} is not a fight a symbol-pool ruleset can have; its "
                    'fights are "symbol-pool" fights.',
                )

    def override_lock_sentence(self, key: str) -> str | None:
        if key in self.override_locks:
            return f'"{key}" is locked on a symbol pool: an override cannot replace its {key}.'
        return None

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[SymbolConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config."""
        c = _Checker(block, ctx.path)
        symbols = c.symbols()
        dice = c.dice()
        pool = c.slot("pool", 6)
        difficulty = c.slot("difficulty", 5)
        boost = c.extra("boost")
        setback = c.extra("setback")
        success = block["success"]
        success_ok = c.symbol_ref(("success", "symbol"), str(success["symbol"]), "success")
        marks: dict[str, str | None] = {}
        for key in ("criticalSuccess", "criticalFailure"):
            name = block.get(key)
            if name is not None and not c.symbol_ref((key,), str(name), key):
                name = None
            marks[key] = name
        allow = bool(block.get("allowOwnUpgrade", False))
        if allow and "upgrade" not in block["pool"]:
            c.add(
                ("allowOwnUpgrade",),
                NEEDS_UPGRADE,
                "allowOwnUpgrade upgrades the roller's own dice to pool.upgrade, and pool "
                "declares no upgrade; add pool.upgrade or leave allowOwnUpgrade out.",
            )
        if difficulty is not None:
            for i, step in enumerate(block["difficultyLadder"]):
                if int(step["dc"]) > difficulty.max:
                    c.add(
                        ("difficultyLadder", i, "dc"),
                        DC_OUT_OF_RANGE,
                        f"{step['dc']} is more opposing dice than difficulty.max "
                        f"{difficulty.max}; a step's dc counts difficulty dice from 0 to "
                        f"{difficulty.max}.",
                    )
        spends = compile_spends(block.get("spend", ()), ctx.path, ctx.sheet, c.problems)
        if c.problems or symbols is None or dice is None or pool is None or difficulty is None:
            return None, c.problems
        assert success_ok
        config = SymbolConfig(
            symbols=symbols,
            dice=dice,
            pool=pool,
            difficulty=difficulty,
            success=str(success["symbol"]),
            needed=int(success.get("needed", 1)),
            build=block["pool"].get("build", "larger-upgraded"),
            boost=boost,
            setback=setback,
            critical_success=marks["criticalSuccess"],
            critical_failure=marks["criticalFailure"],
            allow_own_upgrade=allow,
            spend=spends,
            banded="outcomes" in block,
        )
        most = _most_lead(config)
        if most == 0:
            c.add(
                ("success", "symbol"),
                NEVER_SUCCEEDS,
                f'no face of the dice a check throws counts "{config.success}" past its '
                "cancelling partner, so no check could ever succeed.",
            )
        elif config.needed > most:
            c.add(
                ("success", "needed"),
                NEVER_SUCCEEDS,
                f"{config.needed} is more than the {most} net successes one check can count, "
                "so no check could ever succeed.",
            )
        for key, sid in (
            ("criticalSuccess", config.critical_success),
            ("criticalFailure", config.critical_failure),
        ):
            if sid is not None and not any(sid in face for d in config.dice for face in d.faces):
                c.add(
                    (key,),
                    NEVER_FIRES,
                    f'no face of any die shows "{sid}", so it could never be marked.',
                )
        if c.problems:
            return None, c.problems
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The keys a packaged ruleset must declare a Capability API version for."""
        at: Path = ("resolution",)
        yield "1.141", (*at, "kind"), "the symbol-pool kind"
        if "allowOwnUpgrade" in block:
            yield "1.150", (*at, "allowOwnUpgrade"), "allowOwnUpgrade"


KIND = SymbolPoolKind()
