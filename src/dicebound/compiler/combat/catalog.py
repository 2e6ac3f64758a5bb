"""What a fight reads of catalogs, cross-checked and compiled: an entry's fight
mechanics (FIGHTS §2.3) and a bestiary creature (FIGHTS §2.4).

Their shapes are checked with the whole file; these checks name what the ``combat``
block declares (budgets, tiers, checks, damage types), so they run only on a ruleset
that fights, once its block has compiled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from dicebound.compiler.combat.parts import Names
from dicebound.compiler.passes.context import Context, as_dict, as_list
from dicebound.problem_codes import (
    KEY_CONFLICT,
    MISSING_KEY,
    NOT_FOR_FIGHT_KIND,
    SEQUENCE_OF_SEQUENCE,
    WRONG_DIE,
)
from dicebound.problems import Path, missing_key, unknown_id
from dicebound.ruleset.combat import (
    Amount,
    Applied,
    Combat,
    Creature,
    CreatureAction,
    DamageClause,
    FightMechanics,
    Reaction,
    Resistance,
    Rider,
    SaveClause,
)
from dicebound.ruleset.spec import describe

__all__ = ["compile_catalogs"]

_SHEET_REFUSES = (
    "health",
    "defense",
    "initiativeModifier",
    "speed",
    "abilities",
    "saves",
    "checks",
    "soak",
    "hardness",
)
_SEQUENCE_REFUSES = (
    "toHit",
    "autoHit",
    "damage",
    "save",
    "saveDifficulty",
    "applies",
    "targetCount",
    "area",
    "reaction",
    "self",
)
_DICE_SIDES = re.compile(r"^\d+d(\d+)")


def compile_catalogs(
    ctx: Context, combat: Combat, names: Names
) -> tuple[dict[tuple[str, str], FightMechanics], dict[tuple[str, str], Creature]] | None:
    """The mechanics and creatures of every catalog, by (catalog, entry); None when one
    has a problem."""
    before = len(ctx.problems)
    mechanics: dict[tuple[str, str], FightMechanics] = {}
    creatures: dict[tuple[str, str], Creature] = {}
    sides = getattr(ctx.resolution.config, "sides", None) if ctx.resolution else None
    pool_sides = sides if combat.kind == "dice-pool" and isinstance(sides, int) else None
    for _, cat, here in ctx.items(ctx.raw.get("catalogs"), ("catalogs",)):
        feeds = [str(f) for f in as_list(cat.get("feeds"))]
        sources = [a for a in combat.abilities if a.list in feeds]
        for _, entry, at in ctx.items(cat.get("entries"), (*here, "entries")):
            key = (str(cat["id"]), str(entry["id"]))
            if isinstance(entry.get("mechanics"), dict):
                reader = _Mechanics(ctx, combat, names, pool_sides)
                mechanics[key] = reader.entry(entry["mechanics"], (*at, "mechanics"), sources)
            if isinstance(entry.get("creature"), dict):
                creatures[key] = _creature(
                    ctx, combat, names, entry["creature"], (*at, "creature"), key, entry
                )
    if len(ctx.problems) > before:
        return None
    return mechanics, creatures


def _amount(raw: Any) -> Amount | None:
    if not isinstance(raw, dict):
        return None
    return Amount(raw.get("dice"), int(raw.get("flat", 0)))


def _save(raw: Any) -> SaveClause | None:
    if not isinstance(raw, dict):
        return None
    return SaveClause(str(raw["save"]), raw["onSuccess"], raw.get("difficulty"))


def _applied(raw: Mapping[str, Any]) -> Applied:
    duration = raw["duration"]
    ends = raw.get("saveEnds")
    return Applied(
        condition=str(raw["condition"]),
        duration=int(duration["rounds"]) if isinstance(duration, dict) else duration,
        at_turn_start=isinstance(duration, dict) and duration.get("at") == "turn-start",
        save_ends=None if ends is None else (str(ends["save"]), ends["at"]),
        ends_after=raw.get("endsAfter"),
    )


def _reaction(raw: Any) -> Reaction | None:
    if not isinstance(raw, dict):
        return None  # ``true`` is the legacy flag, kept as ``plain_reaction``
    return Reaction(
        on=raw["on"],
        at=raw.get("at", "source"),
        cancels=bool(raw.get("cancels", False)),
        against=tuple(str(c) for c in as_dict(raw.get("against")).get("catalogs", ())),
    )


def _rider(raw: Mapping[str, Any]) -> Rider:
    amount = _amount(raw["amount"]) or Amount()
    return Rider(
        amount=amount,
        once_per=raw["oncePer"],
        when=tuple(str(w) for w in raw.get("when", ())),
        type=raw.get("type"),
        sources=tuple(str(s) for s in raw.get("sources", ())),
        requires=as_dict(raw.get("requires")).get("column"),
        id=raw.get("id"),
        name=raw.get("name"),
        actions=tuple(str(a) for a in raw.get("actions", ())),
    )


def _clauses(raw: Any) -> tuple[DamageClause, ...]:
    return tuple(
        DamageClause(
            Amount(c.get("dice"), int(c.get("flat", 0))), c.get("type"), _save(c.get("save"))
        )
        for c in as_list(raw)
    )


class _Shared:
    """The checks an entry's mechanics and a creature's action share."""

    def __init__(self, ctx: Context, combat: Combat, names: Names) -> None:
        self.ctx = ctx
        self.combat = combat
        self.names = names

    def damage_type(self, name: object, path: Path) -> None:
        """A damage type must be declared, when the block declares any."""
        if self.combat.damage_types and name not in self.combat.damage_types:
            self.names.known("damage types", name, path)

    def applies(self, raw: Any, here: Path) -> None:
        for i, item in enumerate(as_list(raw)):
            at = (*here, i)
            self.names.known("conditions", item["condition"], (*at, "condition"))
            ends = item.get("saveEnds")
            if ends is not None:
                self.names.known("saves", ends["save"], (*at, "saveEnds", "save"))
            elif item["duration"] == "until-save":
                self.ctx.problems.append(
                    missing_key(
                        at, "saveEnds", where='with "until-save": the save that ends it, and when'
                    )
                )

    def clauses(self, raw: Any, here: Path) -> None:
        for i, clause in enumerate(as_list(raw)):
            at = (*here, i)
            if "dice" not in clause and "flat" not in clause:
                self.ctx.add(at, MISSING_KEY, 'a clause needs "dice" or "flat": what it adds.')
            if "type" in clause:
                self.damage_type(clause["type"], (*at, "type"))
            if "save" in clause:
                self.names.known("saves", clause["save"]["save"], (*at, "save", "save"))

    def reaction(self, raw: Any, here: Path) -> None:
        if not isinstance(raw, dict):
            return
        if raw.get("cancels") and raw["on"] not in ("aimed", "used"):
            self.ctx.add(
                (*here, "cancels"),
                KEY_CONFLICT,
                f"only a reaction to something aimed or used can cancel it; this one answers "
                f'"{raw["on"]}".',
            )
        catalogs = [str(c.get("id")) for c in as_list(self.ctx.raw.get("catalogs"))]
        against = as_list(as_dict(raw.get("against")).get("catalogs"))
        for i, name in enumerate(against):
            if name not in catalogs:
                self.ctx.problems.append(
                    unknown_id((*here, "against", "catalogs", i), str(name), "a catalog", catalogs)
                )


class _Mechanics(_Shared):
    def __init__(self, ctx: Context, combat: Combat, names: Names, pool_sides: int | None) -> None:
        super().__init__(ctx, combat, names)
        self.pool_sides = pool_sides

    def entry(self, raw: dict[str, Any], here: Path, sources: Sequence[Any]) -> FightMechanics:
        names = self.names
        self.applies(raw.get("applies"), (*here, "applies"))
        self.clauses(raw.get("plus"), (*here, "plus"))
        if "plus" in raw:
            if raw["kind"] == "heal":
                self.ctx.add(
                    (*here, "plus"), KEY_CONFLICT, "a heal adds no further damage clauses."
                )
            elif "amount" not in raw:
                self.ctx.add(
                    (*here, "plus"),
                    KEY_CONFLICT,
                    'further damage clauses add to an "amount", and this entry has none.',
                )
        if "damageType" in raw:
            self.damage_type(raw["damageType"], (*here, "damageType"))
        if "save" in raw:
            names.known("saves", raw["save"]["save"], (*here, "save", "save"))
        asks_save = "save" in raw or any("saveEnds" in a for a in as_list(raw.get("applies")))
        if asks_save and sources and all(s.save_difficulty is None for s in sources):
            self.ctx.add(
                (*here, "save" if "save" in raw else "applies"),
                KEY_CONFLICT,
                "asks a save, and the ability source this entry is used through has no "
                "saveDifficulty to set it.",
            )
        for key in ("budget",):
            if key in raw:
                names.budget(raw[key], (*here, key))
        if "budget" in raw and raw.get("free"):
            self.ctx.add(
                (*here, "free"), KEY_CONFLICT, 'a free entry spends no budget; drop "budget".'
            )
        for i, give in enumerate(as_list(raw.get("gives"))):
            names.budget(give["budget"], (*here, "gives", i, "budget"))
        standard = raw.get("standard")
        if standard is not None:
            names.budget(standard["budget"], (*here, "standard", "budget"))
            if standard["budget"] == self.combat.main_budget.id and set(standard["actions"]) <= set(
                self.combat.standard
            ):
                self.ctx.add(
                    (*here, "standard"),
                    KEY_CONFLICT,
                    "lets the main budget take standard actions it already takes, which grants "
                    "nothing new.",
                )
        rider = raw.get("rider")
        if rider is not None:
            if raw["kind"] != "rider":
                self.ctx.add(
                    (*here, "rider"), KEY_CONFLICT, 'a rider goes on an entry of kind "rider".'
                )
            if "type" in rider:
                self.damage_type(rider["type"], (*here, "rider", "type"))
            lists = [a.list for a in self.combat.attacks]
            for i, name in enumerate(as_list(rider.get("sources"))):
                if name not in lists:
                    self.ctx.problems.append(
                        unknown_id(
                            (*here, "rider", "sources", i), str(name), "an attack list", lists
                        )
                    )
        self.reaction(raw.get("reaction"), (*here, "reaction"))
        for path, dice in self._dice(raw, here):
            self.pool_die(dice, path)
        scales = raw.get("scales")
        return FightMechanics(
            kind=str(raw["kind"]),
            targets=raw.get("targets"),
            target_count=int(raw.get("targetCount", 1)),
            auto_hit=bool(raw.get("autoHit", False)),
            attack_roll=bool(raw.get("attackRoll", False)),
            amount=_amount(raw.get("amount")),
            damage_type=raw.get("damageType"),
            plus=_clauses(raw.get("plus")),
            save=_save(raw.get("save")),
            applies=tuple(_applied(a) for a in as_list(raw.get("applies"))),
            temporary=_amount(raw.get("temporary")),
            scales_from=None
            if scales is None
            else self.ctx.ref(scales["from"], (*here, "scales", "from")),
            scales_table=()
            if scales is None
            else tuple((float(a), float(b)) for a, b in scales["table"]),
            budget=raw.get("budget"),
            free=bool(raw.get("free", False)),
            gives=tuple((str(g["budget"]), int(g["count"])) for g in as_list(raw.get("gives"))),
            standard=None
            if standard is None
            else (tuple(str(a) for a in standard["actions"]), str(standard["budget"])),
            rider=None if rider is None else _rider(rider),
            concentration=bool(raw.get("concentration", False)),
            reaction=_reaction(raw.get("reaction")),
            plain_reaction=raw.get("reaction") is True,
            range=raw.get("range"),
            area=None if "area" not in raw else MappingProxyType(dict(raw["area"])),
            friendly_fire=bool(raw.get("friendlyFire", False)),
        )

    @staticmethod
    def _dice(raw: Mapping[str, Any], here: Path) -> Iterator[tuple[Path, str]]:
        if "dice" in as_dict(raw.get("amount")):
            yield (*here, "amount", "dice"), raw["amount"]["dice"]
        for i, clause in enumerate(as_list(raw.get("plus"))):
            if "dice" in clause:
                yield (*here, "plus", i, "dice"), clause["dice"]

    def pool_die(self, dice: str, path: Path) -> None:
        """In a pool fight damage is thrown on the pool's own die."""
        found = _DICE_SIDES.match(dice)
        if self.pool_sides is None or found is None or int(found.group(1)) == self.pool_sides:
            return
        self.ctx.add(
            path,
            WRONG_DIE,
            f"{describe(dice)} throws d{found.group(1)}, and this pool fight throws its damage "
            f"on the pool's d{self.pool_sides}.",
        )


