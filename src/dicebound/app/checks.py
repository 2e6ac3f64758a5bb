"""Resolving a text's tags against a game's party: its checks thrown and paid, its
``[sheet:]`` commands applied or refused, every one recorded in text order, in one
transaction, and answered again, unchanged, to a retry with the same key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

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
from dicebound.replay import sheet_kept, sheet_touches
from dicebound.sheet import Character
from dicebound.store.models import RecordKind, dumps
from dicebound.store.repo import Game, Member, RecordHead, Repo
from dicebound.tags.parse import parse_tags

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.sheet_commands.model import SheetOutcome

__all__ = ["run_checks", "snapshot_text"]


def _check_limits(text: str) -> None:
    """Refuse a text past its limits. Text that is not Unicode (a lone surrogate) raises
    ``UnicodeEncodeError`` here, before anything is thrown or written."""
    LIMITS.check_text(len(text.encode("utf-8")))
    LIMITS.check_tags(len(parse_tags(text)))


def snapshot_text(name: str, sheet: str, live: object) -> str:
    """``dumps(character_file(name, sheet, live))`` without reading the sheet back: the
    stored sheet is already this JSON, written by ``dumps``."""
    if sheet == "null":
        return dumps({"name": name, "live": live})
    return f'{{"name":{dumps(name)},"sheet":{sheet},"live":{dumps(live)}}}'


def _sheet_party(
    outcome: SheetOutcome, number: int, then: Sequence[Character], by_name: dict[str, Member]
) -> list[str]:
    """The party as a sheet command found it, as its record keeps it: each card it could
    touch whole (sheet and live state), every other by its name alone."""
    touched = set(sheet_touches(outcome, number, [c.name for c in then]))
    return [
        snapshot_text(c.name, by_name[c.name].sheet, live_to_json(c.live))
        if i in touched
        else dumps({"name": c.name})
        for i, c in enumerate(then)
    ]


class _Written:
    """What a text's records answer: its ``results`` and ``sheet``, and the event of
    each record, in text order."""

    def __init__(self, game: Game, now: datetime) -> None:
        self.game = game
        self.now = now
        self.results: list[dict[str, object]] = []
        self.sheet: list[dict[str, object]] = []
        self.told: list[events.Item] = []

    def tell(self, record_id: int, kind: RecordKind, ask: str, result: Any, seed: Any) -> None:
        """The record just written, as ``GET .../records/{id}`` will read it."""
        game = self.game
        head = RecordHead(
            record_id,
            kind,
            self.now,
            ask,
            result,
            seed,
            game.ruleset_id,
            game.ruleset_version,
            None,
        )
        self.told.append(events.record_item(record_view(head)))


def _record_steps(
    repo: Repo,
    game: Game,
    report: CheckReport,
    text: str,
    by_name: dict[str, Member],
    choose: str | None,
    now: datetime,
) -> _Written:
    """Write a record of every check thrown and every sheet command, in text order (so
    ids grow in text order); the answer's ``results`` and ``sheet``, and their events.
    A check tag that did not resolve writes none."""
    written = _Written(game, now)
    results, sheet = written.results, written.sheet
    for step in report.steps:
        if isinstance(step, CheckFailure):
            continue
        if isinstance(step, CheckResult):
            row_json = step.to_json()
            roller = step.roller
            assert roller is not None  # resolve_text fills it for every result
            record_id = repo.add_record(
                game,
                created=now,
                who=step.who,
                ask=step.ask,
                result=row_json,
                seed=step.record.get("seed"),
                faces=step.faces,
                choose=choose,
                layers=game.layers,
                sheet=snapshot_text(
                    roller.name, by_name[roller.name].sheet, live_to_json(roller.live)
                ),
            )
            results.append({**row_json, "id": record_id})
            written.tell(record_id, "check", step.ask, row_json, step.record.get("seed"))
            continue
        number = len(sheet) + 1
        start, end = step.span
        kept = sheet_kept(step)
        record_id = repo.add_sheet_record(
            game,
            created=now,
            who=step.who,
            ask=text[start:end],
            result=kept,
            number=number,
            party=_sheet_party(step, number, report.sheet_party[number - 1], by_name),
        )
        sheet.append({"id": record_id, **step.to_json()})
        written.tell(record_id, "sheet", text[start:end], kept, None)
    return written


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
    rows = repo.members(game.id, lock=True)
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
    changed: list[Member] = []
    for before, after in zip(party, report.party, strict=True):
        if after is not before and (after.live != before.live or after.name in moved):
            row = by_name[after.name]
            changed.append(
                Member(row.name, row.sheet, dumps(live_to_json(after.live)), row.revision + 1)
            )
            repo.set_live(game.id, row.name, changed[-1].live, changed[-1].revision, now)
    written = _record_steps(repo, game, report, text, by_name, choose, now)
    # the records in text order, then each character the text changed, as it is now
    told = [*written.told, *events.character_items(repo, ruleset, game, changed)]
    events.publish(repo, game.id, told)
    answer: dict[str, Any] = {
        "text": report.text,
        "results": written.results,
        "errors": [e.to_json() for e in report.errors],
        "sheet": written.sheet,
    }
    if idempotency_key is not None:
        assert digest is not None
        repo.keep(game.id, idempotency_key, digest, answer, now)
        repo.sweep(cutoff, LIMITS.expired_keys_per_write)  # so the table stays bounded
    return answer
