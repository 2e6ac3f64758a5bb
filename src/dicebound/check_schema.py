"""The shape of a check's answer as a JSON Schema (Draft 2020-12): what ``check --json``
prints, and what ``POST /games/{game}/checks`` and the MCP tool ``resolve_checks`` answer.

One table, ``CHECK_MEMBERS``, names every member of the answer. Both shapes the schema
gives are made from it: the command line's (the schema's root) and the service's
(``$defs/serviceAnswer``), which is the same members with a record ``id`` on each entry
the service writes a record of. Every member is required and nothing else is allowed,
so adding a member is one row here (and its producer, which a test holds to this
table). Imports nothing of the engine: it is data.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dicebound.sheet_commands.reasons import REASONS

__all__ = ["CHECK_MEMBERS", "CHECK_SCHEMA_DIALECT", "Member", "check_json_schema"]

CHECK_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

MAX_RECORD_ID = 2**62
"""The highest record id the service hands out (its routes take no higher)."""


class Member(NamedTuple):
    """One member of a check's answer: its name, what it holds (a schema; a list
    member's ``items`` a ``$defs`` name), and whether the service writes a record of
    each of its entries (then each entry carries that record's ``id``: ``"always"``,
    or ``"or-null"`` when some entries are never recorded)."""

    name: str
    description: str
    entry: str | None  # the $defs name of a list member's entries; None: ``shape`` itself
    shape: dict[str, Any] | None = None
    recorded: str | None = None
    service: bool = True  # False: the command line's alone (the service has no such member yet)


CHECK_MEMBERS: tuple[Member, ...] = (
    Member(
        "results", "Every check that resolved, in the order of the text.", "result", None, "always"
    ),
    Member("errors", "Every check tag that could not be resolved, in text order.", "failure"),
    Member(
        "text",
        "The text with each tag written back: a resolved check as its record, a sheet "
        "command with its outcome, a tag that failed as it was asked.",
        None,
        {"type": "string"},
    ),
    Member(
        "sheet",
        "Every [sheet:] command, applied or refused, in text order (an empty list when "
        "the text held none).",
        "sheetCommand",
        None,
        "or-null",
    ),
    Member(
        "fight",
        "The text's [fight:] (and mapped [combat:]) tags, each a step in text order, "
        "refused ones included, and the fight after the text with its summary (null when "
        "there is none). The service's steps carry their records' id and number.",
        None,
        {
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": {"type": "object"}},
                "state": {"type": ["object", "null"]},
                "summary": {"type": ["object", "null"]},
            },
            "required": ["steps", "state", "summary"],
            "additionalProperties": False,
        },
    ),
)
"""Every member of a check's answer, in the order ``check --json`` prints them."""


def _closed(properties: dict[str, Any], description: str) -> dict[str, Any]:
    """An object holding exactly ``properties``, each one always present."""
    return {
        "description": description,
        "type": "object",
        "properties": properties,
        "required": list(properties),
    }


_STRING = {"type": "string"}
_TAG = {"type": "string", "pattern": r"^\[skill_check:"}

