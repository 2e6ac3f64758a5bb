"""A kind's outcome bands by the kind's name: its band rules, and what they read.

``dicebound.bands`` is the vocabulary every kind builds on (bands, ``BandRules``,
reading a result), so it names no kind and reaches none. What takes a kind's name and
finds its ``BandRules`` (the compiler's and the overrides' ``compile_bands``, a test's
``band_value``) sits here, above the kinds it looks up, and loads only the kind named.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dicebound.bands import SUM_BANDS, Against, BandRules, Bands, By, compile_outcomes
from dicebound.kinds.modules import kind_module
from dicebound.problems import Path, Problem

__all__ = ["band_value", "compile_bands", "rules_of", "single_die_of"]


def rules_of(kind: str) -> BandRules | None:
    """The band rules of a kind by name; None for a kind that is not built."""
    module = kind_module(kind)
    if module is None:
        return None
    rules: BandRules = module.KIND.bands
    return rules


def band_value(
    by: By, total: int, dc: int, *, kind: str | None = None, against: Against = "at-most"
) -> int | Fraction:
    """The number a kind's bands read.

    ``total`` is the result (a summed total, a pool's net successes, a roll-against roll,
    step-pool's EFFORT) and ``dc`` what the check needed (its difficulty, the successes
    needed, the roll-against target). ``margin`` is how far the result is past that, as
    the kind counts it (``BandRules.margin``; ``total - dc`` without a kind). ``fraction``
    is the target over the roll: a roll at or under target / n lands in a band whose
    ``atLeast`` is n exactly when this value is at least n.
    """
    rules = SUM_BANDS if kind is None else rules_of(kind) or SUM_BANDS
    return rules.value(by, total, dc, against)


def single_die_of(kind: str, block: Mapping[str, Any]) -> bool:
    """Whether a structurally valid resolution block of ``kind`` throws one die, whose
    faces a natural reads (the kind's ``BandRules.single_die``)."""
    rules = rules_of(kind)
    return rules is not None and rules.single_die(block)


def compile_bands(
    raw: object,
    path: Path,
    *,
    kind: str,
    single_die: bool,
    resolution_naturals_none: bool,
    against: Against | None = None,
) -> tuple[Bands | None, list[Problem]]:
    """Check ``resolution.outcomes`` (its shape first) and build its bands, by the band
    rules of the kind named (``bands.compile_outcomes``)."""
    return compile_outcomes(
        raw,
        path,
        kind=kind,
        rules=rules_of(kind),
        single_die=single_die,
        resolution_naturals_none=resolution_naturals_none,
        against=against,
    )
