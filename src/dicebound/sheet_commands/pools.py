"""Pools: finding one by a written name, and ``spend``, ``restore``, ``damage``, ``temp``.

A written name is tried as a pool's key exactly, then against the declared pools' keys
and labels, then against the list rows' (where two rows of one name in two lists are
ambiguous). docs/design/sheet-commands.md "The live sheet" states the rules.
"""

from __future__ import annotations

from typing import Literal

from dicebound.sheet_commands.current import (
    MAX_NUMBER,
    PoolSpec,
    SheetLayout,
    WorkingSheet,
)
from dicebound.sheet_commands.model import Refused
from dicebound.sheet_commands.reasons import (
    AMBIGUOUS_POOL,
    BAD_AMOUNT,
    INSUFFICIENT,
    NO_TEMP,
    UNKNOWN_POOL,
)

__all__ = ["MAX_AMOUNT", "POOL_OPS", "PoolOp", "find_pool", "pool_command", "pool_now"]

PoolOp = Literal["spend", "restore", "damage", "temp"]
POOL_OPS: tuple[PoolOp, ...] = ("spend", "restore", "damage", "temp")
MAX_AMOUNT = 100_000
"""The most one command moves a pool by (or sets a buffer to)."""


def find_pool(layout: SheetLayout, written: str) -> PoolSpec | Refused:
    """The pool a written name means: a pool whose key is the trimmed name exactly, else
    the first declared pool whose key or label is NAME-EQ, else the one row pool that
    is (two or more: ``ambiguous-pool``). Hidden and zero-maximum pools are not there."""
    wanted = written.strip()
    if not wanted:
        return Refused(UNKNOWN_POOL)
    exact = layout.pool_by_key.get(wanted)
    if exact is not None:
        return exact
    named = layout.pools_named(wanted)
    declared = next((p for p in named if not p.is_row), None)
    if declared is not None:
        return declared
    if len(named) == 1:
        return named[0]
    return Refused(AMBIGUOUS_POOL if named else UNKNOWN_POOL)


def pool_now(pool: PoolSpec, value: int, temp: int) -> str:
    """``31/31 +5 temp``: the value of the maximum, and the buffer when one remains."""
    return f"{value}/{pool.max}" + (f" +{temp} temp" if temp > 0 else "")


def pool_command(
    sheet: WorkingSheet, op: PoolOp, written: str | None, amount: int | None
) -> str | Refused:
    """One pool op on the working sheet, its ``now`` or why it was refused. Checks in
    order: the pool, the amount (1..100,000; ``temp`` 0..100,000), then the op's own."""
    pool = find_pool(sheet.layout, written or "")
    if isinstance(pool, Refused):
        return pool
    lowest = 0 if op == "temp" else 1
    if amount is None or not lowest <= amount <= MAX_AMOUNT:
        return Refused(BAD_AMOUNT)
    value, temp = sheet.pool_reading(pool)
    if op == "temp":
        if not pool.allow_temp:
            return Refused(NO_TEMP)
        temp = min(amount, MAX_NUMBER)  # the buffer is replaced, not added to
    elif op == "spend":
        if value < amount:
            return Refused(INSUFFICIENT)
        value -= amount
    elif op == "restore":
        value = min(pool.max, value + amount)
    else:  # damage: the buffer takes it first, the rest comes off the value
        absorbed = min(temp, amount)
        temp -= absorbed
        value = max(0, value - (amount - absorbed))
    sheet.set_pool(pool, value, temp)
    return pool_now(pool, value, temp)
