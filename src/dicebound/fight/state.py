"""The state of a fight (FIGHTS §3): one JSON object, kept as plain JSON values so it
round-trips exactly through a file, the store or ``check --json``.

A party member's health, temporary points and conditions are not copied into it: they
are read off the member's live sheet at every use (``party_health``). ``load_state``
reads a state back and refuses one that breaks an invariant, so no step ever runs on a
fight that could not have been played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dicebound.errors import UsageError
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.sheet_commands.current import name_eq
from dicebound.sheet_commands.targets import character_key

__all__ = [
    "OUTCOMES",
    "Fight",
    "FightError",
    "combatant",
    "combatant_id",
    "find_combatant",
    "health_of",
    "load_state",
    "member_of",
    "standing",
    "summary",
]

Fight = dict[str, Any]
"""A fight's state as JSON (FIGHTS §3)."""

OUTCOMES = ("ongoing", "victory", "defeat", "fled", "ended")

_COMBATANT_KEYS = (
    "id",
    "name",
    "side",
    "initiative",
    "initiativeRoll",
    "initiativeModifier",
    "budgets",
    "actions",
    "uses",
    "spent",
    "tracked",
    "concentrating",
    "flags",
    "down",
    "dying",
    "stable",
    "defeated",
    "defense",
    "saves",
)


class FightError(UsageError):
    """A fight state that cannot be read: not the shape FIGHTS §3 gives, or one that
    breaks an invariant (health out of range, an order that is not a permutation)."""


def combatant_id(name: str) -> str:
    """A name's character key with every space a ``-`` (``Ash-hound`` -> ``ash-hound``)."""
    return character_key(name).replace(" ", "-")


FIXED_AT_START = frozenset({"actions", "block", "saves"})
"""A combatant's keys no step changes (its actions, its creature block and its saves
are read once at the start): a step's copy shares them with the state it came from."""


_CONTAINERS = (dict, list)


