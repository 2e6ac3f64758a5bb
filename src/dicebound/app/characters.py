"""Character files in a game, and their live state: put whole, read, and changed a
little (a patch) only by a caller who saw the current revision."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from dicebound.app import events
from dicebound.app.access import Access, Use, seat_in, storable, visible_game
from dicebound.app.errors import Invalid, NotFound, RevisionRequired, Stale
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import character_file, compiled
from dicebound.character import live_to_json, load_character
from dicebound.errors import CharacterInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.problem_codes import BAD_NAME, NAME_MISMATCH
from dicebound.problems import Problem, did_you_mean
from dicebound.quoting import neutralised, unprintable_in
from dicebound.store.models import dumps
from dicebound.store.repo import Game, Member, Repo
from dicebound.values import frozen

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = [
    "CharacterRead",
    "CharacterStored",
    "LiveChanged",
    "get_character",
    "member_of",
    "patch_live",
    "put_character",
]


@frozen
class CharacterStored:
    """A character file put: its name and revision, and whether it is new."""

    name: str
    revision: int
    made: bool


@frozen
class CharacterRead:
    """A character as stored: the sheet, the live state and its revision."""

    name: str
    sheet: Any
    live: Any
    revision: int


@frozen
class LiveChanged:
    """A character's live state after a patch, and its new revision."""

    revision: int
    live: Any


def _parse_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        value, twice = read_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Invalid(f"the {what} is not UTF-8 text (byte {exc.start}).") from exc
    except Unreadable as exc:
        raise Invalid(f"the {what} {exc}") from exc
    if twice:
        raise Invalid(f"the {what} writes a key twice.", twice)
    if not isinstance(value, dict):
        raise Invalid(f"the {what} must be a JSON object.")
    return value


def _addressable(name: str) -> None:
    """Refuse a character name its own URL could not reach: a path segment ``.`` or
    ``..`` is dropped by clients and proxies, and a ``/`` splits the segment; and one
    that holds a character a table cannot see (a control, format or bidirectional
    character), which reads as another name and which no route would find."""
    if name in (".", "..") or "/" in name:
        raise Invalid(
            f"a character's name is part of its address (/games/GAME/characters/NAME), so it "
            f'may not be "." or ".." nor hold "/"; "{name}" is refused.',
            [Problem(("name",), BAD_NAME, f'"{name}" cannot be part of a URL path.')],
        )
    unseen = unprintable_in(name)
    if unseen is not None:
        shown = f'"{neutralised(name)}"'  # escaped, so the character refused can be seen
        raise Invalid(
            f"a character's name is what the table reads and part of its address, so it may "
            "hold no control, format or bidirectional character, nor any space but the "
            f"plain one; {shown} holds {unseen}.",
            [Problem(("name",), BAD_NAME, f"{shown} holds {unseen}.")],
        )


def put_character(
    session: Session, access: Access, game_id: str, name: str, raw: bytes
) -> CharacterStored:
    """Put a character file into a game. The file's ``name``, when written, must be
    the name in the path."""
    LIMITS.check_character(len(raw))
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.PUT_CHARACTER, lock=True)
    _addressable(name)
    body = _parse_object(raw, "character file")
    written = body.get("name", name)
    if written != name:
        raise Invalid(
            f'the file names "{written}" but the path names "{name}": they must agree.',
            [Problem(("name",), NAME_MISMATCH, f'is "{written}", not "{name}".')],
        )
    body["name"] = name
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    try:
        character = load_character(ruleset, body)
    except CharacterInvalid as exc:
        raise Invalid(
            f"the character was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    sheet = dumps(body.get("sheet"))
    live = dumps(live_to_json(character.live))
    row = repo.member(game.id, name, lock=True)
    now = datetime.now(UTC)
    revision = 1 if row is None else row.revision + 1
    if row is None:
        repo.add_member(game.id, name, sheet, live, now)
    else:
        repo.put_member(game.id, name, sheet, live, revision, now)
    stored = Member(name, sheet, live, revision)
    events.publish(repo, game.id, events.character_items(repo, ruleset, game, [stored]))
    return CharacterStored(name, revision, row is None)


def member_of(repo: Repo, game: Game, name: str, *, lock: bool) -> Member:
    """A character of the game, by name; refused with the names it may have meant."""
    row = repo.member(game.id, name, lock=lock) if storable(name) else None
    if row is None:
        names = [c.name for c in repo.members(game.id)]
        raise NotFound(f'"{name}" is not a character of this game.{did_you_mean(name, names)}')
    return row


def get_character(session: Session, access: Access, game_id: str, name: str) -> CharacterRead:
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_CHARACTER)
    row = member_of(repo, game, name, lock=False)
    return CharacterRead(row.name, json.loads(row.sheet), json.loads(row.live), row.revision)


_LIVE_KEYS = ("pools", "tracks", "wounds", "text", "conditions", "states")


def _merge_live(current: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A live-state patch over the stored live state: a pool's number sets its value
    (its temporary points stay), an object replaces it; a track's number, a wound
    track's marks, a text, a state replace theirs; ``conditions`` replaces the list."""
    unknown = [k for k in patch if k not in _LIVE_KEYS]
    if unknown:
        raise Invalid(
            f'"{unknown[0]}" is not part of a live state (it holds {", ".join(_LIVE_KEYS)}).'
        )
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in current.items()}
    for key, value in patch.items():
        if key == "conditions":
            merged[key] = value
            continue
        if not isinstance(value, dict):
            raise Invalid(f'"{key}" must be an object of ids.')
        section = merged.setdefault(key, {})
        for item, new in value.items():
            if key == "pools" and isinstance(new, int) and not isinstance(new, bool):
                old = section.get(item)
                kept = dict(old) if isinstance(old, dict) else {}
                kept["value"] = new
                section[item] = kept
            else:
                section[item] = new
    return merged


def patch_live(
    session: Session,
    access: Access,
    game_id: str,
    name: str,
    seen: str | None,
    patch: Mapping[str, Any],
) -> LiveChanged:
    """Change a character's live state, if the caller saw its current revision
    (``seen``, as the caller wrote it; None: it said none). A patch of ``text`` alone
    edits the character's notes, which its player may do; any other is the game
    master's."""
    repo = Repo(session)
    use = Use.EDIT_NOTES if set(patch) <= {"text"} else Use.CHANGE_LIVE
    game = seat_in(repo, access, game_id, lock=True).allow(use, name)
    row = member_of(repo, game, name, lock=True)
    if seen is None:
        raise RevisionRequired(
            f"send If-Match with the revision you read ({row.revision}), so a change made "
            "meanwhile is not overwritten."
        )
    if seen != str(row.revision):
        raise Stale(f"{name} is at revision {row.revision}, not {seen}: read it again and retry.")
    merged = _merge_live(json.loads(row.live), patch)
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    try:
        character = load_character(ruleset, character_file(name, row.sheet, merged))
    except CharacterInvalid as exc:
        raise Invalid(
            f"the live state was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    live = live_to_json(character.live)
    stored = Member(name, row.sheet, dumps(live), row.revision + 1)
    repo.set_live(game.id, name, stored.live, stored.revision, datetime.now(UTC))
    events.publish(repo, game.id, events.character_items(repo, ruleset, game, [stored]))
    return LiveChanged(stored.revision, live)
