"""The version of dicebound that answers: the one /health, the API document and the
MCP server name."""

from __future__ import annotations

from importlib import metadata

__all__ = ["dicebound_version"]


def dicebound_version() -> str:
    try:
        return metadata.version("dicebound")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare tree
        return "0+unknown"
