"""The record keys each kind writes, declared as plain data.

``dicebound.record`` orders every record by these. It sits below the kinds (their hooks
read a record), so it spells the same order out (``record.KIND_KEYS``) rather than
import it, and tests/test_record.py holds the two together: a kind that writes a new
key declares it here and the record's order follows.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["RECORD_KEYS", "RecordKeys"]


class RecordKeys(NamedTuple):
    """The record attributes one kind alone writes."""

    writes: tuple[str, ...]
    """Its own attributes, in the order the record writes them, after the band's
    ``outcome`` and before the band's ``choice``."""
    after_choice: tuple[str, ...] = ()
    """Its own attributes written after the band's ``choice``: a spend after the roll,
    which is made once the choice is read."""


RECORD_KEYS: dict[str, RecordKeys] = {
    # In the order the record writes the kinds' attributes (docs/design/format.md "The
    # record"), not the registry's: a record's bytes depend on it.
    "dice-highest": RecordKeys(
        writes=("highest", "zeroDice", "dark", "darkHighest", "darkOutcome"),
    ),
    "dice-sum": RecordKeys(writes=("unmodified",)),
    "roll-against": RecordKeys(writes=("against",)),
    "dice-pool": RecordKeys(writes=("exact",)),
    "symbol-pool": RecordKeys(
        writes=("symbols", "thrown", "symbolDetails", "upgrade", "setback", "upgradeOwn"),
    ),
    "step-pool": RecordKeys(
        writes=("quality", "tool", "effort", "raises", "offer"),
        after_choice=("after",),
    ),
}
"""Each built kind's own record attributes, by kind name."""
