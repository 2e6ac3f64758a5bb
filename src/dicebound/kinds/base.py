"""The one interface every resolution kind implements: ``Kind[Config, Check, Outcome]``.

A kind (a package under ``dicebound.kinds``) exports one object, ``KIND``, that:

- names the kind's own keys of the ``resolution`` block (the shared sheet-math keys
  are the ruleset compiler's) as spec nodes, so structure is checked and the JSON
  Schema printed from one place;
- compiles a structurally valid block into the kind's frozen config, yielding every
  cross-check problem (faces the die lacks, a rule that could never fire, ...);
- turns a prepared check into a throw with a dice source, and gives the exact
  distribution of the same check. Both paths share the kind's arithmetic;
- says everything else about itself that the rest of dicebound asks: how its bands
  read, the fights it refuses, the words it adds to the Game Master's lesson, the
  balance report and the dice card, what it offers after the roll.

The small interface is the required part of the two halves (``KindCompiler`` and
``KindPlayer``); every optional hook is declared on them with its default behaviour,
so a kind overrides only what it does differently, and callers call a hook directly
instead of probing for it. A kind subclasses the two halves explicitly to inherit the
defaults.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, TypeVar

from dicebound.bands import SUM_BANDS, Against, BandRules, Group, Natural
from dicebound.errors import UsageError
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep, Sheet
from dicebound.ruleset.spec import Node
from dicebound.sheet import SheetView
from dicebound.values import frozen

if TYPE_CHECKING:
    from dicebound.dice import DiceSource
    from dicebound.dist import Dist
    from dicebound.record import Record
    from dicebound.ruleset.model import Ruleset
    from dicebound.spend import Spend

__all__ = [
    "AfterSpent",
    "CheckAsk",
    "CompileContext",
    "DiceThrower",
    "Kind",
    "KindCompiler",
    "KindOutcome",
    "KindPlayer",
    "Marks",
    "OfferRead",
    "Prepared",
    "Rolled",
    "SkillAsk",
    "Tables",
    "Thrown",
]

Outcome = TypeVar("Outcome")
Config_contra = TypeVar("Config_contra", contravariant=True)
Check_contra = TypeVar("Check_contra", contravariant=True)

Marks = Literal["success", "failure", "both"] | None
"""A symbol pool's critical markers, shown beside success or failure (never deciding it)."""

Tables = dict[Hashable, Any]
"""A ruleset's tables of its dice, by a key each kind makes (``odds_distribution``)."""


@frozen
class CompileContext:
    """What a kind's compiler may read besides its own block."""

    sheet: Sheet
    path: Path = ("resolution",)


class KindCompiler(Protocol):
    """The compile half of a kind: its keys, its compiler, and what the ruleset compiler,
    the overrides and the bands ask of it."""

    name: str
    keys: Mapping[str, Node]  # the kind's own resolution keys, "difficultyLadder" included
    required: tuple[str, ...]

    bands: BandRules = SUM_BANDS
    """How its bands read a result (``dicebound.bands``)."""
    harder_moves_target: bool = False
    """Whether an untrained "harder" raises a per-die ``target`` the block may fix."""
    honours_entry_checks: bool = False
    """Whether a catalog entry's ``mechanics.check`` can change its rolls."""
    override_locks: tuple[str, ...] = ()
    """Keys of its own no override may set."""
    fights: bool = True
    """Whether a ``combat`` block may stand beside it at all (else it is refused whole,
    by ``refused_fights``, and its inside is not read)."""
    pool_fights: bool = False
    """Whether a ``"dice-pool"`` fight may stand beside it (it throws the kind's pools)."""

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        """Read one structurally valid ladder step."""
        ...

    def compile(self, block: Mapping[str, Any], ctx: CompileContext) -> tuple[Any, list[Problem]]:
        """Cross-check a structurally valid block; give its config and the problems."""
        ...

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """Yield (capability version, path, feature name) for each gated key the block uses.

        Paths run from the document root (``("resolution", "explode", "min")``); the
        block need only be structurally valid.
        """
        ...

    def refused_fights(self, raw: Mapping[str, Any]) -> Iterator[Problem]:
        """The problems of a ruleset document's ``combat`` block beside this kind."""
        return iter(())

    def override_lock_sentence(self, key: str) -> str | None:
        """Why an override cannot set ``key``, one of ``override_locks``."""
        return None


