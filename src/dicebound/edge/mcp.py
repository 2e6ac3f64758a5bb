"""dicebound as a Model Context Protocol tool server, so a model acting as Game Master
calls the Engine itself instead of inventing dice.

One set of tools, resources and one prompt, built on the official SDK's ``MCPServer``,
served two ways: over stdio by ``dicebound mcp --game ID`` (a desktop client starts it;
whoever can open the store may act in any game, and ``--game`` says which), and over
streamable HTTP at ``/mcp`` on the service (the game is the one the bearer token
belongs to, its game master's or a player's; the admin token names one with
``?game=ID``). Every tool calls the same ``dicebound.app`` function as the HTTP route,
in one transaction, so a record made here reads exactly as one made by ``POST
/checks``, and a player's token may call a tool only as far as the rights table of
``app/access.py`` lets it use that route. Its inputs are the HTTP API's own
fields (``edge.schemas``), and every failure is a tool error with dicebound's sentence
(the application's refusals, and the store's faults, mapped here alone).
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer, UserMessage
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import Resource, TextResource
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ToolAnnotations
from pydantic import BaseModel, Field, StrictInt
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session
from starlette.routing import BaseRoute

from dicebound.app import characters, checks, games, records, rulesets
from dicebound.app.access import Access
from dicebound.app.errors import Refusal
from dicebound.app.limits import LIMITS
from dicebound.app.seeds import seed_text
from dicebound.app.version import dicebound_version
from dicebound.compiler import load_ruleset_text
from dicebound.edge.schemas import (
    AfterIn,
    AfterOut,
    CharacterOut,
    CheckIn,
    CheckOut,
    GmOut,
    OddsIn,
    OddsOut,
    RecordPage,
    RollIn,
    RollOut,
    Seed,
    SpendIn,
    after_json,
    plain,
)
from dicebound.errors import DiceboundError
from dicebound.packaged import data_text, packaged_rulesets
from dicebound.store import Store
from dicebound.store.db import fault_of, reason_of
from dicebound.values import frozen

__all__ = ["Seat", "build_server", "http_routes", "run_stdio", "seat_of_http_request"]

log = logging.getLogger("dicebound.mcp")

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

NEVER_INVENT = (
    "Never write dice, rolls, modifiers, totals or results yourself: the Engine throws "
    "every die and applies the sheet."
)


@frozen
class Seat:
    """Where a tool call acts: the store, who is calling, and the game it named (None:
    the game the caller's token belongs to)."""

    store: Store
    access: Access
    game: str | None


SeatOf = Callable[[Context], Seat]


def seat_of_http_request(state: Any) -> SeatOf:
    """How ``/mcp`` finds a call's seat: the service's store and admin hash (``state``,
    the app's state, read at call time: ``state.admin_hash()`` is the hash the store
    keeps now, within a few seconds), the bearer token of the HTTP request that carried
    the call, and its ``?game=`` when the admin token names a game. Tools run in worker
    threads, so reading the store here does not block the event loop."""

    def seat(ctx: Context) -> Seat:
        request = ctx.request_context.request
        headers = getattr(request, "headers", None) or {}
        query = getattr(request, "query_params", None) or {}
        scheme, _, token = str(headers.get("authorization", "")).partition(" ")
        bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
        game = query.get("game") or None
        admin_hash = state.admin_hash() if bearer is not None else None
        return Seat(state.store, Access.of(bearer, admin_hash), game)

    return seat


def http_routes(server: MCPServer) -> list[BaseRoute]:
    """The ``/mcp`` route, stateless streamable HTTP answering in JSON: any service
    process answers any call, as the store is the only state. Its session manager must
    run in the service's lifespan (``server.session_manager.run()``). The bearer token
    guards every tool, so the SDK's Host-header check for local servers is not needed
    and would refuse a service reached by its public name."""
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return list(app.routes)


def _field(model: type[BaseModel], name: str, description: str | None = None) -> Any:
    """The HTTP API's field ``name`` of ``model`` (constraints and description), as a
    tool parameter: the default is the tool function's own."""
    info: FieldInfo = copy.copy(model.model_fields[name])
    info.default = PydanticUndefined
    if description is not None:
        info.description = description
    return info


def _sentence(exc: BaseException) -> str:
    if isinstance(exc, Refusal):
        lines = [exc.detail]
        lines += [f"- {p}" for p in exc.problems]
        return "\n".join(lines)
    return str(exc)


def _nothing_resolved(answer: dict[str, Any]) -> str:
    errors: list[dict[str, str]] = answer["errors"]
    if not errors:
        return (
            "the text holds no check tag, so nothing was thrown: write one "
            '[skill_check: skill="..." dc="..."] tag where each check happens.'
        )
    reasons = "\n".join(f"- {e['tag']}: {e['error']}" for e in errors)
    return f"no check could be resolved, so nothing was thrown or paid:\n{reasons}"


class _Refused(ToolError):
    """A call refused with dicebound's sentence; ``code`` is the protocol error's code a
    prompt answers it with: the caller's to mend (``INVALID_PARAMS``), or the store's
    fault (``INTERNAL_ERROR``)."""

    def __init__(self, sentence: str, code: int = INVALID_PARAMS) -> None:
        super().__init__(sentence)
        self.code = code


_STORE_CANNOT = {  # the store cannot do the call now: the log's words, the sentence
    "lost": (
        "connection lost",
        "the store stopped answering during this call; try again (resolve_checks with "
        "the same idempotency_key never throws or pays twice).",
    ),
    "busy": (
        "busy or unreachable",
        "the store is busy or unreachable; nothing was changed. Try again.",
    ),
    "full": (
        "disk full",
        "the store's disk is full, so nothing was written; try again once space is freed.",
    ),
}


def _store_refusal(exc: StatementError) -> _Refused:
    """What the store's own refusal means to the caller, logged in one line (never the
    statement, its parameters or a traceback), as the HTTP API maps it."""
    fault, reason = fault_of(exc), reason_of(exc)
    if fault == "refused":
        log.warning("store refused a value: %s", reason)
        return _Refused(
            "the call holds a value the store cannot keep (such as a NUL character); "
            "nothing was changed."
        )
    logged, sentence = _STORE_CANNOT[fault]
    log.error("store %s: %s", logged, reason)
    return _Refused(sentence, INTERNAL_ERROR)


def _act(seat: Seat, *, write: bool, act: Callable[[Session, str], _T]) -> _T:
    """Run ``act(session, game)`` in one transaction of the seat's store: it commits
    whole or not at all, and any refusal is a tool error with dicebound's sentence."""
    try:
        with seat.store.write() if write else seat.store.read() as session:
            game = games.game_of_caller(session, seat.access, seat.game)
            return act(session, game)
    except DiceboundError as exc:  # a refusal, or the core's own error
        raise _Refused(_sentence(exc)) from exc
    except StatementError as exc:
        raise _store_refusal(exc) from exc


def _ruleset_resources() -> list[Resource]:
    made: list[Resource] = []
    for ruleset_id in packaged_rulesets():
        text = data_text(f"rulesets/{ruleset_id}.json")
        ruleset = load_ruleset_text(text)
        made.append(
            TextResource(
                uri=f"dicebound://rulesets/{ruleset_id}",
                name=ruleset_id,
                title=ruleset.name,
                description=(
                    f"The packaged ruleset file {ruleset_id} (version {ruleset.version}, "
                    f"kind {ruleset.resolution.kind})."
                ),
                mime_type="application/json",
                text=text,
            )
        )
    return made


def _brief_text(brief: games.Brief) -> str:
    nobody = "" if brief.party else "\n\nThe party:\n(no characters yet)"
    sheet = (
        " and one [sheet: ...] tag where a sheet changes (resolve_checks resolves both in "
        "the order they are written)"
        if brief.sheet_commands
        else ""
    )
    return (
        f'You are the Game Master of "{brief.game}", played with {brief.ruleset}. '
        "dicebound is the Engine: it throws every die.\n\n"
        f"{brief.lesson}{nobody}\n\n"
        "How to play with the tools:\n"
        f"- Write your narration with one [skill_check: ...] tag where each check happens{sheet}, "
        "then call resolve_checks with the whole text. Narrate from the text and outcomes "
        "it returns: they replace your tags.\n"
        "- When a record carries an offer (a raise after the roll) or a choice is open, "
        "ask the player, then call settle_after_roll with their answer. A raise may leave "
        "a choice open (a Botch raised to a Sacrifice): ask again and settle it the same "
        "way. Never decide it for them.\n"
        "- Call check_odds to pick a fair difficulty, character to read a sheet and its "
        "pools, list_records to recall what was thrown.\n"
        f"- {NEVER_INVENT}"
    )


def build_server(seat_of: SeatOf, *, name: str = "dicebound") -> MCPServer:
    """The tools, resources and prompt, each call acting at ``seat_of(ctx)``."""
    server: MCPServer = MCPServer(
        name=name,
        title="dicebound",
        version=dicebound_version(),
        instructions=(
            "dicebound resolves tabletop role-playing checks from the game's ruleset. "
            "Read the game_master prompt (or call gm_instructions) first; write checks as "
            "[skill_check: ...] tags and changes to a sheet as [sheet: ...] tags, and resolve "
            "them with resolve_checks. " + NEVER_INVENT
        ),
        log_level="WARNING",
        resources=_ruleset_resources(),
    )
    tool = _Tools(server)
    _lesson_tools(tool, seat_of)
    _check_tools(tool, seat_of)
    _party_tools(tool, seat_of)
    _record_tools(tool, seat_of)
    _prompts(server, seat_of)
    return server


class _Tools:
    """Registers a tool with its docstring, dedented, as what the model reads; one that
    only reads (``reads``) or one that writes (``writes``)."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.reads = self._annotated(ToolAnnotations(read_only_hint=True, open_world_hint=False))
        self.writes = self._annotated(
            ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
        )

    def _annotated(self, annotations: ToolAnnotations) -> Callable[[_F], _F]:
        def register(fn: _F) -> _F:
            description = inspect.cleandoc(fn.__doc__ or "").replace("\n", " ")
            self.server.add_tool(
                fn, description=description, annotations=annotations, structured_output=True
            )
            return fn

        return register


def _lesson_tools(tool: _Tools, seat_of: SeatOf) -> None:
    """What the Game Master is taught: ``gm_instructions``."""

    @tool.reads
    def gm_instructions(
        ctx: Context,
        character: Annotated[
            str | None,
            Field(
                max_length=100,
                description="A party member: each ladder step then shows their chance.",
            ),
        ] = None,
        skill: Annotated[
            str | None,
            Field(max_length=100, description="The check those chances are for."),
        ] = None,
    ) -> GmOut:
        """What the Game Master is taught for this game: how to write a check tag, the
        difficulty ladder, the outcome bands and what each means, the attributes a tag
        may carry, and how to write a [sheet: ...] command (each op this game has, with
        an example) with what each party member's sheet holds (without a character,
        every member's; with one, theirs). Call it once before play and put it in your
        instructions. It is what `dicebound gm` prints. Never write dice, results or a
        command's outcome yourself: the tags it teaches are resolved by resolve_checks."""
        out = _act(
            seat_of(ctx),
            write=False,
            act=lambda s, g: games.gm_for_game(s, seat_of(ctx).access, g, character, skill),
        )
        return GmOut(text=out)


def _check_tools(tool: _Tools, seat_of: SeatOf) -> None:
    """Throwing: ``resolve_checks``, ``check_odds`` and ``roll_dice``."""

    @tool.writes
    def resolve_checks(
        ctx: Context,
        text: Annotated[
            str,
            _field(
                CheckIn,
                "text",
                "Your narration with one [skill_check: skill=... dc=... who=...] tag per "
                "check and one [sheet: op=... who=...] tag per change to a sheet, exactly as "
                "you would show it. At most "
                f"{LIMITS.text_bytes // 1024} KB and {LIMITS.tags_per_text} tags.",
            ),
        ],
        seed: Annotated[Seed | None, _field(CheckIn, "seed")] = None,
        faces: Annotated[
            list[StrictInt] | None,
            _field(CheckIn, "faces", "Forced faces, in throw order: for tests only."),
        ] = None,
        choose: Annotated[
            Literal["fail", "succeed"] | None,
            _field(CheckIn, "choose", "The player's choice of a Sacrifice, if made already."),
        ] = None,
        idempotency_key: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=200,
                description="Send the same key when you retry a call that timed out: the "
                "first answer comes back, nothing is thrown or paid twice.",
            ),
        ] = None,
    ) -> CheckOut:
        """Resolve every [skill_check: ...] and [sheet: ...] tag in your narration, in the
        order they are written, each on the sheets the tags before it left: the Engine
        throws the dice, applies the sheet, pays any spend or charm from the character's
        pools, writes a record of each check, applies or refuses each sheet command, and
        returns the text with each tag replaced by its outcome, one result per check
        (with its record id and the points paid) and the tags it could not resolve, each
        with the reason (rewrite those and call again). A refused sheet command comes
        back with result="refused" and its reason: it did not happen.
        When no tag could be resolved the call is an error naming each reason, and
        nothing is thrown or paid. Call it whenever your narration calls for a check,
        then narrate the outcome it names. Never write dice, rolls, modifiers, totals or
        results yourself: the Engine throws every die and applies the sheet."""
        seat = seat_of(ctx)
        if seed is not None and faces is not None:
            raise ToolError("give a seed or faces, not both.")

        def act(session: Session, game: str) -> dict[str, Any]:
            answer = checks.run_checks(
                session,
                seat.access,
                game,
                text=text,
                seed=seed_text(seed),
                faces=faces,
                choose=choose,
                idempotency_key=idempotency_key,
            )
            if not answer["results"] and not answer.get("sheet"):  # nothing happened: say why
                raise ToolError(_nothing_resolved(answer))
            return answer

        return CheckOut.model_validate(_act(seat, write=True, act=act))

    @tool.reads
    def check_odds(
        ctx: Context,
        tag: Annotated[
            str,
            _field(
                OddsIn,
                "tag",
                'One check tag, as you would write it: [skill_check: skill="Stealth" dc="15"].',
            ),
        ],
        who: Annotated[
            str | None,
            _field(
                OddsIn,
                "who",
                "The character; if absent, the first of the party (a player's own character, "
                "with a player's token).",
            ),
        ] = None,
        after: Annotated[
            SpendIn | None,
            _field(OddsIn, "after", "A raise after the roll to price: {pool, points}."),
        ] = None,
    ) -> OddsOut:
        """The exact chance of every outcome band of one check, before you call for it:
        use it to pick a fair difficulty. It throws nothing and changes nothing; never
        narrate a chance as if it were the roll."""
        seat = seat_of(ctx)
        paid = (after.pool, after.points) if after is not None else None
        out = _act(
            seat,
            write=False,
            act=lambda s, g: games.odds_for_game(s, seat.access, g, tag, who, paid),
        )
        return OddsOut.model_validate(out)

    @tool.writes
    def roll_dice(
        ctx: Context,
        dice: Annotated[
            str,
            _field(RollIn, "dice", 'The dice by name: "2 ability 1 proficiency vs 2 difficulty".'),
        ],
        seed: Annotated[Seed | None, _field(RollIn, "seed")] = None,
    ) -> RollOut:
        """Throw narrative symbol dice by name with this game's ruleset, when a scene
        needs a bare roll rather than a check (a symbol-pool ruleset only). Records
        nothing and pays nothing; for a check, write a tag and call resolve_checks.
        Never invent the symbols yourself."""
        seat = seat_of(ctx)

        def act(session: Session, game: str) -> dict[str, Any]:
            found = games.get_game(session, seat.access, game)
            return rulesets.roll_dice(session, found.ruleset, found.version, dice, seed)

        return RollOut.model_validate(_act(seat, write=False, act=act))


