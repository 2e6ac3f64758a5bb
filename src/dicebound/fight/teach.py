"""What the Game Master is taught of fights (FIGHTS §15.1), only where the ruleset has a
``combat`` block: the ``[fight:]`` tag's ops, the ``enemies`` grammar, the threat tiers
and the bestiary's first names. The model writes every opponent's choice; the Engine
throws every die."""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character

__all__ = ["BESTIARY_NAMES", "fight_lesson"]

BESTIARY_NAMES = 60
"""How many of the bestiary's creatures the lesson names (FIGHTS §15.1)."""


def fight_lesson(ruleset: Ruleset, party: Sequence[Character] = ()) -> str:
    """The fight part of the lesson; empty where the ruleset has no ``combat`` block."""
    combat = ruleset.combat
    if combat is None:
        return ""
    creatures = list(combat.creatures.values())
    first = creatures[0].label if creatures else "Bandit"
    second = creatures[1].label if len(creatures) > 1 else "Thug"
    tier = combat.tiers[0].id if combat.tiers else None
    who = party[0].name if party else "Full Name"
    out = [
        "Fights: the Engine plays a fight turn by turn from [fight: ...] tags, resolved in text "
        "order with the other tags; the game keeps one fight at a time.",
        f'- Start: [fight: op="start" enemies="{first} x2, {second}"] (party="Name, Name" picks '
        "who fights; by default every character of the game).",
        f'- A choice: [fight: op="act" who="{who}" option="<an option>" target="<a name>"]; '
        "the answer says whose turn is next. Write every opponent's choice yourself; a player "
        "chooses their own character's.",
        f'- End a turn: [fight: op="end-turn" who="{who}"]. The party runs: [fight: op="flee"]. '
        'The story stops the fight: [fight: op="end"].',
        '- When an answer says next="window w1: Name", the fight waits for Name: write '
        '[fight: op="act" who="Name" option="<an answer>" window="w1"] (a reaction or a '
        'signature action) or [fight: op="pass" who="Name" window="w1"].',
        '- Opponents (enemies="..."): names separated by commas; "Name x3" makes three; '
        '"Name (catalog/entry)" or "Name (a creature\'s label)" names a creature of the '
        'bestiary; "Name (tier ID)" a tier\'s plain opponent'
        + (
            '; "Name (tier ID; health 20; defense 12; hit 4; damage 1d8+2 slashing)" proposes '
            "one, held to its tier."
            if tier is not None
            else "."
        ),
    ]
    if combat.tiers:
        out.append("Tiers:")
        out += [
            f"- {t.id}: {t.label} (health {t.health[0]}-{t.health[1]}, defense {t.defense}, "
            f"hit {t.to_hit:+d}, damage a round {t.damage_per_round[0]}-{t.damage_per_round[1]})"
            for t in combat.tiers
        ]
    if creatures:
        shown = creatures[:BESTIARY_NAMES]
        more = len(creatures) - len(shown)
        names = ", ".join(f"{c.label} ({c.catalog}/{c.entry}, {c.tier})" for c in shown)
        out.append(f"The bestiary: {names}" + (f", and {more} more." if more else "."))
    out.append(
        "Narrate from each step's answer (its now= lines and outcome); a refused step "
        '(result="refused") changed nothing. Never write dice, hits or damage yourself.'
    )
    return "\n".join(out)
