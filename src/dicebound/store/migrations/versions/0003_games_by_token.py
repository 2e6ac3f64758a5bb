"""An index to find a game from its token's hash: the MCP endpoint is told its game by
the token alone.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("games_by_token", "games", ["token_hash"])


def downgrade() -> None:
    op.drop_index("games_by_token", table_name="games")
