"""How many records a game holds per ``(who, kind)``, kept as records are written, so
the party view and a character's event count them in a few rows however long the
game's history grows (counting the records themselves grew with every check). The
index on who a record is about served only that count, and goes.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "record_tallies",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("who", sa.String(100), primary_key=True),
        sa.Column("kind", sa.String(10), primary_key=True),
        sa.Column("how_many", sa.BigInteger(), nullable=False),
    )
    op.execute(
        "INSERT INTO record_tallies (game_id, who, kind, how_many) "
        "SELECT game_id, who, kind, count(*) FROM records GROUP BY game_id, who, kind"
    )
    op.drop_index("records_by_who", table_name="records")


def downgrade() -> None:
    op.create_index("records_by_who", "records", ["game_id", "who", "kind"])
    op.drop_table("record_tallies")
