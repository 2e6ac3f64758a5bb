"""``dicebound serve`` and ``dicebound db upgrade``: the service's own commands.

Imported only when one of them runs, so the rest of the command line works without
the ``[serve]`` extra installed.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from dicebound.edge.environ import switched_on
from dicebound.edge.logs import configure_logging, log_format
from dicebound.errors import DiceboundError, UsageError

__all__ = ["db_new_game", "db_upgrade", "mcp_stdio", "serve"]


_EXTRA = {"fastapi", "uvicorn", "pydantic", "sqlalchemy", "alembic", "psycopg", "mcp", "starlette"}


def _need_extra(missing: ModuleNotFoundError) -> UsageError:
    """The extra is missing: say how to install it. Any other missing module is a bug
    and is raised as it is."""
    if (missing.name or "").split(".")[0] not in _EXTRA:
        raise missing
    return UsageError(
        "the service needs the [serve] extra: pip install 'dicebound[serve]' "
        "(FastAPI, uvicorn, SQLAlchemy, Alembic, psycopg, mcp)."
    )


def serve(
    db: str | None,
    host: str,
    port: int,
    limits: Mapping[str, str | None],
    *,
    workers: str | None = None,
    http: str | None = None,
    pin: bool = False,
    log_form: str | None = None,
) -> int:
    """Run the HTTP service until interrupted. ``limits`` are the flags of ``Guards``'
    fields (None where not given: the ``DICEBOUND_*`` variable, else the default);
    ``workers``, ``http`` and ``log_form`` (``--log-format``) the flags of the same
    names (likewise). Under several workers the metrics' files are kept in a directory
    made for this run (``PROMETHEUS_MULTIPROC_DIR``) and removed when it ends."""
    try:
        from dicebound.app.access import check_admin_token
        from dicebound.edge.http import create_app
        from dicebound.edge.http.app import prepare_store
        from dicebound.edge.http.guards import Guards
        from dicebound.edge.http.metrics import multiproc_dir
        from dicebound.edge.http.protocol import parser_named
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover - the extra is installed in tests
        raise _need_extra(exc) from exc
    # every refusal of a flag before the store is touched
    guards = Guards.resolve(limits, os.environ)
    given = http if http is not None else os.environ.get("DICEBOUND_HTTP", "").strip() or None
    parser = parser_named(given or "httptools", "--http" if http is not None else "DICEBOUND_HTTP")
    asked = _workers_asked(workers, os.environ)
    pinned = pin or switched_on(os.environ, "DICEBOUND_PIN")
    form = log_format(log_form, os.environ)
    # a line per request where a machine reads the log; the readable default as it was
    access = switched_on(os.environ, "DICEBOUND_ACCESS_LOG", default=form == "json")
    switched_on(os.environ, "DICEBOUND_METRICS", default=True)  # refused here, not later
    # a sentence here, not uvicorn's traceback from the app's start-up
    admin_token = os.environ.get("DICEBOUND_ADMIN_TOKEN")
    check_admin_token(admin_token)
    configure_logging(form, access=access)
    store = open_store(db)  # migrate and fail fast, before binding the port
    count = asked if asked is not None else (1 if store.is_sqlite else _cores())
    several = f"; {count} processes answering on http://{host}:{port}" if count > 1 else ""
    sys.stderr.write(f"dicebound: store {store.dialect} at {store.engine.url!r}{several}\n")
    if count > 1 and store.is_sqlite:
        sys.stderr.write(
            f"dicebound: {count} processes on one SQLite file: their writes take turns "
            "on the file's lock, each commit alone (one process commits the writes "
            "queued behind each other at once); PostgreSQL is the store for several.\n"
        )
    if count > 1:
        # the admin token made (and shown) once, before the workers; no connection
        # of this process crosses the fork: each worker opens its own
        prepare_store(store, admin_token=admin_token, say=sys.stderr)
        store.engine.dispose()
    with contextlib.ExitStack() as run:
        if count > 1:  # before the app imports prometheus_client, which reads it once
            run.enter_context(multiproc_dir(os.environ))
        return _run(
            create_app(store=store, guards=guards), count, host, port, guards, parser, pinned
        )


def _run(
    app: FastAPI,
    count: int,
    host: str,
    port: int,
    guards: Guards,
    parser: Parser,
    pinned: bool,
) -> int:
    """Serve ``app`` on ``count`` processes until told to stop; the exit code."""
    import uvicorn

    from dicebound.edge.http.metrics import process_gone
    from dicebound.edge.http.protocol import Share, guarded_protocol

    share = Share(count) if count > 1 else None

    def server(place: int = 0) -> Server:
        if share is not None:
            share.join(place)
        if pinned:
            sys.stderr.write(_pin(place))
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            http=guarded_protocol(guards, parser, share),
            loop="auto",  # uvloop where it is installed
            limit_concurrency=guards.limit_concurrency or None,
            server_header=False,  # no need to tell the world which server and version to aim at
            log_config=None,  # uvicorn's lines through the service's handler and format
            timeout_graceful_shutdown=guards.shutdown_timeout,
            backlog=_BACKLOG,
        )
        return _server(config, app)

    if count == 1:
        server().run()
        return 0
    listening = _Port(host, port, _BACKLOG)
    sys.stderr.flush()
    process_gone(os.getpid())  # this one serves nothing: only its workers are counted
    return _supervise(count, server, listening, guards.shutdown_timeout)


def _cores() -> int:
    """The cores this process may run on (1 where it cannot fork workers)."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _pin(place: int) -> str:
    """Keep every thread of this process, and each it starts later, to one core: the
    ``place``-th of the cores it may run on, counted round. A check's hand-off between
    the event loop and a lane thread then wakes no idle core (what costs most of it).
    What it did, as a line for standard error: a system that refuses leaves the process
    on every core it had, and the service runs on."""
    if not hasattr(os, "sched_setaffinity"):  # pragma: no cover - not on Linux
        return "dicebound: --pin needs Linux; this process runs on every core.\n"
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[place % len(allowed)]
    try:
        _set_cores({core})
    except OSError as exc:
        with contextlib.suppress(OSError):
            _set_cores(set(allowed))
        return (
            f"dicebound: process {os.getpid()} could not keep to core {core} "
            f"({exc.strerror}); it runs on every core it had.\n"
        )
    return f"dicebound: process {os.getpid()} keeps to core {core}.\n"


