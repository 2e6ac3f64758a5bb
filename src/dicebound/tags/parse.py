"""The tolerant lexer for check tags: find every ``[skill_check: ...]`` in a text.

Models write sloppily, so the lexer takes what a reader would take and never raises.
The grammar (one table, also in the docs)::

    tag      := "[skill_check:" sep* (attr sep*)* "]"      tag name in any case
    sep      := whitespace | ","                            commas are tolerated
    attr     := key ws* "=" ws* value | key                 a bare key is a flag, value ""
    key      := [A-Za-z_][A-Za-z0-9_-]*                     lower-cased
    value    := quoted | bare | ""                          "" when "]" or "," follows "="
    quoted   := "..." | '...' | “...” | ‘...’ | «...» | „...“ | ‹...› | 「...」 | 『...』
    bare     := a first character that is not whitespace, "]", "," or a quote mark,
                then anything up to whitespace, "]" or ","

"Whitespace" is any character ``str.isspace`` knows (a no-break space included).

Choices the documents leave open, settled here:

- A quoted value runs to its own closing mark, so a ``]`` inside quotes does not end
  the tag (``skill="a]b"`` is one value). An ASCII quote closes only on the same mark;
  a typographic one on its partner (“ on ” or “, „ on “ or ”, « on », ...), so an
  apostrophe inside double quotes is just a character.
- A comma ends a bare value (``skill=Stealth,dc=15`` is two attributes); a quote mark
  after a bare value's first character is part of it (``dc=15"`` reads ``15"``).
- A key written twice keeps its first value; the later ones are listed in
  ``TagMatch.duplicates`` and otherwise ignored.
- The opener must be written exactly ``[skill_check:`` (any case): ``[skill check:``,
  ``[skill_checks:`` and ``[ skill_check:`` are prose, not tags, as in Marinara.
- A tag that cannot be lexed (a quote never closed, a stray character, no ``]``) still
  comes back as a match, with ``error`` set to a sentence. Its span runs from the
  opener to the first ``]`` after it (the way Marinara's pattern reads a tag), cut
  short before the next opener; with no ``]`` at all it ends at the line's end.
  Scanning goes on after it, so one broken tag never hides the next one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

from dicebound.errors import UsageError
from dicebound.values import frozen, new_tuple

__all__ = [
    "BARE_FLAGS",
    "QUOTES",
    "TAG_NAME",
    "Span",
    "TagMatch",
    "check_attrs",
    "format_tag",
    "is_key",
    "parse_check",
    "parse_tags",
    "read_check_tag",
    "rewrite",
]

TAG_NAME = "skill_check"

Span = tuple[int, int]

# Opening mark -> the marks that close it.
QUOTES: dict[str, str] = {
    '"': '"',
    "'": "'",
    "“": "”“",
    "”": "”",
    "„": "“”",
    "‘": "’‘",
    "’": "’",
    "‚": "‘’",
    "«": "»",
    "»": "«»",
    "‹": "›",
    "›": "‹›",
    "「": "」",
    "『": "』",
}

# Keys written as bare flags by format_tag when their value is empty.
BARE_FLAGS = frozenset({"advantage", "disadvantage"})

# re.ASCII: with IGNORECASE alone, "ſ" would match "s" and the Kelvin sign "k".
_OPENER = re.compile(r"\[skill_check:", re.IGNORECASE | re.ASCII)
_OPENER_LENGTH = len("[skill_check:")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_CLOSERS = {opener: re.compile(f"[{re.escape(closers)}]") for opener, closers in QUOTES.items()}
_SNIPPET = 24


class TagMatch(NamedTuple):
    """One tag found in a text. Immutable (a named tuple: one is made for every tag read).

    ``span`` is (start, end) in the text and ``raw`` is ``text[start:end]``. ``attrs``
    holds (lower-cased key, value) in written order, each key once (the first written
    wins; ``duplicates`` names the keys written again). ``error`` is a sentence when the
    tag could not be lexed; then ``attrs`` is empty.
    """

    span: Span
    raw: str
    attrs: tuple[tuple[str, str], ...] = ()
    error: str | None = None
    duplicates: tuple[str, ...] = ()

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value written for ``key`` (any case), or ``default``."""
        wanted = key.lower()
        for k, v in self.attrs:
            if k == wanted:
                return v
        return default

    def has(self, key: str) -> bool:
        """Whether the tag wrote ``key`` (any case), as a flag or with a value."""
        return self.get(key) is not None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.attrs)


