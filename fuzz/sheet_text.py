"""Sheet commands for campaign (a): the ``[sheet:]`` tags a model writes, the tables they
are resolved against, and what every resolved text must keep.

The generator is grammar-aware (docs/design/sheet-commands.md "The grammar"): every op
and alias and near misses of them, every attribute an op reads and the ones it ignores,
values in double, single, mismatched or unterminated quotes or none, ``key=`` with no
value (also before another ``key=``), integers at their edges (signs, 9 and 10 digits,
``-0``, ``007``, ``1.5``), amounts past the caps, boxes 0 and 65, ``who`` over 100
characters, ``party``, names with unicode and combining marks, bodies either side of
the 1500-character cap, ``]`` inside quotes, nested ``[sheet:`` heads, more than 40
commands, and check tags beside and inside sheet tags.

The properties (``verify``), per text:

- ``resolve_text`` raises nothing but dicebound's own errors, and for a text with no
  check tag nothing at all;
- every sheet tag found is rewritten exactly once, and the text outside the tags is
  unchanged;
- every rewritten tag reads back (``read_back``) as answered, ok with its ``now`` or
  refused with one of the reasons, and the whole rewritten text reads back the same;
- the 41st tag on is ``too-many``, an unreadable one ``malformed``, and a readable one
  is never ``malformed`` (that reason for it means a command failed inside);
- a text whose every command is refused (and holds no check) leaves the party as it was;
- a rewritten tag read again is the request read from the model's tag, with the written
  ``who`` and each value as sanitised (round trip).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.errors import DiceboundError
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.grammar import find_sheet_tags, read_request
from dicebound.sheet_commands.model import SheetOutcome, SheetRequest, Unreadable
from dicebound.sheet_commands.reasons import (
    AMBIGUOUS_CHARACTER,
    MALFORMED,
    REASONS,
    TOO_MANY,
    UNKNOWN_CHARACTER,
)
from dicebound.sheet_commands.written import MAX_NOW, read_back, sanitise
from dicebound.tagpass import CheckReport, resolve_text
from dicebound.tags.parse import TagMatch, parse_tags
from dicebound.values import fields, replace

MARINARA = Path(__file__).resolve().parents[1].parent / "shared" / "marinara"
MAX_COMMANDS = 40
"""The commands one text may hold; the 41st on is refused ``too-many``."""

CheckTag = Callable[[random.Random, Ruleset, list[Character]], str]


class PropertyBroken(AssertionError):
    """A resolved text broke one of the properties: a failure, never dicebound's own error."""


# ── the tables: a ruleset, a party, and the names they answer to ─────────────


@dataclass(frozen=True)
class Table:
    """One ruleset and party, and the names a model would write about them."""

    key: str
    ruleset: Ruleset
    party: tuple[Character, ...]
    pools: tuple[str, ...]
    tracks: tuple[str, ...]
    wound_tracks: tuple[str, ...]
    kinds: tuple[str, ...]
    conditions: tuple[str, ...]
    states: tuple[str, ...]
    values: tuple[str, ...]
    fields: tuple[str, ...]
    rests: tuple[str, ...]
    entries: tuple[str, ...]
    who: tuple[str, ...]


