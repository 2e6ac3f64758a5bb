"""The one pass over a Game Master's text: every tag of every family, in text order.

``resolve_text`` reads the text once (``Lexer``), lets each family that has tags in it
refuse a text past its cap, then resolves the tags in the order they are written, each
against the party as the tags before it left it (a wound marked before a check is in
that check's penalty), and rewrites each in place with its result. Pure: the dice
source or seed comes in, nothing is read or written outside.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicebound.engine import NO_CHOICES, PlayerChoices, ladder_in_force
from dicebound.errors import LimitExceeded, UsageError
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass.families import FAMILIES
from dicebound.tagpass.family import FamilyTurn, Found, PassState, SeededText, TagFamily
from dicebound.tagpass.lexer import Lexer
from dicebound.tagpass.report import CheckReport
from dicebound.tags.parse import Span, rewrite
from dicebound.values import new_tuple

__all__ = ["MAX_FORCED_FACES", "MAX_TEXT_CHARS", "CheckReport", "resolve_text"]

MAX_TEXT_CHARS = 1_000_000
"""The longest text ``resolve_text`` reads (the service takes 32 KB)."""

MAX_FORCED_FACES = 100_000
"""The most forced faces one call may give."""

_LEXER = Lexer(FAMILIES)


def resolve_text(
    ruleset: Ruleset,
    party: Sequence[Character],
    text: str,
    *,
    seed: str | int | None = None,
    faces: Sequence[int] | None = None,
    layers: Sequence[str] = (),
    choices: PlayerChoices | None = None,
    fight: dict[str, Any] | None = None,
    fights_played: bool = True,
    record_fights: bool = False,
) -> CheckReport:
    """Resolve every check tag and every sheet command in ``text``, in the order they
    are written: each against the party as the tags before it left it (a wound marked
    before a check is in that check's penalty). A sheet command that names nobody is
    about the party's first character, who rolls a check without ``who=``; a refused
    command is an outcome in ``sheet``, not an error.

    ``fight`` is the game's fight (a state as ``dicebound.fight.load_state`` reads it)
    or None; ``[fight:]`` tags play it, and the report holds it after the text. A
    surface that keeps no fight passes ``fights_played=False``: every fight tag is
    then refused ``not-played`` with a sentence, and still counts among the seeded tags.
    A surface that records each step (the service) passes ``record_fights=True``: each
    step's ``FightPlace`` then keeps the fight it found, as JSON text.

    Give ``seed`` (tag i throws from seed ``S`` then ``S-i``) or ``faces`` (forced, used in
    throw order across the tags). With neither, the caller must have picked a seed:
    the edge does that with ``fresh_seed()``, so the core stays free of randomness.

    Raises:
        UsageError: both or neither of ``seed`` and ``faces``, or an unknown layer;
            ``FightError`` (one) for a fight state that cannot be read.
        LimitExceeded: a text, its tags or the faces past their caps.
    """
    if (seed is None) == (faces is None):
        raise UsageError("give exactly one of seed and faces.")
    if len(text) > MAX_TEXT_CHARS:
        raise LimitExceeded(
            f"the text is {len(text):,} characters; one text may be at most "
            f"{MAX_TEXT_CHARS:,}. Resolve it in parts."
        )
    found = _LEXER.tags(text)
    only = found[0].family if found else None  # the one family, when there is one
    for tag in found:
        if tag.family is not only:
            only = None
            break
    if only is not None:
        only.admit(found)
    else:
        by_family: dict[TagFamily, list[Found]] = {}
        for tag in found:
            by_family.setdefault(tag.family, []).append(tag)
        for family, tags in by_family.items():
            family.admit(tags)
    if faces is not None and len(faces) > MAX_FORCED_FACES:
        raise LimitExceeded(
            f"{len(faces):,} forced faces were given; at most {MAX_FORCED_FACES:,} are read."
        )
    if fight is not None:
        from dicebound.fight import load_state

        fight = load_state(fight)  # a state no step could play is refused here, whole
    ladder = ladder_in_force(ruleset, layers)
    chosen = choices or NO_CHOICES
    if only is not None and seed is not None and fight is None:
        ask: SeededText = new_tuple(SeededText, (ruleset, party, text, ladder, str(seed), chosen))
        alone = only.resolve_alone(ask, found)
        if alone is not None:
            return alone
    state = PassState(
        ruleset,
        party,
        ladder,
        None if seed is None else str(seed),
        faces,
        chosen,
        mixed=only is None and bool(found),
        fight=fight,
        fights_played=fights_played,
        record_fights=record_fights,
    )
    turns: dict[TagFamily, FamilyTurn] = {}
    replacements: list[tuple[Span, str]] = []
    for tag in found:
        turn = turns.get(tag.family) or turns.setdefault(tag.family, tag.family.open(state))
        replacements.append((tag.span, turn.resolve(tag)))
    forced = state.forced
    if forced is not None and forced.left and state.every_check_resolved:
        # faces the checks never reached are a usage error only when nothing else is
        # wrong: a tag that did not resolve threw nothing, and its error is the news
        raise UsageError(
            f"{forced.left} forced face(s) were left over: the checks threw {forced.used}."
        )
    report: CheckReport = new_tuple(
        CheckReport,
        (
            rewrite(text, replacements),
            tuple(state.items),
            tuple(state.members),
            tuple(state.sheet),
            tuple(state.sheet_after),
            tuple(state.sheet_party),
            tuple(state.fight_steps),
            state.fight,
            _fight_summary(ruleset, state),
            tuple(state.fight_places),
        ),
    )
    return report


def _fight_summary(ruleset: Ruleset, state: PassState) -> dict[str, Any] | None:
    if state.fight is None:
        return None
    from dicebound.fight import summary

    return summary(ruleset, state.fight, state.members)
