"""A game's records: the history, a record's dice card, the player's answer after the
roll (a raise, a choice), and a record replayed to verify it. A record is a check
thrown (``kind`` "check"), a ``[sheet:]`` command applied or refused ("sheet") or a
``[fight:]`` step ("fight", ``app.fight_steps``): a sheet or fight record reads
differently, has a small card of its own, takes no answer, and is verified by playing
its tag again on what it found."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from dicebound.app import events
from dicebound.app.access import Access, Use, seat_in, visible_game
from dicebound.app.errors import Conflict, Invalid, NotFound
from dicebound.app.fight_steps import (
    FightRecordView,
    compare_fight,
    fight_record_view,
    replay_fight,
)
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import character_file, compiled, load_file, load_member
from dicebound.character import live_to_json
from dicebound.engine import CheckResult, PlayerChoices
from dicebound.errors import DiceboundError
from dicebound.fight.lines import event_lines
from dicebound.render.player import CardContext
from dicebound.replay import (
    Difference,
    Thrown,
    chosen,
    compare_kept,
    compare_sheet,
    replay_kept,
    replay_sheet,
    settle_thrown,
)
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Change, Character, blank_build
from dicebound.store.models import dumps
from dicebound.store.repo import Game, Member, Record, RecordHead, Repo
from dicebound.tags.parse import parse_tags
from dicebound.values import frozen, replace
from dicebound.views import card_json, offer_json, paid_lines

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.sheet_commands.model import SheetOutcome

__all__ = [
    "Answered",
    "RecordPage",
    "RecordView",
    "SheetRecordView",
    "Verified",
    "answer_after",
    "get_record",
    "list_records",
    "record_card",
    "record_view",
    "verify_record",
]


@frozen
class RecordView:
    """A record as a caller reads it: the result it keeps, how it was thrown, and the
    answers it took after the roll. ``number`` is its place in its game's history
    (from 1); ``id`` is the store's, global."""

    id: int
    number: int
    kind: Literal["check"]
    created: datetime
    tag: str
    attrs: dict[str, str]
    who: str
    outcome: str
    success: bool
    critical: str | None
    choice: str | None
    offer: str | None
    changes: list[dict[str, Any]]
    seed: str | None
    ruleset: str
    version: int
    answered: dict[str, Any] | None
    notes: list[str]


@frozen
class SheetRecordView:
    """A sheet command's record as a caller reads it: whom it was about (a card's name,
    ``party``, or as written when it found nobody), the tag as written (``ask``) and
    as written back (``tag``), applied (``ok``, ``now``) or refused (``reason``), and
    every change it made, ``{who, what, from, to}``."""

    id: int
    number: int
    kind: Literal["sheet"]
    created: datetime
    who: str
    tag: str
    ask: str
    ok: bool
    now: str | None
    reason: str | None
    changes: list[dict[str, Any]]
    ruleset: str
    version: int


@frozen
class RecordPage:
    """A page of records, newest first; ``next`` is the ``before`` of the next page."""

    records: tuple[RecordView | SheetRecordView | FightRecordView, ...]
    next: int | None


@frozen
class Answered:
    """A record after the player's answer, and what that answer paid."""

    record: RecordView
    paid: tuple[dict[str, Any], ...]


@frozen
class Verified:
    """A record replayed: whether it matches, and every field that does not."""

    verified: bool
    differences: tuple[Difference, ...]


def _offer(result: Mapping[str, Any]) -> str | None:
    attrs = result.get("attrs", {})
    offer = attrs.get("offer") if isinstance(attrs, dict) else None
    return offer if isinstance(offer, str) else None


def _view(row: Record | RecordHead) -> RecordView:
    result = row.result
    return RecordView(
        id=row.id,
        number=row.number,
        kind="check",
        created=row.created,
        tag=result["tag"],
        attrs=result["attrs"],
        who=result["who"],
        outcome=result["outcome"],
        success=result["success"],
        critical=result["critical"],
        choice=result["choice"],
        offer=_offer(result),
        changes=result["changes"],
        seed=row.seed,
        ruleset=row.ruleset_id,
        version=row.ruleset_version,
        answered=row.answer,
        notes=result.get("notes", []),  # a record kept before notes has none
    )


