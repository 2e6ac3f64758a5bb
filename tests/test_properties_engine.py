"""Properties of a whole check: any text gives results or dicebound's own errors with a
message, never another exception; errors throw and pay nothing; seeds replay."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.edge.cli import main
from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckFailure
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text

RULESET = read_ruleset("dnd5e-srd")
PARTY = [read_character(RULESET, "dnd5e-srd/mira"), read_character(RULESET, "dnd5e-srd/bram")]

_NAMES = ["Stealth", "stealth check", "DEX", "Strength save", "Athletics", "Nope", ""]
_KEYS = ["skill", "dc", "difficulty", "who", "mode", "with", "rolls", "total", "bonus", "x"]
_VALUES = st.one_of(
    st.sampled_from([*_NAMES, "15", "-3", "99", "Hard", "advantage", "Bram Ironhand", "1e9"]),
    st.text(max_size=12),
)


@st.composite
def tags(draw: st.DrawFn) -> str:
    attrs = draw(st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=6))
    quote = draw(st.sampled_from(['"', "'", ""]))
    body = " ".join(f"{k}={quote}{v}{quote}" for k, v in attrs)
    return f"[skill_check: {body}]"


texts = st.lists(st.one_of(tags(), st.text(max_size=30)), max_size=4).map(" ".join)


@settings(max_examples=examples(300), deadline=None)
@given(texts, st.integers(min_value=0, max_value=10**9))
def test_any_text_gives_results_or_clear_errors(text: str, seed: int) -> None:
    report = resolve_text(RULESET, PARTY, text, seed=str(seed))
    for item in report.items:
        if isinstance(item, CheckFailure):
            assert item.error.strip()
            assert item.record.get("result") is None
    assert report.party == tuple(PARTY)  # a check with no spend changes no character
    again = resolve_text(RULESET, PARTY, text, seed=str(seed))
    assert again.text == report.text


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_any_json_character_file_is_loaded_or_refused_by_the_cli(
    tmp_path: Path, value: object
) -> None:
    path = tmp_path / "character.json"
    path.write_text(json.dumps(value))
    code = main(
        [
            "check",
            "--ruleset",
            "dnd5e-srd",
            "--character",
            str(path),
            "--seed",
            "1",
            '[skill_check: skill="Stealth" dc="10"]',
        ]
    )
    assert code in (0, 1)


# -- a pool that can be spent: an error never pays ------------------------------------


@functools.cache
def _lantern() -> tuple[Ruleset, Character]:
    """Built once: hypothesis calls the test many times."""
    raw = json.loads((Path(__file__).parent / "cases" / "ruleset_lantern.json").read_text())
    ruleset = compile_ruleset(raw)
    build = {"v": 1, "build": {"abilities": {"grit": 3}}}
    return ruleset, load_character(ruleset, {"name": "Wick", "sheet": build})


_POOL_KEYS = [
    "skill",
    "dc",
    "difficulty",
    "spend",
    "threshold",
    "bonus",
    "explode",
    "double",
    "who",
]
_POOL_VALUES = st.one_of(
    st.sampled_from(
        [
            "Climb",
            "Lie",
            "nerve:1",
            "nerve:2",
            "nerve:9",
            "Nerve:x",
            "2",
            "-1",
            "Tense",
            "Wick",
            "Nobody",
            "",
        ]
    ),
    st.text(max_size=8),
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_POOL_KEYS), _POOL_VALUES), max_size=6),
    st.integers(0, 10**6),
)
def test_a_tag_that_errors_pays_nothing_and_a_paid_check_says_so(
    attrs: list[tuple[str, str]], seed: int
) -> None:
    ruleset, who = _lantern()
    body = " ".join(f'{k}="{v}"' for k, v in attrs if '"' not in v)
    report = resolve_text(ruleset, [who], f"[skill_check: {body}]", seed=str(seed))
    (item,) = report.items
    if isinstance(item, CheckFailure):
        assert report.party == (who,)  # nothing paid
    else:
        paid = sum(c.from_ - c.to for c in item.changes)
        spent = item.record.get("spend")
        assert (paid > 0) == (spent is not None)
        if paid:
            assert report.party != (who,)
