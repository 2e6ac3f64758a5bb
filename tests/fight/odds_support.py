"""What the odds tests share: a variant of the F5 fixture with the rules the odds weigh
(a guard, an attack modifier's die, a fire weapon, an area that hits by itself), the
menu's odds of one option read back as fractions, and the exact tally of the resolver
itself over every sequence of faces it asks for."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from functools import cache
from typing import Any

from fight_fixtures import BRENNA, Game, _compiled, _creature, _f5_doc, _hit

from dicebound.character import load_character
from dicebound.dice import ForcedFaces, SeededDice
from dicebound.fight import step
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.menu import offered
from dicebound.fight.state import standing
from dicebound.fight.tag import FightTag
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from oracles import enumerate_throws

BRUTE = ("brute", "Brute", "cr_1_4", 30, 12, 0)
EXTRA = [
    _creature(
        "spitter",
        "Spitter",
        "cr_1_4",
        9,
        11,
        0,
        {
            "id": "spray",
            "name": "Spray",
            "budget": "action",
            "autoHit": True,
            "targetCount": 2,
            "damage": {"dice": "1d6", "flat": 1, "type": "fire"},
        },
    ),
    _creature(*BRUTE, _hit("maul", "Maul", 5, "2d4", 1, "bludgeoning"), vulnerable=["slashing"]),
]


@cache
def _variant_doc(critical: str) -> str:
    doc: dict[str, Any] = json.loads(_f5_doc())
    combat = doc["combat"]
    combat["attackRoll"]["critical"] = critical
    mine = ("parrying", "deafened", "grappled")
    rules = [r for r in combat["conditions"] if r["condition"] not in mine]
    rules.append({"condition": "parrying", "modifiers": [{"to": "defense", "flat": 2}]})
    rules.append({"condition": "deafened", "modifiers": [{"to": "attacks", "dice": "1d4"}]})
    rules.append({"condition": "grappled", "effects": ["resist-all"]})
    combat["conditions"] = rules
    fixtures = next(c for c in doc["catalogs"] if c["id"] == "fixtures")
    fixtures["entries"] += EXTRA
    return json.dumps(doc)


@cache
def variant(critical: str = "double-dice") -> Ruleset:
    """F5 with a guard (parrying +2), an attack die (deafened +1d4), ``resist-all``
    (grappled), and the creatures Spitter (an area that hits by itself) and Brute."""
    return _compiled(_variant_doc(critical))


def fire_fighter(live: dict[str, Any] | None = None, ruleset: Ruleset | None = None) -> Character:
    """Brenna with an Emberblade (1d4 fire, Str) beside her Longsword."""
    raw = json.loads(json.dumps(BRENNA))
    raw["sheet"]["build"]["lists"]["attacks"].append(
        {
            "name": "Emberblade",
            "ability": "str",
            "proficient": True,
            "bonus": 0,
            "damage": "1d4",
            "damage_type": "fire",
        }
    )
    if live is not None:
        raw["live"] = live
    return load_character(ruleset or variant(), raw)


def fraction(text: str) -> Fraction:
    return Fraction(text)


def menu_odds(game: Game, who: str, option: str) -> dict[str, Any] | None:
    """The odds the menu gives ``option`` of ``who`` (None when refused)."""
    assert game.fight is not None
    work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
    found = next(o for o in offered(work, game.c(who)) if o["id"] == option)
    odds: dict[str, Any] | None = found["odds"]
    return odds


def as_fractions(odds: dict[str, Any]) -> dict[str, Any]:
    """One target's odds with every chance a ``Fraction`` and ``dealt`` keyed by int."""
    made: dict[str, Any] = {k: fraction(v) for k, v in odds.items() if k != "dealt"}
    made["dealt"] = {int(d): fraction(p) for d, p in odds["dealt"].items()}
    return made


def outcome_of(result: Any, target: str) -> tuple[bool, bool, int, bool]:
    """``(landed, critical, dealt, drops)`` of one resolved step at ``target``."""
    assert result.ok, result.reason
    attacks = [e for e in result.events if e["type"] == "attack" and e["targetId"] == target]
    landed = not attacks or attacks[0]["outcome"] != "miss"
    critical = bool(attacks) and attacks[0]["outcome"] == "critical"
    dealt = sum(
        e["dealt"] for e in result.events if e["type"] == "damage" and e["targetId"] == target
    )
    after = next(c for c in result.fight["combatants"] if c["id"] == target)
    return landed, critical, dealt, not standing(after)


def resolver_tally(
    game: Game, who: str, option: str, target: str, aimed: str | None = None
) -> dict[str, Any]:
    """The exact odds the resolver itself gives, over every face sequence it asks for
    (``oracles.enumerate_throws``): ``option`` of ``who`` aimed at ``aimed`` (written
    targets, default ``target``) through the ``[fight:]`` step, read at ``target``."""
    tag = FightTag((0, 0), f'op="act" who="{who}" option="{option}" target="{aimed or target}"')

    def run(dice: Any) -> tuple[bool, bool, int, bool]:
        return outcome_of(step(game.ruleset, game.fight, game.party, tag, dice), target)

    tally: dict[str, Any] = {"hit": Fraction(0), "critical": Fraction(0), "drops": Fraction(0)}
    dealt: dict[int, Fraction] = {}
    for (landed, critical, amount, drops), p in enumerate_throws(run).items():
        tally["hit"] += p if landed else 0
        tally["critical"] += p if critical else 0
        tally["drops"] += p if drops else 0
        dealt[amount] = dealt.get(amount, Fraction(0)) + p
    assert sum(dealt.values()) == 1
    tally["dealt"] = dealt
    return tally


def seeded_p_value(game: Game, who: str, option: str, target: str, draws: int) -> float:
    """The chi-square p-value of what ``draws`` seeded throws of one choice dealt
    ``target`` against the menu's odds of it."""
    from stats import chi_square_p

    odds = menu_odds(game, who, option)
    assert odds is not None
    expected = as_fractions(odds[target])["dealt"]
    tag = FightTag((0, 0), f'op="act" who="{who}" option="{option}" target="{target}"')
    observed: Counter[int] = Counter()
    for i in range(draws):
        result = step(game.ruleset, game.fight, game.party, tag, SeededDice(f"odds-chi-{i}"))
        observed[sum(e["dealt"] for e in result.events if e["type"] == "damage")] += 1
    p_value, _ = chi_square_p(observed, expected, draws)
    return p_value