def _copied(value: Any) -> Any:
    """A JSON value's objects and lists copied (a call only for a container)."""
    if type(value) is dict:
        return {k: _copied(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if type(value) is list:
        return [_copied(v) if type(v) in _CONTAINERS else v for v in value]
    return value


def _copied_combatant(c: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v if k in FIXED_AT_START or type(v) not in _CONTAINERS else _copied(v)
        for k, v in c.items()
    }


def copy_state(fight: Fight) -> Fight:
    """A copy of a fight a step may change: its objects and lists copied, the rest
    (text, numbers, booleans, None) shared, and the ``opening`` and each combatant's
    ``FIXED_AT_START`` keys shared (no step changes them). Every tag pays for this, so
    it is kept far cheaper than ``copy.deepcopy``."""
    copied: Fight = {}
    for k, v in fight.items():
        if k == "combatants":
            copied[k] = [_copied_combatant(c) for c in v]
        else:
            copied[k] = v if k == "opening" else _copied(v)
    return copied


def combatant(fight: Fight, ident: str) -> dict[str, Any]:
    return next(c for c in fight["combatants"] if c["id"] == ident)


def find_combatant(fight: Fight, written: str) -> dict[str, Any] | None:
    """The combatant a name (NAME-EQ) or an id answers to, as a tag's ``who`` finds it."""
    return next(
        (
            c
            for c in fight["combatants"]
            if name_eq(c["name"], written) or c["id"] == written.strip()
        ),
        None,
    )


def standing(c: Mapping[str, Any]) -> bool:
    return not c["down"] and not c["defeated"]


def member_of(party: Sequence[Character], c: Mapping[str, Any]) -> Character:
    """The party member a party combatant plays (matched by character key; a party
    holds one member a key, so the member of that very name is it)."""
    name = c["character"]
    for m in party:
        if m.name == name:
            return m
    key = character_key(str(name))
    found = next((m for m in party if character_key(m.name) == key), None)
    if found is None:
        raise FightError(
            f'The fight has a party member "{c["name"]}" the party does not hold; give the '
            "same party the fight was started with."
        )
    return found


_HEALTHS = "fight-healths"
_HEALTHS_KEPT = 256


def health_of(
    ruleset: Ruleset, c: Mapping[str, Any], party: Sequence[Character]
) -> tuple[int, int, int]:
    """``(value, max, temp)``: an opponent's own, a party member's off its live sheet.
    A member's is remembered on the ruleset's memo for that very character value (an
    immutable one: a sheet command makes a new one), as the check odds remember theirs,
    since every step reads every member's."""
    if c["side"] == "enemy":
        h = c["health"]
        return int(h["value"]), int(h["max"]), int(h["temp"])
    member = member_of(party, c)
    kept: dict[int, tuple[Character, tuple[int, int, int]]] | None = ruleset.memo.get(_HEALTHS)
    if kept is None or len(kept) >= _HEALTHS_KEPT:
        kept = ruleset.memo[_HEALTHS] = {}
    known = kept.get(id(member))
    if known is not None and known[0] is member:
        return known[1]
    combat = ruleset.combat
    assert combat is not None
    view = SheetView(ruleset, member)
    name = combat.health.name
    if combat.health.kind == "track":  # levels left of the wound track, no buffer
        top = view.track_max(name)
        read = top - view.track_value(name), top, 0
    else:
        read = view.pool_value(name), view.pool_max(name), view.pool_temp(name)
    kept[id(member)] = (member, read)
    return read


def summary(ruleset: Ruleset, fight: Fight, party: Sequence[Character]) -> dict[str, Any]:
    """FIGHTS §11's summary: the outcome, the rounds, each side's health."""
    members: list[dict[str, Any]] = []
    enemies: list[dict[str, Any]] = []
    for c in fight["combatants"]:
        value, top, temp = health_of(ruleset, c, party)
        if c["side"] == "party":
            members.append(
                {
                    "id": c["id"],
                    "name": c["name"],
                    "health": value,
                    "maxHealth": top,
                    "temp": temp,
                    "down": c["down"],
                    "dying": c["dying"],
                    "stable": c["stable"],
                    "conditions": list(member_of(party, c).live.conditions),
                }
            )
        else:
            enemies.append(
                {
                    "id": c["id"],
                    "name": c["name"],
                    "health": value,
                    "maxHealth": top,
                    "defeated": c["defeated"],
                }
            )
    return {
        "outcome": fight["outcome"],
        "rounds": fight["round"],
        "party": members,
        "enemies": enemies,
    }


def _fail(why: str) -> FightError:
    return FightError(f"The fight state cannot be read: {why}.")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_state(raw: object) -> Fight:
    """A fight state read back from JSON, checked, and copied as a step copies one
    (``copy_state``): its keys, its outcome, ``order`` a permutation of the combatants,
    ``turn`` inside it, unique ids, every opponent's health inside ``0..max``. (A member who dies at its own turn's start
    stays on turn until End turn, its only legal choice.)

    Raises:
        FightError: naming the first fault.
    """
    if not isinstance(raw, dict):
        raise _fail("it is not an object")
    fight: Fight = raw
    for key in ("v", "id", "outcome", "round", "turn", "order", "cursor", "combatants"):
        if key not in fight:
            raise _fail(f'"{key}" is missing')
    if fight["v"] != 1:
        raise _fail(f"version {fight['v']!r} is not 1")
    if not isinstance(fight["id"], str):
        raise _fail('"id" is not text')
    ruleset = fight.get("ruleset")
    if not isinstance(ruleset, dict) or not isinstance(ruleset.get("id"), str):
        raise _fail('"ruleset" names no ruleset')
    if fight["outcome"] not in OUTCOMES:
        raise _fail(f"the outcome {fight['outcome']!r} is not one of {', '.join(OUTCOMES)}")
    for key in ("round", "turn", "cursor"):
        if not _whole(fight[key]) or fight[key] < 0:
            raise _fail(f'"{key}" is not a whole number of at least 0')
    combatants = fight["combatants"]
    if not isinstance(combatants, list) or not combatants:
        raise _fail('"combatants" is not a list of combatants')
    ids: list[str] = []
    for c in combatants:
        if not isinstance(c, dict):
            raise _fail("a combatant is not an object")
        for key in _COMBATANT_KEYS:
            if key not in c:
                raise _fail(f'a combatant lacks "{key}"')
        _check_combatant(c)
        ids.append(c["id"])
    if len(set(ids)) != len(ids):
        raise _fail("two combatants share an id")
    order = fight["order"]
    if not isinstance(order, list) or not all(isinstance(x, str) for x in order):
        raise _fail('"order" is not a list of ids')
    if sorted(order) != sorted(ids):
        raise _fail('"order" is not the combatants in some order')
    if fight["turn"] >= len(order):
        raise _fail('"turn" is past the end of "order"')
    _check_window(fight.get("window"), set(ids))
    return copy_state(fight)


def _check_window(window: object, ids: set[str]) -> None:
    """An open window (FIGHTS §9.2): its id, its kind, what opened it, whom it still
    asks (combatants of the fight, at least one) and, for a held hit, what resumes."""
    if window is None:
        return
    if not (
        isinstance(window, dict)
        and isinstance(window.get("id"), str)
        and window.get("kind") in ("signature", "reaction")
        and isinstance(window.get("trigger"), dict)
        and isinstance(window.get("waiting"), list)
        and window["waiting"]
        and all(x in ids for x in window["waiting"])
    ):
        raise _fail("the open window is not {id, kind, trigger, waiting} of this fight")
    if window["kind"] == "reaction":
        resume = window.get("resume")
        if not (
            isinstance(resume, dict)
            and resume.get("actorId") in ids
            and resume.get("targetId") in ids
            and isinstance(resume.get("action"), dict)
            and isinstance(resume.get("rest"), list)
            and all(x in ids for x in resume["rest"])
            and isinstance(resume.get("attack"), dict)
            and _whole(resume["attack"].get("total"))
        ):
            raise _fail("the open window holds no hit it could resume")


def _ints(value: object, keys: type = str) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, keys) and _whole(v) for k, v in value.items()
    )


