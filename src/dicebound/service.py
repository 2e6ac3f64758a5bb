"""What the service does, once per request, in one transaction: no HTTP, no MCP here.

Every function takes an open ``Session`` (one transaction, opened by the caller through
``Store.write()`` or ``Store.read()``) and the caller's ``Access``, reads and locks what
it needs, calls the pure core with values, and writes the outcome back. A failure
anywhere raises a ``ServiceError`` before the caller commits, so nothing is half
written: no pool paid without its record, no record without its payment.

Choices where the service's contract is silent are in ``docs/service.md``; the layers,
transactions and locks in ``docs/design/store-and-service.md``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from importlib import metadata
from typing import Any, Literal, TypeVar, cast

from sqlalchemy import (
    CursorResult,
    Executable,
    Table,
    bindparam,
    delete,
    insert,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from dicebound.character import live_to_json, load_character
from dicebound.dice import fresh_seed
from dicebound.edge.files import packaged_rulesets, ruleset_text
from dicebound.engine import (
    CheckResult,
    PlayerChoices,
    Settlement,
    ladder_in_force,
    resolve_text,
    settle_after,
)
from dicebound.errors import (
    CharacterInvalid,
    DiceboundError,
    RulesetInvalid,
    UsageError,
)
from dicebound.jsontext import Unreadable, read_json
from dicebound.lesson import gm_lesson
from dicebound.odds import check_odds
from dicebound.problems import Problem, did_you_mean
from dicebound.report import build_report
from dicebound.ruleset.compile import load_ruleset_text, run_to_end
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Change, Character
from dicebound.store.models import (
    CharacterRow,
    GameRow,
    IdempotencyRow,
    MetaRow,
    RecordRow,
    RulesetRow,
)
from dicebound.tags.parse import parse_tags
from dicebound.teach import gm_text, sheet_summary
from dicebound.throw import roll_json
from dicebound.values import frozen
from dicebound.views import (
    card_json,
    offer_json,
    paid_lines,
    problems_with_lines,
    report_json,
    sheet_state,
)

__all__ = [
    "ADMIN_TOKEN_LEAST",
    "LIMITS",
    "NO_TOKEN",
    "PROBLEMS_SHOWN",
    "SEED_RULE",
    "Access",
    "ServiceError",
    "admin_token_hash",
    "answer_after",
    "check_admin_token",
    "compiled_ruleset",
    "create_game",
    "delete_game",
    "ensure_admin_token",
    "game_master_brief",
    "game_of_caller",
    "get_character",
    "get_game",
    "get_record",
    "get_ruleset",
    "gm_for_game",
    "list_games",
    "list_records",
    "list_rulesets",
    "new_game_token",
    "odds_for_game",
    "party_of_game",
    "patch_live",
    "put_character",
    "put_ruleset",
    "record_card",
    "report_for_game",
    "roll_dice",
    "run_checks",
    "seed_text",
    "sync_packaged_rulesets",
    "try_ruleset",
    "verify_record",
]


@frozen
class Limits:
    """The sizes the service's contract fixes (docs/service.md "Limits"); each refused with
    413 and a sentence."""

    ruleset_bytes: int = 256 * 1024
    character_bytes: int = 64 * 1024
    text_bytes: int = 32 * 1024
    tags_per_text: int = 20
    records_per_page: int = 100
    idempotency_hours: int = 24
    expired_keys_per_write: int = 100


LIMITS = Limits()


class ServiceError(DiceboundError):
    """A request refused: ``status`` is the HTTP status it maps to, ``title`` a short
    name, the message one sentence; ``problems`` for a file refused at import."""

    def __init__(
        self,
        status: int,
        title: str,
        detail: str,
        problems: Sequence[Problem] = (),
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail
        self.problems = tuple(problems)


NO_TOKEN = "this needs the game's token or the admin token."
"""Why a game's route refuses a request that sent no token (401)."""


def _not_found(detail: str) -> ServiceError:
    return ServiceError(404, "Not found", detail)


def _invalid(detail: str, problems: Sequence[Problem] = ()) -> ServiceError:
    return ServiceError(422, "Unprocessable request", detail, problems)


def _too_large(detail: str) -> ServiceError:
    return ServiceError(413, "Too large", detail)


@frozen
class Access:
    """Who is calling: the bearer token as sent (or None) and whether it is the admin's."""

    token: str | None
    admin: bool

    @staticmethod
    def of(token: str | None, admin_hash: str | None) -> Access:
        """Read a bearer token against the admin token's hash, in constant time."""
        if token is None:
            return Access(None, False)
        is_admin = admin_hash is not None and hmac.compare_digest(token_hash(token), admin_hash)
        return Access(token, is_admin)

    @staticmethod
    def local() -> Access:
        """The machine's own user (``dicebound mcp`` over stdio): whoever can open the
        store itself may already do everything in it."""
        return Access("", True)

    def require_admin(self, action: str) -> None:
        """Refuse anyone but the admin; ``action`` completes "only the admin token may"."""
        if self.token is None:
            raise ServiceError(
                401, "Unauthorized", f"only the admin token may {action}, and no token was sent."
            )
        if not self.admin:
            raise ServiceError(
                403, "Forbidden", f"only the admin token may {action}; the token sent is not it."
            )


def token_hash(token: str) -> str:
    """How a token is kept: SHA-256 (tokens are 256 random bits, so no slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8", errors="replace")).hexdigest()


def _now(before: timedelta = timedelta(0)) -> str:
    """The time (less ``before``) as the store keeps times: fixed-width ISO 8601 in UTC,
    so comparing the texts compares the times."""
    when = datetime.now(UTC) - before
    return when.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _dumps(value: object) -> str:
    """JSON as the store keeps it: ASCII only, so any text a client sent (a NUL, a lone
    surrogate) is kept as an escape that every database accepts."""
    return json.dumps(value, separators=(",", ":"))


def _storable(name: str, most: int = 100) -> bool:
    """Whether a name from a path could be stored at all (else nothing has it)."""
    return 0 < len(name) <= most and name.isprintable()


def _digest(value: object) -> str:
    canon = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def dicebound_version() -> str:
    try:
        return metadata.version("dicebound")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare tree
        return "0+unknown"


# ── the admin token ──────────────────────────────────────────────────────────


ADMIN_TOKEN_LEAST = 32
_ADMIN_KEY = "admin_token_hash"


def check_admin_token(token: str | None) -> None:
    """Refuse an admin token that could be guessed or cannot be sent, before anything
    is opened or written. None (or empty) is no token: the stored one is used, or one
    is made.

    Raises:
        UsageError: shorter than ``ADMIN_TOKEN_LEAST``, or not one word of printable ASCII.
    """
    if not token:
        return
    if len(token) < ADMIN_TOKEN_LEAST:
        count = f"{len(token)} character{'' if len(token) == 1 else 's'}"
        raise UsageError(
            f"DICEBOUND_ADMIN_TOKEN is {count} long, and an admin token needs at least "
            f"{ADMIN_TOKEN_LEAST} so that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'."
        )
    if not re.fullmatch(r"[\x21-\x7e]+", token):
        raise UsageError(
            "DICEBOUND_ADMIN_TOKEN must be printable ASCII without spaces, as it is sent "
            "in an Authorization header."
        )


def _insert(session: Session, table: Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that can say ON CONFLICT, in the store's own dialect."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def admin_token_hash(session: Session) -> str | None:
    """The admin token's hash as the store keeps it now (None before the first start)."""
    found: str | None = _run(session, _ADMIN_HASH, {}).scalar()
    return found


