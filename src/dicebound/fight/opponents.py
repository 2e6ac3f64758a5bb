"""The opponents a start names (FIGHTS §5.2-5.3): the ``enemies`` grammar, a bestiary
creature, a tier's plain block, or a proposal clamped to its tier.

Everything here is decided before a die is thrown, so a start that is refused throws
nothing; the health dice of a creature are thrown by ``start`` in the dice order.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from dicebound.fight.actions import block_actions
from dicebound.fight.amounts import read_dice
from dicebound.fight.state import combatant_id
from dicebound.ruleset.combat import Combat, Creature, ThreatTier

__all__ = ["MAX_OPPONENTS", "Opponent", "Refusal", "plan_opponents", "split_entries"]

MAX_OPPONENTS = 20
MAX_ADJUSTMENTS = 60
_ENTRY = re.compile(r"(?P<name>[^()]*?)(?:\s+x(?P<n>[0-9]+))?\s*(?:\((?P<spec>[^()]*)\))?", re.S)
_PROPOSAL_KEYS = ("tier", "health", "defense", "hit", "damage", "initiative")
_DIE_LADDER = (100, 20, 12, 10, 8, 6, 4, 3, 2)


class Refusal(NamedTuple):
    """A start that cannot be played: the reason, and for ``not-played`` its sentence."""

    reason: str
    message: str | None = None


class Opponent(NamedTuple):
    """One opponent to build: its name, its block (health, defense, initiative modifier,
    actions, hide) and, for a creature whose health is dice, those dice."""

    name: str
    block: dict[str, Any]
    health: int
    health_dice: tuple[int, int, int] | None
    initiative_modifier: int
    defense: int
    actions: list[dict[str, Any]]
    saves: dict[str, int]
    signature_points: int = 0


def split_entries(text: str) -> list[str] | None:
    """``enemies`` split on ``,`` outside parentheses; None when they do not pair up."""
    entries: list[str] = []
    depth = 0
    part: list[str] = []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        if ch == "," and depth == 0:
            entries.append("".join(part))
            part = []
        else:
            part.append(ch)
    if depth != 0:
        return None
    entries.append("".join(part))
    return [e.strip() for e in entries]


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _creature(combat: Combat, name: str) -> Creature | None:
    want = _plain(name)
    if not want:
        return None
    for creature in combat.creatures.values():
        if _plain(creature.label) == want or _plain(creature.entry) == want:
            return creature
    return None


def plan_opponents(
    combat: Combat, enemies: str, taken: set[str]
) -> tuple[list[Opponent], list[dict[str, Any]], list[dict[str, Any]]] | Refusal:
    """The opponents of ``enemies``, the ``refused`` events of those left out and the
    adjustments made; or why the start is refused. ``taken`` holds the party's ids."""
    entries = split_entries(enemies)
    if entries is None or not entries:
        return Refusal("malformed")
    opponents: list[Opponent] = []
    refused: list[dict[str, Any]] = []
    adjustments: list[dict[str, Any]] = []
    ids = set(taken)
    for entry in entries:
        match = _ENTRY.fullmatch(entry)
        if match is None:
            return Refusal("malformed")
        base = match.group("name").strip()
        if not 1 <= len(base) <= 60 or not any(ch.isalnum() for ch in base):
            return Refusal("malformed")
        n = int(match.group("n")) if match.group("n") else 1
        if match.group("n") and not 2 <= n <= 12:
            return Refusal("malformed")
        names = [base] if n == 1 else [f"{base} {k}" for k in range(1, n + 1)]
        for name in names:
            ident = combatant_id(name)
            if not ident or ident in ids:
                return Refusal("malformed")
            ids.add(ident)
            if len(opponents) + len(refused) >= MAX_OPPONENTS:
                return Refusal("malformed")
            made = _opponent(combat, name, base, (match.group("spec") or "").strip(), adjustments)
            if isinstance(made, Refusal):
                return made
            if isinstance(made, str):
                refused.append({"type": "refused", "name": name, "reason": made})
            else:
                opponents.append(made)
    if not opponents:
        return Refusal("no-enemies")
    return opponents, refused, adjustments[:MAX_ADJUSTMENTS]