def _check_combatant(c: Mapping[str, Any]) -> None:
    """Every key a step reads, of the type it reads."""
    name = c["id"]
    plain = {
        "id": str,
        "name": str,
        "initiative": int,
        "initiativeModifier": int,
        "defense": int,
        "down": bool,
        "dying": bool,
        "stable": bool,
        "defeated": bool,
        "flags": dict,
        "tracked": list,
        "spent": list,
    }
    for key, kind in plain.items():
        if not (_whole(c[key]) if kind is int else isinstance(c[key], kind)):
            raise _fail(f'{name!r} has a "{key}" that is not {kind.__name__}')
    if c["side"] not in ("party", "enemy"):
        raise _fail(f"{name!r} is on no side")
    if not isinstance(c["initiativeRoll"], list) or not all(map(_whole, c["initiativeRoll"])):
        raise _fail(f"{name!r} has an initiative roll that is not faces")
    for key in ("budgets", "uses", "saves"):
        if not _ints(c[key]):
            raise _fail(f'{name!r} has "{key}" that are not whole numbers by id')
    if "checks" in c and not _ints(c["checks"]):
        raise _fail(f'{name!r} has "checks" that are not whole numbers by id')
    soak = c.get("soak")
    if soak is not None and not (
        isinstance(soak, dict) and _whole(soak.get("all", 0)) and _ints(soak.get("byKind", {}))
    ):
        raise _fail(f"{name!r} has a soak that is not whole numbers")
    limits = c.get("limits", {})
    if not isinstance(limits, dict) or not all(
        isinstance(k, str)
        and isinstance(v, dict)
        and _whole(v.get("max"))
        and _whole(v.get("spent"))
        and v.get("per") in ("turn", "round")
        for k, v in limits.items()
    ):
        raise _fail(f"{name!r} has spend limits that are not {{max, per, spent}} by pool")
    signature = c.get("signature", {"points": 0, "max": 0})
    if not (
        isinstance(signature, dict)
        and _whole(signature.get("points"))
        and _whole(signature.get("max"))
        and 0 <= signature["points"] <= signature["max"]
    ):
        raise _fail(f"{name!r} has signature points that are not 0 to their maximum")
    if "strikesLeft" in c and not _whole(c["strikesLeft"]):
        raise _fail(f"{name!r} has strikes in hand that are not a whole number")
    for record in c["tracked"]:
        _check_tracked(name, record)
    held = c["concentrating"]
    if held is not None and (
        not isinstance(held, dict)
        or not isinstance(held.get("actionId"), str)
        or not isinstance(held.get("label"), str)
    ):
        raise _fail(f"{name!r} concentrates on something that is not an action")
    if not isinstance(c["actions"], list):
        raise _fail(f"{name!r} has no list of actions")
    recharging = set()
    for a in c["actions"]:
        _check_action(name, a)
        if "recharge" in a:
            recharging.add(a["id"])
    if not all(isinstance(x, str) and x in recharging for x in c["spent"]):
        raise _fail(f"{name!r} waits on a recharge of an action that has none")
    if c["side"] == "party" and not isinstance(c.get("character"), str):
        raise _fail(f"the party member {name!r} names no character")
    if c["side"] == "enemy":
        _check_health(c)
        _check_block(c)