def ensure_admin_token(session: Session, from_env: str | None) -> tuple[str, str | None]:
    """The admin token's hash, and the token itself when this call made it.

    ``DICEBOUND_ADMIN_TOKEN`` (``from_env``) wins and its hash is stored; without it the
    first start makes a token, stores only its hash, and returns it once to be printed.
    Processes starting together on one store may all call this at once: each write
    says ON CONFLICT, so none fails, and only the process whose token was kept prints it.
    """
    check_admin_token(from_env)
    stored = admin_token_hash(session)
    if from_env:
        wanted = token_hash(from_env)
        if stored != wanted:
            upsert = _insert(session, _META).values(key=_ADMIN_KEY, value=wanted)
            upsert = upsert.on_conflict_do_update(index_elements=["key"], set_={"value": wanted})
            _run(session, upsert, {})
        return wanted, None
    if stored is not None:
        return stored, None
    made = "dba_" + secrets.token_urlsafe(32)
    keep = _insert(session, _META).values(key=_ADMIN_KEY, value=token_hash(made))
    _run(session, keep.on_conflict_do_nothing(index_elements=["key"]), {})
    kept = admin_token_hash(session)
    assert kept is not None
    return kept, made if kept == token_hash(made) else None


# ── rulesets ─────────────────────────────────────────────────────────────────


_K = TypeVar("_K")
_V = TypeVar("_V")


class _Compiled:
    """Compiled rulesets and loaded characters, kept per process. Safe to share
    between processes' views of one store: a ruleset version never changes, and a
    character is keyed by the very text it was loaded from."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.rulesets: OrderedDict[tuple[str, int], Ruleset] = OrderedDict()
        self.characters: OrderedDict[tuple[str, int, str, str, str], Character] = OrderedDict()

    def remember(self, table: OrderedDict[_K, _V], key: _K, value: _V) -> _V:
        table[key] = value
        if len(table) > self.size:
            table.popitem(last=False)
        return value


_CACHE = _Compiled(size=2048)


def _digest_text(text: str) -> str:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _digest(raw)


def _stored_ruleset(
    ruleset: Ruleset, text: str, digest: str, *, packaged: bool
) -> dict[str, object]:
    """The row that keeps one version of a ruleset, as its file was given."""
    return {
        "id": ruleset.id,
        "version": ruleset.version,
        "name": ruleset.name,
        "kind": ruleset.resolution.kind,
        "packaged": packaged,
        "digest": digest,
        "content": text,
        "created": _now(),
    }


def _keep_rulesets(session: Session) -> postgresql.Insert | sqlite.Insert:
    """An insert of ruleset versions that skips any the store holds already: another
    process may be storing the same one at this moment, and it is waited for, never a
    unique-key failure."""
    return _insert(session, _RULESETS).on_conflict_do_nothing(index_elements=["id", "version"])


def sync_packaged_rulesets(session: Session) -> None:
    """Store every packaged ruleset's version that the store does not hold yet, so a
    game pinned to it keeps it even after dicebound ships a newer file. Processes that
    start together may all do it at once: a version already stored is skipped."""
    stored = {(r.id, r.version) for r in session.execute(select(RulesetRow.id, RulesetRow.version))}
    missing = []
    for ruleset_id in packaged_rulesets():
        text, _ = ruleset_text(ruleset_id)
        ruleset = load_ruleset_text(text)
        if (ruleset.id, ruleset.version) not in stored:
            missing.append(_stored_ruleset(ruleset, text, _digest_text(text), packaged=True))
    if missing:
        _run(session, _keep_rulesets(session), missing)


def list_rulesets(session: Session) -> list[dict[str, object]]:
    rows = session.execute(
        select(RulesetRow.id, RulesetRow.version, RulesetRow.name, RulesetRow.kind)
        .add_columns(RulesetRow.packaged)
        .order_by(RulesetRow.id, RulesetRow.version)
    )
    return [
        {"id": r.id, "version": r.version, "name": r.name, "kind": r.kind, "packaged": r.packaged}
        for r in rows
    ]


def _ruleset_row(session: Session, ruleset_id: str, version: int | None) -> RulesetRow:
    query = select(RulesetRow).where(RulesetRow.id == ruleset_id)
    if version is not None:
        query = query.where(RulesetRow.version == version)
    row = (
        session.scalars(query.order_by(RulesetRow.version.desc()).limit(1)).first()
        if _storable(ruleset_id)
        else None
    )
    if row is None:
        known = list(session.scalars(select(RulesetRow.id).distinct()))
        if version is not None and ruleset_id in known:
            raise _not_found(f'the ruleset "{ruleset_id}" has no version {version}.')
        raise _not_found(f'no ruleset "{ruleset_id}" is stored.{did_you_mean(ruleset_id, known)}')
    return row


def get_ruleset(session: Session, ruleset_id: str, version: int | None) -> str:
    """The file of a ruleset's newest version, or of ``version``."""
    return _ruleset_row(session, ruleset_id, version).content


def compiled(session: Session, ruleset_id: str, version: int) -> Ruleset:
    """A stored ruleset version, compiled once per process."""
    key = (ruleset_id, version)
    hit = _CACHE.rulesets.get(key)
    if hit is not None:
        return hit
    row = _ruleset_row(session, ruleset_id, version)
    return _CACHE.remember(_CACHE.rulesets, key, load_ruleset_text(row.content))


def compiled_ruleset(session: Session, ruleset_id: str, version: int | None) -> Ruleset:
    """A ruleset's newest version, or ``version``, compiled (404 as ``get_ruleset``)."""
    row = _ruleset_row(session, ruleset_id, version)
    return compiled(session, row.id, row.version)


