"""A game carried between stores: exported whole as a game file
(``dicebound.store.game_file``), imported into another store (SQLite or PostgreSQL,
either way), for the admin alone.

An import writes the game as the file holds it, then replays every record in the same
transaction (``records.verify_record``, as ``POST .../verify`` does) before the caller
commits: a record that does not replay refuses the whole import, naming the record by
its id in the file, and nothing is written. The file carries no token: the game's token
and each seated player's are made anew, and shown once, in the answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from dicebound.app.access import Access, Use, game_token, player_token, token_hash, visible_game
from dicebound.app.errors import Conflict, Invalid
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import compiled, load
from dicebound.app.records import verify_record
from dicebound.app.rulesets import digest_of
from dicebound.compiler import load_ruleset_text
from dicebound.engine import ladder_in_force
from dicebound.errors import DiceboundError, UsageError
from dicebound.store.game_file import GameFile
from dicebound.store.models import dumps
from dicebound.store.repo import Repo
from dicebound.store.transfer import read_game, ruleset_versions, write_game
from dicebound.values import frozen

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = ["Imported", "export_game", "import_game", "imported_json", "read_game_file"]

_PROBLEMS_SHOWN = 20
RELOAD_REASON = "this game was moved to another store: reload it, then read on from here."


@frozen
class Imported:
    """A game imported: its id, its new game-master token, each seated player's new
    token (by character), and each record's id in the file to its id here."""

    game: str
    token: str
    seats: dict[str, str]
    records: dict[int, int]


def export_game(session: Session, access: Access, game_id: str, now: datetime) -> GameFile:
    """The game whole, as a game file (admin). The caller's transaction must see one
    moment of the store (``store.transfer.snapshot``)."""
    access.require_admin(Use.EXPORT_GAME)
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.EXPORT_GAME)
    file = read_game(repo.connection, game.id, now)
    assert file is not None  # read in the same transaction as the game
    return file


def read_game_file(body: Any) -> GameFile:
    """A game file from its JSON (text, bytes, or the value parsed), checked against
    the file's schema; refused with every problem found (``Invalid``)."""
    if isinstance(body, str | bytes):
        try:
            body = json.loads(body)
        except ValueError as exc:
            raise Invalid(f"the game file is not JSON: {exc}.") from exc
    try:
        return GameFile.model_validate(body)
    except ValidationError as exc:
        errors = exc.errors()
        shown = [
            f"{'.'.join(str(p) for p in e['loc']) or '(the file)'}: {e['msg']}"
            for e in errors[:_PROBLEMS_SHOWN]
        ]
        more = f" (and {len(errors) - len(shown)} more)" if len(errors) > len(shown) else ""
        raise Invalid(
            f"the game file does not match its schema: {'; '.join(shown)}{more}."
        ) from exc


def import_game(session: Session, access: Access, file: GameFile, now: datetime) -> Imported:
    """Write a game file's game into this store (admin) and replay every record before
    the caller commits. Refused, with nothing written, when the store holds a game of
    that id already, when a ruleset version of the file is stored here with other
    content, or when a record does not replay."""
    access.require_admin(Use.IMPORT_GAME)
    repo = Repo(session)
    game_id = file.game.id
    if repo.game(game_id) is not None:
        raise Conflict(
            f'this store holds a game "{game_id}" already: delete it first, or import the '
            "file into another store."
        )
    _check_file(file)
    _keep_rulesets(repo, file)
    _check_party(repo, file)
    token = game_token()
    seats = {c.name: player_token() for c in file.characters if c.seat}
    hashes = {name: token_hash(t) for name, t in seats.items()}
    made = write_game(repo, file, token_hash(token), hashes, now, RELOAD_REASON)
    for old, new in made.items():
        _replays(session, access, game_id, old, new)
    return Imported(game_id, token, seats, made)


