"""Matching the names a Game Master writes to what a ruleset declares.

Models write "Stealth", "stealth check", "Strength save", "DEX saving throw" or an id
("sleight_of_hand"). A name is normalized (case, punctuation, underscores folded to
single spaces) and compared with every id, label and short name; when nothing answers,
a trailing "check", "skill check", "ability check", "save" or "saving throw" is taken
off and the rest tried again, a "save" suffix on an ability picking that ability's save.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from dicebound.folding import normalize
from dicebound.problems import did_you_mean
from dicebound.ruleset.model import Ruleset
from dicebound.values import frozen

__all__ = ["CheckTarget", "match_name", "normalize", "resolve_target"]

Group = Literal["skill", "save", "ability"]

_SAVE_SUFFIXES = ("saving throw", "save")
_CHECK_SUFFIXES = ("ability check", "skill check", "check", "roll", "test")


@frozen
class CheckTarget:
    """What a check rolls: a skill, a save, or a raw ability check."""

    group: Group
    id: str
    label: str


def _candidates(ruleset: Ruleset) -> list[tuple[CheckTarget, tuple[str, ...]]]:
    sheet = ruleset.sheet
    out: list[tuple[CheckTarget, tuple[str, ...]]] = []
    for skill in sheet.skills:
        out.append((CheckTarget("skill", skill.id, skill.label), (skill.id, skill.label)))
    for save in sheet.saves:
        out.append((CheckTarget("save", save.id, save.label), (save.id, save.label)))
    for ability in sheet.abilities:
        names = (ability.id, ability.label) + ((ability.short,) if ability.short else ())
        out.append((CheckTarget("ability", ability.id, ability.label), names))
    return out


def _index(ruleset: Ruleset) -> dict[str, list[CheckTarget]]:
    """Every normalized name of every check target, made once per ruleset."""
    index: dict[str, list[CheckTarget]] | None = ruleset.memo.get("names")
    if index is None:
        index = {}
        for target, names in _candidates(ruleset):
            for name in dict.fromkeys(normalize(n) for n in names):
                index.setdefault(name, []).append(target)
        ruleset.memo["names"] = index
    return index


def _exact(wanted: str, index: dict[str, list[CheckTarget]]) -> list[CheckTarget]:
    found = index.get(wanted, [])
    # A skill, then a save, then an ability: "Perception" is the skill where one exists.
    for group in ("skill", "save", "ability"):
        of_group = [t for t in found if t.group == group]
        if of_group:
            return of_group
    return []


def _strip(wanted: str, suffixes: Iterable[str]) -> str | None:
    for suffix in suffixes:
        if wanted.endswith(" " + suffix):
            return wanted[: -len(suffix) - 1]
    return None


def resolve_target(ruleset: Ruleset, name: str) -> CheckTarget | str:
    """The check a name asks for, or a sentence saying why it answers to nothing."""
    wanted = normalize(name)
    candidates = _index(ruleset)
    if not wanted:
        return "the tag's skill= is empty: name a skill, a save or an ability of the sheet."
    found = _exact(wanted, candidates)
    if not found:
        base = _strip(wanted, _SAVE_SUFFIXES)
        if base is not None:
            found = [t for t in _exact(base, candidates) if t.group == "save"]
            if not found:
                abilities = [t for t in _exact(base, candidates) if t.group == "ability"]
                saves = [
                    CheckTarget("save", s.id, s.label)
                    for s in ruleset.sheet.saves
                    if abilities and s.ability == abilities[0].id
                ]
                found = saves
        else:
            base = _strip(wanted, _CHECK_SUFFIXES)
            if base is not None:
                found = [t for t in _exact(base, candidates) if t.group != "save"]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        labels = ", ".join(f'"{t.label}"' for t in found)
        return f'"{name}" could mean {labels}: name one of them exactly.'
    names = [n for _, ns in _candidates(ruleset) for n in ns[1:2]]
    hint = did_you_mean(name, names)
    return f'"{name}" is not a skill, save or ability of {ruleset.name}.{hint}'


def match_name(name: str, choices: Sequence[str]) -> int | None:
    """The index of the one choice that ``name`` normalizes to, or None."""
    wanted = normalize(name)
    hits = [i for i, c in enumerate(choices) if normalize(c) == wanted]
    return hits[0] if len(hits) == 1 else None
