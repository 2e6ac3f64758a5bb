"""What the combat checks share: names looked up with a "did you mean", and modifiers
(FIGHTS §2.1 "Modifiers"), which conditions, levels and items all carry."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dicebound.compiler.passes.context import Context
from dicebound.problem_codes import KEY_CONFLICT, NOT_FOR_FIGHT_KIND
from dicebound.problems import Path, unknown_id
from dicebound.ruleset.combat import Modifier

__all__ = ["Names", "modifier"]

_WHAT: Mapping[str, str] = {
    "pools": "a live pool",
    "tracks": "a live track",
    "text": "a live text",
    "conditions": "a live condition",
    "saves": "a save",
    "skills": "a skill",
    "lists": "a list",
    "derived": "a derived value",
    "budgets": "a budget of the economy",
    "checks": "a check of the combat block",
    "tiers": "a threat tier",
    "damage types": "a damage type of the combat block",
}


class Names:
    """The ids a combat block may name: the sheet's (from the context) and the block's
    own (budgets, checks, tiers, damage types)."""

    def __init__(self, ctx: Context, own: Mapping[str, Sequence[str]]) -> None:
        self.ctx = ctx
        self.own = own

    def _known(self, namespace: str) -> Sequence[str]:
        if namespace in self.own:
            return self.own[namespace]
        return self.ctx.names[namespace]

    def known(self, namespace: str, name: object, path: Path) -> bool:
        """Whether ``name`` is declared in ``namespace``; a problem at ``path`` if not."""
        known = self._known(namespace)
        if name in known:
            return True
        self.ctx.problems.append(unknown_id(path, str(name), _WHAT[namespace], known))
        return False

    def all(self, namespace: str, names: Iterable[object], path: Path) -> None:
        for i, name in enumerate(names):
            self.known(namespace, name, (*path, i))

    def budget(self, name: object, path: Path) -> bool:
        return self.known("budgets", name, path)


def modifier(ctx: Context, raw: Mapping[str, Any], here: Path, names: Names, kind: str) -> Modifier:
    """A modifier, its keys checked against its ``to`` and the fight's kind."""
    to = str(raw["to"])
    rules = (
        ("dice", to in ("attacks", "saves", "checks"), "dice go only to attacks, saves or checks"),
        ("times", to == "speed", '"times" goes only to speed'),
        ("minus", "dice" in raw, '"minus" takes dice off, so it goes only with "dice"'),
        ("mode", to in ("checks", "saves"), "a mode goes only to checks or saves"),
        ("skills", to == "checks", '"skills" narrows a modifier to checks'),
        ("saves", to == "saves", '"saves" narrows a modifier to saves'),
    )
    for key, allowed, said in rules:
        if key in raw and not allowed:
            ctx.add((*here, key), KEY_CONFLICT, f"{said}; this one goes to {to}.")
    if kind == "dice-pool" and "dice" in raw:
        ctx.add(
            (*here, "dice"),
            NOT_FOR_FIGHT_KIND,
            'in a dice-pool fight a modifier gives a flat number of dice; write "flat".',
        )
    names.all("skills", raw.get("skills", ()), (*here, "skills"))
    names.all("saves", raw.get("saves", ()), (*here, "saves"))
    return Modifier(
        to=raw["to"],
        flat=int(raw.get("flat", 0)),
        dice=raw.get("dice"),
        minus=bool(raw.get("minus", False)),
        times=None if "times" not in raw else float(raw["times"]),
        skills=tuple(str(s) for s in raw.get("skills", ())),
        saves=tuple(str(s) for s in raw.get("saves", ())),
        mode=raw.get("mode"),
    )
