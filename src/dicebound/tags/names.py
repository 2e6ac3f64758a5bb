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
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.values import frozen

__all__ = [
    "CheckTarget",
    "ladder_dcs",
    "match_name",
    "normalize",
    "resolve_target",
    "step_by_label",
    "step_named",
]

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


def step_by_label(ladder: Sequence[LadderStep], label: str | None) -> LadderStep | None:
    """The one ladder step a ``difficulty=`` names; a name no step or two steps answer
    to is ignored (the page)."""
    if label is None:
        return None
    wanted = normalize(label)
    hits = [s for s in ladder if s.key == wanted]
    return hits[0] if len(hits) == 1 else None


def step_named(
    ruleset: Ruleset, ladder: Sequence[LadderStep], label: str | None
) -> LadderStep | None:
    """``step_by_label`` on a ladder of the ruleset (its own or a layer's): the steps'
    names alone decide it, so a label written before is read off the ruleset's memo."""
    if label is None:
        return None
    names: _Names | None = ruleset.memo.get("names")
    kept = names.ladders.get(id(ladder)) if names is not None else None
    if kept is None or kept.ladder is not ladder:  # the ladder not seen yet
        kept = _ladder(ruleset, ladder)
    steps = kept.steps
    if label in steps:
        return steps[label]
    if len(steps) >= _RESOLVED_KEPT:
        steps.clear()
    step = steps[label] = step_by_label(ladder, label)
    return step


def ladder_dcs(ruleset: Ruleset, ladder: Sequence[LadderStep]) -> tuple[int, ...]:
    """The dcs of a ladder of the ruleset (the steps that have one), worked out once."""
    return _ladder(ruleset, ladder).dcs


class _Ladder:
    """What one ladder of a ruleset comes to: the ladder (held, so no other takes its
    id), its steps' dcs, and the step each ``difficulty=`` written so far names."""

    __slots__ = ("dcs", "ladder", "steps")

    def __init__(self, ladder: Sequence[LadderStep]) -> None:
        self.ladder = ladder
        self.dcs = tuple(s.dc for s in ladder if s.dc is not None)
        self.steps: dict[str, LadderStep | None] = {}


def _ladder(ruleset: Ruleset, ladder: Sequence[LadderStep]) -> _Ladder:
    names: _Names | None = ruleset.memo.get("names")
    ladders = (names or _names(ruleset)).ladders
    kept = ladders.get(id(ladder))
    if kept is None or kept.ladder is not ladder:
        if len(ladders) >= _RESOLVED_KEPT:
            ladders.clear()
        kept = ladders[id(ladder)] = _Ladder(ladder)
    return kept


class _Names:
    """What a ruleset's names come to, worked out once per ruleset (kept on its memo):
    every normalized name of every check target, and what each name written so far
    resolved to (a target, or the sentence why none), at most ``_RESOLVED_KEPT``."""

    __slots__ = ("index", "ladders", "resolved")

    def __init__(self, index: dict[str, list[CheckTarget]]) -> None:
        self.index = index
        self.resolved: dict[str, CheckTarget | str] = {}
        self.ladders: dict[int, _Ladder] = {}  # by the ladder's id


_RESOLVED_KEPT = 1024  # names (or difficulties of one ladder) kept; past it, let go


def _names(ruleset: Ruleset) -> _Names:
    names: _Names | None = ruleset.memo.get("names")
    if names is None:
        index: dict[str, list[CheckTarget]] = {}
        for target, written in _candidates(ruleset):
            for name in dict.fromkeys(normalize(n) for n in written):
                index.setdefault(name, []).append(target)
        names = ruleset.memo["names"] = _Names(index)
    return names


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
    """The check a name asks for, or a sentence saying why it answers to nothing. The
    ruleset's names alone decide it, so a name written before is read off its memo."""
    names = _names(ruleset)
    known = names.resolved.get(name)
    if known is None:
        if len(names.resolved) >= _RESOLVED_KEPT:
            names.resolved.clear()
        known = names.resolved[name] = _resolve(ruleset, names.index, name)
    return known


def _resolve(
    ruleset: Ruleset, candidates: dict[str, list[CheckTarget]], name: str
) -> CheckTarget | str:
    wanted = normalize(name)
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