def _set_cores(cores: set[int]) -> None:
    """Every thread of this process on ``cores`` (threads it starts later inherit them)."""
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task), cores)


def _workers_asked(flag: str | None, environ: Mapping[str, str]) -> int | None:
    """``--workers``, else ``DICEBOUND_WORKERS``, else None (the store's default)."""
    given, where = flag, "--workers"
    if given is None:
        given, where = environ.get("DICEBOUND_WORKERS", "").strip() or None, "DICEBOUND_WORKERS"
    if given is None:
        return None
    try:
        count = int(given.strip())
    except ValueError:
        count = 0
    if count < 1:
        raise UsageError(
            f'{where} must be a whole number of processes, 1 or more; it is "{given}".'
        )
    if count > 1 and not hasattr(os, "fork"):  # pragma: no cover - Windows
        raise UsageError(
            f"{where} above 1 needs a system that can fork (Linux, macOS); here, run one "
            "process per port behind a load balancer."
        )
    return count


class _Port:
    """Where the workers listen. On Linux each worker listens on a socket of its own,
    all bound to the port with ``SO_REUSEPORT``, and the kernel deals new connections
    among them evenly; this process holds the port meanwhile (bound, not listening, so
    it is dealt none). Elsewhere they share one listening socket, and the worker that
    wakes first may take a burst of connections alone."""

    def __init__(self, host: str, port: int, backlog: int) -> None:
        self.family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.backlog = backlog
        self.spread = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
        if self.spread and port:  # taken, whoever holds it, is said as it is
            self._bound(host, port, reuse_port=False).close()
        self.held = self._bound(host, port, reuse_port=self.spread)
        if not self.spread:
            self.held.listen(backlog)

    def _bound(self, host: str, port: int, *, reuse_port: bool) -> socket.socket:
        sock = socket.socket(self.family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise DiceboundError(f"cannot listen on {host}:{port}: {exc.strerror}.") from exc
        return sock

    def for_worker(self) -> socket.socket:
        """The socket a worker accepts on (called in the worker)."""
        if not self.spread:
            return self.held
        host, port = self.held.getsockname()[:2]
        own = self._bound(host, port, reuse_port=True)
        own.listen(self.backlog)
        return own

    def close(self) -> None:
        self.held.close()


if TYPE_CHECKING:
    from fastapi import FastAPI
    from uvicorn import Config, Server

    from dicebound.edge.http.guards import Guards
    from dicebound.edge.http.protocol import Parser


def _server(config: Config, app: FastAPI) -> Server:
    """uvicorn's server, ending the event streams as soon as it is told to stop: its
    graceful shutdown waits for every answer to finish, and a stream would not."""
    import uvicorn

    class Ending(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            hub = getattr(app.state, "events", None)
            if hub is not None:
                hub.close_soon()
            super().handle_exit(sig, frame)

    return Ending(config)


_STOPS = (signal.SIGTERM, signal.SIGINT)
_STARTUP_FAILURE = 3  # uvicorn's exit code for an app or socket that failed to start
_BACKLOG = 2048  # connections waiting to be accepted (uvicorn's default)


def _supervise(
    count: int, make: Callable[[int], Server], listening: _Port, shutdown_timeout: float
) -> int:
    """Run ``count`` workers on ``listening`` and wait: a worker that ends is started
    again; SIGTERM or SIGINT stops them all (each finishes what it is answering,
    within ``shutdown_timeout`` seconds, or is killed a little after). A worker whose
    start failed (the store unreachable, say) stops the service: another would fail
    the same way. The exit code is 1 then, else 0."""
    from dicebound.edge.http.metrics import process_gone

    told: list[int] = []
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    watched = (signal.SIGCHLD, *_STOPS)  # SIGCHLD: not on Windows, which cannot fork
    before = {sig: signal.signal(sig, lambda sig, _: told.append(sig)) for sig in watched}
    before_fd = signal.set_wakeup_fd(wake_write)
    started: dict[int, tuple[int, float]] = {}  # pid -> its place, when it started
    fds = (wake_read, wake_write)
    try:
        for place in range(count):
            started[_fork_worker(make, place, listening, fds)] = (place, time.monotonic())
        code = 0
        deadline: float | None = None
        while started:
            wait = 5.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if select.select([wake_read], [], [], wait)[0]:
                os.read(wake_read, 512)
            if deadline is None and any(sig in _STOPS for sig in told):
                deadline = time.monotonic() + shutdown_timeout + 5.0
                _signal_all(started, signal.SIGTERM)
            if deadline is not None and time.monotonic() >= deadline:
                _signal_all(started, signal.SIGKILL)
            for pid, status in _ended(started):
                place, began = started.pop(pid)
                process_gone(pid)
                if deadline is not None:
                    continue
                said = _status_text(status)
                if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _STARTUP_FAILURE:
                    sys.stderr.write(
                        f"dicebound: a worker (pid {pid}) failed to start; stopping the service.\n"
                    )
                    code = 1
                    deadline = time.monotonic() + shutdown_timeout + 5.0
                    _signal_all(started, signal.SIGTERM)
                    continue
                sys.stderr.write(f"dicebound: a worker (pid {pid}) {said}; starting another.\n")
                if time.monotonic() - began < 1.0:  # not in a tight loop, whatever ends it
                    time.sleep(1.0)
                started[_fork_worker(make, place, listening, fds)] = (place, time.monotonic())
        return code
    finally:
        _signal_all(started, signal.SIGKILL)
        signal.set_wakeup_fd(before_fd)
        for sig, handler in before.items():
            signal.signal(sig, handler)
        os.close(wake_read)
        os.close(wake_write)
        listening.close()


def _fork_worker(
    make: Callable[[int], Server], place: int, listening: _Port, parents: tuple[int, ...]
) -> int:
    """The worker at ``place``, a process serving on ``listening``; its pid. It dies
    with this process, and holds none of its signal handling (``parents``: the
    descriptors it closes)."""
    sys.stderr.flush()
    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)  # held until the worker's handlers
    pid = os.fork()
    if pid:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
        return pid
    code = 1
    told: list[int] = []
    try:
        for stop in _STOPS:  # until uvicorn's own, and whatever comes before the server
            signal.signal(stop, lambda sig, _: told.append(sig))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
        signal.set_wakeup_fd(-1)
        for fd in parents:
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _die_with(parent)
        try:
            own = listening.for_worker()
        except DiceboundError as exc:  # as uvicorn's own start-up failures end
            sys.stderr.write(f"dicebound: {exc}\n")
            raise SystemExit(_STARTUP_FAILURE) from exc
        server = make(place)
        server.should_exit = bool(told)

        def early(sig: int, frame: FrameType | None) -> None:
            server.should_exit = True

        for stop in _STOPS:
            signal.signal(stop, early)
        server.run(sockets=[own])
        code = 0
    except SystemExit as exc:  # uvicorn's start-up failure
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)