class _Lexed(NamedTuple):
    end: int
    attrs: tuple[tuple[str, str], ...]
    duplicates: tuple[str, ...]


@frozen
class _Fault:
    message: str


def _snippet(text: str, start: int, limit: int, size: int = _SNIPPET) -> str:
    """A short, one-line piece of the text for an error sentence."""
    end = min(limit, start + 4 * size)  # enough to fill the snippet, never the whole text
    piece = " ".join(text[start:end].split())  # line breaks read as one space
    return piece if len(piece) <= size else piece[: size - 1] + "…"


_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*"([^"]*)"')
_WELL_FORMED = re.compile(r'(?:[\s,]*[A-Za-z_][A-Za-z0-9_-]*\s*=\s*"[^"]*")*[\s,]*\]')
# ``_WELL_FORMED`` with every key lower-case, as a model writes them: such a body needs
# no key lower-cased, so only a key written twice sends it the long way. Possessive:
# each part ends where the next cannot begin, so giving nothing back matches the same
_LOWER_FORMED = re.compile(r'(?:[\s,]*+[a-z_][a-z0-9_-]*+\s*+=\s*+"[^"]*+")*+[\s,]*+\]')


def _is_sep(c: str) -> bool:
    return c.isspace() or c == ","


_REMEMBERED_BODY = 400  # the longest tag body remembered (4,096 of them: under 2 MB)


