"""The gm pass: the Game Master's sheet summary names fields, derived values and lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicebound.compiler.passes.context import (
    Context,
    as_dict,
    as_list,
)
from dicebound.problems import (
    Path,
    unknown_id,
)

__all__ = ["run"]


def run(ctx: Context) -> None:
    """What the Game Master's sheet summary names exists on the sheet."""
    at: Path = ("gm", "sheetSummary")
    summary = as_dict(as_dict(ctx.raw.get("gm")).get("sheetSummary"))
    for key, what, names in (
        ("fields", "a field", ctx.names["fields"]),
        ("derived", "a derived value", ctx.names["derived"]),
    ):
        if not ctx.clean((*at, key)):
            continue
        for i, name in enumerate(as_list(summary.get(key))):
            if name not in names:
                ctx.problems.append(unknown_id((*at, key, i), str(name), what, names))
    for _, item, here in ctx.items(summary.get("lists"), (*at, "lists")):
        list_id = str(item["list"])
        if list_id not in ctx.names["lists"]:
            ctx.problems.append(unknown_id((*here, "list"), list_id, "a list", ctx.names["lists"]))
            continue
        wanted: list[tuple[str | int, Any, Sequence[str]]] = [
            ("nameColumn", item["nameColumn"], ("text", "enum"))
        ]
        if "groupBy" in item:
            wanted.append(("groupBy", item["groupBy"], ()))
        if "onlyWhen" in item:
            wanted.append(("onlyWhen", item["onlyWhen"], ("boolean",)))
        ctx.check_columns(list_id, wanted, here)
        for j, column in enumerate(item.get("columns", ())):
            ctx.check_columns(list_id, [(j, column, ())], (*here, "columns"))
