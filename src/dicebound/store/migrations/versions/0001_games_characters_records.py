"""Games, characters, records, rulesets and the admin token.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_record_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "rulesets",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("packaged", sa.Boolean(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("ruleset_id", sa.String(100), nullable=False),
        sa.Column("ruleset_version", sa.Integer(), nullable=False),
        sa.Column("layers", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_table(
        "characters",
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sheet", sa.Text(), nullable=False),
        sa.Column("live", sa.Text(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("updated", sa.String(40), nullable=False),
    )
    op.create_table(
        "records",
        sa.Column("id", _record_id, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(40),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("who", sa.String(100), nullable=False),
        sa.Column("ask", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("seed", sa.Text(), nullable=True),
        sa.Column("faces", sa.Text(), nullable=True),
        sa.Column("choose", sa.String(10), nullable=True),
        sa.Column("ruleset_id", sa.String(100), nullable=False),
        sa.Column("ruleset_version", sa.Integer(), nullable=False),
        sa.Column("layers", sa.Text(), nullable=False),
        sa.Column("sheet", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answer_sheet", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    for table in ("records", "characters", "games", "rulesets", "meta"):
        op.drop_table(table)