def _creature(
    ctx: Context,
    combat: Combat,
    names: Names,
    raw: dict[str, Any],
    here: Path,
    key: tuple[str, str],
    entry: Mapping[str, Any],
) -> Creature:
    shared = _Shared(ctx, combat, names)
    names.known("tiers", raw["tier"], (*here, "tier"))
    if "sheet" in raw:
        for refused in _SHEET_REFUSES:
            if refused in raw:
                ctx.add(
                    (*here, refused),
                    KEY_CONFLICT,
                    f"a creature written as a sheet takes its {refused} from the sheet; drop "
                    f'"{refused}" or the sheet.',
                )
    else:
        for needed in ("health", "defense", "initiativeModifier", "actions"):
            if needed not in raw:
                ctx.problems.append(
                    missing_key(here, needed, where="on a creature not written as a sheet")
                )
        if "actions" in raw and not raw["actions"]:
            ctx.add((*here, "actions"), MISSING_KEY, "a creature needs at least one action.")
    if "soak" in raw and combat.kind != "dice-pool":
        ctx.add(
            (*here, "soak"),
            NOT_FOR_FIGHT_KIND,
            "soak goes only on a creature of a dice-pool fight.",
        )
    for name in as_dict(raw.get("saves")):
        if name != "$comment":
            names.known("saves", name, (*here, "saves", name))
    for name in as_dict(raw.get("checks")):
        if name != "$comment":
            names.known("checks", name, (*here, "checks", name))
    names.all("conditions", as_list(raw.get("conditionImmunities")), (*here, "conditionImmunities"))
    for group in ("resist", "immune"):
        for i, item in enumerate(as_list(raw.get(group))):
            name = item["type"] if isinstance(item, dict) else item
            shared.damage_type(name, (*here, group, i))
    for i, item in enumerate(as_list(raw.get("vulnerable"))):
        shared.damage_type(item, (*here, "vulnerable", i))
    actions = as_list(raw.get("actions"))
    ids = [str(a["id"]) for a in actions]
    sequences = {str(a["id"]) for a in actions if "sequence" in a}
    for i, action in enumerate(actions):
        _action(shared, action, (*here, "actions", i), ids, sequences)
    for i, rider in enumerate(as_list(raw.get("riders"))):
        if "type" in rider:
            shared.damage_type(rider["type"], (*here, "riders", i, "type"))
        for j, name in enumerate(as_list(rider.get("actions"))):
            if name not in ids:
                ctx.problems.append(
                    unknown_id((*here, "riders", i, "actions", j), str(name), "an action", ids)
                )
    health = raw.get("health")
    soak = as_dict(raw.get("soak"))
    return Creature(
        catalog=key[0],
        entry=key[1],
        label=str(entry["label"]),
        tier=str(raw["tier"]),
        health=None
        if health is None
        else (
            int(health)
            if not isinstance(health, dict)
            else (str(health["dice"]), int(health.get("flat", 0)))
        ),
        defense=raw.get("defense"),
        initiative_modifier=raw.get("initiativeModifier"),
        speed=raw.get("speed"),
        abilities=_numbers(raw.get("abilities")),
        saves=_numbers(raw.get("saves")),
        checks=_numbers(raw.get("checks")),
        soak_all=int(soak.get("all", 0)),
        soak_by_kind=_numbers(soak.get("byKind")),
        hardness=int(raw.get("hardness", 0)),
        resist=_resistances(raw.get("resist")),
        immune=_resistances(raw.get("immune")),
        vulnerable=tuple(str(v) for v in as_list(raw.get("vulnerable"))),
        condition_immunities=tuple(str(c) for c in as_list(raw.get("conditionImmunities"))),
        traits=tuple((str(t["name"]), str(t["text"])) for t in as_list(raw.get("traits"))),
        signature_points=int(raw.get("signaturePoints", 0)),
        actions=tuple(
            _built_action(a) for a in actions if combat.budget(str(a["budget"])) is not None
        ),
        riders=tuple(_rider(r) for r in as_list(raw.get("riders"))),
        sheet=None if "sheet" not in raw else MappingProxyType(dict(raw["sheet"])),
        loot=raw.get("loot"),
    )


