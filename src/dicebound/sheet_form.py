"""The form a character sheet is edited in, described from a compiled ruleset.

The web page draws its Sheet tab from this description (``GET
/rulesets/{id}/sheet-form``), so the page never reads the ruleset format itself. It
says what the form offers, not every rule the sheet keeps: a saved character is still
judged whole by the service (docs/service.md, "The web page").

- The character's name, and at most ``NAME_MAX`` characters of it.
- Each ability with its range and default.
- Each group of skills or saves, with the proficiency tiers its items may take
  (``skillTiers``/``saveTiers``, else every tier), when the group has items and the
  ruleset tiers.
- Each field with what its input takes: a number's bounds when they are whole (the
  input steps by one, so a fractional bound would refuse every whole number), a text's
  length (40 characters when the ruleset says none, 4,000 for a long text), an enum's
  values each with its label.
- The live pools, each with how it starts (full, or empty: a pool left blank reads
  so), and the live tracks that are not wound tracks (those take marks, not a number),
  each track's maximum when the ruleset fixes it.
- The lists (rows of typed columns: a WoD character's specialties, a Fate
  character's aspects), each column's input as a field's is described.
- The wound tracks, with the kinds of harm a mark may be and how many marks fit
  when the ruleset fixes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from dicebound.character import load_character
from dicebound.character_schema import NAME_MAX
from dicebound.errors import CharacterInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.problem_codes import NOT_JSON
from dicebound.problems import Problem
from dicebound.ruleset.model import Field, ListColumn, ListDecl, Ruleset, SkillDef, Tier, Track
from dicebound.ruleset.spec import is_int
from dicebound.values import frozen
from dicebound.views import problems_with_lines

__all__ = [
    "FormAbility",
    "FormField",
    "FormGroup",
    "FormItem",
    "FormList",
    "FormPool",
    "FormTrack",
    "FormValue",
    "FormWounds",
    "SheetForm",
    "sheet_form",
    "tried_character",
]

TEXT_LENGTH = 40
"""A text's (and a dice expression's) length when its declaration gives none."""
LONGTEXT_LENGTH = 4000
"""A long text's length when its declaration gives none."""

FieldType = Literal["number", "text", "longtext", "boolean", "enum", "dice"]
Default = bool | int | float | str | None


@frozen
class FormItem:
    """Something the form names: a tier, a skill or save, a live pool."""

    id: str
    label: str


@frozen
class FormAbility:
    id: str
    label: str
    min: int
    max: int
    default: int


@frozen
class FormGroup:
    """The skills or the saves: ``key`` is the build's map they are saved in."""

    key: Literal["skills", "saves"]
    label: str
    tiers: tuple[FormItem, ...]
    items: tuple[FormItem, ...]


@frozen
class FormValue:
    """An enum's value and the words the form shows for it."""

    value: str
    label: str


@frozen
class FormField:
    """A field's input: ``min``/``max`` for a number (whole bounds only), ``max_length``
    for a text, a long text or dice, ``values`` for an enum."""

    id: str
    label: str
    type: FieldType
    default: Default = None
    min: int | None = None
    max: int | None = None
    max_length: int | None = None
    values: tuple[FormValue, ...] = ()


@frozen
class FormTrack:
    """A plain live track: ``max`` is None when it is read from the sheet."""

    id: str
    label: str
    min: int
    max: int | None


@frozen
class FormPool:
    """A live pool: ``start`` is what it holds when the file leaves it out."""

    id: str
    label: str
    start: Literal["full", "empty"]


@frozen
class FormList:
    """A list of the build: its rows' cells, one input per column (described as a
    field's), and how many rows it takes."""

    id: str
    label: str
    max_items: int
    columns: tuple[FormField, ...]
    required: tuple[str, ...]


@frozen
class FormWounds:
    """A wound track: its marks are kinds of harm, most severe first on a track that
    fills in order, one per box (``""`` a clear one) on an ``indexed`` track; ``max``
    is None when the room is read from the sheet."""

    id: str
    label: str
    kinds: tuple[FormItem, ...]
    max: int | None
    fill: Literal["sequential", "indexed"]


