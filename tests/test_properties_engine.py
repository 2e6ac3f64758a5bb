"""Properties of a whole check: any text gives results or dicebound's own errors with a
message, never another exception; errors throw and pay nothing; seeds replay."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicebound.edge.cli import main
from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckFailure, resolve_text

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


@settings(max_examples=300, deadline=None)
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
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
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