def _numbers(raw: Any) -> Mapping[str, int]:
    return MappingProxyType({k: int(v) for k, v in as_dict(raw).items() if k != "$comment"})


def _resistances(raw: Any) -> tuple[Resistance, ...]:
    return tuple(
        Resistance(str(r["type"]), tuple(str(t) for t in r["except"]))
        if isinstance(r, dict)
        else Resistance(str(r))
        for r in as_list(raw)
    )


def _action(
    shared: _Shared, raw: Mapping[str, Any], here: Path, ids: Sequence[str], sequences: set[str]
) -> None:
    ctx, names = shared.ctx, shared.names
    if "sequence" in raw:
        for key in _SEQUENCE_REFUSES:
            if key in raw:
                ctx.add(
                    (*here, key),
                    KEY_CONFLICT,
                    f'a sequence is made of other actions and carries no "{key}" of its own.',
                )
        for i, step in enumerate(raw["sequence"]):
            name = str(step["action"])
            at = (*here, "sequence", i, "action")
            if name not in ids:
                ctx.problems.append(unknown_id(at, name, "an action of this creature", ids))
            elif name in sequences:
                ctx.add(
                    at,
                    SEQUENCE_OF_SEQUENCE,
                    f'"{name}" is itself a sequence; a sequence names plain actions.',
                )
    if raw.get("self"):
        for key in ("targetCount", "area"):
            if key in raw:
                ctx.add(
                    (*here, key),
                    KEY_CONFLICT,
                    f'an action on the creature itself takes no other target, so no "{key}".',
                )
    if "reaction" in raw and "signature" in raw:
        ctx.add(
            (*here, "signature"),
            KEY_CONFLICT,
            "a reaction is taken out of turn and is never a signature action.",
        )
    shared.reaction(raw.get("reaction"), (*here, "reaction"))
    damage = as_dict(raw.get("damage"))
    if "type" in damage:
        shared.damage_type(damage["type"], (*here, "damage", "type"))
    shared.clauses(damage.get("plus"), (*here, "damage", "plus"))
    if "save" in raw:
        names.known("saves", raw["save"]["save"], (*here, "save", "save"))
    shared.applies(raw.get("applies"), (*here, "applies"))


