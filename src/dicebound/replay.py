"""Replaying a record: the same ruleset, the same sheet and the record's own seed (or its
forced faces) throw the same dice, so a record that was changed after it was made no
longer matches its replay, and the fields that differ are named.

One replay for every edge, read from either of the two places a record lives:

- ``replay_record``: a result as ``check --json`` prints it (``dicebound verify``), with
  the roller's sheet given beside it; its inputs are read back from its attributes.
- ``replay_kept``: a record as the service's store keeps it (``Thrown``: the tag as
  written, the seed or faces, the layers, the choice sent, and the answers taken after
  the roll), with the roller's sheet as it stood; ``compare_kept`` names the fields of
  the record that differ (``GET .../verify``, the dice card's marks).
- ``replay_sheet``: a ``[sheet:]`` command's record applied again with the core to the
  party as it stood and at its number in its text (the 41st is refused however it
  reads); ``compare_sheet`` names the fields of its outcome and changes that differ.

Pure: the caller reads the files and the store; this compares JSON values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from dicebound.engine import CheckResult, PlayerChoices, Settlement, settle_after
from dicebound.errors import DiceboundError
from dicebound.kinds.asks import int_value
from dicebound.record import record_from_attrs
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags
from dicebound.values import frozen

if TYPE_CHECKING:
    from dicebound.sheet_commands.model import SheetOutcome, Unreadable
    from dicebound.sheet_commands.targets import Targets

__all__ = [
    "KEPT_FIELDS",
    "SHEET_KEPT_FIELDS",
    "Difference",
    "Thrown",
    "chosen",
    "compare_kept",
    "compare_sheet",
    "replay_kept",
    "replay_record",
    "replay_sheet",
    "settle_thrown",
    "sheet_kept",
    "sheet_touches",
]

_FIELDS = ("who", "outcome", "success", "critical", "choice", "changes")


@frozen
class Difference:
    """One field where the record and its replay disagree; ``attrs.total`` names an
    attribute of the record."""

    field: str
    stored: Any
    replayed: Any

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "stored": self.stored, "replayed": self.replayed}


def _attrs_of(record: Mapping[str, Any]) -> dict[str, str] | None:
    attrs = record.get("attrs")
    if not isinstance(attrs, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in attrs.items()
    ):
        return None
    return dict(attrs)


def _tag_attrs(tag: str) -> dict[str, str] | None:
    matches = parse_tags(tag)
    if len(matches) != 1 or matches[0].error is not None:
        return None
    return dict(matches[0].attrs)


def chosen(text: str | None) -> Literal["fail", "succeed"] | None:
    """A Sacrifice's choice as written (anything else: none)."""
    if text == "fail":
        return "fail"
    return "succeed" if text == "succeed" else None


def _choices(attrs: Mapping[str, str]) -> PlayerChoices:
    after: tuple[str, int] | None = None
    spent = attrs.get("after")
    if spent:
        pool, _, rest = spent.partition(":")
        points = rest.partition("@")[0]
        if pool and points.isdigit():
            after = (pool, int(points))
    return PlayerChoices(after=after, choose=chosen(attrs.get("choice")))


def _attr_differences(
    stored: Mapping[str, str], replayed: Mapping[str, str], where: str = "attrs"
) -> list[Difference]:
    keys = [*stored, *(k for k in replayed if k not in stored)]
    return [
        Difference(f"{where}.{key}", stored.get(key), replayed.get(key))
        for key in keys
        if stored.get(key) != replayed.get(key)
    ]


_CALIBRATED = ("dc", "threshold")  # inputs a kind moves before the record states them
_ROUNDS = 4
_OPPOSED = range(21)  # a symbol pool's opposing dice, when its record says them apart


def _throw(
    ruleset: Ruleset,
    character: Character,
    ask: Mapping[str, str],
    seed: str | None,
    faces: list[int] | None,
    layers: Sequence[str],
    choices: PlayerChoices,
) -> CheckResult | str:
    tag = record_from_attrs(ask.items()).to_tag()
    try:
        report = resolve_text(
            ruleset, [character], tag, seed=seed, faces=faces, layers=layers, choices=choices
        )
    except DiceboundError as exc:
        return str(exc)
    (item,) = report.items
    return item if isinstance(item, CheckResult) else item.error


