"""The sheet math, one row per rule of docs/design/format.md ("Shared keys", "The sheet",
"Characters", "Which row a name means") and the page state.

Every row's id is the rule in words. The rulesets are built straight from
``dicebound.ruleset.model`` (our own invented game, "Tallow"), so these tests do not
depend on the ruleset compiler; ``test_character.py`` reads the same fixture.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from dicebound.character import load_character
from dicebound.ruleset.model import (
    Ability,
    AbilityModifier,
    Adjust,
    Catalog,
    CatalogEntry,
    Condition,
    Derived,
    Field,
    Gm,
    LadderStep,
    ListColumn,
    ListDecl,
    ListPools,
    LivePool,
    LiveState,
    Resolution,
    Ruleset,
    Section,
    Sheet,
    SkillDef,
    Tier,
    Track,
    TrackKind,
    TrackLevel,
    Untrained,
    ValueRef,
)
from dicebound.sheet import (
    Change,
    Character,
    Paid,
    PaymentRefused,
    SheetView,
    pay,
)
from dicebound.values import replace


def ref(source: Any, name: str | None = None, **kw: Any) -> ValueRef:
    return ValueRef(source=source, name=name, **kw)


def const(n: float) -> ValueRef:
    return ValueRef(source="const", value=n)


TIERS = (
    Tier("untrained", "Untrained"),
    Tier("half", "Half", multiplier=0.5, round="down"),
    Tier("half_up", "Half, up", multiplier=0.5, round="up"),
    Tier("half_near", "Half, nearest", multiplier=0.5, round="nearest"),
    Tier("trained", "Trained", multiplier=1),
    Tier("expert", "Expert", multiplier=2),
    Tier("drilled", "Drilled", flat=1),
    Tier("veteran", "Veteran", multiplier=1, flat=1),
)
# fmt: off
SHEET = Sheet(
    version=1,
    sections=(
        Section("body", "Body", Untrained("by", -1)),
        Section("lore", "Lore", Untrained("harder")),
        Section("craft", "Craft"),
    ),
    abilities=tuple(
        Ability(a, a.title(), a[:3].upper(), min=1, max=20, default=10)
        for a in ("brawn", "grace", "wits", "heart")
    ),
    skills=(
        SkillDef("climb", "Climb", "skill", ability="brawn", section="body",
                 untrained=Untrained("by", -1)),  # the section's rule, resolved
        SkillDef("sneak", "Sneak", "skill", ability="grace"),
        SkillDef("tinker", "Tinker", "skill", ability="wits", section="craft",
                 untrained=Untrained("by", -2)),
        SkillDef("delve", "Delve", "skill", ability="wits", section="body",
                 untrained=Untrained("refuse")),  # its own rule beats the section's
        SkillDef("recall", "Recall", "skill", section="lore", untrained=Untrained("harder")),
        SkillDef("soothe", "Soothe", "skill", ability="heart", cap=ref("livePool", "nerve")),
        SkillDef("balance", "Balance", "skill", ability="grace", cap=const(3)),
    ),
    saves=(
        SkillDef("dodge", "Dodge", "save", ability="grace"),
        SkillDef("endure", "Endure", "save", ability="brawn"),
    ),
    save_tiers=("untrained", "trained"),
    bonus_min=-3,
    bonus_max=5,
    fields=(
        Field("level", "Level", "number", min=1, max=20, default=1),
        Field("toughness", "Toughness", "number", min=0, max=6, default=2),
        Field("carry", "Carry", "number", min=0, max=50, default=0, integer=False),
        Field("rank", "Rank", "number", min=1, max=5),
        Field("focus", "Focus", "enum", values=("none", "brawn", "grace", "wits", "heart"),
              default="none"),
        Field("watch", "Watch", "enum", values=("dusk", "night", "dawn"), default="night"),
        Field("hand", "Hand", "enum", values=("left", "right")),
        Field("calling", "Calling", "text", max_length=20),
        Field("notes", "Notes", "longtext", max_length=100),
        Field("lucky", "Lucky", "boolean"),
        Field("kit", "Kit dice", "dice", default="1d6"),
    ),
    derived=(
        Derived("prof", "Proficiency", "stepTable", source=ref("field", "level"),
                table=((1, 2), (5, 3), (9, 4))),
        Derived("hp_max", "HP max", "sum",
                of=(const(8), ref("field", "toughness"), ref("abilityMod", "brawn"))),
        Derived("lowest", "Lowest", "min",
                of=(ref("abilityScore", "brawn"), ref("abilityScore", "grace"))),
        Derived("highest", "Highest", "max",
                of=(ref("abilityScore", "brawn"), ref("abilityScore", "grace"))),
        Derived("half_down", "Half down", "scale", of=(ref("abilityScore", "brawn"),),
                multiplier=0.5, round="down"),
        Derived("half_up", "Half up", "scale", of=(ref("abilityScore", "brawn"),),
                multiplier=0.5, round="up"),
        Derived("half_near", "Half nearest", "scale", of=(ref("abilityScore", "brawn"),),
                multiplier=0.5, round="nearest"),
        Derived("neg_half_near", "Negative half", "scale", of=(const(-7),), multiplier=0.5,
                round="nearest"),
        Derived("dawn_bonus", "Dawn", "enumTable", enum_from=("field", "watch"),
                enum_table={"dawn": 1}),
        Derived("light_adj", "Light", "enumTable", enum_from=("liveState", "light"),
                enum_table={"dim": -1, "dark": -2}),
        Derived("burden", "Burden", "sum",
                of=(ref("listSum", "gear", column="bulk", only_when="packed"),)),
        Derived("burdened", "Burdened", "stepTable", source=ref("derived", "burden"),
                table=((0, 0), (3, -1), (6, -2))),
        Derived("passive", "Passive", "sum", of=(const(10), ref("skillMod", "sneak"))),
        Derived("cast_mod", "Cast", "sum", of=(ref("abilityModFromField", "focus"),)),
        Derived("harm_left", "Harm left", "sum",
                of=(ref("liveTrack", "harm", read="remaining"),)),
        Derived("strain_boxes", "Strain boxes", "sum", of=(const(2), ref("abilityMod", "heart"))),
    ),
    lists=(
        ListDecl("gear", "Gear", 3, (
            ListColumn("name", "Name", "text", required=True, max_length=30),
            ListColumn("bulk", "Bulk", "number", min=0, max=5, default=0),
            ListColumn("packed", "Packed", "boolean", default=True),
            ListColumn("sort", "Sort", "enum", values=("blade", "tool")),
        )),
        ListDecl("tricks", "Tricks", 5, (
            ListColumn("name", "Name", "text", required=True, max_length=30),
            ListColumn("uses", "Uses", "number", min=0, max=9, default=1),
            ListColumn("recharge", "Recharge", "enum", values=("camp", "scene"), default="camp"),
        ), pools=ListPools("name", "uses", "recharge")),
        ListDecl("scars", "Scars", 4, (
            ListColumn("name", "Name", "text", required=True, max_length=30),
            ListColumn("levels", "Levels", "number", min=1, max=2, default=1),
            ListColumn("penalty", "Penalty", "number", min=-3, max=0, default=-1),
        )),
        ListDecl("charms", "Charms", 4, (
            ListColumn("name", "Name", "text", required=True, max_length=30),
        )),
    ),
    pools=(
        LivePool("hp", "Hit points", ref("derived", "hp_max"), allow_temp=True),
        LivePool("nerve", "Nerve", const(3)),
        LivePool("stress", "Stress", const(6), start="empty"),
        LivePool("odd", "Odd", const(2.5)),
    ),
    tracks=(
        Track("heat", "Heat", 0, const(5), default=1),
        Track("fatigue", "Fatigue", 1, ref("field", "toughness")),
        Track("harm", "Harm", 0, const(4),
              levels=(TrackLevel("Fine", 0), TrackLevel("Hurt", -1), TrackLevel("Bleeding", -3),
                      TrackLevel("Down", -99)),
              kinds=(TrackKind("knock", "K", 0), TrackKind("tear", "T", 1)),
              extra=("scars", "levels", "penalty")),
        Track("strain", "Strain", 0, ref("derived", "strain_boxes"),
              kinds=(TrackKind("strain", "S", 0),), boxes_by="remaining",
              boxes_table=((0, -1), (1, 0)), fill="indexed", on_full="refuse"),
        Track("toil", "Toil", 0, const(5), kinds=(TrackKind("toil", "T", 0),),
              boxes_by="filled", boxes_table=((0, 0), (2, -1), (4, -2))),
    ),
    text=(("oath", "Oath", 20),),
    conditions=(Condition("shaken", "Shaken"), Condition("pinned", "Pinned")),
    states=(
        LiveState("light", "Light", ("lit", "dim", "dark"), "lit"),
        LiveState("stance", "Stance", ("guarded", "steady", "reckless"), "steady"),
    ),
)
# fmt: on

RS = Ruleset(
    id="tallow",
    version=1,
    name="Tallow",
    resolution=Resolution(
        kind="dice-sum",
        ability_modifier=AbilityModifier("floorHalfMinusTen"),
        tiers=TIERS,
        ladder=(LadderStep("Hard", dc=15),),
        config=None,
        proficiency_bonus=ref("derived", "prof"),
        penalty_from="harm",
        adjust=(
            Adjust(ref("derived", "burdened"), ("brawn",)),
            Adjust(ref("derived", "light_adj")),
            Adjust(const(-1), ("grace", "wits")),
        ),
    ),
    sheet=SHEET,
    gm=Gm("Name the check."),
    catalogs=(
        Catalog(
            "charms",
            "Charms",
            entries=(
                CatalogEntry("steady-hand", "Steady Hand"),
                CatalogEntry("iron-will", "Iron Will"),
            ),
        ),
        Catalog("relics", "Relics", asset="catalogs/relics.json"),
    ),
)


def variant(**resolution: Any) -> Ruleset:
    """The fixture with some resolution keys changed."""
    return replace(RS, resolution=replace(RS.resolution, **resolution))


IDENTITY = variant(ability_modifier=AbilityModifier("identity"))
STEP = variant(ability_modifier=AbilityModifier("stepTable", ((3, -2), (6, 0), (9, 1))))
HALVES = variant(ability_modifier=AbilityModifier("stepTable", ((1, -0.5), (10, 1.5))))
NO_PENALTY = variant(penalty_from=None)
HEAT_PENALTY = variant(penalty_from="heat")
STRAIN_PENALTY = variant(penalty_from="strain")
HALF_ADJUST = variant(adjust=(Adjust(const(-0.5)),))
QUARTERS_ADJUST = variant(adjust=(Adjust(const(-0.75)), Adjust(const(-0.75))))


def char(
    build: dict[str, Any] | None = None,
    live: dict[str, Any] | None = None,
    rs: Ruleset = RS,
    name: str = "Tess",
) -> Character:
    raw: dict[str, Any] = {"name": name}
    if build is not None:
        raw["sheet"] = {"v": 1, "build": build}
    if live is not None:
        raw["live"] = live
    return load_character(rs, raw)


def view(
    build: dict[str, Any] | None = None, live: dict[str, Any] | None = None, rs: Ruleset = RS
) -> SheetView:
    return SheetView(rs, char(build, live, rs))


def ab(**scores: int) -> dict[str, Any]:
    return {"abilities": scores}


def gear(*rows: dict[str, Any]) -> dict[str, Any]:
    return {"lists": {"gear": list(rows)}}


def marks(track: str, *kinds: str) -> dict[str, Any]:
    return {"wounds": {track: {"marks": list(kinds)}}}


def check(
    group: Any,
    item: str,
    build: dict[str, Any] | None = None,
    live: Any = None,
    with_ability: str | None = None,
    rs: Ruleset = RS,
) -> Any:
    return view(build, live, rs).check_number(group, item, with_ability)


def paid(costs: list[tuple[str, int]], build: Any = None, live: Any = None) -> Any:
    result = pay(RS, char(build, live), costs)
    if isinstance(result, PaymentRefused):
        return result.reason
    v = SheetView(RS, result.character)
    return tuple((c.pool, c.from_, c.to) for c in result.changes), {
        key: v.pool_value(key) for key in {c.pool for c in result.changes}
    }


def untouched_after_refusal() -> tuple[str, int]:
    before = char(live={"pools": {"nerve": {"value": 2}}})
    result = pay(RS, before, [("nerve", 1), ("hp", 99)])
    assert isinstance(result, PaymentRefused)
    return result.reason, SheetView(RS, before).pool_value("nerve")


def never_mutates() -> tuple[int, int]:
    before = char()
    result = pay(RS, before, [("nerve", 2)])
    assert isinstance(result, Paid)
    return SheetView(RS, before).pool_value("nerve"), SheetView(RS, result.character).pool_value(
        "nerve"
    )


def sparse_after_pay() -> bool:
    result = pay(RS, char(live={"pools": {"stress": {"value": 2}}}), [("stress", 2)])
    assert isinstance(result, Paid)
    return "stress" in result.character.live.pools


R = Callable[[], object]
F = Fraction

# fmt: off
RULES: list[tuple[str, R, object]] = [
    # ── abilityModifier (format.md "Shared keys") ──
    ("identity: the score itself is the modifier",
     lambda: view(ab(brawn=3), rs=IDENTITY).ability_mod("brawn"), 3),
    ("floorHalfMinusTen: floor((score-10)/2) for score 9 is -1",
     lambda: view(ab(brawn=9)).ability_mod("brawn"), -1),
    ("floorHalfMinusTen: score 15 gives 2", lambda: view(ab(brawn=15)).ability_mod("brawn"), 2),
    ("floorHalfMinusTen: score 1 gives floor(-4.5) = -5",
     lambda: view(ab(brawn=1)).ability_mod("brawn"), -5),
    ("stepTable: the highest row whose threshold is at or below the score",
     lambda: view(ab(brawn=8), rs=STEP).ability_mod("brawn"), 0),
    ("stepTable: a score equal to a threshold takes that row",
     lambda: view(ab(brawn=9), rs=STEP).ability_mod("brawn"), 1),
    ("stepTable: input below the first threshold takes the first row",
     lambda: view(ab(brawn=1), rs=STEP).ability_mod("brawn"), -2),
    # ── tiers ("Shared keys"; the page: the first tier is what an unlisted skill gets) ──
    ("proficiency.bonus is read from its value reference (a stepTable off level 5 is 3)",
     lambda: view({"fields": {"level": 5}}).proficiency_bonus(), 3),
    ("tier: an unlisted skill is at the first tier",
     lambda: view().tier_of("skill", "sneak").id, "untrained"),
    ("tier: the first tier (multiplier 0) adds nothing",
     lambda: check("skill", "sneak").tier_bonus, 0),
    ("tier: round(multiplier x bonus) + flat, trained at bonus 2 adds 2",
     lambda: check("skill", "sneak", {"skills": {"sneak": "trained"}}).tier_bonus, 2),
    ("tier: expertise (multiplier 2) at bonus 3 adds 6",
     lambda: check("skill", "sneak", {"skills": {"sneak": "expert"}, "fields": {"level": 5}})
     .tier_bonus, 6),
    ("tier: round(multiplier x bonus) + flat, half proficiency rounds down (0.5 x 3 is 1)",
     lambda: check("skill", "sneak", {"skills": {"sneak": "half"}, "fields": {"level": 5}})
     .tier_bonus, 1),
    ("tier: round up (0.5 x 3 is 2)",
     lambda: check("skill", "sneak", {"skills": {"sneak": "half_up"}, "fields": {"level": 5}})
     .tier_bonus, 2),
    ("tier: round nearest takes a half up (0.5 x 3 is 2)",
     lambda: check("skill", "sneak", {"skills": {"sneak": "half_near"}, "fields": {"level": 5}})
     .tier_bonus, 2),
    ("tier: flat adds without a multiplier",
     lambda: check("skill", "sneak", {"skills": {"sneak": "drilled"}}).tier_bonus, 1),
    ("tier: multiplier x bonus and flat add together (1 x 2 + 1)",
     lambda: check("skill", "sneak", {"skills": {"sneak": "veteran"}}).tier_bonus, 3),
    # ── check numbers (format.md "The sheet") ──
    ("skill check number = abilityMod + tier + bonuses[id] (3 + 2 + 1)",
     lambda: check("skill", "sneak", {**ab(grace=16), "skills": {"sneak": "trained"},
                                      "bonuses": {"sneak": 1}}).number, 6),
    ("bonuses: a skill with no bonus adds 0",
     lambda: check("skill", "sneak", {**ab(grace=16), "skills": {"sneak": "trained"}}).number, 5),
    ("skill without an ability has no ability term (tier 2 + bonus 2)",
     lambda: check("skill", "recall", {"skills": {"recall": "trained"},
                                       "bonuses": {"recall": 2}}).number, 4),
    ("save check number = abilityMod + tier + bonuses[id], skills and saves sharing bonuses",
     lambda: check("save", "dodge", {**ab(grace=14), "saves": {"dodge": "trained"},
                                     "bonuses": {"dodge": 1}}).number, 5),
    ("with=: another ability takes the place of the skill's own (brawn 18 for grace 8)",
     lambda: check("skill", "sneak", {**ab(brawn=18, grace=8), "skills": {"sneak": "trained"}},
                   with_ability="brawn").number, 6),
    ("with=: the number says the ability was swapped",
     lambda: check("skill", "sneak", with_ability="brawn").swapped, True),
    ("with=: naming the item's own ability is no swap",
     lambda: check("skill", "sneak", with_ability="grace").swapped, False),
    ("cap holds the finished number to at most cap (6 held to 3)",
     lambda: check("skill", "balance", {**ab(grace=18), "skills": {"balance": "trained"}}).number,
     3),
    ("cap: the number before the cap is kept for the record",
     lambda: check("skill", "balance", {**ab(grace=18), "skills": {"balance": "trained"}})
     .uncapped, 6),
    ("cap: a number below the cap stands",
     lambda: check("skill", "balance", ab(grace=12)).number, 1),
    ("cap: a number of halves below the cap is rounded down (1 1/2 to 1)",
     lambda: check("skill", "balance", ab(grace=12), rs=HALVES).number, 1),
    ("cap: a number of halves past the cap is held to it (5 1/2 held to 3)",
     lambda: check("skill", "balance", {**ab(grace=12), "skills": {"balance": "expert"}},
                   rs=HALVES).number, 3),
    ("cap: with= swaps the ability before the cap holds",
     lambda: check("skill", "balance", {**ab(brawn=20), "skills": {"balance": "trained"}},
                   with_ability="brawn").number, 3),
    ("cap reads a live pool: a spent pool holds the number down (Soothe by Nerve left)",
     lambda: check("skill", "soothe", {**ab(heart=16), "skills": {"soothe": "trained"}},
                   {"pools": {"nerve": {"value": 1}}}).number, 1),
    ("cap reads an untouched full pool as its max",
     lambda: check("skill", "soothe", {**ab(heart=16), "skills": {"soothe": "trained"}}).number, 3),
    ("untrained {by}: adds by at the first tier (wits +1, by -2)",
     lambda: check("skill", "tinker", ab(wits=12)).number, -1),
    ("untrained {by}: the parts say which rule applied",
     lambda: (lambda c: (c.untrained, c.untrained_rule, c.untrained_by))(
         check("skill", "tinker", ab(wits=12))), (True, "by", -2)),
    ("untrained {by}: nothing is added once trained",
     lambda: check("skill", "tinker", {**ab(wits=12), "skills": {"tinker": "trained"}}).number, 3),
    ("untrained: a section's rule applies to an item in it",
     lambda: check("skill", "climb").untrained_by, -1),
    ("untrained: the item's own rule beats its section's (refuse over by -1)",
     lambda: (lambda c: (c.untrained_rule, c.number))(check("skill", "delve")), ("refuse", 0)),
    ("untrained refuse is exposed so the engine can refuse",
     lambda: view().untrained_rule("skill", "delve"), ("refuse", 0)),
    ("untrained harder is exposed so the engine can make the check harder",
     lambda: check("skill", "recall").untrained_rule, "harder"),
    ("untrained rules apply only at the first tier",
     lambda: check("skill", "recall", {"skills": {"recall": "trained"}}).untrained_rule, "normal"),
    ("untrained: an item with no rule anywhere is normal",
     lambda: (lambda c: (c.untrained, c.untrained_rule))(check("skill", "sneak")),
     (True, "normal")),
    ("ability check: the ability's modifier alone",
     lambda: check("ability", "brawn", ab(brawn=14)).number, 2),
    ("ability + ability: the second ability's modifier is added when asked",
     lambda: check("ability", "brawn", ab(brawn=14, wits=16), with_ability="wits").number, 5),
    ("ability + ability: the check rolls with both abilities",
     lambda: check("ability", "brawn", with_ability="wits").abilities, ("brawn", "wits")),
    ("a check number that is not whole rounds down (1.5 is 1)",
     lambda: check("ability", "brawn", ab(brawn=12), rs=HALVES).number, 1),
    ("a negative check number that is not whole rounds down (-0.5 is -1)",
     lambda: check("ability", "brawn", ab(brawn=5), rs=HALVES).number, -1),
    # ── derived values (format.md "The sheet") ──
    ("derived sum adds its references (8 + toughness 3 + brawn mod 2)",
     lambda: view({**ab(brawn=14), "fields": {"toughness": 3}}).derived("hp_max"), 13),
    ("derived min takes the smallest", lambda: view(ab(brawn=14, grace=9)).derived("lowest"), 9),
    ("derived max takes the largest", lambda: view(ab(brawn=14, grace=9)).derived("highest"), 14),
    ("scale: round down, 7 x 0.5 is 3", lambda: view(ab(brawn=7)).derived("half_down"), 3),
    ("scale: round up, 7 x 0.5 is 4", lambda: view(ab(brawn=7)).derived("half_up"), 4),
    ("scale: round nearest takes a half up, 7 x 0.5 is 4",
     lambda: view(ab(brawn=7)).derived("half_near"), 4),
    ("scale: round nearest takes a half toward +infinity, -7 x 0.5 is -3",
     lambda: view().derived("neg_half_near"), -3),
    ("derived stepTable reads the row for its from (burden 4 is -1)",
     lambda: view(gear({"name": "a", "bulk": 2}, {"name": "b", "bulk": 2})).derived("burdened"),
     -1),
    ("enumTable from a field: the number for the field's value",
     lambda: view({"fields": {"watch": "dawn"}}).derived("dawn_bonus"), 1),
    ("enumTable: a value missing from the table reads default",
     lambda: view().derived("dawn_bonus"), 0),
    ("enumTable from a live state follows the state",
     lambda: view(live={"states": {"light": "dark"}}).derived("light_adj"), -2),
    ("enumTable from a live state at its default (lit, not in the table) reads default",
     lambda: view().derived("light_adj"), 0),
    ("passive score: const 10 + skillMod (the skill's full check number)",
     lambda: view({**ab(grace=14), "skills": {"sneak": "trained"}}).derived("passive"), 14),
    # ── value references (format.md "Value references") ──
    ("const reads its number", lambda: view().value(const(2.5)), F(5, 2)),
    ("field reads a number field's value",
     lambda: view({"fields": {"level": 7}}).value(ref("field", "level")), 7),
    ("field reads a number field that is not whole exactly",
     lambda: view({"fields": {"carry": 2.5}}).value(ref("field", "carry")), F(5, 2)),
    ("field reads a boolean field as 1",
     lambda: view({"fields": {"lucky": True}}).value(ref("field", "lucky")), 1),
    ("field reads a boolean field as 0 when false", lambda: view().value(ref("field", "lucky")), 0),
    ("field reads a text field as 0",
     lambda: view({"fields": {"calling": "7"}}).value(ref("field", "calling")), 0),
    ("field reads an enum field as 0", lambda: view().value(ref("field", "watch")), 0),
    ("abilityScore reads the raw score",
     lambda: view(ab(wits=13)).value(ref("abilityScore", "wits")), 13),
    ("abilityMod reads the score after abilityModifier",
     lambda: view(ab(wits=13)).value(ref("abilityMod", "wits")), 1),
    ("abilityModFromField reads the modifier of the ability the field names",
     lambda: view({**ab(wits=14), "fields": {"focus": "wits"}}).derived("cast_mod"), 2),
    ("abilityModFromField reads 0 when the value is not an ability (none)",
     lambda: view(ab(wits=14)).derived("cast_mod"), 0),
    ("skillMod reads the skill's full check number, cap included",
     lambda: view({**ab(grace=18), "skills": {"balance": "trained"}})
     .value(ref("skillMod", "balance")), 3),
    ("saveMod reads the save's full check number",
     lambda: view({**ab(brawn=16), "saves": {"endure": "trained"}})
     .value(ref("saveMod", "endure")), 5),
    ("liveTrack value: an untouched track sits at its default",
     lambda: view().value(ref("liveTrack", "heat")), 1),
    ("liveTrack value: a track without a default starts at its min",
     lambda: view().value(ref("liveTrack", "fatigue")), 1),
    ("liveTrack value reads the live number",
     lambda: view(live={"tracks": {"heat": 3}}).value(ref("liveTrack", "heat")), 3),
    ("liveTrack filled is how far above min",
     lambda: view(live={"tracks": {"fatigue": 2}})
     .value(ref("liveTrack", "fatigue", read="filled")), 1),
    ("liveTrack remaining is the room below max",
     lambda: view(live={"tracks": {"heat": 3}})
     .value(ref("liveTrack", "heat", read="remaining")), 2),
    ("liveTrack penalty on a plain track is 0",
     lambda: view(live={"tracks": {"heat": 5}})
     .value(ref("liveTrack", "heat", read="penalty")), 0),
    ("liveTrack value on a wound track is the marks on it",
     lambda: view(live=marks("harm", "knock", "knock")).value(ref("liveTrack", "harm")), 2),
    ("liveTrack remaining on a wound track is the rungs still clear",
     lambda: view(live=marks("harm", "knock")).derived("harm_left"), 3),
    ("liveTrack penalty on a wound track is the penalty in force",
     lambda: view(live=marks("harm", "tear", "knock", "knock"))
     .value(ref("liveTrack", "harm", read="penalty")), -3),
    ("livePool of an untouched full pool is its max",
     lambda: view().value(ref("livePool", "nerve")), 3),
    ("start empty pool reads 0", lambda: view().value(ref("livePool", "stress")), 0),
    ("livePool reads the live value",
     lambda: view(live={"pools": {"nerve": {"value": 1}}}).value(ref("livePool", "nerve")), 1),
    ("listSum adds a number column over the list's rows",
     lambda: view(gear({"name": "a", "bulk": 1}, {"name": "b", "bulk": 2, "packed": False},
                       {"name": "c", "bulk": 3})).value(ref("listSum", "gear", column="bulk")), 6),
    ("listSum onlyWhen counts only rows whose boolean column is true",
     lambda: view(gear({"name": "a", "bulk": 1}, {"name": "b", "bulk": 2, "packed": False},
                       {"name": "c", "bulk": 3})).derived("burden"), 4),
    ("listSum: a row without the cell reads its column's default (packed is true, bulk 0)",
     lambda: view(gear({"name": "a", "bulk": 2}, {"name": "b"})).derived("burden"), 2),
    ("itemStat reads its default (a character carries no items)",
     lambda: view().value(ref("itemStat", value=2)), 2),
    # ── the blank build (format.md "The build") ──
    ("blank build: every ability at its default", lambda: view().ability_score("grace"), 10),
    ("blank build: a number field at its default", lambda: view().field_value("level"), 1),
    ("blank build: a number field with no default is 0 held to its range (rank 1..5 is 1)",
     lambda: view().field_value("rank"), 1),
    ("blank build: an enum field with no default takes its first value",
     lambda: view().field_value("hand"), "left"),
    ("blank build: a boolean field with no default is false",
     lambda: view().field_value("lucky"), False),
    ("blank build: a text field with no default is empty",
     lambda: view().field_value("calling"), ""),
    # ── live pools (format.md "The sheet", "Live state") ──
    ("pool max reads its value reference (hp_max 8 + 2 + 0)", lambda: view().pool_max("hp"), 10),
    ("pool max rounds down (2.5 is 2)", lambda: view().pool_max("odd"), 2),
    ("list-row pool: keyed <list>:<row name lower-cased>",
     lambda: view({"lists": {"tricks": [{"name": "Last Ember", "uses": 2}]}}).pool_keys()[-1],
     "tricks:last ember"),
    ("list-row pool: its max is the row's maxColumn",
     lambda: view({"lists": {"tricks": [{"name": "Last Ember", "uses": 2}]}})
     .pool_max("tricks:last ember"), 2),
    ("list-row pool: starts full",
     lambda: view({"lists": {"tricks": [{"name": "Last Ember", "uses": 2}]}})
     .pool_value("tricks:last ember"), 2),
    ("list-row pool: a row without the max cell reads the column default",
     lambda: view({"lists": {"tricks": [{"name": "Spark"}]}}).pool_max("tricks:spark"), 1),
    ("list-row pool: a row whose max is 0 is no pool",
     lambda: "tricks:dud" in view({"lists": {"tricks": [{"name": "Dud", "uses": 0}]}})
     .pool_keys(), False),
    ("list-row pool: two rows under one name are one pool, the first row's",
     lambda: view({"lists": {"tricks": [{"name": "Spark", "uses": 2},
                                        {"name": "spark", "uses": 5}]}})
     .pool_max("tricks:spark"), 2),
    ("list-row pool: the live value is read by its key",
     lambda: view({"lists": {"tricks": [{"name": "Spark", "uses": 2}]}},
                  {"pools": {"tricks:spark": {"value": 0}}}).pool_value("tricks:spark"), 0),
    ("list-row pool: knows the catalog entry whose row wrote it (its _catalog mark)",
     lambda: view({"lists": {"tricks": [{"name": "Spark", "_catalog": "charms/iron-will"}]}})
     .row_pools()[0].catalog, "charms/iron-will"),
    ("list-row pool: the recharge column's value rides along",
     lambda: view({"lists": {"tricks": [{"name": "Spark", "recharge": "scene"}]}})
     .row_pools()[0].recharge, "scene"),
    ("pool temp reads the stored temp (allowTemp)",
     lambda: view(live={"pools": {"hp": {"value": 4, "temp": 3}}}).pool_temp("hp"), 3),
    # ── live tracks and wound tracks (format.md "The sheet") ──
    ("plain track max reads its value reference",
     lambda: view({"fields": {"toughness": 4}}).track_max("fatigue"), 4),
    ("wound track: no marks, no penalty", lambda: view().track_penalty("harm"), 0),
    ("wound track: one mark takes the first rung's penalty",
     lambda: view(live=marks("harm", "tear")).track_penalty("harm"), 0),
    ("wound track: two marks take the second rung's penalty",
     lambda: view(live=marks("harm", "knock", "knock")).track_penalty("harm"), -1),
    ("wound track: the worst marked rung's penalty, not the sum",
     lambda: view(live=marks("harm", "tear", "knock", "knock")).track_penalty("harm"), -3),
    ("wound track: the marks' kinds do not change the penalty",
     lambda: view(live=marks("harm", "tear", "tear")).track_penalty("harm"), -1),
    ("wound track: sequential marks are kept most severe first",
     lambda: view(live=marks("harm", "knock", "tear")).wounds("harm").marks, ("tear", "knock")),
    ("extra: a row adds countColumn rungs at penaltyColumn after the last rung as good",
     lambda: tuple(r.penalty for r in view({"lists": {"scars": [
         {"name": "Bitten", "levels": 2, "penalty": -1}]}}).wound_rungs("harm")),
     (0, -1, -1, -1, -3, -99)),
    ("extra: a rung added beside one of the same penalty takes its label",
     lambda: view({"lists": {"scars": [{"name": "Bitten"}]}}).wound_rungs("harm")[2].label,
     "Hurt"),
    ("extra: a penalty between rungs gets a rung of its own, labelled by the penalty",
     lambda: tuple((r.label, r.penalty) for r in view({"lists": {"scars": [
         {"name": "Burnt", "penalty": -2}]}}).wound_rungs("harm"))[1:4],
     (("Hurt", -1), ("-2", -2), ("Bleeding", -3))),
    ("extra: added rungs let the same marks take a lighter penalty",
     lambda: view({"lists": {"scars": [{"name": "Bitten"}]}},
                  marks("harm", "tear", "knock", "knock")).track_penalty("harm"), -1),
    ("extra: the track holds as many marks as it has rungs",
     lambda: view({"lists": {"scars": [{"name": "Bitten"}]}}).track_max("harm"), 5),
    ("boxes: as many boxes as the track's max works out to (2 + heart mod 2)",
     lambda: view(ab(heart=14)).track_max("strain"), 4),
    ("boxes by remaining: none left is the table's -1",
     lambda: view(live=marks("strain", "strain", "strain")).track_penalty("strain"), -1),
    ("boxes by remaining: one box still clear reads 0",
     lambda: view(live=marks("strain", "strain")).track_penalty("strain"), 0),
    ("boxes by remaining: a clear box between marks is still clear",
     lambda: view(live=marks("strain", "", "strain")).track_penalty("strain"), 0),
    ("boxes by filled: the table read at the boxes marked (3 is -1)",
     lambda: view(live=marks("toil", "toil", "toil", "toil")).track_penalty("toil"), -1),
    ("boxes by filled: 4 marked is -2",
     lambda: view(live=marks("toil", *["toil"] * 4)).track_penalty("toil"), -2),
    ("penaltyFrom: the named track's current penalty rides on every check",
     lambda: view(live=marks("harm", "knock", "knock")).penalty(), -1),
    ("penaltyFrom a box track reads its table",
     lambda: view(live=marks("strain", "strain", "strain"), rs=STRAIN_PENALTY).penalty(), -1),
    ("penaltyFrom a plain track gives 0",
     lambda: view(live={"tracks": {"heat": 5}}, rs=HEAT_PENALTY).penalty(), 0),
    ("no penaltyFrom: no penalty",
     lambda: view(live=marks("harm", "knock", "knock"), rs=NO_PENALTY).penalty(), 0),
    # ── adjust (format.md "Shared keys": without abilities every check, two abilities once) ──
    ("adjust with abilities applies to a check rolled with a listed ability",
     lambda: view(gear({"name": "a", "bulk": 4})).adjust_for(("brawn",)), -1),
    ("adjust with abilities does not apply to a check with other abilities",
     lambda: view(gear({"name": "a", "bulk": 4})).adjust_for(("heart",)), 0),
    ("adjust without abilities applies to every check",
     lambda: view(live={"states": {"light": "dark"}}).adjust_for(("heart",)), -2),
    ("adjust without abilities applies to a check with no ability",
     lambda: view(live={"states": {"light": "dim"}}).adjust_for(()), -1),
    ("adjust with two abilities on one check applies once when either is listed",
     lambda: view().adjust_for(("grace", "wits")), -1),
    ("adjust entries that apply are added together",
     lambda: view(gear({"name": "a", "bulk": 4}), {"states": {"light": "dark"}})
     .adjust_for(("brawn",)), -3),
    ("adjust follows the with= ability, not the skill's own",
     lambda: (lambda v: v.adjust_for(v.check_number("skill", "sneak", "brawn").abilities))(
         view(gear({"name": "a", "bulk": 4}))), -1),
    ("adjust: a total that is not whole rounds toward zero (-0.5 is 0)",
     lambda: view(rs=HALF_ADJUST).adjust_for(("brawn",)), 0),
    ("adjust: entries are added exactly before rounding (-0.75 - 0.75 is -1)",
     lambda: view(rs=QUARTERS_ADJUST).adjust_for(("brawn",)), -1),
    # ── paying from pools (Changes; format.md "Which row a name means": all or nothing) ──
    ("pay: the amount comes off the pool and the change says from and to",
     lambda: paid([("nerve", 2)]), ((("nerve", 3, 1),), {"nerve": 1})),
    ("pay: two terms on one pool both come out of it",
     lambda: paid([("nerve", 1), ("nerve", 1)]),
     ((("nerve", 3, 2), ("nerve", 2, 1)), {"nerve": 1})),
    ("pay: a list-row pool pays like any pool",
     lambda: paid([("tricks:spark", 1)], {"lists": {"tricks": [{"name": "Spark", "uses": 2}]}}),
     ((("tricks:spark", 2, 1),), {"tricks:spark": 1})),
    ("pay: all or nothing, a pool that cannot cover refuses everything",
     untouched_after_refusal, ("insufficient", 2)),
    ("pay: two terms one pool cannot cover together refuse both",
     lambda: paid([("nerve", 2), ("nerve", 2)]), "insufficient"),
    ("pay: an unknown pool refuses", lambda: paid([("nerv", 1)]), "unknown-pool"),
    ("pay: an amount below 1 refuses", lambda: paid([("nerve", 0)]), "bad-amount"),
    ("pay: a start-empty pool at 0 again stays sparse", sparse_after_pay, False),
    ("pay: the character given is never changed", never_mutates, (3, 1)),
    ("a change is written {who, pool, from, to}",
     lambda: Change("Tess", "nerve", 3, 1).to_json(),
     {"who": "Tess", "pool": "nerve", "from": 3, "to": 1}),
]
# fmt: on


@pytest.mark.parametrize(("actual", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_rule(actual: R, expected: object) -> None:
    assert actual() == expected


def test_rule_ids_are_unique() -> None:
    ids = [r[0] for r in RULES]
    assert len(ids) == len(set(ids))


def test_check_number_parts_add_up() -> None:
    # The parts the record shows add up to the number before the cap.
    c = check("skill", "tinker", {**ab(wits=15), "bonuses": {"tinker": 3}})
    assert c.ability_mod + c.tier_bonus + c.bonus + c.untrained_by == c.uncapped == 3
    assert (c.ability, c.tier, c.cap, c.capped) == ("wits", "untrained", None, False)


def test_unknown_ids_are_usage_errors_with_a_suggestion() -> None:
    from dicebound.errors import UsageError

    v = view()
    for call in (
        lambda: v.check_number("skill", "sneek"),
        lambda: v.ability_mod("brwn"),
        lambda: v.pool_value("nerv"),
        lambda: v.check_number("skill", "sneak", "brwn"),
    ):
        with pytest.raises(UsageError, match="Did you mean"):
            call()
