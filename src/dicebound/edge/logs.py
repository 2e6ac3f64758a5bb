"""The service's log lines, on stdlib ``logging``: each tied to its request, and in a
form a person reads (the default) or one JSON object per line (``--log-format json``).

- ``request_id``: an incoming ``X-Request-ID`` of sane shape (1 to 128 letters, digits
  and ``-_.:=+/``) is kept, so a line of a load balancer's log and of ours carry the
  same id; any other, or none, is replaced by one made here.
- ``REQUEST``, a context variable, holds the request's id while it is answered, in the
  event loop's task and in the threads its work runs on (``threads.Threads`` and
  anyio copy the context, and so does the MCP SDK's task for a call, started from the
  request's); ``RequestFilter`` puts it on every log record, so every line of a
  request carries it.
- One line per request answered, on the ``dicebound.access`` logger (``access``): its
  method, route template, status, duration and game, never its path's query, its
  headers or its body, so never a token, a note or a sheet.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from dicebound.errors import UsageError

__all__ = [
    "ACCESS",
    "LOG_FORMATS",
    "REQUEST",
    "REQUEST_ID",
    "JsonFormatter",
    "RequestFilter",
    "TextFormatter",
    "configure_logging",
    "log_format",
    "request_id",
]

REQUEST: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "dicebound_request_id", default=None
)
REQUEST_ID = "dicebound.request_id"
"""The ASGI scope's key for its request's id."""
ACCESS = logging.getLogger("dicebound.access")
LOG_FORMATS = ("text", "json")

_SANE = re.compile(rb"[A-Za-z0-9._:=+/-]{1,128}")
# what an access line (``extra=``) may add to a record, in the order a JSON line says it
_FIELDS = ("method", "route", "status", "duration_ms", "game")


def request_id(incoming: bytes | None) -> str:
    """The request's id: ``incoming`` (its ``X-Request-ID``) when of sane shape, else a
    new one (16 random hex digits)."""
    if incoming is not None and _SANE.fullmatch(incoming):
        return incoming.decode("ascii")
    return os.urandom(8).hex()


def log_format(flag: str | None, environ: Mapping[str, str]) -> str:
    """``--log-format``, else ``DICEBOUND_LOG_FORMAT``, else ``text``; refused with a
    sentence naming where it came from when it is neither ``text`` nor ``json``."""
    given, where = flag, "--log-format"
    if given is None:
        given, where = (
            environ.get("DICEBOUND_LOG_FORMAT", "").strip() or None,
            "DICEBOUND_LOG_FORMAT",
        )
    if given is None:
        return "text"
    if given.strip().lower() not in LOG_FORMATS:
        raise UsageError(f'{where} must be "text" or "json"; it is "{given}".')
    return given.strip().lower()


class RequestFilter(logging.Filter):
    """Puts the id of the request being answered (``REQUEST``) on each record that has
    none, as ``request_id`` (None outside a request). Filters nothing out."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = REQUEST.get()
        return True


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: MESSAGE``, then ``request=ID`` when the line is a request's."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = getattr(record, "request_id", None)
        return line if rid is None else f"{line} request={rid}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, ``request_id``, the access line's fields when given, and ``exception``
    (its traceback as text) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for field in _FIELDS:
            if hasattr(record, field):
                line[field] = getattr(record, field)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=True, separators=(",", ":"), default=str)


def configure_logging(form: str, *, access: bool, stream: TextIO | None = None) -> None:
    """Every log line to standard error (``stream``) in ``form`` (``text`` or
    ``json``), each carrying its request's id; ``dicebound.access`` at INFO when
    ``access``, everything else at WARNING. Set before the MCP SDK's server is built,
    which otherwise installs a rich handler of its own."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    handler.addFilter(RequestFilter())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    ACCESS.setLevel(logging.INFO if access else logging.WARNING)
