"""Real servers for the service's tests, shared by every test that starts them: server
processes on one store (``running``), their logs printed when a test fails
(``logs_on_failure``), a client per token, the Reserve game with one deep pool, a
game's records through the pages, and many requests sent at the same instant from
threads over several processes (``post_at_once``)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import httpx

from repo_paths import REPO
from service_support import JSON, ServerProcess, admin_headers

RESERVE_FILE = REPO / "tests" / "cases" / "ruleset_reserve.json"

_P = ParamSpec("_P")
_R = TypeVar("_R")


def logs_on_failure(test: Callable[_P, _R]) -> Callable[_P, _R]:
    """Print every server log under the test's ``tmp_path`` when the test fails."""

    @functools.wraps(test)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return test(*args, **kwargs)
        except BaseException:
            tmp_path = kwargs.get("tmp_path")
            if isinstance(tmp_path, Path):
                for log in sorted(tmp_path.glob("*.log")):
                    text = log.read_text(errors="replace")
                    print(f"\n───── {log.name} (last 20,000 characters) ─────\n{text[-20_000:]}")
            raise

    return run


@contextmanager
def running(
    db_url: str, tmp_path: Path, count: int = 1, env: Mapping[str, str] | None = None
) -> Iterator[list[ServerProcess]]:
    """``count`` server processes on one store, stopped at the end whatever happens
    (each one process: ``--workers 1``, whatever the store's default), ``env`` added to
    their environment."""
    with ExitStack() as stack:
        servers = []
        for _ in range(count):
            log = tmp_path / f"server-{_next_log(tmp_path)}.log"
            server = ServerProcess(db_url, log=log, env={"DICEBOUND_WORKERS": "1", **(env or {})})
            stack.callback(server.stop)
            servers.append(server.start())
        yield servers


def _next_log(tmp_path: Path) -> int:
    return len(list(tmp_path.glob("server-*.log"))) + 1


def client(base: str, token: str, timeout: float = 60.0) -> httpx.Client:
    return httpx.Client(
        base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
    )


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (
        f"{response.request.method} {response.request.url} answered "
        f"{response.status_code}: {response.text}"
    )
    return response.json()


def reserve_character(name: str, resolve: int) -> dict[str, Any]:
    """A Reserve character whose Resolve pool holds ``resolve`` points, full."""
    return {
        "name": name,
        "sheet": {
            "v": 1,
            "build": {
                "abilities": {"grit": 3},
                "skills": {"push": "r1"},
                "fields": {"depth": max(resolve, 1)},
            },
        },
        "live": {"pools": {"resolve": {"value": resolve}}},
    }


def reserve_game(base: str, resolve: int = 20) -> tuple[str, str]:
    """Upload the Reserve ruleset (if not there yet), make a game, put Ann with
    ``resolve`` points; (game id, game token)."""
    with httpx.Client(base_url=base, headers=admin_headers(), timeout=30) as admin:
        uploaded = admin.post("/rulesets", content=RESERVE_FILE.read_bytes(), headers=JSON)
        assert uploaded.status_code in (200, 201), uploaded.text
        game = ok(admin.post("/games", json={"name": "Reserve", "ruleset": "reserve-test"}), 201)
    with client(base, game["token"]) as player:
        ok(
            player.put(
                f"/games/{game['id']}/characters/Ann", json=reserve_character("Ann", resolve)
            ),
            201,
        )
    return game["id"], game["token"]


def all_records(player: httpx.Client, game: str) -> list[dict[str, Any]]:
    """Every record of a game, newest first, through the pages."""
    out: list[dict[str, Any]] = []
    before: int | None = None
    while True:
        params: dict[str, int] = {"limit": 100}
        if before is not None:
            params["before"] = before
        page = ok(player.get(f"/games/{game}/records", params=params))
        out.extend(page["records"])
        if page["next"] is None:
            return out
        before = page["next"]


def pool_value(
    player: httpx.Client, game: str, name: str, pool: str, full: int | None = None
) -> int:
    """A pool's value as the store holds it. The live state is sparse: a pool the
    character file never wrote and no check has paid from is absent, and full."""
    live = ok(player.get(f"/games/{game}/characters/{name}"))["live"]
    entry = live.get("pools", {}).get(pool)
    if entry is None:
        assert full is not None, f"{name} has no {pool} pool: {live}"
        return full
    value: int = entry["value"]
    return value


def post_at_once(
    bases: Sequence[str], token: str, path: str, bodies: Sequence[Mapping[str, Any]]
) -> list[Any]:
    """POST each body to ``path`` from a thread of its own, the threads spread over
    ``bases`` in turn and let go together (a barrier), so the requests reach the
    processes at the same instant; every answer (each must be 200), in body order."""
    barrier = threading.Barrier(len(bodies))

    def one(i: int) -> Any:
        with client(bases[i % len(bases)], token) as player:
            barrier.wait(timeout=60)
            return ok(player.post(path, json=dict(bodies[i])))

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        futures = [pool.submit(one, i) for i in range(len(bodies))]
        return [f.result(timeout=120) for f in futures]
