"""A character's sheet kept once per game, by its digest: a record's snapshot of a
card names the sheet it stood on (``"sheet_digest"``) where it wrote the whole sheet
(some 600 bytes, the same in every record of that sheet), and reads it back from here.
Every sheet a party holds now is kept; records written before keep their sheets in
full, and read as they always did.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_KEY = "sheet_digest"


def _digest(sheet: str) -> str:
    """``repo.sheet_digest`` as this revision wrote it (a migration stands on its own)."""
    return hashlib.sha256(sheet.encode("utf-8")).hexdigest()


def upgrade() -> None:
    op.create_table(
        "sheet_texts",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("body", sa.Text(), nullable=False),
    )
    connection = op.get_bind()
    kept: set[tuple[str, str]] = set()
    rows = []
    for game_id, sheet in connection.execute(sa.text("SELECT game_id, sheet FROM characters")):
        key = (game_id, _digest(sheet))
        if sheet != "null" and key not in kept:
            kept.add(key)
            rows.append({"game_id": game_id, "digest": key[1], "body": sheet})
    if rows:
        connection.execute(
            sa.text(
                "INSERT INTO sheet_texts (game_id, digest, body) VALUES (:game_id, :digest, :body)"
            ),
            rows,
        )


def _whole(card: Any, bodies: dict[str, str]) -> Any:
    """A card as records wrote it before this revision: its sheet in full."""
    if not isinstance(card, dict) or _KEY not in card:
        return card
    return {
        ("sheet" if key == _KEY else key): (json.loads(bodies[value]) if key == _KEY else value)
        for key, value in card.items()
    }


def downgrade() -> None:
    connection = op.get_bind()
    refs = connection.execute(
        sa.text("SELECT id, game_id, kind, sheet FROM records WHERE sheet LIKE :ref"),
        {"ref": f'%"{_KEY}"%'},
    ).all()
    games: dict[str, dict[str, str]] = {}
    for record_id, game_id, kind, sheet in refs:
        bodies = games.get(game_id)
        if bodies is None:
            read = sa.text("SELECT digest, body FROM sheet_texts WHERE game_id = :g")
            bodies = games[game_id] = dict(connection.execute(read, {"g": game_id}).all())
        value = json.loads(sheet)
        if kind == "sheet":
            value = {**value, "party": [_whole(card, bodies) for card in value["party"]]}
        else:
            value = _whole(value, bodies)
        connection.execute(
            sa.text("UPDATE records SET sheet = :s WHERE id = :i"),
            {"s": json.dumps(value, separators=(",", ":")), "i": record_id},
        )
    op.drop_table("sheet_texts")
