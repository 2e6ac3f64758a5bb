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
from dicebound.app.fight_steps import fight_event, fight_record, recorded_steps
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import compiled, load_member
from dicebound.app.records import record_view
from dicebound.app.rulesets import digest_of
from dicebound.character import live_to_json
from dicebound.dice import fresh_seed
from dicebound.engine import CheckFailure, CheckResult, PlayerChoices
from dicebound.errors import DiceboundError
from dicebound.replay import sheet_touches
from dicebound.sheet import Character, Live, PoolValue, Wounds
from dicebound.sheet_commands.resolve import MAX_COMMANDS
from dicebound.store.models import RawJson, dumps, stamp
from dicebound.store.repo import (
    Game,
    Member,
    NewCheck,
    NewRecord,
    NewSheetCommand,
    RecordHead,
    Repo,
    Written,
    snapshot_head,
    tallies_of,
)
from dicebound.tagpass import CheckReport, resolve_text
from dicebound.tagpass.report import fight_step_json
from dicebound.tags.parse import parse_tags

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.sheet_commands.model import SheetOutcome

__all__ = ["Admit", "LiveTexts", "answer_once", "live_text", "play_text", "run_checks"]


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

    def view(self, record_id: int, number: int, head: tuple[str, str]) -> str:
        """``plain_json(record_view(...))`` of its record; ``head`` the parts every
        record of the text shares (``_Views.sheet_head``)."""
        return f'{{"id":{record_id},"number":{number}{self.tail(head)}'

    def tail(self, head: tuple[str, str]) -> str:
        """Its view after the id and number (``Repo.write_text``'s ``told``)."""
        fields = f'"who":{self.who},"tag":{self.tag},"ask":{self.ask},{self.rest}'
        return f",{head[0]}{fields}{head[1]}}}"


_NO_ID = '{"id":0,"number":0'


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

    def tail(self, kind: Literal["check", "fight"], ask: str, result: Any, seed: Any) -> str:
        """A check's or a fight step's record as ``GET .../records/{id}`` will read it
        (but a step's ``fight.before``), after its id and number (the view's first
        fields): its event, once they are known (``Repo.write_text``)."""
        game = self.game
        head = RecordHead(
            0, 0, kind, self.now, ask, result, seed, game.ruleset_id, game.ruleset_version, None
        )
        _, payload = events.record_item(record_view(head))
        assert payload.startswith(_NO_ID + ",")
        return payload[len(_NO_ID) :]


class _Steps:
    """A text's records, built in text order and not yet written: each record, its
    answer (as ``results``, ``sheet`` or ``fight`` reads it, before its id) and its
    event after its id (``Repo.write_text``'s ``told``); and the answers of the commands
    past the text's ``MAX_COMMANDS`` (and the fight steps past its ``MAX_FIGHT_TAGS``),
    which are refused and stored as nothing."""

    def __init__(self) -> None:
        self.records: list[NewRecord] = []
        # (the member it answers in, recorded, answer), in text order
        self.answers: list[tuple[Literal["results", "sheet", "fight"], bool, dict[str, Any]]] = []
        self.tails: list[str] = []

    def written(self, made: Sequence[Written]) -> dict[str, list[dict[str, Any]]]:
        """The answer's ``results``, ``sheet`` and fight steps in text order, with the
        ids and numbers written (an entry that was not recorded answers ``"id": null,
        "number": null``)."""
        members: dict[str, list[dict[str, Any]]] = {"results": [], "sheet": [], "fight": []}
        written = iter(made)
        for member, recorded, answer in self.answers:
            record = next(written) if recorded else None
            record_id, number = (record.id, record.number) if record else (None, None)
            if member == "results":
                members[member].append({**answer, "id": record_id, "number": number})
            else:
                members[member].append({"id": record_id, "number": number, **answer})
        assert next(written, None) is None  # one id per record
        return members


