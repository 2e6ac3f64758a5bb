"""The application's typed results as JSON values: what the edges answer, and what an
event of a game's stream carries, written by one function so the two read alike."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from dicebound.store.models import stamp
from dicebound.values import fields

__all__ = ["plain", "plain_json"]


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


def _unfold(value: Any) -> Any:
    """One level of ``plain`` for what JSON cannot write itself: the encoder walks the
    rest (dicts, lists, tuples and scalars) in C."""
    if isinstance(value, datetime):
        return stamp(value)
    if hasattr(type(value), "__value_fields__"):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    raise TypeError(f"{type(value).__name__} is not a value the application answers")


_ENCODE = json.JSONEncoder(separators=(",", ":"), default=_unfold).encode


def plain_json(value: Any) -> str:
    """``dumps(plain(value))``, the text the store keeps, without building ``plain``'s
    copy first: an event is written once per record, so its cost is per command."""
    encoded: str = _ENCODE(value)
    return encoded