def _party_tools(tool: _Tools, seat_of: SeatOf) -> None:
    """The party's sheets: ``character``."""

    @tool.reads
    def character(
        ctx: Context,
        name: Annotated[
            str, Field(min_length=1, max_length=100, description="The character's full name.")
        ],
    ) -> CharacterOut:
        """A party member's sheet, live state (pools, tracks, conditions) and revision.
        Read it before you describe what a character has left; the Engine pays from
        these pools, so never change them in your narration without a check or a
        [sheet: ...] command."""
        seat = seat_of(ctx)
        out = _act(
            seat, write=False, act=lambda s, g: characters.get_character(s, seat.access, g, name)
        )
        return CharacterOut.model_validate(plain(out))


def _record_tools(tool: _Tools, seat_of: SeatOf) -> None:
    """What was thrown, and the player's answer: ``settle_after_roll`` and
    ``list_records``."""

    @tool.writes
    def settle_after_roll(
        ctx: Context,
        record: Annotated[
            StrictInt,
            Field(ge=1, le=2**62, description="The record id resolve_checks returned."),
        ],
        pool: Annotated[
            str | None, _field(AfterIn, "pool", "The pool the player spends to raise a die.")
        ] = None,
        points: Annotated[
            StrictInt | None,
            _field(AfterIn, "points", "How many points of it the player spends."),
        ] = None,
        choose: Annotated[
            Literal["fail", "succeed"] | None,
            _field(AfterIn, "choose", "The player's choice of a Sacrifice."),
        ] = None,
    ) -> AfterOut:
        """Call it when the player answers after the roll: a raise (pool and points) that
        the record's offer says could still help, the choice of a Sacrifice, or both at
        once. A raise that turns a Botch into a Sacrifice leaves the choice open: ask the
        player, then call it again with the choice alone. The player decides, once the
        dice are seen; never answer for them. A raise and a choice are each accepted once;
        a raise that buys nothing, or a choice where none is open, is refused and pays
        nothing."""
        seat = seat_of(ctx)
        out = _act(
            seat,
            write=True,
            act=lambda s, g: records.answer_after(
                s, seat.access, g, record, pool=pool, points=points, choose=choose
            ),
        )
        return AfterOut.model_validate(after_json(out))

    @tool.reads
    def list_records(
        ctx: Context,
        before: Annotated[
            StrictInt | None,
            Field(ge=1, le=2**62, description="The `next` of the previous page."),
        ] = None,
        limit: Annotated[
            StrictInt, Field(ge=1, le=LIMITS.records_per_page, description="Records per page.")
        ] = 20,
    ) -> RecordPage:
        """The game's records, newest first: what was thrown, by whom, the outcome and
        what was paid. Use it to recall earlier checks; never retell a roll differently
        from its record."""
        seat = seat_of(ctx)
        out = _act(
            seat,
            write=False,
            act=lambda s, g: records.list_records(s, seat.access, g, before, limit),
        )
        return RecordPage.model_validate(plain(out))


def _prompts(server: MCPServer, seat_of: SeatOf) -> None:
    """The ``game_master`` prompt: the instructions a Game Master model starts from."""

    @server.prompt(title="Game Master")
    def game_master(ctx: Context, game: str | None = None) -> list[UserMessage]:
        """Your instructions as this game's Game Master: the ruleset's guidance, the
        tag's rules and every party member's sheet summary."""
        seat = seat_of(ctx)
        chosen = Seat(seat.store, seat.access, game or seat.game)
        try:
            brief = _act(
                chosen,
                write=False,
                act=lambda s, g: games.game_master_brief(s, chosen.access, g),
            )
        except _Refused as exc:  # a protocol error with the sentence, not a crash
            raise MCPError(exc.code, str(exc)) from exc
        return [UserMessage(_brief_text(brief))]


def run_stdio(store: Store, game: str) -> None:
    """Serve the tools over standard input and output for one game, as the machine's
    own user, until the client closes the stream."""
    seat = Seat(store, Access.local(), game)
    build_server(lambda ctx: seat).run("stdio")