def _check_action(name: object, a: object) -> None:
    if not isinstance(a, dict) or not isinstance(a.get("id"), str):
        raise _fail(f"{name!r} has an action with no id")
    what = f"{name!r}'s action {a['id']!r}"
    if not isinstance(a.get("label"), str) or a.get("kind") not in _KINDS:
        raise _fail(f"{what} has no label or kind")
    if a.get("budget") is not None and not isinstance(a["budget"], str):
        raise _fail(f"{what} has a budget that is not an id")
    targets = a.get("targets")
    if (
        not isinstance(targets, dict)
        or targets.get("side") not in ("self", "ally", "enemy", "any")
        or not _whole(targets.get("count"))
        or not 0 <= targets["count"] <= 20
    ):
        raise _fail(f"{what} has no targets")
    if a.get("toHit") is not None and not _whole(a["toHit"]):
        raise _fail(f"{what} has a to-hit that is not a whole number")
    damage = a.get("damage")
    if damage is not None:
        if not isinstance(damage, dict) or not all(
            _whole(damage.get(k)) for k in ("count", "sides", "flat")
        ):
            raise _fail(f"{what} has damage that is not dice")
        if not 0 <= damage["count"] <= 999 or not 0 <= damage["sides"] <= 9999:
            raise _fail(f"{what} has damage dice out of range")
        if damage["count"] and damage["sides"] < 1:
            raise _fail(f"{what} has dice of no sides")
        if damage.get("type") is not None and not isinstance(damage["type"], str):
            raise _fail(f"{what} has a damage type that is not text")
    sequence = a.get("sequence")
    if sequence is not None and not (
        isinstance(sequence, list)
        and all(
            isinstance(x, dict)
            and isinstance(x.get("action"), str)
            and _whole(x.get("times"))
            and x["times"] >= 1
            for x in sequence
        )
    ):
        raise _fail(f"{what} has a sequence that is not its parts and their times")
    _check_saves_and_applies(what, a)
    for key in ("strikes", "uses"):
        if key in a and (not _whole(a[key]) or a[key] < 1):
            raise _fail(f'{what} has "{key}" below 1')
    recharge = a.get("recharge")
    if recharge is not None and (
        not isinstance(recharge, dict)
        or not all(_whole(recharge.get(k)) for k in ("count", "sides", "from"))
        or not 1 <= recharge["count"] <= 10
        or not 1 <= recharge["sides"] <= 1000
    ):
        raise _fail(f"{what} has a recharge that is not dice")
    if "notPlayed" in a and not isinstance(a["notPlayed"], str):
        raise _fail(f"{what} says it is not played in no words")


_KINDS = ("attack", "ability", "block", "standard")


def _save_clause(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("save"), str)
        and value.get("onSuccess") in ("none", "half", "negates")
        and _whole(value.get("difficulty"))
    )


def _amount(value: object) -> bool:
    return (
        isinstance(value, dict)
        and all(_whole(value.get(k)) for k in ("count", "sides", "flat"))
        and 0 <= value["count"] <= 999
        and (value["count"] == 0 or 1 <= value["sides"] <= 9999)
        and (value.get("type") is None or isinstance(value["type"], str))
    )


def _applied(value: object) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("condition"), str):
        return False
    duration = value.get("duration")
    if isinstance(duration, dict):
        rounds = duration.get("rounds")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 1000:
            return False
        if duration.get("at", "turn-start") != "turn-start":
            return False
    elif duration not in ("instant", "until-save"):
        return False
    ends = value.get("saveEnds")
    if ends is not None and not (
        isinstance(ends, dict)
        and isinstance(ends.get("save"), str)
        and ends.get("at") in ("turn-end", "turn-start")
    ):
        return False
    return value.get("endsAfter") in (None, "own-attack", "attacked", "own-save")