class Rolled(NamedTuple):
    """What a kind hands back for one thrown check: the record's core numbers.

    A named tuple rather than a frozen dataclass: one is made for every check thrown,
    and it is the cheaper immutable value to build.

    ``rolls`` is what each die reads, in throw order. ``extras`` are the kind's own
    record attributes, in the order the record writes them.
    """

    rolls: tuple[str, ...]
    used: int
    modifier: int
    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    dice: str
    mode: Literal["normal", "advantage", "disadvantage"] = "normal"
    resolution: Literal["sum", "successes"] = "sum"
    extras: tuple[tuple[str, str], ...] = ()
    outcome: Any = None  # the same outcome value the kind's distribution is over
    # what happened to each die of ``rolls`` (exploded, rethrown, doubled, ...), for the
    # dice card; not part of the record, and empty where a kind says nothing per die
    marks: tuple[tuple[str, ...], ...] = ()


class SkillAsk(NamedTuple):
    """What the engine hands a kind's ``prepare_skill``: whose sheet and which check,
    nothing else the tag asked. What a kind reads from it the roller and the check
    decide whatever the question (the sheet's number, a wound penalty, an adjust), so
    the odds keep it per character and ask new difficulties, modifiers and ladder
    steps of it. A named tuple, as ``CheckAsk`` is."""

    view: SheetView
    group: Literal["skill", "save", "ability"]
    item_id: str
    label: str
    with_ability: str | None


class CheckAsk(NamedTuple):
    """What the engine hands a kind's ``prepare_question``: whose sheet, which check,
    and what the tag asked. The engine has already matched the names (skill, who, with)
    and refused what cannot be rolled (an untrained ``refuse``); the kind reads the
    numbers it needs off ``view`` and the attributes it offers off ``attrs``. A named
    tuple: one is made for every check prepared, and it is the cheapest immutable
    value. Its first fields are a ``SkillAsk``'s, in the same order."""

    view: SheetView
    group: Literal["skill", "save", "ability"]
    item_id: str
    label: str
    with_ability: str | None
    attrs: Mapping[str, str]  # the tag's attributes, lower-case keys, first written wins
    ladder: tuple[LadderStep, ...]


class Prepared(NamedTuple):
    """A check ready to throw: the kind's own check value, the dc the record writes,
    the record attributes the preparation decided, a short line for odds titles, and
    what the check costs. ``prepare`` has made sure the roller can pay every cost (a
    purchase that cannot be paid is left out of the check, never half made); the engine
    pays them, all together, only once the dice are thrown. A named tuple: one is made
    for every question, and it is the cheapest immutable value."""

    check: Any
    dc: int
    extras: tuple[tuple[str, str | int], ...] = ()
    summary: str = ""
    costs: tuple[tuple[str, int], ...] = ()  # (live pool key, amount) paid once it is thrown


class KindOutcome(Protocol):
    """What a kind's distribution is over: enough to read outcome bands from."""

    @property
    def total(self) -> int: ...
    @property
    def success(self) -> bool: ...
    @property
    def critical_success(self) -> bool: ...
    @property
    def critical_failure(self) -> bool: ...


class AfterSpent(Protocol):
    """What a spend after the roll made of a thrown check: the check as it now reads and
    the cost paid (None, with ``message`` saying why, when nothing was bought)."""

    @property
    def rolled(self) -> Rolled: ...
    @property
    def cost(self) -> tuple[str, int] | None: ...
    @property
    def message(self) -> str | None: ...


class OfferRead(NamedTuple):
    """A record's ``offer`` read back: the band a spend reaches and each pool's cost."""

    label: str
    costs: tuple[tuple[str, int], ...]


class Thrown(Protocol):
    """Dice thrown by name, as a record of their own."""

    def to_json(self) -> dict[str, Any]: ...


class DiceThrower(Protocol):
    """A kind's throw of dice by name, outside a check (``dicebound.throw``)."""

    def throw(self, text: str, dice: DiceSource) -> Thrown: ...
    def odds(self, text: str) -> Thrown: ...


