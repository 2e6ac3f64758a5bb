"""dice-sum: add the dice up, add the check number, and reach the difficulty.

What the page and docs/design/format.md "dice-sum" give this kind: ``dice`` (count 1-10,
sides 2-1000, 1d20 by default) with ``faces`` (what each face is worth, face 1 first:
Fate's dice are ``[-1, 0, 1]``), ``openEnded`` (a single die that rolls on: at or above
``high`` it adds another die, at or below ``low`` it takes the chain away; at most 20
dice), ``unmodified`` (faces the record marks when the first die shows them),
``advantage`` (roll the dice twice and keep the better or worse total), ``naturals``
(the top and bottom face of a single die succeed or fail by themselves) and the
``difficultyLadder``.

One arithmetic serves both halves. A thrown set of dice reduces to a ``SetResult``
(kept total, what its first die showed); ``outcomes`` turns set results and the check
into the ``SumOutcome``. ``roll`` applies them to thrown faces; ``distribution`` applies
the same functions to every face class, chains and the advantage pick included, and
weighs them exactly. The set distributions depend only on the ruleset, so they are
worked out once when the block is compiled.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- ``openEnded``, ``unmodified`` and a die's top and bottom compare what faces are worth;
  the *top face* a natural reads is the last face (number ``sides``), the bottom face 1.
- ``openEnded`` and ``unmodified`` are resolution keys beside ``dice``, as the page
  lists them; written inside ``dice`` they are refused with a pointer.
- A Rolemaster low end keeps its first face and takes the chain thrown for it away; the
  chain's own dice roll on only upward. The 20-dice cap holds per set of dice: with
  advantage each set may throw its own 20.
- Advantage keeps the first set on a tie. Naturals and ``unmodified`` read the first
  die of the kept set.
- The record's ``dice`` is the set as declared (``1d100`` for an open-ended roll,
  ``4d3`` for Fate's dice), and ``rolls`` shows what each face is worth.
- A bound, a face value or an unmodified face lies in -1000..1000. ``high`` on the
  lowest face, or ``low`` on the highest, would fire on every roll and is refused.
"""

from __future__ import annotations

from dicebound.kinds.dice_sum.compile import KIND
from dicebound.kinds.dice_sum.model import (
    MAX_CHAIN_DICE,
    MarkedPart,
    Mode,
    Natural,
    NaturalRule,
    OpenEnded,
    SetDist,
    SetResult,
    SumCheck,
    SumConfig,
    SumOutcome,
)
from dicebound.kinds.dice_sum.odds import distribution
from dicebound.kinds.dice_sum.play import PLAYER
from dicebound.kinds.dice_sum.roll import roll

__all__ = [
    "KIND",
    "MAX_CHAIN_DICE",
    "PLAYER",
    "MarkedPart",
    "Mode",
    "Natural",
    "NaturalRule",
    "OpenEnded",
    "SetDist",
    "SetResult",
    "SumCheck",
    "SumConfig",
    "SumOutcome",
    "distribution",
    "roll",
]
