"""A check among tags of other families, read off the memo of throws all the same.

A sheet command (or any tag that changes a sheet) makes a new character, so the memo
of prepared checks, keyed by the very characters, would never meet it again. A check
of such a text is looked up with *stand-ins*: for each character, the first one met
with its name, its very build and a live state equal to its own entry for entry and
type for type, which no check can tell from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dicebound.engine import (
    CheckResult,
    PreparedCheck,
    find_roller,
    quick_from_memo,
    remembered_check,
)
from dicebound.errors import TagError
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character, FrozenMap, Live, PoolValue, Wounds
from dicebound.tags.parse import TagMatch
from dicebound.values import replace

__all__ = ["quick_among_others"]

_STAND_INS = "tag pass stand-ins"
_STAND_INS_KEPT = 1024
"""The most characters kept to stand in for equal ones (``_stand_in``) on one ruleset."""


def _live_key(live: Live) -> tuple[object, ...] | None:
    """Every entry of ``live``, member by member and in order, when each is of exactly
    the type a loader or a sheet command writes (whole numbers as ``int``, text as
    ``str``, maps as ``FrozenMap``): two lives with equal keys are then the same in
    every way a reading can tell (no 1 beside 1.0 or True, no order apart). None for
    any other live."""
    if type(live) is not Live or type(live.conditions) is not tuple:
        return None
    members = (live.pools, live.tracks, live.wounds, live.text, live.states)
    if any(type(m) is not FrozenMap for m in members):
        return None
    key: list[object] = [live.conditions]
    for plain, member in zip(_PLAIN, members, strict=True):
        entries = tuple(member.items())
        if not all(type(k) is str and plain(v) for k, v in entries):
            return None
        key.append(entries)
    if not all(type(c) is str for c in live.conditions):
        return None
    return tuple(key)


_PLAIN: tuple[Callable[[Any], bool], ...] = (
    lambda v: type(v) is PoolValue and type(v.value) is int and type(v.temp) is int,
    lambda v: type(v) is int,
    lambda v: (
        type(v) is Wounds
        and type(v.overflow) is int
        and type(v.marks) is tuple
        and all(type(m) is str for m in v.marks)
    ),
    lambda v: type(v) is str,
    lambda v: type(v) is str,
)
"""Whether an entry of pools, tracks, wounds, text and states (in that order) is of
exactly the type a loader or a command writes."""


def _kept_stand_in(ruleset: Ruleset, key: tuple[object, ...], character: Character) -> Character:
    """The character kept under ``key`` on ``ruleset.memo`` (``character`` when none
    is yet), at most ``_STAND_INS_KEPT`` of them. Each holds its build, so the id of a
    build in a key stays that build's."""
    kept: dict[tuple[object, ...], Character] | None = ruleset.memo.get(_STAND_INS)
    if kept is None:
        kept = ruleset.memo[_STAND_INS] = {}
    found = kept.get(key)
    if found is not None:
        return found
    if len(kept) >= _STAND_INS_KEPT:
        kept.clear()
    kept[key] = character
    return character


def _stand_in(ruleset: Ruleset, character: Character) -> Character | None:
    """The character that stands for ``character`` in the memo of prepared checks: the
    first one met with its name, its very build and a live state equal to its own
    entry for entry and type for type (``_live_key``), which no check can tell from it;
    None when its state has no such key."""
    live_key = _live_key(character.live)
    if live_key is None:
        return None
    return _kept_stand_in(ruleset, (character.name, id(character.build), live_key), character)


def quick_among_others(
    ruleset: Ruleset,
    members: Sequence[Character],
    match: TagMatch,
    ladder: Sequence[LadderStep],
    seed: str,
    met: dict[int, tuple[Character, Character | None]],
) -> tuple[CheckResult, str] | PreparedCheck | None:
    """``quick_check`` for a seeded check of a text that holds tags of other families, the party
    as the tags before it left it. A sheet command makes a new character, so the memo of
    prepared checks (keyed by the very characters) would never meet it again. So the
    party is looked up as what a prepared check reads of it: the roller's stand-in
    (``_stand_in``), whose check reads exactly as the roller's, and of every other
    member only the name (``prepare_check`` finds the roller by the names alone), each
    name held by one character kept for it. The result names the roller itself.
    ``met`` keeps each roller's stand-in for the rest of the text.

    A check not remembered per throw comes back prepared for the roller, for the long
    way to throw without preparing it again; a tag that does not resolve raises the
    long way's error. None (the long way) when the roller is not found (the long way
    says why, in its own order) or has no stand-in."""
    try:
        roller = find_roller(members, match.get("who"))
    except TagError:
        return None
    seen = met.get(id(roller))
    if seen is None or seen[0] is not roller:
        seen = met[id(roller)] = (roller, _stand_in(ruleset, roller))
    stand_in = seen[1]
    if stand_in is None:
        return None
    standing = [
        stand_in if member is roller else _kept_stand_in(ruleset, (member.name,), member)
        for member in members
    ]
    remembered = remembered_check(ruleset, standing, match, ladder)  # raises as prepare_check
    quick = quick_from_memo(ruleset, remembered, match, seed)
    if quick is None:
        return replace(remembered.prepared, who=roller)
    result, tag = quick
    if result.roller is not roller:  # it is the stand-in
        result = result._replace(roller=roller)
    return result, tag
