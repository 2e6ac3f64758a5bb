"""A game's fight on the service: reading it (the state, its summary, whose turn it is
and what they may choose), and one step sent as a body rather than written in a text.

A step sent here is the ``[fight:]`` tag its body spells, played by the very path a
text's tags take (``app.checks.play_text``): the same locks, the same transaction, the
same record and events. The seats decide who may send it: ``start``, ``flee`` and
``end`` are the game master's; a player's seat may ``act``, ``pass`` and ``end-turn``
only as its own character, and only on that character's turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dicebound.app.access import (
    PLAYER_MAY,
    Access,
    Player,
    Use,
    permit,
    seat_in,
    visible_game,
)
from dicebound.app.checks import Admit, answer_once, play_text
from dicebound.app.errors import Conflict, Forbidden, Invalid, NotFound
from dicebound.app.loaded import compiled, load_member
from dicebound.errors import DiceboundError
from dicebound.fight.state import Fight, find_combatant, load_state
from dicebound.fight.view import current_actor, fight_view, options_of
from dicebound.sheet import Character
from dicebound.store.repo import Game, Repo

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.ruleset.model import Ruleset

__all__ = ["FIGHT_OPS", "act_in_fight", "fight_options", "read_fight"]

FIGHT_OPS = ("start", "act", "pass", "end-turn", "flee", "end")
"""The ops a step sent as a body may name."""

_MASTERS_OPS = ("start", "flee", "end")


def _loaded(repo: Repo, game: Game) -> tuple[Ruleset, list[Character], Fight | None, int]:
    """The game's ruleset, party and fight (read whole) and the fight's revision."""
    ruleset = compiled(repo, game.ruleset_id, game.ruleset_version)
    party = [load_member(ruleset, game, row) for row in repo.members(game.id)]
    stored = repo.fight(game.id)
    if stored is None:
        return ruleset, party, None, 0
    try:
        return ruleset, party, load_state(stored[0]), stored[1]
    except DiceboundError as exc:
        raise Conflict(f"the game's fight cannot be read: {exc}") from exc


def _menu(
    ruleset: Ruleset, fight: Fight, party: Sequence[Character], who: dict[str, Any]
) -> dict[str, Any]:
    try:
        return {"who": who["name"], "options": options_of(ruleset, fight, party, who)}
    except DiceboundError as exc:  # a member the party no longer holds
        raise Conflict(f"the game's fight cannot be read: {exc}") from exc


def read_fight(session: Session, access: Access, game_id: str) -> dict[str, Any]:
    """The game's fight (``fight.view.fight_view``: its state, its summary, the current
    actor with its options, the open window with the menu of the one it asks) and its
    revision. All
    null (revision 0) before the game's first fight."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_FIGHT)
    ruleset, party, fight, revision = _loaded(repo, game)
    try:
        view = fight_view(ruleset, fight, party)
    except DiceboundError as exc:
        raise Conflict(f"the game's fight cannot be read: {exc}") from exc
    return {"fight": view["fight"], "revision": revision, **view}


def fight_options(session: Session, access: Access, game_id: str, who: str) -> dict[str, Any]:
    """A combatant's menu now (empty off its turn), each option with its forecast and odds."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.READ_FIGHT)
    ruleset, party, fight, _ = _loaded(repo, game)
    if fight is None:
        raise NotFound("this game has no fight: start one first.")
    found = find_combatant(fight, who)
    if found is None:
        names = ", ".join(c["name"] for c in fight["combatants"])
        raise NotFound(f'no combatant of the fight answers to "{who}"; it holds {names}.')
    return _menu(ruleset, fight, party, found)


def _tag(body: Mapping[str, Any]) -> str:
    """The ``[fight:]`` tag a step's body spells; a value that a tag cannot hold is
    refused."""
    op = body["op"]
    if op not in FIGHT_OPS:
        raise Invalid(f'"op" is one of {", ".join(FIGHT_OPS)}; "{op}" is none of them.')
    if op == "act" and not body.get("option"):
        raise Invalid('an "act" names its "option".')
    if op == "start" and not body.get("enemies"):
        raise Invalid('a "start" names its "enemies".')
    parts = [f'op="{op}"']
    targets = body.get("targets")
    fields = {
        "party": body.get("party"),
        "enemies": body.get("enemies"),
        "who": body.get("who"),
        "option": body.get("option"),
        "target": None if targets is None else ", ".join(targets),
        "pay": body.get("pay"),
        "mode": body.get("mode"),
        "style": body.get("style"),
        "window": body.get("window"),
    }
    for key, value in fields.items():
        if value is None:
            continue
        if '"' in value or "]" in value or "[" in value:
            raise Invalid(f'"{key}" may not hold a quote or a bracket: a fight tag cannot.')
        parts.append(f'{key}="{value}"')
    return "[fight: " + " ".join(parts) + "]"


def _player_admit(seat: Player, who: str | None) -> Admit:
    """The check a player's step passes on the stored fight: it acts as its own
    character, on that character's turn or when the open window asks it."""

    def admit(fight: Fight | None, party: Sequence[Character]) -> None:
        actor = None
        current = None if fight is None else current_actor(fight)
        window = None if fight is None else fight.get("window")
        if fight is not None and window is not None:  # the one the window asks answers
            current = find_combatant(fight, str(window["waiting"][0]))
        if fight is not None and who is not None:
            actor = find_combatant(fight, who)
        elif current is not None:
            actor = current
        if actor is None:  # no fight going on, or no such combatant: only its own name
            permit(seat, Use.ACT_IN_FIGHT, seat.character if who is None else who)
            return
        permit(seat, Use.ACT_IN_FIGHT, actor.get("character", actor["name"]))
        if current is not None and current["id"] != actor["id"]:
            whose = (
                f"while window {window['id']} asks {current['name']}"
                if window
                else (f"on {current['name']}'s turn")
            )
            raise Forbidden(
                f"{PLAYER_MAY}; this asks to act in the fight for {actor['name']} {whose}."
            )

    return admit


def act_in_fight(
    session: Session,
    access: Access,
    game_id: str,
    body: Mapping[str, Any],
    *,
    seed: str | None,
    faces: Sequence[int] | None,
    idempotency_key: str | None,
) -> dict[str, Any]:
    """One step of the game's fight, sent as a body: played as the tag it spells, in
    the caller's transaction, recorded and told as a text's step is. A refused step is
    answered ``ok: false`` and recorded. The answer: the step with its record's id and
    number, the fight after it and its summary."""
    repo = Repo(session)
    seated = seat_in(repo, access, game_id, lock=True)  # one step of a game at a time
    op = body["op"]
    admit = None
    if op in _MASTERS_OPS or not isinstance(seated.seat, Player):
        seated.allow(Use.RUN_FIGHT)
    else:
        admit = _player_admit(seated.seat, body.get("who"))
    game = seated.game
    text = _tag(body)

    def play() -> dict[str, Any]:
        answer = play_text(repo, game, text, seed=seed, faces=faces, choose=None, admit=admit)
        fight = answer["fight"]
        (step,) = fight["steps"]
        return {**step, "state": fight["state"], "summary": fight["summary"]}

    asked = {"fight": dict(body), "seed": seed, "faces": faces}
    return answer_once(repo, game, idempotency_key, asked, play, dict)
