"""Players' seats: one token per character, kept as its hash, that may act only as the
rights table of ``app/access.py`` lets a player.

A seat belongs to its character: deleting the character (or its game, whose characters
go with it) deletes the seat. A token's hash is unique, so a token names one seat.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(40), primary_key=True),
        sa.Column("character", sa.String(100), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "character"],
            ["characters.game_id", "characters.name"],
            ondelete="CASCADE",
        ),
    )
    op.create_index("seats_by_token", "seats", ["token_hash"], unique=True)


def downgrade() -> None:
    op.drop_index("seats_by_token", table_name="seats")
    op.drop_table("seats")
