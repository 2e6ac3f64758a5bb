"""The store: games, characters, records and rulesets in SQLite or PostgreSQL.

SQLAlchemy 2 tables with typed columns (``models``), Alembic migrations
(``migrations``), ``Store``, which opens a database, migrates it and hands out one
transaction at a time, and the repository (``repo``), which holds every statement the
application runs. Nothing of the pure core imports this package; ``dicebound.app``
joins the two.
"""

from dicebound.store.db import Store, StoreError, open_store

__all__ = ["Store", "StoreError", "open_store"]
