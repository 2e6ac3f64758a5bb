"""Throwing a symbol pool's dice by name, outside a check (the page; issue 6).

``dicebound.throw`` reaches this through the kind's ``thrower`` hook.

A game on a ``symbol-pool`` ruleset can throw its dice by name: the composer's custom
dice field, the Game Master's ``roll_dice`` tool and ``dicebound roll`` read text such as
``2 ability 1 proficiency vs 2 difficulty`` and count and cancel the symbols as a check
does (``success.needed`` successes succeed), without the sheet, upgrades or a
difficulty ladder. No key enables it; any other kind refuses it with a clear error.

The grammar (words are compared after folding case and punctuation, as names are)::

    dice   := item* ("vs" item*)?          at most one "vs" (also "versus" or "v")
    item   := count? name                  a missing count means 1
    count  := 0..20, optionally with an x  ("2", "2x")
    name   := a die's id or label          any case; "_" and "-" read as spaces

Commas, ``+`` and ``and`` between items are read as spaces. A name may take a plural
ending (``2 boosts``, ``2 abilities``), and where two dice's names could match, the one
with more words wins, then the exact spelling. ``vs`` is only for reading: it separates
the roller's dice from the opposing dice in the text given back (``dice``), while every
die is thrown in the order written and both sides' symbols are counted together. One
throw holds at least one die and at most 40; ``0 boost`` names none.

Text that cannot be read is a ``UsageError`` naming the words not understood, with a
"did you mean" for a die's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dicebound.dice import DiceSource
from dicebound.errors import UsageError
from dicebound.kinds.symbol_pool.details import symbols_in_words
from dicebound.kinds.symbol_pool.model import (
    CriticalMarks,
    SymbolCheck,
    SymbolConfig,
    dice_text,
    net_symbols,
)
from dicebound.kinds.symbol_pool.odds import distribution
from dicebound.kinds.symbol_pool.roll import roll
from dicebound.problems import did_you_mean
from dicebound.ruleset.model import Ruleset
from dicebound.tags.names import normalize
from dicebound.values import frozen

__all__ = [
    "MAX_PER_NAME",
    "MAX_THROWN",
    "DiceAsk",
    "ThrowOdds",
    "Thrower",
    "ThrownDice",
    "read_dice",
    "throw_by_name",
    "throw_odds",
]

MAX_PER_NAME = 20
"""The most dice one count may name."""
MAX_THROWN = 40
"""The most dice one throw by name holds."""

_VS = frozenset({"vs", "versus", "v"})
_FILLER = frozenset({"and"})
_COUNT = re.compile(r"(\d{1,9})x?")


@frozen
class DiceAsk:
    """What a text names: die ids in throw order, and where ``vs`` stood (None: no vs)."""

    thrown: tuple[str, ...]
    vs_at: int | None = None

    @property
    def text(self) -> str:
        """The dice as the record writes them: ``"2 ability vs 1 difficulty"``."""
        return dice_text(self.thrown, self.vs_at)


def symbol_config(ruleset: Ruleset) -> SymbolConfig:
    """The symbol pool's config, or a clear error for any other kind."""
    config = ruleset.resolution.config
    if not isinstance(config, SymbolConfig):
        raise UsageError(
            f"{ruleset.name} resolves checks with {ruleset.resolution.kind}; only a "
            "symbol-pool ruleset throws its dice by name."
        )
    return config


def _singulars(word: str) -> set[str]:
    """The word and what it reads as without a plural ending."""
    out = {word}
    if word.endswith("ies") and len(word) > 3:
        out.add(word[:-3] + "y")
    if word.endswith("es") and len(word) > 2:
        out.add(word[:-2])
    if word.endswith("s") and len(word) > 1:
        out.add(word[:-1])
    return out


def _names(config: SymbolConfig) -> list[tuple[tuple[str, ...], str]]:
    """Every die's id and label as words, with the die id they name."""
    out: list[tuple[tuple[str, ...], str]] = []
    for die in config.dice:
        for name in (die.id, die.label):
            words = tuple(normalize(name).split())
            if words and (words, die.id) not in out:
                out.append((words, die.id))
    return out


