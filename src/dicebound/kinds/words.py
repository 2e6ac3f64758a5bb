"""Words several kinds share in the Game Master's lesson."""

from __future__ import annotations

__all__ = ["situational_lines"]


def situational_lines(situational: tuple[int, int] | None) -> list[str]:
    """The ``bonus=`` line of a kind whose situation adds or takes dice."""
    if situational is None:
        return []
    low, high = situational
    return [f'bonus="+N" or "-N": dice added or taken for the situation, {low} to {high:+d}.']
