"""The record: a resolved check written back into the text as a tag
(docs/design/format.md "The record").

A record is an ordered list of (key, value) strings. The order is fixed, so the same
check always writes the same text:

1. the core, always: ``skill dc rolls used modifier total result mode resolution dice``;
2. the extras, when they apply, in docs/design/format.md "The record"'s order (``EXTRA_KEYS``);
3. the band's ``outcome``, each kind's own attributes (``dicebound.kinds.keys``
   declares them), the band's ``choice``, then what a spend after the roll wrote
   (``KIND_KEYS``);
4. any other key, in the order given (lower-cased, so the tag reads back the same);
5. dicebound's own: ``seed``, then ``forced="true"`` when the faces were forced.

Values are strings with ``"`` and every line break replaced by ``'`` (a CR LF pair is
one break), so a record always fits in double quotes. Keys are written in the case the
page spells them (``zeroDice``); the lexer lower-cases keys, and ``record_from_attrs``
restores that case, so ``record_from_attrs(parse_tags(r.to_tag())[0].attrs) == r``.

A check that could not be resolved is written back *sparse* (``sparse_record``): the
ask only, none of the model's numbers, still owing a roll.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal

from dicebound.errors import UsageError
from dicebound.tags.parse import BARE_FLAGS, TAG_NAME, format_tag, is_key
from dicebound.values import frozen

__all__ = [
    "ASK_KEYS",
    "CORE_KEYS",
    "EXTRA_KEYS",
    "KIND_KEYS",
    "TAIL_KEYS",
    "Mode",
    "Record",
    "Resolution",
    "Result",
    "Value",
    "build_record",
    "escape_value",
    "record_from_attrs",
    "sparse_record",
]

Result = Literal["success", "failure", "critical_success", "critical_failure"]
Mode = Literal["normal", "advantage", "disadvantage"]
Resolution = Literal["sum", "successes"]
Value = str | int | bool

CORE_KEYS: tuple[str, ...] = (
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
)
# The page's order. A few are dice-pool's alone (``threshold``, ``auto``, ``rerolled``,
# ``explode``, ``double``, ``complication``, ``reroll``), but they sit among and ahead
# of the shared ones, so the order is written out here rather than read from the
# kinds' declarations (``dicebound.kinds.keys``).
EXTRA_KEYS: tuple[str, ...] = (
    "threshold",
    "pool",
    "who",
    "with",
    "bonus",
    "spend",
    "auto",
    "use",
    "rerolled",
    "penalty",
    "difficulty",
    "explode",
    "double",
    "complication",
    "adjust",
    "reroll",
    "reason",
    "effects",
    "from",
    "automatic",
)
# The kinds' own attributes, between the band's ``outcome``, which any kind's record
# may carry and which comes first, and the band's ``choice``, which only a spend after
# the roll follows. Written out, as the extras are: the record sits below the kinds
# (their hooks read it), so it does not import their declarations
# (``dicebound.kinds.keys``); tests/test_record.py holds the two to the same order.
KIND_KEYS: tuple[str, ...] = (
    "outcome",
    "highest",
    "zeroDice",
    "dark",
    "darkHighest",
    "darkOutcome",
    "unmodified",
    "against",
    "exact",
    "symbols",
    "thrown",
    "symbolDetails",
    "upgrade",
    "setback",
    "upgradeOwn",
    "quality",
    "tool",
    "effort",
    "raises",
    "offer",
    "choice",
    "after",
)
TAIL_KEYS: tuple[str, ...] = ("seed", "forced")

# What a Game Master may ask for on a tag: all a sparse record keeps, in this order.
# Never the model's numbers (rolls, used, modifier, total, result, dice, resolution).
# Written out: a kind's asks sit among the shared ones (``threshold`` ahead of
# ``bonus``, the shared ``pool`` between dice-pool's and dice-highest's), and a sparse
# record's bytes depend on this order.
ASK_KEYS: tuple[str, ...] = (
    "skill",
    "dc",
    "difficulty",
    "who",
    "with",
    "threshold",
    "bonus",
    "mode",
    "advantage",
    "disadvantage",
    "spend",
    "use",
    "reroll",
    "explode",
    "double",
    "pool",
    "dark",
    "upgrade",
    "setback",
    "upgradeOwn",
    "quality",
    "tool",
)

# Written with a sign when given as an int: "+2", "-3", "+0".
_SIGNED = frozenset({"bonus", "adjust", "effects"})

_HEAD: tuple[str, ...] = CORE_KEYS + EXTRA_KEYS + KIND_KEYS
_RANK: dict[str, int] = {k: i for i, k in enumerate(_HEAD)}
_RANK.update({k: len(_HEAD) + 1 + i for i, k in enumerate(TAIL_KEYS)})
_UNKNOWN_RANK = len(_HEAD)  # after the page's keys, before seed and forced
_CANON: dict[str, str] = {k.lower(): k for k in (*_HEAD, *TAIL_KEYS, *ASK_KEYS)}
_EXACT: dict[str, str] = {k: k for k in _CANON.values()}  # already canonical: no lookup
_ASK_RANK: dict[str, int] = {k: i for i, k in enumerate(ASK_KEYS)}

# Every line break str.splitlines() knows, a CR LF pair first so it counts once.
_BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def escape_value(value: str) -> str:
    """A value as a record holds it: ``"`` and each line break become ``'``."""
    if value.isprintable() and '"' not in value:
        return value  # every line break is unprintable: nothing to replace
    return _BREAKS.sub("'", value.replace('"', "'"))