class KindPlayer(Protocol[Config_contra, Check_contra, Outcome]):
    """The play half of a kind: prepare a check from an ask, throw it, give its odds, and
    the kind's words in the lesson, the report and the dice card.

    A check is prepared in two parts: ``prepare_skill`` reads what the roller and the
    check's name decide (a value of the kind's own, immutable, never reading the tag's
    other attributes or the ladder), and ``prepare_question`` adds what the question
    asks (a difficulty, a modifier, a mode, a spend). ``prepare`` is the two in turn;
    the odds keep the first per character and answer every new question of a skill
    from it. ``prepare_question`` raises ``TagError`` for an ask it cannot resolve.
    The prepared check carries ``dc`` (what the record's dc says) and ``extras``
    (record attributes the preparation decided, such as ``threshold`` or ``bonus``)."""

    bands: BandRules = SUM_BANDS
    """How its bands read a result (the same rules as its compiler's)."""
    spends_after: bool = False
    """Whether the player may spend after the roll (``after``)."""
    plain_marks: bool = False
    """Whether its outcomes carry markers that ride beside success and failure
    (``critical_marks``) instead of criticals that bands or the result word read."""
    signed_numbers: bool = False
    """Whether a check's number is a modifier (``+5``) rather than a count of dice."""
    dc_words: str = "total to reach"
    """What ``dc=`` gives, in the lesson's words."""

    def prepare_skill(self, config: Config_contra, ask: SkillAsk) -> Any:
        """What the roller and the check decide, read off the sheet once for every
        question of the check (immutable: the odds share it between questions)."""
        ...

    def prepare_question(self, config: Config_contra, skill: Any, ask: CheckAsk) -> Prepared:
        """The check a question asks of a skill ``prepare_skill`` read (``skill``)."""
        ...

    def prepare(self, config: Config_contra, ask: CheckAsk) -> Prepared:
        """The check a tag asks: ``prepare_skill``, then ``prepare_question``."""
        skill = self.prepare_skill(config, SkillAsk(*ask[:5]))
        return self.prepare_question(config, skill, ask)

    def roll(self, check: Check_contra, dice: DiceSource) -> Rolled: ...
    def distribution(self, check: Check_contra) -> Dist[Outcome]: ...
    def margin(self, check: Check_contra, outcome: Outcome) -> int:
        """How far an outcome is past what the check needed (bands' ``margin``)."""
        ...

    # -- optional hooks: play -----------------------------------------------------------

    def throw_sides(self, check: Check_contra) -> tuple[int, ...] | None:
        """Every die's sides in throw order when no face decides them; else None."""
        return None

    def folded(
        self, check: Check_contra, tables: Tables | None = None, naturals: bool = True
    ) -> list[Group] | None:
        """The distribution already folded for a reading (``dicebound.odds.fold``), when
        the kind has a quicker way to it; else None. A group's outcomes read alike but
        for their total: the same criticals, natural and markers, and success on one
        end of the totals only (so a reading without bands splits a group once).
        ``tables`` is where the kind may keep what it works out of the ruleset's dice
        alone (``odds_distribution``); ``naturals`` is whether the bands read the
        natural face an outcome showed (a ``naturals: "shift"``): where they do not,
        outcomes apart only by it may be one group."""
        return None

    def odds_key(self, check: Check_contra) -> Hashable | None:
        """What of a check its ``folded`` groups depend on besides its config, apart
        from the number the bands read them against (its ``dc``) and how far they are
        moved (its ``odds_shift``), for a kind whose groups all carry their ``marks``:
        the odds fold the checks of one config with equal keys once and read each new
        dc (a difficulty, a ladder step) and shift (another character's number) off the
        same groups. None (the default): every check is folded afresh."""
        return None

    def odds_shift(self, check: Check_contra) -> int | None:
        """How far every total of a check's ``folded`` groups is moved by the check's
        own number, which its ``odds_key`` leaves out (dice-sum: the sheet's modifier):
        the groups of checks whose keys are equal are those of one another moved by the
        difference. None (the default): the key holds all the groups depend on."""
        return None

    def odds_question(
        self,
        config: Config_contra,
        skill: Any,
        ruleset: Ruleset,
        attrs: Mapping[str, str],
        ladder: Sequence[LadderStep],
    ) -> tuple[Hashable, int, int, str] | None:
        """What the odds read of a question of a skill ``prepare_skill`` read, where the
        kind says it without preparing the check (no view, no check made): the check's
        ``odds_key``, its ``dc``, its ``odds_shift`` and its ``summary``, each as
        ``prepare_question`` would make them for ``attrs`` under ``ladder``, or its
        ``TagError``. The odds answer a question whose key they have read before from
        these alone. None (the default): the check is prepared whole."""
        return None

    def odds_distribution(self, check: Check_contra, tables: Tables) -> Dist[Outcome]:
        """``distribution``, the same weights, with what depends on the ruleset's dice
        alone kept in ``tables``: a store of the ruleset's own (``dicebound.odds`` keeps
        it on its memo), shared by every check of it whoever asks, where a kind keeps
        values under keys that name the kind. A check then reads the table of the dice
        it throws with its own numbers rather than working the dice out again."""
        return self.distribution(check)

    def after(
        self, check: Check_contra, outcome: Outcome, pool_id: str, points: int, view: SheetView
    ) -> AfterSpent:
        """The player's spend after the roll (only where ``spends_after``)."""
        raise UsageError("this kind offers no spending after the roll")

    def distribution_after(
        self, check: Check_contra, pool_id: str, points: int, view: SheetView
    ) -> Dist[Outcome] | None:
        """The odds when the player spends up to ``points`` after the roll; None where
        the kind offers no spend after the roll."""
        return None

    def natural(self, outcome: Outcome) -> Natural:
        """The natural face an outcome showed, for a band's ``naturals: "shift"``."""
        return None

    def critical_marks(self, outcome: Outcome) -> Marks:
        """The markers an outcome shows beside its result (only where ``plain_marks``)."""
        return None

    def against(self, config: Config_contra) -> Against:
        """Which side of its number a roll succeeds on (bands' margin and fraction)."""
        return "at-most"

    def thrower(self, ruleset: Ruleset) -> DiceThrower:
        """Its dice thrown by name outside a check (``dicebound.throw``); a kind that
        throws none refuses."""
        raise UsageError(
            f"{ruleset.name} resolves checks with {ruleset.resolution.kind}; only a "
            "symbol-pool ruleset throws its dice by name."
        )

    # -- optional hooks: words ----------------------------------------------------------

    def step_words(self, step: LadderStep) -> str:
        """What a ladder step asks, in the report's words ("DC 15")."""
        return f"DC {step.dc}"

    def ladder_words(self, step: LadderStep) -> str:
        """A ladder step as the lesson lists it ("Hard: DC 15")."""
        return f"{step.label}: DC {step.dc}"

    def step_by_dc(
        self, kind: str, ladder: Sequence[LadderStep], step: LadderStep, shared: str
    ) -> list[tuple[str, str]] | str:
        """The ``dc=`` that asks a step whose label another step shares, or why none can
        (``shared`` says why ``difficulty=`` cannot)."""
        if step.dc is not None:
            return [("dc", str(step.dc))]
        return f"{shared}, and dc= does not name a step on a {kind} check."

    def attribute_lines(self, ruleset: Ruleset, config: Config_contra) -> list[str]:
        """The tag attributes only this kind offers, with their ranges, for the lesson."""
        return []

    def after_roll_lines(self, ruleset: Ruleset, config: Config_contra) -> list[str]:
        """What the lesson says of spending after the roll."""
        return []

    def spends(self, config: Config_contra) -> Sequence[Spend]:
        """The standing purchases ``spend=`` buys before the roll."""
        return ()

    def unmodified(self, config: Config_contra) -> Sequence[int]:
        """The faces ``unmodified=`` is written for."""
        return ()

    def mark_texts(self, config: Config_contra) -> list[str]:
        """What the file says a record's marks mean at the table, one line each."""
        return []

    def card_words(self, record: Record) -> str | None:
        """A record's symbols in words, for the dice card; None where it has none."""
        return None

    def read_offer(self, text: str) -> OfferRead | None:
        """A record's ``offer`` read back; None where the kind writes none."""
        return None


class Kind(KindCompiler, KindPlayer[Config_contra, Check_contra, Outcome], Protocol):
    """Both halves of a kind as one: what ``kinds/<kind>/`` provides."""
