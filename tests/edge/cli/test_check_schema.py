"""The check answer's JSON Schema (docs/index.md "A first check", issue 44 item 11):
``dicebound schema --output check`` prints it, the shipped copy is what the code gives,
every member of ``check --json`` is in it and always present, and every answer the
command line gives validates: checks of every packaged ruleset, seeded and forced, sheet
commands applied and refused, tags that fail, and any text hypothesis writes."""

from __future__ import annotations

import io
import json
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from budget import examples
from check_answers_support import RULESETS, faults, party_of, texts_for
from dicebound.check_schema import CHECK_MEMBERS, check_json_schema
from dicebound.edge.cli import main
from dicebound.edge.files import read_character, read_ruleset
from dicebound.edge.schemas import CheckOut
from dicebound.tagpass import resolve_text

SCHEMA = check_json_schema()


def check_json(ruleset: str, text: str, *options: str) -> tuple[int, Any]:
    """``dicebound check --json`` over the ruleset's whole packaged party: its exit code
    and what it printed (None when it printed nothing: a usage error)."""
    argv = ["check", "--ruleset", ruleset]
    for short in party_of(ruleset):
        argv += ["--character", f"{ruleset}/{short}"]
    out = io.StringIO()
    code = main([*argv, *options, "--json", text], out=out)
    return code, json.loads(out.getvalue()) if code != 2 else None


# ── the schema itself ────────────────────────────────────────────────────────


def test_the_schema_is_a_valid_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_dicebound_schema_output_check_prints_it_and_the_ruleset_stays_the_default() -> None:
    out = io.StringIO()
    assert main(["schema", "--output", "check"], out=out) == 0
    assert json.loads(out.getvalue()) == SCHEMA
    out = io.StringIO()
    assert main(["schema"], out=out) == 0
    assert json.loads(out.getvalue())["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_the_shipped_copy_is_what_the_code_gives_now() -> None:
    shipped = resources.files("dicebound.data") / "check.schema.json"
    assert json.loads(shipped.read_text("utf-8")) == SCHEMA, (
        "src/dicebound/data/check.schema.json is out of date: run scripts/gen_schema.py"
    )


def test_every_member_is_required_and_nothing_else_is_allowed() -> None:
    names = [m.name for m in CHECK_MEMBERS]
    served = [m.name for m in CHECK_MEMBERS if m.service]
    for shape, members in ((SCHEMA, names), (SCHEMA["$defs"]["serviceAnswer"], served)):
        assert list(shape["properties"]) == members
        assert shape["required"] == members
        assert shape["additionalProperties"] is False


def test_the_members_are_the_ones_check_json_and_the_service_write() -> None:
    """The table is the one place a member is named: the command line's object and the
    service's model carry exactly its members (a member added to either alone fails)."""
    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "dnd5e-srd/mira")]
    report = resolve_text(ruleset, party, "No tags here.", seed="1")
    assert list(report.to_json()) == [m.name for m in CHECK_MEMBERS]
    assert set(CheckOut.model_fields) == {m.name for m in CHECK_MEMBERS if m.service}


# ── what the schema refuses ──────────────────────────────────────────────────


def _an_answer() -> Any:
    code, answer = check_json(
        "dnd5e-srd",
        '[skill_check: skill="Stealth" dc="15"] [skill_check: skill="Stelth" dc="3"] '
        '[sheet: op="spend" pool="Hit points" amount="1"] [sheet: op="fly"]',
        "--seed",
        "3",
    )
    assert code == 1 and faults(answer) == []
    return answer


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (lambda a: a.pop("sheet"), "'sheet' is a required property"),
        (lambda a: a.pop("errors"), "'errors' is a required property"),
        (lambda a: a.update(items=[]), "Additional properties are not allowed"),
        (lambda a: a["results"][0].pop("attrs"), "'attrs' is a required property"),
        (lambda a: a["results"][0].update(id=7), "Unevaluated properties are not allowed"),
        (lambda a: a["results"][0].update(critical="maybe"), "is not one of"),
        (lambda a: a["results"][0]["attrs"].update(dc=15), "is not of type 'string'"),
        (lambda a: a["errors"][0].update(tag="Stelth"), "does not match"),
        (lambda a: a["sheet"][1].update(reason="bored"), "is not one of"),
        (lambda a: a["sheet"][1].update(now="3/5"), "None was expected"),
        (lambda a: a["sheet"][1].update(ok=True), "None was expected"),
    ],
    ids=[
        "no-sheet",
        "no-errors",
        "extra-member",
        "no-attrs",
        "an-id-on-the-command-line",
        "critical",
        "attr-not-text",
        "error-tag",
        "reason",
        "refused-with-now",
        "ok-with-reason",
    ],
)
def test_an_answer_off_its_shape_is_refused(spoil: Any, said: str) -> None:
    answer = _an_answer()
    spoil(answer)
    found = faults(answer)
    assert found, "the schema accepted a spoilt answer"
    assert any(said in f for f in found), found


