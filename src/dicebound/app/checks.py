"""Resolving a text's check tags against a game's party: thrown, paid and recorded in
one transaction, and answered again, unchanged, to a retry with the same key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from dicebound.app.access import Access, storable, visible_game
from dicebound.app.errors import Invalid
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import compiled, load_member
from dicebound.app.rulesets import digest_of
from dicebound.character import live_to_json
from dicebound.dice import fresh_seed
from dicebound.engine import PlayerChoices, resolve_text
from dicebound.errors import DiceboundError
from dicebound.store.models import dumps
from dicebound.store.repo import Repo
from dicebound.tags.parse import parse_tags

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

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
    game = visible_game(repo, access, game_id, lock=True)  # one check of a game at a time
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
    for before, after in zip(party, report.party, strict=True):
        if after is not before:
            live = dumps(live_to_json(after.live))
            repo.set_live(game.id, after.name, live, by_name[after.name].revision + 1, now)
    results: list[dict[str, object]] = []
    for result in report.results:
        row_json = result.to_json()
        roller = result.roller
        assert roller is not None  # resolve_text fills it for every result
        record_id = repo.add_record(
            game,
            created=now,
            who=result.who,
            ask=result.ask,
            result=row_json,
            seed=result.record.get("seed"),
            faces=result.faces,
            choose=choose,
            layers=game.layers,
            sheet=snapshot_text(roller.name, by_name[roller.name].sheet, live_to_json(roller.live)),
        )
        results.append({**row_json, "id": record_id})
    answer: dict[str, Any] = {
        "text": report.text,
        "results": results,
        "errors": [e.to_json() for e in report.errors],
    }
    if idempotency_key is not None:
        assert digest is not None
        repo.keep(game.id, idempotency_key, digest, answer, now)
        repo.sweep(cutoff, LIMITS.expired_keys_per_write)  # so the table stays bounded
    return answer