def _sheet_view(row: Record | RecordHead) -> SheetRecordView:
    result = row.result
    return SheetRecordView(
        id=row.id,
        number=row.number,
        kind="sheet",
        created=row.created,
        who=result["who"],
        tag=result["tag"],
        ask=row.ask,
        ok=result["ok"],
        now=result["now"],
        reason=result["reason"],
        changes=result["changes"],
        ruleset=row.ruleset_id,
        version=row.ruleset_version,
    )


def record_view(row: Record | RecordHead) -> RecordView | SheetRecordView | FightRecordView:
    """A record of any kind as a caller reads it."""
    if row.kind == "fight":
        return fight_record_view(row)
    return _sheet_view(row) if row.kind == "sheet" else _view(row)


def _record(repo: Repo, game: Game, record_id: int, *, lock: bool) -> Record:
    row = repo.record(game.id, record_id, lock=lock)
    if row is None:
        raise NotFound(f"no record {record_id} is in this game.")
    return row


def list_records(
    session: Session, access: Access, game_id: str, before: int | None, limit: int
) -> RecordPage:
    """A page of the game's records, newest first; ``next`` is the ``before`` of the
    next page, or None on the last."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_RECORDS)
    limit = LIMITS.page(limit)
    rows = repo.records(game.id, before, limit + 1)
    page = rows[:limit]
    more = len(rows) > limit
    return RecordPage(tuple(record_view(r) for r in page), page[-1].id if more and page else None)


def get_record(
    session: Session, access: Access, game_id: str, record_id: int
) -> RecordView | SheetRecordView | FightRecordView:
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_RECORD)
    return record_view(_record(repo, game, record_id, lock=False))


def _thrown(row: Record) -> Thrown:
    return Thrown(row.ask, row.seed, row.faces, row.layers, row.choose)


def _snapshot(ruleset: Ruleset, row: Record, body: dict[str, Any]) -> Character:
    """The roller as a record kept them (``row.sheet`` or ``row.answer_sheet``)."""
    return load_file(ruleset, (row.ruleset_id, row.ruleset_version), body)


def _answered(row: Record, answer: Mapping[str, Any]) -> PlayerChoices:
    """What a record's answers and its check settled before: the raise taken, and the
    choice made (an answer's, else the one sent with the check, which settles any
    Sacrifice the check comes to). A record answered before answers accumulated holds
    one of them, and reads the same way. ``answer`` is the record's answers."""
    after = (answer["pool"], answer["points"]) if "pool" in answer else None
    return PlayerChoices(after=after, choose=chosen(answer.get("choose", row.choose)))


def _replay(repo: Repo, row: Record) -> CheckResult | str:
    """The record thrown again from its seed (or forced faces), its ruleset version and
    the roller's sheet as it stood, with the player's answer applied as it was; or why
    it could not be thrown."""
    ruleset = compiled(repo, row.ruleset_id, row.ruleset_version)
    then = _snapshot(ruleset, row, row.sheet)
    answers, answer_sheet = row.answer, row.answer_sheet
    if answers is None or answer_sheet is None:
        return replay_kept(ruleset, _thrown(row), then)

    def answered() -> tuple[Character, PlayerChoices]:
        return _snapshot(ruleset, row, answer_sheet), _answered(row, answers)

    return replay_kept(ruleset, _thrown(row), then, answered)


def _sheet_party(ruleset: Ruleset, row: Record) -> list[Character]:
    """The party as a sheet (or fight) record kept it: each card the command could
    touch whole, every other by its name alone (a blank sheet under that name: only its
    name is read)."""
    cards: list[dict[str, Any]] = row.sheet["party"]
    return [
        _snapshot(ruleset, row, card)
        if "live" in card
        else Character(card["name"], blank_build(ruleset))
        for card in cards
    ]


def _replay_sheet(repo: Repo, row: Record) -> SheetOutcome | str:
    """The record's sheet command applied again to the party as it stood, or why it
    could not be (a kept party that no longer reads)."""
    ruleset = compiled(repo, row.ruleset_id, row.ruleset_version)
    try:
        party = _sheet_party(ruleset, row)
        number = row.sheet["number"]
    except (DiceboundError, KeyError, TypeError, ValueError) as exc:
        return f"the party the record keeps does not read ({exc})."
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        return "the record keeps no number for its command."
    return replay_sheet(ruleset, row.ask, party, number)


