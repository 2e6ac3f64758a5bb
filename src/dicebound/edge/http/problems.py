"""Errors as RFC 9457 problem documents, and the size limits read before any parsing.

Every refusal, from any layer, leaves as ``application/problem+json`` with ``title``,
``status`` and ``detail`` (plus ``problems`` for a file refused at import); nothing
leaves as a traceback. A request body past its limit is refused with 413 while it is
still being read, before any JSON is parsed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import StatementError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from dicebound.app.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Refusal,
    RevisionRequired,
    Stale,
    TooLarge,
    Unauthorized,
)
from dicebound.app.limits import LIMITS
from dicebound.edge.schemas import ProblemOut
from dicebound.jsontext import too_long_a_number
from dicebound.store.db import Fault, fault_of, reason_of

__all__ = [
    "NOT_JSON",
    "PROBLEMS",
    "STATUS",
    "AsciiJSONResponse",
    "HttpProblem",
    "answer_handled",
    "decode_body",
    "install_handlers",
    "json_body",
    "problem",
    "read_body",
    "refusal_problem",
    "replayed",
    "status_of",
    "store_unavailable",
]

log = logging.getLogger("dicebound.http")

PROBLEM_TYPE = "application/problem+json"
PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": ProblemOut, "content": {PROBLEM_TYPE: {}}, "description": text}
    for status, text in (
        (401, "No token, or not one this may use"),
        (403, "A game's token where the admin's is needed"),
        (404, "Not here, or not this token's"),
        (409, "Conflicts with what is stored"),
        (412, "The revision in If-Match is stale"),
        (413, "Past one of the service's size limits"),
        (422, "The request cannot be done as asked"),
        (428, "If-Match is missing"),
        (429, "Past the token's (or the address's) request rate; see Retry-After"),
    )
}

NOT_JSON: dict[int | str, dict[str, Any]] = {
    415: {
        "model": ProblemOut,
        "content": {PROBLEM_TYPE: {}},
        "description": "The body is not sent as application/json",
    }
}
"""The answer of a route that reads its body raw (``json_body``) to any other type."""

_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    413: "Too large",
    412: "Precondition failed",
    415: "Unsupported media type",
    422: "Unprocessable request",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal error",
    503: "Unavailable",
}

# a store that cannot do the request now (503): the log's words, the client's sentence
_FAULT_LOGGED = {
    "lost": "connection lost",
    "busy": "busy or unreachable",
    "full": "disk full",
}
_FAULT_DETAIL = {
    "lost": "the store is not answering; retry shortly.",
    "busy": "the store is busy or unreachable; retry shortly.",
    "full": "the store's disk is full, so nothing was written; retry once space is freed.",
}
# when to ask again, in seconds: a connection lost is replaced by the next request's
# (the pool connects anew), a database restarting takes a few seconds, and a full disk
# waits for someone to free space
_FAULT_RETRY = {"lost": "1", "busy": "2", "full": "30"}


STATUS: dict[type[Refusal], int] = {
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Stale: 412,
    TooLarge: 413,
    Invalid: 422,
    RevisionRequired: 428,
}
"""The one place a refusal of the application becomes an HTTP status; its title is
``_TITLES``' (``problem``)."""


def status_of(refusal: Refusal) -> int:
    """The HTTP status of an application's refusal (of the nearest class the table
    names, for a refusal a subclass words more narrowly)."""
    return next(STATUS[c] for c in type(refusal).__mro__ if c in STATUS)


class HttpProblem(Exception):
    """A refusal of the HTTP edge itself (a body that is not JSON, a check stopped past
    its time): its status, title and sentence, answered as a problem document."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail


class AsciiJSONResponse(JSONResponse):
    """JSON written in ASCII: any text a client sent, a lone surrogate included, goes
    back as a valid escape instead of failing to encode after the work is done."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":"), allow_nan=False).encode("ascii")


