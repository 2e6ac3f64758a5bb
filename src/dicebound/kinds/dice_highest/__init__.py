"""dice-highest: throw a handful of dice and read the highest (Capability API 1.138).

Blades in the Dark and Trophy Dark. The sheet's number is how many dice, as on a pool,
held to ``pool`` (at most 20). ``keep`` (1-3) of the highest are added up; that sum is
the check's total, compared with ``dc`` (1 to keep times the die's sides) and read by
outcome bands ``by: "total"``. The page's keys: ``die``, ``pool``, ``keep``,
``zeroDice``, ``critical``, ``dark`` (Trophy Dark's dark dice, with ``outcome`` from
1.149), ``situationalDice``, ``spend`` (dice only) and the ``difficultyLadder``.

One arithmetic serves both halves. ``plan_of`` says which dice a check throws, ``highest_faces``,
``critical_hits`` and ``dark_wins`` read thrown faces, and ``outcome_of`` turns what they read
into the ``HighestOutcome``. ``roll`` applies them to thrown faces; ``distribution``
reads every face assignment at once, face by face from the top (a die's face decides
whether it is kept, counts toward a critical, or beats the other group), and hands its
classes to the same ``outcome_of``.

Readings where the documents leave a choice (docs/design/readings.md settles the pool's
size):

- The pool's size is the sheet's number plus the wound penalty, ``adjust``, ``bonus=``
  (held to ``situationalDice``) and dice bought with ``spend`` (``dicebound.spend``:
  all or nothing, clamped to ``perCheck``), held to ``pool.min``..``pool.max`` once.
  A purchase that would not change how many dice are thrown (the range leaves no room
  for them) is not made and not paid; one that is writes ``spend="pool:N"``. ``pool`` defaults to ``{ "min": 0, "max": 20 }``; a ``pool.max``
  above 20 is refused.
- Fewer dice than ``keep`` add up all there are. ``lowest-of-two`` keeps one die, the
  lower, whatever ``keep`` says, and is never a critical. ``fail`` fails with a total
  of 0 (``rolls=""``), which bands read like any other total.
- Dark dice read ``"all"`` (the default) are dice of the check like any other: the
  check is a zero-dice check only when it throws neither light nor dark dice, and a
  critical counts dark faces too. Read ``"light"``, zero light dice is a zero-dice check
  on the light side (two light dice keep the lower, or no light die and a failure)
  while the dark dice are still thrown.
- ``darkHighest`` is written whenever dark dice were thrown and one of them is above
  every light die (all light dice, the two fallback dice included); with no light die
  thrown, any dark die wins.
- ``critical.count`` dice at ``critical.face`` or above (the top face by default) make
  a critical success, which always succeeds. A count above the most dice a check can
  read could never fire and is refused; so is an explicit ``zeroDice`` beside a
  ``pool.min`` of 1 or more, since no check would ever have zero dice.
- A tag with no ``dc=`` and no ``difficulty=`` is refused, as on a sum, unless the
  ruleset's bands read ``by: "total"``: then they need no difficulty, and the record
  writes ``dc="0"``. ``untrained: "harder"`` moves the dc to the next ladder step up.
- The record keeps the summed shape (``resolution="sum"``, ``modifier="0"``, the kept
  dice as ``used`` and ``total``) and adds ``highest`` = how many dice are kept
  (``keep``, so ``"1"`` on Blades), ``zeroDice="true"``, ``dark="N"`` (after the
  clamp, only when dark dice were thrown), ``darkHighest="true"`` and
  ``darkOutcome="light"`` (beside ``dark``). ``dice`` counts every die thrown (``0d6``
  when none); ``rolls`` lists the light dice, then the dark dice.
"""

from __future__ import annotations

from dicebound.kinds.dice_highest.compile import KIND
from dicebound.kinds.dice_highest.model import (
    MAX_DARK,
    MAX_POOL,
    CriticalRule,
    Dark,
    DarkOutcome,
    HighestCheck,
    HighestConfig,
    HighestOutcome,
    ZeroDice,
)
from dicebound.kinds.dice_highest.odds import distribution
from dicebound.kinds.dice_highest.play import PLAYER
from dicebound.kinds.dice_highest.roll import roll

__all__ = [
    "KIND",
    "MAX_DARK",
    "MAX_POOL",
    "PLAYER",
    "CriticalRule",
    "Dark",
    "DarkOutcome",
    "HighestCheck",
    "HighestConfig",
    "HighestOutcome",
    "ZeroDice",
    "distribution",
    "roll",
]
