"""Real ``dicebound serve`` processes started in a blink: forked from a process that has
imported the service already.

A new Python process spends about two seconds of a core importing what ``dicebound
serve`` needs (FastAPI, SQLAlchemy, the MCP SDK's protocol models) before it answers,
and the tests start a few hundred servers. Each test process keeps one *zygote*: a
single-threaded process that imports all of that once, then waits. Asked for a server,
it forks; the child points its standard output and error at the server's log, takes the
environment it was given, and runs the command line's own ``main`` with the arguments
``python -m dicebound`` would have had. It is a real process running the real server on
a real port, as ``python -m dicebound serve`` is; only the imports were done before.

The zygote is the server's parent, so it alone can reap it: ``ForkedServer`` asks it
for the exit status (as ``Popen.poll`` would read it) and signals the server directly.
A server asked with more than one worker (``--workers``) is started the usual way, since
uvicorn spawns its workers as fresh interpreters anyway. ``DICEBOUND_TEST_FORK=0`` turns
the zygote off.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["ForkedServer", "forked_server", "zygote_wanted"]

_PRELOADED = (
    "dicebound.edge.cli",
    "dicebound.edge.serve",
    "dicebound.edge.http",
    "dicebound.edge.http.app",
    "dicebound.store",
    "uvicorn",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
)


def zygote_wanted(args: Sequence[str], env: Mapping[str, str]) -> bool:
    """Fork this server from the zygote (a single-process server, the zygote on)."""
    if env.get("DICEBOUND_TEST_FORK", "1") == "0":
        return False
    workers = env.get("DICEBOUND_WORKERS", "").strip()
    return "--workers" not in args and workers in ("", "1")


class _Zygote:
    """This test process's zygote, started on first use, and the pipe to it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None

    def ask(self, request: dict[str, object]) -> dict[str, object]:
        with self.lock:
            process = self.process
            if process is None or process.poll() is not None:
                process = self.process = subprocess.Popen(
                    [sys.executable, "-c", "import server_zygote; server_zygote.serve()"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    cwd=Path(__file__).parent,
                    env={**os.environ, "PYTHONPATH": _pythonpath()},
                )
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.flush()
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("the server zygote died: see the test's output")
            answer: dict[str, object] = json.loads(line)
            return answer


def _pythonpath() -> str:
    here = str(Path(__file__).parent)
    rest = os.environ.get("PYTHONPATH", "")
    return here + (os.pathsep + rest if rest else "")


_ZYGOTE = _Zygote()


class ForkedServer:
    """A server forked by the zygote, with what the tests use of ``Popen``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            code = _ZYGOTE.ask({"poll": self.pid})["code"]
            self.returncode = code if isinstance(code, int) else None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(["dicebound", "serve"], timeout or 0.0)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def forked_server(args: Sequence[str], env: Mapping[str, str], log: Path) -> ForkedServer:
    """``python -m dicebound ARGS`` with ``env``, its output appended to ``log``."""
    answer = _ZYGOTE.ask({"argv": list(args), "env": dict(env), "log": str(log)})
    pid = answer["pid"]
    assert isinstance(pid, int)
    return ForkedServer(pid)


# ── the zygote's side ────────────────────────────────────────────────────────


def serve() -> None:
    """The zygote: import the service, then fork a server per request and answer each
    poll with the server's exit code once it has one."""
    import importlib

    for name in _PRELOADED:
        importlib.import_module(name)
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    codes: dict[int, int] = {}
    for line in requests:
        request = json.loads(line)
        if "poll" in request:
            reply: dict[str, object] = {"code": _exit_code(int(request["poll"]), codes)}
        else:
            reply = {"pid": _fork(request)}
        replies.write(json.dumps(reply).encode() + b"\n")
        replies.flush()


def _exit_code(pid: int, codes: dict[int, int]) -> int | None:
    if pid not in codes:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done == 0:
            return None
        codes[pid] = os.waitstatus_to_exitcode(status)
    return codes[pid]


def _fork(request: dict[str, object]) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        log = os.open(str(request["log"]), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update(env)
        argv = request["argv"]
        assert isinstance(argv, list)
        sys.argv = ["dicebound", *argv]
        from dicebound.edge.cli import main

        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    return 0  # never reached: the child left through os._exit
