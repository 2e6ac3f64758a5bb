"""The exact odds of a dice-pool check: a machine over its states, packed counts, and
pool odds by face sequences (``sequences``) where they apply."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from heapq import heappop, heappush
from itertools import chain
from typing import Generic, NamedTuple, TypeVar

from dicebound.dist import Dist
from dicebound.errors import LimitExceeded
from dicebound.kinds.base import Tables
from dicebound.kinds.dice_pool import sequences
from dicebound.kinds.dice_pool.model import (
    FaceEffect,
    PoolCheck,
    PoolOutcome,
    empty_outcome,
    face_effect,
    pool_outcome,
)
from dicebound.kinds.dice_pool.packed import Packed, packed_slots, packed_sum
from dicebound.values import field, frozen, replace

MAX_ODDS_STATES = 1_000_000
"""The most states the exact odds of one check may hold at once; past it ``LimitExceeded``."""


# Where the odds' machine stands, apart from the counts it carries: pool dice not thrown
# yet, a die waiting to be thrown again (0 none, 1 a pool die, 2 an added one), added dice
# owed, added dice the cap still allows, re-throws thrown, whether a die succeeded, whether
# a botch face stands, and botch faces among the dice first thrown.
_Control = tuple[int, int, int, int, int, bool, bool, int]


class _Step(NamedTuple):
    """A face class as the odds' machine reads it (see ``FaceEffect``): ``faces`` is how
    many faces of the die read this way, ``shift`` what one adds to the packed counts
    (successes minus cancels, and exact dice)."""

    shift: int
    succeeded: bool
    low: bool
    first_low: int
    explodes: int
    rethrow: bool
    faces: int


# where one die thrown in a state leads: states (with their ``_Machine.order``, in the same
# order) and ends, each with the shifts of the packed counts and how many faces give each
_Moves = tuple[
    dict[_Control, dict[int, int]], dict[tuple[bool, bool, int], dict[int, int]], tuple[int, ...]
]


_KNOWN_STATES = 300_000  # states whose moves are kept between the estimate and the odds


@frozen
class _Machine:
    """The odds' machine for one check: its face classes and what bounds its states."""

    steps: tuple[_Step, ...]
    track: bool
    until: bool
    cap_rethrows: int
    low_cap: int
    stride: int
    start: _Control
    # visited each state once (``_ordered_weights``): moves come with their orders, and
    # re-throws thrown are forgotten (-1) once the cap can no longer bind, so states that
    # differ only there merge (the rounds would mix their denominators)
    ordered: bool = False
    merge: bool = False
    # where each state leads, worked out once for the estimate and the odds together
    known: dict[_Control, _Moves] = field(default_factory=dict)

    @staticmethod
    def of(check: PoolCheck, *, ordered: bool = False) -> _Machine:
        classes: dict[FaceEffect, int] = {}
        for face in range(1, check.sides + 1):
            effect = face_effect(check, face)
            classes[effect] = classes.get(effect, 0) + 1
        rethrow = check.reroll
        until = rethrow is not None and rethrow.mode == "until"
        cap_extra = _cap_extra(check)
        # Without "until" each die is thrown again once at most, so the cap only binds
        # when there could be more dice than re-throws allowed.
        track = rethrow is not None and (until or check.dice + cap_extra > check.max_rethrows)
        half = check.botch_up_to is not None and check.botch_rule == "halfOrMore"
        noted = check.botch_up_to is not None
        stride = check.dice + cap_extra + 1  # more than the exact dice one throw can show
        steps = tuple(
            _Step(
                (e.successes - e.cancels) * stride + e.exact,
                noted and e.successes > 0,
                noted and not half and bool(e.low),
                e.low if half else 0,
                int(e.explodes),
                e.rethrow,
                count,
            )
            for e, count in classes.items()
        )
        return _Machine(
            steps=steps,
            track=track,
            until=until,
            cap_rethrows=check.max_rethrows if track else check.dice + cap_extra + 1,
            low_cap=(check.dice + 1) // 2 if half else 0,
            stride=stride,
            start=(check.dice, 0, 0, cap_extra, 0, False, False, 0),
            ordered=ordered,
            merge=ordered and track and not until,
        )

    def order(self, control: _Control) -> int:
        """Where a state comes when each is visited once: every state it leads to comes
        later. A die first thrown moves to the next level (dice first thrown so far); a
        die thrown again stays on its level, before the level's other states, and an
        "until" re-throw goes on to one more re-throw thrown."""
        m, waiting, _, room, thrown = control[:5]
        level = self.start[0] - m + self.start[3] - room
        return ((2 * level + (not waiting)) * (self.cap_rethrows + 2)) + thrown + 1

    def level(self, order: int) -> int:
        """The level of an ``order``: dice first thrown so far."""
        return order // (2 * (self.cap_rethrows + 2))

    def moves(self, control: _Control) -> _Moves:
        """Where one die thrown in ``control`` leads: the states it goes on to, and the
        ends (ok, low, botch faces first thrown) it finishes in, each with the shifts of
        the packed counts and how many faces give each."""
        known = self.known.get(control)
        if known is not None:
            return known
        found = self._moves(control)
        if len(self.known) < _KNOWN_STATES:
            self.known[control] = found
        return found

    def _moves(self, control: _Control) -> _Moves:
        moves: dict[_Control, dict[int, int]] = {}
        ends: dict[tuple[bool, bool, int], dict[int, int]] = {}
        m, waiting, owed, room, thrown, ok, low, low_first = control
        track, until, cap_rethrows = self.track, self.until, self.cap_rethrows
        free = thrown < 0  # forgotten: the cap can no longer bind
        for step in self.steps:
            if waiting:  # a die thrown again
                pending, pool_die = waiting, waiting == 1
                n_thrown = thrown + 1 if track and not free else thrown
                n_m, n_room = m, room
                n_owed = owed + step.explodes
                stays = until and step.rethrow and n_thrown < cap_rethrows
            elif m:  # a pool die, first thrown
                pending, pool_die = 1, True
                n_thrown, n_m, n_room = thrown, m - 1, room
                n_owed = owed + step.explodes
                stays = step.rethrow and thrown < cap_rethrows
            else:  # a die an explosion added
                pending, pool_die = 2, False
                n_thrown, n_m, n_room = thrown, 0, room - 1
                n_owed = owed - 1 + step.explodes
                stays = step.rethrow and thrown < cap_rethrows
            n_owed = n_owed if n_owed < n_room else n_room  # past the cap nothing is thrown
            # "once": each die left (the one waiting, the pool's, those the cap may still
            # add) is thrown again once at most, so past this the cap cannot bind
            if self.merge and not free and n_thrown + stays + n_m + n_room <= cap_rethrows:
                n_thrown = -1
            if stays:
                key: _Control = (n_m, pending, n_owed, n_room, n_thrown, ok, low, low_first)
                kernel = moves.setdefault(key, {})
                kernel[0] = kernel.get(0, 0) + step.faces
                continue
            n_ok, n_low, n_first = ok or step.succeeded, low or step.low, low_first
            if pool_die and step.first_low:
                n_first = min(low_first + step.first_low, self.low_cap)
            if n_m == 0 and n_owed == 0:
                kernel = ends.setdefault((n_ok, n_low, n_first), {})
            else:
                key = (n_m, 0, n_owed, n_room, n_thrown, n_ok, n_low, n_first)
                kernel = moves.setdefault(key, {})
            kernel[step.shift] = kernel.get(step.shift, 0) + step.faces
        return moves, ends, tuple(map(self.order, moves)) if self.ordered else ()