def _note(adjustments: list[dict[str, Any]], name: str, what: str, was: object, to: object) -> None:
    adjustments.append({"opponent": name, "what": what, "from": was, "to": to})


def _lowest(combat: Combat) -> ThreatTier | None:
    return combat.tiers[0] if combat.tiers else None


def _opponent(
    combat: Combat, name: str, base: str, spec: str, adjustments: list[dict[str, Any]]
) -> Opponent | Refusal | str:
    words = spec.split()
    if words and words[0].lower() == "tier" and len(words) == 2 and ";" not in spec:
        tier = combat.tier(words[1])
        if tier is None:
            tier = _lowest(combat)
            _note(adjustments, name, "tier", words[1], tier.id if tier else None)
        return _tier_block(combat, name, tier)
    if spec and _is_proposal(spec):
        return _proposal(combat, name, spec, adjustments)
    creature = None
    if spec:
        creature = _reference(combat, spec)
        if creature is None:
            creature = _creature(combat, base)
            _note(adjustments, name, "creature", spec, creature.label if creature else "tier")
    else:
        creature = _creature(combat, base)
    if creature is not None:
        return _from_creature(combat, name, creature)
    tier = _lowest(combat)
    if spec == "" and tier is not None:
        _note(adjustments, name, "creature", base, f"tier {tier.id}")
    return _tier_block(combat, name, tier)


def _reference(combat: Combat, spec: str) -> Creature | None:
    if "/" in spec:
        catalog, entry = spec.split("/", 1)
        found = combat.creatures.get((catalog.strip(), entry.strip()))
        if found is not None:
            return found
    return _creature(combat, spec)


def _is_proposal(spec: str) -> bool:
    parts = [p.strip() for p in spec.split(";") if p.strip()]
    return bool(parts) and all(p.split()[0].lower() in _PROPOSAL_KEYS for p in parts)


_NOT_PLAYED_SHEET = (
    "The creature {label} is written as a sheet, which fights do not play yet; name a "
    "creature with its own numbers, a tier or a proposal."
)


def _from_creature(combat: Combat, name: str, creature: Creature) -> Opponent | Refusal:
    if creature.sheet is not None:
        return Refusal("not-played", _NOT_PLAYED_SHEET.format(label=creature.label))
    health = creature.health
    dice: tuple[int, int, int] | None = None
    fixed = 0
    if isinstance(health, tuple):
        read = read_dice(health[0])
        dice = (read[0], read[1], read[2] + health[1]) if read else (0, 0, health[1])
    elif isinstance(health, int):
        fixed = health
    block: dict[str, Any] = {
        "catalog": creature.catalog,
        "entry": creature.entry,
        "tier": creature.tier,
        "resist": [{"type": r.type, "except": list(r.unless)} for r in creature.resist],
        "immune": [{"type": r.type, "except": list(r.unless)} for r in creature.immune],
        "vulnerable": list(creature.vulnerable),
        "conditionImmunities": list(creature.condition_immunities),
    }
    if creature.checks:
        block["checks"] = dict(creature.checks)
    if creature.soak_all or creature.soak_by_kind:
        block["soak"] = {"all": creature.soak_all, "byKind": dict(creature.soak_by_kind)}
    return Opponent(
        name,
        block,
        fixed,
        dice,
        creature.initiative_modifier or 0,
        creature.defense or 0,
        block_actions(combat, creature.actions),
        dict(creature.saves),
        creature.signature_points,
    )


def _strike(
    name: str, budget: str, to_hit: int, damage: tuple[int, int, int], kind: str | None
) -> dict[str, Any]:
    return {
        "id": "strike",
        "kind": "block",
        "label": f"{name}: attack",
        "budget": budget,
        "targets": {"side": "enemy", "count": 1},
        "toHit": to_hit,
        "autoHit": False,
        "damage": {"count": damage[0], "sides": damage[1], "flat": damage[2], "type": kind},
    }