def _canon(key: str) -> str:
    """The key as the record spells it: the page's case for a known key, else lower."""
    return _CANON.get(key.lower(), key.lower())


def _text(key: str, value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:+d}" if key in _SIGNED else str(value)
    return value


@frozen
class Record:
    """The attributes of one check as the saved text keeps them. Immutable.

    Invariants (checked on construction): every key fits the tag's key grammar and
    appears once, and no value holds ``"`` or a line break. Build one with
    ``build_record``, ``sparse_record`` or ``record_from_attrs``, which also order it.
    """

    attrs: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for key, value in self.attrs:
            if not is_key(key):
                raise UsageError(f'"{key}" is not an attribute name a tag can hold.')
            if key.lower() in seen:
                raise UsageError(f'The record attribute "{key}" is given twice.')
            seen.add(key.lower())
            if escape_value(value) != value:
                raise UsageError(
                    f'The value of "{key}" ({value!r}) holds a double quote or a line break.'
                )

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key`` (any case), or ``default``."""
        wanted = key.lower()
        for k, v in self.attrs:
            if k.lower() == wanted:
                return v
        return default

    def get_int(self, key: str) -> int | None:
        """The value of ``key`` read as a (signed) integer, or None when it is not one."""
        value = self.get(key)
        if value is None:
            return None
        try:
            return int(value.strip())
        except ValueError:
            return None

    def has(self, key: str) -> bool:
        return self.get(key) is not None

    def is_true(self, key: str) -> bool:
        """Whether ``key`` is written as ``"true"``."""
        return self.get(key) == "true"

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.attrs)

    @property
    def is_resolved(self) -> bool:
        """A resolved record carries a result; a sparse one still owes a roll."""
        return self.has("result")

    @property
    def rolls(self) -> tuple[str, ...]:
        """What each die read, in throw order (empty when nothing was thrown)."""
        value = self.get("rolls")
        return tuple(value.split("|")) if value else ()

    def as_dict(self) -> dict[str, str]:
        return dict(self.attrs)

    def to_tag(self) -> str:
        """The record as the tag written back into the text."""
        if not self.attrs:
            return f"[{TAG_NAME}:]"
        # No value holds a double quote (the invariant), so every one is double-quoted:
        # 'k="v' pairs joined by '" ' and closed by one '"' (all in C, one pass).
        body = '" '.join(map('="'.join, self.attrs))
        tag = f'[{TAG_NAME}: {body}"]'
        if 'advantage=""' in tag.lower() and any(
            not v and k.lower() in BARE_FLAGS for k, v in self.attrs
        ):
            return format_tag(self.attrs)  # a bare flag is written bare
        return tag


_Layout = tuple[
    tuple[str, ...], tuple[int, ...], tuple[bool, ...], Callable[[Sequence[Value]], Any]
]


@lru_cache(maxsize=4096)
def _layout(keys: tuple[str, ...]) -> _Layout:
    """Where the attributes given under ``keys`` stand in a record: their canonical
    names in record order, the index each came from, which are written signed, and a
    getter that picks the values in that order.

    A pure function of the keys, remembered: a check writes the same keys every time it
    is thrown, so the names are checked and sorted once, not once per record.

    Raises:
        UsageError: a key given twice or outside the tag's key grammar.
    """
    seen: set[str] = set()
    ranked: list[tuple[int, int, str]] = []
    for index, key in enumerate(keys):
        canon = _EXACT.get(key) or _canon(key)
        if canon in seen:
            raise UsageError(f'The record attribute "{canon}" is given twice.')
        seen.add(canon)
        rank = _RANK.get(canon)
        if rank is None:
            if not is_key(canon):
                raise UsageError(f'"{canon}" is not an attribute name a tag can hold.')
            rank = _UNKNOWN_RANK
        ranked.append((rank, index, canon))
    ranked.sort()  # by rank; unknown keys share one rank and keep the order given
    names = tuple(canon for _, _, canon in ranked)
    order = tuple(index for _, index, _ in ranked)
    # itemgetter of two or more indices gives a tuple (of one, the value alone, so
    # that one is asked for twice and the tuple cut to its length)
    make: Any = itemgetter  # (typed loosely: mypy 2.4 crashes expanding its overloads)
    getter = make(*order, *order, 0) if len(order) < 2 else make(*order)
    return names, order, tuple(n in _SIGNED for n in names), getter


def _ordered_values(keys: tuple[str, ...], values: Sequence[Value]) -> Record:
    """Canonical keys, values as text and escaped, in record order (unknown keys as
    given). ``values[i]`` is the value of ``keys[i]``."""
    names, order, signed, pick = _layout(keys)
    try:
        joined = "".join(values)  # type: ignore[arg-type]  # a TypeError: not all text
    except TypeError:
        joined = None
    if not order:
        texts: Sequence[str] = ()
    elif joined is not None and joined.isprintable() and '"' not in joined:
        # every value is text with nothing to escape (a line break is unprintable)
        texts = pick(values)[: len(order)]
    else:
        texts = [_as_text(values[i], is_signed) for i, is_signed in zip(order, signed, strict=True)]
    record = object.__new__(Record)  # keys and values made valid above: skip re-checking
    object.__setattr__(record, "attrs", tuple(zip(names, texts, strict=True)))
    return record


def _as_text(value: Value, signed: bool) -> str:
    """A value as the record writes it, escaped."""
    text = value if type(value) is str else _text("bonus" if signed else "", value)
    return text if text.isprintable() and '"' not in text else escape_value(text)


def _ordered(pairs: Iterable[tuple[str, Value]]) -> Record:
    """Canonical keys, escaped values, in record order (unknown keys as given)."""
    given = tuple(pairs)
    return _ordered_values(tuple(k for k, _ in given), [v for _, v in given])


def build_record(
    *,
    skill: str,
    dc: int | str,
    rolls: Sequence[int | str],
    used: int | str,
    modifier: int | str,
    total: int | str,
    result: Result,
    mode: Mode = "normal",
    resolution: Resolution = "sum",
    dice: str,
    extras: Iterable[tuple[str, Value]] | Mapping[str, Value] = (),
    seed: str | int | None = None,
    forced: bool = False,
) -> Record:
    """The record of a resolved check.

    ``extras`` are every other attribute that applies (docs/design/format.md "The
    record"'s extras, the kinds' attributes, anything new), in any order: the record
    orders them. An int is written as a number (with a sign for ``bonus``, ``adjust``
    and ``effects``), a bool as ``true``/``false``. ``forced`` adds ``forced="true"``;
    ``seed`` is written when given.

    Raises:
        UsageError: a key given twice or outside the tag's key grammar.
    """
    try:
        rolls_text = "|".join(rolls)  # type: ignore[arg-type]  # kinds give text
    except TypeError:
        rolls_text = "|".join(map(str, rolls))
    # none of the core keys is written signed, so a number is its plain digits
    values: list[Value] = [
        skill,
        str(dc),
        rolls_text,
        str(used),
        str(modifier),
        str(total),
        result,
        mode,
        resolution,
        dice,
    ]
    extra_keys: list[str] = []
    for key, value in extras.items() if isinstance(extras, Mapping) else extras:
        extra_keys.append(key)
        values.append(value if type(value) is str else _text(_canon(key), value))
    tail_keys: tuple[str, ...] = ()
    if seed is not None:
        tail_keys = ("seed",)
        values.append(str(seed))
    if forced:
        tail_keys = (*tail_keys, "forced")
        values.append("true")
    names = _core_first(tuple(extra_keys), tail_keys)
    if names is None:  # an extra that is a core or tail key: the whole list is ordered
        return _ordered_values((*CORE_KEYS, *extra_keys, *tail_keys), values)
    texts = values if len(extra_keys) < 2 else _extras_in_order(tuple(extra_keys), values)
    joined = "".join(texts)  # type: ignore[arg-type]  # every value is text by now
    if not (joined.isprintable() and '"' not in joined):
        texts = [_as_text(v, False) for v in texts]  # signed ones are text already
    record = object.__new__(Record)  # keys and values made valid: skip re-checking
    object.__setattr__(record, "attrs", tuple(zip(names, texts, strict=True)))
    return record


_CORE_AND_TAIL = frozenset((*CORE_KEYS, *TAIL_KEYS))


@lru_cache(maxsize=4096)
def _core_first(extra_keys: tuple[str, ...], tail: tuple[str, ...]) -> tuple[str, ...] | None:
    """The record's names when the extras name no core or tail key: the core keys, the
    extras in record order, the tail. None when one does (``_ordered_values`` then
    orders all of them, and says what is given twice).

    Raises:
        UsageError: an extra given twice or outside the tag's key grammar.
    """
    names, _, _, _ = _layout(extra_keys)
    if not _CORE_AND_TAIL.isdisjoint(names):
        return None
    return (*CORE_KEYS, *names, *tail)


def _extras_in_order(extra_keys: tuple[str, ...], values: list[Value]) -> list[Value]:
    """``values`` (the core's, the extras', the tail's) with the extras in record order."""
    _, order, _, _ = _layout(extra_keys)
    core = len(CORE_KEYS)
    return [
        *values[:core],
        *(values[core + i] for i in order),
        *values[core + len(order) :],
    ]


def sparse_record(attrs: Iterable[tuple[str, str]]) -> Record:
    """The record of a tag that could not be resolved: the ask only, still owing a roll.

    Keeps what the tag asked for (``ASK_KEYS``: skill, dc, difficulty, who, with, ...,
    and a bare ``advantage``/``disadvantage`` flag as written), in that order, and drops
    the model's numbers and every attribute that is not an ask. A key written twice
    keeps its first value.
    """
    kept: dict[str, str] = {}
    for key, value in attrs:
        canon = _canon(key)
        if canon in _ASK_RANK and canon not in kept:
            kept[canon] = escape_value(value)
    return Record(tuple(sorted(kept.items(), key=lambda kv: _ASK_RANK[kv[0]])))


def record_from_attrs(attrs: Iterable[tuple[str, str]]) -> Record:
    """A record read back from a tag's attributes (as ``parse_tags`` gives them).

    Keys get the case the record writes them in, the written order is kept, values are
    escaped, and a key written twice keeps its first value, so reading a record's own
    tag gives back the same record.
    """
    kept: dict[str, str] = {}
    for key, value in attrs:
        canon = _canon(key)
        if canon not in kept:
            kept[canon] = escape_value(value)
    return Record(tuple(kept.items()))
