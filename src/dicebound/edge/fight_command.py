"""``dicebound fight``: a fight file shown as the table sees it between tags — the
state, the summary, and the current actor's options with their forecasts and exact
odds (``fight.fight_view``). Nothing is thrown and nothing is written."""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TextIO

__all__ = ["fight_text", "show_fight"]


def _percent(text: str) -> str:
    return f"{float(Fraction(text)) * 100:.1f}%"


def _member(m: Mapping[str, Any]) -> str:
    line = f"{m['name']} {m['health']}/{m['maxHealth']}"
    if m["temp"]:
        line += f" +{m['temp']} temp"
    for flag in ("down", "dying", "stable"):
        if m[flag]:
            line += f" {flag}"
    if m["conditions"]:
        line += " [" + ", ".join(m["conditions"]) + "]"
    return line


def _enemy(e: Mapping[str, Any]) -> str:
    return f"{e['name']} {e['health']}/{e['maxHealth']}" + (" defeated" if e["defeated"] else "")


def _odds_lines(option: Mapping[str, Any], names: Mapping[str, str]) -> list[str]:
    if "oddsRefused" in option:
        return [f"    odds: refused ({option['oddsRefused']})"]
    lines = []
    for target, odds in (option.get("odds") or {}).items():
        if "heals" in odds:  # a heal weighs its amount alone
            heals = ", ".join(f"{n}: {p}" for n, p in odds["heals"].items())
            lines.append(f"    at {names.get(target, target)}: heals {heals}")
            continue
        dealt = ", ".join(f"{d}: {p}" for d, p in odds["dealt"].items())
        lines.append(
            f"    at {names.get(target, target)}: hit {odds['hit']} ({_percent(odds['hit'])}), "
            f"critical {odds['critical']}, drops {odds['drops']} ({_percent(odds['drops'])}); "
            f"dealt {dealt}"
        )
    return lines


def _option_lines(option: Mapping[str, Any], names: Mapping[str, str]) -> list[str]:
    head = f"  {option['label']} [{option['id']}]"
    if "budget" in option:
        head += f" {option['budget']}"
    targets = option.get("targets")
    if targets and targets["count"]:
        head += f", {targets['side']} {targets['count']}"
    forecast = option.get("forecast")
    if forecast:
        parts = []
        if "hitChance" in forecast:
            parts.append(f"hit {forecast['hitChance']}")
        parts.append(f"average {forecast['averageDamage']}")
        head += "; forecast: " + ", ".join(parts)
    return [head, *_odds_lines(option, names)]


def fight_text(view: Mapping[str, Any]) -> str:
    """The view as lines for a person."""
    fight = view["fight"]
    if fight is None:
        return 'No fight yet: a [fight: op="start" ...] tag starts one (dicebound check --fight).'
    names = {c["id"]: c["name"] for c in fight["combatants"]}
    by_id = {c["id"]: c for c in fight["combatants"]}
    summary = view["summary"]
    lines = [
        f"Fight {fight['id']}, round {fight['round']}: {fight['outcome']}",
        "Order: " + ", ".join(f"{names[i]} ({by_id[i]['initiative']})" for i in fight["order"]),
        "Party: " + "; ".join(_member(m) for m in summary["party"]),
        "Enemies: " + "; ".join(_enemy(e) for e in summary["enemies"]),
    ]
    current = view["current"]
    if current is not None:
        lines.append(f"Options for {current['who']}:")
        for option in current["options"]:
            lines += _option_lines(option, names)
    return "\n".join(lines)


def show_fight(view: Mapping[str, Any], out: TextIO, *, as_json: bool) -> None:
    if as_json:
        json.dump(view, out, indent=2, ensure_ascii=False)
    else:
        out.write(fight_text(view))
    out.write("\n")