def _replay_fight(repo: Repo, row: Record) -> dict[str, Any] | str:
    """The record's fight step played again on the fight and party it found, or why
    it could not be (a kept party that no longer reads)."""
    ruleset = compiled(repo, row.ruleset_id, row.ruleset_version)
    try:
        party = _sheet_party(ruleset, row)
    except (DiceboundError, KeyError, TypeError, ValueError) as exc:
        return f"the party the record keeps does not read ({exc})."
    return replay_fight(ruleset, row, party)


def _fight_card(row: Record) -> dict[str, object]:
    """A fight step's card: the tag, what came of it, each event's line and each
    change; its faces as thrown."""
    view = fight_record_view(row)
    result = "ok" if view.ok else f"refused ({view.reason})"
    lines = [["Fight", view.ask], ["Result", result]]
    lines += [["Event", line] for line in event_lines(view.events)]
    title = f"Fight — {view.who}" if view.who else "Fight"
    return _small_card(row, title, lines + _change_lines(view.changes), seed=row.seed)


def _sheet_card(row: Record) -> dict[str, object]:
    """A sheet record's small card: the command, what came of it and every change; no
    dice, no seed, no offer."""
    view = _sheet_view(row)
    result = f"ok: {view.now}" if view.ok else f"refused ({view.reason})"
    lines = [["Command", view.ask], ["Result", result]]
    title = f"Sheet command — {view.who}" if view.who else "Sheet command"
    return _small_card(row, title, lines + _change_lines(view.changes), seed=None)


def _change_lines(changes: list[dict[str, Any]]) -> list[list[str]]:
    """A card's line per change a record made: whose what, from and to."""
    return [
        ["Changed", f"{c['who']}'s {c['what']} {dumps(c['from'])} → {dumps(c['to'])}"]
        for c in changes
    ]


def _small_card(
    row: Record, title: str, lines: list[list[str]], *, seed: str | None
) -> dict[str, object]:
    """The card of a record that throws no check's dice (a fight step, a sheet
    command): its lines, no dice, no offer."""
    return {
        "id": row.id,
        "number": row.number,
        "title": title,
        "lines": lines,
        "dice": [],
        "seed": seed,
        "offer": None,
    }


