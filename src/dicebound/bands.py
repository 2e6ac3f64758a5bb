"""Outcome bands: a check read as one of several named results (Capability API 1.135).

``resolution.outcomes`` names two to eight bands, best first. Most are read from a
number (``by``: the margin past what the check needed, the result itself, or on a
roll-against roll the share of the target it came under); a band ``on`` a critical
catches that critical and nothing else. The band decides the outcome: success and both
criticals come from it, never from the bare comparison.

This module is shared by every kind. The kind computes the number the bands read (see
``BandRules.value``) and says whether its result was critical or showed a natural face;
``read_band`` does the rest. Readings where the page is silent:

- ``naturals: "shift"`` moves among the bands read from the number only. The page says
  nothing else ever lands in an ``on`` band, so a shift never enters one, and "never
  past the ends" means the first and last number bands. A critical is placed before any
  shift and is never shifted.
- A critical with no band ``on`` it lands in the first (best) or last (worst) band read
  from the number, and stays a critical whatever that band says.
- "Best first" is checked as far as a file can say it: no succeeding band may come after
  a failing one.
- ``choice`` (success left to the player, step-pool's Sacrifice) goes only on a failing
  band that is not critical: the player may turn a plain failure into a success at a
  cost, which has no meaning on a band that already succeeds or on a critical one.
- What a kind's bands may read, how its margin is counted and whether a band may be
  ``on`` a critical are the kind's own (its ``BandRules``, in ``dicebound.kinds``); this
  module names no kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import accumulate
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from dicebound.errors import UsageError
from dicebound.problem_codes import (
    BY_NOT_FOR_KIND,
    CHOICE_ON_CRITICAL,
    CHOICE_ON_SUCCESS,
    DUPLICATE_ID,
    DUPLICATE_ON,
    FRACTION_DIVISOR,
    FRACTION_NEEDS_AT_MOST,
    LAST_BAND_AT_LEAST,
    MISSING_AT_LEAST,
    NATURALS_NOT_NONE,
    NO_FAILURE_BAND,
    NO_NUMBER_BAND,
    NO_SUCCESS_BAND,
    NOT_DECREASING,
    ON_BAND_AT_LEAST,
    ON_BAND_NOT_CRITICAL,
    ON_NOT_FOR_KIND,
    ON_SUCCESS_CONTRADICTION,
    SINGLE_DIE_ONLY,
    SUCCESS_BELOW_FAILURE,
    UNKNOWN_KIND,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import Arr, Bool, Enum, Id, Int, Node, Obj, Str, describe
from dicebound.values import field, frozen, replace

__all__ = [
    "OUTCOMES",
    "Against",
    "Band",
    "BandRules",
    "Bands",
    "By",
    "Critical",
    "Group",
    "Natural",
    "band_at",
    "compile_outcomes",
    "features",
    "group_of",
    "landing",
    "naturals_none",
    "outcome_order",
    "read_band",
]

By = Literal["margin", "total", "fraction"]
Critical = Literal["success", "failure"] | None
Natural = Literal["top", "bottom"] | None
Against = Literal["at-most", "at-least"]
OnCritical = Literal["critical-success", "critical-failure"]

AT_LEAST_LIMIT = 100_000
"""An ``atLeast`` lies in -100000..100000: past any margin or total a check can reach."""

_TIER = Obj(
    {
        "id": Id(),
        "label": Str(hi=80),
        "atLeast": Int(-AT_LEAST_LIMIT, AT_LEAST_LIMIT),
        "success": Bool(),
        "critical": Bool(),
        "text": Str(hi=200),
        "on": Enum(("critical-success", "critical-failure")),
        "choice": Bool(),
    },
    required=("id", "label"),
)

OUTCOMES: Node = Obj(
    {
        "by": Enum(("margin", "total", "fraction")),
        "naturals": Enum(("shift",)),
        "tiers": Arr(_TIER, lo=2, hi=8, unique_key="id", noun="band"),
    },
    required=("tiers",),
)
"""The shape of ``resolution.outcomes``."""


# -- compiled bands ----------------------------------------------------------------------


@frozen
class Band:
    """One band. Immutable.

    ``critical`` is ``"success"`` or ``"failure"`` for a critical band (of its own kind:
    a succeeding band's critical is a critical success) and for a band ``on`` a
    critical, else None. ``at_least`` is None on the last band read from the number and
    on the bands ``on`` a critical. A band ``read_band`` gives back may carry a critical
    its tier lacks (a natural that landed in the best band stays a critical): compare
    bands by ``id``.
    """

    id: str
    label: str
    success: bool
    critical: Critical = None
    text: str | None = None
    choice: bool = False
    at_least: int | None = None
    on: OnCritical | None = None


@frozen
class Bands:
    """A compiled ``resolution.outcomes``. Immutable; the tiers are best first.

    Invariants (made by ``compile_outcomes``): at least one band read from the number, the
    last of them without ``at_least`` and the others' strictly decreasing; at most one
    band on each critical; one band at least succeeds and one fails.
    """

    by: By
    shift: bool
    tiers: tuple[Band, ...]
    number_bands: tuple[Band, ...] = field(init=False, repr=False, compare=False)
    """The bands read from the number, best first (derived from ``tiers``)."""
    cuts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The number bands' ``atLeast``, all but the last's (derived): where they part."""
    number_ids: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The number bands' ids, best first (derived)."""
    critical_ids: tuple[str, str] = field(init=False, repr=False, compare=False)
    """The ids of the bands a critical success and a critical failure land in (derived:
    ``landing``'s)."""
    shown: tuple[tuple[str, str, bool, Critical], ...] = field(
        init=False, repr=False, compare=False
    )
    """Every band as the odds list it, best first (``outcome_order``): its id, label,
    success and critical (derived: the odds read it once per question)."""
    critical_at: tuple[int, int] = field(init=False, repr=False, compare=False)
    """Where in ``shown`` the bands of ``critical_ids`` stand (derived)."""
    number_at: Mapping[Natural, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    """Where in ``shown`` a result that reaches number band ``i`` first lands, by the
    natural it showed (``landing``'s, derived: with ``naturals: "shift"`` the top face
    one band better, the bottom one worse; else where the number says)."""

    def __post_init__(self) -> None:
        numbered = tuple(b for b in self.tiers if b.on is None)
        object.__setattr__(self, "number_bands", numbered)
        object.__setattr__(self, "number_ids", tuple(b.id for b in numbered))
        cuts = tuple(b.at_least for b in numbered if b.at_least is not None)
        object.__setattr__(self, "cuts", cuts)
        ids = (landing(self, 0, critical_success=True)[0].id, landing(self, 0, False, True)[0].id)
        object.__setattr__(self, "critical_ids", ids)
        shown = tuple((b.id, b.label, b.success, b.critical) for b in outcome_order(self))
        object.__setattr__(self, "shown", shown)
        at = {row[0]: i for i, row in enumerate(shown)}
        object.__setattr__(self, "critical_at", (at[ids[0]], at[ids[1]]))
        number_at = {
            natural: tuple(
                at[landing(self, i, natural=natural)[0].id] for i in range(len(numbered))
            )
            for natural in (None, "top", "bottom")
        }
        object.__setattr__(self, "number_at", MappingProxyType(number_at))

    def on(self, critical: OnCritical) -> Band | None:
        """The band a critical of that kind lands in, if the file names one."""
        return next((b for b in self.tiers if b.on == critical), None)

    def band(self, band_id: str) -> Band:
        """The band with that id."""
        for b in self.tiers:
            if b.id == band_id:
                return b
        raise UsageError(f'"{band_id}" is not a band of these outcomes')


class BandRules:
    """How one kind's bands read its results: what they may read ``by``, how far past
    what the check needed a result is, and whether a band may be ``on`` a critical.

    The defaults are a sum's (``total - dc``, read by margin or total, criticals caught);
    a kind whose bands read otherwise subclasses this and says so (``dicebound.kinds``).
    """

    reads: tuple[By, ...] = ("margin", "total")

    def on_refused(self, on: str) -> str | None:
        """Why no band may be ``on`` the critical ``on`` of this kind (None: it may be)."""
        return None

    def margin(self, total: int, dc: int, against: Against) -> int:
        """How far ``total`` is past ``dc``, the succeeding side up."""
        return total - dc

    def reach(
        self, by: By, cuts: Sequence[int], dc: int, against: Against
    ) -> tuple[list[int], bool] | None:
        """The totals whose number (``value``) reaches each cut, as one edge a cut: with
        ``True``, the totals at or above the edge, with ``False`` those at or below it.
        None where no edge of the totals says it (a fraction): the odds then read it
        total by total. The edges ``edges`` gives, placed at ``dc``."""
        found = self.edges(by, cuts, against)
        if found is None:
            return None
        offsets, rising, moves = found
        return [dc + offset if moves else offset for offset in offsets], rising

    def edges(
        self, by: By, cuts: Sequence[int], against: Against
    ) -> tuple[tuple[int, ...], bool, bool] | None:
        """``reach`` before a dc is known, so a check's odds work it out once for every
        dc they are read at: each edge, the side of it the totals reach (as ``reach``),
        and whether the edges move with the dc (each then lies that far from it; else
        it is the edge whatever the dc)."""
        if by == "total":
            return tuple(cuts), True, False
        if by == "margin":
            return self.margin_edges(cuts, against)
        return None

    def margin_edges(
        self, cuts: Sequence[int], against: Against
    ) -> tuple[tuple[int, ...], bool, bool] | None:
        """``edges`` by margin. A kind that counts its own ``margin`` says its own edges
        here; one that does not is read total by total (None), never by these."""
        if type(self).margin is not BandRules.margin:
            return None
        return tuple(cuts), True, True

    def value(self, by: By, total: int, dc: int, against: Against) -> int | Fraction:
        """The number bands read by ``by`` (``kinds.bands.band_value`` by a kind's name)."""
        if by == "total":
            return total
        if by == "fraction":
            if "fraction" not in self.reads or against != "at-most":
                raise UsageError('"fraction" bands read an at-most roll-against roll only')
            if total < 1:
                raise UsageError(f"a fraction band reads a roll of at least 1, not {total}")
            return Fraction(dc, total)
        return self.margin(total, dc, against)

    def by_refused(self, by: str, kind: str, written: bool) -> str:
        """Why bands of this kind cannot read by ``by``."""
        choices = " or ".join(f'"{b}"' for b in self.reads)
        if by == "fraction":
            return (
                '"fraction" reads the share of a target a roll came under, which only '
                f"roll-against has; {kind} bands read by {choices}."
            )
        return f'"{by}" is not something {kind} bands can read; use {choices}.'

    def single_die(self, block: Mapping[str, Any]) -> bool:
        """Whether a structurally valid resolution block throws one die whose faces a
        natural reads."""
        return False


SUM_BANDS = BandRules()
"""A sum's band rules: what a kind that says nothing of its bands reads by."""


# -- reading a result -------------------------------------------------------------------


def read_band(
    bands: Bands,
    *,
    value: int | Fraction,
    critical_success: bool = False,
    critical_failure: bool = False,
    natural: Natural = None,
) -> Band:
    """The band one result lands in; its ``success`` and ``critical`` are the outcome.

    A critical lands in the band on it, else in the best (or worst) band read from the
    number, and stays a critical. Otherwise the first band whose ``atLeast`` the value
    reaches, or the last band read from the number; then, with ``naturals: "shift"``, the
    top face moves it one band better and the bottom face one worse, never past the
    first or last band read from the number. A symbol pool passes no criticals: its
    markers never move a band.
    """
    numbered = bands.number_bands
    index = len(numbered) - 1
    if not (critical_success or critical_failure):
        index = next(
            (i for i, b in enumerate(numbered) if b.at_least is not None and value >= b.at_least),
            index,
        )
    return band_at(bands, index, critical_success, critical_failure, natural)


def band_at(
    bands: Bands,
    index: int,
    critical_success: bool = False,
    critical_failure: bool = False,
    natural: Natural = None,
) -> Band:
    """``read_band`` of a result whose number reaches number band ``index`` first (the
    odds know the index from a band's edges, not from one result's number)."""
    band, kind = landing(bands, index, critical_success, critical_failure, natural)
    return band if band.critical == kind or kind is None else replace(band, critical=kind)


def landing(
    bands: Bands,
    index: int,
    critical_success: bool = False,
    critical_failure: bool = False,
    natural: Natural = None,
) -> tuple[Band, Critical]:
    """The band ``band_at`` gives, as the file declares it, and the critical it must
    carry (None: the band's own): its ``id`` is the band's without making it again."""
    if critical_success and critical_failure:
        raise UsageError("a result read by bands cannot be both a critical success and failure")
    numbered = bands.number_bands
    if critical_success or critical_failure:
        which: OnCritical = "critical-success" if critical_success else "critical-failure"
        caught = bands.on(which)
        if caught is not None:
            return caught, None
        kind: Critical = "success" if critical_success else "failure"
        return (numbered[0] if critical_success else numbered[-1]), kind
    if bands.shift and natural == "top":
        index = max(index - 1, 0)
    elif bands.shift and natural == "bottom":
        index = min(index + 1, len(numbered) - 1)
    return numbered[index], None


class Group(NamedTuple):
    """Outcomes of a distribution that read alike but for their total, folded for a band
    reading (``dicebound.odds``): the distinct totals ascending, each ``totals[i] +
    shift`` (a kind's table of its dice alone, moved by the check's number, is read as
    it is kept), ``running[i]`` the weight of the first ``i`` of them (so
    ``running[-1]`` is the group's weight), and ``outcome(t)``, an outcome of the group
    whose total is ``t`` (shift included). ``marks`` is what every outcome of the group
    reads besides its total (critical success, critical failure, natural), where the
    kind knows it without making an outcome."""

    totals: Sequence[int]
    running: Sequence[int]
    outcome: Callable[[int], Any]
    shift: int = 0
    marks: tuple[bool, bool, Natural] | None = None


def group_of(pairs: Iterable[tuple[int, int]], outcome: Callable[[int], Any]) -> Group:
    """A group from (total, weight) pairs, the totals distinct."""
    ordered = sorted(pairs)
    return Group([t for t, _ in ordered], [0, *accumulate(w for _, w in ordered)], outcome)


def outcome_order(bands: Bands) -> tuple[Band, ...]:
    """Every band, best first, as the odds list them."""
    return bands.tiers


# -- import -------------------------------------------------------------------------------


def naturals_none(block: Mapping[str, Any]) -> bool:
    """Whether ``resolution.naturals`` is absent or ``"none"`` for both checks and saves."""
    naturals = block.get("naturals")
    if not isinstance(naturals, Mapping):
        return True
    return all(naturals.get(group, "none") == "none" for group in ("check", "save"))


def compile_outcomes(
    raw: object,
    path: Path,
    *,
    kind: str,
    rules: BandRules | None,
    single_die: bool,
    resolution_naturals_none: bool,
    against: Against | None = None,
) -> tuple[Bands | None, list[Problem]]:
    """Check ``resolution.outcomes`` (its shape first) and build its bands.

    ``rules`` are the band rules of ``kind`` (None: no built kind of that name; the
    kinds' ``kinds.bands.compile_bands`` looks them up by name). ``single_die`` and
    ``resolution_naturals_none`` describe the resolution block beside it
    (``kinds.bands.single_die_of`` and ``naturals_none`` read them off a raw block);
    ``against`` is a roll-against block's (``"at-most"`` when None). Every problem is
    collected.
    """
    problems = list(OUTCOMES.check(raw, path))
    if any(p.code != DUPLICATE_ID for p in problems):
        return None, problems  # a repeated id leaves the bands readable: check on
    assert isinstance(raw, dict)
    add = problems.append
    by: By = raw.get("by", "margin")
    if rules is None:
        add(Problem(path, UNKNOWN_KIND, f'"{kind}" is not a resolution kind bands know.'))
        return None, problems
    if by not in rules.reads:
        here = (*path, "by") if "by" in raw else path
        add(Problem(here, BY_NOT_FOR_KIND, rules.by_refused(by, kind, "by" in raw)))
    elif by == "fraction" and (against or "at-most") != "at-most":
        add(
            Problem(
                (*path, "by"),
                FRACTION_NEEDS_AT_MOST,
                '"fraction" reads how small a share of the target the roll came under, so '
                f'it needs an "at-most" roll, and this ruleset rolls "{against}".',
            )
        )
    shift = raw.get("naturals") == "shift"
    if shift and not single_die:
        add(
            Problem(
                (*path, "naturals"),
                SINGLE_DIE_ONLY,
                '"shift" reads the highest and lowest face of a single die, and this '
                "resolution throws more than one die.",
            )
        )
    if shift and not resolution_naturals_none:
        add(
            Problem(
                (*path, "naturals"),
                NATURALS_NOT_NONE,
                '"shift" replaces resolution.naturals, so set its check and save to "none" '
                "beside it.",
            )
        )
    tiers = _read_tiers(raw["tiers"], (*path, "tiers"), rules, by, add)
    if problems:
        return None, problems
    return Bands(by=by, shift=shift, tiers=tiers), []


def _read_tiers(
    raw_tiers: Sequence[Mapping[str, Any]],
    at: Path,
    rules: BandRules,
    by: By,
    add: Callable[[Problem], None],
) -> tuple[Band, ...]:
    """Read the tiers, adding every problem of their order, criticals and choices."""
    bands: list[Band] = []
    on_seen: dict[str, int] = {}
    for i, raw in enumerate(raw_tiers):
        here = (*at, i)
        on: OnCritical | None = raw.get("on")
        success = bool(raw.get("success", on == "critical-success"))
        critical = bool(raw.get("critical", on is not None))
        if on is not None:
            refused = rules.on_refused(on)
            if refused is not None:
                add(Problem((*here, "on"), ON_NOT_FOR_KIND, refused))
            if on in on_seen:
                add(
                    Problem(
                        (*here, "on"),
                        DUPLICATE_ON,
                        f'band {on_seen[on]} is already on "{on}"; there is at most one band '
                        "on each critical.",
                    )
                )
            else:
                on_seen[on] = i
            if "atLeast" in raw:
                add(
                    Problem(
                        (*here, "atLeast"),
                        ON_BAND_AT_LEAST,
                        f'a band on "{on}" catches that critical whatever the number says, so '
                        "it has no atLeast.",
                    )
                )
            wants = on == "critical-success"
            if "success" in raw and raw["success"] is not wants:
                add(
                    Problem(
                        (*here, "success"),
                        ON_SUCCESS_CONTRADICTION,
                        f'a band on "{on}" is {"a success" if wants else "not a success"}, '
                        f"so success cannot be {describe(raw['success'])}.",
                    )
                )
                success = wants
            if raw.get("critical") is False:
                add(
                    Problem(
                        (*here, "critical"),
                        ON_BAND_NOT_CRITICAL,
                        f'a critical that lands in a band on "{on}" stays a critical, so the '
                        "band cannot say critical is false.",
                    )
                )
        if raw.get("choice") is True:
            if success:
                add(
                    Problem(
                        (*here, "choice"),
                        CHOICE_ON_SUCCESS,
                        "choice lets the player turn a failure into a success at a cost, so it "
                        "goes on a failing band, and this band already succeeds.",
                    )
                )
            elif critical:
                add(
                    Problem(
                        (*here, "choice"),
                        CHOICE_ON_CRITICAL,
                        "choice lets the player turn a plain failure into a success at a cost; "
                        "a critical failure cannot be chosen away.",
                    )
                )
        mark: Critical = None
        if critical:
            mark = "success" if success else "failure"
        at_least = raw.get("atLeast")
        bands.append(
            Band(
                id=str(raw["id"]),
                label=str(raw["label"]),
                success=success,
                critical=mark,
                text=raw.get("text"),
                choice=bool(raw.get("choice", False)),
                at_least=None if at_least is None or on is not None else int(at_least),
                on=on,
            )
        )
    _check_numbers(raw_tiers, at, by, add)
    _check_sides(bands, at, add)
    return tuple(bands)


def _check_numbers(
    raw_tiers: Sequence[Mapping[str, Any]], at: Path, by: By, add: Callable[[Problem], None]
) -> None:
    """The bands read from the number: every one but the last has an ``atLeast``, each
    lower than the one before it; on ``fraction`` each divides the target."""
    numbered = [i for i, raw in enumerate(raw_tiers) if "on" not in raw]
    if not numbered:
        add(
            Problem(
                at,
                NO_NUMBER_BAND,
                "every band is on a critical, so a result that is not critical would land in "
                "none; add a band read from the number, without atLeast, to catch it.",
            )
        )
        return
    last = numbered[-1]
    before: tuple[str, int] | None = None  # (id, atLeast) of the last band with one
    for i in numbered:
        raw = raw_tiers[i]
        if i == last:
            if "atLeast" in raw:
                add(
                    Problem(
                        (*at, i, "atLeast"),
                        LAST_BAND_AT_LEAST,
                        f"{describe(raw['atLeast'])} is the atLeast of the last band read from "
                        "the number, which has none because it catches everything below the "
                        "band before it.",
                    )
                )
            continue
        if "atLeast" not in raw:
            add(
                Problem(
                    (*at, i),
                    MISSING_AT_LEAST,
                    'the key "atLeast" is required here: only the last band read from the '
                    "number goes without one.",
                )
            )
            continue
        value = int(raw["atLeast"])
        if by == "fraction" and value < 1:
            add(
                Problem(
                    (*at, i, "atLeast"),
                    FRACTION_DIVISOR,
                    f"{value} cannot divide the target; a fraction band's atLeast is a whole "
                    "number from 1 up (2 reads a roll at or under half the target).",
                )
            )
        if before is not None and value >= before[1]:
            add(
                Problem(
                    (*at, i, "atLeast"),
                    NOT_DECREASING,
                    f'{value} is not below {before[1]}, the atLeast of band "{before[0]}"; each '
                    "band's atLeast is lower than the one before it.",
                )
            )
        before = (str(raw["id"]), value)


def _check_sides(bands: Sequence[Band], at: Path, add: Callable[[Problem], None]) -> None:
    """One band at least succeeds and one fails, and no success comes after a failure."""
    if not any(b.success for b in bands):
        add(
            Problem(
                at,
                NO_SUCCESS_BAND,
                'no band succeeds; at least one band needs "success": true.',
            )
        )
    if all(b.success for b in bands):
        add(Problem(at, NO_FAILURE_BAND, "every band succeeds; at least one band must fail."))
    failed: str | None = None
    for i, b in enumerate(bands):
        if not b.success and failed is None:
            failed = b.id
        elif b.success and failed is not None:
            add(
                Problem(
                    (*at, i),
                    SUCCESS_BELOW_FAILURE,
                    f'band "{b.id}" succeeds but comes after band "{failed}", which fails; '
                    "bands are listed best first, so every succeeding band comes before the "
                    "failing ones.",
                )
            )


def features(
    raw: object, path: Path = ("resolution", "outcomes")
) -> Iterator[tuple[str, Path, str]]:
    """The capability a packaged ruleset that declares bands needs (1.135)."""
    if raw is not None:
        yield "1.135", path, "outcome bands"
