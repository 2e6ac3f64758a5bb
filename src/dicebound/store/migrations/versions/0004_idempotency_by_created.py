"""An index on when each idempotency key was written: keys expire after 24 hours, and
each write deletes a few of the oldest expired ones without reading the whole table.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("idempotency_by_created", "idempotency", ["created"])


def downgrade() -> None:
    op.drop_index("idempotency_by_created", table_name="idempotency")