def _die_with(parent: int) -> None:
    """End this worker when the process that started it ends, however it ends (killed
    included): on Linux the kernel sends SIGKILL; elsewhere a thread looks each second."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        watched = True
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        watched = False
    if os.getppid() != parent:  # it ended before the line above
        os._exit(1)
    if not watched:  # pragma: no cover - not Linux

        def look() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=look, daemon=True).start()


_PR_SET_PDEATHSIG = 1


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _ended(pids: Iterable[int]) -> list[tuple[int, int]]:
    """The workers that have ended, with their wait statuses, reaped."""
    ended = []
    for pid in list(pids):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            ended.append((pid, status))
    return ended


def _status_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was ended by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"


def db_upgrade(db: str | None, out: TextIO) -> int:
    """Create or migrate the store's schema, and say where it stands."""
    try:
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    store = open_store(db)
    out.write(f"{store.engine.url!r}: schema at revision {store.revision()}.\n")
    store.close()
    return 0


def db_new_game(args: argparse.Namespace, out: TextIO) -> int:
    """Make a game (and put its characters) in one transaction, as the machine's own
    user, and print it as JSON with its token: the way to a first game without the
    HTTP service, for ``dicebound mcp``."""
    try:
        from dicebound.app import characters, games
        from dicebound.app.access import Access
        from dicebound.app.errors import Refusal
        from dicebound.app.rulesets import sync_packaged_rulesets
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    files = []
    for where in args.character:
        try:
            files.append((where, Path(where).read_bytes()))
        except OSError as exc:
            raise UsageError(f'cannot read the character file "{where}": {exc.strerror}.') from exc
    store = open_store(args.db)
    local = Access.local()
    try:
        with store.write() as session:
            sync_packaged_rulesets(session)
            made = games.create_game(
                session, local, args.name, args.ruleset, args.version, args.layer
            )
            names = []
            for where, raw in files:
                name = _character_name(where, raw)
                characters.put_character(session, local, str(made["id"]), name, raw)
                names.append(name)
    except Refusal as exc:
        lines = [exc.detail, *(f"  {p}" for p in exc.problems)]
        raise DiceboundError("\n".join(lines)) from exc
    finally:
        store.close()
    out.write(json.dumps({**made, "characters": names}, indent=2) + "\n")
    return 0


def _character_name(where: str, raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str):
        raise UsageError(f'the character file "{where}" has no "name" to put it under.')
    return name


def mcp_stdio(db: str | None, game: str) -> int:
    """Serve the MCP tools over stdio for one game of the store. Standard output is the
    protocol's, so everything else goes to standard error."""
    try:
        from dicebound.app.access import Access
        from dicebound.app.errors import Refusal
        from dicebound.app.games import get_game
        from dicebound.app.rulesets import sync_packaged_rulesets
        from dicebound.edge.mcp import run_stdio
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    configure_logging("text", access=False)
    store = open_store(db)
    try:
        with store.write() as session:
            sync_packaged_rulesets(session)
            get_game(session, Access.local(), game)  # fail fast
        run_stdio(store, game)
    except Refusal as exc:
        raise UsageError(
            f"{exc.detail} (dicebound mcp --game ID names a game of the store)"
        ) from exc
    finally:
        store.close()
    return 0
