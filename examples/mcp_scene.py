"""A scripted Game Master plays three turns of a scene through dicebound's MCP tools.

No language model is needed: the "model" here is a script that does what a model
acting as Game Master does, in the order it would. It reads its instructions, writes
narration with check tags (quoted sloppily, as models do, and once with a wrong skill
name), lets dicebound resolve them, prices a check before calling for it, passes the
player's raise after a roll (paid from a pool) and a Sacrifice's choice back, and reads
the history. Every die is thrown by dicebound; the seeds make the scene replayable.

Run it (with the ``[serve]`` extra installed):

    python examples/mcp_scene.py            # a fresh store in a temporary folder
    python examples/mcp_scene.py --db sqlite:///scene.db

It makes a game of Advanced Resolution with two packaged characters (``dicebound db
new-game``), starts ``dicebound mcp`` as a subprocess and talks to it with the official
MCP SDK's client over stdio, exactly as a desktop MCP client would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

RULESET = "advanced-resolution"
PARTY = ("maud", "peet")
MAUD = "Maud Harrowgate"
PEET = "Sneeky Peet"


@dataclass(frozen=True)
class Throw:
    """One call of resolve_checks: the narration as the model wrote it, and its seed."""

    text: str
    seed: str


# Turn 1: two checks, quoted as a model might (single quotes, none, curly quotes); the
# second names a skill the ruleset does not have, so the model rewrites that tag.
TURN_1 = Throw(
    "Peet kneels at the vault door and works the lock. "
    "[skill_check: skill='Scoundrel/Lockpick' difficulty=Uncommon who=\u201cSneeky Peet\u201d] "
    "Maud keeps the hall. [skill_check:skill=\"Warrior/Swordplay\" dc=4 who='Maud Harrowgate']",
    "scene-turn-1",
)
TURN_1_AGAIN = Throw(
    'Maud keeps the hall. [skill_check: skill="Martial/Swordplay" dc="4" who="Maud Harrowgate"]',
    "scene-turn-1b",
)
# Turn 2: a guard captain steps in; the model prices a Rare duel, calls for it, and the
# player raises the die from Maud's Body.
TURN_2 = Throw(
    'The captain draws. [skill_check: skill="Martial/Swordplay" difficulty="Rare" '
    'who="Maud Harrowgate"]',
    "turn2-0",
)
RAISE = {"pool": "body", "points": 2}
# Turn 3: slipping out; the roll lands on a Sacrifice and the player chooses to succeed.
TURN_3 = Throw(
    'They slip out past the stables. [skill_check: skill="Scoundrel/Sneak" '
    'difficulty="Normal" who="Maud Harrowgate"]',
    "turn3-0",
)
CHOICE = "succeed"


class ToolFailed(Exception):
    """A tool answered with an error: its sentence."""


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool; its structured answer, or ToolFailed with dicebound's sentence."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise ToolFailed(" ".join(getattr(block, "text", "") for block in result.content))
    answer: dict[str, Any] = result.structured_content or {}
    return answer


async def play(client: Client, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The three turns; gives what the model saw at the end (records, Maud's sheet)."""
    prompt = await client.get_prompt("game_master", {})
    instructions = prompt.messages[0].content
    say(f"[the model reads its instructions: {len(getattr(instructions, 'text', ''))} characters]")
    taught = await call(client, "gm_instructions", {"character": MAUD})
    say(taught["text"].splitlines()[0])

    say("\n-- Turn 1")
    first = await call(client, "resolve_checks", {"text": TURN_1.text, "seed": TURN_1.seed})
    say(first["text"])
    for error in first["errors"]:  # the model reads why, and writes the tag again
        say(f"(the Engine refused a tag: {error['error']})")
    again = await call(
        client, "resolve_checks", {"text": TURN_1_AGAIN.text, "seed": TURN_1_AGAIN.seed}
    )
    say(again["text"])

    say("\n-- Turn 2")
    odds = await call(
        client,
        "check_odds",
        {"tag": '[skill_check: skill="Martial/Swordplay" difficulty="Rare"]', "who": MAUD},
    )
    say(f"(the model checks the odds of a Rare duel: success {odds['success']})")
    duel = await call(client, "resolve_checks", {"text": TURN_2.text, "seed": TURN_2.seed})
    (result,) = duel["results"]
    say(f"{result['outcome']}; the Engine offers: {result['attrs'].get('offer')}")
    raised = await call(client, "settle_after_roll", {"record": result["id"], **RAISE})
    say(f"The player raises from Body: {raised['outcome']}, paid {raised['paid']}")

    say("\n-- Turn 3")
    escape = await call(client, "resolve_checks", {"text": TURN_3.text, "seed": TURN_3.seed})
    (result,) = escape["results"]
    say(f"{result['outcome']} (choice {result['choice']})")
    chosen = await call(client, "settle_after_roll", {"record": result["id"], "choose": CHOICE})
    say(f"The player chooses to {CHOICE}: {chosen['outcome']}")

    history = await call(client, "list_records", {"limit": 100})
    maud = await call(client, "character", {"name": MAUD})
    say(f"\n{len(history['records'])} records; Maud's pools now {maud['live'].get('pools')}")
    return {"records": history["records"], "maud": maud}


def character_path(short: str) -> Path:
    """A packaged character's file, as installed with dicebound."""
    folder = resources.files("dicebound.data") / "characters" / RULESET
    return Path(str(folder / f"{short}.json"))


def new_game(db: str) -> str:
    """Make the scene's game in the store with ``dicebound db new-game``; its id."""
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "dicebound",
            "db",
            "new-game",
            "--db",
            db,
            "--name",
            "The vault",
            "--ruleset",
            RULESET,
            *(a for s in PARTY for a in ("--character", str(character_path(s)))),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    game: str = json.loads(made.stdout)["id"]
    return game


def stdio_server(db: str, game: str) -> StdioServerParameters:
    """How a desktop MCP client starts dicebound: the command line it registers."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "dicebound", "mcp", "--db", db, "--game", game]
    )


async def run(db: str, say: Callable[[str], None] = print) -> tuple[str, dict[str, Any]]:
    game = new_game(db)
    async with Client(stdio_server(db, game)) as client:
        return game, await play(client, say)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="the store (default: a fresh SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or f"sqlite:///{Path(folder) / 'scene.db'}"
        asyncio.run(run(db))
    return 0


if __name__ == "__main__":
    sys.exit(main())
