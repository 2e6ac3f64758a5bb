"""Texts for the check answer's schema tests, and the validators they are read with.

For every packaged ruleset, the texts a table writes: the tags ``dicebound gm`` teaches
for it (checks and sheet commands), a check of several of its skills and saves at
its ladder's steps, tags that fail (an unknown skill, an unterminated quote, an unknown character),
sheet commands refused (an unknown pool, an unknown op), and a text with no tag at all.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from dicebound.check_schema import check_json_schema
from http_api_support import cli, ruleset_file
from repo_paths import DATA

RULESETS = tuple(sorted(p.stem for p in (DATA / "rulesets").glob("*.json")))
_TAUGHT = re.compile(r"\[(?:skill_check|sheet):[^\]]*\]")


def party_of(ruleset: str) -> tuple[str, ...]:
    """The packaged characters of ``ruleset``, short names, in file order."""
    return tuple(sorted(p.stem for p in (DATA / "characters" / ruleset).glob("*.json")))


@cache
def validators() -> tuple[Draft202012Validator, Draft202012Validator]:
    """(check --json's shape, the service's answer's shape), from the printed schema."""
    schema = check_json_schema()
    Draft202012Validator.check_schema(schema)
    service = {"$schema": schema["$schema"], "$defs": schema["$defs"]}
    service["$ref"] = "#/$defs/serviceAnswer"
    return Draft202012Validator(schema), Draft202012Validator(service)


def faults(answer: Any, *, service: bool = False) -> list[str]:
    """Every way ``answer`` breaks its shape, each as ``path: message``."""
    validator = validators()[1 if service else 0]
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(answer)]


def taught_tags(ruleset: str) -> list[str]:
    """The tags ``dicebound gm`` shows for ``ruleset`` and its first character."""
    short = party_of(ruleset)[0]
    lesson = cli("gm", "--ruleset", ruleset, "--character", f"{ruleset}/{short}")
    return sorted(set(_TAUGHT.findall(lesson)))


def texts_for(ruleset: str) -> list[str]:
    """The texts a table writes for ``ruleset``: see the module's docstring."""
    raw = ruleset_file(ruleset)
    sheet = raw["sheet"]
    skills = [s["label"] for s in [*sheet.get("skills", [])[:4], *sheet.get("saves", [])[:2]]]
    steps = [s["label"] for s in raw["resolution"].get("difficultyLadder", [])][:2] or [""]
    checks = [
        f'[skill_check: skill="{skill}" difficulty="{step}"]'
        if step
        else f'[skill_check: skill="{skill}"]'
        for skill in skills
        for step in steps
    ]
    taught = taught_tags(ruleset)
    failing = [
        '[skill_check: skill="Underwater Basket Weaving" dc="3"]',
        '[skill_check: skill="' + skills[0] + ' dc="3]',
        f'[skill_check: skill="{skills[0]}" who="Nobody Here"]',
    ]
    refused = ['[sheet: op="spend" pool="No Such Pool" amount="1"]', '[sheet: op="fly"]']
    return [
        "The road is quiet; nobody rolls.",
        " ".join(checks),
        *taught,
        "Mixed. " + " ".join([*taught, *failing, *refused]),
        " ".join(failing),
        " ".join(refused),
    ]
