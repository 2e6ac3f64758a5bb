"""The exact odds of a step-pool check, before and after the player's spend."""

from __future__ import annotations

from dicebound.dist import Dist
from dicebound.kinds.step_pool.after import spend_entry
from dicebound.kinds.step_pool.model import StepCheck, StepOutcome, best_placement, outcome_of


def _effort_dist(check: StepCheck, most: int) -> Dist[StepOutcome]:
    """The EFFORT of every throw, with the free raises and a paid raise of at most
    ``most`` placed by ``best_placement``.

    A die either counts, or falls short by a deficit. Only deficits some raise can close
    matter, and of those only the smallest (as many as there are raises): a raise placed
    on a larger one does at least as well on a smaller one left free. So the dice are
    walked keeping (dice that count, the smallest closable deficits, sorted).
    """
    quality, tool = check.free_quality, check.tool
    sizes = [r for r in (quality, tool, most) if r > 0]
    keep, reach = len(sizes), max(sizes, default=0)
    target = check.target
    states: dict[tuple[int, tuple[int, ...]], int] = {(0, ()): 1}
    for sides in check.dice:
        classes: dict[int, int] = {}
        for face in range(1, sides + 1):
            d = max(0, target - face)
            key = d if d <= reach else -1  # -1: short by more than any raise closes
            classes[key] = classes.get(key, 0) + 1
        grown: dict[tuple[int, tuple[int, ...]], int] = {}
        for (counted, short), weight in states.items():
            for d, ways in classes.items():
                if d == 0:
                    key2 = (counted + 1, short)
                elif d < 0 or keep == 0:
                    key2 = (counted, short)
                else:
                    key2 = (counted, tuple(sorted((*short, d)))[:keep])
                grown[key2] = grown.get(key2, 0) + weight * ways
        states = grown
    gains: dict[tuple[int, ...], int] = {}
    weights: dict[int, int] = {}
    for (counted, short), weight in states.items():
        gain = gains.get(short)
        if gain is None:
            gain = gains[short] = best_placement(short, quality, tool, most)[0]
        effort = counted + gain
        weights[effort] = weights.get(effort, 0) + weight
    return Dist.from_positive({outcome_of(e): w for e, w in weights.items()})


def distribution(check: StepCheck) -> Dist[StepOutcome]:
    """The exact distribution of what ``roll`` gives: the free raises placed best, no spend."""
    return _effort_dist(check, 0)


def distribution_after(
    check: StepCheck, pool_id: str, points: int, pool_value: int
) -> Dist[StepOutcome]:
    """The exact distribution when, after every throw, the player spends up to ``points``
    of ``pool_id`` (which holds ``pool_value``) as ``spend_after`` does: whenever it
    raises the EFFORT, placed best.

    Raises:
        TagError: the pool is not one the check spends.
    """
    entry = spend_entry(check.config, pool_id)
    budget = max(0, min(points, pool_value))
    return _effort_dist(check, budget // entry.rate)
