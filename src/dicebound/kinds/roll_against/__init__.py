"""roll-against: roll at most (or at least) the sheet's number (Capability API 1.139).

Call of Cthulhu, GURPS and an old-school thief's percentages roll against a number on
the sheet instead of adding it to the dice. The page's keys: ``dice`` (1d100 by
default), ``against`` (``at-most`` by default, or ``at-least``), ``criticalSuccess``
and ``criticalFailure`` (up to six rules each: faces ``from``..``to``, or for a
failure ``pastTarget``, limited by ``whenTarget``), ``tens`` (Call of Cthulhu's bonus
and penalty dice on a single d100) and the ``difficultyLadder`` (``dc`` and
``divide``). A roll-against ruleset cannot declare ``spend``.

One arithmetic serves both halves: ``percentile_of`` and ``keeps_lowest`` read tens dice,
and ``outcome_of`` reads a roll against the target, criticals included. ``roll`` applies
them to thrown faces; ``distribution`` gives the exact distribution of the roll (a sum
of dice, or the kept roll of several tens dice sharing one ones die, by order
statistics) and maps every roll through the same ``outcome_of``.

Readings where the documents leave a choice (docs/design/readings.md settles the target
and tens):

- The target is the sheet's number plus the wound penalty and ``adjust`` (they change
  the number the sheet gives), divided by a ladder step's ``divide`` and rounded down,
  plus the step's ``dc``, plus the tag's ``dc=`` (held to -100..100). ``difficulty=``
  and ``dc=`` both apply; a tag with neither reads the bare number. The record's
  ``dc`` is that target. ``untrained: "harder"`` reads the nearest ladder step whose
  target is harder than the one asked (lower for ``at-most``, higher for ``at-least``).
- A roll succeeds at or under the target (``at-most``) or at or over it
  (``at-least``). A critical success always succeeds and a critical failure always
  fails. Where a roll matches rules of both, the roll's own side of the target
  decides: a roll that made the target is the critical success, one that missed it is
  the critical failure. A roll is never both.
- ``pastTarget`` N fires on a roll N or more past the target on the failing side
  (``roll - target >= N`` at most; ``target - roll >= N`` at least). ``whenTarget``
  holds for targets at or above ``atLeast`` and below ``below``.
- ``tens``: ``bonus="+N"`` throws N more tens dice and keeps the best roll,
  ``bonus="-N"`` the worst, N held to ``tens.max``; the ones die is shared; 00 with 0
  reads 100; best is the lowest roll at most and the highest at least. Throw order: the
  d100 (its face 1-100), then the tens dice (a face of 10 is the digit 0). ``rolls``
  shows the d100's roll, then each tens die as 0..90; ``used`` and ``total`` are the
  kept roll. ``dice`` is ``1d100`` plus ``+Nd10`` when tens dice were thrown. Without
  ``tens``, ``bonus=`` is not offered and is ignored.
- Refused as rules that could never fire (or would always): a face no roll of the dice
  shows, ``from`` above ``to``, a ``whenTarget`` no target meets, a ``pastTarget`` no
  roll could reach inside its ``whenTarget``, ``pastTarget`` on a critical success
  (it measures a failure), a rule naming faces and ``pastTarget`` together, and a face
  rule without ``whenTarget`` that takes in every roll. ``tens`` needs exactly 1d100.
- ``natural`` (what outcome bands' ``naturals: "shift"`` reads) is the page's literal
  rule: the highest face of a single die is ``top``, the lowest ``bottom``, whichever
  way the roll is read. A roll with ``tens`` declared has no natural.
"""

from __future__ import annotations

from dicebound.kinds.roll_against.compile import KIND
from dicebound.kinds.roll_against.model import (
    Against,
    AgainstCheck,
    AgainstConfig,
    AgainstOutcome,
    CritRule,
    Natural,
)
from dicebound.kinds.roll_against.odds import distribution, roll_distribution
from dicebound.kinds.roll_against.play import PLAYER
from dicebound.kinds.roll_against.roll import roll

__all__ = [
    "KIND",
    "PLAYER",
    "Against",
    "AgainstCheck",
    "AgainstConfig",
    "AgainstOutcome",
    "CritRule",
    "Natural",
    "distribution",
    "roll",
    "roll_distribution",
]
