"""What a tag family is to the pass, and the working state the pass carries.

A *family* is one kind of tag the Game Master writes (``[skill_check:]``, ``[sheet:]``;
fights and items add theirs). It says which heads it answers to, reads the tag whose
head stands at a place of the text, and opens its part of one pass (a ``FamilyTurn``),
which resolves each of its tags in turn against the working state and gives back the
text the tag is rewritten as. The pass (``dicebound.tagpass.run``) knows nothing of
any family but through this protocol.

The working state (``PassState``) is what every tag of a text reads and leaves for the
next: the party as the tags before left it, the dice (a seed or forced faces) and how
many tags have thrown from the seed so far, and what each family has resolved, which
becomes the text's report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from dicebound.dice import DiceSource, ForcedFaces, SeededDice

if TYPE_CHECKING:
    from dicebound.engine import CheckFailure, CheckResult, PlayerChoices
    from dicebound.fight.tag import FightStep
    from dicebound.ruleset.model import LadderStep, Ruleset
    from dicebound.sheet import Character
    from dicebound.sheet_commands.model import SheetOutcome
    from dicebound.tagpass.report import CheckReport, FightPlace
    from dicebound.tags.parse import Span

__all__ = ["FamilyTurn", "Found", "PassState", "SeededText", "TagFamily", "tag_seed"]


class Found(NamedTuple):
    """One tag of a text: the family that read it, where it stands (``text[a:b]`` is
    the whole tag, brackets included) and what the family read there (its own type)."""

    family: TagFamily
    span: Span
    reading: Any


class SeededText(NamedTuple):
    """A seeded text and what it is resolved on, as a family's quick way reads it."""

    ruleset: Ruleset
    party: Sequence[Character]
    text: str
    ladder: tuple[LadderStep, ...]
    seed: str
    choices: PlayerChoices


class TagFamily(Protocol):
    """One family of tags: its heads, how it reads a tag, and its part of a pass."""

    @property
    def heads(self) -> tuple[str, ...]:
        """The tag names it answers to, lowercase: ``skill_check`` for ``[skill_check:``
        written in any ASCII case."""
        ...

    def read(self, text: str, start: int) -> Found | None:
        """The tag whose head stands at ``start``; None when that head opens no tag of
        this family (the text goes on being scanned just after the head). Never
        raises: a tag that cannot be understood is still a tag, refused when resolved."""
        ...

    def admit(self, found: Sequence[Found]) -> None:
        """Refuse a text that holds more of this family's tags than one text may.

        Raises:
            LimitExceeded: past the family's cap.
        """
        ...

    def resolve_alone(self, ask: SeededText, found: Sequence[Found]) -> CheckReport | None:
        """The report of a seeded text that holds this family's tags alone, made at
        once when the family has a quicker way to the very same report; None (nothing
        done) to have the tags resolved one by one."""
        ...

    def open(self, state: PassState) -> FamilyTurn:
        """This family's part of one pass over a text that holds its tags."""
        ...


class FamilyTurn(Protocol):
    """A family's part of one pass: each of its tags resolved in text order."""

    def resolve(self, found: Found) -> str:
        """Resolve one tag against the working state, leave what it changed there, and
        give the text the tag is rewritten as."""
        ...


def tag_seed(seed: str, index: int) -> str:
    """Tag ``index`` (from 0) of the tags that throw from a text's seed uses ``S``, then
    ``S-1``, ``S-2``, ... (docs/design/readings.md "Seeded draws")."""
    return seed if index == 0 else f"{seed}-{index}"


class PassState:
    """What the tags of one text read and leave for the next, and what they came to.

        ``members`` is the party as the tags so far left it (each family writes the new
        characters back); ``player`` the party's first member (who a sheet command without
        ``who=`` is about). A tag that throws dice takes them from ``dice_for_tag``: the
        forced faces, shared in order by every tag, or its own seed, counted over the tags
        that throw from the seed. ``mixed`` says the text holds tags of more than one
        family. ``items`` are the check tags' results, ``sheet`` the sheet commands'
        outcomes (each after ``sheet_after`` check items, on the party ``sheet_party``).
        ``fight`` is the text's fight as the tags so far left it (None: no fight), and
        ``fight_steps`` each ``[fight:]`` tag's answer and step (``fight_places``
    where each stood and what it found); ``fight_touched`` says a
        step changed the fight; ``record_fights`` keeps in each place the fight it found, as
        JSON text; ``fights_played`` False refuses every fight tag
        ``not-played`` (a surface that does not keep a fight yet).
    """

    __slots__ = (
        "choices",
        "every_check_resolved",
        "fight",
        "fight_places",
        "fight_steps",
        "fight_touched",
        "fights_played",
        "forced",
        "given",
        "items",
        "ladder",
        "members",
        "mixed",
        "player",
        "record_fights",
        "ruleset",
        "seed",
        "seeded_tags",
        "sheet",
        "sheet_after",
        "sheet_party",
    )

    def __init__(
        self,
        ruleset: Ruleset,
        party: Sequence[Character],
        ladder: tuple[LadderStep, ...],
        seed: str | None,
        faces: Sequence[int] | None,
        choices: PlayerChoices,
        mixed: bool,
        fight: dict[str, Any] | None = None,
        fights_played: bool = True,
        record_fights: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.ladder = ladder
        self.seed = seed
        self.given: tuple[int, ...] = tuple(faces) if faces is not None else ()
        self.forced = ForcedFaces(self.given) if faces is not None else None
        self.choices = choices
        self.mixed = mixed
        self.members: list[Character] = list(party)
        self.player = party[0].name if party else None
        self.seeded_tags = 0
        self.every_check_resolved = True
        self.items: list[CheckResult | CheckFailure] = []
        self.sheet: list[SheetOutcome] = []
        self.sheet_after: list[int] = []
        self.sheet_party: list[tuple[Character, ...]] = []
        self.fight = fight
        self.fights_played = fights_played
        self.record_fights = record_fights
        self.fight_touched = False
        self.fight_steps: list[tuple[str, FightStep]] = []
        self.fight_places: list[FightPlace] = []

    def next_tag_seed(self) -> str | None:
        """The seed of the next tag that throws from the text's seed (None when the
        faces are forced), counting it."""
        index = self.seeded_tags
        self.seeded_tags += 1
        return None if self.seed is None else tag_seed(self.seed, index)

    def dice_for_tag(self, tag_seed_text: str | None) -> DiceSource:
        """The dice a tag throws: the forced faces, or its own seed's."""
        return self.forced if self.forced is not None else SeededDice(str(tag_seed_text))

    def replace_member(self, after: Character) -> None:
        """Put ``after`` in the party in place of the member of its name."""
        self.members = [after if c.name == after.name else c for c in self.members]
