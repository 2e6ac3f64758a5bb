"""The ``[sheet: ...]`` tag grammar: finding tags, reading a body's attributes, reading
a body into a request (docs/design/sheet-commands.md "The grammar").

The reading is deliberately loose and total: any text gives tags, any body gives
attributes, and any body gives a ``SheetRequest`` or an ``Unreadable``; nothing here
raises. Every step is one left-to-right scan, so a hostile text costs time in
proportion to its length.

Choices the rules leave to us, settled here:

- The opener ``[sheet:`` is matched ignoring ASCII case only (``[SHEET:`` is a tag;
  a long ``ſ`` for ``s`` is not), as a JavaScript ``/i`` pattern reads it.
- "Whitespace" inside a body (around ``=``, ending an unquoted value) is ASCII
  whitespace: space, tab, line feed, vertical tab, form feed, carriage return.
  Trimming a value is ``str.strip()``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from dicebound.sheet_commands.model import Op, SheetRequest, Unreadable
from dicebound.values import frozen

__all__ = [
    "MAX_BODY",
    "MAX_WHO",
    "SheetTag",
    "find_sheet_tags",
    "read_attributes",
    "read_integer",
    "read_request",
    "read_sheet_tag",
]

MAX_BODY = 1500
"""The longest body a tag may have; a longer run before ``]`` is no tag at all."""
MAX_WHO = 100
"""``who`` as read is cut to this many characters."""

_HEAD = re.compile(r"\[sheet:", re.IGNORECASE | re.ASCII)
_HEAD_LENGTH = len("[sheet:")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_SPACES = re.compile(r"[ \t\n\r\f\v]*")
_UNQUOTED = re.compile(r"[^ \t\n\r\f\v\]]+")
_INTEGER = re.compile(r"[+-]?[0-9]{1,9}")

_OPS: dict[str, Op] = {
    "spend": "spend",
    "restore": "restore",
    "heal": "restore",
    "damage": "damage",
    "temp": "temp",
    "track": "track",
    "condition": "condition",
    "state": "state",
    "note": "note",
    "rest": "rest",
    "use": "use",
    "cast": "use",
}
"""Every op name a tag may write, aliases folded to the canonical op."""

_ON = frozenset({"", "on", "add", "true"})
_OFF = frozenset({"off", "remove", "false"})
_POOL_OPS = frozenset({"spend", "restore", "temp", "damage"})


@frozen
class SheetTag:
    """One tag found in a text: where it stands (``text[start:end]`` is the whole tag,
    head and ``]`` included) and its body, untouched."""

    span: tuple[int, int]
    body: str


def find_sheet_tags(text: str) -> tuple[SheetTag, ...]:
    """Every sheet tag of ``text``, left to right, non-overlapping.

    A head whose first ``]`` lies more than ``MAX_BODY`` characters on is no tag, and
    scanning goes on just after that head. The next ``]`` is looked up once and reused
    by every head before it, so no stretch of text is scanned twice for it.
    """
    tags: list[SheetTag] = []
    close = -1
    search = _HEAD.search
    at = 0
    while (head := search(text, at)) is not None:
        start = head.start()
        body_start = start + _HEAD_LENGTH
        if close < body_start:
            close = text.find("]", body_start)
            if close < 0:
                break
        if close - body_start <= MAX_BODY:
            tags.append(SheetTag((start, close + 1), text[body_start:close]))
            at = close + 1
        else:
            at = start + 1
    return tuple(tags)


def read_sheet_tag(text: str, start: int) -> SheetTag | None:
    """The sheet tag whose head (``[sheet:``, any ASCII case) stands at ``start``: to the
    first ``]`` at most ``MAX_BODY`` characters on; None when there is none (no tag,
    and scanning goes on just after the head). The search for ``]`` stops at that
    limit, so no head costs more than ``MAX_BODY`` characters of scanning."""
    body_start = start + _HEAD_LENGTH
    close = text.find("]", body_start, body_start + MAX_BODY + 1)
    if close < 0:
        return None
    return SheetTag((start, close + 1), text[body_start:close])


def read_attributes(body: str) -> dict[str, str]:
    """The ``key=value`` pairs of a body: keys lowercased, values trimmed and one quote
    stripped from each end, the last of a repeated key kept.

    A key is a run of ASCII word characters followed by ``=``; its value is a quoted
    run (when the quote closes later in the body), else an unquoted run up to
    whitespace or ``]``. A key whose ``=`` is followed by another ``key=`` has no value
    (``mode= dice="6d10"`` reads only ``dice``), and neither has one followed by nothing.
    """
    attributes: dict[str, str] = {}
    length = len(body)
    at = 0
    word = _WORD.search
    while (key_match := word(body, at)) is not None:
        key_end = key_match.end()
        at = key_end
        equals = _skip_spaces(body, key_end)
        if equals >= length or body[equals] != "=":
            continue
        value_start = _skip_spaces(body, equals + 1)
        quote = body[value_start] if value_start < length else ""
        closing = body.find(quote, value_start + 1) if quote in ('"', "'") else -1
        if closing >= 0:
            value_end = closing + 1
        else:
            next_key = _WORD.match(body, value_start)
            if next_key is not None:
                after = _skip_spaces(body, next_key.end())
                if after < length and body[after] == "=":
                    continue  # no value: the next key is read normally
            unquoted = _UNQUOTED.match(body, value_start)
            if unquoted is None:
                continue  # an empty run: no value
            value_end = unquoted.end()
        at = value_end
        value = body[value_start:value_end].strip()
        if not value:
            continue
        if value[0] in "\"'":
            value = value[1:]
        if value and value[-1] in "\"'":
            value = value[:-1]
        attributes[key_match.group().lower()] = value
    return attributes


def _skip_spaces(body: str, at: int) -> int:
    """Where the run of ASCII whitespace starting at ``at`` ends."""
    spaces = _SPACES.match(body, at)
    return at if spaces is None else spaces.end()


def read_integer(text: str | None) -> int | None:
    """An integer as a tag writes one: after trimming, an optional sign and 1 to 9 ASCII
    digits (``+2`` is 2, ``007`` is 7, ``-0`` is 0); anything else is None."""
    if text is None:
        return None
    trimmed = text.strip()
    if _INTEGER.fullmatch(trimmed) is None:
        return None
    return int(trimmed)


def read_request(body: str) -> SheetRequest | Unreadable:
    """What a tag's body asks for, or ``Unreadable`` (refused ``malformed`` later).

    ``who`` is read whatever the rest says: trimmed, cut to ``MAX_WHO`` characters,
    None when empty. Each op takes only its own attributes; the rest are ignored,
    ``result``, ``now`` and ``reason`` included, so a model cannot state an outcome.
    """
    if len(body) <= _REMEMBERED_BODY:
        return _remembered_request(body)
    return _read_request(body)


_REMEMBERED_BODY = 400
"""The longest body whose reading is remembered (4,096 of them: well under 4 MB)."""


# A pure function of the body, and its answer frozen: a Game Master writes the same
# command in the same words again and again, so a body read once is not read again.
@lru_cache(maxsize=4096)
def _remembered_request(body: str) -> SheetRequest | Unreadable:
    return _read_request(body)


def _read_request(body: str) -> SheetRequest | Unreadable:
    attributes = read_attributes(body)
    who = attributes.get("who", "").strip()[:MAX_WHO] or None
    op = _OPS.get(attributes.get("op", "").strip().lower())
    request = None if op is None else _read_op(op, who, attributes)
    return Unreadable(raw=body, who=who) if request is None else request


def unknown_op(body: str) -> str | None:
    """Why an unreadable tag's ``op`` reads as no op, naming the ops there are (the
    aliases beside theirs); None when its op is one of them."""
    written = read_attributes(body).get("op", "").strip()
    if written.lower() in _OPS:
        return None
    ops = ", ".join(
        name + "".join(f" ({alias})" for alias, op in _OPS.items() if op == name and alias != name)
        for name in dict.fromkeys(_OPS.values())
    )
    said = f'op="{written}" is no op' if written else "the command has no op"
    return f"{said}: write one of {ops}"


def _trimmed(attributes: dict[str, str], key: str) -> str:
    return attributes.get(key, "").strip()


def _read_op(op: Op, who: str | None, attributes: dict[str, str]) -> SheetRequest | None:
    """The request one op reads from its attributes, or None when it cannot be read."""
    if op == "damage" and _trimmed(attributes, "track"):
        return _read_wound(who, attributes)
    if op in _POOL_OPS:
        pool = _trimmed(attributes, "pool")
        amount = read_integer(attributes.get("amount"))
        if not pool or amount is None:
            return None
        return SheetRequest(op=op, who=who, pool=pool, amount=amount)
    if op == "track":
        return _read_track(who, attributes)
    if op == "condition":
        condition = _trimmed(attributes, "condition")
        state = _trimmed(attributes, "state").lower()
        if not condition or (state not in _ON and state not in _OFF):
            return None
        return SheetRequest(op=op, who=who, condition=condition, on=state in _ON)
    if op == "state":
        state = _trimmed(attributes, "state")
        value = _trimmed(attributes, "value")
        if not state or not value:
            return None
        return SheetRequest(op=op, who=who, state=state, value=value)
    if op == "note":
        field = _trimmed(attributes, "field")
        if not field:
            return None
        return SheetRequest(op=op, who=who, field=field, value=attributes.get("value", ""))
    if op == "rest":
        rest = _trimmed(attributes, "rest")
        return SheetRequest(op=op, who=who, rest=rest) if rest else None
    return _read_use(who, attributes)


def _read_wound(who: str | None, attributes: dict[str, str]) -> SheetRequest | None:
    """``damage`` with a ``track``: marks of a kind (or, negative, a heal)."""
    amount = read_integer(attributes.get("amount"))
    kind = _trimmed(attributes, "kind")
    box = read_integer(attributes["box"]) if "box" in attributes else None
    if amount is None or (amount >= 0 and not kind) or ("box" in attributes and box is None):
        return None
    track = _trimmed(attributes, "track")
    return SheetRequest(op="damage", who=who, track=track, kind=kind, amount=amount, box=box)


def _read_track(who: str | None, attributes: dict[str, str]) -> SheetRequest | None:
    """``track``: exactly one of ``to`` and ``by`` must read as an integer."""
    track = _trimmed(attributes, "track")
    to = read_integer(attributes.get("to"))
    by = read_integer(attributes.get("by"))
    if not track or (to is None) == (by is None):
        return None
    return SheetRequest(op="track", who=who, track=track, to=to, by=by)


def _read_use(who: str | None, attributes: dict[str, str]) -> SheetRequest | None:
    """``use``: ``name``, or ``spell`` only when no ``name`` is written at all."""
    name = _trimmed(attributes, "name" if "name" in attributes else "spell")
    if not name:
        return None
    pool = _trimmed(attributes, "pool") or None
    return SheetRequest(op="use", who=who, name=name, pool=pool)
