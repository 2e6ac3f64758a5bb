"""Reading a character file against its ruleset.

A character file holds one party member (docs/design/format.md "Characters")::

    { "name": "Bram the Quiet",
      "sheet": { "v": 1, "build": { "abilities": {...}, "skills": {...}, "saves": {...},
                                    "bonuses": {...}, "fields": {...}, "lists": {...} } },
      "live":  { "pools": {...}, "tracks": {...}, "wounds": {...}, "text": {...},
                 "conditions": [...], "states": {...} } }

``sheet`` is Marinara's build envelope (absent: the blank build) and ``live`` the sparse
live state (docs/design/format.md "Characters"). Reading is strict: an unknown key, an
id the ruleset does not declare, a value of the wrong type or out of its range is a
problem, and every problem is reported at once as ``CharacterInvalid``. Nothing else is
ever raised for any JSON.

Choices where the documents are silent:

- ``v`` is the sheet version the build was written for; any whole number from 1 is
  accepted (a build is checked key by key against the ruleset as it is now).
- Ability scores and bonuses are whole numbers; a number field or column is whole unless
  it says ``integer: false``.
- A skill's or save's tier must be one the sheet offers (``skillTiers``/``saveTiers``,
  all tiers when those are absent).
- A ``_catalog`` mark on a row of a catalog kept in an asset (not inline) is accepted
  when its entry id is well formed, since dicebound does not read assets.
- Live values must fit the maxima the build gives them; when the build itself has
  problems those range checks are left out, so a bad build is not reported twice.
- The marks of a sequential wound track are put most severe first; an indexed track's
  trailing clear boxes are dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Literal

from dicebound import character_schema as shape
from dicebound.errors import CharacterInvalid
from dicebound.problem_codes import (
    BAD_CATALOG_MARK,
    DUPLICATE,
    EMPTY_MARK,
    MISSING_KEY,
    NO_TEMP,
    TIER_NOT_OFFERED,
    TOO_BIG,
    TOO_MANY,
    UNKNOWN_ABILITY,
    UNKNOWN_CATALOG,
    UNKNOWN_COLUMN,
    UNKNOWN_CONDITION,
    UNKNOWN_ENTRY,
    UNKNOWN_FIELD,
    UNKNOWN_KIND,
    UNKNOWN_LIST,
    UNKNOWN_POOL,
    UNKNOWN_SAVE,
    UNKNOWN_SKILL,
    UNKNOWN_STATE,
    UNKNOWN_TEXT,
    UNKNOWN_TIER,
    UNKNOWN_TRACK,
    UNKNOWN_VALUE,
    WRONG_TRACK,
    WRONG_TYPE,
)
from dicebound.problems import (
    Path,
    Problem,
    did_you_mean,
    hints_bounded,
    sort_problems,
    unknown_id,
)
from dicebound.ruleset.model import Field, ListColumn, ListDecl, Ruleset
from dicebound.ruleset.spec import (
    KEBAB_PATTERN,
    Node,
)
from dicebound.sheet import (
    Build,
    Character,
    Live,
    PoolValue,
    Row,
    Scalar,
    SheetView,
    Wounds,
    blank_build,
    frozen_map,
)

__all__ = ["SIZE_MAX", "live_to_json", "load_character"]

SIZE_MAX = 64 * 1024
"""The most bytes of JSON a sheet (the envelope) or a live state may take
(docs/design/format.md "Limits")."""


def load_character(ruleset: Ruleset, raw: object) -> Character:
    """Read one character file (parsed JSON) against ``ruleset``.

    Raises:
        CharacterInvalid: listing every problem, each naming the bad key or id.
    """
    with hints_bounded():  # a file of thousands of unknown names costs no more to hint
        return _Loader(ruleset).load(raw)


def live_to_json(live: Live) -> dict[str, Any]:
    """The sparse live state in the character file's shape (docs/design/format.md "Live
    state"), keys whose value is empty left out; ``load_character`` reads it back as an
    equal ``Live``.

    A pool writes ``temp`` only when it holds temporary points; a wound track writes
    ``overflow`` only when it is above 0 (its marks as they stand: most severe first on a
    sequential track, ``""`` for a clear box on an indexed one).
    """
    out: dict[str, Any] = {}
    pools: dict[str, dict[str, int]] = {}
    for key, pool in live.pools.items():
        entry = {"value": pool.value}
        if pool.temp:
            entry["temp"] = pool.temp
        pools[key] = entry
    wounds: dict[str, dict[str, Any]] = {}
    for key, marked in live.wounds.items():
        track: dict[str, Any] = {"marks": list(marked.marks)}
        if marked.overflow:
            track["overflow"] = marked.overflow
        wounds[key] = track
    parts: tuple[tuple[str, object], ...] = (
        ("pools", pools),
        ("tracks", dict(live.tracks)),
        ("wounds", wounds),
        ("text", dict(live.text)),
        ("conditions", list(live.conditions)),
        ("states", dict(live.states)),
    )
    for name, value in parts:
        if value:
            out[name] = value
    return out


def _size(value: object) -> int:
    """Bytes of compact UTF-8 JSON; 0 for what JSON cannot write (its type is refused anyway)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, OverflowError, RecursionError):
        return 0
    return len(text.encode("utf-8", "surrogatepass"))


