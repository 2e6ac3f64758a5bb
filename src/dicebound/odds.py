"""Exact odds of a check: the probability of every outcome, as fractions, never sampled.

The kind gives the exact distribution of the same prepared check that ``check``
throws (the kind's arithmetic is shared by its roller and its distribution), and the
outcomes are read from it the way the record reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from dicebound.engine import Critical, _ladder, outcome_label, prepare_check
from dicebound.errors import UsageError
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tags.parse import parse_tags

__all__ = ["CheckOdds", "OutcomeOdds", "check_odds"]

_PLAIN_ORDER = ("Critical success", "Success", "Failure", "Critical failure")


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


def check_odds(
    ruleset: Ruleset, character: Character, tag: str, *, layers: Sequence[str] = ()
) -> CheckOdds:
    """The exact odds of the check one tag asks for (the tag may be written without its
    ``[skill_check: ...]`` wrapper).

    Raises:
        TagError: the tag cannot be resolved. UsageError: not exactly one tag.
    """
    text = tag if "[" in tag else f"[skill_check: {tag}]"
    matches = parse_tags(text)
    if len(matches) != 1:
        raise UsageError(f"odds takes exactly one check tag, not {len(matches)}.")
    prepared = prepare_check(ruleset, [character], matches[0], _ladder(ruleset, layers))
    dist = prepared.player.distribution(prepared.prepared.check)
    by_label: dict[str, Fraction] = {}
    for outcome, p in dist.probabilities().items():
        label = outcome_label(outcome.success, outcome.critical_success, outcome.critical_failure)
        by_label[label] = by_label.get(label, Fraction(0)) + p
    outcomes = []
    for label in _PLAIN_ORDER:
        p = by_label.get(label, Fraction(0))
        if p == 0 and label.startswith("Critical"):
            continue  # a critical this check can never reach is not an outcome of it
        success = label in ("Critical success", "Success")
        critical: Critical = (
            ("success" if success else "failure") if label.startswith("Critical") else None
        )
        outcomes.append(OutcomeOdds(label, success, critical, p))
    title = f"{prepared.target.label} for {prepared.who.name}: {prepared.prepared.summary}"
    success_p = sum((o.probability for o in outcomes if o.success), Fraction(0))
    return CheckOdds(title, tuple(outcomes), success_p)
