"""What a resolved check says about an attribute value its ruleset does not know.

Marinara reads a value outside an attribute's closed set (``mode="sideways"``, a
``reroll=`` no entry answers to) by ignoring it, and the Ruleset Checks page says so;
dicebound keeps that reading, so a Marinara text still rolls, and says it: each such
value is a note on the check's result, one sentence naming the values there are and
what was done instead (docs/design/readings.md "Values a ruleset does not know"). Pure:
it reads the prepared check and the tag, and decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from dicebound.tags.names import normalize, step_named

if TYPE_CHECKING:
    from dicebound.ruleset.model import LadderStep, Ruleset
    from dicebound.sheet import SheetView

# A kind's config and the charms are imported where a note reads them: a tag that asks
# none of these attributes (most) loads nothing more.

__all__ = ["CLOSED_ATTRIBUTES", "value_notes"]

MODES = ("normal", "advantage", "disadvantage")


class _Ask:
    """What the notes read of one check: the ruleset, the config in force, the ladder,
    the roller's sheet and whether ``with=`` found its ability."""

    __slots__ = ("config", "ladder", "ruleset", "view", "with_found")

    def __init__(
        self,
        ruleset: Ruleset,
        config: object,
        ladder: Sequence[LadderStep],
        view: SheetView,
        with_found: bool,
    ) -> None:
        self.ruleset, self.config, self.ladder = ruleset, config, ladder
        self.view, self.with_found = view, with_found


def _listed(values: Sequence[str]) -> str:
    shown = [f'"{v}"' for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _mode(ask: _Ask, value: str) -> str | None:
    from dicebound.kinds.dice_sum.model import SumConfig

    wanted = value.strip().lower()
    advantage = isinstance(ask.config, SumConfig) and ask.config.advantage
    if wanted in ("", "normal") or (advantage and wanted in MODES):
        return None
    if wanted in MODES:
        return f'mode="{value}" was rolled normal: this ruleset rolls no advantage.'
    known = MODES if advantage else MODES[:1]
    return f'mode="{value}" is not a mode ({_listed(known)}), so it was rolled normal.'


def _with(ask: _Ask, value: str) -> str | None:
    if ask.with_found:
        return None
    abilities = [a.label for a in ask.ruleset.sheet.abilities]
    return (
        f'with="{value}" names no ability ({_listed(abilities)}), so the check kept its own.'
        if abilities
        else f'with="{value}" was ignored: this ruleset has no abilities.'
    )


def _difficulty(ask: _Ask, value: str) -> str | None:
    if step_named(ask.ruleset, ask.ladder, value) is not None:
        return None
    steps = [s.label for s in ask.ladder]
    if not steps:
        return f'difficulty="{value}" was ignored: this game has no difficulty ladder.'
    return f'difficulty="{value}" names no single step ({_listed(steps)}), so it was ignored.'


def _reroll(ask: _Ask, value: str) -> str | None:
    from dicebound.kinds.dice_pool.model import PoolConfig

    if not isinstance(ask.config, PoolConfig):
        return None
    ids = [r.id for r in ask.config.rerolls if r.id is not None]
    if any(normalize(i) == normalize(value) for i in ids):
        return None
    if not ids:
        return f'reroll="{value}" was ignored: this ruleset names no re-throw.'
    return f'reroll="{value}" names no re-throw ({_listed(ids)}), so none was thrown.'


def _use(ask: _Ask, value: str) -> str | None:
    from dicebound.charms import find_entry
    from dicebound.kinds.dice_pool.model import PoolConfig

    if not isinstance(ask.config, PoolConfig) or find_entry(ask.view, value) is not None:
        return None
    return f'use="{value}" names nothing {ask.view.character.name} picked, so nothing was used.'


CLOSED_ATTRIBUTES: Mapping[str, Callable[[_Ask, str], str | None]] = {
    "mode": _mode,
    "advantage": lambda ask, _: _mode(ask, "advantage"),
    "disadvantage": lambda ask, _: _mode(ask, "disadvantage"),
    "with": _with,
    "difficulty": _difficulty,
    "reroll": _reroll,
    "use": _use,
}
"""Each attribute whose value is one of a closed set the ruleset (or the roller) knows,
and what it says of a value outside it (None: the value is known)."""


def value_notes(
    ruleset: Ruleset,
    config: object,
    ladder: Sequence[LadderStep],
    view: SheetView,
    attrs: Mapping[str, str],
    with_found: bool,
) -> tuple[str, ...]:
    """One sentence per attribute of ``attrs`` whose value its closed set lacks, in the
    order of ``CLOSED_ATTRIBUTES``; empty when every value is known."""
    if attrs.keys().isdisjoint(CLOSED_ATTRIBUTES):
        return ()
    ask = _Ask(ruleset, config, ladder, view, with_found)
    notes = (note(ask, attrs[key]) for key, note in CLOSED_ATTRIBUTES.items() if key in attrs)
    return tuple(dict.fromkeys(n for n in notes if n is not None))  # a flag beside mode=