def _read_pairs(body: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The attributes and duplicated keys of a tag body whose every value is
    double-quoted (``_WELL_FORMED``'s match, up to its ``]``)."""
    pairs = _PAIR.findall(body)
    written = dict(pairs)
    if len(written) == len(pairs) and "".join(written).islower():
        return tuple(written.items()), ()  # the usual tag: keys lower-case, each once
    attrs: list[tuple[str, str]] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    for key, value in pairs:
        key = key.lower()
        if key in seen:
            duplicates.append(key)
        else:
            seen.add(key)
            attrs.append((key, value))
    return tuple(attrs), tuple(duplicates)


# A pure function of the body, remembered: a Game Master asks for the same check in the
# same words again and again, so a tag read once is not read again.
@lru_cache(maxsize=4096)
def _read_well_formed(body: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]] | None:
    """The attributes and duplicated keys of a tag body (up to and with its ``]``) whose
    every value is double-quoted; None when the body is not written so.

    ``parse_tags`` first tries the body that runs to the text's first ``]`` after the
    opener: when it is well formed, that ``]`` closes the tag (every quote in such a
    body delimits a value, so a ``]`` outside the values ends it, and none stands
    before), so the tag reads as ``_lex`` reads it, without scanning the rest.
    """
    if _LOWER_FORMED.fullmatch(body) is not None:
        pairs = _PAIR.findall(body)
        if len(dict(pairs)) == len(pairs):
            return tuple(pairs), ()  # the usual tag: each key once, as _read_pairs reads it
        return _read_pairs(body)
    if _WELL_FORMED.fullmatch(body) is None:
        return None
    return _read_pairs(body)


def _lex(text: str, start: int, body: int, limit: int) -> _Lexed | _Fault:
    """Lex the attributes of the tag opened at ``start``, from ``body`` (just past the
    opener), reading no further
    than ``limit``. Never reads past the closing ``]``, so a shorter limit that still
    holds that ``]`` gives the same answer."""
    fast = _WELL_FORMED.match(text, body, limit)
    if fast is not None:  # every value double-quoted: one regex reads the whole tag
        end = fast.end()
        read = _read_well_formed(text[body:end]) if end - body <= _REMEMBERED_BODY else None
        attrs, duplicates = read or _read_pairs(text[body:end])
        return _Lexed(end, attrs, duplicates)
    return _lex_slowly(text, start, body, limit)


def _lex_slowly(text: str, start: int, body: int, limit: int) -> _Lexed | _Fault:
    """``_lex`` for a tag written any other way: character by character."""
    attrs: list[tuple[str, str]] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    i = body
    while True:
        while i < limit and _is_sep(text[i]):
            i += 1
        if i >= limit:
            return _Fault(f'The tag {_snippet(text, start, limit, 40)} has no closing "]".')
        c = text[i]
        if c == "]":
            return _Lexed(i + 1, tuple(attrs), tuple(duplicates))
        m = _KEY.match(text, i, limit)
        if m is None:
            return _Fault(
                _unclosed(attrs[-1] if attrs else None)
                or (
                    f'An attribute name must start with a letter or "_", not "{c}" '
                    f"(at: {_snippet(text, i, limit)})."
                )
            )
        key = m.group().lower()
        i = m.end()
        j = i
        while j < limit and text[j].isspace():
            j += 1
        value = ""
        if j < limit and text[j] == "=":
            i = j + 1
            while i < limit and text[i].isspace():
                i += 1
            if i < limit and text[i] in QUOTES:
                opener = text[i]
                close = _CLOSERS[opener].search(text, i + 1, limit)
                if close is None:
                    return _Fault(
                        f"The value of {key} ({_snippet(text, i, limit)}) opens a quote "
                        "that is never closed."
                    )
                value = text[i + 1 : close.start()]
                i = close.end()
            else:
                k = i
                while k < limit and not _is_sep(text[k]) and text[k] != "]":
                    k += 1
                value = text[i:k]
                i = k
        if key in seen:
            duplicates.append(key)
        else:
            seen.add(key)
            attrs.append((key, value))


_RAN_ON = re.compile(r"(.*?)[\s,]+([A-Za-z_][\w-]*)\s*=\s*", re.DOTALL)
"""A quoted value that ran on into the next attribute's name: ``Stealth dc=``."""


def _unclosed(last: tuple[str, str] | None) -> str | None:
    """Why a tag broke where the value before ended in the next attribute's name
    (``skill="Stealth dc="15"``): a quote left unclosed, said as such; else None."""
    if last is None:
        return None
    ran_on = _RAN_ON.fullmatch(last[1])
    if ran_on is None:
        return None
    written, following = ran_on.groups()
    return (
        f'The value of {last[0]} ("{written}) has no closing quote, so it ran on into '
        f'{following}=: write {last[0]}="{written}" {following}="...".'
    )


def _recover_end(text: str, body: int) -> int:
    """Where a tag that cannot be lexed ends: its first ``]``, never past the next
    opener; with no ``]``, the end of its line."""
    nxt = _OPENER.search(text, body)
    stop = nxt.start() if nxt is not None else len(text)
    close = text.find("]", body, stop)
    if close >= 0:
        return close + 1
    newline = text.find("\n", body, stop)
    end = newline if newline >= 0 else stop
    while end > body and text[end - 1].isspace():
        end -= 1
    return end


def parse_tags(text: str) -> tuple[TagMatch, ...]:
    """Every check tag in ``text``, in order. Never raises; spans never overlap.

    A tag that cannot be lexed is a match whose ``error`` says why (the engine turns
    it into a ``TagError``); see the module docstring for where such a tag ends.
    """
    found: list[TagMatch] = []
    pos = 0
    while True:
        # The next bracket, found in C: most texts hold few, and the usual one opens a tag
        # written as the tag is written. Past any other, the regex (any case, ASCII
        # letters only) finds the next opener, also in C.
        start = text.find("[", pos)
        if start < 0:
            return tuple(found)
        if not text.startswith("skill_check:", start + 1):
            opener = _OPENER.search(text, start)
            if opener is None:
                return tuple(found)
            start = opener.start()
        match = read_check_tag(text, start)
        found.append(match)
        pos = match.span[1]


def read_check_tag(text: str, start: int) -> TagMatch:
    """The check tag whose opener (``[skill_check:``, any case) stands at ``start``: read
    to its end, or, when it cannot be lexed, a match whose ``error`` says why, ending
    where the module docstring says. Never raises."""
    body = start + _OPENER_LENGTH
    close = text.find("]", body)
    if 0 <= close - body < _REMEMBERED_BODY:
        closed = _read_well_formed(text[body : close + 1])
        if closed is not None:  # the usual tag: read to its "]" without a scan
            end = close + 1
            match: TagMatch = new_tuple(
                TagMatch, ((start, end), text[start:end], closed[0], None, closed[1])
            )
            return match
    lexed = _lex(text, start, body, len(text))
    if isinstance(lexed, _Fault):
        end = _recover_end(text, body)
        lexed = _lex(text, start, body, end)
        if isinstance(lexed, _Fault):
            return TagMatch((start, end), text[start:end], error=lexed.message)
    end = lexed.end
    return TagMatch((start, end), text[start:end], lexed.attrs, None, lexed.duplicates)


def parse_check(tag: str) -> tuple[TagMatch, ...]:
    """Every check tag in ``tag``, which may be one tag written without its
    ``[skill_check: ...]`` wrapper (then it is read wrapped): what ``parse_tags``
    gives, the usual unwrapped tag read without looking for where it opens and ends."""
    if "[" in tag:
        return parse_tags(tag)
    text = f"[{TAG_NAME}: {tag}]"
    if "]" not in tag and len(text) - _OPENER_LENGTH <= _REMEMBERED_BODY:
        closed = _read_well_formed(text[_OPENER_LENGTH:])
        if closed is not None:  # as parse_tags reads it: the one tag, to the text's end
            return (_whole_match(text, *closed),)
    return parse_tags(text)


def _whole_match(
    text: str, attrs: tuple[tuple[str, str], ...], duplicates: tuple[str, ...]
) -> TagMatch:
    """The match of a tag that is the whole of ``text``, lexed as ``attrs``."""
    return new_tuple(TagMatch, ((0, len(text)), text, attrs, None, duplicates))  # type: ignore[no-any-return]


def check_attrs(tag: str) -> dict[str, str] | None:
    """The attributes of the one tag ``tag`` holds, when it is written the usual way
    (without its wrapper, every value double-quoted, every key lower-case and written
    once), key by key as ``parse_check`` reads them; None for any other text, which
    ``parse_check`` reads. Read afresh, never remembered: a caller that reads tags this
    way remembers its own answers (the odds do)."""
    if "[" in tag or "]" in tag or len(tag) >= _REMEMBERED_BODY - 1:
        return None
    body = f"{tag}]"  # as parse_check reads it, but for the space after the opener
    if _LOWER_FORMED.fullmatch(body) is None:
        return None
    pairs = _PAIR.findall(body)
    attrs = dict(pairs)
    return attrs if len(attrs) == len(pairs) else None


def attrs_match(tag: str, attrs: Mapping[str, str]) -> TagMatch:
    """The match ``parse_check`` gives of ``tag``, made of the attributes ``check_attrs``
    read of it (each key written once, so none is a duplicate), without reading it
    again."""
    return _whole_match(f"[{TAG_NAME}: {tag}]", tuple(attrs.items()), ())


# Keys every record writes: known to fit the grammar, so format_tag skips checking them.
_CHECKED_KEYS = frozenset(
    (
        "skill",
        "dc",
        "rolls",
        "used",
        "modifier",
        "total",
        "result",
        "mode",
        "resolution",
        "dice",
        "who",
        "seed",
        "forced",
        "outcome",
    )
)


def is_key(key: str) -> bool:
    """Whether ``key`` is a valid attribute name (``[A-Za-z_][A-Za-z0-9_-]*``)."""
    return _KEY.fullmatch(key) is not None


def _quote(key: str, value: str) -> str:
    if '"' not in value:
        return f'"{value}"'
    for opener in ('"', "'", "“", "«", "「"):
        if not any(c in value for c in QUOTES[opener]):
            return f"{opener}{value}{QUOTES[opener][0]}"
    raise UsageError(
        f'The value of "{key}" ({value!r}) holds every quote mark, so no tag can hold it.'
    )


def format_tag(attrs: Iterable[tuple[str, str]]) -> str:
    """Write attributes as a tag that ``parse_tags`` reads back to the same attributes.

    Values are double-quoted, or in the first other quote style that can hold them;
    an empty ``advantage``/``disadvantage`` is written as a bare flag. Keys must fit
    the key grammar.

    Raises:
        UsageError: a key outside the grammar, or a value no quote style can hold.
    """
    parts: list[str] = []
    for key, value in attrs:
        if key not in _CHECKED_KEYS and not is_key(key):
            raise UsageError(
                f'"{key}" is not an attribute name: it must start with a letter or "_" and '
                'hold only letters, digits, "_" and "-".'
            )
        if value == "" and key.lower() in BARE_FLAGS:
            parts.append(key)
        else:
            parts.append(f"{key}={_quote(key, value)}")
    return f"[{TAG_NAME}: {' '.join(parts)}]" if parts else f"[{TAG_NAME}:]"


def _span_of(replacement: tuple[Span, str]) -> Span:
    return replacement[0]


def rewrite(text: str, replacements: Sequence[tuple[Span, str]]) -> str:
    """Replace each (start, end) span of ``text`` with its new text.

    Spans may come in any order but must lie inside the text and not overlap.

    Raises:
        UsageError: a span outside the text, reversed, or overlapping another.
    """
    ordered = replacements if len(replacements) < 2 else sorted(replacements, key=_span_of)
    out: list[str] = []
    pos = 0
    for (start, end), new in ordered:
        if not 0 <= start <= end <= len(text):
            raise UsageError(
                f"The span ({start}, {end}) does not lie inside a text of {len(text)} characters."
            )
        if start < pos:
            raise UsageError(
                f"The span ({start}, {end}) overlaps the span before it, which ends at {pos}."
            )
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)
