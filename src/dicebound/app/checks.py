"""Resolving a text's tags against a game's party: its checks thrown and paid, its
``[sheet:]`` commands applied or refused, every one recorded in text order, in one
transaction, and answered again, unchanged, to a retry with the same key."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from dicebound.app import events
from dicebound.app.access import Access, Use, storable, visible_game
from dicebound.app.errors import Invalid
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import compiled, load_member
from dicebound.app.records import record_view
from dicebound.app.rulesets import digest_of
from dicebound.character import live_to_json
from dicebound.dice import fresh_seed
from dicebound.engine import CheckFailure, CheckReport, CheckResult, PlayerChoices, resolve_text
from dicebound.errors import DiceboundError
from dicebound.replay import sheet_touches
from dicebound.sheet import Character, Live, PoolValue, Wounds
from dicebound.store.models import RawJson, dumps, stamp
from dicebound.store.repo import (
    Game,
    Member,
    NewCheck,
    NewSheetCommand,
    RecordHead,
    Repo,
    snapshot_head,
    tallies_of,
)
from dicebound.tags.parse import parse_tags

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.sheet_commands.model import SheetOutcome

__all__ = ["LiveTexts", "live_text", "run_checks"]


def _check_limits(text: str) -> None:
    """Refuse a text past its limits. Text that is not Unicode (a lone surrogate) raises
    ``UnicodeEncodeError`` here, before anything is thrown or written."""
    LIMITS.check_text(len(text.encode("utf-8")))
    LIMITS.check_tags(len(parse_tags(text)))


# A command's record writes the live state it found and its changes: written here piece
# by piece as ``dumps`` writes the whole (ASCII, no spaces), each string by the encoder's
# own C function, each whole number by ``int``, anything else by ``dumps`` itself. A
# record a command costs one encoder's setting-up a piece otherwise.
_STRING: Callable[[str], str] = encode_basestring_ascii
T = TypeVar("T")


def _value(value: object) -> str:
    """``dumps(value)``, strings and whole numbers written directly."""
    if type(value) is str:
        return _STRING(value)
    if type(value) is int:
        return repr(value)
    if value is None:
        return "null"
    return dumps(value)


def _entries(items: Iterable[tuple[str, T]], write: Callable[[T], str]) -> str:
    """``"key":<write(value)>`` of each item, joined: a JSON object's inside."""
    return ",".join(f"{_STRING(key)}:{write(value)}" for key, value in items)


def live_text(live: Live) -> str:
    """``dumps(live_to_json(live))``, written directly (``live_to_json`` says what a live
    state writes)."""
    return LiveTexts().text(live)


class LiveTexts:
    """Live states written as ``live_text`` writes them, for one request's records. A
    command that writes one member of a live state hands the others on to the next
    state as they were, and one entry of a pool map on with the others as they were
    (``sheet_commands.current``): each member's text and each pool entry's is kept by
    the value's identity (the value held beside it, so its id is not reused), and
    only what a command wrote is written again."""

    __slots__ = ("entries", "members")

    def __init__(self) -> None:
        self.members: dict[int, tuple[object, str]] = {}
        self.entries: dict[int, tuple[PoolValue, str, str]] = {}

    def text(self, live: Live) -> str:
        members = self.members
        try:
            parts = []
            for name, write in _MEMBER_TEXTS:
                member = getattr(live, name)
                hit = members.get(id(member))
                if hit is not None and hit[0] is member:
                    part = hit[1]
                else:
                    part = write(self, member) if member else ""
                    members[id(member)] = (member, part)
                if part:
                    parts.append(part)
        except TypeError:  # a key that is not text: the encoder's own rules
            return dumps(live_to_json(live))
        return f"{{{','.join(parts)}}}"

    def pools(self, pools: Mapping[str, PoolValue]) -> str:
        entries, texts = self.entries, []
        for key, pool in pools.items():
            hit = entries.get(id(pool))
            if hit is not None and hit[0] is pool and hit[1] == key:
                texts.append(hit[2])
            else:
                text = f"{_STRING(key)}:{_pool_text(pool)}"
                entries[id(pool)] = (pool, key, text)
                texts.append(text)
        return f'"pools":{{{",".join(texts)}}}'


