"""What one step works on: a copy of the fight, the party as the step has left it, the
dice, and what happened (events, sheet changes). A refused step drops its context, so
nothing it touched is kept."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from dicebound.fight.dice import Thrower
from dicebound.fight.state import Fight, combatant, health_of, member_of
from dicebound.ruleset.combat import Combat, Modifier
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.sheet_commands.apply import apply_request
from dicebound.sheet_commands.current import changes_between
from dicebound.sheet_commands.model import Applied, SheetRequest

__all__ = ["Source", "Step"]


class Source(NamedTuple):
    """One active source of effects and modifiers: ``kind`` is ``condition``,
    ``level`` (a track's) or ``derived``; ``name`` its id, ``label`` its label;
    ``saves`` narrows its own-saves effects and its modifiers to saves (empty: every
    save), ``fails_saves`` the saves it makes fail with no dice."""

    kind: str
    name: str
    label: str
    effects: tuple[str, ...]
    modifiers: tuple[Modifier, ...]
    saves: tuple[str, ...] = ()
    fails_saves: tuple[str, ...] = ()


class Step:
    """One step in progress."""

    __slots__ = ("changes", "combat", "dice", "events", "fight", "party", "ruleset")

    def __init__(
        self, ruleset: Ruleset, fight: Fight, party: Sequence[Character], dice: Thrower
    ) -> None:
        combat = ruleset.combat
        assert combat is not None
        self.ruleset = ruleset
        self.combat: Combat = combat
        self.fight = fight
        self.party = list(party)
        self.dice = dice
        self.events: list[dict[str, Any]] = []
        self.changes: list[dict[str, Any]] = []

    def who(self, ident: str) -> dict[str, Any]:
        return combatant(self.fight, ident)

    def health(self, c: dict[str, Any]) -> tuple[int, int, int]:
        return health_of(self.ruleset, c, self.party)

    def member(self, c: dict[str, Any]) -> Character:
        return member_of(self.party, c)

    def write(self, c: dict[str, Any], request: SheetRequest) -> bool:
        """A sheet command on a party member's live state (FIGHTS §12); its changes are
        listed on the step. A command the sheet refuses changes nothing: False."""
        before = self.member(c)
        outcome = apply_request(self.ruleset, before, request)
        if not isinstance(outcome, Applied):
            return False
        after = outcome.character
        for change in changes_between(self.ruleset, before, after):
            self.changes.append(
                {"who": change.who, "what": change.what, "from": change.from_, "to": change.to}
            )
        self.party = [after if m.name == before.name else m for m in self.party]
        return True

    def has_condition(self, c: dict[str, Any], condition: str) -> bool:
        if c["side"] == "party":
            return condition in self.member(c).live.conditions
        return any(t["condition"] == condition for t in c["tracked"])

    def active_effects(self, c: dict[str, Any]) -> set[str]:
        """The effects of a combatant's active conditions and reached levels (FIGHTS
        §8.2)."""
        return {effect for source in self.sources(c) for effect in source.effects}

    def sources(self, c: dict[str, Any]) -> list[Source]:
        """Active conditions in the block's order, then reached levels."""
        found: list[Source] = []
        if c["side"] == "party":
            held = set(self.member(c).live.conditions)
        else:
            held = {t["condition"] for t in c["tracked"]}
        for rule in self.combat.conditions:
            if rule.condition in held:
                label = self.condition_label(rule.condition)
                found.append(
                    Source(
                        "condition",
                        rule.condition,
                        label,
                        rule.effects,
                        rule.modifiers,
                        rule.saves,
                        rule.fails_saves,
                    )
                )
        if c["side"] != "party" or not self.combat.levels:
            return found
        view = SheetView(self.ruleset, self.member(c))
        sheet = self.ruleset.sheet
        for level in self.combat.levels:
            if level.source == "track":
                value = Fraction(view.track_value(level.name))
                label = next((t.label for t in sheet.tracks if t.id == level.name), level.name)
                kind = "level"
            else:
                value = view.derived(level.name)
                label = next((d.label for d in sheet.derived if d.id == level.name), level.name)
                kind = "derived"
            if value >= level.at:
                found.append(
                    Source(
                        kind,
                        level.name,
                        label,
                        level.effects,
                        level.modifiers,
                        level.saves,
                        level.fails_saves,
                    )
                )
        return found

    def condition_label(self, condition: str) -> str:
        decl = next((c for c in self.ruleset.sheet.conditions if c.id == condition), None)
        return decl.label if decl is not None else condition
