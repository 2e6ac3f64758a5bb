"""``[sheet: op="use" name="Fireball"]``: a catalog entry the character picked is used,
and its price is paid all or nothing (docs/design/sheet-commands.md "Using a catalog
entry").

Three steps. Which entry the name means: the picked rows (those with a ``_catalog``
marker) answer to their display name and to their entry's label. The price: the
entry's cost terms (a pool, or the first pool of a group that can afford it), one use
of every counter row the same entry made, and ``pool=`` to pay a single-term cost from
another pool of its family. Paying: each part is an ordinary ``spend`` on one working
sheet, and the first refusal refuses the whole use with nothing changed.

Settled here: the whole price is worked out before anything is spent, so a price that
cannot be made (``bad-pool``, a family with no pool, a counter with no uses) refuses
before any spend is tried.
"""

from __future__ import annotations

from collections.abc import Mapping

from dicebound.ruleset.model import CatalogEntry, HideWhen, Ruleset
from dicebound.sheet import Build
from dicebound.sheet_commands.current import PoolSpec, WorkingSheet, is_hidden, name_eq
from dicebound.sheet_commands.model import Applied, Refused, SheetRequest
from dicebound.sheet_commands.pools import pool_command
from dicebound.sheet_commands.reasons import (
    AMBIGUOUS_ENTRY,
    BAD_POOL,
    INSUFFICIENT,
    UNKNOWN_ENTRY,
)
from dicebound.values import frozen

__all__ = ["PriceStep", "find_entry", "price_of", "use_command"]

MAX_PART = 120
"""The longest one paid part of a ``use``'s ``now`` (as any command's ``now``); the
whole summary is not cut here."""

_INDEX = ("sheet_commands.use", "index")


@frozen
class _Counters:
    """A list whose rows are pools, as ``use`` reads it: its id, the column naming each
    row's pool, and its ``hideWhen``."""

    list: str
    name_column: str
    hide_when: HideWhen | None


@frozen
class _Index:
    """What ``use`` reads off the definition alone, made once per ruleset.

    ``entries`` is every catalog entry by its ``_catalog`` marker and ``labels`` its label
    folded for NAME-EQ; ``shown_by`` each list's display-name column; ``family`` each
    declared pool id's group and each group name itself (the family a cost term pays
    within); ``members`` each group's pools in definition order."""

    entries: Mapping[str, CatalogEntry]
    labels: Mapping[str, str]
    shown_by: tuple[tuple[str, str | None], ...]
    counters: tuple[_Counters, ...]
    family: Mapping[str, str | None]
    members: Mapping[str, tuple[str, ...]]


def _index(ruleset: Ruleset) -> _Index:
    index: _Index | None = ruleset.memo.get(_INDEX)
    if index is not None:
        return index
    entries: dict[str, CatalogEntry] = {}
    for catalog in ruleset.catalogs:
        for entry in catalog.entries:
            entries.setdefault(f"{catalog.id}/{entry.id}", entry)
    members: dict[str, tuple[str, ...]] = {}
    for pool in ruleset.sheet.pools:
        if pool.group is not None:
            members[pool.group] = (*members.get(pool.group, ()), pool.id)
    family: dict[str, str | None] = {group: group for group in members}
    family.update((pool.id, pool.group) for pool in ruleset.sheet.pools)
    lists = ruleset.sheet.lists
    index = _Index(
        entries=entries,
        labels={mark: entry.label.strip().lower() for mark, entry in entries.items()},
        shown_by=tuple((decl.id, _display_column(ruleset, decl.id)) for decl in lists),
        counters=tuple(
            _Counters(decl.id, decl.pools.name_column, decl.hide_when)
            for decl in lists
            if decl.pools is not None
        ),
        family=family,
        members=members,
    )
    ruleset.memo[_INDEX] = index
    return index


def _display_column(ruleset: Ruleset, list_id: str) -> str | None:
    """The column a row of the list is shown by: the GM sheet summary's ``nameColumn``
    for the list, else the list's pool ``nameColumn``, else its first text column."""
    for item in ruleset.gm.sheet_summary.get("lists", ()):
        if isinstance(item, Mapping) and item.get("list") == list_id:
            column = item.get("nameColumn")
            if isinstance(column, str) and column:
                return column
    decl = next(d for d in ruleset.sheet.lists if d.id == list_id)
    if decl.pools is not None:
        return decl.pools.name_column
    return next((c.id for c in decl.columns if c.type == "text"), None)