def record_card(
    session: Session, access: Access, game_id: str, record_id: int
) -> dict[str, object]:
    """A record's dice card: the lines the terminal shows, every face thrown, and the
    offer still open with the pools it names. A sheet command's card is small: the
    command, its outcome and its changes."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_CARD)
    row = _record(repo, game, record_id, lock=False)
    if row.kind == "sheet":
        return _sheet_card(row)
    if row.kind == "fight":
        return _fight_card(row)
    result = row.result
    replayed = _replay(repo, row)  # the roller's own account of each die
    marks = (
        replayed.die_marks
        if isinstance(replayed, CheckResult) and replayed.record.as_dict() == result["attrs"]
        else ()
    )
    ruleset = compiled(repo, row.ruleset_id, row.ruleset_version)
    changes = [Change(c["who"], c["pool"], c["from"], c["to"]) for c in result["changes"]]
    roller = _snapshot(ruleset, row, row.sheet)
    asked = parse_tags(row.ask)
    card = card_json(
        result["attrs"].items(),
        who=result["who"],
        outcome=result["outcome"],
        die_marks=marks,
        paid=paid_lines(ruleset, roller, changes),
        context=CardContext(ruleset, roller, dict(asked[0].attrs) if asked else None),
    )
    # the raise still on offer: none once the record took an answer (a raise is once,
    # and a choice closes the record)
    offer = offer_json(ruleset, _offer(result)) if row.answer is None else None
    return {"id": row.id, "number": row.number, **card, "offer": offer}


def _answer_conflict(
    row: Record,
    made: object,
    answer: Mapping[str, Any],
    pool: str | None,
    choose: str | None,
) -> Conflict | None:
    """Why the record takes no more answers of this kind, or None. A raise is taken
    once, a choice once; a record whose raise opened a Sacrifice still takes its
    choice, and nothing else. ``made`` is the record's ``choice``, ``answer`` its
    answers so far."""
    if answer and made != "open":
        return Conflict(f"record {row.id} was already answered; an answer is accepted once.")
    if answer and pool is not None:
        return Conflict(
            f"record {row.id} was already raised ({answer['pool']}:{answer['points']}) and a "
            'check takes one raise; its Sacrifice is still open for {"choose": "fail"} or '
            '{"choose": "succeed"}.'
        )
    thrown_with = made if not answer and made in ("fail", "succeed") else None
    if choose is not None and pool is not None and thrown_with is None:
        thrown_with = row.choose  # it would settle the Sacrifice this raise opens
    if choose is not None and thrown_with is not None:
        return Conflict(
            f'record {row.id}\'s choice was made when it was thrown ("{thrown_with}"); '
            "a choice is made once."
        )
    return None


def answer_after(
    session: Session,
    access: Access,
    game_id: str,
    record_id: int,
    *,
    pool: str | None,
    points: int | None,
    choose: Literal["fail", "succeed"] | None,
) -> Answered:
    """The player's answer to a step-pool offer or a Sacrifice: a raise, a choice, or
    both; each accepted once, paid in this transaction. A Sacrifice a raise opens takes
    its choice in a later answer. An answer that buys nothing, or chooses where no
    choice is open, is refused and changes nothing. A player answers only a record its
    own character rolled."""
    if (pool is None) != (points is None) or (pool is None and choose is None):
        raise Invalid(
            'answer with {"pool": ..., "points": N}, with {"choose": ...}, or with all three.'
        )
    repo = Repo(session)
    seated = seat_in(repo, access, game_id, lock=True)
    row = _record(repo, seated.game, record_id, lock=True)
    game = seated.allow(Use.ANSWER_OFFER, row.who)
    if row.kind == "fight":
        raise Invalid(
            f"record {row.id} is a fight step, not a check: it takes no answer after the roll."
        )
    if row.kind == "sheet":
        raise Invalid(
            f"record {row.id} is a sheet command, not a check: it threw no dice, so there is "
            "nothing to answer after the roll."
        )
    stored = row.result
    answer = dict(row.answer or {})
    conflict = _answer_conflict(row, stored.get("choice"), answer, pool, choose)
    if conflict is not None:
        raise conflict
    ruleset = compiled(repo, row.ruleset_id, row.ruleset_version)
    then = _snapshot(ruleset, row, row.sheet)
    answered = _answered(row, answer)
    member: Member | None = None
    if answered.after is not None and row.answer_sheet is not None:
        # the raise was judged, and paid, against the roller as the answer found him
        now = _snapshot(ruleset, row, row.answer_sheet)
    else:
        member = repo.member(game.id, then.name, lock=True)
        if member is None:
            raise Conflict(f"{then.name} is no longer a character of this game.")
        now = load_member(ruleset, game, member)
    after = (pool, points) if pool is not None and points is not None else None
    try:
        settled = settle_thrown(
            ruleset, _thrown(row), then, now, PlayerChoices(after=after, choose=choose), answered
        )
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    if after is not None and not settled.paid:
        raise Invalid(settled.message or "that spend buys nothing, so nothing was paid.")
    result = settled.result.to_json()
    result["changes"] = [*stored["changes"], *(c.to_json() for c in settled.paid)]
    if after is not None:
        answer.update(pool=after[0], points=after[1])
    if choose is not None:
        answer["choose"] = choose
    answer_sheet = None
    if member is not None:
        answer_sheet = character_file(now.name, member.sheet, live_to_json(now.live))
    repo.answer_record(row.id, result, answer, answer_sheet)
    changed: list[Member] = []
    if settled.character is not None:
        assert member is not None
        live = dumps(live_to_json(settled.character.live))
        repo.set_live(game.id, member.name, live, member.revision + 1, datetime.now(UTC))
        changed.append(replace(member, live=live, revision=member.revision + 1))
    view = _view(replace(row, result=result, answer=answer))
    told = [events.answer_item(view), *events.character_items(repo, ruleset, game, changed)]
    events.publish(repo, game.id, told)
    return Answered(view, tuple(c.to_json() for c in settled.paid))


def verify_record(session: Session, access: Access, game_id: str, record_id: int) -> Verified:
    """Replay a record from its seed (or forced faces), its ruleset version and the
    roller's sheet as it stood, and compare every field the record keeps. A sheet
    command is applied again to the party as it stood, at its number in its text, and
    its outcome and changes compared."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.VERIFY)
    row = _record(repo, game, record_id, lock=False)
    if row.kind == "fight":
        differences = compare_fight(row.result, _replay_fight(repo, row))
    elif row.kind == "sheet":
        differences = compare_sheet(row.result, _replay_sheet(repo, row))
    else:
        differences = compare_kept(row.result, _replay(repo, row))
    return Verified(not differences, tuple(differences))
