"""A fight played by a ruleset's ``combat`` block, turn by turn (the pure core).

``start`` builds a fight from the party and the opponents a start tag names; ``step``
resolves one ``[fight:]`` tag against a fight; every die comes from the dice source
passed in, in the one order the fight's dice are asked for; a party member changes only
through the sheet commands. Nothing here reads a clock, a file or a global.
(docs/design/fights.md)
"""

from dicebound.fight.state import FightError, load_state, summary
from dicebound.fight.tag import FightStep, read_fight_tag, step
from dicebound.fight.view import fight_view

__all__ = [
    "FightError",
    "FightStep",
    "fight_view",
    "load_state",
    "read_fight_tag",
    "step",
    "summary",
]
