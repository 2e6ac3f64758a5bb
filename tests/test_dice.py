"""The seeded source is written down (docs/design/readings.md "Seeded draws"); these
vectors pin it on every machine."""

from __future__ import annotations

import hashlib

import pytest

from dicebound.dice import ForcedFaces, SeededDice, fresh_seed
from dicebound.errors import DiceError

# Test vectors, as the docs give them: seed "42".
VECTORS = [
    ("42", 20, [19, 19, 11, 9]),
    ("42", 6, [5, 3, 5, 5]),
]


@pytest.mark.parametrize(("seed", "sides", "faces"), VECTORS, ids=lambda v: str(v))
def test_seeded_source_matches_the_written_vectors(seed: str, sides: int, faces: list[int]) -> None:
    dice = SeededDice(seed)
    assert [dice.throw(sides) for _ in faces] == faces


def _by_hand(seed: str, sides: int, count: int) -> list[int]:
    """The algorithm of docs/design/readings.md "Seeded draws", written out independently
    of dice.py."""
    out, k = [], 0
    while len(out) < count:
        x = int.from_bytes(hashlib.sha256(f"{seed}:{k}".encode()).digest()[:8], "big")
        k += 1
        if x < 2**64 - (2**64 % sides):
            out.append(x % sides + 1)
    return out


@pytest.mark.parametrize("sides", [2, 3, 6, 10, 20, 100, 1000, 7919])
@pytest.mark.parametrize("seed", ["0", "42", "1234567890", "7-3"])
def test_draw_k_of_seed_s_is_sha256_of_s_colon_k(seed: str, sides: int) -> None:
    dice = SeededDice(seed)
    assert [dice.throw(sides) for _ in range(50)] == _by_hand(seed, sides, 50)


def test_a_draw_at_or_above_the_rejection_limit_takes_the_next_draw() -> None:
    # With n = 2**63 + 1 about half of all draws are rejected; the by-hand version agrees.
    sides = 2**63 + 1
    dice = SeededDice("reject")
    assert [dice.throw(sides) for _ in range(20)] == _by_hand("reject", sides, 20)


def test_same_seed_same_faces_and_seed_is_text() -> None:
    assert [SeededDice(7).throw(20) for _ in range(3)] == [SeededDice("7").throw(20)] * 3


def test_fresh_seed_is_a_decimal_text() -> None:
    assert fresh_seed().isdigit()


def test_forced_faces_are_consumed_in_order() -> None:
    dice = ForcedFaces([5, 1, 6])
    assert [dice.throw(10), dice.throw(6), dice.throw(6)] == [5, 1, 6]
    assert dice.left == 0


@pytest.mark.parametrize(
    ("faces", "sides", "says"),
    [([], 20, "ran out"), ([21], 20, "not a face of a d20"), ([0], 6, "not a face of a d6")],
    ids=["too few faces", "face above the top", "face zero"],
)
def test_forced_faces_errors_are_clear(faces: list[int], sides: int, says: str) -> None:
    with pytest.raises(DiceError, match=says):
        ForcedFaces(faces).throw(sides)
