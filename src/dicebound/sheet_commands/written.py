"""The tag written back: every tag is replaced by a canonical ``[sheet: ...]`` that
states what the Engine read and what it did; and the two helpers a client uses on a
text already resolved, reading the outcomes back and stripping the tags
(docs/design/sheet-commands.md "The written tag").

Every written value is sanitised: no quote, bracket or control character survives, so
a written value can neither close its tag nor open another, and the written tag reads
back into the same request. Whitespace here is ASCII whitespace, as in the grammar.
"""

from __future__ import annotations

import re

from dicebound.sheet_commands.grammar import find_sheet_tags, read_attributes
from dicebound.sheet_commands.model import OPS, SheetRequest, Unreadable
from dicebound.values import frozen

__all__ = [
    "MAX_NOW",
    "MAX_VALUE",
    "ReadBack",
    "cut",
    "read_back",
    "sanitise",
    "strip_sheet_tags",
    "with_outcome",
    "write_tag",
    "written_ask",
]

MAX_VALUE = 120
"""Every attribute written back is at most this long after sanitising."""
MAX_NOW = 240
"""``now`` written back is at most this long after sanitising."""

_SEPARATOR = "; "
_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029"\\[\\]]')
_SPACE_RUN = re.compile(r"[ \t\n\r\f\v]{2,}")
_HORIZONTAL = " \t\v\f"
"""The whitespace a stripped tag takes with it on either side (not CR or LF)."""
_ALIASES = {"heal": "restore", "cast": "use"}


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters: at the last ``"; "`` of the first ``limit``
    characters when there is one past the very first position, else a hard cut; then
    trimmed. Text within the limit is only trimmed."""
    if len(text) > limit:
        text = text[:limit]
        separator = text.rfind(_SEPARATOR)
        if separator > 0:
            text = text[:separator]
    return text.strip()


def sanitise(value: str, limit: int = MAX_VALUE) -> str:
    """A value fit to write inside a tag's quotes: control characters, line and
    paragraph separators, ``"``, ``[`` and ``]`` become spaces, whitespace runs one
    space, trimmed, then ``cut`` to ``limit``."""
    spaced = _SPACE_RUN.sub(" ", _UNSAFE.sub(" ", value))
    return cut(spaced.strip(), limit)


def _request_attributes(request: SheetRequest) -> list[tuple[str, object]]:
    """A readable request's attributes in the written order from ``op`` on."""
    written: list[tuple[str, object]] = [("op", request.op)]
    op = request.op
    if request.wound_form:
        written.append(("track", request.track))
        if request.kind:
            written.append(("kind", request.kind))
        written.append(("amount", request.amount))
        if request.box is not None:
            written.append(("box", request.box))
    elif op in ("spend", "restore", "damage", "temp"):
        written += [("pool", request.pool), ("amount", request.amount)]
    elif op == "track":
        step = ("to", request.to) if request.to is not None else ("by", request.by)
        written += [("track", request.track), step]
    elif op == "condition":
        written += [("condition", request.condition), ("state", "on" if request.on else "off")]
    elif op == "state":
        written += [("state", request.state), ("value", request.value)]
    elif op == "note":
        written += [("field", request.field), ("value", request.value or "")]
    elif op == "use":
        written.append(("name", request.name))
        if request.pool is not None:
            written.append(("pool", request.pool))
    else:
        written.append(("rest", request.rest))
    return written


def write_tag(
    request: SheetRequest | Unreadable,
    *,
    who: str | None = None,
    now: str | None = None,
    reason: str | None = None,
) -> str:
    """The canonical tag for a request and its outcome: refused with ``reason`` when
    one is given, else ok with ``now``.

    ``who`` is the name to write (the resolved card, ``party``, or as the model wrote
    it for an early refusal); it replaces the request's own. An unreadable request is
    written as its sanitised body alone (``raw=``), with no ``who``.
    """
    return with_outcome(written_ask(request, who), now=now, reason=reason)


def written_ask(request: SheetRequest | Unreadable, who: str | None) -> str:
    """``write_tag``'s tag up to its outcome: ``[sheet: `` and the request's attributes,
    sanitised, each ``key="value"``."""
    attributes: list[tuple[str, object]]
    if isinstance(request, Unreadable):
        attributes = [("raw", request.raw)]
    else:
        attributes = _request_attributes(request)
        if who is not None:
            attributes.insert(0, ("who", who))
    return "[sheet: " + " ".join(f'{key}="{sanitise(str(value))}"' for key, value in attributes)


def with_outcome(ask: str, *, now: str | None = None, reason: str | None = None) -> str:
    """A ``written_ask`` closed with its outcome, as ``write_tag`` writes it."""
    if reason is None:
        return f'{ask} result="ok" now="{sanitise(now or "", MAX_NOW)}"]'
    return f'{ask} result="refused" reason="{sanitise(reason)}"]'


@frozen
class ReadBack:
    """One answered tag of a resolved text, as a client shows it: whom it was about
    (None when the tag names nobody), applied or refused, ``now`` and ``reason`` as
    written, and a one-line ``summary`` such as ``Mira spend slots_1 -> 1/2``."""

    span: tuple[int, int]
    who: str | None
    ok: bool
    now: str | None
    reason: str | None
    summary: str


_TARGETS = ("name", "pool", "track", "condition", "state", "field", "rest")


def _summary(attributes: dict[str, str], who: str | None, ok: bool) -> str:
    """``<who> <op> <target>`` (empty parts left out), then `` -> <now>`` or
    `` refused (<reason>)``."""
    op_name = attributes.get("op", "").strip().lower()
    op = _ALIASES.get(op_name, op_name)
    if op not in OPS:
        op = "sheet"
    target = ""
    for key in _TARGETS:
        if key == "state" and op != "state":
            continue
        target = attributes.get(key, "").strip()
        if target:
            break
    summary = " ".join(part for part in (who, op, target) if part)
    if ok:
        now = attributes.get("now", "")
        return f"{summary} -> {now}" if now else summary
    reason = attributes.get("reason", "")
    return f"{summary} refused ({reason})" if reason else f"{summary} refused"


def read_back(text: str) -> tuple[ReadBack, ...]:
    """The outcome of every answered tag of ``text`` (``result`` ``ok`` or
    ``refused``), in text order; a tag not answered yet is left out."""
    found: list[ReadBack] = []
    for tag in find_sheet_tags(text):
        attributes = read_attributes(tag.body)
        result = attributes.get("result")
        if result not in ("ok", "refused"):
            continue
        ok = result == "ok"
        who = attributes.get("who", "").strip() or None
        found.append(
            ReadBack(
                span=tag.span,
                who=who,
                ok=ok,
                now=attributes.get("now"),
                reason=attributes.get("reason"),
                summary=_summary(attributes, who, ok),
            )
        )
    return tuple(found)


def strip_sheet_tags(text: str) -> str:
    """``text`` without its sheet tags, for display and for the history a later prompt
    sees. Each tag takes at most one space or tab on either side with it; when it took
    one on both sides a single space is put back."""
    tags = find_sheet_tags(text)
    if not tags:
        return text
    pieces: list[str] = []
    kept = 0
    for tag in tags:
        start, end = tag.span
        before = start > kept and text[start - 1] in _HORIZONTAL
        after = end < len(text) and text[end] in _HORIZONTAL
        pieces.append(text[kept : start - 1 if before else start])
        if before and after:
            pieces.append(" ")
        kept = end + 1 if after else end
    pieces.append(text[kept:])
    return "".join(pieces)
