"""The catalogs pass: entries, the rows they write onto a sheet, their costs and checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from dicebound.compiler.passes.context import (
    Context,
    as_dict,
    misfit,
)
from dicebound.problem_codes import (
    ASSET_PATH,
    CHECK_NEEDS_POOL,
    DOES_NOT_FIT,
    FEEDS_NOT_ROWS,
    MECHANICS_NOT_ALLOWED,
    NOT_FED,
    OUTSIDE_RULE,
    OUTSIDE_TARGET,
    READS_LIVE,
    REROLLS_EVERY_FACE,
    RULE_HAS_NO_MIN,
    SCALED_NEEDS_VALUE,
    SCALED_NOT_ALONE,
    SCALED_READS_LIST,
    UNKNOWN_ID,
    WRONG_COLUMN_TYPE,
    WRONG_ENTRY,
    WRONG_TYPE,
)
from dicebound.problems import (
    Path,
    did_you_mean,
    missing_key,
    not_a_column,
    unknown_id,
)
from dicebound.ruleset.model import (
    Catalog,
    CatalogEntry,
    CostTerm,
    ListColumn,
)
from dicebound.ruleset.refs import LIVE_READS, describe_chain, trace
from dicebound.ruleset.spec import describe, is_number

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Compile the catalogs into ``ctx.catalogs``."""
    out = []
    for _, cat, here in ctx.items(ctx.raw.get("catalogs"), ("catalogs",)):
        out.append(_catalog(ctx, cat, here))
    ctx.catalogs = tuple(out)


def _catalog(ctx: Context, cat: dict[str, Any], here: Path) -> Catalog:
    ident = str(cat["id"])
    holds = cat.get("holds", "rows")
    feeds = [str(f) for f in cat.get("feeds", ())]
    if holds == "rows" and "feeds" not in cat:
        ctx.problems.append(
            missing_key(
                here, "feeds", where="on a catalog of rows: the lists its entries write into"
            )
        )
    if holds != "rows" and "feeds" in cat:
        ctx.add(
            (*here, "feeds"),
            FEEDS_NOT_ROWS,
            f"a catalog of {holds} writes nothing onto a sheet, so it declares no feeds.",
        )
    for i, name in enumerate(feeds):
        if name not in ctx.names["lists"]:
            ctx.problems.append(unknown_id((*here, "feeds", i), name, "a list", ctx.names["lists"]))
    filters = {str(f["id"]): str(f["type"]) for f in cat.get("filters", ())}
    for i, spec in enumerate(cat.get("filters", ())):
        start = spec.get("startFrom")
        if start is not None and start["field"] not in ctx.names["fields"]:
            ctx.problems.append(
                unknown_id(
                    (*here, "filters", i, "startFrom", "field"),
                    str(start["field"]),
                    "a field",
                    ctx.names["fields"],
                )
            )
    asset = cat.get("asset")
    if asset is not None and asset != f"catalogs/{ident}.json":
        ctx.add(
            (*here, "asset"),
            ASSET_PATH,
            f'{describe(asset)} is not "catalogs/{ident}.json"; a catalog\'s asset is named '
            "after the catalog.",
        )
    entries = []
    for _, entry, at in ctx.items(cat.get("entries"), (*here, "entries")):
        entries.append(_entry(ctx, entry, at, holds, feeds, filters))
    return Catalog(ident, str(cat["label"]), holds, tuple(entries), asset)


