"""Why a [fight:] tag is refused: the closed list of reasons, each written back on the tag
(``reason="no-budget"``) and kept on the step, so a program can branch on it.

Spelled here once; ``insufficient`` is also a ruleset problem code's word, and the
project's code names such words rather than writing them out.
"""

from __future__ import annotations

__all__ = ["INSUFFICIENT", "TOO_MANY"]

INSUFFICIENT = "insufficient"
"""The sheet cannot pay; a use, shot, charge or recharge is lacking."""

TOO_MANY = "too-many"
"""The 41st or a later [fight:] tag of one text."""
