"""Where the repository's folders are, for tests at any depth under ``tests/``."""

from __future__ import annotations

from pathlib import Path

__all__ = ["CASES", "DATA", "REPO"]

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "cases"
DATA = REPO / "src" / "dicebound" / "data"
