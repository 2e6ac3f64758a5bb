"""Spending to change a roll: ``resolution.spend``, bought on the check itself.

The Game Master writes ``spend="resolve:2"`` on the check: two points of the pool named
(by id or label, any case) are offered to the ``resolution.spend`` entry for that pool.
Every ``amount`` points buy one purchase, at most ``perCheck`` purchases a check; what
one purchase buys is the entry's ``successes``, ``dice`` and ``reroll`` (the re-throw
bought once however many purchases are made).

All or nothing, as the page says: points that are not a whole number of purchases buy
nothing; more than ``perCheck`` is clamped and only the cap is paid; a pool that cannot
cover what is paid buys nothing and pays nothing. The dice-pool kind (and later the
kinds that buy only dice) reads a ``Purchase`` and pays its points after the throw.

Readings where the documents are silent:

- ``spend=`` that names no pool, no entry's pool, or no whole positive number of points
  is ignored, like any attribute the ruleset does not offer: the roll is the one it
  would have been and the record shows no ``spend``.
- A ``perCheck`` value off the sheet is read for whoever rolls, rounded down and held to
  0..100 (the page); ``"pool"`` is the sheet's number for the check, never below 0.
- ``committed`` lets a caller that already owes points on the same pool (a charm used
  on the same check) make sure the two purchases together fit in the pool.

Pure: it reads a ``SheetView`` and returns values; nothing is paid here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from dicebound.problem_codes import DUPLICATE_POOL, POOL_STARTS_EMPTY, SPEND_DICE_ONLY
from dicebound.problems import Path, Problem, unknown_id
from dicebound.ruleset.model import Sheet, ValueRef
from dicebound.ruleset.refs import VALUE_REF, sheet_ref
from dicebound.ruleset.spec import Arr, Const, Custom, Enum, Id, Int, Node, Obj, OneOf, is_int
from dicebound.sheet import SheetView
from dicebound.tags.names import normalize
from dicebound.values import frozen

__all__ = [
    "PER_CHECK_LIMIT",
    "Purchase",
    "Reroll",
    "RerollMode",
    "Spend",
    "SpendAsk",
    "buy",
    "find_pool",
    "parse_spend",
    "per_check_limit",
]

RerollMode = Literal["once", "until"]

PER_CHECK_LIMIT = 100
"""A ``perCheck`` read off the sheet is held to 0..100 (the page)."""


@frozen
class Reroll:
    """A re-throw: faces at or below ``up_to`` are thrown again, once or until they show
    more. ``id`` names a standing re-throw (None for one a spend or an entry buys)."""

    up_to: int
    mode: RerollMode
    id: str | None = None


@frozen
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


@frozen
class SpendAsk:
    """What ``spend="pool:N"`` asks: a pool as written (id or label) and N points."""

    pool: str
    points: int


@frozen
class Purchase:
    """What a spend bought on one check: ``purchases`` times the entry's effect, for
    ``paid`` points of live pool ``pool``. The re-throw is bought once."""

    pool: str
    purchases: int
    paid: int
    successes: int = 0
    dice: int = 0
    reroll: Reroll | None = None


_SPEND = re.compile(r"\s*(?P<pool>[^:]*?)\s*:\s*\+?(?P<points>\d{1,9})(?:\.0*)?\s*")


def parse_spend(text: str | None) -> SpendAsk | None:
    """Read ``"resolve:2"`` (spaces and a ``+`` allowed); None when it is not a pool name
    and a whole number of at least 1."""
    if text is None:
        return None
    match = _SPEND.fullmatch(text)
    if match is None or not match.group("pool"):
        return None
    points = int(match.group("points"))
    return SpendAsk(match.group("pool"), points) if points >= 1 else None


def find_pool(view: SheetView, name: str) -> str | None:
    """The key of the pool a name answers to: a declared live pool by id or label, else a
    list row's pool by key or name, any case; None when none or several answer."""
    wanted = normalize(name)
    declared = [
        p.id for p in view.ruleset.sheet.pools if wanted in (normalize(p.id), normalize(p.label))
    ]
    if declared:
        return declared[0] if len(declared) == 1 else None
    rows = [p.key for p in view.row_pools() if wanted in (normalize(p.key), normalize(p.label))]
    return rows[0] if len(rows) == 1 else None


def per_check_limit(rule: Spend, view: SheetView, sheet_number: int) -> int:
    """How many purchases one check may make under ``rule``: its number; a value off the
    roller's sheet rounded down and held to 0..100; or ``"pool"``, the sheet's number for
    the check (before wounds, bonus dice or modifiers), never below 0."""
    limit = rule.per_check
    if limit == "pool":
        return max(0, sheet_number)
    if isinstance(limit, ValueRef):
        return max(0, min(PER_CHECK_LIMIT, math.floor(view.value(limit))))
    return limit