def problem(
    status: int,
    detail: str,
    *,
    title: str | None = None,
    problems: Sequence[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": title or _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    if problems is not None:
        body["problems"] = list(problems)
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return AsciiJSONResponse(body, status_code=status, media_type=PROBLEM_TYPE, headers=headers)


def refusal_problem(refusal: Refusal) -> JSONResponse:
    """An application's refusal as a problem document, with the problems of a file."""
    problems = [p.to_json() for p in refusal.problems] if refusal.problems else None
    return problem(status_of(refusal), refusal.detail, problems=problems)


def store_unavailable(fault: Fault, reason: str) -> JSONResponse:
    """503 for a store that cannot do the request now, with ``Retry-After``, logged in
    one line."""
    log.error("store %s: %s", _FAULT_LOGGED[fault], reason)
    return problem(
        503, _FAULT_DETAIL[fault], title="Unavailable", headers={"Retry-After": _FAULT_RETRY[fault]}
    )


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


async def json_body(request: Request, what: str) -> bytes:
    """The body of a route that reads it raw, refused with 415 unless it says it is JSON.

    A page on any other site may make a browser send ``text/plain``, a form, or a body
    with no type at all to this service without asking first; a JSON body it may not.
    ``application/json`` (any parameters) and ``application/*+json`` are JSON.
    """
    content_type = request.headers.get("content-type")
    if content_type is None or not _is_json(content_type):
        said = f'it was sent as "{content_type[:100]}"' if content_type else "it was sent with none"
        raise HttpProblem(
            415,
            "Unsupported media type",
            f"send the {what} as JSON, with Content-Type: application/json; {said}.",
        )
    return await request.body()


def decode_body(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Invalid(f"the {what} is not UTF-8 text (byte {exc.start}).") from exc


def _unparsed(cause: BaseException | None) -> str:
    """Why FastAPI could not parse a JSON body that is well formed (a malformed one is a
    422 of its own), in dicebound's words: Python's names one of its own functions."""
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return f"the body {too_long_a_number()}"
    return "the body could not be read as JSON."


def _loc(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed(request: Request) -> str:
    """Every method the request's path takes, over all its routes (Starlette names only
    the first route's, and ``/games/{game}`` has one for GET and one for DELETE)."""
    routes = request.app.router.routes
    return ", ".join(
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] is Match.FULL for r in routes)
    )


def install_handlers(app: FastAPI) -> None:
    """Map every error to a problem document."""

    @app.exception_handler(Refusal)
    async def _refused(_: Request, exc: Refusal) -> JSONResponse:
        return refusal_problem(exc)

    @app.exception_handler(HttpProblem)
    async def _edge(_: Request, exc: HttpProblem) -> JSONResponse:
        return problem(exc.status, exc.detail, title=exc.title)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        items = [
            {
                "path": _loc(e.get("loc", ())),
                "code": str(e.get("type", "invalid")),
                "message": str(e.get("msg", "")),
            }
            for e in exc.errors()
        ]
        first = items[0] if items else {"path": "", "message": "the request is not valid"}
        where = f"{first['path']}: " if first["path"] else ""
        return problem(422, f"{where}{first['message']}.", problems=jsonable_encoder(items))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else _TITLES.get(exc.status_code, "")
        headers = dict(exc.headers or {})
        if exc.status_code == 400 and detail == "There was an error parsing the body":
            detail = _unparsed(exc.__cause__)
        elif exc.status_code == 404 and detail == "Not Found":
            detail = "there is nothing at this path."
        elif exc.status_code == 405 and detail == "Method Not Allowed":
            allowed = _allowed(request) or headers.get("Allow")
            if allowed:
                headers["Allow"] = allowed
            takes = f"; it takes {allowed}" if allowed else ""
            detail = f"this path does not take {request.method}{takes}."
        return problem(exc.status_code, detail, headers=headers)

    @app.exception_handler(UnicodeError)
    async def _unicode(_: Request, exc: UnicodeError) -> JSONResponse:
        return problem(
            422,
            "the request holds text that is not valid Unicode (a lone surrogate or a bad byte).",
        )

    @app.exception_handler(StatementError)
    async def _statement(request: Request, exc: StatementError) -> JSONResponse:
        fault, reason = fault_of(exc), reason_of(exc)
        metrics = getattr(request.app.state, "metrics", None)
        if metrics is not None:
            metrics.store_fault(fault)
        if fault == "refused":
            log.warning("store refused a value: %s", reason)
            return problem(
                422, "the request holds a value the store cannot keep (such as a NUL character)."
            )
        return store_unavailable(fault, reason)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return problem(500, "dicebound failed on this request; it has been logged.")


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def answer_handled(scope: Scope, receive: Receive, send: Send, exc: Exception) -> bool:
    """Answer ``exc``, raised outside FastAPI's stack (by the guard, or the fast lane of
    checks), with the app's own handler of its nearest class, as the stack would have
    (a store fault: 503 and one log line, nothing raised on); False, having sent
    nothing, when only the app's last resort (``Exception``: 500) takes it."""
    handlers = scope["app"].exception_handlers
    handler = next(
        (handlers[c] for c in type(exc).__mro__ if c in handlers and c is not Exception), None
    )
    if handler is None:
        return False
    response = await handler(Request(scope, receive), exc)
    await response(scope, receive, send)
    return True


def _limit_for(method: str, path: str) -> tuple[int, Callable[[], str]]:
    """A route's most bytes of body, and what says it (worded only for a refusal)."""
    parts = path.strip("/").split("/")
    if method == "POST" and parts in (["rulesets"], ["rulesets", "check"]):
        return LIMITS.ruleset_bytes, LIMITS.most_ruleset
    if method == "PUT" and len(parts) == 4 and parts[0] == "games" and parts[2] == "characters":
        return LIMITS.character_bytes, LIMITS.most_character
    if method == "POST" and parts == ["games", "import"]:
        return LIMITS.game_file_bytes, LIMITS.most_game_file
    return LIMITS.body_bytes, LIMITS.most_body


async def read_body(scope: Scope, receive: Receive, send: Send, timeout: float) -> bytes | None:
    """The request's whole body; or None once it is refused with 413 while being read,
    past its route's limit (whatever its Content-Length says), or with 408 when it did
    not arrive within ``timeout`` seconds (closing the connection, so a stalled client
    holds nothing); or None when the client went first."""
    limit, sentence = _limit_for(scope["method"], scope["path"])
    try:
        async with asyncio.timeout(timeout):
            body = await _read_body(receive, limit)
    except TimeoutError:
        response = problem(
            408,
            f"the request body did not arrive within {timeout:g} seconds; send it again, faster.",
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)
        return None
    if isinstance(body, int):
        response = problem(413, f"the body is over {limit:,} bytes: {sentence()}.")
        await response(scope, receive, send)
        return None
    return body


def replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` for an app after ``read_body``: the body first, whole, then what the
    connection says next."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _read_body(receive: Receive, limit: int) -> bytes | int | None:
    """The whole body; or its size so far once past ``limit``; or None when the client
    disconnected first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return size
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
