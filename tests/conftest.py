"""Shared fixtures.

``marinara_dir`` is the folder of Marinara's reference rulesets, read (never copied) by
the tests that check real files import unchanged. It lives beside the repository, at
``<repo>/../shared/marinara``; where it is absent those tests skip and say why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: CI shares two cores with nothing else to spare, and a slow
# example is not a wrong one. Failures still print the blob that reproduces them.
settings.register_profile("dicebound", deadline=None, print_blob=True)
settings.load_profile("dicebound")

MARINARA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "marinara"


@pytest.fixture
def marinara_dir() -> Path:
    """The folder of Marinara's example rulesets; skips the test when it is absent."""
    if not MARINARA_DIR.is_dir():
        pytest.skip(
            f"{MARINARA_DIR} is absent: the Marinara reference rulesets are read from the "
            "shared folder beside the repository"
        )
    return MARINARA_DIR
