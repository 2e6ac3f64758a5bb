"""The ``[fight:]`` family: each tag one step of the text's fight (FIGHTS §4).

Every ``[fight:]`` tag, and the first ``[combat:]`` tag of a text when the ruleset has a
``combat`` block (read as a start), takes its place in the count of tags that throw
from the text's seed, refused or not, and resolves against the fight and the party as
the tags before it left them. From the 41st on, each is refused ``too-many``. Other
``[combat:]`` tags are left as written and counted nowhere. The fight core
(``dicebound.fight``) loads on a text's first fight tag.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dicebound.fight.reasons import TOO_MANY
from dicebound.fight.tag import MAX_BODY, FightTag, read_fight_tag
from dicebound.sheet_commands.written import sanitise
from dicebound.tagpass.family import Found, PassState, SeededText
from dicebound.tagpass.report import FightPlace
from dicebound.values import new_tuple

if TYPE_CHECKING:
    from dicebound.tagpass.report import CheckReport

__all__ = ["FIGHT", "MAX_FIGHT_TAGS", "NOT_KEPT", "FightFamily"]

MAX_FIGHT_TAGS = 40
"""The most ``[fight:]`` tags one text resolves; later ones are refused ``too-many``."""

_COMBAT_HEAD = len("[combat:")

NOT_KEPT = (
    "Fights are not kept where this text was resolved: play them with dicebound check "
    "--fight FILE or on the service, or tell the fight in words."
)


class FightFamily:
    """``[fight: ...]`` (and Marinara's ``[combat: ...]`` start)."""

    heads = ("fight", "combat")

    def read(self, text: str, start: int) -> Found | None:
        is_fight = text[start + 1 : start + 2].lower() == "f"
        tag = read_fight_tag(text, start) if is_fight else _read_combat_tag(text, start)
        return None if tag is None else _found(self, tag)

    def admit(self, found: Sequence[Found]) -> None:
        """No cap that refuses the text: past ``MAX_FIGHT_TAGS`` each tag is refused
        ``too-many`` and the rest of the text still resolves."""

    def resolve_alone(self, ask: SeededText, found: Sequence[Found]) -> CheckReport | None:
        """None: every step is resolved on the fight the one before left."""
        return None

    def open(self, state: PassState) -> FightTurn:
        return FightTurn(state)


def _read_combat_tag(text: str, start: int) -> FightTag | None:
    """``[combat:`` and its body to the next ``]`` (at most ``MAX_BODY`` on)."""
    body_start = start + _COMBAT_HEAD
    close = text.find("]", body_start, body_start + MAX_BODY + 1)
    return None if close < 0 else FightTag((start, close + 1), text[body_start:close], "combat")


def _found(family: FightFamily, tag: FightTag) -> Found:
    found: Found = new_tuple(Found, (family, tag.span, tag))
    return found


FIGHT = FightFamily()


class FightTurn:
    """The fight tags of one text, each a step on the working fight."""

    __slots__ = ("combat_seen", "count", "state", "text")

    def __init__(self, state: PassState) -> None:
        self.state = state
        self.count = 0
        self.combat_seen = False

    def resolve(self, found: Found) -> str:
        from dicebound.fight.tag import answer, combat_start, refused_step, step

        state = self.state
        tag: FightTag = found.reading
        if tag.via is not None:
            first = not self.combat_seen
            self.combat_seen = True
            if not first or state.ruleset.combat is None:
                return "[combat:" + tag.body + "]"
            tag = combat_start(tag)
        self.count += 1
        seed = state.next_tag_seed()
        found_fight = None
        if state.record_fights:  # the step changes the pass's fight in place
            found_fight = json.dumps(state.fight, separators=(",", ":"))
        place = FightPlace(
            found.span, seed, len(state.items), len(state.sheet), found_fight, tuple(state.members)
        )
        if self.count > MAX_FIGHT_TAGS:
            result = refused_step(tag, TOO_MANY, state.fight, state.members)
        elif not state.fights_played:
            result = refused_step(tag, "not-played", state.fight, state.members, NOT_KEPT)
        else:
            dice = state.dice_for_tag(seed)
            # The pass's fight is its own (read and copied, or started here): each step
            # changes it in place; a refused one leaves it as it was.
            result = step(state.ruleset, state.fight, state.members, tag, dice, owned=True)
        if result.ok:
            state.fight = result.fight
            state.members = list(result.party)
            state.fight_touched = True
        mark = 'forced="true"' if state.forced is not None else f'seed="{sanitise(str(seed))}"'
        written = answer(result, mark)
        state.fight_steps.append((written, result))
        state.fight_places.append(place)
        return written