def _record_steps(
    game: Game,
    report: CheckReport,
    text: str,
    by_name: dict[str, Member],
    choose: str | None,
    now: datetime,
    forced: bool,
) -> _Steps:
    """A record of every check thrown, every sheet command and every fight step, in
    text order (so ids grow in text order), and each record's event. A check tag that
    did not resolve writes none, nor does a command past the text's ``MAX_COMMANDS``
    or a fight step past its ``MAX_FIGHT_TAGS``: it is refused ``too-many`` and
    answered, but what a text stores stays within its limits, however many tags it
    holds."""
    cards = _Cards(by_name)
    views = _Views(game, now)
    steps = _Steps()
    head = views.sheet_head
    number = 0  # the sheet commands so far
    fights = _FightSteps(report, text, cards, views, forced)
    checks_seen = 0
    for step in report.steps:
        fights.add_before(steps, checks_seen, number)
        if isinstance(step, CheckFailure):
            checks_seen += 1
            continue
        if isinstance(step, CheckResult):
            checks_seen += 1
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
            steps.answers.append(("results", True, row_json))
            steps.tails.append(views.tail("check", step.ask, row_json, step.record.get("seed")))
            continue
        number += 1
        if number > MAX_COMMANDS:  # refused too-many: answered, stored as nothing
            steps.answers.append(("sheet", False, step.to_json()))
            continue
        start, end = step.span
        ask = text[start:end]
        party = cards.party(step, number, report.sheet_party[number - 1])
        command = _SheetText(step, ask)
        steps.records.append(
            NewSheetCommand(
                who=step.who, ask=ask, result=command.result(), number=number, party=party
            )
        )
        steps.answers.append(("sheet", True, step.to_json()))
        steps.tails.append(command.tail(head))
    fights.add_before(steps, None, None)
    return steps


class _FightSteps:
    """A text's fight steps, each recorded where it stands among the checks and sheet
    commands (``FightPlace`` counts those before it)."""

    def __init__(
        self, report: CheckReport, text: str, cards: _Cards, views: _Views, forced: bool
    ) -> None:
        self.waiting = list(
            zip(report.fight_steps, report.fight_places, recorded_steps(report), strict=True)
        )
        self.at = 0
        self.text = text
        self.cards = cards
        self.views = views
        self.forced = forced

    def add_before(self, steps: _Steps, checks: int | None, commands: int | None) -> None:
        """Record each step that stands before the check tag or sheet command after
        ``checks`` checks and ``commands`` commands (None: every step left)."""
        while self.at < len(self.waiting):
            (written, step), place, recorded = self.waiting[self.at]
            if checks is not None and (place.checks_before, place.commands_before) != (
                checks,
                commands,
            ):
                return
            self.at += 1
            entry = fight_step_json(written, step)
            if not recorded:
                steps.answers.append(("fight", False, entry))
                continue
            start, end = place.span
            ask = self.text[start:end]
            record = fight_record(entry, step, place, ask, self.cards.whole, self.forced)
            steps.records.append(record)
            steps.answers.append(("fight", True, entry))
            steps.tails.append(self.views.tail("fight", ask, dict(record.result), record.seed))


def _every_member(kept: Mapping[str, Any]) -> dict[str, Any]:
    """An answer kept for an idempotency key, with every member a newer version writes:
    one kept before sheet commands has no ``sheet``, one kept before notes no result's
    ``notes``, one kept before fights no ``fight`` (a client never branches on a member
    being absent)."""
    results = [{**r, "notes": r.get("notes", [])} for r in kept["results"]]
    fight = kept.get("fight", {"steps": [], "state": None, "summary": None})
    return {**kept, "results": results, "sheet": kept.get("sheet", []), "fight": fight}


