"""The HTTP edge: FastAPI routes over ``dicebound.app``, errors as problem documents."""

from dicebound.edge.http.app import create_app

__all__ = ["create_app"]
