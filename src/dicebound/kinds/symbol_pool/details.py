"""The record's ``symbolDetails``: labels, face symbols and both markers in one attribute,
written and read back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import unquote

from dicebound.errors import UsageError
from dicebound.values import frozen

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.model import SymbolConfig, parse_symbols

_RESERVED = frozenset("%\";,=:|+[]'")


def _escape(label: str) -> str:
    """Percent-encode what the encoding uses, quotes, brackets and every character that
    is not printable (control characters and line breaks of any kind)."""
    out = []
    for ch in label:
        if ch in _RESERVED or not ch.isprintable():
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


@frozen
class SymbolDetails:
    """What ``symbolDetails`` holds. ``faces`` are the symbols of each die thrown, in
    throw order; ``dice`` and ``symbols`` are (id, label) pairs; a marker is (symbol id,
    how many faces thrown showed it), or None where the ruleset names no such symbol."""

    faces: tuple[tuple[str, ...], ...]
    dice: tuple[tuple[str, str], ...]
    symbols: tuple[tuple[str, str], ...]
    critical_success: tuple[str, int] | None = None
    critical_failure: tuple[str, int] | None = None


def encode_details(details: SymbolDetails) -> str:
    """The record's ``symbolDetails``, ``;``-separated sections, each ``name:content``:

    ``faces:s+a|-|f`` (each die's face symbols joined by ``+``, ``-`` for a blank face),
    ``dice:ability=Ability,...`` (each die thrown, first throw first), ``symbols:s=Success,
    ...`` (every symbol, declared order), then ``criticalSuccess:t=1`` and
    ``criticalFailure:d=0`` (the marker's symbol and how many faces showed it) where the
    ruleset names them. Labels are percent-encoded (``%``, ``"``, ``'``, ``;``, ``,``,
    ``=``, ``:``, ``|``, ``+``, brackets and every character that is not printable), so
    the text holds no double quote or line break and ``parse_details`` reads it back
    exactly.
    """
    faces = "|".join("+".join(face) if face else "-" for face in details.faces)
    parts = [
        f"faces:{faces}",
        "dice:" + ",".join(f"{i}={_escape(label)}" for i, label in details.dice),
        "symbols:" + ",".join(f"{i}={_escape(label)}" for i, label in details.symbols),
    ]
    for name, mark in (
        ("criticalSuccess", details.critical_success),
        ("criticalFailure", details.critical_failure),
    ):
        if mark is not None:
            parts.append(f"{name}:{mark[0]}={mark[1]}")
    return ";".join(parts)


def parse_details(text: str) -> SymbolDetails:
    """Read ``symbolDetails`` back (the inverse of ``encode_details``).

    Raises:
        UsageError: the text is not a symbolDetails encoding.
    """
    sections: dict[str, str] = {}
    for part in text.split(";"):
        name, colon, content = part.partition(":")
        if not colon or name in sections:
            raise UsageError(f'"{part}" is not a section of symbolDetails')
        sections[name] = content
    unknown = set(sections) - {"faces", "dice", "symbols", "criticalSuccess", "criticalFailure"}
    if unknown or not {"faces", "dice", "symbols"} <= set(sections):
        raise UsageError(f'symbolDetails="{text}" does not have the sections it needs')

    def pairs(content: str) -> tuple[tuple[str, str], ...]:
        out = []
        for item in content.split(",") if content else ():
            key, eq, value = item.partition("=")
            if not eq:
                raise UsageError(f'"{item}" in symbolDetails is not id=label')
            out.append((key, unquote(value)))
        return tuple(out)

    def mark(name: str) -> tuple[str, int] | None:
        if name not in sections:
            return None
        sid, eq, n = sections[name].partition("=")
        if not eq or not n.isdigit():
            raise UsageError(f'"{sections[name]}" in symbolDetails is not symbol=count')
        return sid, int(n)

    raw_faces = sections["faces"]
    faces = tuple(
        () if face == "-" else tuple(face.split("+"))
        for face in (raw_faces.split("|") if raw_faces else ())
    )
    return SymbolDetails(
        faces=faces,
        dice=pairs(sections["dice"]),
        symbols=pairs(sections["symbols"]),
        critical_success=mark("criticalSuccess"),
        critical_failure=mark("criticalFailure"),
    )


def symbols_in_words(symbols: str, details: str | None = None) -> str:
    """The net symbols as a card says them: ``"2 Success, 1 Advantage"`` with the labels
    ``symbolDetails`` keeps (the ids without it); when none is left, ``"all symbols
    cancelled"`` if the dice showed any (the details tell), else ``"no symbols"``."""
    net = parse_symbols(symbols)
    parsed = parse_details(details) if details else None
    if not net:
        shown = parsed is not None and any(parsed.faces)
        return "all symbols cancelled" if shown else "no symbols"
    labels = dict(parsed.symbols) if parsed is not None else {}
    return ", ".join(f"{n} {labels.get(sid, sid)}" for sid, n in net)


def details_of(config: SymbolConfig, thrown: Sequence[str], faces: Sequence[Sequence[str]]) -> str:
    seen: dict[str, str] = {}
    for die_id in thrown:
        seen.setdefault(die_id, config.die(die_id).label)

    def mark(sid: str | None) -> tuple[str, int] | None:
        if sid is None:
            return None
        return sid, sum(1 for face in faces for s in face if s == sid)

    return encode_details(
        SymbolDetails(
            faces=tuple(tuple(face) for face in faces),
            dice=tuple(seen.items()),
            symbols=tuple((s.id, s.label) for s in config.symbols),
            critical_success=mark(config.critical_success),
            critical_failure=mark(config.critical_failure),
        )
    )
