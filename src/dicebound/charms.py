"""A charm that changes a roll: ``use="Name"`` names a catalog entry the roller picked.

The name is matched, in any case, against the roller's list rows that carry a
``_catalog`` mark (docs/design/format.md "Which row a name means"): a row answers to its
displayed name (the ``gm.sheetSummary`` ``nameColumn`` for its list, else the list's
``pools.nameColumn``, else its first text column) and to the entry's label. The entry's
``mechanics.check`` is what it does to the roll; its ``mechanics.cost`` and one use of
every list-row pool the same entry wrote are what it costs.

``perCostStep`` says the entry scales: ``spend="pool:N"`` beside ``use=`` pays it N
points and buys N ÷ price steps (at most five), each step adding the entry's ``dice``
and ``successes`` again; its re-throw and the faces it moves are never multiplied. An
entry without ``perCostStep`` is bought once however much was offered. One purchase a
check.

All or nothing: a name that answers to no row or to two different entries, an entry
whose catalog cannot be read (kept in an asset) or that has no ``check``, points that
are not a whole number of steps, and a cost the pools cannot cover all do nothing at
all: nothing is applied and nothing is paid.

Readings where the documents are silent:

- ``spend=`` belongs to the entry when it names a pool the entry's cost is paid from (the
  pool itself, or a pool in the group a cost term names); that term is then paid from
  the named pool, and the price of a step is that term's amount. Any other ``spend=``
  is left for ``resolution.spend``. Beside a ``use=`` that names no entry the roller
  picked (or one whose catalog cannot be read) nobody can say what ``spend=`` was for,
  so it buys nothing either (``spend_is_for_entry``); the same where the entry it
  belongs to does nothing.
- Each step pays every cost term again; the list-row counters are paid once, because
  the entry is used once on the check.
- A term naming a pool group pays from the first pool of the group, in the order the
  sheet declares them, that can cover it (beside what earlier terms already owe).
- Without ``spend=`` a scaling entry is bought at one step. An entry that does not
  scale is bought once when ``spend=`` offers at least its price on its pool, and an
  offer below the price buys nothing.

Pure: it reads a ``SheetView`` and returns values; nothing is paid here.
"""

from __future__ import annotations

from collections.abc import Mapping

from dicebound.ruleset.model import CatalogEntry, ListDecl
from dicebound.sheet import SheetView
from dicebound.spend import Reroll, SpendAsk, find_pool
from dicebound.tags.names import normalize
from dicebound.values import frozen

__all__ = [
    "MAX_ENTRY_STEPS",
    "EntryEffect",
    "EntryUse",
    "find_entry",
    "spend_is_for_entry",
    "use_entry",
]

MAX_ENTRY_STEPS = 5
"""The most steps one ``perCostStep`` purchase buys (Marinara's ``MAX_ENTRY_CHECK_STEPS``)."""


@frozen
class EntryEffect:
    """What an entry does to one roll, its steps already counted: dice thrown with the
    pool, successes nobody rolled, a re-throw, a per-die target and the explode and
    double faces (each None where the entry leaves it alone)."""

    dice: int = 0
    successes: int = 0
    reroll: Reroll | None = None
    threshold: int | None = None
    explode: int | None = None
    double: int | None = None


@frozen
class EntryUse:
    """An entry used on a check: which one, how many steps, what it does and what it costs.

    ``costs`` are the cost terms' payments ``(pool key, amount)`` in order; ``counters``
    the list-row pools the same entry wrote, one point each. ``claims_spend`` says the
    tag's ``spend=`` went to this entry, so ``resolution.spend`` does not read it too.
    """

    mark: str
    entry: CatalogEntry
    steps: int
    effect: EntryEffect
    costs: tuple[tuple[str, int], ...] = ()
    counters: tuple[str, ...] = ()
    claims_spend: bool = False

    @property
    def payments(self) -> tuple[tuple[str, int], ...]:
        """Everything to pay, cost terms first, then one point from each counter."""
        return (*self.costs, *((key, 1) for key in self.counters))


def _name_column(view: SheetView, decl: ListDecl) -> str | None:
    """The column whose value a row of this list is displayed by (docs/design/format.md
    "Which row a name means")."""
    for item in view.ruleset.gm.sheet_summary.get("lists", ()):
        if isinstance(item, Mapping) and item.get("list") == decl.id and item.get("nameColumn"):
            return str(item["nameColumn"])
    if decl.pools is not None:
        return decl.pools.name_column
    return next((c.id for c in decl.columns if c.type == "text"), None)