# A state's span: the lowest and highest net successes, and exact dice, it could hold.
_Span = tuple[int, int, int, int]


MAX_RETHROWN_EXPLODING = 1600
"""A re-throw beside explosions whose odds go round by round: the most dice times the
explosion cap whose odds are worked at all (their work grows as its square); past it
they are refused at once, before the estimate."""


MAX_ODDS_WORK = 2_500_000
"""The most (state, count) pairs the exact odds of one pool check may work through, all
rounds together: about 1-1.7 s here, estimate included (``bench/odds_bounds.py``, a
20-die pool with explosions and an "until" re-throw). Past it, refused before any is
done."""


MAX_ORDERED_WORK = 4_500_000
"""``MAX_ODDS_WORK`` where each state is visited once (``_visits_once``), counting
``_VISIT`` a state visited beside its counts: about 1 s here at the edge, estimate
included (1 M of it takes 0.2-0.3 s)."""


MAX_FIRST_BOTCHES_EXPLODING = 100_000
"""A ``halfOrMore`` botch beside explosions: the most dice × explosion cap × botch faces
counted (half the dice) whose odds are estimated at all (55d10 with 55 added is about
85,000 and answered in about 1 s); past it they are refused at once."""


MAX_RETHROWS_KEPT = 200_000
"""Where each state is visited once and the re-throws thrown must be kept (more dice and
added dice than re-throws): the most dice × explosion cap × that excess whose odds are
estimated at all. Its work grows faster (past this the estimate passes
``MAX_ORDERED_WORK`` by far), so past it they are refused at once."""


