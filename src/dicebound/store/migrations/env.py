"""Alembic's environment: migrations run on the connection ``Store`` hands in."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from dicebound.store.models import Base

connection: Connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata)
with context.begin_transaction():
    context.run_migrations()
