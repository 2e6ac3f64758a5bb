"""Helpers for the HTTP API's tests: games made through the API, the packaged files,
the command line run in process (the API must answer what it prints), problem
documents, and the store's rows read straight from the database."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from dicebound.edge.cli import main
from service_support import admin_headers

DATA = Path(__file__).resolve().parents[1] / "src" / "dicebound" / "data"
CASES = Path(__file__).resolve().parent / "cases"

LOCKPICK = (
    '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
)
STEALTH = '[skill_check: skill="Stealth" dc="15"]'
LUCIA_SPENDS = '[skill_check: skill="Stealth" difficulty="Routine" spend="willpower_points:1"]'


# (case id, ruleset, packaged characters, text, options): one check of every kind, as
# the command line would be asked it (``cli_check``).
AS_CLI: list[tuple[str, str, tuple[str, ...], str, dict[str, Any]]] = [
    (
        "dice-sum, two characters and a tag in error",
        "dnd5e-srd",
        ("mira", "bram"),
        'Mira creeps. [skill_check: skill="Stealth" dc="15"] Bram heaves. '
        '[skill_check: skill="Athletics" dc="12" who="Bram Ironhand" mode=advantage] '
        'And flies? [skill_check: skill="Flying" dc="10"]',
        {"seed": "42"},
    ),
    ("dice-pool with a spend", "wod-pool", ("lucia",), LUCIA_SPENDS, {"seed": "42"}),
    (
        "dice-pool (shadowrun)",
        "shadowrun-pool",
        ("vex",),
        '[skill_check: skill="Pistols" difficulty="Average"]',
        {"seed": "3"},
    ),
    (
        "symbol-pool",
        "genesys",
        ("kira",),
        '[skill_check: skill="Cool" difficulty="Average"]',
        {"seed": "42"},
    ),
    (
        "dice-highest",
        "blades",
        ("silk",),
        '[skill_check: skill="Prowl" difficulty="Action roll"]',
        {"seed": "9"},
    ),
    (
        "roll-against",
        "coc7e",
        ("eleanor",),
        '[skill_check: skill="Appraise" difficulty="Hard"]',
        {"seed": "42"},
    ),
    (
        "fate dice",
        "fate-core",
        ("ines",),
        '[skill_check: skill="Athletics" difficulty="Mediocre"]',
        {"seed": "1"},
    ),
    (
        "open-ended",
        "rolemaster-open",
        ("aelith",),
        '[skill_check: skill="Climbing" difficulty="Routine"]',
        {"seed": "42"},
    ),
    (
        "step-pool, two characters",
        "advanced-resolution",
        ("peet", "maud"),
        f'{LOCKPICK} [skill_check: skill="Martial/Swordplay" difficulty="Rare" who="Maud Harrowgate"]',
        {"seed": "42"},
    ),
    ("step-pool, forced faces", "advanced-resolution", ("peet",), LOCKPICK, {"faces": [5, 1, 6]}),
    (
        "step-pool, a Sacrifice chosen",
        "advanced-resolution",
        ("peet",),
        '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon"]',
        {"faces": [1, 1, 6], "choose": "succeed"},
    ),
]


def ruleset_file(ruleset_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "rulesets" / f"{ruleset_id}.json").read_text())
    return data


def character_file(ruleset_id: str, short: str) -> dict[str, Any]:
    path = DATA / "characters" / ruleset_id / f"{short}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass(frozen=True)
class Game:
    """A game made through the API, with the token it was given."""

    id: str
    token: str
    ruleset: str
    version: int
    characters: tuple[str, ...]

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.token)

    def path(self, *parts: str | int) -> str:
        return "/".join([f"/games/{self.id}", *(str(p) for p in parts)])

    def character(self, name: str) -> str:
        return self.path("characters", name)


def make_game(
    client: TestClient,
    ruleset: str,
    *characters: str,
    version: int | None = None,
    layers: Iterable[str] = (),
    name: str = "The test game",
) -> Game:
    """Make a game (admin) and put packaged characters (short names) into it."""
    body: dict[str, Any] = {"name": name, "ruleset": ruleset, "layers": list(layers)}
    if version is not None:
        body["version"] = version
    made = client.post("/games", json=body, headers=admin_headers())
    assert made.status_code == 201, made.text
    answer = made.json()
    names: list[str] = []
    for short in characters:
        file = character_file(ruleset, short)
        put = client.put(
            f"/games/{answer['id']}/characters/{file['name']}",
            json=file,
            headers=bearer(answer["token"]),
        )
        assert put.status_code == 201, put.text
        names.append(file["name"])
    return Game(answer["id"], answer["token"], answer["ruleset"], answer["version"], tuple(names))


def cli(*argv: str, code: int = 0) -> str:
    """Run ``dicebound ARGV`` in process; its standard output."""
    out = io.StringIO()
    assert main(list(argv), out=out) == code
    return out.getvalue()


def cli_json(*argv: str, code: int = 0) -> Any:
    return json.loads(cli(*argv, code=code))


def cli_check(ruleset: str, characters: Iterable[str], text: str, options: dict[str, Any]) -> Any:
    """What ``dicebound check --json`` prints for a text with ``options`` (seed or
    faces, choose) and packaged characters (short names)."""
    argv = ["check", "--ruleset", ruleset]
    for short in characters:
        argv += ["--character", short]
    if "seed" in options:
        argv += ["--seed", str(options["seed"])]
    else:
        argv += ["--faces", ",".join(str(f) for f in options["faces"])]
    if "choose" in options:
        argv += ["--choose", options["choose"]]
    printed: dict[str, Any] = cli_json(*argv, "--json", text, code=1 if "Flying" in text else 0)
    return printed


def without_ids(answer: dict[str, Any]) -> dict[str, Any]:
    """A check's answer as ``check --json`` prints it: each result, sheet command and
    fight step without its record's id and number (a store's), ``sheet`` always (empty
    when the text held no sheet command)."""
    stored = ("id", "number")
    results = [{k: v for k, v in r.items() if k not in stored} for r in answer["results"]]
    sheet = [{k: v for k, v in c.items() if k not in stored} for c in answer["sheet"]]
    fight = answer["fight"]
    steps = [{k: v for k, v in s.items() if k not in stored} for s in fight["steps"]]
    return {
        "results": results,
        "errors": answer["errors"],
        "text": answer["text"],
        "sheet": sheet,
        "fight": {**fight, "steps": steps},
    }


def problem_of(response: Any, status: int) -> dict[str, Any]:
    """The RFC 9457 problem document of a refusal, checked for its shape."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"].strip()
    assert isinstance(body["detail"], str) and body["detail"].strip()
    assert body["detail"].rstrip().endswith((".", "?", ")")), body["detail"]
    return body