_VISIT = 50
"""What visiting one state costs beside its counts, in counts, where each state is
visited once: working out where it leads and one product and sum a kernel (about
12-25 µs a state, 0.15-0.3 µs a count)."""


def _may_be_heavy(check: PoolCheck) -> bool:
    """Whether the odds' work can outgrow the pool: a re-throw beside explosions, exact
    dice counted beside the successes, or a ``halfOrMore`` botch beside explosions (the
    botch faces among the dice first thrown are counted in every state the explosions
    reach: 100d10 took 7 s unasked). Any other pool of up to 100 dice takes under a
    second (``bench/odds_bounds.py`` sweeps them)."""
    return (
        (check.reroll is not None and check.explode_from is not None)
        or check.exact is not None
        or _counts_first_botches(check)
    )


def _counts_first_botches(check: PoolCheck) -> bool:
    """A ``halfOrMore`` botch beside explosions: its count rides through every state."""
    return (
        check.botch_up_to is not None
        and check.botch_rule == "halfOrMore"
        and check.explode_from is not None
    )


def _visits_once(check: PoolCheck) -> bool:
    """Whether the odds visit each state once (``_ordered_weights``) rather than round by
    round: a "once" re-throw, no exact dice, and a re-throw cap at least half the dice
    and added dice. There a state is reached in many rounds, or merges once the cap can
    no longer bind; with "until", or a cap the re-throws soon reach, each state is
    reached in about one round and the rounds' lighter visits are faster."""
    if check.exact is not None or check.reroll is None or check.reroll.mode != "once":
        return False
    return 2 * check.max_rethrows >= check.dice + _cap_extra(check)


def _cap_extra(check: PoolCheck) -> int:
    """The most dice explosions may add."""
    return check.max_extra if check.explode_from is not None else 0


def _bound(machine: _Machine) -> int:
    """The most work its path may take: ``MAX_ORDERED_WORK`` or ``MAX_ODDS_WORK``."""
    return MAX_ORDERED_WORK if machine.ordered else MAX_ODDS_WORK


def _refuse_at_once(check: PoolCheck, ordered: bool) -> None:
    """Refuse, before the estimate, a re-throw beside explosions whose odds are sure to
    be past the bound: ``MAX_RETHROWN_EXPLODING`` round by round, ``MAX_RETHROWS_KEPT``
    visiting each state once; and a ``halfOrMore`` botch beside explosions past
    ``MAX_FIRST_BOTCHES_EXPLODING``."""
    if _counts_first_botches(check):
        counted = (check.dice + 1) // 2
        if check.dice * check.max_extra * counted > MAX_FIRST_BOTCHES_EXPLODING:
            raise LimitExceeded(
                f"the exact odds of {check.dice_text} with a halfOrMore botch beside "
                f"explosions are refused past {MAX_FIRST_BOTCHES_EXPLODING:,} (dice times "
                f"the explosion cap times half the dice, here {check.dice} × "
                f"{check.max_extra} × {counted}): they would take too long. Ask for fewer "
                "dice, or without the explosions."
            )
    if check.reroll is None or check.explode_from is None:
        return
    if not ordered and check.dice * check.max_extra > MAX_RETHROWN_EXPLODING:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with a re-throw beside explosions are "
            f"refused past {MAX_RETHROWN_EXPLODING:,} (dice times the explosion cap, here "
            f"{check.dice} × {check.max_extra}): they would take too long. Ask for fewer "
            "dice, or without the re-throw."
        )
    excess = check.dice + check.max_extra - check.max_rethrows
    if ordered and excess > 0 and check.dice * check.max_extra * excess > MAX_RETHROWS_KEPT:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with a re-throw beside explosions are "
            f"refused past {MAX_RETHROWS_KEPT:,} (dice times the explosion cap times the "
            f"dice past the re-throw cap, here {check.dice} × {check.max_extra} × "
            f"{excess}): they would take too long. Ask for fewer dice, or without the "
            "re-throw."
        )