def answer_once(
    repo: Repo,
    game: Game,
    idempotency_key: str | None,
    body: Mapping[str, Any],
    play: Callable[[], dict[str, Any]],
    kept_answer: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    """``play()``'s answer, kept under the idempotency key (when one is sent) with the
    digest of ``body``: a retry with the same key and body answers the same (as
    ``kept_answer`` reads a kept answer), for ``LIMITS.idempotency_hours``; after that
    the key is forgotten and the request is new. The caller holds the game's row lock."""
    if idempotency_key is not None and not storable(idempotency_key, 200):
        raise Invalid(
            "an idempotency key is 1 to 200 printable characters (no NUL or other control "
            "character); nothing was thrown or paid."
        )
    digest = None
    now = datetime.now(UTC)
    cutoff = now - timedelta(hours=LIMITS.idempotency_hours)
    if idempotency_key is not None:
        digest = digest_of(body)
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
            return kept_answer(seen.answer)
    answer = play()
    if idempotency_key is not None:
        assert digest is not None
        repo.keep(game.id, idempotency_key, digest, answer, now)
        repo.sweep(cutoff, LIMITS.expired_keys_per_write)  # so the table stays bounded
    return answer


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
    """Resolve a text's tags against the game's characters and its fight, pay, and
    write every record, all in the caller's transaction; the answer as the edges send
    it (the JSON an idempotency key keeps). A retry with the same key answers the same,
    for ``LIMITS.idempotency_hours``; after that the key is forgotten and the request
    is new."""
    repo = Repo(session)
    game = visible_game(
        repo, access, game_id, Use.RUN_CHECKS, lock=True
    )  # one check of a game at a time
    body = {"text": text, "seed": seed, "faces": faces, "choose": choose}

    def play() -> dict[str, Any]:
        _check_limits(text)
        return play_text(repo, game, text, seed=seed, faces=faces, choose=choose)

    return answer_once(repo, game, idempotency_key, body, play, _every_member)


Admit = Callable[[dict[str, Any] | None, Sequence[Character]], None]
"""A check made on the fight and the party as stored, before anything is thrown (a
player's seat acting in the fight): it raises to refuse."""


def play_text(
    repo: Repo,
    game: Game,
    text: str,
    *,
    seed: str | None,
    faces: Sequence[int] | None,
    choose: Literal["fail", "succeed"] | None,
    admit: Admit | None = None,
) -> dict[str, Any]:
    """Resolve a text's tags against the game's party and fight and write all it did:
    the party's live states, the fight, every record and its event, each ``fight``
    event, and each changed character's. The caller holds the game's row lock, so no
    other text of the game is played meanwhile, on any process."""
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    # every character, in a fixed order: all a check or a sheet command (a named one, the
    # first for one naming nobody, everyone for who="party") can touch
    rows, counts, stored = repo.party(game.id)
    party = [load_member(ruleset, game, row) for row in rows]
    fight = stored[0] if stored is not None else None
    if admit is not None:
        admit(fight, party)
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
            fight=fight,
            record_fights=True,
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
    # written (and its revision raised) when a check paid, a command or a fight step
    # changed something, even where a later one put it back; a rest that found nothing
    # to restore stores an equal state, and the revision stays
    moved = {change.who for outcome in report.sheet for change in outcome.changes}
    moved |= {c["who"] for _, step in report.fight_steps for c in step.changes}
    changed: list[Member] = []  # each as this transaction leaves it
    for before, after in zip(party, report.party, strict=True):
        if after is not before and (after.live != before.live or after.name in moved):
            row = by_name[after.name]
            live = live_text(after.live)
            changed.append(Member(row.name, row.sheet, live, row.revision + 1))
    if any(step.ok for _, step in report.fight_steps) and report.fight is not None:
        repo.put_fight(game.id, report.fight, now)
    # the records, each with its event, in text order; then each fight step's event,
    # then each character the text changed, as it is now, counting the records written
    steps = _record_steps(game, report, text, by_name, choose, now, faces is not None)
    for key, more in tallies_of(steps.records).items():
        counts[key] = counts.get(key, 0) + more
    fight_events = [fight_event(step) for _, step in report.fight_steps]
    made = repo.write_text(
        game,
        now,
        [(row.name, row.live, row.revision) for row in changed],
        steps.records,
        steps.tails,
        [*fight_events, *events.counted_items(ruleset, game, changed, counts)],
        LIMITS.events_kept,
    )
    members = steps.written(made)
    return {
        "text": report.text,
        "results": members["results"],
        "errors": [e.to_json() for e in report.errors],
        "sheet": members["sheet"],
        "fight": {
            "steps": members["fight"],
            "state": report.fight,
            "summary": report.fight_summary,
        },
    }
