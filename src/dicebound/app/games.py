"""Games: made pinned to a ruleset version, listed, read, given a new token, deleted;
and what a game's party and Game Master read (the lesson, the odds, the report)."""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from dicebound.app.access import (
    Access,
    Player,
    Use,
    game_token,
    seat_in,
    token_game,
    token_hash,
    visible_game,
)
from dicebound.app.errors import Invalid, Unauthorized
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import compiled, load_member
from dicebound.app.rulesets import usable_ruleset
from dicebound.engine import ladder_in_force
from dicebound.errors import DiceboundError, UsageError
from dicebound.lesson import gm_lesson
from dicebound.odds import check_odds
from dicebound.problems import did_you_mean
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.store.repo import Game, Member, Repo
from dicebound.teach import offered_attributes
from dicebound.teach_sheet import has_sheet_commands
from dicebound.values import frozen
from dicebound.views import report_json, sheet_state

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = [
    "NO_ONES_TOKEN",
    "Brief",
    "GameView",
    "PartyMember",
    "SeatView",
    "create_game",
    "delete_game",
    "game_master_brief",
    "game_of_caller",
    "get_game",
    "gm_for_game",
    "list_games",
    "new_game_token",
    "odds_for_game",
    "party_member",
    "party_of_game",
    "report_for_game",
]


@frozen
class GameView:
    """A game as a caller reads it; ``characters`` only where one game is read."""

    id: str
    name: str
    ruleset: str
    version: int
    layers: list[str]
    characters: tuple[str, ...] | None = None
    seat: SeatView | None = None  # only where the games a token may see are listed


@frozen
class SeatView:
    """Whose token lists a game: the admin's, its game master's or a player's (with the
    character it holds), so a client shows what that seat may do."""

    kind: Literal["admin", "game-master", "player"]
    character: str | None = None


@frozen
class PartyMember:
    """A party member's live state as stored and as numbers (``views.sheet_state``)."""

    name: str
    revision: int
    live: Any
    state: dict[str, Any]
    records: dict[str, int]


@frozen
class Brief:
    """What a Game Master model reads before play: ``lesson`` holds every member's sheet
    summary; ``party`` names them; ``sheet_commands`` says whether the lesson teaches
    the ``[sheet:]`` tag."""

    game: str
    ruleset: str
    lesson: str
    party: tuple[str, ...]
    sheet_commands: bool = False
    fights: bool = False


def _view(
    game: Game, characters: tuple[str, ...] | None = None, seat: SeatView | None = None
) -> GameView:
    return GameView(
        game.id, game.name, game.ruleset_id, game.ruleset_version, game.layers, characters, seat
    )


def create_game(
    session: Session,
    access: Access,
    name: str,
    ruleset_id: str,
    version: int | None,
    layers: Sequence[str],
) -> dict[str, object]:
    """Make a game pinned to a ruleset version; its token is in the answer, once."""
    access.require_admin(Use.MAKE_GAME)
    if not name.strip():
        raise Invalid("a game needs a name.")
    if any(ch < " " or ch == "\x7f" for ch in name):
        raise Invalid("a game's name is one line of text, without control characters.")
    repo = Repo(session)
    ruleset = usable_ruleset(repo, ruleset_id, version)
    try:
        ladder_in_force(ruleset, layers)
    except UsageError as exc:
        raise Invalid(str(exc)) from exc
    token = game_token()
    game = Game(
        id=secrets.token_hex(8),
        name=name.strip(),
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        layers=list(dict.fromkeys(layers)),
        token_hash=token_hash(token),
    )
    repo.add_game(game, datetime.now(UTC))
    return {
        "id": game.id,
        "token": token,
        "ruleset": game.ruleset_id,
        "version": game.ruleset_version,
        "layers": game.layers,
    }


