"""Ability rows (FIGHTS §6.1): what a party member's picked catalog rows (spells,
knacks, charms) do in a fight, every number read once at the start, and their price.

A row's action carries the entry's mechanics resolved against the sheet: its to-hit
(only with ``attackRoll``), its save and difficulty from the abilities source, its
amount grown by ``scales``, its clauses, conditions, temporary points, concentration
and the budgets it gives. Its price is the sheet's own ``use`` of the entry (cost
terms, then one use of every counter row the entry made), planned on a working copy
of the live sheet whenever the menu is read and paid through ``spend`` commands when
the row is chosen, so each part is a sheet change recorded like any other.

An upcast (``pay``) names a higher pool of the single cost term's family; each place
up adds the entry's ``perCostStep`` once to the first amount (its dice thrown after
the base dice). Reactions and bare standard permissions are kept with ``notPlayed``:
they answer in windows, or grant options, that fights do not open yet.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dicebound.fight.amounts import amount_of, applied_of, clause_of
from dicebound.fight.context import Step
from dicebound.fight.limits import count_spent
from dicebound.ruleset.combat import AbilitySource, Amount, Combat, FightMechanics
from dicebound.ruleset.model import CatalogEntry, Ruleset
from dicebound.ruleset.reference import ValueRef
from dicebound.sheet import Character, SheetView
from dicebound.sheet_arithmetic import step_table
from dicebound.sheet_commands.apply import apply_request
from dicebound.sheet_commands.current import WorkingSheet, name_eq
from dicebound.sheet_commands.model import Applied, Refused, SheetRequest
from dicebound.sheet_commands.use import PriceStep, price_of

__all__ = [
    "REACTION_NOT_PLAYED",
    "STANDARD_NOT_PLAYED",
    "WINDOW_MOMENTS",
    "ability_rows",
    "give",
    "pay_row",
    "pay_with",
    "plan_price",
    "priced",
    "resolve_pay",
    "upcast",
]

WINDOW_MOMENTS = ("hit",)
"""The moments a reaction row is answered at in a window (FIGHTS §9.2); a reaction at
another moment (aimed, used, harmed) or one that cancels is kept refused in words."""

REACTION_NOT_PLAYED = (
    'The ability "{label}" is a reaction to a moment fights do not open a window for yet '
    "(they open one when an attack hits); choose another action, a standard action or "
    "End turn."
)
STANDARD_NOT_PLAYED = (
    'The ability "{label}" only lets standard actions be taken on another budget, which '
    "fights do not offer yet; choose another action, a standard action or End turn."
)


def _half_up(x: Fraction) -> int:
    return math.floor(x + Fraction(1, 2))


def _adjust(view: SheetView, ref: ValueRef) -> int:
    """What ``resolution.adjust`` adds to a roll made with the ability or skill the
    reference reads (0 for any other reference)."""
    sheet = view.ruleset.sheet
    name = ref.name or ""
    if sheet.ability(name) is not None or any(s.id == name for s in sheet.skills):
        return view.adjust_for((name,))
    return 0


def _kept(source: AbilitySource, cells: Mapping[str, object]) -> bool:
    always = source.always_when
    if always is not None and cells.get(always[0]) == always[1]:
        return True
    return source.only_when is None or cells.get(source.only_when) is True


def ability_rows(ruleset: Ruleset, combat: Combat, view: SheetView) -> list[dict[str, Any]]:
    """The ability rows of one sheet, sources in order, rows in order (FIGHTS §6.1)."""
    rows: list[dict[str, Any]] = []
    for i, source in enumerate(combat.abilities):
        taken: set[str] = set()
        for r, row in enumerate(view.list_rows(source.list)):
            mark = row.catalog
            if mark is None or mark in taken or "/" not in mark:
                continue
            taken.add(mark)
            catalog, entry = mark.split("/", 1)
            mechanics = combat.mechanics.get((catalog, entry))
            if mechanics is None or not _kept(source, row.cells):
                continue
            if mechanics.plain_reaction or mechanics.rider is not None:
                continue
            cancels = mechanics.reaction is not None and mechanics.reaction.cancels
            if mechanics.kind == "utility" and not (
                mechanics.gives or mechanics.standard or cancels
            ):
                continue
            name = next((str(v) for v in row.cells.values() if isinstance(v, str) and v), entry)
            action = _row(view, source, mechanics, name.strip())
            action |= {"id": f"ability:{i}:{r}", "catalog": catalog, "entry": mark}
            rows.append(action)
    return rows


def _row(view: SheetView, source: AbilitySource, m: FightMechanics, label: str) -> dict[str, Any]:
    """One row's action: every number of the mechanics resolved on the sheet."""
    utility = m.kind == "utility"
    side = m.targets or ("ally" if m.kind in ("heal", "buff") else "enemy")
    action: dict[str, Any] = {
        "kind": "ability",
        "label": label,
        "budget": None if m.free else (m.budget or source.budget),
        "targets": {"side": "self", "count": 0}
        if utility
        else {"side": side, "count": max(1, m.target_count)},
    }
    difficulty = None
    if source.save_difficulty is not None:
        difficulty = _half_up(view.value(source.save_difficulty))
    if m.amount is not None:
        amount = amount_of(m.amount, m.damage_type)
        if amount["count"] and m.scales_from is not None:
            grown = step_table(m.scales_table, view.value(m.scales_from))
            amount["count"] += max(0, math.trunc(grown))
        if m.kind == "heal":
            action["heal"] = {k: amount[k] for k in ("count", "sides", "flat")}
        else:
            action["damage"] = amount
    if m.plus:
        action["plus"] = [clause_of(p, difficulty) for p in m.plus]
    if m.attack_roll:
        to_hit = source.to_hit
        action["toHit"] = (
            0 if to_hit is None else _half_up(view.value(to_hit)) + _adjust(view, to_hit)
        )
    if m.auto_hit:
        action["autoHit"] = True
    if m.save is not None:
        action["save"] = {
            "save": m.save.save,
            "onSuccess": m.save.on_success,
            "difficulty": difficulty or 0,
        }
    if difficulty is not None and m.applies:
        action["saveDifficulty"] = difficulty
    if m.applies:
        action["applies"] = [applied_of(x) for x in m.applies]
    if m.temporary is not None:
        temporary = amount_of(m.temporary, None)
        action["temporary"] = {k: temporary[k] for k in ("count", "sides", "flat")}
    if m.concentration:
        action["concentration"] = True
    if m.gives:
        action["gives"] = [{"budget": b, "count": n} for b, n in m.gives]
    if m.reaction is not None and m.reaction.on in WINDOW_MOMENTS and not m.reaction.cancels:
        action["reaction"] = {"on": m.reaction.on, "at": m.reaction.at}
    elif m.reaction is not None:
        action["notPlayed"] = REACTION_NOT_PLAYED.format(label=label)
    elif utility and not m.gives:
        action["notPlayed"] = STANDARD_NOT_PLAYED.format(label=label)
    return action