def _names(ruleset: Ruleset, party: Sequence[Character]) -> dict[str, tuple[str, ...]]:
    """Every id and label of the things a sheet command names, and the party's names."""
    sheet = ruleset.sheet
    pools = [n for p in sheet.pools for n in (p.id, p.label)]
    for decl in sheet.lists:
        if decl.pools is None:
            continue
        for member in party:
            for row in member.build.lists.get(decl.id, ()):
                name = row.cells.get(decl.pools.name_column)
                if isinstance(name, str):
                    pools += [name, f"{decl.id}:{name.strip().lower()}"]
    groups = {p.group for p in sheet.pools if p.group}
    labels = {f"{c.id}/{e.id}": e.label for c in ruleset.catalogs for e in c.entries}
    picked = []  # the rows a party picked from a catalog: what a use can name
    for member in party:
        for rows in member.build.lists.values():
            for row in rows:
                if row.catalog is not None:
                    picked += [str(v) for v in row.cells.values() if isinstance(v, str)][:1]
                    picked.append(labels.get(row.catalog, row.catalog))
    entries = picked * 8 + [n for c in ruleset.catalogs for e in c.entries for n in (e.id, e.label)]
    return {
        "pools": tuple(pools) + tuple(sorted(groups)),
        "tracks": tuple(n for t in sheet.tracks for n in (t.id, t.label) for _ in t.kinds or "1"),
        "wound_tracks": tuple(n for t in sheet.tracks if t.kinds for n in (t.id, t.label)),
        "kinds": tuple(n for t in sheet.tracks for k in t.kinds for n in (k.id, k.label)),
        "conditions": tuple(n for c in sheet.conditions for n in (c.id, c.label)),
        "states": tuple(n for s in sheet.states for n in (s.id, s.label)),
        "values": tuple(
            n for s in sheet.states for v in s.values for n in (v, s.value_labels.get(v, v))
        )
        * 3,
        "fields": tuple(n for t in sheet.text for n in t[:2]),
        "rests": tuple(n for r in ruleset.rests for n in (r.id, r.label)),
        "entries": tuple(entries),
        "who": tuple(c.name for c in party),
    }


def make_table(key: str, ruleset: Ruleset, party: Sequence[Character]) -> Table:
    return Table(key, ruleset, tuple(party), **_names(ruleset, party))


def crowded(ruleset: Ruleset, party: Sequence[Character]) -> list[Character]:
    """``party`` and cards whose names make ``who`` hard: the player's name in another
    case (one key, two cards), a card called Party, and one name written two ways
    (a precomposed and a combining diaeresis: one key, neither the player)."""
    extra = [party[0].name.lower() + " ", "Party", "Zoë", "Zoe\u0308", "Ærin-Þór"]
    return [*party, *(load_character(ruleset, {"name": name}) for name in extra)]


def _marinara_party(name: str, ruleset: Ruleset) -> list[Character]:
    """Two characters for one of Marinara's example rulesets, with what its commands
    name: slots, counters and catalog rows (5e), scars and charms (Gravewatch), tricks
    and knacks (Ember Roads)."""
    builds: dict[str, list[dict[str, object]]] = {
        "ruleset-5e-2014.example": [
            {
                "name": "Mira",
                "sheet": {
                    "v": 1,
                    "build": {
                        "fields": {
                            "level": 3,
                            "spellcasting_ability": "int",
                            "slots_max_1": 3,
                            "pact_slots_max": 1,
                        },
                        "lists": {
                            "counters": [  # one pool: the first row's maximum holds
                                {"name": "Focus", "max": 2, "recharge": "short"},
                                {"name": "focus ", "max": 9, "recharge": "long"},
                                {  # a counter with no uses never gives a free one
                                    "name": "Second Effort",
                                    "max": 0,
                                    "_catalog": "feats/second-effort",
                                },
                            ],
                            "features": [
                                {"name": "Second Effort", "_catalog": "feats/second-effort"},
                                {"name": "Quick Hands", "_catalog": "feats/quick-hands"},
                            ],
                        },
                    },
                },
            },
            {"name": "Tam the Bold", "sheet": {"v": 1, "build": {"fields": {"level": 1}}}},
        ],
        "gravewatch": [
            {
                "name": "Warden Ilse",
                "sheet": {
                    "v": 1,
                    "build": {
                        "lists": {
                            "scars": [{"name": "Old bite", "levels": 2, "penalty": -1}],
                            "charms": [{"name": "Steady Hand", "_catalog": "charms/steady-hand"}],
                        }
                    },
                },
            },
            {"name": "Brother Cole"},
        ],
        "ember-roads": [
            {
                "name": "Juno",
                "sheet": {
                    "v": 1,
                    "build": {
                        "fields": {"toughness": 2},
                        "lists": {
                            "knacks": [
                                {"name": "Last Ember", "_catalog": "knacks/last-ember"},
                                {"name": "Hold the Line", "_catalog": "knacks/hold-the-line"},
                            ],
                            "tricks": [
                                {
                                    "name": "Last Ember",
                                    "uses": 1,
                                    "recharge": "camp",
                                    "_catalog": "knacks/last-ember",
                                }
                            ],
                        },
                    },
                },
            },
            {"name": "Pell"},
        ],
    }
    return [load_character(ruleset, raw) for raw in builds[name]]