def _entry(
    ctx: Context,
    entry: dict[str, Any],
    here: Path,
    holds: str,
    feeds: Sequence[str],
    filters: Mapping[str, str],
) -> CatalogEntry:
    want = {"rows": "rows", "creatures": "creature", "items": "item"}[holds]
    have = next(key for key in ("rows", "creature", "item") if key in entry)
    if have != want:
        ctx.add(
            (*here, have),
            WRONG_ENTRY,
            f'a catalog that holds {holds} takes entries with "{want}", not "{have}".',
        )
    if have != "rows" and "mechanics" in entry:
        ctx.add(
            (*here, "mechanics"),
            MECHANICS_NOT_ALLOWED,
            f"an entry with {have} says what it does in its own block, so it carries no mechanics.",
        )
    for key, value in as_dict(entry.get("filters")).items():
        if key == "$comment":
            continue
        kind = filters.get(key)
        if kind is None:
            ctx.problems.append(
                unknown_id((*here, "filters", key), key, "a filter of this catalog", filters)
            )
            continue
        fits = {
            "number": is_number(value),
            "text": isinstance(value, str),
            "tags": isinstance(value, list),
        }[kind]
        if not fits:
            said = {"number": "a number", "text": "one string", "tags": "a list of strings"}[kind]
            ctx.add(
                (*here, "filters", key),
                WRONG_TYPE,
                f'must be {said} for the {kind} filter "{key}", not {describe(value)}.',
            )
    if have == "rows":
        _rows(ctx, entry["rows"], (*here, "rows"), feeds)
    mechanics = as_dict(entry.get("mechanics"))
    cost: tuple[CostTerm, ...] = ()
    if mechanics and ctx.clean((*here, "mechanics")):
        cost = _cost(ctx, mechanics, (*here, "mechanics"))
        if "check" in mechanics:
            _entry_check(ctx, mechanics["check"], (*here, "mechanics", "check"))
    return CatalogEntry(
        str(entry["id"]),
        str(entry["label"]),
        kind=mechanics.get("kind"),
        cost=cost,
        per_cost_step=None
        if "perCostStep" not in mechanics
        else MappingProxyType(mechanics["perCostStep"]),
        check=None if "check" not in mechanics else MappingProxyType(mechanics["check"]),
        raw=MappingProxyType(entry),
    )


def _rows(ctx: Context, rows: list[dict[str, Any]], here: Path, feeds: Sequence[str]) -> None:
    lists_written: dict[str, int] = {}
    for row in rows:
        lists_written[str(row["list"])] = lists_written.get(str(row["list"]), 0) + 1
    for i, row in enumerate(rows):
        at = (*here, i)
        list_id = str(row["list"])
        if list_id not in ctx.names["lists"]:
            ctx.problems.append(unknown_id((*at, "list"), list_id, "a list", ctx.names["lists"]))
            continue
        if feeds and list_id not in feeds:
            shown = ", ".join(f'"{f}"' for f in feeds)
            ctx.add(
                (*at, "list"),
                NOT_FED,
                f'"{list_id}" is not one of this catalog\'s feeds ({shown}); an entry writes '
                "only into the lists its catalog feeds.",
            )
            continue
        decl = next((lst for lst in ctx.sheet.lists if lst.id == list_id), None)
        if decl is None:
            continue
        columns = {c.id: c for c in decl.columns}
        for key, value in row["values"].items():
            if key == "$comment":
                continue
            column = columns.get(key)
            if column is None:
                ctx.problems.append(not_a_column((*at, "values", key), key, list_id, columns))
                continue
            why = misfit(column, value)
            if why is not None:
                ctx.add(
                    (*at, "values", key),
                    DOES_NOT_FIT,
                    f'{describe(value)} does not fit the column "{key}": {why}.',
                )
        scaled = as_dict(row.get("scaled"))
        if scaled and lists_written[list_id] > 1:
            ctx.add(
                (*at, "scaled"),
                SCALED_NOT_ALONE,
                f'a row with scaled columns is the entry\'s only row for "{list_id}", so a '
                "marked row on a sheet matches one spec.",
            )
        for key, spec in scaled.items():
            if key == "$comment":
                continue
            _scaled(ctx, key, spec, (*at, "scaled", key), columns, row["values"], list_id)


