"""Each record's number within its game (``records.number``: 1, 2, 3 ... in the order
written), so a table reads its own history from #1 whatever other games wrote; the
ids stay global. The game keeps the last number it gave (``games.records_numbered``),
raised in the transaction that writes the records under the game's row lock: a number
is never reused, and never counted from the rows (a record deleted later leaves the
others' numbers as they were). Existing records are numbered by game in id order, and
each answer kept for an idempotency key gives every record it names its number, so a
retry answers as a new check would.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "games",
        sa.Column("records_numbered", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.add_column("records", sa.Column("number", sa.BigInteger(), nullable=True))
    op.execute(
        "UPDATE records SET number = numbered.n FROM (SELECT id, row_number() OVER "
        "(PARTITION BY game_id ORDER BY id) AS n FROM records) AS numbered "
        "WHERE records.id = numbered.id"
    )
    op.execute(
        "UPDATE games SET records_numbered = coalesce((SELECT max(number) FROM records "
        "WHERE records.game_id = games.id), 0)"
    )
    with op.batch_alter_table("records") as batch:
        batch.alter_column("number", existing_type=sa.BigInteger(), nullable=False)
    op.create_index("records_by_number", "records", ["game_id", "number"], unique=True)
    _number_kept_answers(op.get_bind())


def _numbered(entry: Any, numbers: dict[int, int], *, first: bool) -> Any:
    """An answer's result or command with its record's number after its id (first
    among its fields for a command, as ``POST /checks`` writes them)."""
    if not isinstance(entry, dict) or "number" in entry:
        return entry
    record_id = entry.get("id")
    number = numbers.get(record_id) if isinstance(record_id, int) else None
    if first:
        return {"id": record_id, "number": number, **entry}
    return {**entry, "number": number}


def _number_kept_answers(connection: sa.Connection) -> None:
    """Each kept answer's records numbered (a day's keys at most: the table is swept)."""
    kept = connection.execute(sa.text("SELECT game_id, key, answer FROM idempotency")).all()
    read = sa.text("SELECT id, number FROM records WHERE id IN :ids").bindparams(
        sa.bindparam("ids", expanding=True)
    )
    for game_id, key, text in kept:
        answer = json.loads(text)
        if not isinstance(answer, dict):
            continue
        entries = [*(answer.get("results") or ()), *(answer.get("sheet") or ())]
        ids = [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), int)]
        numbers: dict[int, int] = {}
        if ids:
            numbers = {int(i): int(n) for i, n in connection.execute(read, {"ids": ids})}
        for field, first in (("results", False), ("sheet", True)):
            if isinstance(answer.get(field), list):
                answer[field] = [_numbered(e, numbers, first=first) for e in answer[field]]
        connection.execute(
            sa.text("UPDATE idempotency SET answer = :a WHERE game_id = :g AND key = :k"),
            {"a": json.dumps(answer, separators=(",", ":")), "g": game_id, "k": key},
        )


def downgrade() -> None:
    # dropped in place (SQLite 3.35 and later, as PostgreSQL): a batch copy of ``games``
    # would drop the table, and its records and characters with it by their cascade
    op.drop_index("records_by_number", table_name="records")
    op.execute("ALTER TABLE records DROP COLUMN number")
    op.execute("ALTER TABLE games DROP COLUMN records_numbered")