def buy(
    rules: Sequence[Spend],
    ask: SpendAsk | None,
    view: SheetView,
    *,
    sheet_number: int,
    committed: Mapping[str, int] | None = None,
) -> Purchase | None:
    """What ``spend=`` buys on one check under the ruleset's ``spend`` entries, or None
    when it buys nothing (and so pays nothing).

    Points that are not a whole number of purchases buy nothing; more purchases than the
    check's limit are clamped to it and only those are paid; a pool that cannot cover the
    payment (beside what ``committed`` already owes on it) buys nothing.
    """
    if ask is None or not rules:
        return None
    pool = find_pool(view, ask.pool)
    rule = next((r for r in rules if r.pool == pool), None)
    if pool is None or rule is None or ask.points % rule.amount:
        return None
    purchases = min(ask.points // rule.amount, per_check_limit(rule, view, sheet_number))
    if purchases < 1:
        return None
    paid = purchases * rule.amount
    owed = (committed or {}).get(pool, 0)
    if view.pool_value(pool) - owed < paid:
        return None
    return Purchase(
        pool=pool,
        purchases=purchases,
        paid=paid,
        successes=rule.successes * purchases,
        dice=rule.dice * purchases,
        reroll=rule.reroll,
    )


def compile_spends(
    entries: Sequence[Mapping[str, Any]],
    at: Path,
    sheet: Sheet,
    problems: list[Problem],
    check_reroll: Callable[[int, Path], object] | None = None,
) -> tuple[Spend, ...]:
    """Read a structurally valid ``resolution.spend``: each pool a live pool that starts
    full (the page: an empty one would have nothing to spend when play begins), and no
    two entries on one pool (a check could not say which it meant). ``check_reroll``
    checks a bought re-throw's ``upTo`` against the kind's die."""
    out: list[Spend] = []
    pools = {p.id: p for p in sheet.pools}
    first_entry: dict[str, int] = {}
    for i, raw in enumerate(entries):
        here = (*at, "spend", i)
        name = str(raw["pool"])
        pool = pools.get(name)
        if pool is None:
            problems.append(
                unknown_id((*here, "pool"), name, "a live pool", list(pools), of="this sheet")
            )
        elif pool.start == "empty":
            problems.append(
                Problem(
                    (*here, "pool"),
                    POOL_STARTS_EMPTY,
                    f'"{name}" starts empty, so there would be nothing in it to spend when '
                    "play begins; name a pool that starts full.",
                )
            )
        if name in first_entry:
            problems.append(
                Problem(
                    (*here, "pool"),
                    DUPLICATE_POOL,
                    f'"{name}" is already spent by entry {first_entry[name]}; two entries '
                    "may not name the same pool, or a check could not say which it meant.",
                )
            )
        else:
            first_entry[name] = i
        per_raw = raw["perCheck"]
        per_check: int | ValueRef | Literal["pool"] | None
        if isinstance(per_raw, dict):
            per_check, found = sheet_ref(per_raw, (*here, "perCheck"), sheet)
            problems.extend(found)
        elif per_raw == "pool":
            per_check = "pool"
        else:
            per_check = int(per_raw)
        reroll: Reroll | None = None
        if "reroll" in raw:
            rr = raw["reroll"]
            reroll = Reroll(int(rr["upTo"]), rr["mode"])
            if check_reroll is not None:
                check_reroll(reroll.up_to, (*here, "reroll", "upTo"))
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


# -- the shape of resolution.spend, for every kind that may declare it ------------------


def _pick_per_check(value: object) -> str | None:
    if is_int(value):
        return "number"
    if isinstance(value, dict):
        return "ref"
    if isinstance(value, str):
        return "pool"
    return None


def _buys_dice_only(kind: str, name: str) -> Custom:
    """A purchase the kind cannot honour (the page: dice-highest and symbol-pool buy
    only dice), refused wherever it is written."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(
            path,
            SPEND_DICE_ONLY,
            f'a {kind} spend buys dice only, so it cannot buy "{name}"; give "dice".',
        )

    return Custom(check, {"not": {}})


def spend_node(kind: str, *, dice_only: bool) -> Node:
    """``resolution.spend``: up to four entries. A dice-pool buys successes, dice or a
    re-throw; ``dice_only`` kinds (dice-highest, symbol-pool) buy dice only."""
    props: dict[str, Node] = {
        "pool": Id(),
        "amount": Int(1, 100),
        "perCheck": OneOf(
            {"number": Int(1, 10), "ref": VALUE_REF, "pool": Const("pool")},
            _pick_per_check,
            wanted='a whole number from 1 to 10, a value reference or "pool"',
        ),
        "dice": Int(1, 10),
    }
    if dice_only:
        props["successes"] = _buys_dice_only(kind, "successes")
        props["reroll"] = _buys_dice_only(kind, "reroll")
        entry = Obj(props, required=("pool", "amount", "perCheck", "dice"))
    else:
        props["successes"] = Int(1, 10)
        props["reroll"] = Obj(
            {"upTo": Int(1, 999), "mode": Enum(("once", "until"))}, required=("upTo", "mode")
        )
        entry = Obj(
            props,
            required=("pool", "amount", "perCheck"),
            at_least_one=("successes", "dice", "reroll"),
        )
    return Arr(entry, hi=4, noun="spend entry")
