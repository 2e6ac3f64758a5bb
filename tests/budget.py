"""How many examples a property test tries, by the Hypothesis profile in force.

A test writes the count its property deserves in a deep run (``@settings(
max_examples=examples(300))``); the default run (profile ``dicebound``, a quarter of
Hypothesis' 100) tries a quarter of it, at least ten, and ``pytest
--hypothesis-profile=deep`` (the fuzz campaign's run) tries all of it. The profiles are
registered in ``tests/conftest.py``; a test module is imported after the profile named on
the command line is loaded, so the count is read at decoration time.
"""

from __future__ import annotations

from hypothesis import settings

DEEP_EXAMPLES = 100
"""The ``deep`` profile's own count (Hypothesis' default), against which a run's share is
measured."""


def examples(deep: int) -> int:
    """``deep`` examples in the deep run; the loaded profile's share of it otherwise."""
    share = settings.default.max_examples / DEEP_EXAMPLES
    return deep if share >= 1 else max(10, round(deep * share))
