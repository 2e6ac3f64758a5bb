"""``dicebound serve --workers N``: N real processes answering on one port.

Which process answers a connection is read from Linux's own tables, not from the
service: the server's end of a loopback connection is a socket whose inode
``/proc/net/tcp`` names, held open by exactly one process (``/proc/PID/fd``). So
"both processes serve" means each of two processes holds a connection it answered.

- PostgreSQL: one process per core by default; with ``--workers 2`` both answer, a
  check made through one is read through the other, a worker that dies is replaced,
  SIGTERM stops them all, and SIGKILL of the process that started them ends them too.
- SQLite: one process unless asked; ``--workers 2`` runs two, and says on standard
  error why SQLite is not the store for several.
- A bad ``--workers`` or ``--http`` is refused before the store is touched.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service_support import ADMIN_TOKEN, ServerProcess, admin_headers, store_url_for

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc"),
]

HEALTH = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(child) for child in text.split()]


def _workers(server: ServerProcess, count: int, within: float = 30.0) -> list[int]:
    """The server's worker processes, once there are ``count`` of them."""
    assert server.process is not None
    deadline = time.monotonic() + within
    while len(found := _children(server.process.pid)) != count:
        assert time.monotonic() < deadline, f"workers {found}, not {count}"
        time.sleep(0.1)
    return found


def _holder(sock: socket.socket, pids: list[int]) -> int | None:
    """Which of ``pids`` holds the server's end of the connection ``sock`` (None:
    none has accepted it yet)."""
    ours, theirs = sock.getsockname()[1], sock.getpeername()[1]
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = (int(address.split(":")[1], 16) for address in fields[1:3])
        if (local, remote) == (theirs, ours):
            inode = fields[9]
    if inode is None:  # not accepted yet
        return None
    target = f"socket:[{inode}]"
    for pid in pids:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except FileNotFoundError:
                continue
    return None


def _accepted(sock: socket.socket, workers: list[int]) -> int:
    """The worker that accepted the connection ``sock``, once one has."""
    deadline = time.monotonic() + 10
    while (holder := _holder(sock, workers)) is None:
        assert time.monotonic() < deadline, "no worker accepted the connection"
        time.sleep(0.01)
    return holder


def _answered(sock: socket.socket) -> int:
    """Send ``/health`` on ``sock``; the status of the answer."""
    sock.sendall(HEALTH)
    response = _read_answer(sock)
    return int(response.split(b" ", 2)[1])


