"""The ``combat`` block's cross-checks and its compiled ``Combat`` (FIGHTS §1, §2.1).

Runs on a block whose shape is sound (``compiler.combat.shapes``); each rule the spec
lists as "Refused at import" is one check here, reported at the key it concerns with a
plain sentence. A key whose part has a problem compiles to nothing; the block compiles
only when the whole file is clean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

from dicebound.compiler.combat.parts import Names, modifier
from dicebound.compiler.passes.context import Context, as_dict, as_list
from dicebound.problem_codes import (
    COMBAT_NOT_ALLOWED,
    DUPLICATE_ID,
    KEY_CONFLICT,
    NOT_A_NUMBER,
    NOT_FOR_FIGHT_KIND,
    NOT_WOUND_TRACK,
    POOL_STARTS_EMPTY,
    SINGLE_DIE_ONLY,
    TOO_LARGE,
    WOUND_TRACK_HIDDEN,
)
from dicebound.problems import Path, missing_key, unknown_id
from dicebound.ruleset.combat import (
    AbilitySource,
    AttackRoll,
    AttackSource,
    Budget,
    CheckDef,
    Combat,
    Concentration,
    ConditionRule,
    Contest,
    Crash,
    DamageKinds,
    Dice,
    Dying,
    Health,
    Initiative,
    InitiativeResource,
    LevelRule,
    Measure,
    PoolRules,
    ResourceStyle,
    SpendLimit,
    ThreatTier,
)
from dicebound.ruleset.reference import ValueRef
from dicebound.ruleset.spec import describe

__all__ = ["compile_block"]

_HERE: Path = ("combat",)

_ATTACK_COLUMNS: tuple[tuple[tuple[str, str], tuple[str, ...]], ...] = (
    (("toHit", "ability"), ("enum",)),
    (("toHit", "skill"), ("enum",)),
    (("toHit", "proficiency"), ("boolean",)),
    (("toHit", "bonus"), ("number",)),
    (("damage", "dice"), ("dice",)),
    (("damage", "ability"), ("enum",)),
    (("damage", "bonus"), ("number",)),
    (("damage", "type"), ("text", "enum")),  # an enum column holds its types as text
)


def compile_block(ctx: Context, raw: dict[str, Any], names: Names) -> Combat | None:
    """Cross-check the block and build it; None when any part has a problem (the
    problems are on ``ctx``)."""
    before = len(ctx.problems)
    kind = str(raw["kind"])
    _kind_beside(ctx, kind)
    health = _health(ctx, raw["health"], names)
    defense = ctx.ref(raw["defense"], (*_HERE, "defense"))
    initiative = _initiative(ctx, raw["initiative"], kind, names)
    attack_roll = _attack_roll(ctx, raw.get("attackRoll"), kind)
    pool = _pool(ctx, raw.get("pool"), kind, health)
    budgets = tuple(
        Budget(str(b["id"]), str(b["label"]), b["per"], int(b.get("count", 1)))
        for b in raw["economy"]["budgets"]
    )
    for key in ("opportunity", "offHand"):
        if key in raw:
            names.budget(raw[key]["budget"], (*_HERE, key, "budget"))
    attacks = tuple(
        _attack(ctx, a, (*_HERE, "attacks", i), names) for i, a in _each(raw, "attacks")
    )
    reaches = any("reach" in a or "range" in a for a in as_list(raw.get("attacks")))
    if reaches and "distance" not in raw:
        ctx.problems.append(
            missing_key(
                _HERE,
                "distance",
                where="when an attack source carries a reach or a range: what they are measured in",
            )
        )
    abilities = tuple(
        _ability(ctx, a, (*_HERE, "abilities", i), names) for i, a in _each(raw, "abilities")
    )
    dodge = as_list(as_dict(as_dict(raw.get("standardEffects")).get("dodge")).get("saves"))
    names.all("saves", dodge, (*_HERE, "standardEffects", "dodge", "saves"))
    conditions = tuple(
        _condition(ctx, c, (*_HERE, "conditions", i), names, kind)
        for i, c in _each(raw, "conditions")
    )
    levels = tuple(
        _level(ctx, lv, (*_HERE, "levels", i), names, kind) for i, lv in _each(raw, "levels")
    )
    checks = tuple(
        CheckDef(
            str(c["id"]), str(c["label"]), _ref(ctx, c["value"], (*_HERE, "checks", i, "value"))
        )
        for i, c in _each(raw, "checks")
    )
    contests = tuple(_contest(c, (*_HERE, "contests", i), names) for i, c in _each(raw, "contests"))
    concentration = _concentration(raw.get("concentration"), names)
    dying = _dying(ctx, raw.get("dying"), names)
    damage_kinds = _damage_kinds(ctx, raw, health, names)
    tiers = tuple(_tier(ctx, t, (*_HERE, "threat", "tiers", i)) for i, t in _each_tier(raw))
    limits = _spend_limits(ctx, raw, names)
    if len(ctx.problems) > before or defense is None or health is None:
        return None
    off_hand = raw.get("offHand")
    return Combat(
        kind=cast(Any, kind),
        health=health,
        defense=defense,
        initiative=initiative,
        budgets=budgets,
        attack_roll=attack_roll,
        pool=pool,
        off_hand=None
        if off_hand is None
        else (str(off_hand["budget"]), off_hand.get("ability", "full")),
        attacks=attacks,
        abilities=abilities,
        standard=tuple(str(s) for s in raw.get("standard", ())),
        dodge_saves=tuple(str(s) for s in dodge),
        conditions=conditions,
        levels=levels,
        checks=checks,
        contests=contests,
        concentration=concentration,
        dying=dying,
        damage_types=tuple(str(t) for t in raw.get("damageTypes", ())),
        damage_kinds=damage_kinds,
        tiers=tiers,
        spend_limits=limits,
        inert=MappingProxyType(
            {key: raw[key] for key in ("distance", "ranged", "cover", "opportunity") if key in raw}
            | ({"movement": raw["economy"]["movement"]} if "movement" in raw["economy"] else {})
        ),
    )


def _each(raw: Mapping[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, item) for i, item in enumerate(as_list(raw.get(key))) if isinstance(item, dict)]


def _each_tier(raw: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return _each(as_dict(raw.get("threat")), "tiers")


def _ref(ctx: Context, raw: Mapping[str, Any], path: Path) -> ValueRef:
    ref = ctx.ref(raw, path)
    return ref if ref is not None else ValueRef("const")


def _kind_beside(ctx: Context, kind: str) -> None:
    """FIGHTS §1: a dice-pool fight stands only beside a kind that throws pools."""
    if kind == "dice-pool" and ctx.kind is not None and not ctx.kind.pool_fights:
        ctx.add(
            (*_HERE, "kind"),
            COMBAT_NOT_ALLOWED,
            f'a "dice-pool" fight throws the checks\' own pools, and a {ctx.kind.name} ruleset '
            'throws none; write an "attack-vs-defense" fight.',
        )


def _health(ctx: Context, raw: Mapping[str, Any], names: Names) -> Health | None:
    if "pool" in raw:
        name = str(raw["pool"])
        here = (*_HERE, "health", "pool")
        if not names.known("pools", name, here):
            return None
        pool = next((p for p in ctx.sheet.pools if p.id == name), None)
        if pool is not None and pool.start == "empty":
            ctx.add(
                here,
                POOL_STARTS_EMPTY,
                f'"{name}" starts empty, so everybody would begin a fight already down; health '
                "is a pool that starts full.",
            )
            return None
        return Health("pool", name)
    name = str(raw["track"])
    here = (*_HERE, "health", "track")
    if not names.known("tracks", name, here):
        return None
    track = next((t for t in ctx.sheet.tracks if t.id == name), None)
    if track is not None and not track.is_wound_track:
        ctx.add(
            here,
            NOT_WOUND_TRACK,
            f'"{name}" is a plain track; health read off a track is a wound track (one with '
            "kinds and levels or boxes).",
        )
        return None
    return Health("track", name)


def _initiative(ctx: Context, raw: Mapping[str, Any], kind: str, names: Names) -> Initiative:
    here = (*_HERE, "initiative")
    if "modifier" in raw and "dice" not in raw:
        ctx.add((*here, "modifier"), KEY_CONFLICT, 'a modifier goes only with "dice".')
    if "plus" in raw and "pool" not in raw:
        ctx.add((*here, "plus"), KEY_CONFLICT, '"plus" goes only with "pool".')
    if "pool" in raw and kind != "dice-pool":
        ctx.add(
            (*here, "pool"),
            NOT_FOR_FIGHT_KIND,
            'initiative thrown as a pool goes only in a "dice-pool" fight; throw "dice".',
        )
    if "each" in raw and "resource" in raw:
        ctx.add(
            (*here, "each"),
            KEY_CONFLICT,
            'initiative that is a resource is never thrown again, so "each" does not go '
            'beside "resource".',
        )
    resource = None
    if "resource" in raw:
        res = raw["resource"]
        if "pool" not in raw:
            ctx.add(
                (*here, "resource"),
                KEY_CONFLICT,
                'initiative is a resource only when it is thrown as a "pool".',
            )
        crash_raw = res.get("crash")
        crash = None
        if crash_raw is not None:
            condition = crash_raw.get("condition")
            if condition is not None:
                names.known("conditions", condition, (*here, "resource", "crash", "condition"))
            crash = Crash(
                int(crash_raw.get("at", 0)),
                None if condition is None else str(condition),
                int(crash_raw.get("bonus", 0)),
                crash_raw.get("recoverAfter"),
            )
        resource = InitiativeResource(
            int(res["base"]),
            tuple(
                ResourceStyle(
                    str(s["id"]),
                    str(s["label"]),
                    int(s["takes"].get("gain", 0)) if "takes" in s else None,
                    tuple((float(a), float(b)) for a, b in s["spends"]["onMiss"])
                    if "spends" in s
                    else None,
                )
                for s in res["styles"]
            ),
            crash,
        )
    dice = raw.get("dice")
    return Initiative(
        dice=None if dice is None else Dice(int(dice["count"]), int(dice["sides"])),
        modifier=None if "modifier" not in raw else ctx.ref(raw["modifier"], (*here, "modifier")),
        pool=None if "pool" not in raw else ctx.ref(raw["pool"], (*here, "pool")),
        plus=int(raw.get("plus", 0)),
        each=raw.get("each", "fight"),
        resource=resource,
    )


def _attack_roll(ctx: Context, raw: Any, kind: str) -> AttackRoll | None:
    here = (*_HERE, "attackRoll")
    if kind == "dice-pool":
        if raw is not None:
            ctx.add(
                here,
                NOT_FOR_FIGHT_KIND,
                "a dice-pool fight throws its attacks as pools, so it takes no attackRoll.",
            )
        return None
    if raw is None:
        ctx.problems.append(
            missing_key(_HERE, "attackRoll", where='in an "attack-vs-defense" fight')
        )
        return None
    naturals = as_dict(raw.get("naturals"))
    count = int(raw["dice"]["count"])
    if count > 1 and any(naturals.get(k, "none") != "none" for k in ("max", "min")):
        ctx.add(
            (*here, "naturals"),
            SINGLE_DIE_ONLY,
            f"a natural face is read off one die, and this roll throws {count}; write "
            '"none" or throw one die.',
        )
    return AttackRoll(
        Dice(count, int(raw["dice"]["sides"])),
        bool(raw.get("advantage", False)),
        naturals.get("max", "none"),
        naturals.get("min", "none"),
        raw.get("critical", "none"),
    )


def _pool(ctx: Context, raw: Any, kind: str, health: Health | None) -> PoolRules | None:
    here = (*_HERE, "pool")
    if kind != "dice-pool":
        if raw is not None:
            ctx.add(
                here,
                NOT_FOR_FIGHT_KIND,
                'the pool rules go only in a "dice-pool" fight; this fight throws attackRoll.',
            )
        return None
    if raw is None:
        ctx.problems.append(missing_key(_HERE, "pool", where='in a "dice-pool" fight'))
        return None
    sides = getattr(ctx.resolution.config, "sides", None) if ctx.resolution else None
    target = raw.get("damageTarget")
    if isinstance(sides, int) and target is not None and target > sides:
        ctx.add(
            (*here, "damageTarget"),
            TOO_LARGE,
            f"{describe(target)} is above the pool's d{sides}, so no damage die could ever "
            "meet it.",
        )
    soak = as_dict(raw.get("soak"))
    by_kind: dict[str, ValueRef] = {}
    if "byKind" in soak:
        at = (*here, "soak", "byKind")
        if health is not None and health.kind == "pool":
            ctx.add(
                at,
                KEY_CONFLICT,
                "soak by kind of wound needs health on a wound track; with pool health "
                'write "all".',
            )
        kinds = _track_kinds(ctx, health)
        for key, ref in soak["byKind"].items():
            if key == "$comment":
                continue
            if kinds is not None and key not in kinds:
                _not_in(ctx, key, kinds, (*at, key), "a kind of the health track")
            by_kind[key] = _ref(ctx, ref, (*at, key))
    return PoolRules(
        advantage=bool(raw.get("advantage", False)),
        damage_target=target,
        soak_roll=bool(soak.get("roll", False)),
        soak_all=None if "all" not in soak else ctx.ref(soak["all"], (*here, "soak", "all")),
        soak_by_kind=MappingProxyType(by_kind),
        hardness=None if "hardness" not in raw else ctx.ref(raw["hardness"], (*here, "hardness")),
    )


def _track_kinds(ctx: Context, health: Health | None) -> list[str] | None:
    if health is None or health.kind != "track":
        return None
    track = next((t for t in ctx.sheet.tracks if t.id == health.name), None)
    return None if track is None else [k.id for k in track.kinds]


def _not_in(ctx: Context, name: str, known: Sequence[str], path: Path, what: str) -> None:
    ctx.problems.append(unknown_id(path, name, what, known))


def _attack(ctx: Context, raw: dict[str, Any], here: Path, names: Names) -> AttackSource:
    list_id = str(raw["list"])
    names.known("lists", list_id, (*here, "list"))
    names.budget(raw["budget"], (*here, "budget"))
    wanted: list[tuple[str | int, Any, Sequence[str]]] = [("name", raw["name"], ("text",))]
    for (part, key), types in _ATTACK_COLUMNS:
        if key in raw[part]:
            wanted.append((key, raw[part][key]["column"], types))
    if list_id in ctx.names["lists"]:
        ctx.check_columns(list_id, wanted[:1], here)
        for (part, key), types in _ATTACK_COLUMNS:
            if key in raw[part]:
                ctx.check_columns(
                    list_id, [("column", raw[part][key]["column"], types)], (*here, part, key)
                )
    strikes = None
    if "strikes" in raw:
        strikes = ctx.ref(raw["strikes"], (*here, "strikes"))
    capped = raw.get("strikesCappedBy")
    if capped is not None:
        if "strikes" not in raw:
            ctx.add(
                (*here, "strikesCappedBy"),
                KEY_CONFLICT,
                'strikesCappedBy caps "strikes", which this attack source does not write.',
            )
        if list_id in ctx.names["lists"]:
            ctx.check_columns(
                list_id, [("column", capped["column"], ("boolean",))], (*here, "strikesCappedBy")
            )
    rng = as_dict(raw.get("range"))
    return AttackSource(
        list=list_id,
        budget=str(raw["budget"]),
        name=str(raw["name"]),
        damage_dice=str(raw["damage"]["dice"]["column"]),
        to_hit_ability=_column(raw["toHit"], "ability"),
        to_hit_skill=_column(raw["toHit"], "skill"),
        to_hit_proficiency=_column(raw["toHit"], "proficiency"),
        to_hit_bonus=_column(raw["toHit"], "bonus"),
        damage_ability=_column(raw["damage"], "ability"),
        damage_bonus=_column(raw["damage"], "bonus"),
        damage_type=_column(raw["damage"], "type"),
        strikes=strikes,
        strikes_capped_by=None if capped is None else str(capped["column"]),
        reach=_measure(raw.get("reach")),
        range_normal=_measure(rng.get("normal")),
        range_long=_measure(rng.get("long")),
    )


def _column(raw: Mapping[str, Any], key: str) -> str | None:
    part = raw.get(key)
    return None if part is None else str(part["column"])


def _measure(raw: Any) -> Measure | None:
    if not isinstance(raw, dict):
        return None
    if "column" in raw:
        return Measure(column=str(raw["column"]))
    return Measure(const=float(raw["const"]))


def _ability(ctx: Context, raw: dict[str, Any], here: Path, names: Names) -> AbilitySource:
    list_id = str(raw["list"])
    names.known("lists", list_id, (*here, "list"))
    names.budget(raw["budget"], (*here, "budget"))
    if list_id in ctx.names["lists"]:
        if "onlyWhen" in raw:
            ctx.check_columns(list_id, [("onlyWhen", raw["onlyWhen"], ("boolean",))], here)
        if "alwaysWhen" in raw:
            ctx.check_columns(
                list_id, [("column", raw["alwaysWhen"]["column"], ())], (*here, "alwaysWhen")
            )
    always = raw.get("alwaysWhen")
    return AbilitySource(
        list=list_id,
        budget=str(raw["budget"]),
        only_when=raw.get("onlyWhen"),
        always_when=None if always is None else (str(always["column"]), always["equals"]),
        to_hit=None if "toHit" not in raw else ctx.ref(raw["toHit"], (*here, "toHit")),
        save_difficulty=None
        if "saveDifficulty" not in raw
        else ctx.ref(raw["saveDifficulty"], (*here, "saveDifficulty")),
    )


def _narrowing(
    ctx: Context, raw: Mapping[str, Any], here: Path, names: Names, mods: Sequence[Any]
) -> None:
    """``saves``/``skills`` narrow an own-saves/own-checks effect or a modifier to saves
    or checks; without one they narrow nothing and are refused."""
    effects = [str(e) for e in as_list(raw.get("effects"))]
    names.all("saves", as_list(raw.get("failsSaves")), (*here, "failsSaves"))
    for key, namespace, prefix, to in (
        ("saves", "saves", "own-saves-", "saves"),
        ("skills", "skills", "own-checks-", "checks"),
    ):
        if key not in raw:
            continue
        names.all(namespace, as_list(raw[key]), (*here, key))
        if not any(e.startswith(prefix) for e in effects) and not any(
            m.get("to") == to for m in mods
        ):
            ctx.add(
                (*here, key),
                KEY_CONFLICT,
                f'"{key}" narrows an {prefix}advantage or {prefix}disadvantage effect or a '
                f"modifier to {to}, and there is none here.",
            )


def _condition(
    ctx: Context, raw: dict[str, Any], here: Path, names: Names, kind: str
) -> ConditionRule:
    names.known("conditions", raw["condition"], (*here, "condition"))
    mods = as_list(raw.get("modifiers"))
    _narrowing(ctx, raw, here, names, mods)
    sight = raw.get("whileSourceInSight")
    return ConditionRule(
        condition=str(raw["condition"]),
        effects=tuple(str(e) for e in raw.get("effects", ())),
        modifiers=tuple(
            modifier(ctx, m, (*here, "modifiers", i), names, kind) for i, m in enumerate(mods)
        ),
        fails_saves=tuple(str(s) for s in raw.get("failsSaves", ())),
        saves=tuple(str(s) for s in raw.get("saves", ())),
        skills=tuple(str(s) for s in raw.get("skills", ())),
        in_sight_only="all" if sight is True else tuple(str(e) for e in sight or ()),
        ends_when_source_down=bool(raw.get("endsWhenSourceDown", False)),
    )


def _level(ctx: Context, raw: dict[str, Any], here: Path, names: Names, kind: str) -> LevelRule:
    source: Literal["track", "derived"] = "track" if "track" in raw else "derived"
    namespace = "tracks" if source == "track" else "derived"
    names.known(namespace, raw[source], (*here, source))
    mods = as_list(raw.get("modifiers"))
    _narrowing(ctx, raw, here, names, mods)
    return LevelRule(
        source=source,
        name=str(raw[source]),
        at=int(raw["at"]),
        effects=tuple(str(e) for e in raw.get("effects", ())),
        modifiers=tuple(
            modifier(ctx, m, (*here, "modifiers", i), names, kind) for i, m in enumerate(mods)
        ),
        fails_saves=tuple(str(s) for s in raw.get("failsSaves", ())),
        saves=tuple(str(s) for s in raw.get("saves", ())),
        skills=tuple(str(s) for s in raw.get("skills", ())),
    )


def _contest(raw: dict[str, Any], here: Path, names: Names) -> Contest:
    names.budget(raw["budget"], (*here, "budget"))
    for side in ("attacker", "defender"):
        names.all("checks", raw[side]["checks"], (*here, side, "checks"))
    holding = as_dict(raw.get("from")).get("holding")
    if holding is not None:
        names.known("conditions", holding, (*here, "from", "holding"))
    win = raw["onWin"]
    for key in ("applies", "ends"):
        for i, item in enumerate(as_list(win.get(key))):
            names.known("conditions", item["condition"], (*here, "onWin", key, i, "condition"))
    return Contest(
        id=str(raw["id"]),
        label=str(raw["label"]),
        budget=str(raw["budget"]),
        attacker=tuple(str(c) for c in raw["attacker"]["checks"]),
        defender=tuple(str(c) for c in raw["defender"]["checks"]),
        ties=raw.get("ties", "defender"),
        strike=bool(raw.get("strike", False)),
        reach=raw.get("reach"),
        holding=None if holding is None else str(holding),
        applies=tuple((str(a["condition"]), a.get("rounds")) for a in win.get("applies", ())),
        ends=tuple((str(e["condition"]), e["on"]) for e in win.get("ends", ())),
        push=win.get("push"),
    )


def _concentration(raw: Any, names: Names) -> Concentration | None:
    if raw is None:
        return None
    here = (*_HERE, "concentration")
    names.known("text", raw["text"], (*here, "text"))
    names.known("saves", raw["save"], (*here, "save"))
    return Concentration(
        str(raw["text"]), str(raw["save"]), int(raw["floor"]), float(raw["fromDamage"])
    )


def _dying(ctx: Context, raw: Any, names: Names) -> Dying | None:
    if raw is None:
        return None
    here = (*_HERE, "dying")
    for key in ("successes", "failures"):
        name = str(raw[key])
        if not names.known("tracks", name, (*here, key)):
            continue
        track = next((t for t in ctx.sheet.tracks if t.id == name), None)
        if track is None:
            continue
        top = track.max
        if top.source != "const" or top.value < 1 or top.value <= track.min:
            ctx.add(
                (*here, key),
                NOT_A_NUMBER,
                f'"{name}" must count to a plain number of at least 1 above its min, so a '
                "fight knows when the saves are done.",
            )
        if track.hide_when is not None:
            ctx.add(
                (*here, key),
                WOUND_TRACK_HIDDEN,
                f'"{name}" may be hidden (hideWhen), and a dying character\'s saves must show.',
            )
    if raw["successes"] == raw["failures"]:
        ctx.add(
            (*here, "failures"),
            DUPLICATE_ID,
            f'"{raw["failures"]}" already counts the successes; successes and failures are two '
            "tracks.",
        )
    if "condition" in raw:
        names.known("conditions", raw["condition"], (*here, "condition"))
    naturals = as_dict(raw.get("naturals"))
    count = int(raw["dice"]["count"])
    if count > 1 and any(naturals.get(k, "none") != "none" for k in ("max", "min")):
        ctx.add(
            (*here, "naturals"),
            SINGLE_DIE_ONLY,
            f"a natural face is read off one die, and a death save throws {count}; write "
            '"none" or throw one die.',
        )
    return Dying(
        successes=str(raw["successes"]),
        failures=str(raw["failures"]),
        count=count,
        sides=int(raw["dice"]["sides"]),
        succeed_at=int(raw["succeedAt"]),
        natural_max=naturals.get("max", "none"),
        natural_min=naturals.get("min", "none"),
        damage_while_down=raw.get("damageWhileDown", "none"),
        critical_while_down=raw.get("criticalWhileDown", "none"),
        condition=raw.get("condition"),
    )


def _damage_kinds(
    ctx: Context, raw: Mapping[str, Any], health: Health | None, names: Names
) -> DamageKinds | None:
    here = (*_HERE, "damageKinds")
    block = raw.get("damageKinds")
    on_track = health is not None and health.kind == "track"
    if health is None:  # the health key's own problem is reported; nothing to add here
        return None
    if block is None:
        if on_track:
            ctx.problems.append(
                missing_key(
                    _HERE,
                    "damageKinds",
                    where="when health is a wound track: which kind of wound each blow marks",
                )
            )
        return None
    if not on_track:
        ctx.add(
            here,
            KEY_CONFLICT,
            "damage kinds say which wound a blow marks on a wound track, and health here is "
            "a pool.",
        )
        return None
    kinds = _track_kinds(ctx, health) or []
    if health is not None and kinds and block["default"] not in kinds:
        _not_in(ctx, str(block["default"]), kinds, (*here, "default"), "a kind of the health track")
    types = [str(t) for t in raw.get("damageTypes", ())]
    by_type: dict[str, str] = {}
    for key, kind in as_dict(block.get("byType")).items():
        if key == "$comment":
            continue
        if key not in types:
            _not_in(ctx, key, types, (*here, "byType", key), "a damage type")
        if health is not None and kinds and kind not in kinds:
            _not_in(ctx, str(kind), kinds, (*here, "byType", key), "a kind of the health track")
        by_type[key] = str(kind)
    return DamageKinds(str(block["default"]), block["marks"], MappingProxyType(by_type))


def _tier(ctx: Context, raw: dict[str, Any], here: Path) -> ThreatTier:
    for key in ("health", "damagePerRound"):
        lo, hi = raw[key]
        if lo > hi:
            ctx.add(
                (*here, key),
                TOO_LARGE,
                f"runs from {describe(lo)} down to {describe(hi)}; write the low end first.",
            )
    return ThreatTier(
        id=str(raw["id"]),
        label=str(raw["label"]),
        health=(int(raw["health"][0]), int(raw["health"][1])),
        defense=int(raw["defense"]),
        to_hit=int(raw["toHit"]),
        damage_per_round=(int(raw["damagePerRound"][0]), int(raw["damagePerRound"][1])),
        save_difficulty=int(raw["saveDifficulty"]),
    )


def _spend_limits(ctx: Context, raw: Mapping[str, Any], names: Names) -> tuple[SpendLimit, ...]:
    out = []
    seen: dict[str, int] = {}
    for i, item in _each(raw, "spendLimits"):
        here = (*_HERE, "spendLimits", i)
        pool = str(item["pool"])
        names.known("pools", pool, (*here, "pool"))
        if pool in seen:
            ctx.add(
                (*here, "pool"),
                DUPLICATE_ID,
                f'"{pool}" is already limited by spend limit {seen[pool]}; a pool is limited once.',
            )
        seen.setdefault(pool, i)
        out.append(SpendLimit(pool, _ref(ctx, item["max"], (*here, "max")), item["per"]))
    return tuple(out)