def find_entry(ruleset: Ruleset, build: Build, written: str) -> tuple[str, CatalogEntry] | Refused:
    """The ``_catalog`` marker and entry a written name means among the build's picked
    rows (every list, shown or hidden): a row answers to its display name and to its
    entry's label, NAME-EQ. Rows of one entry are one answer; rows of two are
    ``ambiguous-entry``; none, or an entry the catalogs do not hold (kept in an asset),
    is ``unknown-entry``, since then nobody can say what it costs."""
    wanted = written.strip().lower()
    if not wanted:
        return Refused(UNKNOWN_ENTRY)
    index = _index(ruleset)
    marks: list[str] = []
    for list_id, column in index.shown_by:
        for row in build.lists.get(list_id, ()):
            mark = row.catalog
            if not isinstance(mark, str) or mark in marks:
                continue
            shown = row.cells.get(column) if column is not None else None
            if (isinstance(shown, str) and shown.strip().lower() == wanted) or (
                index.labels.get(mark) == wanted
            ):
                marks.append(mark)
    if not marks:
        return Refused(UNKNOWN_ENTRY)
    if len(marks) > 1:
        return Refused(AMBIGUOUS_ENTRY)
    entry = index.entries.get(marks[0])
    return Refused(UNKNOWN_ENTRY) if entry is None else (marks[0], entry)


@frozen
class PriceStep:
    """One part of a price: a ``spend`` of ``amount`` from the pool ``pool`` names (a
    pool's key, or a cost term's pool id as written when the sheet has no such pool),
    said in ``now`` under ``label``."""

    pool: str
    amount: int
    label: str


def _upcast(
    sheet: WorkingSheet, index: _Index, entry: CatalogEntry, written: str
) -> PoolSpec | Refused:
    """The pool ``pool=`` pays a single-term cost from: a current declared pool, by key
    or label, in the family of the term (the group of the pool it names, or the group it
    names). Anything else is ``bad-pool``."""
    if len(entry.cost) != 1:
        return Refused(BAD_POOL)
    family = index.family.get(entry.cost[0].pool)
    named = next(
        (
            p
            for p in sheet.layout.pools
            if not p.is_row and (name_eq(p.key, written) or name_eq(p.label, written))
        ),
        None,
    )
    if family is None or named is None or named.group != family:
        return Refused(BAD_POOL)
    return named


def price_of(
    sheet: WorkingSheet, mark: str, entry: CatalogEntry, pool: str | None = None
) -> tuple[PriceStep, ...] | Refused:
    """What using ``entry`` (picked as ``mark``) costs this sheet, as spends in order:
    each cost term, then one use of every counter row of the same entry.

    A term on a declared pool spends it; a term on a group spends the first of its
    current pools, in definition order, that can afford it beside what this price
    already charges it (else the first, whose spend is then refused); a group with no
    current pool is ``insufficient``; any other term (a hidden or zero-maximum pool)
    names its pool as written, so its spend says ``unknown-pool``. A counter row whose
    pool the sheet does not have is ``insufficient``: a counter with no uses never gives
    a free use. Rows in hidden lists and rows with no name are passed over."""
    index = _index(sheet.ruleset)
    layout = sheet.layout
    terms = tuple((term.pool, term.amount) for term in entry.cost)
    if pool is not None and pool.strip():
        named = _upcast(sheet, index, entry, pool)
        if isinstance(named, Refused):
            return named
        terms = ((named.key, terms[0][1]),)
    charged: dict[str, int] = {}
    steps: list[PriceStep] = []

    def charge(spec: PoolSpec, amount: int) -> None:
        charged[spec.key] = charged.get(spec.key, 0) + amount
        steps.append(PriceStep(spec.key, amount, spec.label))

    for name, amount in terms:
        own = layout.pool_by_key.get(name)
        if own is not None and not own.is_row:
            charge(own, amount)
        elif name in index.members:
            present = [
                layout.pool_by_key[k] for k in index.members[name] if k in layout.pool_by_key
            ]
            if not present:
                return Refused(INSUFFICIENT)
            charge(
                next(
                    (p for p in present if sheet.pool_value(p) - charged.get(p.key, 0) >= amount),
                    present[0],
                ),
                amount,
            )
        else:
            steps.append(PriceStep(name, amount, name))
    for counters in index.counters:
        for row in sheet.character.build.lists.get(counters.list, ()):
            cell = row.cells.get(counters.name_column) if row.catalog == mark else None
            if not isinstance(cell, str) or not cell.strip():
                continue
            if is_hidden(sheet.ruleset, sheet.character.build, counters.hide_when):
                break
            counter = layout.pool_by_key.get(f"{counters.list}:{cell.strip().lower()}")
            if counter is None:
                return Refused(INSUFFICIENT)
            if counter.key not in charged:
                charge(counter, 1)
    return tuple(steps)


def use_command(sheet: WorkingSheet, request: SheetRequest) -> Applied | Refused:
    """Use the entry the request names: every part of its price spent on the working
    sheet, in order, or the first part's refusal with nothing changed. An entry with no
    price (a cantrip) changes nothing, stores nothing and says ``<label>: no cost``."""
    found = find_entry(sheet.ruleset, sheet.character.build, request.name or "")
    if isinstance(found, Refused):
        return found
    mark, entry = found
    price = price_of(sheet, mark, entry, request.pool)
    if isinstance(price, Refused):
        return price
    if not price:
        return Applied(sheet.character, f"{entry.label}: no cost", stored=False)
    parts = []
    for step in price:
        now = pool_command(sheet, "spend", step.pool, step.amount)
        if isinstance(now, Refused):
            return now
        parts.append(f"{step.label} {now}"[:MAX_PART])
    return Applied(sheet.result(), ", ".join(parts))
