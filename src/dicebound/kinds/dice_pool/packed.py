"""Counts packed a slot each into one integer, shared by the odds and the sequences."""

from __future__ import annotations

from collections.abc import Iterator

Packed = tuple[int, int]  # (the net of slot 0, the weights packed a slot each)


def packed_slots(packed: Packed, width: int) -> Iterator[tuple[int, int]]:
    """The (net, weight) of every slot of packed counts that holds a weight."""
    low, poly = packed
    nbytes = width // 8
    raw = poly.to_bytes((poly.bit_length() + width - 1) // width * nbytes, "little")
    for slot in range(len(raw) // nbytes):
        w = int.from_bytes(raw[slot * nbytes : (slot + 1) * nbytes], "little")
        if w:
            yield low + slot, w


def packed_sum(a: Packed, b: Packed, width: int) -> Packed:
    """Two packed count sets added, slot by slot, on the lower one's slots."""
    if a[0] > b[0]:
        a, b = b, a
    return a[0], a[1] + (b[1] << ((b[0] - a[0]) * width))