def marinara_tables() -> list[Table]:
    """Tables on Marinara's three example rulesets, when the shared folder is beside the
    repository (none otherwise)."""
    tables = []
    for name in ("ruleset-5e-2014.example", "gravewatch", "ember-roads"):
        path = MARINARA / f"{name}.json"
        if not path.exists():
            continue
        ruleset = compile_ruleset(json.loads(path.read_text(encoding="utf-8")))
        party = _marinara_party(name, ruleset)
        tables.append(make_table(name, ruleset, party))
        tables.append(make_table(f"{name}+crowd", ruleset, crowded(ruleset, party)))
    return tables


# ── the generator ────────────────────────────────────────────────────────────

OPS: tuple[str, ...] = ("spend", "restore", "heal", "damage", "temp", "track", "condition")
OPS += ("state", "note", "rest", "use", "cast")
OP_SLIPS: tuple[str, ...] = (
    "SPEND",
    " Heal ",
    "Cast",
    "DaMaGe",
    "spends",
    "dmg",
    "hurt",
    "",
    "us\u0435",
)
OP_SLIPS += ("rest rest", "'rest'", "use\u0301", "ｕｓｅ", "wound", "sheet", "op")
HEADS = ("[sheet:", "[sheet:", "[sheet: ", "[sheet: ", "[SHEET: ", "[Sheet:", "[sHeEt:  ")
HEAD_SLIPS: tuple[str, ...] = (
    "[sheet ",
    "[sheets: ",
    "[ sheet: ",
    "(sheet: ",
    "sheet: ",
    "[ſheet: ",
)
HEAD_SLIPS += ("[sheet\u200b: ", "［sheet: ", "[[sheet: ")
ATTRIBUTES: tuple[str, ...] = ("who", "op", "pool", "amount", "track", "kind", "box", "to", "by")
ATTRIBUTES += ("condition", "state", "value", "field", "rest", "name", "spell")
IGNORED = ("result", "now", "reason", "raw", "mode", "dice", "skill", "x", "_", "9")
INTEGERS: tuple[str, ...] = (
    "1",
    "2",
    "3",
    "5",
    "7",
    "0",
    "-1",
    "-2",
    "-0",
    "+2",
    "+0",
    "007",
    "-007",
)
INTEGERS += ("1.5", "1e3", "1,000", "999999999", "-999999999", "1000000000", "-1000000000")
INTEGERS += ("100000", "100001", "-100000", "-100001", "1000000", "1000001", "-1000001")
INTEGERS += ("0x10", "", " 5 ", "\u0663", "five", "+-1", "--1", "1 2", "+", "-", "12abc")
INTEGERS += ("99999999999999999999", "\uff15", "٣٣", "2²")
BOXES = ("0", "1", "2", "4", "64", "65", "-1", "high", "1.0", "+1", "007")
PARTY = ("party", "Party", "PARTY", "party!", " party ", "the party", "partý", "Party\u0301")
NOISE: tuple[str, ...] = ("", " ", "\n", "\t", "\x00", "\x07", "\x85", "\u2028", "\u200b", "\ufeff")
NOISE += ("\ud800", "é", "漢字", "🎲", "\u202e", "[", "=", '"', "'", ";", "; ", ":", "\\")
NOISE += ("\u0301", "<b>", "&amp;", "\r\n", "\x7f", "»", "“")
PROSE = ("The door.", "", "She runs", "💥", "Mira winces.", "They camp.", "[", "]", "=")
UNKNOWN = ("Nobody", "hit points", "Hit Points", "slot", "Ki Points", "Stelth", "x" * 130)


def _spelled(rng: random.Random, name: str) -> str:
    """``name`` as a model writes it: mostly as is, else in another case, padded, cut,
    joined to another by ``; ``, repeated, or with unicode stuck on."""
    pick = rng.random()
    if pick < 0.6 or not name:
        return name
    if pick < 0.7:
        return rng.choice([name.upper(), name.lower(), name.swapcase(), name.title()])
    if pick < 0.74:
        return f"  {name} "
    if pick < 0.78:
        return name[: rng.randint(0, len(name))]
    if pick < 0.83:
        return f"{name}; {rng.choice(UNKNOWN)}"
    if pick < 0.87:
        return name + "\u0301"
    if pick < 0.9:
        return name * rng.randint(2, 40)
    at = rng.randrange(len(name) + 1)
    return name[:at] + rng.choice(NOISE) + name[at:]