def _built_action(raw: Mapping[str, Any]) -> CreatureAction:
    damage = raw.get("damage")
    uses = raw.get("uses")
    recharge = raw.get("recharge")
    rng = raw.get("range")
    return CreatureAction(
        id=str(raw["id"]),
        name=str(raw["name"]),
        budget=str(raw["budget"]),
        to_hit=raw.get("toHit"),
        auto_hit=bool(raw.get("autoHit", False)),
        damage=None if damage is None else Amount(damage.get("dice"), int(damage.get("flat", 0))),
        damage_type=None if damage is None else damage.get("type"),
        plus=_clauses(as_dict(damage).get("plus")),
        save=_save(raw.get("save")),
        save_difficulty=raw.get("saveDifficulty"),
        applies=tuple(_applied(a) for a in as_list(raw.get("applies"))),
        target_count=int(raw.get("targetCount", 1)),
        uses=None if uses is None else (uses["per"], int(uses["count"])),
        recharge=None
        if recharge is None
        else (
            int(recharge["dice"]["count"]),
            int(recharge["dice"]["sides"]),
            int(recharge["from"]),
        ),
        sequence=tuple(
            (str(s["action"]), int(s.get("times", 1))) for s in as_list(raw.get("sequence"))
        ),
        signature_cost=as_dict(raw.get("signature")).get("cost"),
        reaction=_reaction(raw.get("reaction")),
        self_only=bool(raw.get("self", False)),
        reach=raw.get("reach"),
        range=None
        if rng is None
        else (
            (float(rng), None)
            if not isinstance(rng, dict)
            else (float(rng["normal"]), rng.get("long"))
        ),
        area=None if "area" not in raw else MappingProxyType(dict(raw["area"])),
    )
