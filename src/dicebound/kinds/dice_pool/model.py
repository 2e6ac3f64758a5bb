"""dice-pool's values: the compiled config, the prepared check, what a face does and what a roll came to."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, NamedTuple

from dicebound.errors import UsageError
from dicebound.ruleset.model import ValueRef
from dicebound.spend import Reroll, Spend
from dicebound.values import frozen

BotchRule = Literal["noSuccesses", "halfOrMore"]


@frozen
class FaceRule:
    """``explode`` or ``double``: faces at or above ``from_face`` fire (None: only when a
    check asks); ``min`` is the lowest face a tag or an entry may move it to."""

    from_face: int | None = None
    min: int | None = None


@frozen
class Stance:
    """Skills whose dice count under (``below``) or over (``above``) the target."""

    id: str
    label: str
    count: Literal["below", "above"]
    skills: tuple[str, ...]


@frozen
class Exact:
    """A die showing exactly the target: named, explained, counted unless ``counts`` is
    false."""

    label: str
    text: str | None = None
    counts: bool = True


@frozen
class PoolConfig:
    """A compiled dice-pool block. Immutable."""

    sides: int
    pool_min: int
    pool_max: int
    target_default: int
    target_min: int
    target_max: int
    ability_plus_ability: bool = False
    target_from: ValueRef | None = None
    double: FaceRule | None = None
    explode: FaceRule | None = None
    cancel_up_to: int | None = None
    botch_up_to: int | None = None
    botch_rule: BotchRule = "noSuccesses"
    exceptional: int | None = None
    situational: tuple[int, int] | None = None
    rerolls: tuple[Reroll, ...] = ()
    stances: tuple[Stance, ...] = ()
    exact: Exact | None = None
    spend: tuple[Spend, ...] = ()

    @property
    def target_adjustable(self) -> bool:
        """Whether ``threshold=`` (and a ladder step) may move the target."""
        return self.target_min < self.target_max

    @property
    def max_successes(self) -> int:
        return max_successes(self.pool_max, self.explode is not None, self.double is not None)


def max_successes(pool_max: int, explodes: bool, doubles: bool) -> int:
    """The most one roll can count: the pool's maximum, doubled when dice may explode
    (the extra dice are capped at ``pool.max``), doubled again when faces count twice."""
    return pool_max * (2 if explodes else 1) * (2 if doubles else 1)


MAX_RETHROWS = 100
"""The most re-throws one check throws (Marinara's ``RULESET_POOL_MAX_REROLLS``)."""


Count = Literal["at-least", "below", "above"]


@frozen
class PoolCheck:
    """One prepared pool check: everything the throw and its odds read. Immutable.

    ``dice`` is the pool's size, already held to ``pool.min..pool.max`` (0: the pool is
    empty and fails with no roll). ``count`` is how a die counts: at or above the target,
    or under/over it on a stance (which leaves ``explode``, ``double``, ``cancel`` and
    ``botch`` out: they are None here). ``exact`` is None without the rule, else whether a
    die showing exactly the target counts. ``reroll`` is the one re-throw the check
    throws; ``reroll_id`` names it when it is the tag's standing one. ``auto`` are the
    successes nobody rolled. ``max_extra`` caps the dice explosions add (``pool.max``) and
    ``max_rethrows`` the re-throws.
    """

    sides: int
    dice: int
    target: int
    needed: int
    count: Count = "at-least"
    explode_from: int | None = None
    double_from: int | None = None
    cancel_up_to: int | None = None
    botch_up_to: int | None = None
    botch_rule: BotchRule = "noSuccesses"
    exceptional: int | None = None
    exact: bool | None = None
    reroll: Reroll | None = None
    reroll_id: str | None = None
    auto: int = 0
    max_extra: int = 0
    max_rethrows: int = MAX_RETHROWS

    def __post_init__(self) -> None:
        if self.sides < 2 or self.dice < 0 or self.needed < 1:
            raise UsageError(
                f"{self.dice}d{self.sides} needing {self.needed} is not a pool check this "
                "kind throws"
            )
        if not 1 <= self.target <= self.sides:
            raise UsageError(f"the target {self.target} is not a face of a d{self.sides}")
        if self.reroll is not None and not 1 <= self.reroll.up_to < self.sides:
            raise UsageError(
                f"a re-throw up to {self.reroll.up_to} on a d{self.sides} would never stop"
            )
        if self.explode_from is not None and self.explode_from < 2:
            raise UsageError(f"every face would explode from {self.explode_from}")
        if self.max_extra < 0 or self.max_rethrows < 0 or self.auto < 0:
            raise UsageError("caps and automatic successes are 0 or more")

    @property
    def dice_text(self) -> str:
        return f"{self.dice}d{self.sides}"


class FaceEffect(NamedTuple):
    """What one face does: the successes it counts (0, 1, or 2 when doubled), whether it
    cancels one, whether it is a botch face, whether it shows exactly the target, whether
    it rolls one more die, and whether the check's re-throw throws it again."""

    successes: int
    cancels: int
    low: int
    exact: int
    explodes: bool
    rethrow: bool


class PoolOutcome(NamedTuple):
    """What one check came to: the net successes (``total``), the result, whether a
    ``halfOrMore`` botch went wrong alongside it, and how many dice showed the exact
    target. A named tuple: a distribution holds many of them."""

    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    complication: bool = False
    exact: int = 0


def face_effect(check: PoolCheck, face: int) -> FaceEffect:
    """The one reading of a face, shared by the roller and the odds.

    A die showing exactly the target counts one success when ``exact`` counts and none
    when it does not, whatever else would have counted it, and doubling never touches
    it. Otherwise a die counts at or above the target (twice at or above the double
    face), or under/over it on a stance. A doubled face is a counted one: a face below
    the target counts nothing, whatever the double face.
    """
    target = check.target
    is_exact = check.exact is not None and face == target
    if is_exact:
        successes = 1 if check.exact else 0
    elif check.count == "below":
        successes = int(face < target)
    elif check.count == "above":
        successes = int(face > target)
    elif face >= target:
        doubled = check.double_from is not None and face >= check.double_from
        successes = 2 if doubled else 1
    else:
        successes = 0
    return FaceEffect(
        successes=successes,
        cancels=int(check.cancel_up_to is not None and face <= check.cancel_up_to),
        low=int(check.botch_up_to is not None and face <= check.botch_up_to),
        exact=int(is_exact),
        explodes=check.explode_from is not None and face >= check.explode_from,
        rethrow=check.reroll is not None and face <= check.reroll.up_to,
    )


def pool_outcome(
    check: PoolCheck, counted: int, succeeded: bool, low_seen: bool, low_first: int, exact: int
) -> PoolOutcome:
    """The check's result from what its standing dice came to, shared by both paths.

    ``counted`` is the dice's successes minus their cancels (the net never goes below
    zero; successes nobody rolled are added after). ``succeeded``: a die counted a
    success. ``low_seen``: a botch face stands. ``low_first``: how many of the dice
    first thrown stand on a botch face. A ``noSuccesses`` botch (no die succeeded and a
    botch face showed) and a ``halfOrMore`` one with no die succeeded are critical
    failures; a ``halfOrMore`` botch beside a succeeding die marks a complication.
    ``exceptional`` net successes on a check that succeeded are a critical success.
    """
    net = max(0, counted) + check.auto
    complication = False
    if check.botch_up_to is not None:
        if check.botch_rule == "halfOrMore":
            botched = 2 * low_first >= check.dice and not succeeded
            complication = 2 * low_first >= check.dice and succeeded
        else:
            botched = low_seen and not succeeded
        if botched:
            return PoolOutcome(net, False, False, True, False, exact)
    success = net >= check.needed
    critical = success and check.exceptional is not None and net >= check.exceptional
    return PoolOutcome(net, success, critical, False, complication, exact)


def empty_outcome(check: PoolCheck) -> PoolOutcome:
    """An empty pool fails with no roll at all (the page)."""
    return PoolOutcome(0, False, False, False)


@lru_cache(maxsize=512)
def face_table(check: PoolCheck) -> tuple[FaceEffect, ...]:
    """``face_effect`` of every face of the check's die, face ``f`` at index ``f`` (the
    roller reads a face twice or more: once for explosions, once to count it)."""
    return (face_effect(check, 1), *(face_effect(check, f) for f in range(1, check.sides + 1)))