_DEFS: dict[str, dict[str, Any]] = {
    "result": _closed(
        {
            "tag": {**_TAG, "description": "The tag written back: the check's record."},
            "who": {**_STRING, "description": "The roller's full name."},
            "outcome": {**_STRING, "description": "The outcome as the card names it."},
            "success": {"type": "boolean"},
            "critical": {
                "description": "Which critical the check was, if any.",
                "enum": ["success", "failure", "both", None],
            },
            "choice": {
                "description": "An open choice the player settles (a Sacrifice), and how.",
                "enum": ["open", "succeed", "fail", None],
            },
            "attrs": {
                "description": "The record's attributes, as the tag holds them.",
                "type": "object",
                "additionalProperties": _STRING,
            },
            "changes": {
                "description": "The points the check paid, in payment order.",
                "type": "array",
                "items": {"$ref": "#/$defs/change"},
            },
            "notes": {
                "description": "Each attribute value the ruleset did not know (a mode, a "
                "ladder step, an ability...), one sentence each, naming the values there "
                "are: the check was rolled without it.",
                "type": "array",
                "items": _STRING,
            },
        },
        "A check that resolved.",
    ),
    "change": {
        **_closed(
            {
                "who": _STRING,
                "pool": _STRING,
                "from": {"type": "integer"},
                "to": {"type": "integer"},
            },
            "One pool of one character, before and after a payment.",
        ),
        "additionalProperties": False,
    },
    "failure": _closed(
        {
            "tag": {**_TAG, "description": "The tag as it was asked: it still owes a roll."},
            "error": {**_STRING, "description": "The sentence saying why it was not rolled."},
        },
        "A check tag that could not be resolved: nothing was thrown or paid.",
    ),
    "sheetCommand": {
        **_closed(
            {
                "tag": {**_STRING, "description": "The command written back, with its outcome."},
                "who": {
                    **_STRING,
                    "description": 'A card\'s name, "party", or as written when nobody was found.',
                },
                "ok": {"type": "boolean"},
                "now": {
                    "description": "What the sheet says now (null when refused).",
                    "type": ["string", "null"],
                },
                "reason": {
                    "description": "Why it was refused, one of the fixed reasons (null when ok).",
                    "enum": [*REASONS, None],
                },
            },
            "A [sheet:] command: applied (ok, now) or refused (reason); a refused one "
            "changed nothing.",
        ),
        "if": {"properties": {"ok": {"const": True}}},
        "then": {"properties": {"now": _STRING, "reason": {"const": None}}},
        "else": {"properties": {"now": {"const": None}, "reason": _STRING}},
    },
}
"""The entries' shapes, open to the service's ``id`` (each use closes them)."""

_RECORD_IDS: dict[str, dict[str, Any]] = {
    "always": {"$ref": "#/$defs/recordId"},
    "or-null": {
        "description": "Its record's id; null for a command never recorded (past the "
        "text's 40th, refused as too many).",
        "anyOf": [{"$ref": "#/$defs/recordId"}, {"type": "null"}],
    },
}
_RECORD_NUMBERS: dict[str, dict[str, Any]] = {
    "always": {"$ref": "#/$defs/recordNumber"},
    "or-null": {
        "description": "Its record's number within its game; null when never recorded.",
        "anyOf": [{"$ref": "#/$defs/recordNumber"}, {"type": "null"}],
    },
}


def _entry(name: str, recorded: str | None) -> dict[str, Any]:
    """One entry of a list member: the shape in ``$defs``, with the service's record id
    when ``recorded`` says it carries one, closed to anything else."""
    shape: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
    if recorded is not None:
        shape |= {
            "properties": {"id": _RECORD_IDS[recorded], "number": _RECORD_NUMBERS[recorded]},
            "required": ["id", "number"],
        }
    return shape | {"unevaluatedProperties": False}


def _answer(description: str, service: bool) -> dict[str, Any]:
    """The whole answer: every member of ``CHECK_MEMBERS``, each always there."""
    properties: dict[str, Any] = {}
    members = [m for m in CHECK_MEMBERS if m.service or not service]
    for member in members:
        if member.entry is None:
            shape = dict(member.shape or {})
        else:
            entry = _entry(member.entry, member.recorded if service else None)
            shape = {"type": "array", "items": entry}
        properties[member.name] = {"description": member.description, **shape}
    return {
        "description": description,
        "type": "object",
        "properties": properties,
        "required": [m.name for m in members],
        "additionalProperties": False,
    }


def check_json_schema() -> dict[str, Any]:
    """The JSON Schema ``dicebound schema --output check`` prints: ``check --json``'s
    object at the root, the service's answer at ``#/$defs/serviceAnswer``."""
    return {
        "$schema": CHECK_SCHEMA_DIALECT,
        "title": "dicebound check answer",
        **_answer(
            "What `dicebound check --json` prints for one text. Every member is always "
            "present (a list may be empty). POST /games/{game}/checks and the MCP tool "
            "resolve_checks answer #/$defs/serviceAnswer: the same members, with the record "
            "id and the game's number of each result, each sheet command and each fight step.",
            service=False,
        ),
        "$defs": {
            **_DEFS,
            "recordId": {
                "description": "A record's id in the service's store.",
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RECORD_ID,
            },
            "recordNumber": {
                "description": "A record's number within its game, from 1.",
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RECORD_ID,
            },
            "serviceAnswer": _answer(
                "What POST /games/{game}/checks and resolve_checks answer: check --json's "
                "members, each result, sheet command and fight step with the id and the "
                "number of its record.",
                service=True,
            ),
        },
    }