def _read_answer(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head


def _each_worker_answers(server: ServerProcess, workers: list[int]) -> dict[int, int]:
    """Connections opened until every worker holds one it answered on: worker ->
    answers counted (each connection answered 200)."""
    seen: dict[int, int] = {}
    held = []
    try:
        for _ in range(200):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            held.append(sock)
            holder = _accepted(sock, workers)
            assert _answered(sock) == 200
            seen[holder] = seen.get(holder, 0) + 1
            if len(seen) == len(workers):
                return seen
    finally:
        for sock in held:
            sock.close()
    pytest.fail(f"200 connections all went to {sorted(seen)} of {workers}")


@pytest.fixture(scope="module")
def two_on_postgresql(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("workers")
    with (
        store_url_for("postgresql", folder) as url,
        ServerProcess(url, log=folder / "server.log", env={"DICEBOUND_WORKERS": "2"}) as server,
    ):
        yield server


def test_two_workers_on_postgresql_both_answer_on_one_port(
    two_on_postgresql: ServerProcess,
) -> None:
    workers = _workers(two_on_postgresql, 2)
    assert len(set(workers)) == 2
    assert sorted(_each_worker_answers(two_on_postgresql, workers)) == sorted(workers)


def _kept_alive(client: http.client.HTTPConnection) -> bool:
    """Ask ``/health`` on ``client`` (connecting first if it was closed); whether the
    connection is still open after the answer."""
    if client.sock is None:
        client.connect()
    client.request("GET", "/health")
    answer = client.getresponse()
    assert answer.status == 200
    answer.read()
    return client.sock is not None


def _accepted_by(client: http.client.HTTPConnection, workers: list[int]) -> int:
    assert client.sock is not None
    return _accepted(client.sock, workers)


def test_kept_alive_connections_all_on_one_worker_are_spread(
    two_on_postgresql: ServerProcess,
) -> None:
    """Twenty kept-alive connections all on one worker (as a burst of connections
    can come): that worker, holding more than its share, answers ``Connection: close``
    and the client's next connection is dealt anew, until neither holds more than two
    past half."""
    server = two_on_postgresql
    workers = _workers(server, 2)
    clients: list[http.client.HTTPConnection] = []
    try:
        while len(clients) < 20:
            client = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            client.connect()
            if _accepted_by(client, workers) == workers[0]:
                clients.append(client)
            else:
                client.close()
        closed = sum(not _kept_alive(client) for _ in range(10) for client in clients)
        for client in clients:
            for _ in range(20):
                if _kept_alive(client):
                    break
        held = Counter(_accepted_by(client, workers) for client in clients)
    finally:
        for client in clients:
            client.close()
    assert closed >= 8
    assert sorted(held) == sorted(workers) and max(held.values()) <= 12, held


def test_what_one_worker_writes_the_other_reads(two_on_postgresql: ServerProcess) -> None:
    server = two_on_postgresql
    workers = _workers(server, 2)
    made = httpx.post(
        server.base + "/games",
        json={"name": "Shared", "ruleset": "blades"},
        headers=admin_headers(),
    )
    assert made.status_code == 201, made.text
    game = made.json()
    readers: set[int] = set()
    for _ in range(200):  # each answer on a new connection, until both workers answered
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            request = (
                f"GET /games/{game['id']} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {game['token']}\r\n\r\n"
            ).encode()
            holder = _accepted(sock, workers)
            sock.sendall(request)
            head = _read_answer(sock)
            assert head.startswith(b"HTTP/1.1 200"), head
            readers.add(holder)
        if len(readers) == 2:
            break
    assert readers == set(workers)


def _cores_of(pid: int) -> set[frozenset[int]]:
    """The cores each thread of process ``pid`` may run on, as the kernel says."""
    return {frozenset(os.sched_getaffinity(int(task))) for task in os.listdir(f"/proc/{pid}/task")}


def test_unpinned_a_worker_runs_on_every_core(two_on_postgresql: ServerProcess) -> None:
    everywhere = frozenset(os.sched_getaffinity(0))
    for worker in _workers(two_on_postgresql, 2):
        assert _cores_of(worker) == {everywhere}


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to tell apart")
def test_pinned_each_worker_keeps_to_a_core_of_its_own(tmp_path: Path) -> None:
    """``--pin``: every thread of a worker on one core (a check's hand-off between the
    event loop and a lane thread wakes no idle core), the two workers on two cores."""
    with (
        store_url_for("postgresql", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log", args=["--workers", "2", "--pin"]) as server,
    ):
        workers = _workers(server, 2)
        _each_worker_answers(server, workers)  # both serving: their lane threads started
        cores = [_cores_of(worker) for worker in workers]
    assert all(len(each) == 1 and len(next(iter(each))) == 1 for each in cores), cores
    assert cores[0] != cores[1]


def test_pinned_one_sqlite_process_keeps_every_thread_to_one_core(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log", env={"DICEBOUND_PIN": "on"}) as server,
    ):
        assert server.process is not None
        game = httpx.post(
            f"{server.base}/games",
            json={"name": "g", "ruleset": "dnd5e-srd"},
            headers=admin_headers(),
            timeout=30,
        ).json()
        checked = httpx.post(
            f"{server.base}/games/{game['id']}/checks",
            json={"text": "no tag here"},
            headers={"Authorization": f"Bearer {game['token']}"},
            timeout=30,
        )
        assert checked.status_code == 200, checked.text  # a lane thread has run
        (one,) = _cores_of(server.process.pid)
        log = server.log_path.read_text()
    assert len(one) == 1
    assert f"dicebound: process {server.process.pid} keeps to core {next(iter(one))}.\n" in log


def test_a_worker_that_dies_is_replaced(two_on_postgresql: ServerProcess) -> None:
    server = two_on_postgresql
    first, second = _workers(server, 2)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while first in (now := _workers(server, 2)) or len(now) != 2:
        assert time.monotonic() < deadline, "the dead worker was not replaced"
        time.sleep(0.1)
    assert second in now
    assert sorted(_each_worker_answers(server, now)) == sorted(now)
    assert "a worker (pid" in server.log_path.read_text()


def test_sigterm_stops_every_worker(tmp_path: Path) -> None:
    with (
        store_url_for("postgresql", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log", env={"DICEBOUND_WORKERS": "2"}) as server,
    ):
        assert server.process is not None
        workers = _workers(server, 2)
        server.process.terminate()
        assert server.process.wait(30) == 0
        for pid in workers:
            assert not Path(f"/proc/{pid}").exists() or _zombie(pid), pid


def test_the_workers_end_with_the_process_that_started_them(tmp_path: Path) -> None:
    with (
        store_url_for("postgresql", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log", env={"DICEBOUND_WORKERS": "2"}) as server,
    ):
        workers = _workers(server, 2)
        server.kill()  # SIGKILL: no chance to stop them itself
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() and not _zombie(pid) for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived its parent"
            time.sleep(0.05)
        with pytest.raises(httpx.ConnectError):
            httpx.get(server.base + "/health", timeout=2)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_postgresql_runs_one_worker_per_core_by_default(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    with (
        store_url_for("postgresql", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log") as server,
    ):
        assert server.process is not None
        expected = cores if cores > 1 else 0  # one core: one process, no workers
        assert len(_workers(server, expected)) == expected
        if cores > 1:
            assert f"; {cores} processes answering on http://" in server.log_path.read_text()


def test_sqlite_stays_one_process_unless_asked(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log") as server,
    ):
        assert server.process is not None
        assert _children(server.process.pid) == []
        assert "processes" not in server.log_path.read_text()


def test_sqlite_runs_the_workers_asked_for_and_says_why_it_should_not(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as url,
        ServerProcess(url, log=tmp_path / "log", env={"DICEBOUND_WORKERS": "2"}) as server,
    ):
        workers = _workers(server, 2)
        assert sorted(_each_worker_answers(server, workers)) == sorted(workers)
        log = server.log_path.read_text()
    assert (
        "dicebound: 2 processes on one SQLite file: their writes take turns on the file's "
        "lock, each commit alone (one process commits the writes queued behind each other "
        "at once); PostgreSQL is the store for several.\n"
    ) in log


@pytest.mark.parametrize(
    ("flags", "env", "sentence"),
    [
        (["--workers", "0"], {}, '--workers must be a whole number of processes, 1 or more; it is "0".'),
        (["--workers", "two"], {}, '--workers must be a whole number of processes, 1 or more; it is "two".'),
        ([], {"DICEBOUND_WORKERS": "-1"}, 'DICEBOUND_WORKERS must be a whole number of processes, 1 or more; it is "-1".'),
        (["--http", "spdy"], {}, '--http must be httptools or h11; it is "spdy".'),
        ([], {"DICEBOUND_HTTP": "h2"}, 'DICEBOUND_HTTP must be httptools or h11; it is "h2".'),
        ([], {"DICEBOUND_PIN": "yes"}, 'DICEBOUND_PIN must be "on" or "off"; it is "yes".'),
    ],
)  # fmt: skip
def test_a_bad_workers_or_parser_is_refused_before_the_store_is_touched(
    tmp_path: Path, flags: list[str], env: dict[str, str], sentence: str
) -> None:
    db = tmp_path / "never.db"
    run = subprocess.run(
        [sys.executable, "-m", "dicebound", "serve", "--db", str(db), *flags],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr == f"dicebound: {sentence}\n"
    assert not db.exists()


def test_workers_on_a_port_already_taken_are_refused_with_a_sentence(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        serve = ["serve", "--db", str(tmp_path / "d.db"), "--port", str(port), "--workers", "2"]
        run = subprocess.run(
            [sys.executable, "-m", "dicebound", *serve],
            env={**os.environ, "DICEBOUND_ADMIN_TOKEN": ADMIN_TOKEN},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert run.returncode == 1, run.stderr
    assert run.stderr.splitlines()[-1] == (
        f"dicebound: cannot listen on 127.0.0.1:{port}: Address already in use."
    )


def test_a_pin_the_system_refuses_leaves_the_process_on_its_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kernel that refuses one core (a cpuset changed under the service, say) leaves
    the process where it was, says so, and the service runs on."""
    from dicebound.edge.serve import _pin

    before = os.sched_getaffinity(0)
    real = os.sched_setaffinity

    def refusing(pid: int, cores: set[int]) -> None:
        if len(cores) == 1:
            raise OSError(22, "Invalid argument")
        real(pid, cores)

    monkeypatch.setattr(os, "sched_setaffinity", refusing)
    said = _pin(0)
    assert said == (
        f"dicebound: process {os.getpid()} could not keep to core {min(before)} "
        "(Invalid argument); it runs on every core it had.\n"
    )
    assert os.sched_getaffinity(0) == before
