"""One pass over a text's sheet tags: each read, its targets found, applied or refused
against the party as the tags before it left it, and rewritten in place with its
outcome (docs/design/sheet-commands.md "One pass").

The pass never raises and never changes what it was given: a command that fails in an
unexpected way is refused ``malformed`` for that character, and the party comes back as
a new tuple. Text outside the tags is never changed.

Every ``Character`` carries its own live state. Where two cards share a character key
(Marinara keeps one state per key) the player card stands for the key: it is the only
card of that key a command reaches (see ``targets``), so it is the one whose state is
read and stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.apply import apply_on
from dicebound.sheet_commands.current import WorkingSheet
from dicebound.sheet_commands.grammar import SheetTag, find_sheet_tags, read_request
from dicebound.sheet_commands.model import (
    Applied,
    Refused,
    SheetChange,
    SheetOutcome,
    SheetRequest,
    Unreadable,
)
from dicebound.sheet_commands.reasons import MALFORMED, TOO_MANY
from dicebound.sheet_commands.targets import Targets, Unresolved, resolve_targets
from dicebound.sheet_commands.written import MAX_NOW, cut, with_outcome, written_ask
from dicebound.values import frozen

__all__ = ["MAX_COMMANDS", "SheetPass", "SheetsOfText", "apply_sheet_tag", "resolve_sheet_text"]

MAX_COMMANDS = 40
"""The most sheet commands one text may hold; from the 41st on each is refused
``too-many`` (and still rewritten)."""


@frozen
class SheetPass:
    """A text's sheet tags resolved: the text with every tag rewritten, the party as it
    stands after (same order), one outcome per tag in text order, whether any state
    was stored, and the rests taken as ``(card name, rest as written)``."""

    text: str
    party: tuple[Character, ...]
    outcomes: tuple[SheetOutcome, ...]
    changed: bool
    rests: tuple[tuple[str, str], ...]


class SheetsOfText:
    """One text's pass over its sheet tags: the working sheets of its cards, one per
    card, each carried from one command to the next (``WorkingSheet.carry``), so a
    command starts from the record the one before it left, not from its ``Live`` read
    again."""

    __slots__ = ("by_card", "ruleset")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.by_card: dict[int, WorkingSheet] = {}

    def apply(
        self, party: Sequence[Character], player: str | None, tag: SheetTag, number: int
    ) -> tuple[SheetOutcome, tuple[Character, ...]]:
        """``apply_sheet_tag`` on this pass's working sheets."""
        members = party if type(party) is tuple else tuple(party)
        request = read_request(tag.body)
        if number > MAX_COMMANDS:
            return _early(request, tag, player, TOO_MANY), members
        if isinstance(request, Unreadable):
            return _early(request, tag, player, MALFORMED), members
        targets = resolve_targets([member.name for member in members], player, request.who)
        if isinstance(targets, Unresolved):
            return _early(request, tag, player, targets.reason), members
        if len(targets.members) == 1:  # one card: the tag reads as its own result
            index = targets.members[0]
            character = members[index]
            result, changes = self._try(character, request)
            if isinstance(result, Refused):
                reason = result.reason
                ask = with_outcome(_ask(tag.body, targets.who), reason=reason)
                outcome = SheetOutcome(ask, targets.who, False, None, reason, request, tag.span)
                return outcome, members
            now = result.now
            rests = ((character.name, request.rest or ""),) if request.op == "rest" else ()
            outcome = SheetOutcome(
                with_outcome(_ask(tag.body, targets.who), now=now),
                targets.who,
                True,
                now,
                None,
                request,
                tag.span,
                changes,
                rests,
                result.stored,
            )
            return outcome, (*members[:index], result.character, *members[index + 1 :])
        return self._party(members, request, tag, targets)

    def _party(
        self,
        members: tuple[Character, ...],
        request: SheetRequest,
        tag: SheetTag,
        targets: Targets,
    ) -> tuple[SheetOutcome, tuple[Character, ...]]:
        """A tag for several cards (``who="party"``): each tried in turn; ok when any
        succeeded, its ``now`` each card's result, named (``_summary``)."""
        after = list(members)
        applied: list[tuple[str, str]] = []  # (name, now) of each card it was applied to
        refused: list[tuple[str, str]] = []  # (name, reason) of each card that refused it
        changes: list[SheetChange] = []
        rests: list[tuple[str, str]] = []
        stored = False
        for index in targets.members:
            character = members[index]
            result, changed = self._try(character, request)
            if isinstance(result, Applied):
                after[index] = result.character
                applied.append((character.name, result.now))
                changes += changed
                stored = stored or result.stored
                if request.op == "rest":
                    rests.append((character.name, request.rest or ""))
            else:
                refused.append((character.name, result.reason))
        now, reason = _summary(applied, refused)
        outcome = SheetOutcome(
            with_outcome(_ask(tag.body, targets.who), now=now, reason=reason),
            targets.who,
            reason is None,
            now,
            reason,
            request,
            tag.span,
            tuple(changes),
            tuple(rests),
            stored,
        )
        return outcome, tuple(after)

    def _try(
        self, character: Character, request: SheetRequest
    ) -> tuple[Applied | Refused, tuple[SheetChange, ...]]:
        """The command applied to one card on its working sheet, and what it changed;
        then the sheet carried on to the card it made, or its writes dropped. Any
        unexpected failure is a ``malformed`` refusal for that card alone."""
        sheet = self.by_card.get(id(character))
        try:
            if sheet is None or sheet.character is not character:
                sheet = self.by_card[id(character)] = WorkingSheet(
                    self.ruleset, character, carried=True
                )
            result = apply_on(sheet, request)
            if isinstance(result, Applied) and result.stored:
                changes = sheet.changes(result.character)  # changes_between, as it read
                if sheet.carry(result.character):
                    self.by_card[id(result.character)] = sheet
                else:  # the next command reads the new Live afresh; this one stays as it was
                    sheet.drop()
                return result, changes
        except Exception:  # any failure of one command on one card refuses only that
            result = Refused(MALFORMED)
        if sheet is not None:
            sheet.drop()
        return result, ()


