"""dice-pool: throw the dice and count them.

The sheet's number is the size of the pool. The compile half reads every key the page
and docs/design/format.md "dice-pool" give the kind (``die``, ``pool``, ``target`` with
``from``, ``double``, ``explode``, ``cancel``, ``botch``, ``exceptional``,
``situationalDice``, ``reroll``, ``stances``, ``exact``, ``spend`` and the
``difficultyLadder``), refuses every rule that could never fire, and builds the frozen
``PoolConfig``.

The play half turns a tag's ask into a ``PoolCheck`` (``DicePoolPlayer.prepare``: the
pool's size, the per-die target, the faces a check moved, the one re-throw, what a
spend and a charm bought), throws it (``roll``) and gives its exact odds
(``distribution``). Both read a face through ``face_effect`` and a result through
``pool_outcome``, so the odds are the odds of what the roller does.

The pool's size is the sheet's number, the wound penalty, ``adjust``, ``bonus=`` (held
to ``situationalDice``) and bought dice added first, then held to
``pool.min..pool.max`` once (docs/design/readings.md "The pool's size"). Throw order, the
re-throw pass and the pool rules' readings are docs/design/readings.md's "Pools" and
"Throw order"; what the play half chose where the documents are silent is written on
``DicePoolPlayer``.
"""

from __future__ import annotations

from dicebound.kinds.dice_pool.compile import KIND
from dicebound.kinds.dice_pool.model import (
    MAX_RETHROWS,
    Count,
    Exact,
    FaceEffect,
    FaceRule,
    PoolCheck,
    PoolConfig,
    PoolOutcome,
    Stance,
    face_effect,
    pool_outcome,
)
from dicebound.kinds.dice_pool.odds import distribution
from dicebound.kinds.dice_pool.play import PLAYER
from dicebound.kinds.dice_pool.roll import roll
from dicebound.spend import Reroll, Spend

__all__ = [
    "KIND",
    "MAX_RETHROWS",
    "PLAYER",
    "Count",
    "Exact",
    "FaceEffect",
    "FaceRule",
    "PoolCheck",
    "PoolConfig",
    "PoolOutcome",
    "Reroll",
    "Spend",
    "Stance",
    "distribution",
    "face_effect",
    "pool_outcome",
    "roll",
]
