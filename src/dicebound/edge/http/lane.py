"""A fast lane for the busiest route, ``POST /games/{game}/checks``.

Through FastAPI a check paid the server more for its HTTP than for its work: the
route's matching, the dependencies solved (the caller, the store, the header), the
body validated by pydantic, anyio's trip to a thread, the answer's classes. The lane
is asked by the service's guard (``guards.Guard``) once every guard has passed (the
rate, the token first, the body's limits; the security headers and a request cut
short hold for its answer too), and answers the plain case itself: a JSON object
(sent as ``application/json``) holding ``text`` and at most ``seed``, ``faces`` and
``choose``, each of the type ``CheckIn`` takes. It calls the route's own function
(``routes.checks.resolve``) in a thread of its own (``threads.Threads``).

Anything else goes, its body replayed, to the FastAPI app behind it, so every
refusal of a request's form (a body that is not JSON, an unknown key, a value of
the wrong type, an Idempotency-Key out of bounds) is worded in one place. An error
raised by the check itself (a refusal, the store down) is answered by the app's own
exception handlers, not by running the check twice; one no handler takes goes up to
the app's handler of last resort (500), as it would from the route.
"""

from __future__ import annotations

import json
from typing import Any

from dicebound.app.access import Access
from dicebound.app.errors import Invalid
from dicebound.app.seeds import seed_text
from dicebound.edge.http.deps import request_token
from dicebound.edge.http.problems import Receive, Scope, Send, answer_handled
from dicebound.edge.http.routes.checks import resolve
from dicebound.edge.http.threads import Threads

__all__ = ["LANE_ROUTE", "CheckLane"]

LANE_ROUTE = "dicebound.lane"
"""The scope's key for the template of the route the lane answered, for the metrics."""
_TEMPLATE = "/games/{game}/checks"

_KEYS = frozenset(("text", "seed", "faces", "choose"))
_CHOICES = (None, "fail", "succeed")
_THREADS = 40  # as many as anyio lets FastAPI's sync routes use at once
_JSON = "application/json"
_TYPE = (b"content-type", b"application/json")


def _plain_faces(faces: object) -> bool:
    """Whether ``faces`` is what ``CheckIn`` takes strictly: absent, or whole numbers."""
    if faces is None:
        return True
    return type(faces) is list and all(type(face) is int for face in faces)


def _unicode(text: str) -> bool:
    """Whether ``text`` is valid Unicode (no lone surrogate, which a JSON escape may
    make): the app's refusal of one is worded behind the lane."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_body(body: object) -> dict[str, Any] | None:
    """The body's fields when ``CheckIn`` would take them as they are, else None."""
    if type(body) is not dict or not body.keys() <= _KEYS:
        return None
    text = body.get("text")
    if type(text) is not str or not (text.isascii() or _unicode(text)):
        return None
    seed = body.get("seed")
    if seed is not None:
        if type(seed) is not str and type(seed) is not int:
            return None
        try:  # CheckIn's own rule for a seed, whose refusal is the app's to word
            seed_text(seed)
        except Invalid:
            return None
    if body.get("choose") not in _CHOICES or not _plain_faces(body.get("faces")):
        return None
    return body


class CheckLane:
    """Answers a plain check itself; says so, or that the request is another's (see
    the module's docstring)."""

    def __init__(self) -> None:
        self._threads = Threads(_THREADS)

    def close(self) -> None:
        """End the lane's threads (the app's shutdown)."""
        self._threads.stop()

    async def answer(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> bool:
        """Answer the request, whose whole ``body`` the guard has read, if it is a plain
        check; False, having sent nothing, for any other."""
        game = _checked_game(scope)
        if game is None:
            return False
        plain = _fields(scope, body)
        if plain is None:
            return False
        fields, key = plain
        scope[LANE_ROUTE] = _TEMPLATE
        state = scope["app"].state
        access = Access.of(request_token(scope), await state.admin_hash.current())
        try:
            answer = await self._threads.run(
                lambda: resolve(
                    state.store,
                    access,
                    game,
                    text=fields["text"],
                    seed=fields.get("seed"),
                    faces=fields.get("faces"),
                    choose=fields.get("choose"),
                    idempotency_key=key,
                    metrics=state.metrics,
                )
            )
        except Exception as exc:
            if not await answer_handled(scope, receive, send, exc):
                raise
            return True
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(answer)).encode("ascii")), _TYPE],
            }
        )
        await send({"type": "http.response.body", "body": answer})
        return True


def _checked_game(scope: Scope) -> str | None:
    """The game of a ``POST /games/{game}/checks``, else None."""
    if scope["method"] != "POST" or scope.get("root_path"):
        return None
    parts = scope["path"].split("/")
    if len(parts) != 4 or parts[0] or parts[1] != "games" or parts[3] != "checks" or not parts[2]:
        return None
    return str(parts[2])


def _fields(scope: Scope, body: bytes) -> tuple[dict[str, Any], str | None] | None:
    """The check's fields and its Idempotency-Key, when the request is as plain as the
    lane takes."""
    content_type = None
    key = None
    for name, value in scope["headers"]:
        if name == b"content-type":
            if content_type is not None:
                return None
            content_type = value.decode("latin-1")
        elif name == b"idempotency-key":
            if key is not None or not 1 <= len(value) <= 200:
                return None
            key = value.decode("latin-1")
    # application/json alone: what FastAPI reads as JSON beyond it is its to say
    if content_type is None or content_type.split(";", 1)[0].strip().lower() != _JSON:
        return None
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    fields = _plain_body(parsed)
    return None if fields is None else (fields, key)
