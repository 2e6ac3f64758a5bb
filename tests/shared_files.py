"""The shared folder beside the repository: reference files the tests read, never copy.

CI lays it beside the clone; a user's machine may not have it. ``shared_path`` is the one
way a test reaches it: it skips and says why where a file is absent, and fails in CI
(``CI=true``), where its absence means the tests did not test what they say.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["SHARED_DIR", "shared_path"]

SHARED_DIR = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A file or folder of the shared folder beside the repository. Where it is absent
    the test skips and says why; in CI (``CI=true``) it fails, since CI must read it."""
    path = SHARED_DIR.joinpath(*parts)
    if not path.exists():
        reason = (
            f"{path} is absent: the reference files are read from the shared folder "
            "beside the repository"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: CI lays it beside the clone, so it must be there)")
        pytest.skip(reason)
    return path