def odds_work(
    check: PoolCheck, limit: int | None = None, *, machine: _Machine | None = None
) -> int:
    """An upper bound on the work ``distribution`` would do (``MAX_ODDS_WORK``'s steps,
    or ``MAX_ORDERED_WORK``'s), found by running its machine over the states alone,
    each with the span of counts it could hold, in the order its odds take them; it
    stops as soon as the bound passes ``limit`` (by default, its path's bound). Cheap: a
    state holds many counts."""
    if check.dice == 0:
        return 0
    machine = machine or _Machine.of(check, ordered=_visits_once(check))
    if limit is None:
        limit = _bound(machine)
    reaches: dict[tuple[int, ...], _Span] = {}  # a kernel's shifts: how far they move a span
    work = 0
    start: dict[_Control, _Span] = {machine.start: (0, 0, 0, 0)}
    if not machine.ordered:  # round by round
        active = start
        while active:
            following: dict[_Control, _Span] = {}
            for control, span in active.items():
                work += (span[1] - span[0] + 1) * (span[3] - span[2] + 1)
                if work > limit:
                    return work
                for key, moved in _spread(machine, machine.moves(control)[0], span, reaches):
                    _widen(following, key, moved)
            active = following
        return work
    buckets = _Buckets(machine, start)
    for _, states in buckets:  # each state once
        for control, span in states.items():
            work += (span[1] - span[0] + 1) * (span[3] - span[2] + 1) + _VISIT
            if work > limit:
                return work
            moves, _, orders = machine.moves(control)
            spread = _spread(machine, moves, span, reaches)
            for (key, moved), order in zip(spread, orders, strict=True):
                _widen(buckets.at(order), key, moved)
    return work


def _spread(
    machine: _Machine,
    moves: Mapping[_Control, Mapping[int, int]],
    span: _Span,
    reaches: dict[tuple[int, ...], _Span],
) -> Iterator[tuple[_Control, _Span]]:
    """The states a state's ``moves`` lead to, each with ``span`` moved by its kernel's
    shifts."""
    stride = machine.stride
    net_lo, net_hi, ex_lo, ex_hi = span
    for key, kernel in moves.items():
        shifts = tuple(kernel)
        reach = reaches.get(shifts)
        if reach is None:
            nets = [shift // stride for shift in shifts]  # shifts: net*stride + exact
            exacts = [shift % stride for shift in shifts]
            reach = reaches[shifts] = (min(nets), max(nets), min(exacts), max(exacts))
        yield key, (net_lo + reach[0], net_hi + reach[1], ex_lo + reach[2], ex_hi + reach[3])


def _widen(spans: dict[_Control, _Span], key: _Control, span: _Span) -> None:
    """Widen the span kept for ``key`` to cover ``span`` too."""
    seen = spans.get(key)
    if seen is not None:
        span = (
            min(seen[0], span[0]),
            max(seen[1], span[1]),
            min(seen[2], span[2]),
            max(seen[3], span[3]),
        )
    spans[key] = span


def distribution(check: PoolCheck) -> Dist[PoolOutcome]:
    """The exact distribution of what ``roll`` gives for this check, computed.

    A state machine over what the throw has come to so far (counts, never faces): each
    move throws one die, so a weight is over ``sides ** (dice thrown)``. The dice the
    pool adds (explosions) are owed as a count: every added die is a fresh die, thrown,
    then visited by the re-throw, and owing one more when its first face explodes or
    when a face thrown again does. The throw order only matters through the caps, and
    the count keeps each cap's order: explosions spend the ``max_extra`` cap die by die,
    re-throws the ``max_rethrows`` cap in the order the pass visits the dice. ``roll``
    and this function share ``face_effect`` and ``pool_outcome``; the brute-force tests
    confirm the rest.

    The counts (net successes, exact dice) of the states that share the rest are kept
    together, packed one number each, so a face is applied to them all at once: round
    by round, a dict of them a state (``_counted_weights``) or, without exact dice, one
    big integer (``_packed_weights``); or, with a "once" re-throw, one big integer with
    each state visited once and the re-throws thrown forgotten once their cap cannot
    bind (``_ordered_weights``). Each takes the pools it is fastest on.

    An exploding pool is counted as sequences instead (``sequences``: 100 dice with
    100 added and 100 re-throws in well under a second), unless a face both explodes and
    is thrown again, exact dice are counted, or a ``halfOrMore`` botch reads the pool's
    own dice; those come here.

    Raises:
        LimitExceeded: the work would pass its bound (said before any is done).
    """
    if check.dice == 0:
        return Dist.constant(empty_outcome(check))
    if sequences.applies(check):
        return Dist.from_positive(sequences.weights(check))
    ordered = _visits_once(check)
    _refuse_at_once(check, ordered)
    machine = _Machine.of(check, ordered=ordered)
    bound = _bound(machine)
    if _may_be_heavy(check) and odds_work(check, bound, machine=machine) > bound:
        without = "the re-throw" if check.reroll is not None else "the explosions"
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with these rules would take more than "
            f"{bound:,} steps to compute (more than about a second); ask for fewer dice, "
            f"a smaller explosion cap, or without {without}."
        )
    if ordered:
        return Dist.from_positive(_ordered_weights(check, machine))
    if all(step.shift % machine.stride == 0 for step in machine.steps):  # no exact dice
        return Dist.from_positive(_packed_weights(check, machine))
    return Dist.from_positive(_counted_weights(check, machine))


