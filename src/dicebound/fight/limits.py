"""Spend limits (FIGHTS §2.1 ``spendLimits``, §6.2, §7.2 3, §10.2): how much of a pool a
party member may spend in a turn or a round of a fight. The maximum is read once at the
start (``half-up``), kept on the combatant as ``limits {pool: {max, per, spent}}``; a
price that would pass it does not plan (the option is not offered, a choice of it is
``insufficient``); what a price spends is counted; the count goes back to 0 at the
owner's turn start (``turn``) or when the round turns (``round``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["count_spent", "refill_limits", "within_limits"]


def _spends(price: Iterable[Any]) -> dict[str, int]:
    """What a price takes from each pool (parts carry ``pool`` and ``amount``)."""
    taken: dict[str, int] = {}
    for part in price:
        taken[part.pool] = taken.get(part.pool, 0) + int(part.amount)
    return taken


def within_limits(c: Mapping[str, Any], price: Iterable[Any]) -> bool:
    """Whether every limited pool the price spends stays within its limit."""
    limits = c.get("limits") or {}
    for pool, amount in _spends(price).items():
        limit = limits.get(pool)
        if limit is not None and limit["spent"] + amount > limit["max"]:
            return False
    return True


def count_spent(c: dict[str, Any], price: Iterable[Any]) -> None:
    """What a paid price spent, added to each limited pool's count."""
    limits = c.get("limits") or {}
    for pool, amount in _spends(price).items():
        if pool in limits:
            limits[pool]["spent"] += amount


def refill_limits(c: dict[str, Any], per: str) -> None:
    """The counts of the limits of one period (``turn`` or ``round``) back to 0."""
    for limit in (c.get("limits") or {}).values():
        if limit["per"] == per:
            limit["spent"] = 0
