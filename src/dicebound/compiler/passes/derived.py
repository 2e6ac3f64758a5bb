"""The derived pass: the sheet's derived values (sums, scales, step and enum tables)."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any, Literal

from dicebound.compiler.passes.context import (
    Context,
    number,
)
from dicebound.problem_codes import (
    NOT_A_VALUE,
    NOT_AN_ENUM,
)
from dicebound.problems import (
    Path,
    did_you_mean,
    unknown_id,
)
from dicebound.ruleset.model import (
    Derived,
    ValueRef,
)
from dicebound.values import replace

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Compile the derived values in order; each reads only those declared above it."""
    at: Path = ("sheet", "derived")
    order = ctx.names["derived"]
    for _, item, here in ctx.items(ctx.sheet_raw.get("derived"), at):
        ident = str(item["id"])
        index = order.index(ident)
        scope = ctx.scope().with_derived(index)
        op = item["op"]
        of: tuple[ValueRef, ...] = ()
        source: ValueRef | None = None
        enum_from: tuple[Literal["field", "liveState"], str] | None = None
        enum_table: dict[str, float] = {}
        if op in ("sum", "min", "max"):
            refs = [ctx.ref(r, (*here, "of", j), scope) for j, r in enumerate(item["of"])]
            of = tuple(r for r in refs if r is not None)
        elif op == "scale":
            one = ctx.ref(item["of"], (*here, "of"), scope)
            of = (one,) if one is not None else ()
        elif op == "stepTable":
            source = ctx.ref(item["from"], (*here, "from"), scope)
        else:
            enum_from, enum_table = _enum_table(ctx, item, here)
        derived = Derived(
            ident,
            str(item["label"]),
            op,
            of=of,
            source=source,
            multiplier=number(item.get("multiplier", 1)),
            round=item.get("round", "down"),
            table=tuple((float(a), float(b)) for a, b in item.get("table", ()))
            if op == "stepTable"
            else (),
            enum_from=enum_from,
            enum_table=MappingProxyType(enum_table),
            default=number(item.get("default", 0)),
        )
        ctx.sheet = replace(ctx.sheet, derived=(*ctx.sheet.derived, derived))


def _enum_table(
    ctx: Context, item: dict[str, Any], here: Path
) -> tuple[tuple[Literal["field", "liveState"], str] | None, dict[str, float]]:
    source = item["from"]
    where: Literal["field", "liveState"] = "field" if "field" in source else "liveState"
    name = str(source[where])
    table = {k: float(v) for k, v in item["table"].items() if k != "$comment"}
    values: Sequence[str] | None = None
    if where == "field":
        if name not in ctx.names["fields"]:
            ctx.problems.append(
                unknown_id((*here, "from", "field"), name, "a field", ctx.names["fields"])
            )
            return None, table
        decl = next((f for f in ctx.sheet.fields if f.id == name), None)
        if decl is not None and decl.type != "enum":
            ctx.add(
                (*here, "from", "field"),
                NOT_AN_ENUM,
                f'"{name}" is a {decl.type} field; an enum table reads an enum field or a live state.',
            )
            return None, table
        values = decl.values if decl is not None else None
    else:
        if name not in ctx.names["states"]:
            ctx.problems.append(
                unknown_id((*here, "from", "liveState"), name, "a live state", ctx.names["states"])
            )
            return None, table
        state = next((s for s in ctx.sheet.states if s.id == name), None)
        values = state.values if state is not None else None
    if values is not None:
        for key in table:
            if key not in values:
                ctx.add(
                    (*here, "table", key),
                    NOT_A_VALUE,
                    f'"{key}" is not a value "{name}" can hold, so the row could never be read.'
                    f"{did_you_mean(key, values)}",
                )
    return (where, name), table
