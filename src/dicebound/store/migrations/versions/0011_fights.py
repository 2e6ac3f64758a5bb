"""A game's fight: one per game, its state as JSON text and a revision raised on every
change. It is written in the transaction that plays it, under the game's row lock
(as a check's changes to the party are), so two processes never play one turn twice.
It goes with its game.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fights",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("updated", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fights")