def _name(rng: random.Random, known: Sequence[str]) -> str:
    if known and rng.random() < 0.85:
        return _spelled(rng, rng.choice(known))
    return _spelled(rng, rng.choice(UNKNOWN))


def _who(rng: random.Random, table: Table) -> str:
    pick = rng.random()
    if pick < 0.55:
        return _name(rng, table.who)
    if pick < 0.75:
        return rng.choice(PARTY)
    if pick < 0.85:
        return rng.choice(table.who) + "x" * rng.choice([60, 99, 100, 101, 200])
    if pick < 0.9:
        return "é" * rng.choice([99, 100, 101]) + "\u0301"
    return rng.choice(UNKNOWN)


def _integer(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.5:
        return str(rng.randint(-3, 12))
    if pick < 0.85:
        return rng.choice(INTEGERS)
    return str(rng.randint(-(10**12), 10**12))


ON_OFF = ("on", "off", "add", "remove", "true", "false", "ON", " Off ", "maybe", "")


def _value(rng: random.Random, table: Table, key: str, op: str = "") -> str:
    """A value for ``key`` in a tag of ``op``, mostly one the table answers to."""
    if key in ("amount", "to", "by"):
        return _integer(rng)
    if key == "box":
        return rng.choice(BOXES) if rng.random() < 0.8 else _integer(rng)
    if key == "who":
        return _who(rng, table)
    if key == "op":
        return rng.choice(OPS) if rng.random() < 0.85 else rng.choice(OP_SLIPS)
    known = {
        "pool": table.pools,
        "track": table.wound_tracks if op == "damage" and rng.random() < 0.8 else table.tracks,
        "kind": table.kinds,
        "condition": table.conditions,
        "state": ON_OFF if op == "condition" else table.states,
        "value": table.values if op == "state" else ("Bless", "", " padded  ", "a; b" * 70),
        "field": table.fields,
        "rest": (*table.rests, "short", "long", "nap"),
        "name": table.entries,
        "spell": (*table.entries, "Fireball"),
    }.get(key, ())
    if key in ("result", "reason"):
        known = ("ok", "refused", "insufficient", "malformed")
    return _name(rng, known)


def _pair(rng: random.Random, key: str, value: str, clean: bool) -> str:
    """``key=value`` in one of the ways a model writes it; ``clean``: only the ways
    that read as written (double or single quotes, or none around a single word)."""
    pick = rng.random() * (0.73 if clean else 1)
    if pick < 0.55:
        return f'{key}="{value}"' if '"' not in value or not clean else f"{key}='{value}'"
    if pick < 0.65:
        return f"{key}='{value}'" if "'" not in value or not clean else f'{key}="{value}"'
    if pick < 0.73:
        if clean and (not value or any(c in value for c in " \t\n\r\f\v]\"'")):
            return f'{key}="{value}"'
        return f"{key}={value}"
    if pick < 0.77:
        return f'{key}="{value}'  # unterminated
    if pick < 0.8:
        return f"{key}=\"{value}'"  # mismatched
    if pick < 0.84:
        return f'{key} = "{value}"'
    if pick < 0.87:
        return f"{key}="  # no value
    if pick < 0.89:
        return f'{key}=""'
    if pick < 0.91:
        return f"{key}=“{value}”"
    if pick < 0.93:
        return f'{key.upper()}="{value}"'
    if pick < 0.95:
        return f'{key}:"{value}"'
    if pick < 0.97:
        return f'{key}="{value[:3]}]{value[3:]}"'  # a ] inside quotes ends the tag
    return f'{key}="{value}" {key}="{rng.choice(UNKNOWN)}"'  # written twice: the last wins


_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # op: (what it reads, what may come with it)
    "spend": (("pool", "amount"), ()),
    "restore": (("pool", "amount"), ()),
    "heal": (("pool", "amount"), ()),
    "temp": (("pool", "amount"), ()),
    "damage": (("pool", "amount"), ("track", "kind", "box")),
    "track": (("track",), ("to", "by")),
    "condition": (("condition",), ("state",)),
    "state": (("state", "value"), ()),
    "note": (("field",), ("value",)),
    "rest": (("rest",), ()),
    "use": (("name",), ("spell", "pool")),
    "cast": (("spell",), ("name", "pool")),
}