def _match(
    tokens: Sequence[str], at: int, names: Sequence[tuple[tuple[str, ...], str]]
) -> tuple[str, int] | None:
    """The die named at ``tokens[at:]`` and how many words its name takes: the longest
    name first, an exact spelling before a plural one."""
    best: tuple[int, int, str] | None = None  # (words, exact, die id)
    for words, die_id in names:
        k = len(words)
        here = tokens[at : at + k]
        if len(here) != k or tuple(here[:-1]) != words[:-1]:
            continue
        last = here[-1]
        if last == words[-1]:
            exact = 1
        elif words[-1] in _singulars(last):
            exact = 0
        else:
            continue
        if best is None or (k, exact) > best[:2]:
            best = (k, exact, die_id)
    return None if best is None else (best[2], best[0])


def read_dice(ruleset: Ruleset, text: str) -> DiceAsk:
    """Read the dice a text names (see the module's grammar).

    Raises:
        UsageError: the ruleset is not a symbol pool, or the text names no dice, more
            than 40, or words that are not a count, a die or ``vs``.
    """
    config = symbol_config(ruleset)
    names = _names(config)
    known = [die.id for die in config.dice] + [die.label for die in config.dice]
    listed = ", ".join(die.id for die in config.dice)
    tokens = normalize(text).split()
    thrown: list[str] = []
    vs_at: int | None = None
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if _match(tokens, i, names) is None:
            if word in _VS:
                if vs_at is not None:
                    raise UsageError(
                        f'"{text}" writes vs twice; vs separates the roller\'s dice from the '
                        "opposing dice once."
                    )
                vs_at = len(thrown)
                i += 1
                continue
            if word in _FILLER:
                i += 1
                continue
        count = 1
        number = _COUNT.fullmatch(word)
        if number is not None:
            count = int(number.group(1))
            i += 1
            if i == len(tokens):
                raise UsageError(
                    f'"{word}" at the end of "{text}" counts no die; name a die after it.'
                )
            if count > MAX_PER_NAME:
                raise UsageError(
                    f"{count} dice of one name is more than {MAX_PER_NAME}; throw at most "
                    f"{MAX_PER_NAME} of a die at once."
                )
        found = _match(tokens, i, names)
        if found is None:
            unknown = tokens[i]
            raise UsageError(
                f'"{unknown}" is not a die of {ruleset.name}; its dice are {listed}.'
                f"{did_you_mean(unknown, known)}"
            )
        die_id, width = found
        thrown.extend([die_id] * count)
        i += width
        if len(thrown) > MAX_THROWN:
            raise UsageError(
                f'"{text}" names more than {MAX_THROWN} dice; throw at most {MAX_THROWN} at once.'
            )
    if not thrown:
        raise UsageError(f'"{text}" names no dice; write dice such as "2 {config.dice[0].id}".')
    return DiceAsk(tuple(thrown), vs_at if vs_at is not None and vs_at < len(thrown) else None)


@frozen
class ThrownDice:
    """One throw by name: what was thrown and what the symbols came to.

    ``rolls[i]`` is the 1-based face of ``thrown[i]``; ``symbols`` and ``symbol_details``
    are written as a check's record writes them; ``successes`` is the net count of the
    success symbol, against ``needed``.
    """

    dice: str
    thrown: tuple[str, ...]
    rolls: tuple[int, ...]
    symbols: str
    net: tuple[tuple[str, int], ...]
    successes: int
    needed: int
    success: bool
    marked_success: bool
    marked_failure: bool
    symbol_details: str

    @property
    def critical(self) -> CriticalMarks:
        """The critical markers shown: ``"success"``, ``"failure"``, ``"both"`` or None."""
        if self.marked_success and self.marked_failure:
            return "both"
        if self.marked_success:
            return "success"
        return "failure" if self.marked_failure else None

    @property
    def line(self) -> str:
        """One line for a terminal or a log."""
        words = symbols_in_words(self.symbols, self.symbol_details)
        marks = {"success": "critical success marked", "failure": "critical failure marked"}
        crit = self.critical
        tail = (
            " (both critical symbols marked)"
            if crit == "both"
            else f" ({marks[crit]})"
            if crit
            else ""
        )
        return f"{self.dice}: {words}. {'Success' if self.success else 'Failure'}{tail}."

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": self.dice,
            "thrown": list(self.thrown),
            "rolls": list(self.rolls),
            "symbols": self.symbols,
            "net": dict(self.net),
            "successes": self.successes,
            "needed": self.needed,
            "success": self.success,
            "critical": self.critical,
            "symbolDetails": self.symbol_details,
            "text": self.line,
        }


