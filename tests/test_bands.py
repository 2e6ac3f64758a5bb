"""Outcome bands: every rule of the page's section "Outcome bands: more than success or
failure" (and the bands the kind sections mention), read on dice-sum outcomes, and every
import refusal with its path."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.bands import (
    OUTCOMES,
    Band,
    Bands,
    features,
    naturals_none,
    outcome_order,
    read_band,
)
from dicebound.errors import UsageError
from dicebound.kinds.bands import band_value, compile_bands, single_die_of
from dicebound.kinds.dice_sum import SumCheck, SumConfig, SumOutcome, distribution
from dicebound.problems import Path, Problem

AT: Path = ("resolution", "outcomes")

# The page's example: Pathfinder's four degrees, read by margin, naturals shifting.
DEGREES: dict[str, Any] = {
    "by": "margin",
    "naturals": "shift",
    "tiers": [
        {
            "id": "crit",
            "label": "Critical success",
            "atLeast": 10,
            "success": True,
            "critical": True,
        },
        {"id": "hit", "label": "Success", "atLeast": 0, "success": True},
        {"id": "miss", "label": "Failure", "atLeast": -9},
        {"id": "fumble", "label": "Critical failure", "critical": True},
    ],
}

# A band on a critical success above the number bands, as Blades' two sixes.
ON_CRITS: dict[str, Any] = {
    "tiers": [
        {"id": "lucky", "label": "Lucky", "on": "critical-success"},
        {"id": "well", "label": "Done well", "atLeast": 5, "success": True},
        {"id": "done", "label": "Done", "atLeast": 0, "success": True},
        {"id": "missed", "label": "Missed"},
        {"id": "disaster", "label": "Disaster", "on": "critical-failure"},
    ]
}

# Critical bands read from the number, no band on a critical: a natural lands at an end.
PLAIN: dict[str, Any] = {
    "tiers": [
        {"id": "well", "label": "Done well", "atLeast": 5, "success": True},
        {"id": "done", "label": "Done", "atLeast": 0, "success": True},
        {"id": "missed", "label": "Missed"},
    ]
}


def _bands(raw: dict[str, Any], kind: str = "dice-sum", **kw: Any) -> Bands:
    args: dict[str, Any] = {"single_die": True, "resolution_naturals_none": True, **kw}
    bands, problems = compile_bands(raw, AT, kind=kind, **args)
    assert problems == []
    assert bands is not None
    return bands


def _outcome(check: SumCheck, face: int) -> SumOutcome:
    """The dice-sum outcome of a single d20 showing ``face``, read off its distribution."""
    return next(o for o in distribution(check) if o.total == face + check.modifier)


def _read(bands: Bands, check: SumCheck, face: int) -> Band:
    out = _outcome(check, face)
    return read_band(
        bands,
        value=band_value(bands.by, out.total, check.dc),
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        natural=out.natural,
    )


D20 = SumConfig()
D20_BOTH = SumConfig(naturals_check="both", naturals_save="both")


# -- reading dice-sum outcomes: one row per rule ---------------------------------------------

READS: list[tuple[str, dict[str, Any], SumCheck, int, str, bool, str | None]] = [
    # (id, outcomes, check, face, band id, success, critical)
    (
        "margin: total minus difficulty 0 lands in the band at 0",
        PLAIN,
        SumCheck(D20, 2, 12),
        10,
        "done",
        True,
        None,
    ),
    (
        "margin: 5 past the dc lands at atLeast 5",
        PLAIN,
        SumCheck(D20, 2, 12),
        15,
        "well",
        True,
        None,
    ),
    (
        "the last band has no atLeast and catches everything below",
        PLAIN,
        SumCheck(D20, 2, 12),
        2,
        "missed",
        False,
        None,
    ),
    (
        "total: the summed total whatever the difficulty",
        {**PLAIN, "by": "total"},
        SumCheck(D20, 2, 30),
        4,
        "well",
        True,
        None,
    ),
    (
        "the band decides success, never the bare comparison (total 3 against dc 30 succeeds)",
        {**PLAIN, "by": "total"},
        SumCheck(D20, 2, 30),
        1,
        "done",
        True,
        None,
    ),
    (
        "critical marks a band a critical of its kind: a succeeding band a critical success",
        DEGREES,
        SumCheck(D20, 5, 10),
        16,
        "crit",
        True,
        "success",
    ),
    (
        "critical on a failing band is a critical failure",
        DEGREES,
        SumCheck(D20, 0, 15),
        4,
        "fumble",
        False,
        "failure",
    ),
    (
        "a natural 20 lands in the band on critical-success",
        ON_CRITS,
        SumCheck(D20_BOTH, 0, 30, naturals="both"),
        20,
        "lucky",
        True,
        "success",
    ),
    (
        "a natural 1 lands in the band on critical-failure",
        ON_CRITS,
        SumCheck(D20_BOTH, 20, 5, naturals="both"),
        1,
        "disaster",
        False,
        "failure",
    ),
    (
        "nothing else ever lands in an on band: 19 far past the dc is the best number band",
        ON_CRITS,
        SumCheck(D20_BOTH, 20, 5, naturals="both"),
        19,
        "well",
        True,
        None,
    ),
    (
        "without a band on it, a natural 20 lands in the best band and stays a critical",
        PLAIN,
        SumCheck(D20_BOTH, 0, 30, naturals="both"),
        20,
        "well",
        True,
        "success",
    ),
    (
        "without a band on it, a natural 1 lands in the worst band and stays a critical",
        PLAIN,
        SumCheck(D20_BOTH, 30, 5, naturals="both"),
        1,
        "missed",
        False,
        "failure",
    ),
    (
        "max-only: the natural 1 is no critical, so it is read from the number",
        ON_CRITS,
        SumCheck(D20_BOTH, 30, 5, naturals="max-only"),
        1,
        "well",
        True,
        None,
    ),
    (
        "shift: the highest face moves the result one band better (failure to success)",
        DEGREES,
        SumCheck(D20, 0, 21),
        20,
        "hit",
        True,
        None,
    ),
    (
        "shift: the lowest face moves the result one band worse (success to failure)",
        DEGREES,
        SumCheck(D20, 10, 5),
        1,
        "miss",
        False,
        None,
    ),
    (
        "shift never past the best end: a natural 20 already in the best band stays there",
        DEGREES,
        SumCheck(D20, 10, 5),
        20,
        "crit",
        True,
        "success",
    ),
    (
        "shift never past the worst end: a natural 1 already in the worst band stays there",
        DEGREES,
        SumCheck(D20, 0, 30),
        1,
        "fumble",
        False,
        "failure",
    ),
    (
        "shift moves one band only: a natural 20 far below the dc goes from critical failure "
        "to failure",
        DEGREES,
        SumCheck(D20, 0, 40),
        20,
        "miss",
        False,
        None,
    ),
    (
        "shift moves among number bands only, never into a band on a critical",
        {**ON_CRITS, "naturals": "shift"},
        SumCheck(D20, 10, 5),
        20,
        "well",
        True,
        None,
    ),
    (
        "shift never into the band on critical-failure",
        {**ON_CRITS, "naturals": "shift"},
        SumCheck(D20, 0, 30),
        1,
        "missed",
        False,
        None,
    ),
    (
        "a middle face does not shift",
        DEGREES,
        SumCheck(D20, 0, 21),
        19,
        "miss",
        False,
        None,
    ),
]


@pytest.mark.parametrize(
    ("raw", "check", "face", "band_id", "success", "critical"),
    [row[1:] for row in READS],
    ids=[row[0] for row in READS],
)
def test_read_band_on_dice_sum(
    raw: dict[str, Any],
    check: SumCheck,
    face: int,
    band_id: str,
    success: bool,
    critical: str | None,
) -> None:
    band = _read(_bands(raw), check, face)
    assert (band.id, band.success, band.critical) == (band_id, success, critical)


def test_a_natural_in_the_best_band_keeps_the_bands_label_and_text() -> None:
    # "stays a critical": only the critical changes; the band is the tier by id.
    bands = _bands(PLAIN)
    band = _read(bands, SumCheck(D20_BOTH, 0, 30, naturals="both"), 20)
    tier = bands.band("well")
    assert band.id == tier.id and band.label == tier.label and tier.critical is None
    assert band.critical == "success"


def test_without_naturals_shift_a_top_face_does_not_move() -> None:
    bands = _bands({k: v for k, v in DEGREES.items() if k != "naturals"})
    assert _read(bands, SumCheck(D20, 0, 21), 20).id == "miss"


def test_every_outcome_of_a_d20_lands_in_one_band_and_odds_sum_to_one() -> None:
    # The odds read every outcome of the kind's distribution through the same function.
    bands = _bands(ON_CRITS)
    check = SumCheck(D20_BOTH, 3, 12, naturals="both")
    dist = distribution(check)
    by_band: dict[str, Fraction] = {}
    for out, p in dist.probabilities().items():
        band = read_band(
            bands,
            value=band_value(bands.by, out.total, check.dc),
            critical_success=out.critical_success,
            critical_failure=out.critical_failure,
            natural=out.natural,
        )
        by_band[band.id] = by_band.get(band.id, Fraction(0)) + p
    assert sum(by_band.values()) == 1
    # 20 is "lucky", 1 "disaster"; margins: 14..19 -> 5+ "well" (faces 14-19), 9..13 "done".
    assert by_band == {
        "lucky": Fraction(1, 20),
        "well": Fraction(6, 20),
        "done": Fraction(5, 20),
        "missed": Fraction(7, 20),
        "disaster": Fraction(1, 20),
    }
    assert [b.id for b in outcome_order(bands)] == ["lucky", "well", "done", "missed", "disaster"]


def test_both_criticals_at_once_is_refused() -> None:
    with pytest.raises(UsageError, match="both"):
        read_band(_bands(PLAIN), value=0, critical_success=True, critical_failure=True)


# -- band_value: what `by` reads, per kind -------------------------------------------------

VALUES: list[tuple[str, str, int, int, str, str, int | Fraction]] = [
    ("sum margin is total minus difficulty", "margin", 17, 15, "dice-sum", "at-most", 2),
    ("sum total is the total", "total", 17, 15, "dice-sum", "at-most", 17),
    ("pool margin is net successes minus those needed", "margin", 2, 3, "dice-pool", "at-most", -1),
    ("pool total is the net successes", "total", 2, 3, "dice-pool", "at-most", 2),
    ("symbol-pool margin is net - needed + 1", "margin", 2, 2, "symbol-pool", "at-most", 1),
    ("dice-highest margin is kept dice minus dc", "margin", 6, 4, "dice-highest", "at-most", 2),
    (
        "roll-against at-most margin is how far under the target",
        "margin",
        30,
        45,
        "roll-against",
        "at-most",
        15,
    ),
    (
        "roll-against at-least margin is how far over",
        "margin",
        14,
        10,
        "roll-against",
        "at-least",
        4,
    ),
    (
        "fraction is the target over the roll",
        "fraction",
        9,
        45,
        "roll-against",
        "at-most",
        Fraction(5),
    ),
    ("step-pool total is the EFFORT", "total", 2, 6, "step-pool", "at-most", 2),
]


@pytest.mark.parametrize(
    ("by", "total", "dc", "kind", "against", "want"),
    [row[1:] for row in VALUES],
    ids=[row[0] for row in VALUES],
)
def test_band_value(
    by: Any, total: int, dc: int, kind: str, against: Any, want: int | Fraction
) -> None:
    assert band_value(by, total, dc, kind=kind, against=against) == want


# roll-against "fraction": Call of Cthulhu with a skill of 45. Regular is at or under 45,
# hard at or under 22 (half, rounded down), extreme at or under 9 (a fifth).
COC: dict[str, Any] = {
    "by": "fraction",
    "tiers": [
        {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
        {"id": "extreme", "label": "Extreme success", "atLeast": 5, "success": True},
        {"id": "hard", "label": "Hard success", "atLeast": 2, "success": True},
        {"id": "regular", "label": "Regular success", "atLeast": 1, "success": True},
        {"id": "fail", "label": "Failure"},
        {"id": "fumble", "label": "Fumble", "on": "critical-failure"},
    ],
}


@pytest.mark.parametrize(
    ("roll", "band_id"),
    [(9, "extreme"), (10, "hard"), (22, "hard"), (23, "regular"), (45, "regular"), (46, "fail")],
    ids=lambda v: str(v),
)
def test_fraction_a_roll_at_or_under_target_over_atleast_lands_in_the_band(
    roll: int, band_id: str
) -> None:
    bands = _bands(COC, kind="roll-against", single_die=True)
    value = band_value("fraction", roll, 45, kind="roll-against")
    assert read_band(bands, value=value).id == band_id


def test_fraction_reads_only_an_at_most_roll_of_at_least_one() -> None:
    with pytest.raises(UsageError):
        band_value("fraction", 0, 45, kind="roll-against")
    with pytest.raises(UsageError):
        band_value("fraction", 10, 45, kind="roll-against", against="at-least")
    with pytest.raises(UsageError):
        band_value("margin", 2, 6, kind="step-pool")


# -- the bands the kind sections write, accepted -------------------------------------------

BLADES: dict[str, Any] = {
    "by": "total",
    "tiers": [
        {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
        {"id": "full", "label": "Full success", "atLeast": 6, "success": True},
        {"id": "partial", "label": "Partial", "atLeast": 4, "success": True, "text": "At a cost."},
        {"id": "bad", "label": "Bad outcome"},
    ],
}

# step-pool: EFFORT counted, Sacrifice is a failing band whose success is the player's.
EFFORT: dict[str, Any] = {
    "by": "total",
    "tiers": [
        {"id": "triumph", "label": "Triumph", "atLeast": 3, "success": True, "critical": True},
        {"id": "success", "label": "Success", "atLeast": 2, "success": True},
        {"id": "sacrifice", "label": "Sacrifice", "atLeast": 1, "success": False, "choice": True},
        {"id": "botch", "label": "Botch", "critical": True},
    ],
}

ACCEPTED: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("the page's four degrees on a single d20", DEGREES, "dice-sum", {}),
    ("dice-highest reads by total with a band on critical-success", BLADES, "dice-highest", {}),
    ("roll-against reads by fraction on an at-most roll", COC, "roll-against", {}),
    ("roll-against at-most written out", COC, "roll-against", {"against": "at-most"}),
    ("step-pool's Sacrifice is success false with choice", EFFORT, "step-pool", {}),
    ("a pool read by total: three bands and a miss", PLAIN, "dice-pool", {}),
    ("a symbol pool reads the number only", PLAIN, "symbol-pool", {}),
    ("a 2d6 ruleset may have bands without shift", PLAIN, "dice-sum", {"single_die": False}),
    (
        "naturals beside bands without shift: a natural lands at a critical",
        ON_CRITS,
        "dice-sum",
        {"resolution_naturals_none": False},
    ),
]


@pytest.mark.parametrize(
    ("raw", "kind", "kw"), [row[1:] for row in ACCEPTED], ids=[row[0] for row in ACCEPTED]
)
def test_accepted(raw: dict[str, Any], kind: str, kw: dict[str, Any]) -> None:
    bands = _bands(raw, kind=kind, **kw)
    assert len(bands.tiers) == len(raw["tiers"])


def test_compiled_bands_carry_what_the_record_and_teaching_need() -> None:
    blades = _bands(BLADES, kind="dice-highest")
    assert blades.by == "total" and not blades.shift
    assert blades.tiers[0] == Band("critical", "Critical", True, "success", on="critical-success")
    assert blades.tiers[2].text == "At a cost."
    effort = _bands(EFFORT, kind="step-pool")
    sacrifice = effort.band("sacrifice")
    assert sacrifice.choice and not sacrifice.success and sacrifice.critical is None
    assert effort.band("botch").critical == "failure"
    degrees = _bands(DEGREES)
    assert degrees.by == "margin" and degrees.shift
    assert [b.at_least for b in degrees.tiers] == [10, 0, -9, None]


def test_by_defaults_to_margin() -> None:
    assert _bands(PLAIN).by == "margin"


def test_on_bands_infer_their_success_when_it_is_not_written() -> None:
    bands = _bands(ON_CRITS)
    assert bands.band("lucky").success and bands.band("lucky").critical == "success"
    assert not bands.band("disaster").success and bands.band("disaster").critical == "failure"


def test_features_needs_capability_1_135() -> None:
    assert list(features(PLAIN)) == [("1.135", AT, "outcome bands")]
    assert list(features(None)) == []


def test_single_die_and_naturals_read_off_a_block() -> None:
    assert single_die_of("dice-sum", {})  # 1d20 by default
    assert not single_die_of("dice-sum", {"dice": {"count": 2, "sides": 6}})
    assert single_die_of("roll-against", {"dice": {"count": 1, "sides": 100}})
    assert not single_die_of("roll-against", {"tens": {"max": 2}})
    assert not single_die_of("dice-pool", {})
    assert naturals_none({}) and naturals_none({"naturals": {"check": "none"}})
    assert not naturals_none({"naturals": {"save": "min-only"}})


def test_the_schema_names_every_tier_key() -> None:
    schema = OUTCOMES.schema()
    tier = schema["properties"]["tiers"]["items"]["properties"]
    assert set(tier) >= {"id", "label", "atLeast", "success", "critical", "text", "on", "choice"}
    assert schema["properties"]["tiers"]["minItems"] == 2
    assert schema["properties"]["tiers"]["maxItems"] == 8


# -- every refusal, with its path ----------------------------------------------------------


def _tiers(*tiers: dict[str, Any], **outer: Any) -> dict[str, Any]:
    return {**outer, "tiers": list(tiers)}


S = {"id": "s", "label": "Success", "atLeast": 0, "success": True}
F = {"id": "f", "label": "Failure"}


def _with(tier: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = {**tier, **changes}
    return {k: v for k, v in out.items() if v is not None}


REFUSED: list[tuple[str, Any, str, dict[str, Any], set[tuple[str, str]]]] = [
    # (id, outcomes, kind, compile keywords, {(path, code)})
    (
        "two to eight bands: one is too few",
        _tiers(S),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers", "too-few")},
    ),
    (
        "two to eight bands: nine are too many",
        _tiers(*[_with(S, id=f"s{i}", atLeast=10 - i) for i in range(8)], F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers", "too-many")},
    ),
    (
        "ids are unique",
        _tiers(S, _with(F, id="s")),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].id", "duplicate-id")},
    ),
    (
        "each band's atLeast is lower than the one before it (equal)",
        _tiers(S, _with(S, id="s2", atLeast=0), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].atLeast", "not-decreasing")},
    ),
    (
        "each band's atLeast is lower than the one before it (higher)",
        _tiers(S, _with(S, id="s2", atLeast=3), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].atLeast", "not-decreasing")},
    ),
    (
        "the last band has no atLeast, because it catches everything below",
        _tiers(S, _with(F, atLeast=-5)),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].atLeast", "last-band-at-least")},
    ),
    (
        "every band read from the number but the last has an atLeast",
        _tiers(_with(S, atLeast=None), _with(S, id="s2"), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0]", "missing-at-least")},
    ),
    (
        "a band on a critical has no atLeast",
        _tiers({"id": "c", "label": "C", "on": "critical-success", "atLeast": 20}, S, F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].atLeast", "on-band-at-least")},
    ),
    (
        "at most one band on critical-success",
        _tiers(
            {"id": "c", "label": "C", "on": "critical-success"},
            {"id": "d", "label": "D", "on": "critical-success"},
            S,
            F,
        ),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].on", "duplicate-on")},
    ),
    (
        "at most one band on critical-failure",
        _tiers(
            S,
            F,
            {"id": "c", "label": "C", "on": "critical-failure"},
            {"id": "d", "label": "D", "on": "critical-failure"},
        ),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[3].on", "duplicate-on")},
    ),
    (
        "a band on critical-success with success false is refused",
        _tiers({"id": "c", "label": "C", "on": "critical-success", "success": False}, S, F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].success", "on-success-contradiction")},
    ),
    (
        "a band on critical-failure with success true is refused",
        _tiers(S, F, {"id": "c", "label": "C", "on": "critical-failure", "success": True}),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[2].success", "on-success-contradiction")},
    ),
    (
        "a band on a critical stays a critical: critical false is refused",
        _tiers(S, F, {"id": "c", "label": "C", "on": "critical-failure", "critical": False}),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[2].critical", "on-band-not-critical")},
    ),
    (
        "at least one band must succeed",
        _tiers(_with(F, id="f1", atLeast=0), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers", "no-success-band")},
    ),
    (
        "at least one band must fail",
        _tiers(S, _with(S, id="s2", atLeast=None)),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers", "no-failure-band")},
    ),
    (
        "a band read from the number is needed: one on each critical leaves a plain result nowhere",
        _tiers(
            {"id": "c", "label": "C", "on": "critical-success"},
            {"id": "d", "label": "D", "on": "critical-failure"},
        ),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers", "no-number-band")},
    ),
    (
        "best first: a succeeding band after a failing one is refused",
        _tiers(_with(F, atLeast=5), _with(S, atLeast=None)),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1]", "success-below-failure")},
    ),
    (
        "shift needs one die",
        _tiers(S, F, naturals="shift"),
        "dice-sum",
        {"single_die": False},
        {("resolution.outcomes.naturals", "single-die-only")},
    ),
    (
        "shift replaces resolution.naturals, which must be none",
        _tiers(S, F, naturals="shift"),
        "dice-sum",
        {"resolution_naturals_none": False},
        {("resolution.outcomes.naturals", "naturals-not-none")},
    ),
    (
        "fraction only on roll-against (dice-sum refused with a sentence)",
        _tiers(_with(S, atLeast=1), F, by="fraction"),
        "dice-sum",
        {},
        {("resolution.outcomes.by", "by-not-for-kind")},
    ),
    (
        "fraction refused on a pool",
        _tiers(_with(S, atLeast=1), F, by="fraction"),
        "dice-pool",
        {},
        {("resolution.outcomes.by", "by-not-for-kind")},
    ),
    (
        "fraction only on an at-most roll",
        _tiers(_with(S, atLeast=1), F, by="fraction"),
        "roll-against",
        {"against": "at-least"},
        {("resolution.outcomes.by", "fraction-needs-at-most")},
    ),
    (
        "fraction: each atLeast divides the target, so it is 1 or more",
        _tiers(_with(S, atLeast=0), F, by="fraction"),
        "roll-against",
        {},
        {("resolution.outcomes.tiers[0].atLeast", "fraction-divisor")},
    ),
    (
        "step-pool has no margin: by left out (margin) is refused at outcomes",
        _tiers(_with(S, atLeast=2), F),
        "step-pool",
        {"single_die": False},
        {("resolution.outcomes", "by-not-for-kind")},
    ),
    (
        "step-pool has no margin: by margin written is refused at by",
        _tiers(_with(S, atLeast=2), F, by="margin"),
        "step-pool",
        {"single_die": False},
        {("resolution.outcomes.by", "by-not-for-kind")},
    ),
    (
        "a band with on: is refused on symbol-pool",
        _tiers({"id": "c", "label": "C", "on": "critical-success"}, S, F),
        "symbol-pool",
        {"single_die": False},
        {("resolution.outcomes.tiers[0].on", "on-not-for-kind")},
    ),
    (
        "choice goes only on a failing band",
        _tiers(_with(S, choice=True), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].choice", "choice-on-success")},
    ),
    (
        "choice cannot turn a critical failure into a success",
        _tiers(S, _with(F, critical=True, choice=True)),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[1].choice", "choice-on-critical")},
    ),
    (
        "text is at most 200 characters",
        _tiers(_with(S, text="x" * 201), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].text", "too-long")},
    ),
    (
        "text is one line",
        _tiers(_with(S, text="one\ntwo"), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].text", "bad-text")},
    ),
    (
        "text may not hold the Game Master's square brackets",
        _tiers(_with(S, text="see [skill_check]"), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].text", "bad-text")},
    ),
    (
        "a label is required",
        _tiers(_with(S, label=None), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0]", "missing-key")},
    ),
    (
        "tiers is required",
        {"by": "total"},
        "dice-sum",
        {},
        {("resolution.outcomes", "missing-key")},
    ),
    (
        "an unknown key is refused",
        _tiers(_with(S, atleast=3), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].atleast", "unknown-key")},
    ),
    (
        "by is margin, total or fraction",
        _tiers(S, F, by="net"),
        "dice-sum",
        {},
        {("resolution.outcomes.by", "not-allowed")},
    ),
    (
        'naturals is "shift" only',
        _tiers(S, F, naturals="both"),
        "dice-sum",
        {},
        {("resolution.outcomes.naturals", "not-allowed")},
    ),
    (
        "on is critical-success or critical-failure",
        _tiers({"id": "c", "label": "C", "on": "critical"}, S, F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].on", "not-allowed")},
    ),
    (
        "atLeast is a whole number",
        _tiers(_with(S, atLeast=0.5), F),
        "dice-sum",
        {},
        {("resolution.outcomes.tiers[0].atLeast", "wrong-type")},
    ),
    (
        "outcomes is an object",
        [S, F],
        "dice-sum",
        {},
        {("resolution.outcomes", "wrong-type")},
    ),
    (
        "a kind bands do not know",
        _tiers(S, F),
        "dice-sum-of-sorts",
        {},
        {("resolution.outcomes", "unknown-kind")},
    ),
]


@pytest.mark.parametrize(
    ("raw", "kind", "kw", "want"),
    [row[1:] for row in REFUSED],
    ids=[row[0] for row in REFUSED],
)
def test_refused(
    raw: dict[str, Any], kind: str, kw: dict[str, Any], want: set[tuple[str, str]]
) -> None:
    args: dict[str, Any] = {"single_die": True, "resolution_naturals_none": True, **kw}
    bands, problems = compile_bands(copy.deepcopy(raw), AT, kind=kind, **args)
    assert bands is None
    assert {(p.where, p.code) for p in problems} == want
    for p in problems:
        assert p.message.endswith((".", "?")), p.message


def test_every_refusal_is_reported_at_once() -> None:
    raw = _tiers(
        {"id": "c", "label": "C", "on": "critical-success", "success": False, "atLeast": 3},
        _with(S, atLeast=5),
        _with(S, id="s2", atLeast=5),
        F,
        naturals="shift",
    )
    _, problems = compile_bands(
        raw, AT, kind="dice-sum", single_die=False, resolution_naturals_none=False
    )
    assert {(p.where, p.code) for p in problems} == {
        ("resolution.outcomes.naturals", "single-die-only"),
        ("resolution.outcomes.naturals", "naturals-not-none"),
        ("resolution.outcomes.tiers[0].atLeast", "on-band-at-least"),
        ("resolution.outcomes.tiers[0].success", "on-success-contradiction"),
        ("resolution.outcomes.tiers[2].atLeast", "not-decreasing"),
    }


def test_sentences_name_the_value_and_the_rule() -> None:
    _, problems = compile_bands(
        _tiers(S, _with(S, id="s2", atLeast=3), F),
        AT,
        kind="dice-sum",
        single_die=True,
        resolution_naturals_none=True,
    )
    assert problems == [
        Problem(
            (*AT, "tiers", 1, "atLeast"),
            "not-decreasing",
            '3 is not below 0, the atLeast of band "s"; each band\'s atLeast is lower than '
            "the one before it.",
        )
    ]


# -- properties ------------------------------------------------------------------------------


@st.composite
def _number_bands(draw: st.DrawFn) -> Bands:
    """Two to eight number bands, best first, successes before failures."""
    n = draw(st.integers(2, 8))
    cuts = sorted(draw(st.lists(st.integers(-50, 50), min_size=n - 1, max_size=n - 1, unique=True)))
    cuts.reverse()
    winners = draw(st.integers(1, n - 1))
    tiers = []
    for i in range(n):
        tier: dict[str, Any] = {"id": f"b{i}", "label": f"B{i}", "success": i < winners}
        if i < n - 1:
            tier["atLeast"] = cuts[i]
        tiers.append(tier)
    return _bands({"naturals": "shift", "tiers": tiers})


@given(_number_bands(), st.integers(-60, 60), st.integers(0, 20))
def test_a_higher_value_never_lands_in_a_worse_band(bands: Bands, value: int, more: int) -> None:
    order = [b.id for b in bands.tiers]
    low = read_band(bands, value=value)
    high = read_band(bands, value=value + more)
    assert order.index(high.id) <= order.index(low.id)


@given(_number_bands(), st.integers(-60, 60), st.sampled_from(["top", "bottom"]))
def test_shift_moves_one_band_at_most_and_stays_inside(
    bands: Bands, value: int, natural: Any
) -> None:
    order = [b.id for b in bands.tiers]
    plain = order.index(read_band(bands, value=value).id)
    moved = order.index(read_band(bands, value=value, natural=natural).id)
    want = max(plain - 1, 0) if natural == "top" else min(plain + 1, len(order) - 1)
    assert moved == want