def _pool_text(pool: PoolValue) -> str:
    value, temp = _value(pool.value), pool.temp
    return f'{{"value":{value},"temp":{_value(temp)}}}' if temp else f'{{"value":{value}}}'


def _wounds_text(wounds: Wounds) -> str:
    marks, overflow = ",".join(map(_value, wounds.marks)), wounds.overflow
    if overflow:
        return f'{{"marks":[{marks}],"overflow":{_value(overflow)}}}'
    return f'{{"marks":[{marks}]}}'


_MEMBER_TEXTS: tuple[tuple[str, Callable[[LiveTexts, Any], str]], ...] = (
    ("pools", LiveTexts.pools),
    ("tracks", lambda _, tracks: f'"tracks":{{{_entries(tracks.items(), _value)}}}'),
    ("wounds", lambda _, wounds: f'"wounds":{{{_entries(wounds.items(), _wounds_text)}}}'),
    ("text", lambda _, text: f'"text":{{{_entries(text.items(), _value)}}}'),
    ("conditions", lambda _, conditions: f'"conditions":[{",".join(map(_value, conditions))}]'),
    ("states", lambda _, states: f'"states":{{{_entries(states.items(), _value)}}}'),
)
"""Each member of a live state, in ``live_to_json``'s order, and its text with its key
(a member that holds nothing writes nothing)."""


class _Cards:
    """The cards a text's records keep, each written once per request: a card by its
    name alone once per name, a whole card (sheet and live state) once per state. A
    command that leaves a character as it was hands the next one the same value, so
    the state is known by the value's identity (each kept here, so no id is reused)."""

    def __init__(self, by_name: dict[str, Member]) -> None:
        self.by_name = by_name
        self.names: dict[str, str] = {}
        self.heads: dict[str, str] = {}  # a whole card's text up to its live state
        self.states: dict[int, tuple[Character, str]] = {}
        self.lives = LiveTexts()
        self.party_names: tuple[str, ...] = ()

    def whole(self, character: Character) -> str:
        known = self.states.get(id(character))
        if known is not None and known[0] is character:
            return known[1]
        head = self.heads.get(character.name)
        if head is None:
            sheet = self.by_name[character.name].sheet
            head = self.heads[character.name] = snapshot_head(character.name, sheet)
        text = f"{head}{self.lives.text(character.live)}}}"
        self.states[id(character)] = (character, text)
        return text

    def named(self, name: str) -> str:
        text = self.names.get(name)
        if text is None:
            text = self.names[name] = dumps({"name": name})
        return text

    def party(self, outcome: SheetOutcome, number: int, then: Sequence[Character]) -> list[str]:
        """The party as a sheet command found it, as its record keeps it: each card it
        could touch whole, every other by its name alone (a command changes no name)."""
        names = self.party_names
        if len(names) != len(then):
            names = self.party_names = tuple([c.name for c in then])
        touched = sheet_touches(outcome, number, names)
        return [self.whole(c) if i in touched else self.named(c.name) for i, c in enumerate(then)]


class _SheetText:
    """A sheet command's outcome as JSON text, each part written once: its record's
    ``result`` (``sheet_kept``) and its event (the ``SheetRecordView`` that ``GET
    .../records/{id}`` answers) are spliced from the same parts, never encoded twice."""

    __slots__ = ("ask", "rest", "tag", "who")

    def __init__(self, outcome: SheetOutcome, ask: str) -> None:
        self.tag = _STRING(outcome.tag)
        self.who = _STRING(outcome.who)
        self.ask = _STRING(ask)
        changes = ",".join(
            f'{{"who":{_STRING(c.who)},"what":{_STRING(c.what)},'
            f'"from":{_value(c.from_)},"to":{_value(c.to)}}}'
            for c in outcome.changes
        )
        # '"ok":...,"now":...,"reason":...,"changes":[...]', the fields after tag and who
        ok = "true" if outcome.ok else "false"
        now, reason = _value(outcome.now), _value(outcome.reason)
        self.rest = f'"ok":{ok},"now":{now},"reason":{reason},"changes":[{changes}]'

    def result(self) -> RawJson:
        """``dumps(sheet_kept(outcome))``."""
        return RawJson(f'{{"tag":{self.tag},"who":{self.who},{self.rest}}}')

    def view(self, record_id: int, head: tuple[str, str]) -> str:
        """``plain_json(record_view(...))`` of its record; ``head`` the parts every
        record of the text shares (``_Views.sheet_head``)."""
        return f'{{"id":{record_id}{self.tail(head)}'

    def tail(self, head: tuple[str, str]) -> str:
        """Its view after the id (``Repo.write_text``'s ``told``)."""
        fields = f'"who":{self.who},"tag":{self.tag},"ask":{self.ask},{self.rest}'
        return f",{head[0]}{fields}{head[1]}}}"


