"""The application's typed results as JSON values: what the edges answer, and what an
event of a game's stream carries, written by one function so the two read alike."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dicebound.store.models import stamp
from dicebound.values import fields

__all__ = ["plain"]


def plain(value: Any) -> Any:
    """A typed result of the application as JSON values: a value class as an object of
    its fields, in their order; a tuple as a list; a time as the store writes it."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, datetime):
        return stamp(value)
    if hasattr(type(value), "__value_fields__"):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    return value