def test_the_service_shape_wants_a_record_id_on_each_result_and_command() -> None:
    answer = _an_answer()
    assert any("'id' is a required property" in f for f in faults(answer, service=True))
    for entry in answer["results"]:
        entry["id"] = entry["number"] = 41
    answer["sheet"][0]["id"] = answer["sheet"][0]["number"] = 42
    answer["sheet"][1]["id"] = answer["sheet"][1]["number"] = None  # never recorded (41st)
    assert faults(answer, service=True) == []
    answer["errors"][0]["id"] = 43  # a failed tag writes no record
    assert faults(answer, service=True)


# ── real answers of every packaged ruleset ───────────────────────────────────


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_answer_of_a_packaged_ruleset_fits(ruleset: str) -> None:
    seen: dict[str, int] = {"results": 0, "errors": 0, "ok": 0, "refused": 0}
    for text in texts_for(ruleset):
        for seed in ("1", "77"):
            code, answer = check_json(ruleset, text, "--seed", seed)
            assert code in (0, 1), text
            assert faults(answer) == [], (text, answer)
            seen["results"] += len(answer["results"])
            seen["errors"] += len(answer["errors"])
            seen["ok"] += sum(c["ok"] for c in answer["sheet"])
            seen["refused"] += sum(not c["ok"] for c in answer["sheet"])
    assert all(seen.values()), seen  # every part of the shape was exercised


@pytest.mark.parametrize("ruleset", RULESETS)
def test_forced_faces_answers_fit_those_that_run_out_too(ruleset: str) -> None:
    """Faces 1 then 2, as many as the text's first checks take: too few is an error
    entry (the dice could not be thrown), too many a usage error with no JSON."""
    text = texts_for(ruleset)[1]
    fitted = 0
    for face in (1, 2):
        for count in range(1, 100):
            code, answer = check_json(ruleset, text, "--faces", ",".join([str(face)] * count))
            if code == 2:
                continue
            assert faults(answer) == [], (count, answer)
            fitted += 1
            if code == 0:
                break
    assert fitted >= 2


# ── any text ─────────────────────────────────────────────────────────────────

_KEYS = ("skill", "dc", "difficulty", "mode", "who", "with", "spend", "use", "reroll", "bonus")
_WORDS = st.sampled_from(
    ["Stealth", "Athletics", "15", "3", "-2", "advantage", "sideways", "Mira", "hp:1", "", "é"]
)
_VALUES = st.one_of(_WORDS, st.text(max_size=12))
_PAIR = st.tuples(st.sampled_from(_KEYS) | st.from_regex(r"[a-z]{1,6}", fullmatch=True), _VALUES)
_CHECK = st.lists(_PAIR, max_size=5).map(
    lambda pairs: "[skill_check: " + " ".join(f'{k}="{v}"' for k, v in pairs) + "]"
)
_SHEET = st.lists(
    st.tuples(st.sampled_from(("op", "pool", "amount", "track", "who", "to")), _VALUES),
    max_size=4,
).map(lambda pairs: "[sheet: " + " ".join(f'{k}="{v}"' for k, v in pairs) + "]")
_TEXT = st.lists(st.one_of(_CHECK, _SHEET, st.text(max_size=20)), max_size=5).map(" ".join)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(ruleset=st.sampled_from(RULESETS), text=_TEXT, seed=st.integers(0, 2**32))
def test_every_command_line_answer_fits_whatever_the_text(
    ruleset: str, text: str, seed: int
) -> None:
    code, answer = check_json(ruleset, text, "--seed", str(seed))
    if code == 2:  # a usage error prints no answer: no text refused here is one
        pytest.fail(f"a usage error for {text!r}")
    assert faults(answer) == [], (text, answer)
