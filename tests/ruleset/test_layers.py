"""Layers a game turns on (docs/design/format.md "Blocks accepted but not played"):
a layer's ladder replaces the ruleset's, in
the kind's own shape; of two conflicting layers the one declared later is dropped."""

from __future__ import annotations

import json

import pytest

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.engine import ladder_in_force
from dicebound.errors import UsageError
from dicebound.tagpass import resolve_text
from repo_paths import CASES

RAW = json.loads((CASES / "ruleset_degrees.json").read_text())
RAW["layers"] = [
    {
        "id": "grim",
        "label": "Grim",
        "conflicts": ["gentle"],
        "difficultyLadder": [{"label": "Easy", "dc": 14}, {"label": "Hard", "dc": 24}],
    },
    {
        "id": "gentle",
        "label": "Gentle",
        "difficultyLadder": [{"label": "Easy", "dc": 6}, {"label": "Hard", "dc": 16}],
    },
    {"id": "words", "label": "Only words", "gm": {"guidance": "Narrate gently."}},
]
RULESET = compile_ruleset(RAW)
ADA = load_character(RULESET, {"name": "Ada"})


@pytest.mark.parametrize(
    ("layers", "easy"),
    [
        ((), 10),
        (("grim",), 14),
        (("gentle",), 6),
        (("words",), 10),
        (("gentle", "grim"), 14),
        (("grim", "gentle", "words"), 14),
    ],
    ids=[
        "no layer: the ruleset's own ladder",
        "a layer's ladder replaces it",
        "another layer's ladder",
        "a layer without a ladder leaves it",
        "of two conflicting layers the later declared is dropped, whatever the order named",
        "a third layer beside them changes nothing",
    ],
)
def test_the_ladder_in_force(layers: tuple[str, ...], easy: int) -> None:
    assert ladder_in_force(RULESET, layers)[0].dc == easy
    report = resolve_text(
        RULESET, [ADA], "[skill_check: skill=Sneak difficulty=Easy]", faces=(10,), layers=layers
    )
    assert report.results[0].record.get("dc") == str(easy)


def test_an_unknown_layer_is_a_usage_error_naming_the_layers() -> None:
    with pytest.raises(UsageError, match="grim, gentle, words"):
        ladder_in_force(RULESET, ("grimm",))


def test_a_layer_that_is_on_adds_its_guidance_and_its_ladder_to_the_teaching() -> None:
    from dicebound.teach import gm_text

    text = gm_text(
        RULESET, ladder=ladder_in_force(RULESET, ("grim", "words")), layers=("grim", "words")
    )
    assert "Narrate gently." in text and "- Easy: DC 14" in text
    assert "Narrate gently." not in gm_text(RULESET)
