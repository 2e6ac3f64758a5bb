"""Idempotency keys for retried checks; an index for a game's history, newest first.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_index("records_by_game", "records", ["game_id", "id"])


def downgrade() -> None:
    op.drop_index("records_by_game", table_name="records")
    op.drop_table("idempotency")