# What a tag is written back with up to its outcome is a pure function of its body (the
# request read from it) and the name written, and a Game Master writes the same command
# again and again: remembered (1,024 of them; a body is at most 1,500 characters).
@lru_cache(maxsize=1024)
def _ask(body: str, who: str | None) -> str:
    """``written_ask`` of the request ``body`` reads as, naming ``who``."""
    return written_ask(read_request(body), who)


def _early(
    request: SheetRequest | Unreadable, tag: SheetTag, player: str | None, reason: str
) -> SheetOutcome:
    """A tag refused before any card is tried (too many, unreadable, nobody found): its
    ``who`` as written, else the player's name, else empty."""
    return SheetOutcome(
        tag=with_outcome(_ask(tag.body, request.who), reason=reason),
        who=request.who or player or "",
        ok=False,
        now=None,
        reason=reason,
        request=request,
        span=tag.span,
    )


def apply_sheet_tag(
    ruleset: Ruleset,
    party: Sequence[Character],
    player: str | None,
    tag: SheetTag,
    number: int,
    sheets: SheetsOfText | None = None,
) -> tuple[SheetOutcome, tuple[Character, ...]]:
    """One tag, the ``number``-th sheet tag of its text (counting from 1), applied to
    ``party`` as it stands; the outcome and the party after it. ``sheets``: the pass of
    the text the tag is in, which carries each card's working sheet from the command
    before (a pass of its own when not given).

    ``player`` is the name of the card a tag without ``who`` is about. With
    ``who="party"`` every member is tried: the tag is ok when any member succeeded,
    its ``now`` the successes then the refusals, each named, joined by ``"; "``.
    """
    return (SheetsOfText(ruleset) if sheets is None else sheets).apply(party, player, tag, number)


def _summary(
    applied: list[tuple[str, str]], refused: list[tuple[str, str]]
) -> tuple[str | None, str | None]:
    """``(now, None)`` when the tag is ok, ``(None, reason)`` when refused, from each
    card's ``(name, now)`` or ``(name, reason)``. One card reads as its own result;
    several name each card, successes first, and are refused only when none
    succeeded (with the first refusal's reason)."""
    if len(applied) + len(refused) == 1:
        return (applied[0][1], None) if applied else (None, refused[0][1])
    if not applied:
        return None, refused[0][1] if refused else MALFORMED
    entries = [f"{name} {now}" for name, now in applied]
    entries += [f"{name} refused ({reason})" for name, reason in refused]
    return cut("; ".join(entries), MAX_NOW), None


def resolve_sheet_text(
    ruleset: Ruleset, party: Sequence[Character], text: str, player: str | None
) -> SheetPass:
    """Every sheet tag of ``text`` applied in text order, each against the party as the
    ones before it left it, and rewritten in place; the text between tags is kept as
    it is. ``changed`` is true as soon as any command stored a state."""
    members = tuple(party)
    outcomes: list[SheetOutcome] = []
    pieces: list[str] = []
    kept = 0
    sheets = SheetsOfText(ruleset)
    for number, tag in enumerate(find_sheet_tags(text), start=1):
        outcome, members = sheets.apply(members, player, tag, number)
        start, end = tag.span
        pieces += [text[kept:start], outcome.tag]
        kept = end
        outcomes.append(outcome)
    pieces.append(text[kept:])
    return SheetPass(
        text="".join(pieces),
        party=members,
        outcomes=tuple(outcomes),
        changed=any(outcome.stored for outcome in outcomes),
        rests=tuple(rest for outcome in outcomes for rest in outcome.rests),
    )