def _plain_block(tier_id: str) -> dict[str, Any]:
    return {
        "tier": tier_id,
        "resist": [],
        "immune": [],
        "vulnerable": [],
        "conditionImmunities": [],
    }


def _tier_block(combat: Combat, name: str, tier: ThreatTier | None) -> Opponent | str:
    if tier is None:
        return "unknown-creature"
    lo, hi = tier.damage_per_round
    damage = (0, 0, max(1, (lo + hi) // 2))
    action = _strike(name, combat.main_budget.id, tier.to_hit, damage, None)
    return Opponent(
        name,
        _plain_block(tier.id),
        max(1, (tier.health[0] + tier.health[1]) // 2),
        None,
        0,
        tier.defense,
        [action],
        {},
    )


def _proposal(
    combat: Combat, name: str, spec: str, adjustments: list[dict[str, Any]]
) -> Opponent | Refusal | str:
    pairs: dict[str, str] = {}
    for part in spec.split(";"):
        words = part.strip().split(None, 1)
        if words:
            pairs[words[0].lower()] = words[1].strip() if len(words) > 1 else ""
    tier = combat.tier(pairs.get("tier", "")) if "tier" in pairs else None
    if tier is None:
        tier = _lowest(combat)
        if tier is None:
            return "unknown-creature"
        if "tier" in pairs:
            _note(adjustments, name, "tier", pairs["tier"], tier.id)
    health = _int(pairs.get("health"), max(1, (tier.health[0] + tier.health[1]) // 2))
    defense = _int(pairs.get("defense"), tier.defense)
    to_hit = _int(pairs.get("hit"), tier.to_hit)
    initiative = _int(pairs.get("initiative"), 0)
    lo, hi = tier.damage_per_round
    damage: tuple[int, int, int] = (0, 0, max(1, (lo + hi) // 2))
    kind: str | None = None
    if "damage" in pairs:
        words = pairs["damage"].split()
        read = read_dice(words[0]) if words else None
        if read is None:
            return Refusal("malformed")
        damage = read
        kind = words[1] if len(words) > 1 else None
    clamped = min(tier.health[1], max(tier.health[0], health))
    if clamped != health:
        _note(adjustments, name, "health", health, clamped)
    if defense > tier.defense + 2:
        _note(adjustments, name, "defense", defense, tier.defense + 2)
        defense = tier.defense + 2
    if to_hit > tier.to_hit + 2:
        _note(adjustments, name, "hit", to_hit, tier.to_hit + 2)
        to_hit = tier.to_hit + 2
    known = {t.lower() for t in combat.damage_types}
    if kind is not None and combat.damage_types and kind.lower() not in known:
        _note(adjustments, name, "damage type", kind, "none")
        kind = None
    shaved = _shave(damage, hi)
    if shaved != damage:
        _note(adjustments, name, "damage", _dice_text(damage), _dice_text(shaved))
    action = _strike(name, combat.main_budget.id, to_hit, shaved, kind)
    return Opponent(name, _plain_block(tier.id), clamped, None, initiative, defense, [action], {})


def _int(text: str | None, default: int) -> int:
    if text is None:
        return default
    try:
        return math.floor(float(text.strip()))
    except ValueError:
        return default


def _average(d: tuple[int, int, int]) -> float:
    return d[0] * (d[1] + 1) / 2 + d[2]


def _shave(d: tuple[int, int, int], most: int) -> tuple[int, int, int]:
    """FIGHTS §5.3's shaving of one amount until its average is within ``most``."""
    count, sides, flat = d
    for _ in range(500):
        if _average((count, sides, flat)) <= most:
            break
        if count > 1:
            count -= 1
        elif flat > 0 and (count > 0 or flat > 1):
            flat -= 1
        elif count == 1 and sides > 2:
            lower = [s for s in _DIE_LADDER if s < sides]
            sides = lower[0] if sides in _DIE_LADDER and lower else max(2, sides - 1)
        else:
            break
    return count, sides, flat


def _dice_text(d: tuple[int, int, int]) -> str:
    if d[0] == 0:
        return str(d[2])
    return f"{d[0]}d{d[1]}" + (f"{d[2]:+d}" if d[2] else "")
