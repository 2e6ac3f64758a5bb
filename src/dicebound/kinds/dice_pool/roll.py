"""Throwing a dice-pool check, in the throw order docs/design/readings.md writes down."""

from __future__ import annotations

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled
from dicebound.kinds.dice_pool.model import (
    PoolCheck,
    PoolOutcome,
    empty_outcome,
    face_table,
    pool_outcome,
)


def roll(check: PoolCheck, dice: DiceSource) -> Rolled:
    """Throw the check in the throw order docs/design/readings.md writes down, and count it.

    The pool's dice; then, in the order of the dice that set them off, each explosion's
    chain to its end (at most ``max_extra`` added dice in all); then one pass through the
    dice in throw order, throwing again each die at or below the re-throw's ``upTo``
    (once, or until it shows more), a new face that explodes setting off its chain at
    once, the chain's dice joining the end of the pass; the pass ends after
    ``max_rethrows`` re-throws. A face thrown again no longer counts for anything.
    """
    sides = check.sides
    effect_of = face_table(check)
    if check.dice == 0:
        return _rolled(check, (), empty_outcome(check), 0)
    shown: list[str] = []
    marks: list[list[str]] = []  # per shown die: what happened to it, for the card
    extra = 0

    def throw(why: str | None = None) -> int:
        face = dice.throw(sides)
        shown.append(str(face))
        marks.append([why] if why else [])
        return face

    def chain(at: int) -> list[tuple[int, int]]:
        """One explosion's dice (face, shown index), set off by the die shown at ``at``,
        followed to the end of the chain or of the cap."""
        nonlocal extra
        added: list[tuple[int, int]] = []
        while extra < check.max_extra:
            if "exploded" not in marks[at]:
                marks[at].append("exploded")
            face = throw("added")
            at = len(shown) - 1
            extra += 1
            added.append((face, at))
            if not effect_of[face].explodes:
                break
        return added

    throw_one = dice.throw
    faces = [throw_one(sides) for _ in range(check.dice)]  # the pool: nothing marked yet
    shown.extend(map(str, faces))
    marks.extend([] for _ in faces)
    where = list(range(check.dice))  # each standing face's index in ``shown``
    for i in range(check.dice):
        if effect_of[faces[i]].explodes:
            for face, at in chain(where[i]):
                faces.append(face)
                where.append(at)
    rerolled = rethrows = 0
    i = 0
    while check.reroll is not None and i < len(faces) and rethrows < check.max_rethrows:
        if effect_of[faces[i]].rethrow:
            rerolled += 1
            while True:
                marks[where[i]].append("rethrown")
                faces[i] = throw("thrown-again")
                where[i] = len(shown) - 1
                rethrows += 1
                effect = effect_of[faces[i]]
                if effect.explodes:
                    for face, at in chain(where[i]):
                        faces.append(face)
                        where.append(at)
                if check.reroll.mode == "once" or not effect.rethrow:
                    break
                if rethrows >= check.max_rethrows:
                    break
        i += 1
    counted = low_first = exact = 0
    succeeded = low_seen = False
    for index, (face, at) in enumerate(zip(faces, where, strict=True)):
        effect = effect_of[face]
        if effect.successes:
            marks[at].append("doubled" if effect.successes == 2 else "hit")
            counted += effect.successes
            succeeded = True
        if effect.cancels:
            marks[at].append("cancels")
            counted -= effect.cancels
        if effect.exact:
            marks[at].append("exact")
            exact += 1
        if effect.low:
            low_seen = True
            if index < check.dice:  # one of the dice first thrown
                low_first += 1
    outcome = pool_outcome(check, counted, succeeded, low_seen, low_first, exact)
    return _rolled(check, tuple(shown), outcome, rerolled, tuple(map(tuple, marks)))


def _rolled(
    check: PoolCheck,
    shown: tuple[str, ...],
    outcome: PoolOutcome,
    rerolled: int,
    marks: tuple[tuple[str, ...], ...] = (),
) -> Rolled:
    extras: list[tuple[str, str]] = []
    if rerolled:
        extras.append(("rerolled", str(rerolled)))
        if check.reroll_id is not None:
            extras.append(("reroll", check.reroll_id))
    if outcome.complication:
        extras.append(("complication", "true"))
    if outcome.exact:
        extras.append(("exact", str(outcome.exact)))
    return Rolled(
        rolls=shown,
        used=outcome.total,
        modifier=0,
        total=outcome.total,
        success=outcome.success,
        critical_success=outcome.critical_success,
        critical_failure=outcome.critical_failure,
        dice=f"{len(shown)}d{check.sides}",
        mode="normal",
        resolution="successes",
        extras=tuple(extras),
        outcome=outcome,
        marks=marks,
    )
