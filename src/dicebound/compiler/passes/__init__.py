"""The compiler's passes over a structurally checked ruleset file, in the order they run.

Each pass reads the file and what the passes before it built from one shared
``Context``, adds its problems there, and builds its part of the ``Ruleset``. They run
in this order because each reads the last: the sheet's declarations, then its live
pools and tracks, the derived values, the caps and maxima that read those, then the
resolution (which reads the sheet), the combat block, the Game Master's summary, the
catalogs, the layers, and the rests (whose steps name pools, tracks and states).
``compiler.compile`` runs them, with the work's checkpoint
between each two.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import NamedTuple

from dicebound.compiler.passes import (
    catalogs,
    combat,
    derived,
    gm,
    layers,
    maxima,
    resolution,
    rests,
    sheet,
    tracks,
)
from dicebound.compiler.passes.context import Context
from dicebound.compiler.schema import NOT_PLAYED
from dicebound.ruleset.model import Gm, Ruleset

__all__ = ["PASSES", "Context", "Pass", "assemble"]


class Pass(NamedTuple):
    """One named step of the compiler."""

    name: str
    run: Callable[[Context], None]


PASSES: tuple[Pass, ...] = (
    Pass("sheet", sheet.run),
    Pass("tracks", tracks.run),
    Pass("derived", derived.run),
    Pass("maxima", maxima.run),
    Pass("resolution", resolution.run),
    Pass("combat", combat.run),
    Pass("gm", gm.run),
    Pass("catalogs", catalogs.run),
    Pass("layers", layers.run),
    Pass("rests", rests.run),
)


def assemble(ctx: Context) -> Ruleset | None:
    """The Ruleset the passes built, or None when the file has any problem."""
    if ctx.bad or ctx.problems or ctx.resolution is None:
        return None
    raw = ctx.raw
    gm = raw["gm"]
    played = ("combat",) if ctx.combat is not None and ctx.combat.played else ()
    present = tuple(block for block in NOT_PLAYED if block in raw and block not in played)
    return Ruleset(
        id=str(raw["id"]),
        version=int(raw["version"]),
        name=str(raw["name"]),
        resolution=ctx.resolution,
        sheet=ctx.sheet,
        gm=Gm(
            check_guidance=str(gm["checkGuidance"]),
            sheet_guidance=gm.get("sheetGuidance"),
            world_guidance=gm.get("worldGuidance"),
            sheet_summary=MappingProxyType(dict(gm.get("sheetSummary", {}))),
        ),
        catalogs=ctx.catalogs,
        layers=ctx.layers,
        rests=ctx.rests,
        combat=ctx.combat,
        battle=ctx.battle,
        edition=raw.get("edition"),
        coverage=MappingProxyType(dict(raw["coverage"])),
        not_played=present,
        raw=MappingProxyType(raw),
    )
