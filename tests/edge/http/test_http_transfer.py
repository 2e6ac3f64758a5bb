"""``GET /games/{game}/export`` and ``POST /games/import`` against real servers: a game
exported from a SQLite store's server and imported into a PostgreSQL store's, every
record verified there; for the admin alone; a file that is no game file refused."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from server_support import client, logs_on_failure, ok, running
from service_support import ADMIN_TOKEN, JSON, store_url_for
from transfer_support import MAUD, played_game, record_ids

pytestmark = pytest.mark.server


@logs_on_failure
def test_a_game_exported_by_one_server_is_imported_by_another(tmp_path: Path) -> None:
    with (
        store_url_for("sqlite", tmp_path) as source_db,
        store_url_for("postgresql", tmp_path) as target_db,
        running(source_db, tmp_path) as [source],
        running(target_db, tmp_path) as [target],
        client(source.base, ADMIN_TOKEN) as admin,
        client(target.base, ADMIN_TOKEN) as target_admin,
    ):
        game = played_game(admin)  # type: ignore[arg-type]  # httpx, as TestClient
        with client(source.base, game.token) as master:
            assert master.get(game.path("export")).status_code == 403
        exported = admin.get(game.path("export"))
        assert exported.headers["content-type"] == "application/json"
        file = ok(exported)
        assert len(file["records"]) == 9
        with client(target.base, game.token) as stranger:
            assert stranger.post("/games/import", json=file).status_code == 403
        assert (
            target_admin.post(
                "/games/import", content=b"{}", headers={"Content-Type": "text/plain"}
            ).status_code
            == 415
        )
        refused = target_admin.post("/games/import", json={**file, "version": 9})
        assert refused.status_code == 422 and "version" in refused.json()["detail"]
        made = ok(target_admin.post("/games/import", json=file), 201)
        assert set(made["seats"]) == {MAUD} and made["records"] == 9
        with client(target.base, made["token"]) as master:
            moved = game.__class__(
                game.id, made["token"], game.ruleset, game.version, game.characters
            )
            ids = record_ids(master, moved)  # type: ignore[arg-type]
            assert len(ids) == 9
            for record_id in ids:
                assert ok(master.get(moved.path("records", record_id, "verify")))["verified"]
        again = target_admin.post("/games/import", json=file)
        assert again.status_code == 409


def test_an_import_past_the_default_body_cap_is_taken(tmp_path: Path) -> None:
    with store_url_for("sqlite", tmp_path) as db, running(db, tmp_path) as [server]:
        big = b'{"format": "dicebound-game", "pad": "' + b"x" * (600 * 1024) + b'"}'
        answered = httpx.post(
            server.base + "/games/import",
            content=big,
            headers={**JSON, "Authorization": f"Bearer {ADMIN_TOKEN}"},
            timeout=30,
        )
        assert answered.status_code == 422  # read whole, then refused by its schema, not 413