def kept_distribution(check: PoolCheck, tables: Tables) -> Dist[PoolOutcome]:
    """``distribution``, with the dice's part kept in ``tables``: what the dice come to
    (net successes, a botch, a complication, exact dice) depends on the dice and their
    rules alone, and the successes needed, the exceptional count and the successes
    nobody rolled only read it (``pool_outcome``). So the dice are counted once, for a
    check that needs one success and adds none, and each check reads that table."""
    if check.dice == 0:
        return distribution(check)
    key = (
        "dice-pool dice",
        check.sides,
        check.dice,
        check.target,
        check.count,
        check.explode_from,
        check.double_from,
        check.cancel_up_to,
        check.botch_up_to,
        check.botch_rule,
        check.exact,
        check.reroll,
        check.max_extra,
        check.max_rethrows,
    )
    dice: Dist[PoolOutcome] | None = tables.get(key)
    if dice is None:
        dice = tables[key] = distribution(
            replace(check, needed=1, exceptional=None, auto=0, reroll_id=None)
        )
    auto, needed, exceptional = check.auto, check.needed, check.exceptional
    out: dict[PoolOutcome, int] = {}
    for counted, weight in dice.items():
        net = counted.total + auto
        if counted.critical_failure:  # a botch: read the same whatever is needed
            outcome = PoolOutcome(net, False, False, True, False, counted.exact)
        else:
            success = net >= needed
            critical = success and exceptional is not None and net >= exceptional
            outcome = PoolOutcome(
                net, success, critical, False, counted.complication, counted.exact
            )
        out[outcome] = out.get(outcome, 0) + weight
    return Dist.from_positive(out)


def _refuse_past_states(check: PoolCheck, size: int) -> None:
    """Refuse odds that hold more than ``MAX_ODDS_STATES`` states at once."""
    if size > MAX_ODDS_STATES:
        raise LimitExceeded(
            f"the exact odds of {check.dice_text} with these rules need more than "
            f"{MAX_ODDS_STATES} states at once; ask for fewer dice."
        )


