"""Write docs/rulesets/<id>.md, one page per packaged ruleset, from the code itself.

    .venv/bin/python scripts/gen_ruleset_pages.py          write every page
    .venv/bin/python scripts/gen_ruleset_pages.py --check  exit 1 if a page is out of date

Each page shows what ``dicebound gm --ruleset ID`` teaches and, for every packaged
character, what ``dicebound report --ruleset ID --character NAME`` prints: the exact
chance of success (and of each band) of every check at every ladder step. The text is
the command line's own output (``dicebound.edge.cli.main``), so the pages are checked
in and reviewed like code: a change that moves an odd shows up in the diff.
``tests/test_docs_rulesets.py`` fails when a page differs from what this script writes.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from dicebound.edge.cli import main as cli
from dicebound.edge.files import packaged_characters, packaged_rulesets

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "rulesets"
DATA = ROOT / "src" / "dicebound" / "data"


def _run(*argv: str) -> str:
    out = io.StringIO()
    code = cli(list(argv), out=out)
    if code != 0:
        raise SystemExit(f"dicebound {' '.join(argv)} exited {code}")
    return out.getvalue().rstrip("\n")


def _fence(text: str) -> str:
    return f"```text\n{text}\n```"


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def _action_text(action: dict[str, Any]) -> str:
    damage = action.get("damage", {})
    words = [f"{action['name']}: to hit {action['toHit']}" if "toHit" in action else action["name"]]
    if damage:
        amount = damage.get("dice") or str(damage.get("flat", ""))
        words.append(f"{amount} {damage.get('type', '')}".strip())
    return ", ".join(words)


def _fight_parts(raw: dict[str, Any]) -> list[str]:
    """The fight section: what the combat block says of itself, its threat tiers and
    every bestiary creature with its numbers, read off the file."""
    combat = raw["combat"]
    parts = ["## Fights", f"`combat.kind` is `{combat['kind']}`. {combat.get('$comment', '')}"]
    tiers = combat.get("threat", {}).get("tiers", [])
    if tiers:
        head = ["Tier", "Health", "Defense", "To hit", "Damage a round"]
        rows = [
            [
                f"`{t['id']}` {t['label']}",
                "-".join(map(str, t["health"])),
                str(t["defense"]),
                str(t["toHit"]),
                "-".join(map(str, t["damagePerRound"])),
            ]
            for t in tiers
        ]
        parts += ["Threat tiers, for opponents proposed by number:", _table(head, rows)]
    for catalog in raw.get("catalogs", []):
        if catalog.get("holds") != "creatures":
            continue
        head = ["Creature", "Tier", "Health", "Defense", "Initiative", "Soak", "Actions"]
        rows = []
        for entry in catalog["entries"]:
            c = entry["creature"]
            soak = c.get("soak", {})
            soaks = [f"all {soak['all']}"] if "all" in soak else []
            soaks += [f"{kind} {n}" for kind, n in soak.get("byKind", {}).items()]
            rows.append(
                [
                    f"`{catalog['id']}/{entry['id']}` {entry['label']}",
                    c["tier"],
                    str(c.get("health", "")),
                    str(c.get("defense", "")),
                    f"{c.get('initiativeModifier', 0):+d}",
                    ", ".join(soaks) or "none",
                    "; ".join(_action_text(a) for a in c.get("actions", [])),
                ]
            )
        parts += [f"{catalog['label']} (`{catalog['id']}`):", _table(head, rows)]
    return parts


def page_text(ruleset_id: str) -> str:
    """The Markdown page of one packaged ruleset."""
    raw = json.loads((DATA / "rulesets" / f"{ruleset_id}.json").read_text(encoding="utf-8"))
    capability = json.loads((DATA / "capability.json").read_text(encoding="utf-8"))
    kind = raw["resolution"]["kind"]
    rows = [
        ("id", f"`{ruleset_id}`"),
        ("version", str(raw["version"])),
        ("kind", f"`{kind}`"),
        ("Capability API", capability[ruleset_id]),
    ]
    if raw.get("edition"):
        rows.append(("edition", raw["edition"]))
    characters = packaged_characters(ruleset_id)
    rows.append(("characters", ", ".join(f"`{c}`" for c in characters)))
    parts = [
        "<!-- Written by scripts/gen_ruleset_pages.py from the code: do not edit by hand. -->",
        f"# {raw['name']}",
        raw["coverage"]["summary"],
        "| | |\n| --- | --- |\n" + "\n".join(f"| {k} | {v} |" for k, v in rows),
    ]
    attribution = raw.get("license", {}).get("attribution")
    if attribution:
        parts.append(f"*{attribution}*")
    parts.append(
        f"The file is `src/dicebound/data/rulesets/{ruleset_id}.json`; "
        "[Packaged rulesets](../rulesets.md) says what each packaged ruleset shows and "
        "the choices made where the game and the format do not line up."
    )
    layers = raw.get("layers", [])
    if layers:
        parts.append(
            "Layers: " + ", ".join(f"`{layer['id']}` ({layer['label']})" for layer in layers)
        )
    if "combat" in raw:
        parts += _fight_parts(raw)
    parts += [
        "## What the Game Master is taught",
        f"`dicebound gm --ruleset {ruleset_id}` prints:",
        _fence(_run("gm", "--ruleset", ruleset_id)),
    ]
    for name in characters:
        parts += [
            f"## Odds for `{name}`",
            f"`dicebound report --ruleset {ruleset_id} --character {name}` prints:",
            _fence(_run("report", "--ruleset", ruleset_id, "--character", name)),
        ]
    return "\n\n".join(parts) + "\n"


def every_page() -> dict[Path, str]:
    return {PAGES / f"{r}.md": page_text(r) for r in packaged_rulesets()}


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: gen_ruleset_pages.py [--check]", file=sys.stderr)
        return 2
    pages = every_page()
    stale = [p for p, text in pages.items() if not p.is_file() or p.read_text("utf-8") != text]
    extra = sorted(set(PAGES.glob("*.md")) - set(pages))
    if argv == ["--check"]:
        for path in [*stale, *extra]:
            print(f"{path.relative_to(ROOT)} is out of date: run {__file__}", file=sys.stderr)
        return 1 if stale or extra else 0
    PAGES.mkdir(parents=True, exist_ok=True)
    for path in stale:
        path.write_text(pages[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    for path in extra:
        path.unlink()
        print(f"removed {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