def list_games(session: Session, access: Access) -> list[GameView]:
    """The games a caller may see: every game for the admin, its own for a game's token
    or a player's. A token that is none of them is refused, so a mistyped token never
    reads as "no games"."""
    token = access.require_token()
    repo = Repo(session)
    hashed = token_hash(token)
    if access.admin:
        return [_view(g, seat=SeatView("admin")) for g in repo.games(None)]
    games = repo.games(hashed)
    if games:
        return [_view(g, seat=SeatView("game-master")) for g in games]
    seated = [(g, repo.seat_of(g.id, hashed)) for g in repo.games_of_seat(hashed)]
    if not seated:
        raise Unauthorized(
            "the token sent is neither the admin token, nor a game's token, nor a player's."
        )
    return [_view(g, seat=SeatView("player", who)) for g, who in seated]


def new_game_token(session: Session, access: Access, game_id: str) -> str:
    """A new game-master token for a game (asked with its own token or the admin's),
    shown once; the old one stops working as this commits, on every process, as each
    request reads the game's token hash from the store. Players' seats stay."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.NEW_TOKEN, lock=True)
    token = game_token()
    repo.set_game_token(game.id, token_hash(token))
    repo.announce(game.id, None)  # its streams read with the old token end
    return token


def delete_game(session: Session, access: Access, game_id: str) -> None:
    """Delete a game (admin) with everything it holds: its characters, their seats, its
    records and idempotency keys go with it (their foreign keys say ON DELETE CASCADE)."""
    access.require_admin(Use.DELETE_GAME)
    repo = Repo(session)
    game = visible_game(
        repo, access, game_id, Use.DELETE_GAME, lock=True
    )  # waits for a check in progress
    repo.delete_game(game.id)
    repo.announce(game.id, None)  # its event streams end


def party_of_game(session: Session, access: Access, game_id: str) -> list[PartyMember]:
    """Every character of a game with its live state as stored and as numbers (each
    pool and track with its value and range), and how many records are about them:
    checks they rolled, and sheet commands that named them or the whole party."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_PARTY)
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    counts = repo.record_counts(game.id)
    return [party_member(ruleset, game, row, counts) for row in repo.members(game.id)]


def party_member(
    ruleset: Ruleset, game: Game, row: Member, counts: Mapping[tuple[str, str], int]
) -> PartyMember:
    """One member as the party view reads them, from their stored texts and the game's
    record counts (``Repo.record_counts``; those about them and ``party`` suffice)."""
    character = load_member(ruleset, game, row)
    records = {
        "checks": counts.get((row.name, "check"), 0),
        "sheet": counts.get((row.name, "sheet"), 0) + counts.get(("party", "sheet"), 0),
    }
    return PartyMember(
        row.name, row.revision, json.loads(row.live), _state(ruleset, character), records
    )


_STATES: OrderedDict[int, tuple[Character, dict[str, Any]]] = OrderedDict()
_STATES_KEPT = 512


def _state(ruleset: Ruleset, character: Character) -> dict[str, Any]:
    """``sheet_state`` of a loaded character, once per loaded value (``load_member``
    hands out one value per stored state, and a value never changes): every event of a
    character changed, and every party view, reads the same state again. Never
    changed by its readers."""
    known = _STATES.get(id(character))
    if known is not None and known[0] is character:
        return known[1]
    state = sheet_state(ruleset, character)
    _STATES[id(character)] = (character, state)
    if len(_STATES) > _STATES_KEPT:
        _STATES.popitem(last=False)
    return state


NO_ONES_TOKEN = "the token sent is no game's token."
"""How a route that finds its game by the token answers a token no one holds (401)."""


def game_of_caller(session: Session, access: Access, game_id: str | None) -> str:
    """The game a caller acts in: the one it names (if it holds a seat there), else the
    one its game's or player's token belongs to. The admin token belongs to no game, so
    it must name one. What it may do there is each use's to say."""
    repo = Repo(session)
    if game_id is not None:
        return seat_in(repo, access, game_id).game.id
    token = access.require_token()
    if access.admin:
        raise Invalid("the admin token belongs to no game: name the game (?game=ID).")
    found = token_game(repo, token_hash(token))
    if found is None:
        raise Unauthorized(NO_ONES_TOKEN)
    return found


