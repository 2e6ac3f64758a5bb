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
- The live pools, and the live tracks that are not wound tracks (those take marks,
  not a number), each track's maximum when the ruleset fixes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from dicebound.character_schema import NAME_MAX
from dicebound.ruleset.model import Field, Ruleset, SkillDef, Tier, Track
from dicebound.ruleset.spec import is_int
from dicebound.values import frozen

__all__ = [
    "FormAbility",
    "FormField",
    "FormGroup",
    "FormItem",
    "FormTrack",
    "FormValue",
    "SheetForm",
    "sheet_form",
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
class SheetForm:
    """Everything the Sheet tab draws for one ruleset version."""

    ruleset: str
    version: int
    sheet_version: int
    name_max_length: int
    abilities: tuple[FormAbility, ...]
    groups: tuple[FormGroup, ...]
    fields: tuple[FormField, ...]
    pools: tuple[FormItem, ...]
    tracks: tuple[FormTrack, ...]

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
            "fields": [
                {
                    "id": f.id,
                    "label": f.label,
                    "type": f.type,
                    "default": f.default,
                    "min": f.min,
                    "max": f.max,
                    "max_length": f.max_length,
                    "values": [{"value": v.value, "label": v.label} for v in f.values],
                }
                for f in self.fields
            ],
            "pools": [_item(p) for p in self.pools],
            "tracks": [
                {"id": t.id, "label": t.label, "min": t.min, "max": t.max} for t in self.tracks
            ],
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
        pools=tuple(FormItem(p.id, p.label) for p in sheet.pools),
        tracks=tuple(_track(t) for t in sheet.tracks if not t.kinds),
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


def _track(track: Track) -> FormTrack:
    top = track.max
    fixed = int(top.value) if top.source == "const" and is_int(top.value) else None
    return FormTrack(track.id, track.label, track.min, fixed)


def _value_labels(ruleset: Ruleset) -> dict[str, dict[str, str]]:
    """Each enum field's ``valueLabels``, read from the file as written: the compiled
    ``Field`` keeps the values, not the words shown for them."""
    found: dict[str, dict[str, str]] = {}
    sheet = ruleset.raw.get("sheet")
    for item in sheet.get("fields", ()) if isinstance(sheet, Mapping) else ():
        labels = item.get("valueLabels") if isinstance(item, Mapping) else None
        if isinstance(labels, Mapping):
            words = {str(k): v for k, v in labels.items() if isinstance(v, str)}
            found.setdefault(str(item.get("id")), words)
    return found
