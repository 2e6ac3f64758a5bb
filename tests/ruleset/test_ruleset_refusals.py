"""Import refusals: one change to a valid ruleset per row, and the exact problems it makes.

Rows starting from ``ember-roads``, ``gravewatch`` or ``5e`` edit Marinara's real example
rulesets (read from the shared folder, skipped where it is absent); rows starting from
``hearth`` or ``lantern`` edit our own small rulesets in ``tests/cases``. Each row's id
says the rule in words; ``expect`` lists every problem as ``(path, code)``, so a change
that should make one problem makes exactly one.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dicebound.compiler import compile_ruleset, load_ruleset_text
from dicebound.errors import RulesetInvalid
from dicebound.problems import Problem
from ruleset_edits import (
    Edit,
    both,
    drop,
    extend,
    get,
    load_case,
    load_start,
    move_after,
    put,
    rename,
)


@dataclass(frozen=True)
class Case:
    id: str
    start: str
    edit: Edit
    expect: list[tuple[str, str]]
    says: str = ""  # a phrase the first expected problem's message must hold
    capability_api: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _problems(doc: dict[str, Any], capability_api: str | None = None) -> list[Problem]:
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc, capability_api=capability_api)
    return list(caught.value.problems)


_LONG = "The night is long and cold. " * 110  # 3080 characters, one line

CASES: list[Case] = [
    # -- the file as a whole (docs/design/format.md "The file as a whole", "Top-level keys") --
    Case(
        "a required top-level key missing is reported at its parent",
        "ember-roads",
        drop("coverage"),
        [("$", "missing-key")],
    ),
    Case(
        "a required key missing inside an object is reported at that object",
        "ember-roads",
        drop("coverage.summary"),
        [("coverage", "missing-key")],
    ),
    Case(
        "a misspelt top-level key is unknown, with a did-you-mean",
        "gravewatch",
        rename("coverage", "coverge"),
        [("coverge", "unknown-key"), ("$", "missing-key")],
        says='Did you mean "coverage"?',
    ),
    Case(
        "a misspelt gm key is unknown, with a did-you-mean",
        "5e",
        rename("gm.sheetGuidance", "sheetGuidence"),
        [("gm.sheetGuidence", "unknown-key")],
        says='Did you mean "sheetGuidance"?',
    ),
    Case(
        "schemaVersion is the constant 1",
        "ember-roads",
        put("schemaVersion", 2),
        [("schemaVersion", "not-allowed")],
    ),
    Case(
        "the ruleset id is kebab case: no capitals",
        "ember-roads",
        put("id", "Ember-Roads"),
        [("id", "bad-id")],
    ),
    Case(
        "the ruleset id is at most 64 characters",
        "ember-roads",
        put("id", "a" * 65),
        [("id", "too-long")],
    ),
    Case(
        "the ruleset ids engine-legacy and traditional are reserved",
        "gravewatch",
        put("id", "traditional"),
        [("id", "reserved-id")],
    ),
    Case(
        "version is a whole number of at least 1",
        "5e",
        put("version", 0),
        [("version", "too-small")],
    ),
    Case(
        "combat, battle and items are kept, but must be of their JSON type",
        "gravewatch",
        put("combat", []),
        [("combat", "wrong-type")],
    ),
    Case(
        "rests is a list of at most 12",
        "ember-roads",
        put("rests", [{"id": f"rest_{i}", "label": f"Rest {i}"} for i in range(13)]),
        [("rests", "too-many")],
    ),
    # -- text hygiene --
    Case(
        "a label is one line: no line break",
        "ember-roads",
        put("sheet.abilities[0].label", "Br\nawn"),
        [("sheet.abilities[0].label", "bad-text")],
    ),
    Case(
        "a guidance text may not hold square brackets, which tags use",
        "gravewatch",
        put("gm.checkGuidance", "Write [skill_check] yourself."),
        [("gm.checkGuidance", "bad-text")],
        says="square brackets",
    ),
    Case(
        "a summary may not hold double curly braces, which are macro syntax",
        "5e",
        put("coverage.summary", "Plays {{char}} well."),
        [("coverage.summary", "bad-text")],
    ),
    Case(
        "a label may not be empty",
        "gravewatch",
        put("sheet.live.conditions[0].label", ""),
        [("sheet.live.conditions[0].label", "too-short")],
    ),
    Case(
        "a short name is at most 8 characters",
        "5e",
        put("sheet.abilities[0].short", "STRENGTHS"),
        [("sheet.abilities[0].short", "too-long")],
    ),
    Case(
        "a live state's values never hold a double quote",
        "ember-roads",
        put("sheet.live.states[0].values[0]", 'gu"arded'),
        [("sheet.live.states[0].values[0]", "bad-text")],
    ),
    # -- ids --
    Case(
        "a sheet id starts with a lower-case letter",
        "ember-roads",
        put("sheet.live.conditions[0].id", "Shaken"),
        [("sheet.live.conditions[0].id", "bad-id")],
    ),
    Case(
        "ids are unique within their list",
        "gravewatch",
        put("sheet.live.conditions[1].id", "rattled"),
        [("sheet.live.conditions[1].id", "duplicate-id")],
    ),
    Case(
        "a skill and a save may not share an id: they share one bonuses map",
        "gravewatch",
        put("sheet.saves[0].id", "ward"),
        [("sheet.saves[0].id", "duplicate-id")],
    ),
    Case(
        "a catalog entry id is kebab case",
        "ember-roads",
        put("catalogs[0].entries[0].id", "Road-Sense"),
        [("catalogs[0].entries[0].id", "bad-id")],
    ),
    # -- resolution: the kind --
    Case(
        "an unknown kind is refused with a did-you-mean",
        "ember-roads",
        put("resolution.kind", "dice-summ"),
        [("resolution.kind", "unknown-kind")],
        says='Did you mean "dice-sum"?',
    ),
    Case(
        "a key the kind does not take is unknown",
        "ember-roads",
        put("resolution.spend", []),
        [("resolution.spend", "unknown-key")],
    ),
    # -- resolution: the shared keys (docs/design/format.md "Shared keys") --
    Case(
        "a required resolution key missing",
        "gravewatch",
        drop("resolution.proficiencyTiers"),
        [("resolution", "missing-key")],
    ),
    Case(
        "abilityModifier names one of its three ops, with a did-you-mean",
        "ember-roads",
        put("resolution.abilityModifier.op", "identiy"),
        [("resolution.abilityModifier.op", "not-allowed")],
        says='Did you mean "identity"?',
    ),
    Case(
        "a stepTable's thresholds rise strictly",
        "ember-roads",
        put("resolution.abilityModifier", {"op": "stepTable", "table": [[1, 0], [1, 1]]}),
        [("resolution.abilityModifier.table[1][0]", "not-ascending")],
    ),
    Case(
        "a stepTable ability modifier needs its table",
        "ember-roads",
        put("resolution.abilityModifier", {"op": "stepTable"}),
        [("resolution.abilityModifier", "missing-key")],
    ),
    Case(
        "a tier's multiplier runs from 0 to 10",
        "5e",
        put("resolution.proficiencyTiers[3].multiplier", 11),
        [("resolution.proficiencyTiers[3].multiplier", "too-large")],
    ),
    Case(
        "a non-zero multiplier without proficiency.bonus is refused",
        "ember-roads",
        put("resolution.proficiencyTiers[1].multiplier", 1),
        [("resolution.proficiencyTiers[1].multiplier", "needs-bonus")],
    ),
    Case(
        "tier ids are unique",
        "ember-roads",
        put("resolution.proficiencyTiers[2].id", "trained"),
        [("resolution.proficiencyTiers[2].id", "duplicate-id")],
    ),
    Case(
        "penaltyFrom names a live track that exists",
        "gravewatch",
        put("resolution.penaltyFrom", "harn"),
        [("resolution.penaltyFrom", "unknown-id")],
        says='Did you mean "harm"?',
    ),
    Case(
        "penaltyFrom names a wound track, not a plain one",
        "ember-roads",
        put("resolution.penaltyFrom", "heat"),
        [("resolution.penaltyFrom", "not-wound-track")],
    ),
    Case(
        "adjust names abilities that exist",
        "ember-roads",
        put("resolution.adjust[0].abilities[0]", "brwn"),
        [("resolution.adjust[0].abilities[0]", "unknown-id")],
        says='Did you mean "brawn"?',
    ),
    Case(
        "adjust takes at most 8 entries",
        "ember-roads",
        put("resolution.adjust", [{"value": {"const": 1}}] * 9),
        [("resolution.adjust", "too-many")],
    ),
    Case(
        "the proficiency bonus may not read a skill modifier",
        "5e",
        put("resolution.proficiency.bonus", {"skillMod": "athletics"}),
        [("resolution.proficiency.bonus", "bonus-reads-check-number")],
    ),
    Case(
        "nor through a derived value",
        "5e",
        put("sheet.derived[0].from", {"skillMod": "athletics"}),
        [("resolution.proficiency.bonus", "bonus-reads-check-number")],
        says='through derived "proficiency_bonus"',
    ),
    Case(
        "the proficiency bonus may not read live state",
        "hearth",
        put("resolution.proficiency.bonus", {"livePool": "grit"}),
        [("resolution.proficiency.bonus", "reads-live")],
    ),
    # -- value references (docs/design/format.md "Value references") --
    Case(
        "a value reference names exactly one source, not two",
        "ember-roads",
        put("sheet.live.pools[1].max", {"const": 3, "field": "toughness"}),
        [("sheet.live.pools[1].max", "one-source")],
    ),
    Case(
        "a value reference names a source",
        "ember-roads",
        put("sheet.live.pools[1].max", {}),
        [("sheet.live.pools[1].max", "one-source")],
    ),
    Case(
        "a misspelt source is unknown, with a did-you-mean",
        "ember-roads",
        put("sheet.live.pools[1].max", {"cnst": 3}),
        [
            ("sheet.live.pools[1].max.cnst", "unknown-key"),
            ("sheet.live.pools[1].max", "one-source"),
        ],
        says='Did you mean "const"?',
    ),
    Case(
        "a reference names something that exists, with a did-you-mean",
        "ember-roads",
        put("sheet.live.pools[0].max", {"derived": "grit_mx"}),
        [("sheet.live.pools[0].max.derived", "unknown-id")],
        says='Did you mean "grit_max"?',
    ),
    Case(
        "read goes only with liveTrack",
        "gravewatch",
        put("sheet.derived[2].of[0]", {"livePool": "resolve", "read": "remaining"}),
        [("sheet.derived[2].of[0].read", "read-needs-track")],
    ),
    Case(
        "read penalty reads a wound track only",
        "ember-roads",
        put("resolution.adjust[0].value", {"liveTrack": "heat", "read": "penalty"}),
        [("resolution.adjust[0].value.read", "not-wound-track")],
    ),
    Case(
        "a field reference reads a number field",
        "ember-roads",
        put("sheet.derived[0].of[1]", {"field": "calling"}),
        [("sheet.derived[0].of[1].field", "not-a-number")],
    ),
    Case(
        "abilityModFromField names an enum field",
        "5e",
        put("sheet.derived[3].of[2]", {"abilityModFromField": "level"}),
        [("sheet.derived[3].of[2].abilityModFromField", "not-an-enum")],
    ),
    Case(
        "listSum names a list that exists",
        "ember-roads",
        put("sheet.derived[2].of[0].listSum.list", "gears"),
        [("sheet.derived[2].of[0].listSum.list", "unknown-id")],
    ),
    Case(
        "listSum adds up a number column",
        "ember-roads",
        put("sheet.derived[2].of[0].listSum.column", "notes"),
        [("sheet.derived[2].of[0].listSum.column", "wrong-column-type")],
    ),
    Case(
        "listSum's onlyWhen names a boolean column",
        "ember-roads",
        put("sheet.derived[2].of[0].listSum.onlyWhen", "bulk"),
        [("sheet.derived[2].of[0].listSum.onlyWhen", "wrong-column-type")],
    ),
    # -- derived values and order (docs/design/format.md "The file as a whole", "The sheet") --
    Case(
        "a derived value reads only derived values declared above it",
        "ember-roads",
        put("sheet.derived[2].of[0]", {"derived": "burdened"}),
        [("sheet.derived[2].of[0].derived", "derived-order")],
    ),
    Case(
        "a derived value may not read itself",
        "gravewatch",
        put("sheet.derived[1].of[2]", {"derived": "resolve_max"}),
        [("sheet.derived[1].of[2].derived", "derived-order")],
    ),
    Case(
        "derived op is one of six, with a did-you-mean",
        "ember-roads",
        put("sheet.derived[0].op", "summ"),
        [("sheet.derived[0].op", "not-allowed")],
    ),
    Case(
        "min and max take at least two values",
        "hearth",
        put("sheet.derived[2].of", [{"abilityScore": "hands"}]),
        [("sheet.derived[2].of", "too-few")],
    ),
    Case(
        "scale reads one value reference, not a list",
        "hearth",
        put("sheet.derived[0].of", [{"field": "season"}]),
        [("sheet.derived[0].of", "wrong-type")],
    ),
    Case(
        "an enum table reads an enum field",
        "gravewatch",
        put("sheet.derived[0].from", {"field": "lantern"}),
        [("sheet.derived[0].from.field", "not-an-enum")],
    ),
    Case(
        "an enum table's rows are values its source can hold",
        "ember-roads",
        put("sheet.derived[7].table", {"guarded": -1, "reckles": 2}),
        [("sheet.derived[7].table.reckles", "not-a-value")],
        says='Did you mean "reckless"?',
    ),
    # -- live reads feeding a maximum --
    Case(
        "a livePool may not feed a pool max",
        "gravewatch",
        put("sheet.live.pools[0].max", {"livePool": "resolve"}),
        [("sheet.live.pools[0].max", "reads-live")],
    ),
    Case(
        "nor through a derived value",
        "ember-roads",
        put("sheet.derived[0].of[0]", {"livePool": "luck"}),
        [("sheet.live.pools[0].max", "reads-live")],
        says='through derived "grit_max"',
    ),
    Case(
        "an enum table over a live state may not feed a track max",
        "ember-roads",
        put("sheet.live.tracks[1].max", {"derived": "stance_brawn"}),
        [("sheet.live.tracks[1].max", "reads-live")],
    ),
    Case(
        "a skill capped by a live pool is live too",
        "gravewatch",
        put("sheet.live.pools[0].max", {"skillMod": "soothe"}),
        [("sheet.live.pools[0].max", "reads-live")],
    ),
    Case(
        "an item stat may not feed a maximum",
        "hearth",
        put("sheet.live.pools[1].max", {"derived": "tired"}),
        [("sheet.live.pools[1].max", "reads-live")],
    ),
    # -- the sheet --
    Case(
        "a section is declared before anything names it",
        "hearth",
        move_after("sheet", "sections", "abilities"),
        [("sheet.abilities[0].section", "section-order")],
        says='put "sections" above',
    ),
    Case(
        "a section named must exist",
        "gravewatch",
        put("sheet.skills[0].section", "labor"),
        [("sheet.skills[0].section", "unknown-id")],
        says='Did you mean "labour"?',
    ),
    Case(
        "a skill's ability must exist",
        "ember-roads",
        put("sheet.skills[0].ability", "brwan"),
        [("sheet.skills[0].ability", "unknown-id")],
    ),
    Case(
        "untrained is normal, harder, refuse or {by}",
        "gravewatch",
        put("sheet.skills[0].untrained", "refused"),
        [("sheet.skills[0].untrained", "not-allowed")],
    ),
    Case(
        "untrained by runs from -20 to 20",
        "ember-roads",
        put("sheet.skills[2].untrained", {"by": -21}),
        [("sheet.skills[2].untrained.by", "too-small")],
    ),
    Case(
        "a cap may not read a skill modifier",
        "gravewatch",
        put("sheet.skills[4].cap", {"skillMod": "ward"}),
        [("sheet.skills[4].cap", "cap-reads-check-number")],
    ),
    Case(
        "saveTiers name declared tiers",
        "5e",
        put("sheet.saveTiers[1]", "proficent"),
        [("sheet.saveTiers[1]", "unknown-id")],
        says='Did you mean "proficient"?',
    ),
    Case(
        "an ability's default lies between min and max",
        "ember-roads",
        put("sheet.abilities[0].default", 9),
        [("sheet.abilities[0].default", "out-of-range")],
    ),
    Case(
        "an ability's min is not above its max",
        "gravewatch",
        put("sheet.abilities[0].min", 6),
        [("sheet.abilities[0].min", "min-above-max")],
    ),
    Case(
        "bonusRange min is not above max",
        "gravewatch",
        put("sheet.bonusRange.min", 4),
        [("sheet.bonusRange.min", "min-above-max")],
    ),
    Case(
        "at most 20 abilities",
        "ember-roads",
        extend(
            "sheet.abilities",
            [{"id": f"a{i}", "label": "A", "min": 0, "max": 1, "default": 0} for i in range(18)],
        ),
        [("sheet.abilities", "too-many")],
    ),
    Case(
        "a number field's default lies in its range",
        "ember-roads",
        put("sheet.fields[1].default", 9),
        [("sheet.fields[1].default", "default-does-not-fit")],
    ),
    Case(
        "an enum field's default is one of its values",
        "gravewatch",
        put("sheet.fields[1].default", "noon"),
        [("sheet.fields[1].default", "default-does-not-fit")],
    ),
    Case(
        "a field's type is one of six",
        "ember-roads",
        put("sheet.fields[0].type", "string"),
        [("sheet.fields[0].type", "not-allowed")],
    ),
    Case(
        "a number field needs min and max",
        "ember-roads",
        drop("sheet.fields[1].min"),
        [("sheet.fields[1]", "missing-key")],
    ),
    Case(
        "a key of another field type is unknown",
        "ember-roads",
        put("sheet.fields[1].maxLength", 3),
        [("sheet.fields[1].maxLength", "unknown-key")],
    ),
    Case(
        "valueLabels label only declared values",
        "ember-roads",
        put("sheet.lists[2].columns[2].valueLabels.dusk", "At dusk"),
        [("sheet.lists[2].columns[2].valueLabels.dusk", "not-a-value")],
    ),
    Case(
        "hideWhen has exactly one of equals, notEquals, in",
        "gravewatch",
        put("sheet.fields[2].hideWhen.equals", "dawn"),
        [("sheet.fields[2].hideWhen", "one-source")],
    ),
    Case(
        "hideWhen names a field that exists",
        "gravewatch",
        put("sheet.fields[2].hideWhen.field", "wach"),
        [("sheet.fields[2].hideWhen.field", "unknown-id")],
    ),
    Case(
        "hideWhen compares with a value the field can hold",
        "gravewatch",
        put("sheet.fields[2].hideWhen.notEquals", "noon"),
        [("sheet.fields[2].hideWhen.notEquals", "never-matches")],
    ),
    Case(
        "hideWhen in, one value at a time",
        "hearth",
        put("sheet.fields[8].hideWhen.in[1]", "cook"),
        [("sheet.fields[8].hideWhen.in[1]", "never-matches")],
    ),
    Case(
        "a list's row pool max column is a number column",
        "ember-roads",
        put("sheet.lists[2].pools.maxColumn", "name"),
        [("sheet.lists[2].pools.maxColumn", "wrong-column-type")],
    ),
    Case(
        "a list's row pool names columns that exist",
        "5e",
        put("sheet.lists[3].pools.nameColumn", "nam"),
        [("sheet.lists[3].pools.nameColumn", "unknown-id")],
    ),
    Case(
        "a list has at most 12 columns",
        "gravewatch",
        put(
            "sheet.lists[0].columns",
            [{"id": f"c{i}", "label": "C", "type": "boolean"} for i in range(13)],
        ),
        [("sheet.lists[0].columns", "too-many")],
    ),
    Case(
        "a pool group may not share a pool's name",
        "5e",
        put("sheet.live.pools[2].group", "hp"),
        [("sheet.live.pools[2].group", "group-is-pool")],
    ),
    Case(
        "a track with named levels is as long as its levels",
        "gravewatch",
        put("sheet.live.tracks[0].max", 5),
        [("sheet.live.tracks[0].max", "levels-length")],
    ),
    Case(
        "an indexed track refuses when full",
        "ember-roads",
        put("sheet.live.tracks[1].onFull", "upgrade"),
        [("sheet.live.tracks[1].onFull", "indexed-refuses")],
    ),
    Case(
        "levels need kinds",
        "gravewatch",
        drop("sheet.live.tracks[0].kinds"),
        [
            ("sheet.live.tracks[0].levels", "needs-kinds"),
            ("resolution.penaltyFrom", "not-wound-track"),
        ],
    ),
    Case(
        "a track has levels or boxes, never both",
        "gravewatch",
        put("sheet.live.tracks[0].boxes", {"penalty": {"by": "filled", "table": [[0, 0]]}}),
        [("sheet.live.tracks[0].boxes", "levels-and-boxes")],
    ),
    Case(
        "severities of a track's kinds are distinct",
        "gravewatch",
        put("sheet.live.tracks[0].kinds[1].severity", 0),
        [("sheet.live.tracks[0].kinds[1].severity", "duplicate-severity")],
    ),
    Case(
        "a box penalty is at most 0",
        "ember-roads",
        put("sheet.live.tracks[1].boxes.penalty.table[1][1]", 1),
        [("sheet.live.tracks[1].boxes.penalty.table[1][1]", "too-large")],
    ),
    Case(
        "a wound track cannot be hidden",
        "gravewatch",
        put("sheet.live.tracks[0].hideWhen", {"field": "watch", "equals": "dawn"}),
        [("sheet.live.tracks[0].hideWhen", "wound-track-hidden")],
    ),
    Case(
        "extra names a list that exists",
        "gravewatch",
        put("sheet.live.tracks[0].extra.list", "scar"),
        [("sheet.live.tracks[0].extra.list", "unknown-id")],
        says='Did you mean "scars"?',
    ),
    Case(
        "extra's columns are number columns",
        "gravewatch",
        put("sheet.live.tracks[0].extra.countColumn", "name"),
        [("sheet.live.tracks[0].extra.countColumn", "wrong-column-type")],
    ),
    Case(
        "a live state's default is one of its values",
        "ember-roads",
        put("sheet.live.states[0].default", "calm"),
        [("sheet.live.states[0].default", "not-a-value")],
    ),
    Case(
        "a live state has at least two values",
        "ember-roads",
        put("sheet.live.states[0].values", ["steady"]),
        [("sheet.live.states[0].values", "too-few")],
    ),
    Case(
        "harder needs a pool target that can move",
        "lantern",
        put("resolution.target", {"default": 4, "min": 4, "max": 4}),
        [
            ("sheet.skills[0].untrained", "never-harder"),
            ("resolution.difficultyLadder[1].target", "target-fixed"),
            ("layers[0].difficultyLadder[0].target", "target-fixed"),
            ("layers[0].difficultyLadder[1].target", "target-fixed"),
            ("catalogs[0].entries[1].mechanics.check.threshold", "outside-target"),
        ],
    ),
    # -- gm (docs/design/format.md "The gm block") --
    Case(
        "checkGuidance is at most 1500 characters",
        "ember-roads",
        put("gm.checkGuidance", "x" * 1501),
        [("gm.checkGuidance", "too-long")],
    ),
    Case(
        "sheetSummary names fields that exist",
        "5e",
        put("gm.sheetSummary.fields[0]", "lvl"),
        [("gm.sheetSummary.fields[0]", "unknown-id")],
    ),
    Case(
        "a summary list's onlyWhen names a boolean column",
        "5e",
        put("gm.sheetSummary.lists[0].onlyWhen", "level"),
        [("gm.sheetSummary.lists[0].onlyWhen", "wrong-column-type")],
    ),
    Case(
        "a summary list's columns exist",
        "ember-roads",
        put("gm.sheetSummary.lists[0].columns[0]", "dmg"),
        [("gm.sheetSummary.lists[0].columns[0]", "unknown-id")],
    ),
    # -- catalogs (docs/design/format.md "Catalogs and charms") --
    Case(
        "a catalog's feeds name lists",
        "ember-roads",
        put("catalogs[0].feeds[1]", "trick"),
        [
            ("catalogs[0].feeds[1]", "unknown-id"),
            ("catalogs[0].entries[3].rows[1].list", "not-fed"),
            ("catalogs[0].entries[6].rows[1].list", "not-fed"),
        ],
    ),
    Case(
        "a row writes into a list its catalog feeds",
        "gravewatch",
        put("catalogs[0].entries[0].rows[0].list", "arms"),
        [("catalogs[0].entries[0].rows[0].list", "not-fed")],
    ),
    Case(
        "a row writes columns the list has",
        "ember-roads",
        put("catalogs[0].entries[0].rows[0].values.nots", "x"),
        [("catalogs[0].entries[0].rows[0].values.nots", "unknown-id")],
        says='Did you mean "notes"?',
    ),
    Case(
        "a row writes values its columns can hold",
        "ember-roads",
        put("catalogs[0].entries[3].rows[1].values.recharge", "noon"),
        [("catalogs[0].entries[3].rows[1].values.recharge", "does-not-fit")],
    ),
    Case(
        "entry filters name the catalog's filters",
        "ember-roads",
        put("catalogs[0].entries[0].filters.rode", "Ash Flats"),
        [("catalogs[0].entries[0].filters.rode", "unknown-id")],
    ),
    Case(
        "a catalog holds entries or an asset, not both",
        "ember-roads",
        put("catalogs[0].asset", "catalogs/knacks.json"),
        [("catalogs[0]", "one-source")],
    ),
    Case(
        "an asset path is catalogs/<id>.json",
        "hearth",
        put("catalogs[1].asset", "catalogs/recipe.json"),
        [("catalogs[1].asset", "asset-path")],
    ),
    Case(
        "a catalog of creatures declares no feeds",
        "ember-roads",
        put("catalogs[1].feeds", ["gear"]),
        [("catalogs[1].feeds", "feeds-not-rows")],
    ),
    Case(
        "a catalog of rows needs feeds",
        "gravewatch",
        drop("catalogs[0].feeds"),
        [("catalogs[0]", "missing-key")],
    ),
    Case(
        "mechanics is a closed vocabulary",
        "gravewatch",
        rename("catalogs[0].entries[1].mechanics.check", "chek"),
        [("catalogs[0].entries[1].mechanics.chek", "unknown-key")],
        says='Did you mean "check"?',
    ),
    Case(
        "an entry's check says something",
        "gravewatch",
        put("catalogs[0].entries[1].mechanics.check", {}),
        [("catalogs[0].entries[1].mechanics.check", "missing-key")],
    ),
    Case(
        "only a dice-pool ruleset can honour an entry's check",
        "ember-roads",
        put("catalogs[0].entries[3].mechanics.check", {"successes": 1}),
        [("catalogs[0].entries[3].mechanics.check", "check-needs-pool")],
    ),
    Case(
        "a cost names a live pool or a pool group",
        "gravewatch",
        put("catalogs[0].entries[0].mechanics.cost[0].pool", "resolv"),
        [("catalogs[0].entries[0].mechanics.cost[0].pool", "unknown-id")],
    ),
    Case(
        "an entry moves explode only down to the rule's min",
        "gravewatch",
        put("catalogs[0].entries[1].mechanics.check.explode", 7),
        [("catalogs[0].entries[1].mechanics.check.explode", "outside-rule")],
    ),
    Case(
        "an entry's re-throw reaches below the die's top face",
        "gravewatch",
        put("catalogs[0].entries[0].mechanics.check.reroll.upTo", 10),
        [("catalogs[0].entries[0].mechanics.check.reroll.upTo", "rerolls-every-face")],
    ),
    Case(
        "perCostStep dice are dice notation",
        "gravewatch",
        put("catalogs[0].entries[0].mechanics.perCostStep", {"dice": "d6"}),
        [("catalogs[0].entries[0].mechanics.perCostStep.dice", "bad-dice")],
    ),
    Case(
        "a scaled column may not read live state",
        "ember-roads",
        put("catalogs[0].entries[3].rows[1].scaled.uses.from", {"livePool": "grit"}),
        [("catalogs[0].entries[3].rows[1].scaled.uses.from", "reads-live")],
    ),
    Case(
        "a scaled column is a number column",
        "ember-roads",
        rename("catalogs[0].entries[3].rows[1].scaled.uses", "recharge"),
        [("catalogs[0].entries[3].rows[1].scaled.recharge", "wrong-column-type")],
    ),
    # -- layers (docs/design/format.md "Blocks accepted but not played") --
    Case(
        "a layer's conflicts name other layers",
        "5e",
        put("layers[0].conflicts[0]", "hi_magic"),
        [("layers[0].conflicts[0]", "unknown-id")],
        says='Did you mean "high_magic"?',
    ),
    Case(
        "a layer's ladder has the shape of the ruleset's kind",
        "ember-roads",
        put("layers[0].difficultyLadder[0]", {"label": "Easy", "successes": 1}),
        [
            ("layers[0].difficultyLadder[0].successes", "unknown-key"),
            ("layers[0].difficultyLadder[0]", "missing-key"),
        ],
    ),
    Case(
        "a layer's ladder is held to the checks of the ruleset's own",
        "gravewatch",
        put("layers[0].difficultyLadder[0].target", 10),
        [("layers[0].difficultyLadder[0].target", "out-of-range")],
    ),
    Case(
        "a layer's guidance counts both texts toward 4000",
        "gravewatch",
        both(put("layers[0].gm.guidance", _LONG), put("layers[0].gm.worldGuidance", _LONG)),
        [("layers[0].gm", "too-long")],
    ),
    Case(
        "at most 12 layers",
        "5e",
        put("layers", [{"id": f"l{i}", "label": "L"} for i in range(13)]),
        [("layers", "too-many")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_change_makes_exactly_these_problems(case: Case, marinara_dir: Path) -> None:
    doc = copy.deepcopy(load_start(case.start, marinara_dir))
    compile_ruleset(copy.deepcopy(doc))  # the starting point is valid
    case.edit(doc)
    problems = _problems(doc, case.capability_api)
    got = sorted((p.where, p.code) for p in problems)
    assert got == sorted(case.expect), "\n".join(str(p) for p in problems)
    for problem in problems:
        assert problem.message.endswith((".", "?")), problem
    if case.says:
        first = next(p for p in problems if (p.where, p.code) == case.expect[0])
        assert case.says in first.message, first.message


def test_combat_is_refused_beside_dice_highest() -> None:
    # The page: a dice-highest ruleset has no fight of its own.
    doc = load_case("hearth")
    doc["combat"] = {"kind": "attack-defense"}
    put("resolution.kind", "dice-highest")(doc)
    problems = _problems(doc)
    assert ("combat", "combat-not-allowed") in [(p.where, p.code) for p in problems]


# -- Capability API (docs/design/format.md "Capability API versions") -----------------

CAPABILITY_CASES = [
    # (id, start, version, path, message)
    (
        "reroll is 1.38",
        "gravewatch",
        "1.37",
        "resolution.reroll",
        "reroll needs Capability API 1.38; this file is checked at 1.37.",
    ),
    (
        "adjust is 1.38",
        "ember-roads",
        "1.37",
        "resolution.adjust",
        "adjust needs Capability API 1.38; this file is checked at 1.37.",
    ),
    (
        "a livePool reference is 1.39",
        "gravewatch",
        "1.38",
        "sheet.skills[4].cap.livePool",
        "livePool needs Capability API 1.39; this file is checked at 1.38.",
    ),
    (
        "track extra is 1.40",
        "gravewatch",
        "1.39",
        "sheet.live.tracks[0].extra",
        "extra needs Capability API 1.40; this file is checked at 1.39.",
    ),
    (
        "untrained is 1.41",
        "ember-roads",
        "1.40",
        "sheet.skills[2].untrained",
        "untrained needs Capability API 1.41; this file is checked at 1.40.",
    ),
    (
        "live states are 1.42",
        "ember-roads",
        "1.41",
        "sheet.live.states",
        "states needs Capability API 1.42; this file is checked at 1.41.",
    ),
    (
        "the dice-pool kind is 1.24",
        "lantern",
        "1.23",
        "resolution.kind",
        "the dice-pool kind needs Capability API 1.24; this file is checked at 1.23.",
    ),
    (
        "catalogs are 1.21",
        "lantern",
        "1.20",
        "catalogs",
        "catalogs needs Capability API 1.21; this file is checked at 1.20.",
    ),
    (
        "layers are 1.25",
        "lantern",
        "1.24",
        "layers",
        "layers needs Capability API 1.25; this file is checked at 1.24.",
    ),
    (
        "a ruleset at all is 1.20",
        "lantern",
        "1.19",
        "$",
        "a ruleset needs Capability API 1.20; this file is checked at 1.19.",
    ),
    (
        "an item catalog is 1.49",
        "hearth",
        "1.48",
        "catalogs[3].holds",
        'holds "items" needs Capability API 1.49; this file is checked at 1.48.',
    ),
    (
        "itemStat is 1.52",
        "hearth",
        "1.51",
        "sheet.derived[10].of[1].itemStat",
        "itemStat needs Capability API 1.52; this file is checked at 1.51.",
    ),
]


@pytest.mark.parametrize(
    ("start", "version", "path", "message"),
    [c[1:] for c in CAPABILITY_CASES],
    ids=[c[0] for c in CAPABILITY_CASES],
)
def test_a_feature_above_the_declared_version_is_refused(
    start: str, version: str, path: str, message: str, marinara_dir: Path
) -> None:
    doc = load_start(start, marinara_dir)
    problems = _problems(doc, version)
    found = [p for p in problems if p.where == path and p.code == "needs-capability"]
    assert [p.message for p in found] == [message]
    assert {p.code for p in problems} == {"needs-capability"}


def test_versions_compare_part_by_part_as_numbers(marinara_dir: Path) -> None:
    # docs/design/format.md "Capability API versions": 1.137 is above 1.38,
    # so a file checked at 1.137 may use reroll (1.38).
    doc = load_start("gravewatch", marinara_dir)
    problems = _problems(doc, "1.38")
    assert "resolution.reroll" not in {p.where for p in problems}
    assert compile_ruleset(load_start("lantern", marinara_dir), capability_api="1.137")
    assert compile_ruleset(load_start("lantern", marinara_dir), capability_api="1.42.0")


def test_the_highest_feature_passes_at_its_own_version(marinara_dir: Path) -> None:
    assert compile_ruleset(load_start("gravewatch", marinara_dir), capability_api="1.65")
    assert compile_ruleset(load_start("hearth", marinara_dir), capability_api="1.52")
    problems = _problems(load_start("hearth", marinara_dir), "1.51")
    assert {p.where for p in problems} == {"sheet.derived[10].of[1].itemStat"}


@pytest.mark.parametrize("version", ["1.x", "", "v1.38", "1..2", "1.38-beta", " 1.38"])
def test_a_malformed_version_is_a_problem(version: str) -> None:
    problems = _problems(load_case("lantern"), version)
    assert [(p.where, p.code) for p in problems] == [("$", "bad-capability-api")]


def test_a_community_ruleset_needs_no_version() -> None:
    # Without --capability-api every feature is allowed, the newest included.
    assert compile_ruleset(load_case("hearth")).id == "hearthstead"


# -- the file's text -------------------------------------------------------------------


def test_text_that_is_not_json_is_a_problem_with_line_and_column() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        load_ruleset_text('{\n  "id": "x",\n  "version": 1,,\n}')
    (problem,) = caught.value.problems
    assert (problem.where, problem.code) == ("$", "not-json")
    assert "line 3, column 16" in problem.message


def test_nan_is_not_json() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        load_ruleset_text('{"version": NaN}')
    assert [p.code for p in caught.value.problems] == ["not-json"]


def test_a_file_over_256_kb_is_refused_before_it_is_read() -> None:
    text = json.dumps({"$comment": "x" * (256 * 1024)})
    with pytest.raises(RulesetInvalid) as caught:
        load_ruleset_text(text)
    assert [(p.where, p.code) for p in caught.value.problems] == [("$", "too-large")]


def test_a_json_value_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        load_ruleset_text("[1, 2]")
    assert [(p.where, p.code) for p in caught.value.problems] == [("$", "wrong-type")]


def test_every_problem_is_reported_at_once() -> None:
    doc = load_case("hearth")
    put("id", "Bad Id")(doc)
    put("sheet.abilities[0].label", "")(doc)
    drop("gm.checkGuidance")(doc)
    put("resolution.penaltyFrom", "chores")(doc)
    problems = _problems(doc)
    assert {(p.where, p.code) for p in problems} == {
        ("id", "bad-id"),
        ("sheet.abilities[0].label", "too-short"),
        ("gm", "missing-key"),
        ("resolution.penaltyFrom", "not-wound-track"),
    }


def test_problems_come_in_document_order() -> None:
    # Keys as the file writes them: resolution, sheet, then gm (not alphabetical).
    doc = load_case("hearth")
    put("gm.checkGuidance", "")(doc)
    put("sheet.abilities[2].label", "")(doc)
    put("sheet.abilities[0].label", "")(doc)
    put("resolution.penaltyFrom", "chores")(doc)
    put("id", "Bad Id")(doc)
    where = [p.where for p in _problems(doc)]
    assert where == [
        "id",
        "resolution.penaltyFrom",
        "sheet.abilities[0].label",
        "sheet.abilities[2].label",
        "gm.checkGuidance",
    ]


def test_dollar_comment_is_allowed_on_every_object_and_dollar_schema_at_the_root() -> None:
    doc = load_case("lantern")
    for path in (
        "resolution",
        "resolution.target",
        "sheet",
        "sheet.abilities[0]",
        "sheet.live",
        "sheet.live.tracks[0].levels[0]",
        "catalogs[0].entries[0].mechanics",
        "catalogs[0].entries[0].mechanics.check",
        "layers[0]",
        "gm",
    ):
        put(f"{path}.$comment", "a note")(doc)
    put("$schema", "https://example.invalid/schema.json")(doc)
    assert compile_ruleset(doc).id == "lanternfall"
    put("sheet.$schema", "x")(doc)
    assert [(p.where, p.code) for p in _problems(doc)] == [("sheet.$schema", "unknown-key")]


def test_a_reference_to_a_faulty_item_is_not_reported_twice() -> None:
    # The derived value's own shape is wrong; what reads it is not told it does not exist.
    doc = load_case("hearth")
    put("sheet.derived[0].multiplier", "half")(doc)
    assert [(p.where, p.code) for p in _problems(doc)] == [
        ("sheet.derived[0].multiplier", "wrong-type")
    ]
    assert get(doc, "resolution.proficiency.bonus") == {"derived": "knack"}