def _check(ruleset: Ruleset, text: str) -> SymbolCheck:
    config = symbol_config(ruleset)
    ask = read_dice(ruleset, text)
    return SymbolCheck(config, ask.thrown, config.needed, ask.vs_at)


def throw_by_name(ruleset: Ruleset, text: str, dice: DiceSource) -> ThrownDice:
    """Throw the dice a text names, in the order written, and count their symbols.

    Raises:
        UsageError: the ruleset is not a symbol pool, or the text cannot be read.
        DiceError: forced faces ran out or name a face a die lacks.
    """
    check = _check(ruleset, text)
    rolled = roll(check, dice)
    config = check.config
    faces = [
        config.die(d).faces[int(n) - 1] for d, n in zip(check.thrown, rolled.rolls, strict=True)
    ]
    extras = dict(rolled.extras)
    out = rolled.outcome
    return ThrownDice(
        dice=rolled.dice,
        thrown=check.thrown,
        rolls=tuple(int(n) for n in rolled.rolls),
        symbols=extras["symbols"],
        net=net_symbols(config, faces),
        successes=out.total,
        needed=check.needed,
        success=out.success,
        marked_success=out.marked_success,
        marked_failure=out.marked_failure,
        symbol_details=extras["symbolDetails"],
    )


def _fraction_text(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


@frozen
class ThrowOdds:
    """The exact odds of a throw by name: of succeeding, of each net success count, and
    of each critical symbol showing (None where the ruleset names none)."""

    dice: str
    needed: int
    success: Fraction
    successes: tuple[tuple[int, Fraction], ...]
    marked_success: Fraction | None
    marked_failure: Fraction | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dice": self.dice,
            "needed": self.needed,
            "success": _fraction_text(self.success),
            "successes": {str(n): _fraction_text(p) for n, p in self.successes},
        }
        if self.marked_success is not None:
            out["criticalSuccess"] = _fraction_text(self.marked_success)
        if self.marked_failure is not None:
            out["criticalFailure"] = _fraction_text(self.marked_failure)
        return out


def throw_odds(ruleset: Ruleset, text: str) -> ThrowOdds:
    """The exact odds of ``throw_by_name`` with the same text (computed, not sampled).

    Raises:
        UsageError: the ruleset is not a symbol pool, or the text cannot be read.
    """
    check = _check(ruleset, text)
    dist = distribution(check)
    counts: dict[int, Fraction] = {}
    for outcome, p in dist.probabilities().items():
        counts[outcome.total] = counts.get(outcome.total, Fraction(0)) + p
    config = check.config
    return ThrowOdds(
        dice=dice_text(check.thrown, check.vs_at),
        needed=check.needed,
        success=dist.probability_where(lambda o: o.success),
        successes=tuple(sorted(counts.items())),
        marked_success=(
            dist.probability_where(lambda o: o.marked_success)
            if config.critical_success is not None
            else None
        ),
        marked_failure=(
            dist.probability_where(lambda o: o.marked_failure)
            if config.critical_failure is not None
            else None
        ),
    )


class Thrower:
    """A symbol-pool ruleset's throw by name (the kind's ``thrower`` hook)."""

    __slots__ = ("ruleset",)

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def throw(self, text: str, dice: DiceSource) -> ThrownDice:
        return throw_by_name(self.ruleset, text, dice)

    def odds(self, text: str) -> ThrowOdds:
        return throw_odds(self.ruleset, text)
