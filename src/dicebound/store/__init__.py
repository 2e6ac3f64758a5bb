"""The store: games, characters, records and rulesets in SQLite or PostgreSQL.

SQLAlchemy 2 tables (``models``), Alembic migrations (``migrations``) and ``Store``,
which opens a database, migrates it and hands out one transaction at a time. Nothing
of the pure core imports this package; ``dicebound.service`` joins the two.
"""

from dicebound.store.db import Store, StoreError, open_store

__all__ = ["Store", "StoreError", "open_store"]