def _scaled(
    ctx: Context,
    key: str,
    spec: dict[str, Any],
    here: Path,
    columns: Mapping[str, ListColumn],
    values: Mapping[str, Any],
    list_id: str,
) -> None:
    column = columns.get(key)
    if column is None:
        ctx.problems.append(not_a_column(here, key, list_id, columns))
        return
    if column.type != "number":
        ctx.add(
            here,
            WRONG_COLUMN_TYPE,
            f'"{key}" is a {column.type} column; a scaled column is a number column.',
        )
        return
    if not is_number(values.get(key)) or isinstance(values.get(key), bool):
        ctx.add(
            here,
            SCALED_NEEDS_VALUE,
            f'"{key}" also needs a plain number in the row\'s values: what the row holds '
            "before any sheet is known.",
        )
    source = ctx.ref(spec["from"], (*here, "from"))
    if source is None:
        return
    chain = trace(source, ctx.sheet, lambda r: r.source in LIVE_READS)
    if chain is not None:
        ctx.add(
            (*here, "from"),
            READS_LIVE,
            f"{describe_chain(chain)}, which changes in play; a scaled column is worked out "
            "when the sheet is edited, before there is any live state.",
        )
    chain = trace(source, ctx.sheet, lambda r: r.source == "listSum")
    if chain is not None:
        ctx.add(
            (*here, "from"),
            SCALED_READS_LIST,
            f"{describe_chain(chain)}; a scaled column cannot read a list sum, since a list "
            "may hold scaled cells and the recompute would never settle.",
        )


def _cost(ctx: Context, mechanics: dict[str, Any], here: Path) -> tuple[CostTerm, ...]:
    groups = [p.group for p in ctx.sheet.pools if p.group is not None]
    known = list(dict.fromkeys([*ctx.names["pools"], *groups]))
    out = []
    for i, term in enumerate(mechanics.get("cost", ())):
        pool = str(term["pool"])
        if pool not in known:
            ctx.add(
                (*here, "cost", i, "pool"),
                UNKNOWN_ID,
                f'"{pool}" is neither a live pool nor a pool group of this ruleset.'
                f"{did_you_mean(pool, known)}",
            )
        out.append(CostTerm(pool, int(term["amount"])))
    return tuple(out)


def _entry_check(ctx: Context, check: dict[str, Any], here: Path) -> None:
    """The page: only a dice-pool ruleset honours an entry's check; its faces must be
    faces the pool can use."""
    kind = ctx.kind.name if ctx.kind is not None else ctx.res_raw.get("kind")
    if ctx.kind is None or not ctx.kind.honours_entry_checks:
        ctx.add(
            here,
            CHECK_NEEDS_POOL,
            f"only a dice-pool ruleset can honour an entry's check, and this ruleset is "
            f"{describe(kind)}.",
        )
        return
    res = ctx.res_raw
    if not ctx.clean(("resolution",)):
        return
    sides = int(as_dict(res.get("die")).get("sides", 10))
    target = res["target"]
    if "reroll" in check and int(check["reroll"]["upTo"]) >= sides:
        ctx.add(
            (*here, "reroll", "upTo"),
            REROLLS_EVERY_FACE,
            f"{check['reroll']['upTo']} is not below the die's top face {sides}; a re-throw "
            "of every face would never stop.",
        )
    if "threshold" in check:
        value = int(check["threshold"])
        lo, hi = int(target["min"]), int(target["max"])
        if not lo <= value <= hi:
            ctx.add(
                (*here, "threshold"),
                OUTSIDE_TARGET,
                f"{value} is outside the target's range {lo}..{hi}; an entry sets the "
                "per-die target only inside it.",
            )
    for key in ("explode", "double"):
        if key not in check:
            continue
        value = int(check[key])
        rule = as_dict(res.get(key))
        if "min" not in rule:
            ctx.add(
                (*here, key),
                RULE_HAS_NO_MIN,
                f"resolution.{key} has no min, so nothing may move its face; give the rule "
                "a min to let an entry move it.",
            )
        elif not int(rule["min"]) <= value <= sides:
            ctx.add(
                (*here, key),
                OUTSIDE_RULE,
                f"{value} is outside {rule['min']}..{sides}; an entry moves the {key} face "
                "only down to the rule's min and up to the die's top face.",
            )