@frozen
class SheetForm:
    """Everything the Sheet tab draws for one ruleset version."""

    ruleset: str
    version: int
    sheet_version: int
    name_max_length: int
    abilities: tuple[FormAbility, ...]
    groups: tuple[FormGroup, ...]
    fields: tuple[FormField, ...]
    pools: tuple[FormPool, ...]
    tracks: tuple[FormTrack, ...]
    lists: tuple[FormList, ...] = ()
    wounds: tuple[FormWounds, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The description as the HTTP answer gives it (``SheetFormOut``)."""
        return {
            "ruleset": self.ruleset,
            "version": self.version,
            "sheet_version": self.sheet_version,
            "name_max_length": self.name_max_length,
            "abilities": [
                {"id": a.id, "label": a.label, "min": a.min, "max": a.max, "default": a.default}
                for a in self.abilities
            ],
            "groups": [
                {
                    "key": g.key,
                    "label": g.label,
                    "tiers": [_item(t) for t in g.tiers],
                    "items": [_item(i) for i in g.items],
                }
                for g in self.groups
            ],
            "fields": [_field_json(f) for f in self.fields],
            "pools": [{"id": p.id, "label": p.label, "start": p.start} for p in self.pools],
            "tracks": [
                {"id": t.id, "label": t.label, "min": t.min, "max": t.max} for t in self.tracks
            ],
            "lists": [
                {
                    "id": x.id,
                    "label": x.label,
                    "max_items": x.max_items,
                    "columns": [_field_json(c) for c in x.columns],
                    "required": list(x.required),
                }
                for x in self.lists
            ],
            "wounds": [
                {
                    "id": w.id,
                    "label": w.label,
                    "kinds": [_item(k) for k in w.kinds],
                    "max": w.max,
                    "fill": w.fill,
                }
                for w in self.wounds
            ],
        }


def _field_json(f: FormField) -> dict[str, Any]:
    return {
        "id": f.id,
        "label": f.label,
        "type": f.type,
        "default": f.default,
        "min": f.min,
        "max": f.max,
        "max_length": f.max_length,
        "values": [{"value": v.value, "label": v.label} for v in f.values],
    }


def _item(item: FormItem) -> dict[str, str]:
    return {"id": item.id, "label": item.label}


def sheet_form(ruleset: Ruleset) -> SheetForm:
    """The Sheet tab's form for ``ruleset``."""
    sheet = ruleset.sheet
    tiers = ruleset.resolution.tiers
    groups = [
        _group("skills", "Skills", sheet.skills, tiers, sheet.skill_tiers),
        _group("saves", "Saves", sheet.saves, tiers, sheet.save_tiers),
    ]
    labels = _value_labels(ruleset)
    named = {a.id: a.label for a in sheet.abilities}
    named.update({s.id: s.label for s in (*sheet.skills, *sheet.saves)})
    return SheetForm(
        ruleset=ruleset.id,
        version=ruleset.version,
        sheet_version=sheet.version,
        name_max_length=NAME_MAX,
        abilities=tuple(
            FormAbility(a.id, a.label, a.min, a.max, a.default) for a in sheet.abilities
        ),
        groups=tuple(g for g in groups if g is not None),
        fields=tuple(_field(f, labels.get(f.id, {})) for f in sheet.fields),
        pools=tuple(FormPool(p.id, p.label, p.start) for p in sheet.pools),
        tracks=tuple(_track(t) for t in sheet.tracks if not t.kinds),
        lists=tuple(_list(x, _column_labels(ruleset, x.id), named) for x in sheet.lists),
        wounds=tuple(_wounds(t) for t in sheet.tracks if t.is_wound_track),
    )


def _group(
    key: Literal["skills", "saves"],
    label: str,
    items: tuple[SkillDef, ...],
    tiers: tuple[Tier, ...],
    allowed: tuple[str, ...],
) -> FormGroup | None:
    """A group's items and the tiers they may take, in the ruleset's order of tiers;
    None when there is nothing to choose (no items, or a ruleset without tiers)."""
    if not items or not tiers:
        return None
    shown = tuple(FormItem(t.id, t.label) for t in tiers if not allowed or t.id in allowed)
    return FormGroup(key, label, shown, tuple(FormItem(s.id, s.label) for s in items))


def _whole(bound: float | None) -> int | None:
    return int(bound) if bound is not None and is_int(bound) else None


def _field(decl: Field, labels: Mapping[str, str]) -> FormField:
    default = decl.default if isinstance(decl.default, bool | int | float | str) else None
    if decl.type == "number":
        return FormField(
            decl.id, decl.label, decl.type, default, min=_whole(decl.min), max=_whole(decl.max)
        )
    if decl.type == "enum":
        values = tuple(FormValue(v, labels.get(v) or v) for v in decl.values)
        return FormField(decl.id, decl.label, decl.type, default, values=values)
    if decl.type == "boolean":
        return FormField(decl.id, decl.label, decl.type, default)
    most = LONGTEXT_LENGTH if decl.type == "longtext" else TEXT_LENGTH
    return FormField(decl.id, decl.label, decl.type, default, max_length=decl.max_length or most)


def _column(column: ListColumn, labels: Mapping[str, str]) -> FormField:
    """A list column's input, described as a field of the same type is."""
    as_field = Field(
        column.id,
        column.label,
        column.type,
        min=column.min,
        max=column.max,
        default=column.default,
        integer=column.integer,
        values=column.values,
        max_length=column.max_length,
    )
    return _field(as_field, labels)


def _list(
    decl: ListDecl, labels: Mapping[str, Mapping[str, str]], named: Mapping[str, str]
) -> FormList:
    """A list's form; an enum cell whose value names a skill, save or ability (a WoD
    specialty's ability) shows that one's label unless the column gives its own."""
    columns = tuple(_column(c, {**named, **labels.get(c.id, {})}) for c in decl.columns)
    required = tuple(c.id for c in decl.columns if c.required)
    return FormList(decl.id, decl.label, decl.max_items, columns, required)


def _fixed(track: Track) -> int | None:
    top = track.max
    return int(top.value) if top.source == "const" and is_int(top.value) else None


def _track(track: Track) -> FormTrack:
    return FormTrack(track.id, track.label, track.min, _fixed(track))


def _wounds(track: Track) -> FormWounds:
    kinds = tuple(FormItem(k.id, k.label) for k in track.kinds)
    return FormWounds(track.id, track.label, kinds, _fixed(track), track.fill)


def _value_labels(ruleset: Ruleset) -> dict[str, dict[str, str]]:
    """Each enum field's ``valueLabels``, read from the file as written: the compiled
    ``Field`` keeps the values, not the words shown for them."""
    sheet = ruleset.raw.get("sheet")
    return _labels_of(sheet.get("fields", ()) if isinstance(sheet, Mapping) else ())


def _column_labels(ruleset: Ruleset, list_id: str) -> dict[str, dict[str, str]]:
    """A list's enum columns' ``valueLabels``, as ``_value_labels`` reads a field's."""
    sheet = ruleset.raw.get("sheet")
    for item in sheet.get("lists", ()) if isinstance(sheet, Mapping) else ():
        if isinstance(item, Mapping) and item.get("id") == list_id:
            return _labels_of(item.get("columns", ()))
    return {}


def _labels_of(items: object) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for item in items if isinstance(items, list | tuple) else ():
        labels = item.get("valueLabels") if isinstance(item, Mapping) else None
        if isinstance(labels, Mapping):
            words = {str(k): v for k, v in labels.items() if isinstance(v, str)}
            found.setdefault(str(item.get("id")), words)
    return found


def tried_character(ruleset: Ruleset, text: str, most: int) -> dict[str, Any]:
    """A character file checked against ``ruleset`` without storing it, as the Sheet tab
    imports one: whether it loads, the name it writes, and its first ``most`` problems,
    each placed at its line and column (a text that is not JSON where it stops being
    JSON), with how many more there are (``omitted``)."""
    raw: object = None
    try:
        raw, problems = read_json(text)
    except Unreadable as exc:
        problems = [Problem((), NOT_JSON, str(exc))]
    if not problems:
        try:
            load_character(ruleset, raw)
        except CharacterInvalid as exc:
            problems = list(exc.problems)
    name = raw.get("name") if isinstance(raw, dict) else None
    shown = problems[:most]
    return {
        "ok": not problems,
        "name": name if isinstance(name, str) else None,
        "problems": problems_with_lines(text, shown),
        "omitted": len(problems) - len(shown),
    }