def put_ruleset(session: Session, access: Access, text: str) -> tuple[dict[str, object], bool]:
    """Store an uploaded ruleset; (answer, made). The same id, version and content
    again is no change; other content under a stored id and version is refused."""
    access.require_admin("upload a ruleset")
    size = len(text.encode("utf-8", errors="replace"))
    if size > LIMITS.ruleset_bytes:
        raise _too_large(
            f"the ruleset is {size:,} bytes; a ruleset may be at most "
            f"{LIMITS.ruleset_bytes:,} bytes (256 KB)."
        )
    try:
        ruleset = load_ruleset_text(text)
    except RulesetInvalid as exc:
        raise _invalid(
            f"the ruleset was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    digest = _digest_text(text)
    answer: dict[str, object] = {"id": ruleset.id, "version": ruleset.version}
    # Insert first, then read what is stored: an upload racing this one for the same
    # version (through another process) is waited for, then compared like any other.
    row = _stored_ruleset(ruleset, text, digest, packaged=False)
    if _run(session, _keep_rulesets(session).returning(_RULESETS.c.version), row).first():
        return answer, True
    stored = _run(session, _RULESET_DIGEST, {"id": ruleset.id, "version": ruleset.version})
    if stored.scalar_one() == digest:
        return answer, False
    raise ServiceError(
        409,
        "Conflict",
        f'version {ruleset.version} of "{ruleset.id}" is already stored with other '
        "content, and a stored version never changes: raise the file's version.",
    )


PROBLEMS_SHOWN = 200
"""How many of a file's problems a check lists (the first, in document order); the
answer counts the rest in ``omitted``."""


def try_ruleset(
    text: str, layers: Sequence[str] = (), *, checkpoint: Callable[[], None] = run_to_end
) -> dict[str, object]:
    """Check a ruleset file without storing it: ``validate --json`` with each problem's
    line and column (the first ``PROBLEMS_SHOWN``, and how many more in ``omitted``),
    and, when it is valid, what ``gm`` would teach from it. ``checkpoint`` is called
    between the steps of the work and raises to abandon it (``compile_ruleset``)."""
    size = len(text.encode("utf-8", errors="replace"))
    if size > LIMITS.ruleset_bytes:
        raise _too_large(
            f"the ruleset is {size:,} bytes; a ruleset may be at most "
            f"{LIMITS.ruleset_bytes:,} bytes (256 KB)."
        )
    try:
        ruleset = load_ruleset_text(text, checkpoint=checkpoint)
    except RulesetInvalid as exc:
        checkpoint()
        shown = exc.problems[:PROBLEMS_SHOWN]
        return {
            "ok": False,
            "problems": problems_with_lines(text, shown),
            "omitted": len(exc.problems) - len(shown),
            "notes": [],
            "id": None,
            "version": None,
            "name": None,
            "gm": None,
        }
    checkpoint()
    try:
        lesson: str | None = gm_lesson(ruleset, layers=layers)
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    return {
        "ok": True,
        "problems": [],
        "omitted": 0,
        "notes": [f"{b}: accepted and kept, not played by dicebound" for b in ruleset.not_played],
        "id": ruleset.id,
        "version": ruleset.version,
        "name": ruleset.name,
        "gm": lesson,
    }


# ── games ────────────────────────────────────────────────────────────────────


def _game_token() -> str:
    return "dbg_" + secrets.token_urlsafe(32)


def create_game(
    session: Session,
    access: Access,
    name: str,
    ruleset_id: str,
    version: int | None,
    layers: Sequence[str],
) -> dict[str, object]:
    """Make a game pinned to a ruleset version; its token is in the answer, once."""
    access.require_admin("make a game")
    if not name.strip():
        raise _invalid("a game needs a name.")
    if any(ch < " " or ch == "\x7f" for ch in name):
        raise _invalid("a game's name is one line of text, without control characters.")
    try:
        row = _ruleset_row(session, ruleset_id, version)
    except ServiceError as exc:
        raise _invalid(exc.detail) from exc
    ruleset = compiled(session, row.id, row.version)
    try:
        ladder_in_force(ruleset, layers)
    except UsageError as exc:
        raise _invalid(str(exc)) from exc
    token = _game_token()
    game = GameRow(
        id=secrets.token_hex(8),
        name=name.strip(),
        ruleset_id=row.id,
        ruleset_version=row.version,
        layers=_dumps(list(dict.fromkeys(layers))),
        token_hash=token_hash(token),
        created=_now(),
    )
    session.add(game)
    return {
        "id": game.id,
        "token": token,
        "ruleset": game.ruleset_id,
        "version": game.ruleset_version,
        "layers": json.loads(game.layers),
    }


# The statements every request runs, as Core built once: the ORM's unit of work and a
# statement built per call cost more than the query itself (SQLAlchemy caches the SQL).
_META = cast(Table, MetaRow.__table__)
_RULESETS = cast(Table, RulesetRow.__table__)
_GAMES = cast(Table, GameRow.__table__)
_CHARACTERS = cast(Table, CharacterRow.__table__)
_RECORDS = cast(Table, RecordRow.__table__)
_IDEMPOTENCY = cast(Table, IdempotencyRow.__table__)
_GAME = select(
    _GAMES.c.id,
    _GAMES.c.name,
    _GAMES.c.ruleset_id,
    _GAMES.c.ruleset_version,
    _GAMES.c.layers,
    _GAMES.c.token_hash,
).where(_GAMES.c.id == bindparam("game"))
_GAME_LOCKED = _GAME.with_for_update()
_MEMBERS = (
    select(_CHARACTERS.c.name, _CHARACTERS.c.sheet, _CHARACTERS.c.live, _CHARACTERS.c.revision)
    .where(_CHARACTERS.c.game_id == bindparam("game"))
    .order_by(_CHARACTERS.c.position, _CHARACTERS.c.name)
)
_MEMBERS_LOCKED = _MEMBERS.with_for_update()
_PAY = (
    update(_CHARACTERS)
    .where(_CHARACTERS.c.game_id == bindparam("game"), _CHARACTERS.c.name == bindparam("who"))
    .values(live=bindparam("live"), revision=bindparam("revision"), updated=bindparam("now"))
)
_NEW_RECORD = insert(_RECORDS)
_THIS_KEY = (_IDEMPOTENCY.c.game_id == bindparam("game"), _IDEMPOTENCY.c.key == bindparam("key"))
_SEEN_KEY = select(_IDEMPOTENCY.c.digest, _IDEMPOTENCY.c.answer, _IDEMPOTENCY.c.created).where(
    *_THIS_KEY
)
_FORGET_KEY = delete(_IDEMPOTENCY).where(*_THIS_KEY)
_NEW_KEY = insert(_IDEMPOTENCY)
# The oldest expired keys, at most a bound per write, that no other transaction is
# deleting right now (PostgreSQL skips rows locked by another sweep, so two never wait
# on each other; SQLite writes one transaction at a time and ignores the clause).
_EXPIRED_KEYS = (
    select(_IDEMPOTENCY.c.game_id, _IDEMPOTENCY.c.key)
    .where(_IDEMPOTENCY.c.created < bindparam("cutoff"))
    .order_by(_IDEMPOTENCY.c.created)
    .limit(LIMITS.expired_keys_per_write)
    .with_for_update(skip_locked=True)
)
_SWEEP_KEYS = delete(_IDEMPOTENCY).where(
    tuple_(_IDEMPOTENCY.c.game_id, _IDEMPOTENCY.c.key).in_(_EXPIRED_KEYS)
)
_NEW_TOKEN = (
    update(_GAMES).where(_GAMES.c.id == bindparam("game")).values(token_hash=bindparam("hash"))
)
_DELETE_GAME = delete(_GAMES).where(_GAMES.c.id == bindparam("game"))
_ADMIN_HASH = select(_META.c.value).where(_META.c.key == _ADMIN_KEY)
_RULESET_DIGEST = select(_RULESETS.c.digest).where(
    _RULESETS.c.id == bindparam("id"), _RULESETS.c.version == bindparam("version")
)


def _run(
    session: Session, statement: Executable, params: dict[str, Any] | list[dict[str, Any]]
) -> CursorResult[Any]:
    """A Core statement in the session's transaction, after the rows the session still
    holds unwritten (a Core statement does not flush them, as an ORM query would)."""
    session.flush()
    return session.connection().execute(statement, params)


@frozen
class Game:
    """A game as read for one request: plain values, nothing for the ORM to track."""

    id: str
    name: str
    ruleset_id: str
    ruleset_version: int
    layers: str
    token_hash: str


@frozen
class Member:
    """A party member as read for one request: the stored texts and their revision."""

    name: str
    sheet: str
    live: str
    revision: int


def _game(session: Session, access: Access, game_id: str, *, lock: bool = False) -> Game:
    """The game, if the caller may see it: the admin, or this game's own token.

    Any other token is answered exactly as a game that does not exist.
    """
    if access.token is None:
        raise ServiceError(401, "Unauthorized", NO_TOKEN)
    row = (
        _run(session, _GAME_LOCKED if lock else _GAME, {"game": game_id}).first()
        if _storable(game_id, 40)
        else None
    )
    game = Game(**row._mapping) if row is not None else None
    allowed = game is not None and (
        access.admin or hmac.compare_digest(token_hash(access.token), game.token_hash)
    )
    if game is None or not allowed:
        raise _not_found(f'no game "{game_id}" is here.')
    return game


def _characters(session: Session, game: Game, *, lock: bool = False) -> list[Member]:
    rows = _run(session, _MEMBERS_LOCKED if lock else _MEMBERS, {"game": game.id})
    return [Member(**row._mapping) for row in rows]


def list_games(session: Session, access: Access) -> list[dict[str, object]]:
    """The games a caller may see: every game for the admin, its own for a game token.
    A token that is neither is refused, so a mistyped token never reads as "no games"."""
    if access.token is None:
        raise ServiceError(401, "Unauthorized", NO_TOKEN)
    query = select(GameRow).order_by(GameRow.created, GameRow.id)
    if not access.admin:
        query = query.where(GameRow.token_hash == token_hash(access.token))
    games = [
        {
            "id": g.id,
            "name": g.name,
            "ruleset": g.ruleset_id,
            "version": g.ruleset_version,
            "layers": json.loads(g.layers),
        }
        for g in session.scalars(query)
    ]
    if not games and not access.admin:
        raise ServiceError(
            401, "Unauthorized", "the token sent is neither the admin token nor a game's token."
        )
    return games


def new_game_token(session: Session, access: Access, game_id: str) -> dict[str, object]:
    """A new token for a game (asked with its own token or the admin's), shown once;
    the old one stops working as this commits, on every process, as each request
    reads the game's token hash from the store."""
    game = _game(session, access, game_id, lock=True)
    token = _game_token()
    _run(session, _NEW_TOKEN, {"game": game.id, "hash": token_hash(token)})
    return {"token": token}


def delete_game(session: Session, access: Access, game_id: str) -> None:
    """Delete a game (admin) with everything it holds: its characters, records and
    idempotency keys go with it (their foreign keys say ON DELETE CASCADE)."""
    access.require_admin("delete a game")
    game = _game(session, access, game_id, lock=True)  # waits for a check in progress
    _run(session, _DELETE_GAME, {"game": game.id})


def party_of_game(session: Session, access: Access, game_id: str) -> dict[str, object]:
    """Every character of a game with its live state as stored and as numbers: each
    pool and track with its value and range."""
    game = _game(session, access, game_id)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    members = []
    for row in _characters(session, game):
        character = _load_row(ruleset, game, row)
        members.append(
            {
                "name": row.name,
                "revision": row.revision,
                "live": json.loads(row.live),
                "state": sheet_state(ruleset, character),
            }
        )
    return {"characters": members}


def game_of_caller(session: Session, access: Access, game_id: str | None) -> str:
    """The game a caller acts in: the one it names (if it may see it), else the one its
    game token belongs to. The admin token belongs to no game, so it must name one."""
    if game_id is not None:
        return _game(session, access, game_id).id
    if access.token is None:
        raise ServiceError(401, "Unauthorized", NO_TOKEN)
    if access.admin:
        raise _invalid("the admin token belongs to no game: name the game (?game=ID).")
    found = session.scalars(
        select(GameRow.id).where(GameRow.token_hash == token_hash(access.token))
    ).first()
    if found is None:
        raise ServiceError(401, "Unauthorized", "the token sent is no game's token.")
    return found


def get_game(session: Session, access: Access, game_id: str) -> dict[str, object]:
    game = _game(session, access, game_id)
    return {
        "id": game.id,
        "name": game.name,
        "ruleset": game.ruleset_id,
        "version": game.ruleset_version,
        "layers": json.loads(game.layers),
        "characters": [c.name for c in _characters(session, game)],
    }


# ── characters ───────────────────────────────────────────────────────────────


def _character_file(name: str, sheet_text: str, live: object) -> dict[str, object]:
    body: dict[str, object] = {"name": name}
    sheet = json.loads(sheet_text)
    if sheet is not None:
        body["sheet"] = sheet
    body["live"] = live
    return body


def _load(ruleset: Ruleset, key: tuple[str, int], name: str, sheet: str, live: str) -> Character:
    """A stored character as the core reads it, loaded once per process per text."""
    cache_key = (*key, name, sheet, live)
    hit = _CACHE.characters.get(cache_key)
    if hit is not None:
        return hit
    character = load_character(ruleset, _character_file(name, sheet, json.loads(live)))
    return _CACHE.remember(_CACHE.characters, cache_key, character)


def _load_row(ruleset: Ruleset, game: Game, row: Member | CharacterRow) -> Character:
    return _load(ruleset, (game.ruleset_id, game.ruleset_version), row.name, row.sheet, row.live)


def _parse_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        value, twice = read_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _invalid(f"the {what} is not UTF-8 text (byte {exc.start}).") from exc
    except Unreadable as exc:
        raise _invalid(f"the {what} {exc}") from exc
    if twice:
        raise _invalid(f"the {what} writes a key twice.", twice)
    if not isinstance(value, dict):
        raise _invalid(f"the {what} must be a JSON object.")
    return value


def put_character(
    session: Session, access: Access, game_id: str, name: str, raw: bytes
) -> tuple[dict[str, object], bool]:
    """Put a character file into a game; (answer, made). The file's ``name``, when
    written, must be the name in the path."""
    if len(raw) > LIMITS.character_bytes:
        raise _too_large(
            f"the character file is {len(raw):,} bytes; a character may be at most "
            f"{LIMITS.character_bytes:,} bytes (64 KB)."
        )
    game = _game(session, access, game_id, lock=True)
    _addressable(name)
    body = _parse_object(raw, "character file")
    written = body.get("name", name)
    if written != name:
        raise _invalid(
            f'the file names "{written}" but the path names "{name}": they must agree.',
            [Problem(("name",), "name-mismatch", f'is "{written}", not "{name}".')],
        )
    body["name"] = name
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    try:
        character = load_character(ruleset, body)
    except CharacterInvalid as exc:
        raise _invalid(
            f"the character was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    sheet = _dumps(body.get("sheet"))
    live = _dumps(live_to_json(character.live))
    row = session.get(CharacterRow, (game.id, name), with_for_update=True)
    if row is None:
        count = len(_characters(session, game))
        session.add(
            CharacterRow(
                game_id=game.id,
                name=name,
                position=count,
                sheet=sheet,
                live=live,
                revision=1,
                updated=_now(),
            )
        )
        return {"name": name, "revision": 1}, True
    row.sheet, row.live, row.revision, row.updated = sheet, live, row.revision + 1, _now()
    return {"name": name, "revision": row.revision}, False


def _addressable(name: str) -> None:
    """Refuse a character name its own URL could not reach: a path segment ``.`` or
    ``..`` is dropped by clients and proxies, and a ``/`` splits the segment."""
    if name in (".", "..") or "/" in name:
        raise _invalid(
            f"a character's name is part of its address (/games/GAME/characters/NAME), so it "
            f'may not be "." or ".." nor hold "/"; "{name}" is refused.',
            [Problem(("name",), "bad-name", f'"{name}" cannot be part of a URL path.')],
        )


def _character_row(session: Session, game: Game, name: str, *, lock: bool) -> CharacterRow:
    row = (
        session.get(CharacterRow, (game.id, name), with_for_update=lock or None)
        if _storable(name)
        else None
    )
    if row is None:
        names = [c.name for c in _characters(session, game)]
        raise _not_found(f'"{name}" is not a character of this game.{did_you_mean(name, names)}')
    return row


def get_character(session: Session, access: Access, game_id: str, name: str) -> dict[str, object]:
    game = _game(session, access, game_id)
    row = _character_row(session, game, name, lock=False)
    return {
        "name": row.name,
        "sheet": json.loads(row.sheet),
        "live": json.loads(row.live),
        "revision": row.revision,
    }


_LIVE_KEYS = ("pools", "tracks", "wounds", "text", "conditions", "states")


def _merge_live(current: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A live-state patch over the stored live state: a pool's number sets its value
    (its temporary points stay), an object replaces it; a track's number, a wound
    track's marks, a text, a state replace theirs; ``conditions`` replaces the list."""
    unknown = [k for k in patch if k not in _LIVE_KEYS]
    if unknown:
        raise _invalid(
            f'"{unknown[0]}" is not part of a live state (it holds {", ".join(_LIVE_KEYS)}).'
        )
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in current.items()}
    for key, value in patch.items():
        if key == "conditions":
            merged[key] = value
            continue
        if not isinstance(value, dict):
            raise _invalid(f'"{key}" must be an object of ids.')
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
    if_match: str | None,
    patch: Mapping[str, Any],
) -> dict[str, object]:
    """Change a character's live state, if the caller saw its current revision."""
    game = _game(session, access, game_id, lock=True)
    row = _character_row(session, game, name, lock=True)
    if if_match is None:
        raise ServiceError(
            428,
            "Precondition required",
            f"send If-Match with the revision you read ({row.revision}), so a change made "
            "meanwhile is not overwritten.",
        )
    seen = if_match.strip().removeprefix("W/").strip('"')
    if seen != str(row.revision):
        raise ServiceError(
            412,
            "Precondition failed",
            f"{name} is at revision {row.revision}, not {seen}: read it again and retry.",
        )
    merged = _merge_live(json.loads(row.live), patch)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    try:
        character = load_character(ruleset, _character_file(name, row.sheet, merged))
    except CharacterInvalid as exc:
        raise _invalid(
            f"the live state was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    live = live_to_json(character.live)
    row.live, row.revision, row.updated = _dumps(live), row.revision + 1, _now()
    return {"revision": row.revision, "live": live}


# ── the Game Master's text and odds ──────────────────────────────────────────


def _party(session: Session, game: Game, ruleset: Ruleset, *, lock: bool) -> list[Character]:
    return [_load_row(ruleset, game, row) for row in _characters(session, game, lock=lock)]


def _who(party: Sequence[Character], who: str | None) -> Character:
    if not party:
        raise _invalid("this game has no characters yet: put one first.")
    if who is None:
        return party[0]
    for character in party:
        if character.name == who:
            return character
    names = [c.name for c in party]
    raise _invalid(f'"{who}" is not a character of this game.{did_you_mean(who, names)}')


def gm_for_game(
    session: Session, access: Access, game_id: str, character: str | None, skill: str | None
) -> dict[str, str]:
    game = _game(session, access, game_id)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    who = _who(_party(session, game, ruleset, lock=False), character) if character else None
    layers = json.loads(game.layers)
    try:
        return {"text": gm_lesson(ruleset, layers=layers, character=who, skill=skill)}
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc


def game_master_brief(session: Session, access: Access, game_id: str) -> dict[str, object]:
    """What a Game Master model reads before play: the game, the ruleset's guidance and
    the tag's rules (as ``gm`` teaches them) and every party member's sheet summary."""
    game = _game(session, access, game_id)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    layers: list[str] = json.loads(game.layers)
    party = _party(session, game, ruleset, lock=False)
    try:
        lesson = gm_text(ruleset, ladder=ladder_in_force(ruleset, layers), layers=layers)
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    return {
        "game": game.name,
        "ruleset": ruleset.name,
        "lesson": lesson,
        "party": [{"name": c.name, "summary": sheet_summary(ruleset, c)} for c in party],
    }


def odds_for_game(
    session: Session,
    access: Access,
    game_id: str,
    tag: str,
    who: str | None,
    after: tuple[str, int] | None,
) -> dict[str, object]:
    game = _game(session, access, game_id)
    if len(tag.encode("utf-8", errors="replace")) > LIMITS.text_bytes:
        raise _too_large(f"the tag is longer than {LIMITS.text_bytes:,} bytes.")
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    character = _who(_party(session, game, ruleset, lock=False), who)
    try:
        odds = check_odds(ruleset, character, tag, layers=json.loads(game.layers), after=after)
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    return odds.to_json()


def report_for_game(
    session: Session, access: Access, game_id: str, who: str | None
) -> dict[str, object]:
    """Every check of a character at every ladder step of the game, exactly."""
    game = _game(session, access, game_id)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    character = _who(_party(session, game, ruleset, lock=False), who)
    try:
        report = build_report(ruleset, character, layers=json.loads(game.layers))
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    return report_json(report)


def roll_dice(
    session: Session, ruleset_id: str, version: int | None, dice: str, seed: object
) -> dict[str, Any]:
    """Throw symbol dice by name; the seed is read by the rule of every route's seed
    (``seed_text``)."""
    text_seed = seed_text(seed)
    if len(dice.encode("utf-8", errors="replace")) > LIMITS.text_bytes:
        raise _too_large(f"the dice text is longer than {LIMITS.text_bytes:,} bytes.")
    try:
        row = _ruleset_row(session, ruleset_id, version)
    except ServiceError as exc:
        raise _invalid(exc.detail) from exc
    ruleset = compiled(session, row.id, row.version)
    try:
        return roll_json(ruleset, dice, seed=text_seed or fresh_seed())
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc


# ── checks and records ───────────────────────────────────────────────────────


SEED_PATTERN = r"^[\x21-\x7e]{1,200}$"
SEED_RULE = "a seed is 1 to 200 printable ASCII characters without spaces, or a whole number"


def seed_text(seed: object) -> str | None:
    """A seed as the store keeps it: 1 to 200 printable ASCII characters, no spaces (a
    whole number is read as its digits). The one rule for the seed of every route and
    tool: ``true`` or ``1.5`` is refused, never read as 1."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, str | int):
        raise _invalid(f"{SEED_RULE}, not {_shown(seed)}.")
    if isinstance(seed, int) and not -(10**200) < seed < 10**200:
        raise _invalid(f"{SEED_RULE}; this number has more than 200 digits.")
    text = str(seed)
    if not re.fullmatch(SEED_PATTERN, text):
        raise _invalid(f"{SEED_RULE}.")
    return text


def _shown(value: object) -> str:
    """A JSON value as a sentence names it: ``true``, ``1.5``, ``a list``."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return json.dumps(value)


def _check_limits(text: str) -> None:
    """Refuse a text past its limits. Text that is not Unicode (a lone surrogate) raises
    ``UnicodeEncodeError`` here, before anything is thrown or written."""
    size = len(text.encode("utf-8"))
    if size > LIMITS.text_bytes:
        raise _too_large(
            f"the text is {size:,} bytes; a check's text may be at most "
            f"{LIMITS.text_bytes:,} bytes (32 KB)."
        )
    count = len(parse_tags(text))
    if count > LIMITS.tags_per_text:
        raise _too_large(
            f"the text holds {count} check tags; one text may hold at most {LIMITS.tags_per_text}."
        )


def _offer(result: Mapping[str, Any]) -> str | None:
    attrs = result.get("attrs", {})
    offer = attrs.get("offer") if isinstance(attrs, dict) else None
    return offer if isinstance(offer, str) else None


def _record_json(row: RecordRow) -> dict[str, object]:
    result = json.loads(row.result)
    return {
        "id": row.id,
        "created": row.created,
        "tag": result["tag"],
        "attrs": result["attrs"],
        "who": result["who"],
        "outcome": result["outcome"],
        "success": result["success"],
        "critical": result["critical"],
        "choice": result["choice"],
        "offer": _offer(result),
        "changes": result["changes"],
        "seed": row.seed,
        "ruleset": row.ruleset_id,
        "version": row.ruleset_version,
        "answered": json.loads(row.answer) if row.answer is not None else None,
    }


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
) -> dict[str, object]:
    """Resolve a text's tags against the game's characters, pay, and write every record,
    all in the caller's transaction. A retry with the same key answers the same, for
    ``LIMITS.idempotency_hours``; after that the key is forgotten and the request is new."""
    game = _game(session, access, game_id, lock=True)  # one check of a game at a time
    if idempotency_key is not None and not _storable(idempotency_key, 200):
        raise _invalid(
            "an idempotency key is 1 to 200 printable characters (no NUL or other control "
            "character); nothing was thrown or paid."
        )
    digest = None
    cutoff = _now(before=timedelta(hours=LIMITS.idempotency_hours))
    if idempotency_key is not None:
        digest = _digest({"text": text, "seed": seed, "faces": faces, "choose": choose})
        this_key = {"game": game.id, "key": idempotency_key}
        seen = _run(session, _SEEN_KEY, this_key).first()
        if seen is not None and seen.created < cutoff:
            _run(session, _FORGET_KEY, this_key)
            seen = None
        if seen is not None:
            if seen.digest != digest:
                raise _invalid(
                    f'the Idempotency-Key "{idempotency_key}" was used for another request; '
                    "a retry must send the same body."
                )
            answer: dict[str, object] = json.loads(seen.answer)
            return answer
    _check_limits(text)
    ruleset = compiled(session, game.ruleset_id, game.ruleset_version)
    rows = _characters(session, game, lock=True)
    party = [_load_row(ruleset, game, row) for row in rows]
    layers: list[str] = json.loads(game.layers)
    if faces is None and seed is None:
        seed = fresh_seed()
    try:
        report = resolve_text(
            ruleset,
            party,
            text,
            seed=seed if faces is None else None,
            faces=faces,
            layers=layers,
            choices=PlayerChoices(choose=choose),
        )
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    unthrown = next((e for e in report.errors if e.dice_failed), None)
    if unthrown is not None:  # forced faces that do not fit: the request, not a tag, is wrong
        raise _invalid(
            f"the forced faces do not fit the checks ({unthrown.error}); nothing was written."
        )
    now = _now()
    by_name = {row.name: row for row in rows}
    connection = session.connection()
    for before, after in zip(party, report.party, strict=True):
        if after is not before:
            paid = {
                "game": game.id,
                "who": after.name,
                "live": _dumps(live_to_json(after.live)),
                "revision": by_name[after.name].revision + 1,
                "now": now,
            }
            connection.execute(_PAY, paid)
    results: list[dict[str, object]] = []
    for result in report.results:
        row_json = result.to_json()
        record = _new_record(game, result, row_json, now, by_name, choose, layers)
        made = connection.execute(_NEW_RECORD, record).inserted_primary_key
        assert made is not None
        results.append({**row_json, "id": made[0]})
    answer = {
        "text": report.text,
        "results": results,
        "errors": [e.to_json() for e in report.errors],
    }
    if idempotency_key is not None:
        key = {"game_id": game.id, "key": idempotency_key, "digest": digest, "created": now}
        connection.execute(_NEW_KEY, {**key, "answer": _dumps(answer)})
        connection.execute(_SWEEP_KEYS, {"cutoff": cutoff})  # so the table stays bounded
    return answer


def _snapshot_text(name: str, sheet: str, live: object) -> str:
    """``_dumps(_character_file(name, json.loads(sheet), live))`` without reading the
    sheet back: the stored sheet is already this JSON, written by ``_dumps``."""
    if sheet == "null":
        return _dumps({"name": name, "live": live})
    return f'{{"name":{_dumps(name)},"sheet":{sheet},"live":{_dumps(live)}}}'


def _new_record(
    game: Game,
    result: CheckResult,
    row_json: Mapping[str, object],
    now: str,
    rows: Mapping[str, Member],
    choose: str | None,
    layers: Sequence[str],
) -> dict[str, object]:
    """The records row of one result, as the values of an insert."""
    roller = result.roller
    assert roller is not None  # resolve_text fills it for every result
    sheet = rows[roller.name].sheet
    return {
        "game_id": game.id,
        "created": now,
        "who": result.who,
        "ask": _dumps(result.ask),
        "result": _dumps(row_json),
        "seed": result.record.get("seed"),
        "faces": _dumps(list(result.faces)) if result.faces else None,
        "choose": choose,
        "ruleset_id": game.ruleset_id,
        "ruleset_version": game.ruleset_version,
        "layers": _dumps(list(layers)),
        "sheet": _snapshot_text(roller.name, sheet, live_to_json(roller.live)),
        "answer": None,
        "answer_sheet": None,
    }


def _record_row(session: Session, game: Game, record_id: int, *, lock: bool) -> RecordRow:
    query = select(RecordRow).where(RecordRow.id == record_id, RecordRow.game_id == game.id)
    if lock:
        query = query.with_for_update()
    row = session.scalars(query).first()
    if row is None:
        raise _not_found(f"no record {record_id} is in this game.")
    return row


def list_records(
    session: Session, access: Access, game_id: str, before: int | None, limit: int
) -> dict[str, object]:
    """A page of the game's records, newest first; ``next`` is the ``before`` of the
    next page, or null on the last."""
    game = _game(session, access, game_id)
    limit = max(1, min(limit, LIMITS.records_per_page))
    query = select(RecordRow).where(RecordRow.game_id == game.id)
    if before is not None:
        query = query.where(RecordRow.id < before)
    rows = list(session.scalars(query.order_by(RecordRow.id.desc()).limit(limit + 1)))
    page = rows[:limit]
    more = len(rows) > limit
    return {
        "records": [_record_json(r) for r in page],
        "next": page[-1].id if more and page else None,
    }


def get_record(session: Session, access: Access, game_id: str, record_id: int) -> dict[str, object]:
    game = _game(session, access, game_id)
    return _record_json(_record_row(session, game, record_id, lock=False))


def record_card(
    session: Session, access: Access, game_id: str, record_id: int
) -> dict[str, object]:
    """A record's dice card: the lines the terminal shows, every face thrown, and the
    offer still open with the pools it names."""
    game = _game(session, access, game_id)
    row = _record_row(session, game, record_id, lock=False)
    result = json.loads(row.result)
    replayed = _replay(session, row)  # the roller's own account of each die
    marks = (
        replayed.die_marks
        if isinstance(replayed, CheckResult) and replayed.record.as_dict() == result["attrs"]
        else ()
    )
    ruleset = compiled(session, row.ruleset_id, row.ruleset_version)
    changes = [Change(c["who"], c["pool"], c["from"], c["to"]) for c in result["changes"]]
    card = card_json(
        result["attrs"].items(),
        who=result["who"],
        outcome=result["outcome"],
        die_marks=marks,
        paid=paid_lines(ruleset, _snapshot(ruleset, row, row.sheet), changes),
    )
    # the raise still on offer: none once the record took an answer (a raise is once,
    # and a choice closes the record)
    offer = offer_json(ruleset, _offer(result)) if row.answer is None else None
    return {"id": row.id, **card, "offer": offer}


def _chosen(text: str | None) -> Literal["fail", "succeed"] | None:
    if text == "fail":
        return "fail"
    return "succeed" if text == "succeed" else None


def _ask(row: RecordRow) -> str:
    """The tag as the model wrote it. Kept as a JSON string; a record written before
    that (the tag as plain text, which always opens with "[") reads as it is."""
    if row.ask.startswith('"'):
        ask: str = json.loads(row.ask)
        return ask
    return row.ask


def _settle(
    ruleset: Ruleset,
    row: RecordRow,
    then: Character,
    now: Character,
    choices: PlayerChoices,
    answered: PlayerChoices,
) -> Settlement:
    faces = json.loads(row.faces) if row.faces is not None else None
    return settle_after(
        ruleset,
        [then],
        now,
        _ask(row),
        seed=row.seed if faces is None else None,
        faces=faces,
        layers=json.loads(row.layers),
        choices=choices,
        answered=answered,
    )


def _snapshot(ruleset: Ruleset, row: RecordRow, text: str) -> Character:
    body = json.loads(text)
    return _load(
        ruleset,
        (row.ruleset_id, row.ruleset_version),
        body["name"],
        _dumps(body.get("sheet")),
        _dumps(body["live"]),
    )


def _answers(row: RecordRow) -> dict[str, Any]:
    """The answers a record has taken, as stored (``{}`` before any)."""
    answers: dict[str, Any] = json.loads(row.answer) if row.answer is not None else {}
    return answers


def _answered(row: RecordRow, answer: Mapping[str, Any]) -> PlayerChoices:
    """What a record's answers and its check settled before: the raise taken, and the
    choice made (an answer's, else the one sent with the check, which settles any
    Sacrifice the check comes to). A record answered before answers accumulated holds
    one of them, and reads the same way. ``answer`` is ``_answers(row)``."""
    after = (answer["pool"], answer["points"]) if "pool" in answer else None
    return PlayerChoices(after=after, choose=_chosen(answer.get("choose", row.choose)))


def _answer_conflict(
    row: RecordRow,
    made: object,
    answer: Mapping[str, Any],
    pool: str | None,
    choose: str | None,
) -> ServiceError | None:
    """Why the record takes no more answers of this kind (409), or None. A raise is
    taken once, a choice once; a record whose raise opened a Sacrifice still takes its
    choice, and nothing else. ``made`` is the record's ``choice``, ``answer`` its
    answers so far (``_answers``)."""
    if answer and made != "open":
        return ServiceError(
            409, "Conflict", f"record {row.id} was already answered; an answer is accepted once."
        )
    if answer and pool is not None:
        return ServiceError(
            409,
            "Conflict",
            f"record {row.id} was already raised ({answer['pool']}:{answer['points']}) and a "
            'check takes one raise; its Sacrifice is still open for {"choose": "fail"} or '
            '{"choose": "succeed"}.',
        )
    thrown_with = made if not answer and made in ("fail", "succeed") else None
    if choose is not None and pool is not None and thrown_with is None:
        thrown_with = row.choose  # it would settle the Sacrifice this raise opens
    if choose is not None and thrown_with is not None:
        return ServiceError(
            409,
            "Conflict",
            f'record {row.id}\'s choice was made when it was thrown ("{thrown_with}"); '
            "a choice is made once.",
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
) -> dict[str, object]:
    """The player's answer to a step-pool offer or a Sacrifice: a raise, a choice, or
    both; each accepted once, paid in this transaction. A Sacrifice a raise opens takes
    its choice in a later answer. An answer that buys nothing, or chooses where no
    choice is open, is refused and changes nothing."""
    if (pool is None) != (points is None) or (pool is None and choose is None):
        raise _invalid(
            'answer with {"pool": ..., "points": N}, with {"choose": ...}, or with all three.'
        )
    game = _game(session, access, game_id, lock=True)
    row = _record_row(session, game, record_id, lock=True)
    stored = json.loads(row.result)
    answer = _answers(row)
    conflict = _answer_conflict(row, stored.get("choice"), answer, pool, choose)
    if conflict is not None:
        raise conflict
    ruleset = compiled(session, row.ruleset_id, row.ruleset_version)
    then = _snapshot(ruleset, row, row.sheet)
    answered = _answered(row, answer)
    char_row: CharacterRow | None = None
    if answered.after is not None and row.answer_sheet is not None:
        # the raise was judged, and paid, against the roller as the answer found him
        now = _snapshot(ruleset, row, row.answer_sheet)
    else:
        char_row = session.get(CharacterRow, (game.id, then.name), with_for_update=True)
        if char_row is None:
            raise ServiceError(
                409, "Conflict", f"{then.name} is no longer a character of this game."
            )
        now = _load_row(ruleset, game, char_row)
    after = (pool, points) if pool is not None and points is not None else None
    try:
        settled = _settle(
            ruleset, row, then, now, PlayerChoices(after=after, choose=choose), answered
        )
    except DiceboundError as exc:
        raise _invalid(str(exc)) from exc
    if after is not None and not settled.paid:
        raise _invalid(settled.message or "that spend buys nothing, so nothing was paid.")
    result = settled.result.to_json()
    result["changes"] = [*stored["changes"], *(c.to_json() for c in settled.paid)]
    if after is not None:
        answer.update(pool=after[0], points=after[1])
    if choose is not None:
        answer["choose"] = choose
    row.result = _dumps(result)
    row.answer = _dumps(answer)
    if char_row is not None:
        row.answer_sheet = _dumps(_character_file(now.name, char_row.sheet, live_to_json(now.live)))
    if settled.character is not None:
        assert char_row is not None
        char_row.live = _dumps(live_to_json(settled.character.live))
        char_row.revision += 1
        char_row.updated = _now()
    session.flush()
    return {**_record_json(row), "paid": [c.to_json() for c in settled.paid]}


_COMPARED = ("tag", "who", "outcome", "success", "critical", "choice", "attrs", "changes")


def _replay(session: Session, row: RecordRow) -> CheckResult | str:
    """The record thrown again from its seed (or forced faces), its ruleset version and
    the roller's sheet as it stood, with the player's answer applied as it was; or why
    it could not be thrown."""
    ruleset = compiled(session, row.ruleset_id, row.ruleset_version)
    then = _snapshot(ruleset, row, row.sheet)
    faces = json.loads(row.faces) if row.faces is not None else None
    try:
        report = resolve_text(
            ruleset,
            [then],
            _ask(row),
            seed=row.seed if faces is None else None,
            faces=faces,
            layers=json.loads(row.layers),
            choices=PlayerChoices(choose=_chosen(row.choose)),
        )
        first = report.items[0] if report.items else None
        if not isinstance(first, CheckResult):
            return first.error if first is not None else "the record's tag holds no check."
        if row.answer is None or row.answer_sheet is None:
            return first
        now = _snapshot(ruleset, row, row.answer_sheet)
        settled = _settle(ruleset, row, then, now, PlayerChoices(), _answered(row, _answers(row)))
        return settled.result._replace(changes=(*first.changes, *settled.result.changes))
    except DiceboundError as exc:
        return str(exc)


def verify_record(
    session: Session, access: Access, game_id: str, record_id: int
) -> dict[str, object]:
    """Replay a record from its seed (or forced faces), its ruleset version and the
    roller's sheet as it stood, and compare every field the record keeps."""
    game = _game(session, access, game_id)
    row = _record_row(session, game, record_id, lock=False)
    replayed = _replay(session, row)
    if isinstance(replayed, str):
        return {"verified": False, "differences": [{"field": "tag", "replayed": replayed}]}
    again = replayed.to_json()
    stored = json.loads(row.result)
    differences = [
        {"field": key, "stored": stored.get(key), "replayed": again.get(key)}
        for key in _COMPARED
        if stored.get(key) != again.get(key)
    ]
    return {"verified": not differences, "differences": differences}