def _check_file(file: GameFile) -> None:
    """What the schema cannot say: names, ids and versions that must agree."""
    carried = {(r.id, r.version) for r in file.rulesets}
    wanted = {(file.game.ruleset, file.game.version)} | {
        (r.ruleset, r.version) for r in file.records
    }
    extra = sorted(carried - wanted)
    if extra:
        named = ", ".join(f"{rid} version {v}" for rid, v in extra)
        raise Invalid(f"the game file carries ruleset versions its game never played: {named}.")
    missing = sorted(wanted - carried)
    if missing:
        named = ", ".join(f"{rid} version {v}" for rid, v in missing)
        raise Invalid(f"the game file lacks the ruleset versions its game plays: {named}.")
    _unique("character", [c.name for c in file.characters])
    _unique("record id", [str(r.id) for r in file.records])
    _unique("record number", [str(r.number) for r in file.records])
    _unique("ruleset version", [f"{r.id} version {r.version}" for r in file.rulesets])
    if file.records and file.events_newest < 1:
        raise Invalid("the game file holds records but no event: its events_newest is 0.")
    if file.fight is not None:
        from dicebound.fight import load_state

        try:
            load_state(file.fight.state)
        except DiceboundError as exc:
            raise Invalid(f"the game file's fight cannot be played: {exc}") from exc


def _unique(what: str, values: list[str]) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise Invalid(f'the game file holds the {what} "{value}" twice.')
        seen.add(value)


def _keep_rulesets(repo: Repo, file: GameFile) -> None:
    """Store the file's ruleset versions this store lacks, each checked as an upload
    is; one stored here already must be the same file (its digest), or the records
    would replay against another."""
    stored = repo.stored_versions()
    for version in ruleset_versions(file):
        named = f"{version.id} version {version.version}"
        if (version.id, version.version) in stored:
            if repo.ruleset_digest(version.id, version.version) != version.digest:
                raise Conflict(
                    f"this store holds {named} with other content than the game file's: "
                    "the game's records would not replay here."
                )
            continue
        LIMITS.check_ruleset(version.content)
        try:
            ruleset = load_ruleset_text(version.content)
            digest = digest_of(json.loads(version.content))
        except (DiceboundError, ValueError) as exc:
            raise Invalid(f"the game file's ruleset {named} does not load: {exc}") from exc
        if (ruleset.id, ruleset.version) != (version.id, version.version):
            raise Invalid(f"the game file's ruleset {named} holds another id or version.")
        if digest != version.digest:
            raise Invalid(f"the game file's ruleset {named} does not match its digest.")
        repo.keep_rulesets([version])


def _check_party(repo: Repo, file: GameFile) -> None:
    """The game's layers and every member load against its ruleset, as when put."""
    entry = file.game
    ruleset = compiled(repo, entry.ruleset, entry.version)
    try:
        ladder_in_force(ruleset, entry.layers)
    except UsageError as exc:
        raise Invalid(f"the game file's layers do not play: {exc}") from exc
    for member in file.characters:
        try:
            load(
                ruleset,
                (entry.ruleset, entry.version),
                member.name,
                dumps(member.sheet),
                dumps(member.live),
            )
        except (DiceboundError, ValueError, TypeError, KeyError) as exc:
            raise Invalid(f"the game file's character {member.name} does not load: {exc}") from exc


def _replays(session: Session, access: Access, game_id: str, old: int, new: int) -> None:
    """Refuse the import unless the record written replays exactly."""
    try:
        verified = verify_record(session, access, game_id, new)
    except Exception as exc:  # a record the file made up: any failure refuses it
        raise Invalid(
            f"record {old} of the game file cannot be replayed ({exc!r}); nothing was imported."
        ) from exc
    if not verified.verified:
        fields = ", ".join(d.field for d in verified.differences)
        raise Invalid(
            f"record {old} of the game file does not replay: {fields} differ; nothing was imported."
        )


def imported_json(imported: Imported) -> Mapping[str, Any]:
    """What an import answers: the new tokens (shown this once) and the records."""
    return {
        "game": imported.game,
        "token": imported.token,
        "seats": imported.seats,
        "records": len(imported.records),
        "renumbered": {str(old): new for old, new in imported.records.items()},
    }
