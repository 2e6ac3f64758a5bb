"""step-pool: a talent die and training dice against a target number, raised after the roll.

dicebound's own kind (docs/design/format.md "The step-pool kind"), built for the
Advanced Resolution rule: the ability's number picks the talent die off ``steps``, the
skill's tier number picks ``training.count`` training dice off the same steps, every die
at or above the target is one EFFORT, and outcome bands read the EFFORT (``by:
"total"``). After the throw, single dice may be raised once each: by the roller's
quality (a number field the tag names with ``quality=``), by a tool (``tool=``, held to
``afterRoll.tool.max``), and by points of a live pool the player spends
(``afterRoll.spend``, ``rate`` points for +1).

Keys: ``steps`` (die sizes, smallest first), ``talent`` ``{label}``, ``training``
``{label, count}``, ``target`` ``{default, min, max}``, ``afterRoll`` ``{quality?,
tool?, spend?}`` and the ``difficultyLadder`` (steps ``{label, dc}``, each dc inside the
target's range). A packaged ruleset needs Capability API 1.200 for this kind: it is
dicebound's, not Marinara's, and 1.200 is the number dicebound gives it.

One arithmetic serves every path. ``best_placement`` places the raises on a list of
deficits (how far each die is below the target): the most EFFORT, then the fewest points
paid. ``roll`` applies it to thrown faces, ``spend_after`` to the same faces with a pool's
points, and the distributions to every class of throw: only the smallest deficits a raise
can close matter, so the odds walk the dice one by one keeping (dice that count, the few
smallest closable deficits), which stays small for every allowed die and target.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- Die sizes are the real dice 2, 3, 4, 6, 8, 10, 12 and 20; steps run strictly upward.
  A number n picks ``steps[n]``, held to the list's ends (a negative number, the first).
- The talent number is the ability's modifier (``abilityModifier``), rounded down; on a
  skill or save it is its ability's (or the ``with=`` ability's), and 0 for one without
  an ability. The training number is the tier number (round(multiplier x proficiency
  bonus) + flat), plus the build's ``bonuses`` for that skill and an untrained ``by``,
  held to at most its ``cap``. An ability check throws the talent die and the dice of the
  first (untrained) tier. ``untrained: "harder"`` moves the target to the next ladder step
  above it. ``penaltyFrom`` and ``adjust`` have no number to move here and are refused.
- The target is ``dc=`` held to ``target.min..max``, else the ``difficulty=`` step's,
  else ``target.default``. A ``difficulty=`` no single step answers to is refused, as on
  the other kinds.
- ``quality=`` names a number field by id or label (any case); its value, rounded down,
  is the quality modifier. A name no number field answers to is refused with a "did you
  mean". A modifier of 0 or less is one the player would not apply, so it never is; the
  record still shows it. ``tool=`` is a whole number held to 0..``tool.max``; anything
  else is ignored. Both are ignored where ``afterRoll`` does not offer them.
- A raise goes only on a die below the target that it lifts to the target; a raise that
  could lift none is not applied. Among placements with the most EFFORT the first in
  throw order wins, the quality before the tool. Spending places every raise afresh
  (free and paid) for the most EFFORT and then the fewest points, and pays only when the
  EFFORT rises. One spend per check, from one pool, on one die, all or nothing.
- Without bands a check succeeds with one EFFORT or more, and ``margin`` is EFFORT - 1.
  No EFFORT is ever a critical by itself; the bands say what is.
- The record: ``rolls`` shows the faces as thrown, ``used`` and ``total`` the EFFORT,
  ``modifier="0"``, ``resolution="successes"``, ``dice="1d10+2d6"`` (talent first). Then
  ``quality="agility:+1@1"`` (the field, its modifier, and the die it raised, counted
  from 1 in throw order; no ``@`` when it raised none), ``tool="+1@2"`` (likewise),
  ``effort="2"``, ``raises="+1|0|0"`` (what was added to each die, in throw order; only
  when a die was raised), ``offer="Triumph: 5 from body, mind or luck"`` (the better band
  one more EFFORT reaches, the fewest points that buy it from each pool, cheapest first
  and in the ruleset's order, listing only the pools the roller holds enough in, so
  none the character does not have; no offer when no pool holds enough, and none once a
  spend is made; ``read_offer`` reads it back), and after a spend ``after="luck:5@2"``
  (pool, points paid, die raised).
"""

from __future__ import annotations

from dicebound.kinds.step_pool.after import spend_after
from dicebound.kinds.step_pool.compile import KIND
from dicebound.kinds.step_pool.model import (
    CAPABILITY_VERSION,
    DIE_SIZES,
    AfterResult,
    Placement,
    SpendRate,
    StepCheck,
    StepConfig,
    StepOutcome,
    best_placement,
)
from dicebound.kinds.step_pool.odds import distribution, distribution_after
from dicebound.kinds.step_pool.offer import Offer, read_offer
from dicebound.kinds.step_pool.play import PLAYER
from dicebound.kinds.step_pool.roll import roll

__all__ = [
    "CAPABILITY_VERSION",
    "DIE_SIZES",
    "KIND",
    "PLAYER",
    "AfterResult",
    "Offer",
    "Placement",
    "SpendRate",
    "StepCheck",
    "StepConfig",
    "StepOutcome",
    "best_placement",
    "distribution",
    "distribution_after",
    "read_offer",
    "roll",
    "spend_after",
]
