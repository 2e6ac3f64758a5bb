"""symbol-pool: throw narrative dice and read the symbols (Capability API 1.141).

Genesys builds a pool from a characteristic and a skill rank, then adds opposing dice.
The page's keys: ``symbols`` (2-10; ``counts`` adds one of another symbol before
cancelling, ``cancels`` pairs two symbols one for one), ``dice`` (2-8 named dice of 2-20
faces, each face up to three symbol ids), ``pool`` (``die``, ``upgrade``, ``max`` ≤ 12,
``build``), ``difficulty`` (``die``, ``upgrade``, ``max`` ≤ 12), ``boost`` and
``setback`` (``max`` ≤ 6), ``allowOwnUpgrade`` (1.150), ``success`` (``symbol``,
``needed``), ``criticalSuccess`` and ``criticalFailure`` (symbols marked wherever a face
shows them), ``spend`` (dice only) and the ``difficultyLadder`` (``dc`` counts opposing
dice).

One arithmetic serves both halves. Every face reduces to an ``Effect``: how much it
moves the success symbol's count against its cancelling partner, and whether it shows
either critical symbol. ``roll`` adds the effects of the thrown faces; ``distribution``
adds the effect distributions of the dice (worked out once per die when the block is
compiled), so the odds cost a few small convolutions however many dice are thrown, and
no tuple of faces is ever enumerated. ``outcome_of`` turns the sum into the outcome for
both. The net symbols the record names (``net_symbols``) are counted and cancelled from
the faces in full; the net success count they give is the same number.

Readings where the documents leave a choice (docs/design/readings.md settles the rest):

- The ability is the check number's ability part (``abilityModifier`` of the score, or of
  ``with=``'s), the rank its tier part, each rounded down and never below 0; a raw
  ability check has rank 0 and ignores ``with=``.
- ``larger-upgraded`` throws the larger of the two and, where ``pool.upgrade`` is
  declared, upgrades as many dice as the smaller; ``sum`` throws both added, upgrading
  none. A skill's ``cap`` holds the dice the sheet builds (as it holds a dice pool's
  number), upgraded dice kept upgraded as far as they fit. The pool is held to
  ``pool.max``, then bought dice (plain dice) join it within ``pool.max`` (a purchase
  with no room is not made and not paid), then ``upgradeOwn``. A spend's ``perCheck:
  "pool"`` reads the dice the sheet builds.
- The signed bonus is ``bonus=`` plus the sheet's bonus for the skill (and an untrained
  ``by``), the wound penalty and ``adjust``: above 0 it throws that many boost dice (up
  to ``boost.max``), below 0 setback dice (up to ``setback.max``). A side the ruleset
  does not declare throws nothing. ``setback="N"`` adds to the setback dice inside the
  same ``setback.max``; the record's ``setback`` is what it added past the shared part.
- ``dc=`` is held to 0..``difficulty.max``, as is a ladder step's; ``untrained:
  "harder"`` moves it to the next ladder step up. ``upgrade=`` needs
  ``difficulty.upgrade``. The record's ``dc`` is the net successes needed, so that it
  reads like the summed shape it keeps (``total`` against ``dc``); the opposing dice are
  named in ``thrown`` and ``dice``.
- The net success count is the success symbol's count after ``counts`` and cancelling,
  never below 0; it is ``used`` and ``total``. A margin is net - needed + 1 (the page).
- A critical symbol marks an occurrence on a face thrown; a symbol another one adds
  through ``counts`` is not an occurrence. Without outcome bands the markers are the
  outcome's ``critical_success`` / ``critical_failure`` (both may be set, and neither
  changes ``success``); with bands those are never set, because the markers never move
  a band, and the markers stay in ``marked_success`` / ``marked_failure``.
- Refused as rules that could never fire: an upgrade die that is the die it upgrades, a
  success symbol no face of a check's dice can count, a ``success.needed`` above what a
  check can count, a critical symbol no face of any die shows, a ladder step
  above ``difficulty.max``, and ``allowOwnUpgrade: true`` without ``pool.upgrade``. Two
  dice that answer to the same name (id or label, any case) are refused too, since dice
  are thrown by name.

The record (``resolution="sum"``, ``modifier="0"``) adds ``symbols`` (the net symbols in
the declared symbol order, ``"2s 1a 1t"``: a count, then the symbol id, for every symbol
left after cancelling; ``""`` when none is left), ``thrown`` (the die ids in throw order,
``|``-separated), ``symbolDetails`` (``encode_details``), and ``upgrade``, ``setback``
and ``upgradeOwn`` when they added something. ``rolls`` holds each die's 1-based face
number; ``dice`` names the dice as ``throw_by_name`` reads them (``"2 ability 1
proficiency vs 2 difficulty"``, ``"none"`` when nothing was thrown).
"""

from __future__ import annotations

from dicebound.kinds.symbol_pool.compile import KIND
from dicebound.kinds.symbol_pool.details import (
    SymbolDetails,
    encode_details,
    parse_details,
    symbols_in_words,
)
from dicebound.kinds.symbol_pool.model import (
    MAX_BOOST,
    MAX_POOL,
    Build,
    CriticalMarks,
    DieSlot,
    Effect,
    ExtraDice,
    SymbolCheck,
    SymbolConfig,
    SymbolDie,
    SymbolOutcome,
    SymbolRule,
    dice_text,
    net_symbols,
    parse_symbols,
    symbols_text,
)
from dicebound.kinds.symbol_pool.odds import distribution
from dicebound.kinds.symbol_pool.play import PLAYER, SymbolPoolPlayer
from dicebound.kinds.symbol_pool.roll import roll

__all__ = [
    "KIND",
    "MAX_BOOST",
    "MAX_POOL",
    "PLAYER",
    "Build",
    "CriticalMarks",
    "DieSlot",
    "Effect",
    "ExtraDice",
    "SymbolCheck",
    "SymbolConfig",
    "SymbolDetails",
    "SymbolDie",
    "SymbolOutcome",
    "SymbolPoolPlayer",
    "SymbolRule",
    "dice_text",
    "distribution",
    "encode_details",
    "net_symbols",
    "parse_details",
    "parse_symbols",
    "roll",
    "symbols_in_words",
    "symbols_text",
]
