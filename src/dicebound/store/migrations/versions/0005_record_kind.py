"""Records of two kinds: a check thrown, or a ``[sheet:]`` command applied or refused.
Every record written before is a check, so the column defaults to ``check``.

A sheet record keeps its outcome and changes in ``result``, the tag as written in
``ask``, and what replays it (the command's number in its text, the party as it stood)
in ``sheet``; it has no seed, faces, choice or answer.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "records",
        sa.Column("kind", sa.String(10), nullable=False, server_default="check"),
    )


def downgrade() -> None:
    with op.batch_alter_table("records") as batch:
        batch.drop_column("kind")
