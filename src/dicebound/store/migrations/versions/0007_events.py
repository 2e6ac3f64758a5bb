"""A game's events: what its event stream sends (``GET /games/{game}/events``), kept
so that a client that reconnects with ``Last-Event-ID`` misses nothing. ``id`` counts
per game in commit order; ``payload`` is the event's JSON as written when it happened;
the newest 1000 of a game are kept. And an index on who a record is about, so an
event about a character counts its records without reading the game's history.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_index("records_by_who", "records", ["game_id", "who", "kind"])


def downgrade() -> None:
    op.drop_index("records_by_who", table_name="records")
    op.drop_table("events")