def _entry(view: SheetView, mark: str) -> CatalogEntry | None:
    """The entry a ``_catalog`` mark points at, when its catalog is inline."""
    catalog_id, _, entry_id = mark.partition("/")
    catalog = next((c for c in view.ruleset.catalogs if c.id == catalog_id), None)
    if catalog is None or catalog.asset is not None:
        return None
    return next((e for e in catalog.entries if e.id == entry_id), None)


def find_entry(view: SheetView, name: str) -> tuple[str, CatalogEntry] | None:
    """The ``_catalog`` mark and entry a ``use=`` name picks among the roller's rows, or
    None when no row answers, two different entries do, or the catalog cannot be read."""
    wanted = normalize(name)
    if not wanted:
        return None
    marks: list[str] = []
    for decl in view.ruleset.sheet.lists:
        column = _name_column(view, decl)
        for row in view.list_rows(decl.id):
            if row.catalog is None:
                continue
            entry = _entry(view, row.catalog)
            shown = row.cells.get(column) if column is not None else None
            names = [entry.label] if entry is not None else []
            if isinstance(shown, str):
                names.append(shown)
            if any(normalize(n) == wanted for n in names) and row.catalog not in marks:
                marks.append(row.catalog)
    if len(marks) != 1:
        return None
    entry = _entry(view, marks[0])
    return None if entry is None else (marks[0], entry)


def _effect(check: Mapping[str, object], steps: int) -> EntryEffect:
    def number(key: str) -> int | None:
        value = check.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    raw = check.get("reroll")
    reroll = None
    if isinstance(raw, Mapping):
        up_to, mode = raw.get("upTo"), raw.get("mode")
        if isinstance(up_to, int) and mode in ("once", "until"):
            reroll = Reroll(up_to, "until" if mode == "until" else "once")
    return EntryEffect(
        dice=(number("dice") or 0) * steps,
        successes=(number("successes") or 0) * steps,
        reroll=reroll,
        threshold=number("threshold"),
        explode=number("explode"),
        double=number("double"),
    )


def _group_pools(view: SheetView, name: str) -> tuple[str, ...]:
    """The pools a cost term may pay from: the pool it names, else its group's, in order."""
    pools = view.ruleset.sheet.pools
    if any(p.id == name for p in pools):
        return (name,)
    return tuple(p.id for p in pools if p.group == name)


def spend_is_for_entry(view: SheetView, name: str | None, spend: SpendAsk | None) -> bool:
    """Whether the tag's ``spend=`` pays the entry ``use=`` names rather than
    ``resolution.spend``: it names a pool the entry's cost pays from, or ``use=`` names
    no entry the roller picked, so nobody can say what the points were for."""
    if name is None or spend is None:
        return False
    found = find_entry(view, name)
    if found is None:
        return True
    named = find_pool(view, spend.pool)
    return any(named in _group_pools(view, term.pool) for term in found[1].cost)


def use_entry(
    view: SheetView,
    name: str | None,
    spend: SpendAsk | None = None,
    committed: Mapping[str, int] | None = None,
) -> EntryUse | None:
    """What ``use=`` buys on one check, or None when it does nothing at all.

    ``spend`` is the tag's ``spend=``; ``committed`` what the check already owes on each
    pool. See the module's docstring for every rule.
    """
    if name is None:
        return None
    found = find_entry(view, name)
    if found is None:
        return None
    mark, entry = found
    if entry.check is None:
        return None
    terms = [(term, _group_pools(view, term.pool)) for term in entry.cost]
    named = find_pool(view, spend.pool) if spend is not None else None
    claimed = next((i for i, (_, pools) in enumerate(terms) if named in pools), None)
    steps = 1
    if claimed is not None:
        assert spend is not None
        price = terms[claimed][0].amount
        if entry.per_cost_step is not None:
            if spend.points % price:
                return None
            steps = min(spend.points // price, MAX_ENTRY_STEPS)
        elif spend.points < price:
            return None
    owed = dict(committed or {})
    costs: list[tuple[str, int]] = []
    for i, (term, pools) in enumerate(terms):
        amount = term.amount * steps
        choices = (named,) if i == claimed and named is not None else pools
        pool = next((p for p in choices if view.pool_value(p) - owed.get(p, 0) >= amount), None)
        if pool is None:
            return None
        owed[pool] = owed.get(pool, 0) + amount
        costs.append((pool, amount))
    counters = tuple(p.key for p in view.row_pools() if p.catalog == mark)
    for key in counters:
        if view.pool_value(key) - owed.get(key, 0) < 1:
            return None
        owed[key] = owed.get(key, 0) + 1
    return EntryUse(
        mark=mark,
        entry=entry,
        steps=steps,
        effect=_effect(entry.check, steps),
        costs=tuple(costs),
        counters=counters,
        claims_spend=claimed is not None,
    )