_NO_ID = '{"id":0'


class _Views:
    """What every record view of a text shares: its game and its time."""

    def __init__(self, game: Game, now: datetime) -> None:
        self.game = game
        self.now = now
        # a sheet record's view around its own fields: kind and time before, ruleset after
        self.sheet_head = (
            f'"kind":"sheet","created":{dumps(stamp(now))},',
            f',"ruleset":{dumps(game.ruleset_id)},"version":{int(game.ruleset_version)}',
        )

    def check_tail(self, ask: str, result: Any, seed: Any) -> str:
        """A check's record as ``GET .../records/{id}`` will read it, after its id (the
        view's first field): its event, once the id is known (``Repo.write_text``)."""
        game = self.game
        head = RecordHead(
            0, "check", self.now, ask, result, seed, game.ruleset_id, game.ruleset_version, None
        )
        _, payload = events.record_item(record_view(head))
        assert payload.startswith(_NO_ID + ",")
        return payload[len(_NO_ID) :]


class _Steps:
    """A text's records, built in text order and not yet written: each record, its
    answer (as ``results`` or ``sheet`` reads it, before its id) and its event after its
    id (``Repo.write_text``'s ``told``)."""

    def __init__(self) -> None:
        self.records: list[NewCheck | NewSheetCommand] = []
        self.answers: list[tuple[bool, dict[str, object]]] = []  # (a check's, answer)
        self.tails: list[str] = []

    def written(
        self, ids: Sequence[int]
    ) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
        """The answer's ``results`` and ``sheet`` in text order, with the ids written."""
        results: list[dict[str, object]] = []
        sheet: list[dict[str, object]] = []
        for record_id, (check, answer) in zip(ids, self.answers, strict=True):
            if check:
                results.append({**answer, "id": record_id})
            else:
                sheet.append({"id": record_id, **answer})
        return results, sheet


def _record_steps(
    game: Game,
    report: CheckReport,
    text: str,
    by_name: dict[str, Member],
    choose: str | None,
    now: datetime,
) -> _Steps:
    """A record of every check thrown and every sheet command, in text order (so ids
    grow in text order), and each record's event. A check tag that did not resolve
    writes none."""
    cards = _Cards(by_name)
    views = _Views(game, now)
    steps = _Steps()
    head = views.sheet_head
    number = 0  # the sheet commands so far
    for step in report.steps:
        if isinstance(step, CheckFailure):
            continue
        if isinstance(step, CheckResult):
            row_json = step.to_json()
            roller = step.roller
            assert roller is not None  # resolve_text fills it for every result
            steps.records.append(
                NewCheck(
                    who=step.who,
                    ask=step.ask,
                    result=row_json,
                    seed=step.record.get("seed"),
                    faces=step.faces,
                    choose=choose,
                    sheet=cards.whole(roller),
                )
            )
            steps.answers.append((True, row_json))
            steps.tails.append(views.check_tail(step.ask, row_json, step.record.get("seed")))
            continue
        number += 1
        start, end = step.span
        ask = text[start:end]
        party = cards.party(step, number, report.sheet_party[number - 1])
        command = _SheetText(step, ask)
        steps.records.append(
            NewSheetCommand(
                who=step.who, ask=ask, result=command.result(), number=number, party=party
            )
        )
        steps.answers.append((False, step.to_json()))
        steps.tails.append(command.tail(head))
    return steps