def _ask_for(throw: Any, stored: Mapping[str, str], first: CheckResult) -> CheckResult:
    """The replay whose stated inputs match the record's: a record states the final
    numbers (roll-against's target, a pool's threshold after an untrained step, a symbol
    pool's opposing dice in its ``dice``), so the ask that led to them is found by
    moving ``dc=`` and ``threshold=`` until the replay states the same."""
    ask = dict(stored)
    best = first
    for _ in range(_ROUNDS):
        moved = False
        again = best.record.as_dict()
        for key in _CALIBRATED:
            want, got, have = (
                int_value(stored.get(key)),
                int_value(again.get(key)),
                int_value(ask.get(key)),
            )
            if want is not None and got is not None and have is not None and want != got:
                ask[key] = str(have + want - got)
                moved = True
        if not moved:
            break
        thrown = throw(ask)
        if not isinstance(thrown, CheckResult):
            break
        best = thrown
    if best.record.get("dice") != stored.get("dice") and "dc" in stored:
        for opposed in _OPPOSED:
            thrown = throw({**ask, "dc": str(opposed)})
            if isinstance(thrown, CheckResult) and thrown.record.get("dice") == stored.get("dice"):
                return thrown
    return best


def replay_record(
    ruleset: Ruleset,
    character: Character,
    record: Mapping[str, Any],
    *,
    layers: Sequence[str] = (),
) -> list[Difference]:
    """Throw the record again and compare; an empty list means it verifies.

    ``record`` is one result as ``check --json`` or the service writes it (``tag``,
    ``attrs``, ``who``, ``outcome``, ...); ``character`` is the roller's sheet as it
    stood before the check. The record's own inputs (its skill, who, difficulty, mode,
    spends, ...) are asked again with its seed, or its forced faces, and every field the
    replay writes must equal the record's; the tag must say what its attrs say.
    """
    attrs = _attrs_of(record)
    if attrs is None:
        return [Difference("attrs", record.get("attrs"), "a record's attrs, names to text")]
    tag = record.get("tag")
    if not isinstance(tag, str):
        tag = record_from_attrs(attrs.items()).to_tag()
    written = _tag_attrs(tag)
    if written is None:
        return [Difference("tag", tag, "one readable [skill_check: ...] tag")]
    seed = attrs.get("seed")
    faces: list[int] | None = None
    if seed is None:
        try:
            faces = [int(face) for face in attrs.get("rolls", "").split("|") if face]
        except ValueError:
            return [Difference("seed", None, "a seed (or forced faces) to replay")]

    def throw(ask: Mapping[str, str]) -> CheckResult | str:
        return _throw(ruleset, character, ask, seed, faces, layers, _choices(attrs))

    first = throw(attrs)
    if not isinstance(first, CheckResult):
        return [Difference("tag", tag, first)]
    item = _ask_for(throw, attrs, first)
    again = item.to_json()
    replayed_attrs = again["attrs"]
    assert isinstance(replayed_attrs, dict)
    differences = _attr_differences(attrs, replayed_attrs)
    lowered = {k.lower(): v for k, v in replayed_attrs.items()}
    differences += [  # the tag as written says what the replay says (keys in any case)
        Difference(f"tag.{key}", value, lowered.get(key))
        for key, value in written.items()
        if lowered.get(key) != value
    ]
    differences += [
        Difference(field, record.get(field), again.get(field))
        for field in _FIELDS
        if field in record and record.get(field) != again.get(field)
    ]
    return differences


# ── a record as the store keeps it ───────────────────────────────────────────


@frozen
class Thrown:
    """What throws a kept record again: the tag as the model wrote it, the seed (or the
    forced faces), the layers played and the choice sent with the check."""

    ask: str
    seed: str | None
    faces: list[int] | None
    layers: Sequence[str]
    choose: str | None


KEPT_FIELDS = ("tag", "who", "outcome", "success", "critical", "choice", "attrs", "changes")
"""The fields of a kept record that its replay must equal."""


def settle_thrown(
    ruleset: Ruleset,
    thrown: Thrown,
    then: Character,
    now: Character,
    choices: PlayerChoices,
    answered: PlayerChoices,
) -> Settlement:
    """A kept record's check settled after the roll (``engine.settle_after``): ``then``
    the roller as the check found them, ``now`` as the answer finds them."""
    return settle_after(
        ruleset,
        [then],
        now,
        thrown.ask,
        seed=thrown.seed if thrown.faces is None else None,
        faces=thrown.faces,
        layers=thrown.layers,
        choices=choices,
        answered=answered,
    )