_TABLES = {
    "meta": "key",
    "rulesets": "id, version",
    "games": "id",
    "characters": "game_id, name",
    "records": "id",
    "idempotency": "game_id, key",
    "seats": "game_id, character",
    "events": "game_id, id",
    "sheet_texts": "game_id, digest",
}


def store_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a fixed order: to show a refusal wrote nothing."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return {
                table: [
                    tuple(row)
                    for row in connection.execute(text(f"SELECT * FROM {table} ORDER BY {order}"))
                ]
                for table, order in _TABLES.items()
            }
    finally:
        engine.dispose()


def execute(url: str, sql: str, **params: Any) -> None:
    """Run one statement on the store directly (to tamper with it), and commit."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text(sql), params)
    finally:
        engine.dispose()


def stored_value(url: str, sql: str, **params: Any) -> Any:
    """The one value a query reads from the store directly: a column as it is kept."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return connection.execute(text(sql), params).scalar_one()
    finally:
        engine.dispose()


def records(client: TestClient, game: Game) -> list[dict[str, Any]]:
    page = client.get(game.path("records"), params={"limit": 100}, headers=game.headers)
    assert page.status_code == 200, page.text
    found: list[dict[str, Any]] = page.json()["records"]
    return found


def live(client: TestClient, game: Game, name: str) -> dict[str, Any]:
    got = client.get(game.character(name), headers=game.headers)
    assert got.status_code == 200, got.text
    body: dict[str, Any] = got.json()
    return body
