"""FIGHTS §16.1's Gravewatch fixtures: GW (the shared ruleset as written), GW1 (GW less
``combat.initiative.each``) and variants of it, and the warden Ada."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from fight_fixtures import Game, _compiled

from dicebound.character import load_character
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from shared_files import shared_path

ADA_BUILD = {
    "abilities": {"sinew": 3, "nerve": 2, "warmth": 2},
    "skills": {"dig": "rating_1", "wrestle": "rating_2", "ward": "rating_2"},
    "saves": {},
    "bonuses": {},
    "fields": {},
    "lists": {
        "arms": [
            {"name": "Spade", "rating": "sinew", "trade": "dig", "dice": "2d10", "harm": "tearing"},
            {
                "name": "Hook",
                "rating": "nerve",
                "trade": "dig",
                "dice": "1d10+1",
                "harm": "tearing",
            },
        ],
        "charms": [
            {"name": "Lantern Flare", "_catalog": "charms/lantern-flare"},
            {"name": "Stern Word", "_catalog": "charms/stern-word"},
        ],
    },
}


@cache
def gw_doc() -> str:
    return shared_path("marinara", "gravewatch.json").read_text("utf-8")


@cache
def _variant(name: str) -> str:
    doc: dict[str, Any] = json.loads(gw_doc())
    VARIANTS[name](doc)
    return json.dumps(doc)


def _gw1(doc: dict[str, Any]) -> None:
    doc["combat"]["initiative"].pop("each", None)


def _gw1_defense_0(doc: dict[str, Any]) -> None:
    _gw1(doc)
    doc["combat"]["defense"] = {"const": 0}


def _gw1_soak_unrolled(doc: dict[str, Any]) -> None:
    _gw1(doc)
    doc["combat"]["pool"]["soak"]["roll"] = False


def _small(doc: dict[str, Any]) -> None:
    """GW1 on four-sided dice, pools of at most two (two explosions at most), so the
    brute-force enumeration of a blow stays small."""
    _gw1(doc)
    resolution = doc["resolution"]
    resolution["die"] = {"sides": 4}
    resolution["target"] = {"default": 3, "min": 2, "max": 4}
    resolution["explode"] = {"from": 4, "min": 4}
    resolution["pool"]["max"] = 2
    resolution.pop("exceptional", None)
    resolution["difficultyLadder"] = [{"label": "Plain work", "successes": 1}]
    doc.pop("layers", None)
    resolution.pop("reroll", None)
    doc["combat"]["pool"]["damageTarget"] = 3
    doc["combat"]["initiative"]["dice"]["sides"] = 4
    for catalog in doc["catalogs"]:
        for entry in catalog["entries"]:
            creature = entry.get("creature")
            for action in creature["actions"] if creature else ():
                action["damage"]["dice"] = action["damage"]["dice"].replace("d10", "d4")
            mechanics = entry.get("mechanics")
            if mechanics and "explode" in mechanics.get("check", {}):
                mechanics["check"]["explode"] = 4
            if mechanics and "amount" in mechanics:
                mechanics["amount"]["dice"] = mechanics["amount"]["dice"].replace("d10", "d4")


VARIANTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "gw1": _gw1,
    "gw1-defense-0": _gw1_defense_0,
    "gw1-soak-unrolled": _gw1_soak_unrolled,
    "small": _small,
}


@cache
def gw(variant: str | None = None) -> Ruleset:
    """GW, or one of ``VARIANTS`` of it."""
    return _compiled(gw_doc() if variant is None else _variant(variant))


def ada(
    ruleset: Ruleset, live: dict[str, Any] | None = None, sinew: int = 3, sides: int = 10
) -> Character:
    """Ada, her arms' damage dice on ``sides``-sided dice."""
    build = json.loads(json.dumps(ADA_BUILD))
    build["abilities"]["sinew"] = sinew
    for row in build["lists"]["arms"]:
        row["dice"] = row["dice"].replace("d10", f"d{sides}")
    raw: dict[str, Any] = {"name": "Ada", "sheet": {"v": 1, "build": build}}
    if live is not None:
        raw["live"] = live
    return load_character(ruleset, raw)


