"""The dice one fight step throws: every face kept, in throw order, so the answer can
write them (``rolls``) and the state can count them (``cursor``)."""

from __future__ import annotations

from dicebound.dice import DiceSource

__all__ = ["Thrower"]


class Thrower:
    """A dice source that remembers what it showed."""

    __slots__ = ("faces", "source")

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        face = self.source.throw(sides)
        self.faces.append(face)
        return face

    def throw(self, sides: int) -> int:
        """``roll`` under the name a ``DiceSource`` answers to (the pool roller's)."""
        return self.roll(sides)

    def dice(self, count: int, sides: int) -> list[int]:
        return [self.roll(sides) for _ in range(count)]
