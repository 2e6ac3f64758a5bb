"""Dice sources. The core never picks its own randomness: a source is passed in.

``SeededDice`` is written down so anyone can replay a record from its seed on any
machine: draw k of seed S is the first 8 bytes of SHA-256 of the UTF-8 text ``S:k``,
read big-endian; a die of n faces rejects a draw at or above 2**64 - (2**64 mod n) and
takes the next draw, else shows ``x mod n + 1``. Draws count from 0.

Test vectors (seed ``"42"``): a d20 shows 19, 19, 11, 9 on its first four throws;
a d6 shows 5, 3, 5, 5. (``tests/test_dice.py`` checks them.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Protocol

from dicebound.errors import DiceError

__all__ = ["DiceSource", "ForcedFaces", "SeededDice", "SeededThrow", "fresh_seed"]

_SPAN = 1 << 64


@cache
def _hash_function() -> Callable[[bytes], Any]:
    """hashlib's SHA-256, imported the first time dice are seeded (odds never hash)."""
    from hashlib import sha256

    return sha256


def _no_such_die(sides: int) -> str:
    """Why a die of ``sides`` faces cannot be thrown from 64-bit draws."""
    if sides < 1:
        return f"a die needs at least one face, not {sides}"
    return f"a die may have at most 2**64 faces (one draw each), not {sides}"


@cache
def _read_draw() -> Callable[[bytes], tuple[int]]:
    """A digest's first 8 bytes read big-endian (``struct``, imported when first asked)."""
    from struct import Struct

    return Struct(">Q").unpack_from


class DiceSource(Protocol):
    """Where faces come from. ``throw(n)`` gives one face of an n-sided die, 1..n."""

    def throw(self, sides: int) -> int: ...


def fresh_seed() -> str:
    """A new seed from the operating system's randomness, for a check given none."""
    import secrets  # imported here: a process that never throws unseeded never pays for it

    return str(secrets.randbelow(10**12))


class SeededDice:
    """The written-down seeded source. Deterministic for a given seed text."""

    __slots__ = ("_draw", "_read", "_sha256", "seed")

    def __init__(self, seed: str | int) -> None:
        self.seed = str(seed)
        self._draw = 0
        self._sha256 = _hash_function()
        self._read = _read_draw()

    def throw(self, sides: int) -> int:
        if not 1 <= sides <= _SPAN:
            raise DiceError(_no_such_die(sides))
        limit = _SPAN - (_SPAN % sides)
        seed, draw, sha256, read = self.seed, self._draw, self._sha256, self._read
        while True:  # this runs for every die thrown: locals only
            (x,) = read(sha256(f"{seed}:{draw}".encode()).digest())
            draw += 1
            if x < limit:
                self._draw = draw
                return x % sides + 1


class SeededThrow:
    """Dice whose sides are known before they are thrown, thrown from a seed: the faces
    ``SeededDice(seed)`` shows for them in order (a check whose faces never decide what
    is thrown next). One die, the usual check, is read from its first draw here; any
    other throw (more dice, or a draw past the last whole run of faces) goes through
    ``SeededDice`` itself."""

    __slots__ = ("_one", "_read", "_sha256", "sides")

    def __init__(self, sides: tuple[int, ...]) -> None:
        for n in sides:
            if not 1 <= n <= _SPAN:
                raise DiceError(_no_such_die(n))
        self.sides = sides
        self._one = (sides[0], _SPAN - (_SPAN % sides[0])) if len(sides) == 1 else None
        self._sha256 = _hash_function()
        self._read = _read_draw()

    def faces(self, seed: str) -> tuple[int, ...]:
        """The faces of seed ``seed``, one a die, in throw order."""
        if self._one is not None:  # SeededDice's first draw, written out
            n, limit = self._one
            (x,) = self._read(self._sha256(f"{seed}:0".encode()).digest())
            if x < limit:
                return (x % n + 1,)
        dice = SeededDice(seed)
        return tuple(map(dice.throw, self.sides))


class ForcedFaces:
    """Faces given in advance, consumed in throw order. For tests and replays."""

    __slots__ = ("_faces", "_used")

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = tuple(faces)
        self._used = 0

    @property
    def used(self) -> int:
        return self._used

    @property
    def left(self) -> int:
        return len(self._faces) - self._used

    def throw(self, sides: int) -> int:
        if self._used >= len(self._faces):
            raise DiceError(
                f"the forced faces ran out: the check needed a die number {self._used + 1} "
                f"(a d{sides}) but only {len(self._faces)} face(s) were given"
            )
        face = self._faces[self._used]
        if not 1 <= face <= sides:
            raise DiceError(
                f"forced face {face} (number {self._used + 1}) is not a face of a d{sides}: "
                f"give a number from 1 to {sides}"
            )
        self._used += 1
        return face