def _body(rng: random.Random, table: Table) -> str:
    """A tag's body: an op, what it reads, sometimes more, sometimes less."""
    op_value = rng.choice(OPS) if rng.random() < 0.9 else rng.choice(OP_SLIPS)
    op = op_value if op_value in _SHAPES else rng.choice(OPS)
    needed, optional = _SHAPES[op]
    keys = [k for k in needed if rng.random() < 0.96]
    keys += [k for k in optional if rng.random() < 0.5]
    if op == "damage" and rng.random() < 0.5:  # the wound form, mostly without a pool
        keys = [k for k in keys if k != "pool" or rng.random() < 0.1]
        keys += [k for k in ("track", "kind") if k not in keys]
    if op == "track" and not ({"to", "by"} & set(keys)) and rng.random() < 0.8:
        keys.append(rng.choice(["to", "by"]))
    if rng.random() < 0.35:
        keys.append("who")
    if rng.random() < 0.1:
        keys.append(rng.choice(ATTRIBUTES))
    if rng.random() < 0.1:
        keys.append(rng.choice(IGNORED))
    rng.shuffle(keys)
    if rng.random() < 0.97:
        keys.insert(0 if rng.random() < 0.7 else len(keys), "op")
    clean = rng.random() < 0.6
    pairs = []
    for key in keys:
        value = op_value if key == "op" else _value(rng, table, key, op)
        pairs.append(_pair(rng, key, value, clean))
    joint = rng.choice([" ", " ", " ", "  ", "\n", ", ", "", "\t"])
    body = joint.join(pairs)
    if rng.random() < 0.04:
        body = f"x {rng.choice(HEADS)} {body}"  # a nested head: the first one is the tag
    if rng.random() < 0.03:
        body = body.replace("=", rng.choice(["==", "= =", " "]), 1)
    return body


def _padded(rng: random.Random, body: str) -> str:
    """``body`` grown to either side of the 1500-character cap."""
    target = rng.choice([1499, 1500, 1501, 1502, 3000])
    filler = rng.choice([" ", "x", "é", " junk=1", "\n"])
    while len(body) < target:
        body += filler
    return body[:target] if rng.random() < 0.5 else body


def sheet_tag(rng: random.Random, table: Table) -> str:
    """One sheet tag as a model might write it (or nearly)."""
    head = rng.choice(HEADS) if rng.random() < 0.95 else rng.choice(HEAD_SLIPS)
    body = _body(rng, table)
    if rng.random() < 0.03:
        body = _padded(rng, body)
    close = "]" if rng.random() < 0.97 else rng.choice(["", "]]", "］", ")"])
    return f"{head}{body}{close}"


def _overlapping(rng: random.Random, table: Table, check_tag: CheckTag) -> str:
    """A check tag inside a sheet tag, or a sheet tag inside a check tag."""
    sheet = sheet_tag(rng, table)
    check = check_tag(rng, table.ruleset, list(table.party))
    if rng.random() < 0.5:
        return f'{sheet[:-1]} value="{check}"]'
    at = rng.randrange(len(check))
    return check[:at] + sheet + check[at:]


def sheet_text(rng: random.Random, table: Table, check_tag: CheckTag) -> str:
    """A Game Master's text: prose and sheet tags, sometimes check tags among them,
    now and then more than 40 commands."""
    pick = rng.random()
    if pick < 0.03:
        count = rng.randint(MAX_COMMANDS - 2, MAX_COMMANDS + 8)
    elif pick < 0.035:
        count = rng.randint(100, 400)
    else:
        count = rng.randint(1, 5)
    checks = rng.random() < 0.45
    parts = []
    for _ in range(count):
        parts.append(rng.choice(NOISE) + rng.choice(PROSE))
        if checks and rng.random() < 0.3:
            parts.append(check_tag(rng, table.ruleset, list(table.party)))
        elif checks and rng.random() < 0.05:
            parts.append(_overlapping(rng, table, check_tag))
        else:
            parts.append(sheet_tag(rng, table))
    return "".join(parts)