def replay_kept(
    ruleset: Ruleset,
    thrown: Thrown,
    then: Character,
    answered: Callable[[], tuple[Character, PlayerChoices]] | None = None,
) -> CheckResult | str:
    """A kept record thrown again with the roller as they stood (``then``), and the
    answers it took after the roll applied as they were (``answered`` gives the roller
    as the answer found them, and what it settled, read once the check is thrown); or
    why it could not be thrown."""
    try:
        report = resolve_text(
            ruleset,
            [then],
            thrown.ask,
            seed=thrown.seed if thrown.faces is None else None,
            faces=thrown.faces,
            layers=thrown.layers,
            choices=PlayerChoices(choose=chosen(thrown.choose)),
        )
        first = report.items[0] if report.items else None
        if not isinstance(first, CheckResult):
            return first.error if first is not None else "the record's tag holds no check."
        if answered is None:
            return first
        now, before = answered()
        settled = settle_thrown(ruleset, thrown, then, now, PlayerChoices(), before)
        return settled.result._replace(changes=(*first.changes, *settled.result.changes))
    except DiceboundError as exc:
        return str(exc)


def compare_kept(stored: Mapping[str, Any], replayed: CheckResult | str) -> list[Difference]:
    """The fields of a kept record's result (``stored``) that its replay does not equal;
    a replay that could not be thrown differs in its tag."""
    if isinstance(replayed, str):
        return [Difference("tag", None, replayed)]
    again = replayed.to_json()
    return [
        Difference(key, stored.get(key), again.get(key))
        for key in KEPT_FIELDS
        if stored.get(key) != again.get(key)
    ]


# ── a sheet command as the store keeps it ────────────────────────────────────
# The sheet-command modules are imported when first needed, as the engine does: a
# process that never meets a [sheet:] tag never loads them.

SHEET_KEPT_FIELDS = ("tag", "who", "ok", "now", "reason", "changes")
"""The fields of a kept sheet command's result that its replay must equal."""


def sheet_kept(outcome: SheetOutcome) -> dict[str, Any]:
    """What a sheet command's record keeps of its outcome: the CLI's entry (``tag``,
    ``who``, ``ok``, ``now``, ``reason``) and every change, ``{who, what, from, to}``."""
    return {**outcome.to_json(), "changes": [c.to_json() for c in outcome.changes]}


def sheet_touches(outcome: SheetOutcome, number: int, names: Sequence[str]) -> tuple[int, ...]:
    """The cards (indexes into ``names``, the party in order) the ``number``-th command
    of its text could read or change: whom its ``who`` names (the first card when it
    names nobody, every member for ``party``); none for a tag past the last one a text
    may hold, an unreadable tag or a name that finds nobody. Its record keeps these
    cards whole, and only the names of the others, which are all a replay reads of
    them."""
    unreadable, most, targets, resolve_targets = _touch_parts()
    request = outcome.request
    if number > most or isinstance(request, unreadable):
        return ()
    found = resolve_targets(names, names[0] if names else None, request.who)
    return found.members if isinstance(found, targets) else ()


@cache
def _touch_parts() -> tuple[
    type[Unreadable], int, type[Targets], Callable[[Sequence[str], str | None, str | None], object]
]:
    """What ``sheet_touches`` reads of the sheet commands, imported once (a record of a
    check never loads them), not again for every command of a text."""
    from dicebound.sheet_commands.model import Unreadable
    from dicebound.sheet_commands.resolve import MAX_COMMANDS
    from dicebound.sheet_commands.targets import Targets, resolve_targets

    return Unreadable, MAX_COMMANDS, Targets, resolve_targets


def replay_sheet(
    ruleset: Ruleset, ask: str, party: Sequence[Character], number: int
) -> SheetOutcome | str:
    """A kept sheet command applied again: ``ask`` the tag as written, ``party`` the
    cards as the command found them (the first is the one a command naming nobody is
    about), ``number`` its place among its text's sheet commands; or why it could not
    be."""
    from dicebound.sheet_commands.grammar import find_sheet_tags
    from dicebound.sheet_commands.resolve import apply_sheet_tag

    tags = find_sheet_tags(ask)
    if len(tags) != 1 or tags[0].span != (0, len(ask)):
        return "the record's ask is not one [sheet: ...] tag."
    player = party[0].name if party else None
    outcome, _ = apply_sheet_tag(ruleset, party, player, tags[0], number)
    return outcome


def compare_sheet(stored: Mapping[str, Any], replayed: SheetOutcome | str) -> list[Difference]:
    """The fields of a kept sheet command's result (``stored``) that its replay does not
    equal; a replay that could not be made differs in its tag."""
    if isinstance(replayed, str):
        return [Difference("tag", stored.get("tag"), replayed)]
    again = sheet_kept(replayed)
    return [
        Difference(key, stored.get(key), again.get(key))
        for key in SHEET_KEPT_FIELDS
        if stored.get(key) != again.get(key)
    ]