def _entry(ruleset: Ruleset, mark: str) -> CatalogEntry | None:
    catalog, ident = mark.split("/", 1)
    for c in ruleset.catalogs:
        if c.id == catalog:
            return next((e for e in c.entries if e.id == ident), None)
    return None


def plan_price(
    ruleset: Ruleset, member: Character, action: Mapping[str, Any], pay: str | None = None
) -> tuple[PriceStep, ...] | None:
    """The row's price (paid from ``pay`` when given) when every spend of it would be
    taken on the live sheet as it stands; None when it would not."""
    entry = _entry(ruleset, str(action["entry"]))
    if entry is None:
        return None
    price = price_of(WorkingSheet(ruleset, member), str(action["entry"]), entry, pay)
    if isinstance(price, Refused):
        return None
    current = member
    for part in price:
        spent = apply_request(
            ruleset,
            current,
            SheetRequest(op="spend", who=member.name, pool=part.pool, amount=part.amount),
        )
        if not isinstance(spent, Applied):
            return None
        current = spent.character
    return price


def _family(ruleset: Ruleset, entry: CatalogEntry) -> tuple[str, ...]:
    """The pools of the single cost term's family, in declaration order (empty when the
    entry has no single cost term, or its pool is in no group)."""
    if len(entry.cost) != 1:
        return ()
    term = entry.cost[0].pool
    declared = next((p for p in ruleset.sheet.pools if p.id == term), None)
    group = declared.group if declared is not None else term
    return tuple(p.id for p in ruleset.sheet.pools if group is not None and p.group == group)