# ── the properties ───────────────────────────────────────────────────────────

_HEAD = re.compile(r"\[sheet:", re.IGNORECASE | re.ASCII)
_STRING_FIELDS: tuple[str, ...] = (
    "pool",
    "track",
    "kind",
    "condition",
    "state",
    "value",
    "field",
    "rest",
)
_STRING_FIELDS += ("name",)
_EARLY = frozenset({TOO_MANY, UNKNOWN_CHARACTER, AMBIGUOUS_CHARACTER})


def _broken(why: str, text: str) -> PropertyBroken:
    return PropertyBroken(f"{why}\n  text: {text[:600]!r}")


def _kept_checks(text: str, outcomes: Sequence[SheetOutcome]) -> list[TagMatch]:
    """The check tags the engine resolves: those not starting inside a sheet tag that
    starts earlier (where two overlap the first is the tag)."""
    spans = sorted(
        [(m.span, 0, i) for i, m in enumerate(parse_tags(text))]
        + [(o.span, 1, i) for i, o in enumerate(outcomes)]
    )
    matches = parse_tags(text)
    kept: list[TagMatch] = []
    end = 0
    for (start, stop), which, i in spans:
        if start < end:
            continue
        end = stop
        if which == 0:
            kept.append(matches[i])
    return kept


def _rebuilt(text: str, report: CheckReport) -> tuple[str, list[tuple[int, int]]]:
    """The text with each kept tag replaced by what the engine says it wrote; the spans
    the sheet tags take in it."""
    checks = _kept_checks(text, report.sheet)
    if len(checks) != len(report.items):
        raise _broken(f"{len(checks)} check tags kept, {len(report.items)} items", text)
    pieces: list[tuple[tuple[int, int], str, bool]] = [
        (m.span, m.raw if m.error is not None else item.record.to_tag(), False)
        for m, item in zip(checks, report.items, strict=True)
    ]
    pieces += [(o.span, o.tag, True) for o in report.sheet]
    pieces.sort()
    out: list[str] = []
    sheet_spans = []
    at = length = 0
    for (start, stop), written, is_sheet in pieces:
        if start < at:
            raise _broken(f"tags overlap at {start}", text)
        out.append(text[at:start])
        length += start - at
        if is_sheet:
            sheet_spans.append((length, length + len(written)))
        out.append(written)
        length += len(written)
        at = stop
    out.append(text[at:])
    return "".join(out), sheet_spans


def _expected(outcome: SheetOutcome) -> SheetRequest | None:
    """The request a rewritten tag reads back into: the model's, with the ``who`` the
    tag writes and every value as sanitised. None for an unreadable tag."""
    request = outcome.request
    if isinstance(request, Unreadable):
        return None
    early = outcome.reason in _EARLY
    who = request.who if early else outcome.who
    changes: dict[str, object] = {"who": None if who is None else sanitise(who) or None}
    for name in _STRING_FIELDS:
        value = getattr(request, name)
        if isinstance(value, str):
            changes[name] = sanitise(value)
    if request.op == "use" and request.pool is not None:
        changes["pool"] = sanitise(request.pool) or None
    return replace(request, **changes)


def _canonical_body(request: SheetRequest) -> str:
    """Every field of ``request`` as ``key="value"`` (how a reader sees a written tag)."""
    parts = [f'op="{request.op}"']
    for field in fields(request):
        value = getattr(request, field.name)
        if field.name in ("op", "on") or value is None:
            continue
        if field.name == "kind" and not value:
            continue
        if field.name == "state" and request.op == "condition":
            continue
        parts.append(f'{field.name}="{value}"')
    if request.op == "condition":
        parts.append(f'state="{"on" if request.on else "off"}"')
    return " ".join(parts)