def _counted_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``distribution``'s rounds with a dict of packed counts (net successes and exact
    dice, one number) per state: each face applied to every count of a state. Each round
    throws one die in every state, so every weight of a round shares the denominator
    ``sides ** round``; its machine must not merge states (``_Machine.merge``), which
    would mix rounds."""
    stride = machine.stride
    outcomes: dict[tuple[bool, bool, int, int], PoolOutcome] = {}
    rounds: list[dict[PoolOutcome, int]] = []
    active: dict[_Control, dict[int, int]] = {machine.start: {0: 1}}
    while active:
        done: dict[PoolOutcome, int] = {}
        following: dict[_Control, dict[int, int]] = {}
        size = 0
        for control, counts in active.items():
            moves, ends, _ = machine.moves(control)
            for (n_ok, n_low, n_first), kernel in ends.items():
                for shift, count in kernel.items():
                    for packed, weight in counts.items():
                        memo = (n_ok, n_low, n_first, packed + shift)
                        outcome = outcomes.get(memo)
                        if outcome is None:
                            counted, exact = divmod(packed + shift, stride)
                            outcome = pool_outcome(check, counted, n_ok, n_low, n_first, exact)
                            outcomes[memo] = outcome
                        done[outcome] = done.get(outcome, 0) + weight * count
            for key, kernel in moves.items():
                into = following.setdefault(key, {})
                get = into.get
                for shift, count in kernel.items():
                    for packed, weight in counts.items():
                        moved = packed + shift
                        into[moved] = get(moved, 0) + weight * count
        for counts in following.values():
            size += len(counts)
        _refuse_past_states(check, size)
        rounds.append(done)
        active = following
    last = len(rounds)
    weights: dict[PoolOutcome, int] = {}
    for index, done in enumerate(rounds):
        scale = check.sides ** (last - index - 1)
        for outcome, w in done.items():
            weights[outcome] = weights.get(outcome, 0) + w * scale
    return weights


def _packed_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``distribution``'s rounds with each state's counts packed into one big integer.

    Where no exact dice are counted, a state's counts are net successes only: a state
    holds ``(low, poly)``, slot ``i`` of ``poly`` (``width`` bits) the weight of net
    ``low + i``, so a face applied to every count of a state moves ``low`` and takes one
    product and one sum of big integers (CPython's, in C) rather than a dict entry each.
    Every weight of round ``r`` is at most ``sides ** r`` and the rounds are bounded
    (each pool die is thrown first once, each added die once, and the re-throws are
    capped), so the slots never overflow; the ends are gathered by Horner's rule (times
    ``sides`` a round), which gives each the scale ``sides ** (rounds left)`` the plain
    loop gives it. Same weights, exactly.
    """
    stride, sides = machine.stride, check.sides
    most_rounds, width = _slots(check, machine)
    ends: dict[tuple[bool, bool, int], Packed] = {}
    active: dict[_Control, Packed] = {machine.start: (0, 1)}
    rounds = 0
    while active:
        rounds += 1
        if rounds > most_rounds:  # cannot happen: the slots would be too narrow
            raise AssertionError(f"{check.dice_text}: more rounds than {most_rounds}")
        following: dict[_Control, Packed] = {}
        done: dict[tuple[bool, bool, int], Packed] = {}
        for control, (low, poly) in active.items():
            moves, finished, _ = machine.moves(control)
            _apply(done, finished, low, poly, stride, width)
            _apply(following, moves, low, poly, stride, width)
        for end in ends.keys() | done.keys():  # Horner: earlier ends wait a round more
            before, now = ends.get(end), done.get(end)
            if before is not None:
                before = (before[0], before[1] * sides)
                now = before if now is None else packed_sum(before, now, width)
            assert now is not None
            ends[end] = now
        size = sum(poly.bit_length() // width + 1 for _, poly in following.values())
        _refuse_past_states(check, size)
        active = following
    return _unpacked(check, ends, width)


def _slots(check: PoolCheck, machine: _Machine) -> tuple[int, int]:
    """The most dice one throw may throw, plus one, and the bits of a slot wide enough
    for any weight over ``sides`` to that power: each pool die is thrown first once,
    each added die once, and the re-throws are capped."""
    room = machine.start[3]
    if check.reroll is None:
        rethrows = 0
    else:
        rethrows = machine.cap_rethrows if machine.track else check.dice + room
    most = check.dice + room + rethrows + 1
    return most, ((check.sides**most).bit_length() + 8) // 8 * 8  # whole bytes a slot


def _unpacked(
    check: PoolCheck, ends: Mapping[tuple[bool, bool, int], Packed], width: int
) -> dict[PoolOutcome, int]:
    """The weight of each outcome, read from the ends' packed slots."""
    weights: dict[PoolOutcome, int] = {}
    for (n_ok, n_low, n_first), packed in ends.items():
        for net, w in packed_slots(packed, width):
            outcome = pool_outcome(check, net, n_ok, n_low, n_first, 0)
            weights[outcome] = weights.get(outcome, 0) + w
    return weights


K = TypeVar("K", bound=Hashable)


def _apply(
    into: dict[K, Packed],
    kernels: Mapping[K, Mapping[int, int]],
    low: int,
    poly: int,
    stride: int,
    width: int,
) -> None:
    """Add one state's packed counts, moved by each kernel's shifts, to where they lead."""
    for key, kernel in kernels.items():
        for shift, count in kernel.items():
            moved = (low + shift // stride, poly * count)
            seen = into.get(key)
            into[key] = moved if seen is None else packed_sum(seen, moved, width)


def _ordered_weights(check: PoolCheck, machine: _Machine) -> dict[PoolOutcome, int]:
    """``_packed_weights`` with each state visited once, on a machine built for it
    (``_Machine.of(check, ordered=True)``, which may merge states).

    A state holds ``(thrown, low, poly)``: ``_packed_weights``'s slots, over
    ``sides ** thrown``. States are taken in ``_Machine.order``, so all that leads to one
    has come in before it is thrown: it is visited once however many dice were thrown on
    the ways to it (the rounds visit it once per round it can be reached in), the
    lighter of two weights brought to the other's denominator when they meet. The ends
    are brought to the denominator of the most dice any end threw, as the rounds bring
    them. Same weights, exactly.
    """
    stride, sides = machine.stride, check.sides
    most, width = _slots(check, machine)
    powers = [sides**k for k in range(most + 1)]
    ends: dict[tuple[bool, bool, int], _Mass] = {}
    buckets = _Buckets(machine, {machine.start: (0, 0, 1)})
    level = 0
    for at, states in buckets:
        if machine.level(at) > level:  # every state still held is on this level or the next
            level = machine.level(at)
            held = chain(states.values(), buckets.held())
            size = sum(poly.bit_length() // width + 1 for _, _, poly in held)
            _refuse_past_states(check, size)
        for control, (thrown, low, poly) in states.items():
            if thrown >= most:  # cannot happen: the slots would be too narrow
                raise AssertionError(f"{check.dice_text}: more dice thrown than {most}")
            moves, finished, orders = machine.moves(control)
            mass = (thrown + 1, low, poly)
            for end, kernel in finished.items():
                _gather(ends, end, kernel, mass, stride, width, powers)
            for (key, kernel), order in zip(moves.items(), orders, strict=True):
                _gather(buckets.at(order), key, kernel, mass, stride, width, powers)
    last = max(thrown for thrown, _, _ in ends.values())
    scaled = {end: (low, poly * powers[last - thrown]) for end, (thrown, low, poly) in ends.items()}
    return _unpacked(check, scaled, width)


_Mass = tuple[int, int, int]  # (dice thrown, the net of slot 0, the weights a slot each)


V = TypeVar("V")


class _Buckets(Generic[V]):
    """The states still to visit, one bucket per ``_Machine.order``, taken lowest first:
    every move goes to a later bucket, so a bucket is whole when it is taken."""

    def __init__(self, machine: _Machine, start: dict[_Control, V]) -> None:
        self.buckets = {machine.order(next(iter(start))): start}
        self.orders = list(self.buckets)

    def __iter__(self) -> Iterator[tuple[int, dict[_Control, V]]]:
        while self.orders:
            at = heappop(self.orders)
            yield at, self.buckets.pop(at)

    def at(self, order: int) -> dict[_Control, V]:
        """The bucket of states of that ``_Machine.order``, made when it is first asked."""
        bucket = self.buckets.get(order)
        if bucket is None:
            bucket = self.buckets[order] = {}
            heappush(self.orders, order)
        return bucket

    def held(self) -> Iterator[V]:
        """Everything in the buckets not yet taken."""
        for bucket in self.buckets.values():
            yield from bucket.values()


def _gather(
    into: dict[K, _Mass],
    key: K,
    kernel: Mapping[int, int],
    mass: _Mass,
    stride: int,
    width: int,
    powers: Sequence[int],
) -> None:
    """Add one state's packed counts, moved by each of a kernel's shifts, to ``key``: on
    the lower net's slots, over the larger denominator (the other weights scaled)."""
    thrown, low, poly = mass
    for shift, count in kernel.items():
        m_low, m_poly = low + shift // stride, poly * count
        seen = into.get(key)
        if seen is None:
            into[key] = (thrown, m_low, m_poly)
            continue
        s_thrown, s_low, s_poly = seen
        if s_thrown < thrown:
            s_poly *= powers[thrown - s_thrown]
            s_thrown = thrown
        elif s_thrown > thrown:
            m_poly *= powers[s_thrown - thrown]
        into[key] = (s_thrown, *packed_sum((s_low, s_poly), (m_low, m_poly), width))