class _Loader:
    """Walks one file, collecting every problem; bad entries read as their defaults."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.sheet = ruleset.sheet
        self.problems: list[Problem] = []

    def add(self, path: Path, code: str, message: str) -> None:
        self.problems.append(Problem(path, code, message))

    # -- shapes ------------------------------------------------------------------

    def checked(self, node: Node, value: object, path: Path) -> dict[str, object] | None:
        """Check ``value``'s shape against ``node``; the object, or None when it is none."""
        self.problems.extend(node.check(value, path))
        return value if isinstance(value, dict) else None

    def entries(self, value: object, path: Path) -> Iterator[tuple[str, object, Path]]:
        """The ``(key, value, path)`` of a map of ids (``path[-1]``), ``$comment`` left out."""
        found = self.checked(shape.PARTS[str(path[-1])], value, path)
        if found is None:
            return
        for key, item in found.items():
            if key != "$comment":
                yield str(key), item, (*path, str(key))

    def whole(
        self, value: object, path: Path, what: str, lo: float | None, hi: float | None
    ) -> int | None:
        """A whole number within ``lo``..``hi`` (the ruleset's), or None when refused."""
        problem = shape.number(what, lo, hi).problem(value, path)
        if problem is not None:
            self.problems.append(problem)
            return None
        assert isinstance(value, int | float)  # a number, as its shape says
        return int(value)

    # -- the file ------------------------------------------------------------------

    def load(self, raw: object) -> Character:
        top = self.checked(shape.FILE, raw, ())
        if top is None:
            raise CharacterInvalid(self.problems)
        for key, what in (("sheet", "sheet"), ("live", "live state")):
            size = _size(top.get(key))
            if size > SIZE_MAX:
                self.add(
                    (key,),
                    TOO_BIG,
                    f"The {what} takes {size} bytes of JSON; a character's {what} takes at most "
                    f"{SIZE_MAX}.",
                )
        name = top.get("name")
        name = name if isinstance(name, str) else ""
        build, clean = self.envelope(top.get("sheet")) if "sheet" in top else (None, True)
        build = build or blank_build(self.ruleset)
        live = self.live(top["live"], build, clean) if "live" in top else Live()
        if self.problems:
            raise CharacterInvalid(sort_problems(self.problems))
        return Character(name, build, live)

    def envelope(self, raw: object) -> tuple[Build | None, bool]:
        path: Path = ("sheet",)
        before = len(self.problems)
        sheet = self.checked(shape.SHEET, raw, path)
        if sheet is None or "build" not in sheet:
            return None, False
        version = self.sheet.version
        if "v" in sheet and shape.holds(shape.VERSION, sheet["v"]):
            version = int(sheet["v"])  # type: ignore[call-overload]
        build = self.build(sheet["build"], (*path, "build"), version)
        return build, len(self.problems) == before

    # -- the build -----------------------------------------------------------------

    def _unknown_ability(self, at: Path, key: str) -> Problem:
        """An ability key the ruleset does not declare, with the id to write instead:
        the one whose label or short name it is (``charisma`` -> ``cha``), else the
        nearest id or label."""
        abilities = self.sheet.abilities
        wanted = key.strip().lower()
        named = next(
            (a for a in abilities if wanted in {a.label.lower(), (a.short or "").lower()}), None
        )
        if named is not None:
            hint = f' Did you mean "{named.id}" ({named.label})?'
            return Problem(
                at, UNKNOWN_ABILITY, f'"{key}" is not an ability id of this ruleset.{hint}'
            )
        by_name = {a.id: a.id for a in abilities} | {a.label: a.id for a in abilities}
        close = did_you_mean(key, by_name)
        if close:
            written = close.split('"')[1]
            close = f' Did you mean "{by_name[written]}"?'
        return Problem(at, UNKNOWN_ABILITY, f'"{key}" is not an ability of this ruleset.{close}')

    def build(self, raw: object, path: Path, version: int) -> Build:
        blank = blank_build(self.ruleset)
        found = self.checked(shape.BUILD, raw, path)
        if found is None:
            return blank
        abilities = dict(blank.abilities)
        for key, value, at in self.entries(found.get("abilities", {}), (*path, "abilities")):
            ability = self.sheet.ability(key)
            if ability is None:
                self.problems.append(self._unknown_ability(at, key))
                continue
            score = self.whole(value, at, ability.label, ability.min, ability.max)
            if score is not None:
                abilities[key] = score
        skills = self.tiers(found.get("skills", {}), (*path, "skills"), "skill")
        saves = self.tiers(found.get("saves", {}), (*path, "saves"), "save")
        bonuses = self.bonuses(found.get("bonuses", {}), (*path, "bonuses"))
        fields = dict(blank.fields)
        for key, value, at in self.entries(found.get("fields", {}), (*path, "fields")):
            decl = next((f for f in self.sheet.fields if f.id == key), None)
            if decl is None:
                known = [f.id for f in self.sheet.fields]
                self.problems.append(unknown_id(at, key, "a field", known, code=UNKNOWN_FIELD))
                continue
            checked = self.scalar(decl, value, at, decl.label)
            if checked is not None:
                fields[key] = checked
        lists: dict[str, tuple[Row, ...]] = {}
        for key, value, at in self.entries(found.get("lists", {}), (*path, "lists")):
            decl_list = next((lst for lst in self.sheet.lists if lst.id == key), None)
            if decl_list is None:
                known = [lst.id for lst in self.sheet.lists]
                self.problems.append(unknown_id(at, key, "a list", known, code=UNKNOWN_LIST))
                continue
            lists[key] = self.rows(decl_list, value, at)
        return Build(
            version=version,
            abilities=frozen_map(abilities),
            skills=frozen_map(skills),
            saves=frozen_map(saves),
            bonuses=frozen_map(bonuses),
            fields=frozen_map(fields),
            lists=frozen_map(lists),
        )

    def tiers(self, raw: object, path: Path, group: Literal["skill", "save"]) -> dict[str, str]:
        items = self.sheet.skills if group == "skill" else self.sheet.saves
        offered = self.sheet.skill_tiers if group == "skill" else self.sheet.save_tiers
        tiers = [t.id for t in self.ruleset.resolution.tiers]
        offered = tuple(t for t in offered if t in tiers) or tuple(tiers)
        out: dict[str, str] = {}
        for key, value, at in self.entries(raw, path):
            if not any(item.id == key for item in items):
                self.problems.append(
                    unknown_id(
                        at,
                        key,
                        f"a {group}",
                        [i.id for i in items],
                        code=UNKNOWN_SKILL if group == "skill" else UNKNOWN_SAVE,
                    )
                )
                continue
            if not isinstance(value, str):
                self.add(
                    at, WRONG_TYPE, f"A {group}'s tier must be a tier id, not {shape.show(value)}."
                )
            elif value not in tiers:
                self.problems.append(
                    unknown_id(at, value, "a proficiency tier", tiers, code=UNKNOWN_TIER)
                )
            elif value not in offered:
                self.add(
                    at,
                    TIER_NOT_OFFERED,
                    f'"{value}" is not a tier {group}s may take here; they take '
                    f"{', '.join(offered)}.{did_you_mean(value, offered)}",
                )
            else:
                out[key] = value
        return out

    def bonuses(self, raw: object, path: Path) -> dict[str, int]:
        known = [s.id for s in self.sheet.skills] + [s.id for s in self.sheet.saves]
        out: dict[str, int] = {}
        for key, value, at in self.entries(raw, path):
            if key not in known:
                self.problems.append(
                    unknown_id(at, key, "a skill or a save", known, code=UNKNOWN_SKILL)
                )
                continue
            bonus = self.whole(
                value, at, f'the bonus of "{key}"', self.sheet.bonus_min, self.sheet.bonus_max
            )
            if bonus is not None:
                out[key] = bonus
        return out

    def scalar(
        self, decl: Field | ListColumn, value: object, path: Path, label: str
    ) -> Scalar | None:
        """A field's or a column's value, checked against its declaration; None when
        refused."""
        before = len(self.problems)
        self.problems.extend(shape.field_value(decl, label).check(value, path))
        if len(self.problems) > before:
            return None
        if isinstance(value, bool | str):
            return value
        assert isinstance(value, int | float)  # a number, as its shape says
        return int(value) if decl.integer else value

    def rows(self, decl: ListDecl, raw: object, path: Path) -> tuple[Row, ...]:
        if not isinstance(raw, list):
            self.problems.extend(shape.rows(decl.label).check(raw, path))
            return ()
        if len(raw) > decl.max_items:
            self.add(
                path,
                TOO_MANY,
                f"The list {decl.label} takes at most {decl.max_items} rows, not {len(raw)}.",
            )
        columns = {c.id: c for c in decl.columns}
        rows: list[Row] = []
        for i, item in enumerate(raw[: decl.max_items]):
            at: Path = (*path, i)
            row = self.checked(shape.row(decl.label), item, at)
            if row is None:
                continue
            cells: dict[str, Scalar] = {}
            catalog: str | None = None
            for key, value in row.items():
                name = str(key)
                if name == "$comment":
                    continue
                if name == "_catalog":
                    catalog = self.catalog_mark(value, (*at, name))
                    continue
                column = columns.get(name)
                if column is None:
                    self.problems.append(
                        unknown_id(
                            (*at, name),
                            name,
                            f"a column of {decl.label}",
                            list(columns),
                            code=UNKNOWN_COLUMN,
                        )
                    )
                    continue
                checked = self.scalar(column, value, (*at, name), column.label)
                if checked is not None:
                    cells[name] = checked
            for column in decl.columns:
                given = row.get(column.id)
                if column.required and (
                    given is None or (isinstance(given, str) and not given.strip())
                ):
                    self.add(
                        at,
                        MISSING_KEY,
                        f'The row needs "{column.id}" ({column.label}), which {decl.label} requires.',
                    )
                if (
                    column.id not in cells
                    and column.id not in row
                    and isinstance(column.default, bool | int | float | str)
                ):
                    cells[column.id] = column.default
            rows.append(Row(frozen_map(cells), catalog))
        return tuple(rows)

    def catalog_mark(self, value: object, path: Path) -> str | None:
        form = '"<catalog id>/<entry id>"'
        if not isinstance(value, str) or value.count("/") != 1:
            self.add(path, BAD_CATALOG_MARK, f"_catalog must be {form}, not {shape.show(value)}.")
            return None
        catalog_id, entry_id = value.split("/")
        catalogs = self.ruleset.catalogs
        catalog = next((c for c in catalogs if c.id == catalog_id), None)
        if catalog is None:
            self.problems.append(
                unknown_id(
                    path, catalog_id, "a catalog", [c.id for c in catalogs], code=UNKNOWN_CATALOG
                )
            )
            return None
        if catalog.asset is not None and not catalog.entries:
            if re.match(KEBAB_PATTERN, entry_id):
                return value
            self.add(path, BAD_CATALOG_MARK, f'"{entry_id}" is not a catalog entry id.')
            return None
        if not any(e.id == entry_id for e in catalog.entries):
            known = [e.id for e in catalog.entries]
            self.problems.append(
                unknown_id(
                    path,
                    entry_id,
                    f"an entry of the catalog {catalog.label}",
                    known,
                    code=UNKNOWN_ENTRY,
                )
            )
            return None
        return value

    # -- live state ------------------------------------------------------------------

    def live(self, raw: object, build: Build, clean: bool) -> Live:
        path: Path = ("live",)
        found = self.checked(shape.LIVE, raw, path)
        if found is None:
            return Live()
        view = SheetView(self.ruleset, Character("", build))
        return Live(
            pools=frozen_map(self.pools(found.get("pools", {}), (*path, "pools"), view, clean)),
            tracks=frozen_map(self.tracks(found.get("tracks", {}), (*path, "tracks"), view, clean)),
            wounds=frozen_map(self.wounds(found.get("wounds", {}), (*path, "wounds"), view, clean)),
            text=frozen_map(self.text(found.get("text", {}), (*path, "text"))),
            conditions=self.conditions(found.get("conditions", []), (*path, "conditions")),
            states=frozen_map(self.states(found.get("states", {}), (*path, "states"))),
        )

    def pools(self, raw: object, path: Path, view: SheetView, clean: bool) -> dict[str, PoolValue]:
        keys = view.pool_keys()
        out: dict[str, PoolValue] = {}
        for key, value, at in self.entries(raw, path):
            if key not in keys:
                self.add(
                    at,
                    UNKNOWN_POOL,
                    f'"{key}" is not a pool of this ruleset or of a list row of this character '
                    f'(a row\'s pool is "<list id>:<row name in lower case>").{did_you_mean(key, keys)}',
                )
                continue
            label = view.pool_label(key)
            entry = self.checked(shape.pool(key, label), value, at)
            if entry is None or "value" not in entry:
                continue
            top = view.pool_max(key) if clean else None
            current = self.whole(entry["value"], (*at, "value"), f"{label}'s value", 0, top)
            temp = 0
            if "temp" in entry:
                pool = next((p for p in self.sheet.pools if p.id == key), None)
                if pool is None or not pool.allow_temp:
                    self.add(
                        (*at, "temp"),
                        NO_TEMP,
                        f"{label} takes no temporary points (its pool does not say allowTemp).",
                    )
                else:
                    temp = self.whole(entry["temp"], (*at, "temp"), f"{label}'s temp", 0, None) or 0
            if current is not None:
                out[key] = PoolValue(current, temp)
        return out

    def tracks(self, raw: object, path: Path, view: SheetView, clean: bool) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, value, at in self.entries(raw, path):
            track = next((t for t in self.sheet.tracks if t.id == key), None)
            if track is None:
                self.problems.append(
                    unknown_id(
                        at, key, "a track", [t.id for t in self.sheet.tracks], code=UNKNOWN_TRACK
                    )
                )
                continue
            if track.is_wound_track:
                self.add(
                    at,
                    WRONG_TRACK,
                    f'"{key}" is a wound track: its marks go under live.wounds, not a number here.',
                )
                continue
            top = view.track_max(key) if clean else None
            number = self.whole(value, at, track.label, track.min, top)
            if number is not None:
                out[key] = number
        return out

    def wounds(self, raw: object, path: Path, view: SheetView, clean: bool) -> dict[str, Wounds]:
        out: dict[str, Wounds] = {}
        for key, value, at in self.entries(raw, path):
            track = next((t for t in self.sheet.tracks if t.id == key), None)
            if track is None:
                self.problems.append(
                    unknown_id(
                        at, key, "a track", [t.id for t in self.sheet.tracks], code=UNKNOWN_TRACK
                    )
                )
                continue
            if not track.is_wound_track:
                self.add(
                    at,
                    WRONG_TRACK,
                    f'"{key}" is a plain track: its number goes under live.tracks, not marks here.',
                )
                continue
            entry = self.checked(shape.wounds(track.label), value, at)
            if entry is None or "marks" not in entry:
                continue
            overflow = entry.get("overflow", 0)
            overflow = int(overflow) if shape.holds(shape.OVERFLOW, overflow) else 0  # type: ignore[call-overload]
            marks_raw = entry["marks"]
            if not isinstance(marks_raw, list):
                continue
            kinds = {k.id: k.severity for k in track.kinds}
            indexed = track.fill == "indexed"
            marks: list[str] = []
            good = True
            for i, mark in enumerate(marks_raw):
                mark_at: Path = (*at, "marks", i)
                if not isinstance(mark, str):  # refused by its shape
                    good = False
                elif mark == "":
                    if not indexed:
                        self.add(
                            mark_at,
                            EMPTY_MARK,
                            f'"" marks a clear box, which only an indexed track has; {track.label} fills in order.',
                        )
                        good = False
                    marks.append(mark)
                elif mark not in kinds:
                    self.problems.append(
                        unknown_id(
                            mark_at,
                            mark,
                            f"a kind of harm of {track.label}",
                            list(kinds),
                            code=UNKNOWN_KIND,
                        )
                    )
                    good = False
                else:
                    marks.append(mark)
            if not good:
                continue
            while indexed and marks and not marks[-1]:
                marks.pop()  # trailing clear boxes say nothing
            if clean:
                room = view.track_max(key)
                if len(marks) > room:
                    what = "boxes" if track.boxes_by is not None else "rungs"
                    self.add(
                        (*at, "marks"),
                        TOO_MANY,
                        f"{track.label} has {room} {what} on this sheet, so it holds at most "
                        f"{room} marks, not {len(marks)}.",
                    )
                    continue
            if not indexed:
                marks.sort(key=lambda m: -kinds[m])
            out[key] = Wounds(tuple(marks), overflow)
        return out

    def text(self, raw: object, path: Path) -> dict[str, str]:
        out: dict[str, str] = {}
        declared = {tid: (label, cap) for tid, label, cap in self.sheet.text}
        for key, value, at in self.entries(raw, path):
            if key not in declared:
                self.problems.append(
                    unknown_id(at, key, "a live text", list(declared), code=UNKNOWN_TEXT)
                )
                continue
            label, cap = declared[key]
            before = len(self.problems)
            self.problems.extend(shape.text(label, cap).check(value, at))
            if len(self.problems) == before and isinstance(value, str):
                out[key] = value
        return out

    def conditions(self, raw: object, path: Path) -> tuple[str, ...]:
        self.problems.extend(shape.CONDITIONS.check(raw, path))
        if not isinstance(raw, list):
            return ()
        known = [c.id for c in self.sheet.conditions]
        out: list[str] = []
        for i, item in enumerate(raw):
            if not isinstance(item, str):
                continue  # refused by its shape
            if item not in known:
                self.problems.append(
                    unknown_id((*path, i), item, "a condition", known, code=UNKNOWN_CONDITION)
                )
            elif item in out:
                self.add((*path, i), DUPLICATE, f'The condition "{item}" is listed twice.')
            else:
                out.append(item)
        return tuple(out)

    def states(self, raw: object, path: Path) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value, at in self.entries(raw, path):
            state = next((s for s in self.sheet.states if s.id == key), None)
            if state is None:
                self.problems.append(
                    unknown_id(
                        at,
                        key,
                        "a live state",
                        [s.id for s in self.sheet.states],
                        code=UNKNOWN_STATE,
                    )
                )
            elif not isinstance(value, str) or value not in state.values:
                choices = ", ".join(f'"{v}"' for v in state.values)
                hint = did_you_mean(value, state.values) if isinstance(value, str) else ""
                self.add(
                    at,
                    UNKNOWN_VALUE,
                    f"{shape.show(value)} is not one of {state.label}'s values ({choices}).{hint}",
                )
            else:
                out[key] = value
        return out