def get_game(session: Session, access: Access, game_id: str) -> GameView:
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_GAME)
    return _view(game, tuple(c.name for c in repo.members(game.id)))


# ── the Game Master's text and odds ──────────────────────────────────────────


def _party(repo: Repo, game: Game, ruleset: Ruleset) -> list[Character]:
    return [load_member(ruleset, game, row) for row in repo.members(game.id)]


def _who(party: Sequence[Character], who: str | None) -> Character:
    if not party:
        raise Invalid("this game has no characters yet: put one first.")
    if who is None:
        return party[0]
    for character in party:
        if character.name == who:
            return character
    names = [c.name for c in party]
    raise Invalid(f'"{who}" is not a character of this game.{did_you_mean(who, names)}')


def _played(session: Session, access: Access, game_id: str, use: Use) -> tuple[Repo, Game, Ruleset]:
    repo = Repo(session)
    game = visible_game(repo, access, game_id, use)
    return repo, game, compiled(repo, game.ruleset_id, game.ruleset_version)


def gm_for_game(
    session: Session, access: Access, game_id: str, character: str | None, skill: str | None
) -> str:
    """What ``dicebound gm`` prints for this game: with a character, their chances, the
    sheet commands and their sheet (``gm --character``); without one, the sheet
    commands and every party member's sheet (``gm`` with each as a ``--character``,
    without the chances)."""
    repo, game, ruleset = _played(session, access, game_id, Use.READ_LESSON)
    party = _party(repo, game, ruleset)
    who = _who(party, character) if character else None
    try:
        if who is not None:
            return gm_lesson(ruleset, layers=game.layers, character=who, skill=skill)
        return gm_lesson(ruleset, layers=game.layers, party=party)
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc


def game_master_brief(session: Session, access: Access, game_id: str) -> Brief:
    """What a Game Master model reads before play: the game and the lesson ``GET
    /games/{game}/gm`` gives (the ruleset's guidance, the tags' rules, the sheet
    commands for this party and every member's sheet summary)."""
    repo, game, ruleset = _played(session, access, game_id, Use.READ_LESSON)
    party = _party(repo, game, ruleset)
    try:
        lesson = gm_lesson(ruleset, layers=game.layers, party=party)
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    names = tuple(c.name for c in party)
    fights = ruleset.combat is not None
    return Brief(game.name, ruleset.name, lesson, names, has_sheet_commands(ruleset), fights)


def odds_for_game(
    session: Session,
    access: Access,
    game_id: str,
    tag: str,
    who: str | None,
    after: tuple[str, int] | None,
) -> dict[str, object]:
    """The exact chance of every outcome of one tag (``odds --json``), for ``who`` (the
    first of the party when absent; a player's own character, for a player's seat)."""
    repo = Repo(session)
    seated = seat_in(repo, access, game_id)
    if who is None and isinstance(seated.seat, Player):
        who = seated.seat.character
    game = seated.allow(Use.ASK_ODDS, who)
    LIMITS.check_short(tag, "tag")
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    character = _who(_party(repo, game, ruleset), who)
    try:
        odds = check_odds(ruleset, character, tag, layers=game.layers, after=after)
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    return odds.to_json()


def report_for_game(
    session: Session, access: Access, game_id: str, who: str | None
) -> dict[str, object]:
    """Every check of a character at every ladder step of the game, exactly."""
    repo, game, ruleset = _played(session, access, game_id, Use.READ_REPORT)
    character = _who(_party(repo, game, ruleset), who)
    try:
        report = build_report(ruleset, character, layers=game.layers)
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    return report_json(report, offered_attributes(ruleset))