def pay_with(
    ruleset: Ruleset, member: Character, action: Mapping[str, Any]
) -> tuple[tuple[str, str], ...]:
    """``(pool id, label)`` of every higher pool of the family that could pay the row
    now, in declaration order (FIGHTS §6.2 ``payWith``)."""
    entry = _entry(ruleset, str(action["entry"]))
    base = plan_price(ruleset, member, action)
    if entry is None or not base:
        return ()
    family = _family(ruleset, entry)
    own = base[0].pool
    if own not in family:
        return ()
    sheet = WorkingSheet(ruleset, member)
    found: list[tuple[str, str]] = []
    for pool in family[family.index(own) + 1 :]:
        spec = sheet.layout.pool_by_key.get(pool)
        if spec is None or spec.is_row:
            continue
        if sheet.pool_value(spec) >= entry.cost[0].amount:
            found.append((spec.key, spec.label))
    return tuple(found)


def resolve_pay(
    ruleset: Ruleset, member: Character, action: Mapping[str, Any], written: str
) -> str | None:
    """The ``payWith`` pool a written ``pay`` names (its id or label), else None."""
    for pool, label in pay_with(ruleset, member, action):
        if pool == written.strip() or name_eq(pool, written) or name_eq(label, written):
            return pool
    return None


def upcast(
    ruleset: Ruleset, member: Character, action: Mapping[str, Any], pay: str
) -> dict[str, Any]:
    """The action paid from ``pay``: the entry's ``perCostStep`` added once per place
    ``pay`` stands above the cost's own pool, to the first amount (damage, else heal),
    its dice as dice of their own thrown after the base dice."""
    entry = _entry(ruleset, str(action["entry"]))
    base = plan_price(ruleset, member, action)
    made = dict(action)
    if entry is None or not base or entry.per_cost_step is None:
        return made
    family = _family(ruleset, entry)
    steps = family.index(pay) - family.index(base[0].pool)
    extra = amount_of(_per_step(entry.per_cost_step), None)
    key = "damage" if made.get("damage") is not None else "heal"
    if steps <= 0 or made.get(key) is None:
        return made
    first = dict(made[key])
    first["flat"] += extra["flat"] * steps
    if extra["count"]:
        first["upcast"] = {"count": extra["count"] * steps, "sides": extra["sides"]}
    made[key] = first
    return made


def _per_step(raw: Mapping[str, Any]) -> Amount:
    return Amount(dice=raw.get("dice"), flat=int(raw.get("flat", 0)))


def priced(
    step: Step, c: dict[str, Any], option: Mapping[str, Any]
) -> tuple[PriceStep, ...] | None:
    """The chosen row's price (from its ``pay`` pool when one was given), or None when
    the sheet cannot pay it now."""
    return plan_price(step.ruleset, step.member(c), option, option.get("pay"))


def pay_row(step: Step, c: dict[str, Any], option: dict[str, Any]) -> dict[str, Any]:
    """FIGHTS §7.2 3: the row's price spent through the sheet, part by part (a
    ``spend`` event each), and counted against the spend limits; the action as it
    resolves (upcast when paid higher)."""
    price = priced(step, c, option)
    assert price is not None  # the choice was checked against the same sheet
    count_spent(c, price)
    pay = option.get("pay")
    made = option if pay is None else upcast(step.ruleset, step.member(c), option, pay)
    for part in price:
        step.write(
            c,
            SheetRequest(op="spend", who=c["character"], pool=part.pool, amount=part.amount),
        )
        step.events.append(
            {
                "type": "spend",
                "actorId": c["id"],
                "actor": c["name"],
                "pool": part.pool,
                "label": part.label,
                "amount": part.amount,
            }
        )
    return made


def give(step: Step, c: dict[str, Any], option: Mapping[str, Any]) -> None:
    """FIGHTS §7.3: each budget the action gives becomes ``min(left + count, declared
    count + count)`` (a ``gives`` event each)."""
    for given in option["gives"]:
        declared = step.combat.budget(given["budget"])
        if declared is None:
            continue
        ident, count = declared.id, int(given["count"])
        c["budgets"][ident] = min(c["budgets"].get(ident, 0) + count, declared.count + count)
        step.events.append(
            {"type": "gives", "actorId": c["id"], "budget": ident, "left": c["budgets"][ident]}
        )
