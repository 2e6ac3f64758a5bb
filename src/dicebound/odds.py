"""Exact odds of a check: the probability of every outcome, as fractions, never sampled.

The kind gives the exact distribution of the same prepared check that ``check``
throws (the kind's arithmetic is shared by its roller and its distribution), and the
outcomes are read from it the way the record reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dicebound.bands import Bands, outcome_order
from dicebound.dist import Dist
from dicebound.engine import (
    Critical,
    PreparedCheck,
    ladder_in_force,
    pool_named,
    prepare_check,
    read_outcome,
)
from dicebound.errors import UsageError
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.tags.parse import parse_tags

__all__ = ["CheckOdds", "OutcomeOdds", "check_odds", "fraction_text"]

_PLAIN_ORDER = ("Critical success", "Success", "Failure", "Critical failure")


def fraction_text(p: Fraction) -> str:
    """An exact fraction as ``"num/den"``, or the whole number alone."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True, slots=True)
class OutcomeOdds:
    label: str
    success: bool
    critical: Critical
    probability: Fraction


@dataclass(frozen=True, slots=True)
class CheckOdds:
    """Every outcome a check can land in, best first, and the chance it succeeds."""

    title: str
    outcomes: tuple[OutcomeOdds, ...]
    success: Fraction

    def to_json(self) -> dict[str, object]:
        """What ``dicebound odds --json`` prints: every probability an exact fraction
        ``"num/den"`` (a whole number written alone)."""
        outcomes = [
            {
                "label": o.label,
                "success": o.success,
                "critical": o.critical,
                "probability": fraction_text(o.probability),
            }
            for o in self.outcomes
        ]
        return {"outcomes": outcomes, "success": fraction_text(self.success)}


def _outcomes(ruleset: Ruleset, prepared: PreparedCheck, dist: Dist[Any]) -> list[OutcomeOdds]:
    """Sum the outcomes' probabilities into the bands (or plain outcomes), best first.

    Whole-number weights are added per band and divided once at the end, so a
    distribution of thousands of outcomes (an open-ended d100) stays quick."""
    weights: dict[str, int] = {}
    for outcome, weight in dist.items():
        reading = read_outcome(ruleset, prepared, outcome)
        key = reading.band_id or reading.label
        weights[key] = weights.get(key, 0) + weight
    by_key = {key: Fraction(w, dist.total) for key, w in weights.items()}
    bands: Bands | None = ruleset.resolution.outcomes
    if bands is not None:
        return [
            OutcomeOdds(b.label, b.success, b.critical, by_key.get(b.id, Fraction(0)))
            for b in outcome_order(bands)
        ]
    out = []
    for label in _PLAIN_ORDER:
        p = by_key.get(label, Fraction(0))
        if p == 0 and label.startswith("Critical"):
            continue  # a critical this check can never reach is not an outcome of it
        success = label in ("Critical success", "Success")
        critical: Critical = (
            ("success" if success else "failure") if label.startswith("Critical") else None
        )
        out.append(OutcomeOdds(label, success, critical, p))
    return out


def check_odds(
    ruleset: Ruleset,
    character: Character,
    tag: str,
    *,
    layers: Sequence[str] = (),
    after: tuple[str, int] | None = None,
) -> CheckOdds:
    """The exact odds of the check one tag asks for (the tag may be written without its
    ``[skill_check: ...]`` wrapper). ``after`` is a spend after the roll (a pool and the
    most points): the odds when the player spends whenever it raises the outcome.

    Raises:
        TagError: the tag cannot be resolved. UsageError: not exactly one tag.
    """
    text = tag if "[" in tag else f"[skill_check: {tag}]"
    matches = parse_tags(text)
    if len(matches) != 1:
        raise UsageError(f"odds takes exactly one check tag, not {len(matches)}.")
    prepared = prepare_check(ruleset, [character], matches[0], ladder_in_force(ruleset, layers))
    after_odds = getattr(prepared.player, "distribution_after", None)
    if after is not None and after_odds is not None:
        view = SheetView(ruleset, character)
        pool_id = pool_named(ruleset, after[0])
        dist = after_odds(prepared.prepared.check, pool_id, after[1], view)
    else:
        dist = prepared.player.distribution(prepared.prepared.check)
    outcomes = _outcomes(ruleset, prepared, dist)
    title = f"{prepared.target.label} for {prepared.who.name}: {prepared.prepared.summary}"
    success_p = sum((o.probability for o in outcomes if o.success), Fraction(0))
    return CheckOdds(title, tuple(outcomes), success_p)
