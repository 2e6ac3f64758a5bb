"""The ``[skill_check:]`` family: each tag a check, thrown and written back as its record.

Every check tag throws from the text's seed (refused or not, it takes its place in the
count) or from the forced faces. A tag that does not resolve is an error with a
sentence, written back sparse (the ask only, still owing a roll), and nothing is thrown
or paid for it; one that could not even be read stays as the model wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.engine import (
    NO_CHOICES,
    CheckFailure,
    CheckResult,
    PlayerChoices,
    PreparedCheck,
    quick_check,
    resolve_check,
)
from dicebound.errors import DiceError, LimitExceeded, TagError
from dicebound.record import sparse_record
from dicebound.sheet import Character
from dicebound.tagpass.families.checks.stand_ins import quick_among_others
from dicebound.tagpass.family import Found, PassState, SeededText, tag_seed
from dicebound.tagpass.report import CheckReport
from dicebound.tags.parse import Span, TagMatch, read_check_tag, rewrite
from dicebound.values import new_tuple

__all__ = ["CHECKS", "MAX_TAGS_PER_TEXT", "ChecksFamily"]

MAX_TAGS_PER_TEXT = 1000
"""The most check tags one text may hold (the service takes 20)."""


class ChecksFamily:
    """``[skill_check: ...]``, read by the tolerant lexer (``dicebound.tags.parse``)."""

    heads = ("skill_check",)

    def read(self, text: str, start: int) -> Found:
        match = read_check_tag(text, start)
        found: Found = new_tuple(Found, (self, match.span, match))
        return found

    def admit(self, found: Sequence[Found]) -> None:
        if len(found) > MAX_TAGS_PER_TEXT:
            raise LimitExceeded(
                f"the text holds {len(found):,} check tags; one text may hold at most "
                f"{MAX_TAGS_PER_TEXT:,}. Resolve it in parts."
            )

    def resolve_alone(self, ask: SeededText, found: Sequence[Found]) -> CheckReport | None:
        """Every check read off the memo (``quick_check``): nothing is paid, so no tag
        changes what a later one reads. None when a tag is not such a check, does not
        resolve, or the seed would be escaped in its record, or something is chosen:
        the long way then gives the same results for these tags and says what went
        wrong."""
        ruleset, party, text, ladder, seed, choices = ask
        if not _reads_off_the_memo(seed, choices):
            return None
        items: list[CheckResult] = []
        replacements: list[tuple[Span, str]] = []
        for index, tag in enumerate(found):
            try:  # a tag that cannot be read or resolved raises here (prepare_check)
                quick = quick_check(ruleset, party, tag.reading, ladder, tag_seed(seed, index))
            except TagError:
                return None
            if quick is None:
                return None
            items.append(quick[0])
            replacements.append((tag.span, quick[1]))
        report: CheckReport = new_tuple(
            CheckReport,
            (
                rewrite(text, replacements),
                tuple(items),
                tuple(party),
                (),
                (),
                (),
                (),
                None,
                None,
                (),
            ),
        )
        return report

    def open(self, state: PassState) -> ChecksTurn:
        return ChecksTurn(state)


def _reads_off_the_memo(seed: str | None, choices: PlayerChoices) -> bool:
    """Whether a text's checks may be read off the memo of throws: seeded, with a seed
    its records write as it is, and nothing chosen after the roll."""
    return (
        seed is not None
        and seed.isprintable()
        and '"' not in seed
        and (choices is NO_CHOICES or choices == NO_CHOICES)
    )


CHECKS = ChecksFamily()


class ChecksTurn:
    """The check tags of one text, resolved in turn on the working state.

    A seeded text with nothing to choose reads its checks off the memo of throws where
    it can (``quick_check``): all at once when the text holds check tags alone
    (``ChecksFamily.resolve_alone``), one by one through stand-ins among other families'
    tags (``quick_among_others``)."""

    __slots__ = ("met", "quick_seed", "state")

    def __init__(self, state: PassState) -> None:
        self.state = state
        seed = state.seed
        self.quick_seed = seed if _reads_off_the_memo(seed, state.choices) else None
        self.met: dict[int, tuple[Character, Character | None]] = {}

    def resolve(self, found: Found) -> str:
        state = self.state
        match: TagMatch = found.reading
        tag_seed_text = state.next_tag_seed()
        forced = state.forced
        first = forced.used if forced is not None else 0
        item: CheckResult | CheckFailure
        try:
            ready: PreparedCheck | None = None
            if self.quick_seed is not None and state.mixed:
                quick = quick_among_others(
                    state.ruleset,
                    state.members,
                    match,
                    state.ladder,
                    str(tag_seed_text),
                    self.met,
                )
                if isinstance(quick, tuple):  # paid nothing: the party stands as it was
                    state.items.append(quick[0])
                    return quick[1]
                ready = quick
            item, after = resolve_check(
                state.ruleset,
                state.members,
                match,
                state.ladder,
                state.dice_for_tag(tag_seed_text),
                tag_seed_text,
                state.choices,
                ready,
            )
            if forced is not None:
                item = item._replace(faces=state.given[first : forced.used])
            if after is not None:  # a pool was paid: later tags see the new values
                state.replace_member(after)
        except TagError as exc:
            dice_failed = isinstance(exc.__cause__, DiceError)
            item = CheckFailure(sparse_record(match.attrs), exc.message, dice_failed)
            state.every_check_resolved = False
        state.items.append(item)
        # A tag that could not even be read stays as the model wrote it.
        return match.raw if match.error is not None else item.record.to_tag()