def run_checks(
    session: Session,
    access: Access,
    game_id: str,
    *,
    text: str,
    seed: str | None,
    faces: Sequence[int] | None,
    choose: Literal["fail", "succeed"] | None,
    idempotency_key: str | None,
) -> dict[str, Any]:
    """Resolve a text's tags against the game's characters, pay, and write every record,
    all in the caller's transaction; the answer as the edges send it (the JSON an
    idempotency key keeps). A retry with the same key answers the same, for
    ``LIMITS.idempotency_hours``; after that the key is forgotten and the request is new."""
    repo = Repo(session)
    game = visible_game(
        repo, access, game_id, Use.RUN_CHECKS, lock=True
    )  # one check of a game at a time
    if idempotency_key is not None and not storable(idempotency_key, 200):
        raise Invalid(
            "an idempotency key is 1 to 200 printable characters (no NUL or other control "
            "character); nothing was thrown or paid."
        )
    digest = None
    now = datetime.now(UTC)
    cutoff = now - timedelta(hours=LIMITS.idempotency_hours)
    if idempotency_key is not None:
        digest = digest_of({"text": text, "seed": seed, "faces": faces, "choose": choose})
        seen = repo.kept(game.id, idempotency_key)
        if seen is not None and seen.created < cutoff:
            repo.forget(game.id, idempotency_key)
            seen = None
        if seen is not None:
            if seen.digest != digest:
                raise Invalid(
                    f'the Idempotency-Key "{idempotency_key}" was used for another request; '
                    "a retry must send the same body."
                )
            return seen.answer
    _check_limits(text)
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    # every character, in a fixed order: all a check or a sheet command (a named one, the
    # first for one naming nobody, everyone for who="party") can touch
    rows, counts = repo.party(game.id)
    party = [load_member(ruleset, game, row) for row in rows]
    if faces is None and seed is None:
        seed = fresh_seed()
    try:
        report = resolve_text(
            ruleset,
            party,
            text,
            seed=seed if faces is None else None,
            faces=faces,
            layers=game.layers,
            choices=PlayerChoices(choose=choose),
        )
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    unthrown = next((e for e in report.errors if e.dice_failed), None)
    if unthrown is not None:  # forced faces that do not fit: the request, not a tag, is wrong
        raise Invalid(
            f"the forced faces do not fit the checks ({unthrown.error}); nothing was written."
        )
    now = datetime.now(UTC)
    by_name = {row.name: row for row in rows}
    # written (and its revision raised) when a check paid or a command changed
    # something, even where a later one put it back; a rest that found nothing to
    # restore stores an equal state, and the revision stays
    moved = {change.who for outcome in report.sheet for change in outcome.changes}
    changed: list[Member] = []  # each as this transaction leaves it
    for before, after in zip(party, report.party, strict=True):
        if after is not before and (after.live != before.live or after.name in moved):
            row = by_name[after.name]
            live = live_text(after.live)
            changed.append(Member(row.name, row.sheet, live, row.revision + 1))
    # the records, each with its event, in text order; then each character the text
    # changed, as it is now, counting the records just written
    steps = _record_steps(game, report, text, by_name, choose, now)
    for key, more in tallies_of(steps.records).items():
        counts[key] = counts.get(key, 0) + more
    ids = repo.write_text(
        game,
        now,
        [(row.name, row.live, row.revision) for row in changed],
        steps.records,
        steps.tails,
        events.counted_items(ruleset, game, changed, counts),
        LIMITS.events_kept,
    )
    results, sheet = steps.written(ids)
    answer: dict[str, Any] = {
        "text": report.text,
        "results": results,
        "errors": [e.to_json() for e in report.errors],
        "sheet": sheet,
    }
    if idempotency_key is not None:
        assert digest is not None
        repo.keep(game.id, idempotency_key, digest, answer, now)
        repo.sweep(cutoff, LIMITS.expired_keys_per_write)  # so the table stays bounded
    return answer