def _check_saves_and_applies(what: str, a: Mapping[str, Any]) -> None:
    """An action's save, its clauses and the conditions it applies, as a step reads
    them."""
    if a.get("save") is not None and not _save_clause(a["save"]):
        raise _fail(f"{what} has a save that is not a save, a result and a difficulty")
    if a.get("saveDifficulty") is not None and not _whole(a["saveDifficulty"]):
        raise _fail(f"{what} has a save difficulty that is not a whole number")
    plus = a.get("plus", [])
    if not isinstance(plus, list) or not all(
        _amount(p) and (p.get("save") is None or _save_clause(p["save"])) for p in plus
    ):
        raise _fail(f"{what} has a further part that is not an amount")
    applies = a.get("applies", [])
    if not isinstance(applies, list) or not all(map(_applied, applies)):
        raise _fail(f"{what} applies something that is not a condition with a duration")
    if "concentration" in a and not isinstance(a["concentration"], bool):
        raise _fail(f"{what} says it concentrates in no words")
    _check_row(what, a)


def _check_row(what: str, a: Mapping[str, Any]) -> None:
    """What an ability row adds (``fight.rows``): its heal and temporary amounts, the
    catalog entry that prices it, the budgets it gives."""
    for key in ("heal", "temporary"):
        if a.get(key) is not None and not _amount(a[key]):
            raise _fail(f'{what} has a "{key}" that is not an amount')
    entry = a.get("entry")
    if entry is not None and (not isinstance(entry, str) or "/" not in entry):
        raise _fail(f"{what} names no catalog entry to price it")
    gives = a.get("gives", [])
    if not isinstance(gives, list) or not all(
        isinstance(g, dict) and isinstance(g.get("budget"), str) and _whole(g.get("count"))
        for g in gives
    ):
        raise _fail(f"{what} gives something that is not a budget and a count")


def _check_tracked(name: object, record: object) -> None:
    """A condition the fight keeps time on: its rounds (or none), its clock, the save
    that ends it and its difficulty, its source."""
    if not isinstance(record, dict) or not isinstance(record.get("condition"), str):
        raise _fail(f"{name!r} tracks a condition that names none")
    what = f"{name!r}'s condition {record['condition']!r}"
    rounds = record.get("rounds")
    if rounds is not None and not _whole(rounds):
        raise _fail(f"{what} has rounds that are not a whole number")
    if record.get("clock", "turn-start") != "turn-start":
        raise _fail(f"{what} has a clock that is not a turn's start")
    ends = record.get("saveEnds")
    if ends is not None and not (
        isinstance(ends, dict)
        and isinstance(ends.get("save"), str)
        and ends.get("at") in ("turn-end", "turn-start")
    ):
        raise _fail(f"{what} ends on a save that is not a save and a moment")
    if record.get("difficulty") is not None and not _whole(record["difficulty"]):
        raise _fail(f"{what} has a difficulty that is not a whole number")
    if record.get("endsAfter") not in (None, "own-attack", "attacked", "own-save"):
        raise _fail(f"{what} ends after something that is not a save, an attack or a blow")
    if record.get("source") is not None and not isinstance(record["source"], str):
        raise _fail(f"{what} has a source that is not an id")


def _check_block(c: Mapping[str, Any]) -> None:
    block = c.get("block")
    if not isinstance(block, dict):
        raise _fail(f"the opponent {c['id']!r} has no stat block")
    for key in ("resist", "immune"):
        entries = block.get(key, [])
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("type"), str) for e in entries
        ):
            raise _fail(f'the opponent {c["id"]!r} has a "{key}" list that is not types')
    for key in ("vulnerable", "conditionImmunities"):
        entries = block.get(key, [])
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise _fail(f'the opponent {c["id"]!r} has a "{key}" list that is not text')


def _check_health(c: Mapping[str, Any]) -> None:
    h = c.get("health")
    if not isinstance(h, dict) or not all(_whole(h.get(k)) for k in ("value", "max", "temp")):
        raise _fail(f"the opponent {c['id']!r} has no health")
    if not 0 <= h["value"] <= h["max"] or h["temp"] < 0:
        raise _fail(f"the opponent {c['id']!r} has health outside 0..{h['max']}")