def _check_outcome(index: int, outcome: SheetOutcome, text: str) -> str | None:
    """One outcome's own properties; a word when its round trip was lost to
    sanitising (a value that sanitises to nothing, or is cut)."""
    request = outcome.request
    tag = outcome.tag
    if not tag.startswith("[sheet: ") or not tag.endswith("]") or "]" in tag[:-1]:
        raise _broken(f"tag {index} is not one tag: {tag!r}", text)
    if outcome.ok == (outcome.reason is not None) or outcome.ok != (outcome.now is not None):
        raise _broken(f"tag {index}: ok {outcome.ok}, reason {outcome.reason!r}", text)
    if outcome.reason is not None and outcome.reason not in REASONS:
        raise _broken(f"tag {index}: unknown reason {outcome.reason!r}", text)
    if index >= MAX_COMMANDS and outcome.reason != TOO_MANY:
        raise _broken(f"tag {index + 1} is past {MAX_COMMANDS} but {outcome.reason!r}", text)
    if index < MAX_COMMANDS and isinstance(request, Unreadable) and outcome.reason != MALFORMED:
        raise _broken(f"unreadable tag {index} refused {outcome.reason!r}", text)
    if isinstance(request, SheetRequest) and outcome.reason == MALFORMED:
        raise _broken(f"readable tag {index} refused malformed (a command failed): {tag}", text)
    if not outcome.ok and outcome.changes:
        raise _broken(f"refused tag {index} changed {outcome.changes}", text)
    back = read_back(tag)
    if len(back) != 1 or back[0].span != (0, len(tag)) or back[0].ok != outcome.ok:
        raise _broken(f"tag {index} reads back as {back}: {tag}", text)
    if outcome.ok and back[0].now != sanitise(outcome.now or "", MAX_NOW):
        raise _broken(f"tag {index} now {back[0].now!r} != {outcome.now!r}", text)
    if not outcome.ok and back[0].reason != outcome.reason:
        raise _broken(f"tag {index} reason {back[0].reason!r} != {outcome.reason!r}", text)
    reread = read_request(tag[len("[sheet:") : -1])
    expected = _expected(outcome)
    if expected is None:
        if not isinstance(reread, Unreadable) or reread.who is not None:
            raise _broken(f"unreadable tag {index} reads back as {reread}", text)
        return None
    if _shape(reread) != _shape(read_request(_canonical_body(expected))):
        raise _broken(f"tag {index} reads back as {reread}, not {expected}", text)
    if reread != expected:  # a value sanitised to nothing: the tag no longer reads
        return "round trip lost to sanitising"
    return None


def _shape(read: SheetRequest | Unreadable) -> object:
    """What a reading says, an unreadable body's own text left out."""
    return read if isinstance(read, SheetRequest) else ("unreadable", read.who)


def verify(table: Table, text: str, seed: str) -> str:
    """Resolve ``text`` on ``table`` and check every property; a word for how it ended."""
    party = list(table.party)
    checks_written = bool(parse_tags(text))
    try:
        report = resolve_text(table.ruleset, party, text, seed=seed)
    except DiceboundError as exc:
        if not checks_written:
            raise _broken(f"a text of sheet tags only raised {exc!r}", text) from exc
        raise
    found = find_sheet_tags(text)
    spans = [o.span for o in report.sheet]
    if spans != sorted(set(spans)) or not set(spans) <= {t.span for t in found}:
        raise _broken(f"outcome spans {spans} are not tags found", text)
    rebuilt, new_spans = _rebuilt(text, report)
    checks = [m.span for m in _kept_checks(text, report.sheet)]
    for tag in found:
        inside = any(start < tag.span[0] < stop for start, stop in checks)
        if (tag.span in spans) == inside:
            raise _broken(f"the tag at {tag.span} is {'' if inside else 'not '}resolved", text)
    if rebuilt != report.text:
        raise _broken(f"outside the tags the text changed: {report.text[:600]!r}", text)
    lost = [_check_outcome(i, o, text) for i, o in enumerate(report.sheet)]
    heads = [m.start() for m in _HEAD.finditer(text)]
    if heads == [s for s, _ in spans]:  # every head is a kept tag: the whole text reads back
        back = read_back(report.text)
        if [b.span for b in back] != new_spans:
            raise _broken(f"read back {[b.span for b in back]}, tags at {new_spans}", text)
    refused = not any(o.ok for o in report.sheet) and not report.items
    if refused and tuple(report.party) != tuple(party):
        raise _broken("every command was refused, yet the party changed", text)
    words = [f"{len(report.sheet) if len(report.sheet) < 3 else '3+'} commands"]
    if any(lost):
        words.append("round trip lost to sanitising")
    return ", ".join(words)