def gw_start(enemies: str, variant: str | None = "gw1", *faces: int) -> Game:
    """``S(GW…; Ada; enemies; faces)`` (default faces 10, then 1 for each opponent)."""
    ruleset = gw(variant)
    game = Game(ruleset, (ada(ruleset),))
    count = enemies.count(",") + 1
    game.S("Ada", enemies, *(faces or (10, *([1] * count))))
    return game


def _gw1_shove(doc: dict[str, Any]) -> None:
    """E32's contest: a check ``might`` = Sinew, a contest ``shove`` on ``act`` that
    rattles for a round, the rats' ``checks {might 2}``."""
    _gw1(doc)
    combat = doc["combat"]
    combat["checks"] = [{"id": "might", "label": "Might", "value": {"abilityMod": "sinew"}}]
    combat["contests"] = [
        {
            "id": "shove",
            "label": "Shove",
            "budget": "act",
            "attacker": {"checks": ["might"]},
            "defender": {"checks": ["might"]},
            "onWin": {"applies": [{"condition": "rattled", "rounds": 1}]},
        }
    ]
    night = next(c for c in doc["catalogs"] if c["id"] == "night")
    rats = next(e for e in night["entries"] if e["id"] == "grave-rats")
    rats["creature"]["checks"] = {"might": 2}


VARIANTS["gw1-shove"] = _gw1_shove


def _small_shove(doc: dict[str, Any]) -> None:
    _small(doc)
    shove: dict[str, Any] = json.loads(_variant("gw1-shove"))
    doc["combat"]["checks"] = shove["combat"]["checks"]
    doc["combat"]["contests"] = shove["combat"]["contests"]
    night = next(c for c in doc["catalogs"] if c["id"] == "night")
    rats = next(e for e in night["entries"] if e["id"] == "grave-rats")
    rats["creature"]["checks"] = {"might": 2}


VARIANTS["small-shove"] = _small_shove


def _gw1_more(doc: dict[str, Any]) -> None:
    """GW1 with initiative thrown as a pool (Nerve, plus 1), one mark a blow, and the
    rats' Gnaw asking a Steel save against 2 that halves it."""
    _gw1(doc)
    combat = doc["combat"]
    combat["initiative"] = {"pool": {"abilityMod": "nerve"}, "plus": 1}
    combat["damageKinds"]["marks"] = "per-blow"
    night = next(c for c in doc["catalogs"] if c["id"] == "night")
    rats = next(e for e in night["entries"] if e["id"] == "grave-rats")
    rats["creature"]["actions"][0]["save"] = {"save": "steel", "difficulty": 2, "onSuccess": "half"}


def _small_saved(doc: dict[str, Any]) -> None:
    _small(doc)
    night = next(c for c in doc["catalogs"] if c["id"] == "night")
    rats = next(e for e in night["entries"] if e["id"] == "grave-rats")
    rats["creature"]["actions"][0]["save"] = {"save": "steel", "difficulty": 1, "onSuccess": "half"}


VARIANTS["gw1-more"] = _gw1_more
VARIANTS["small-saved"] = _small_saved


def _summed(doc: dict[str, Any]) -> None:
    """GW1 fought as attack-vs-defense (a d10 attack roll, no pool rules, no soak):
    a summed fight whose party's health is the Harm track."""
    _gw1(doc)
    combat = doc["combat"]
    combat["kind"] = "attack-vs-defense"
    combat.pop("pool")
    combat["attackRoll"] = {"dice": {"count": 1, "sides": 10}}
    combat["defense"] = {"const": 5}
    for catalog in doc["catalogs"]:
        for entry in catalog["entries"]:
            if "creature" in entry:
                entry["creature"].pop("soak", None)


VARIANTS["summed"] = _summed
