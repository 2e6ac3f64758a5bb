"""The balance report (``dicebound report``): every check at every ladder step, exactly.

Its chances are the odds engine's: each cell equals ``check_odds`` on the tag a Game
Master would write for that check and step. Steps whose label two steps share are
asked by ``dc=`` where that names the same check, and compared with the same ruleset
whose labels were made distinct. What cannot be rolled says so, never 0%.
"""

from __future__ import annotations

import copy
import io
import json
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.edge.cli import main
from dicebound.edge.files import packaged_characters, read_character, read_ruleset
from dicebound.odds import check_odds
from dicebound.render.html import BAR_WIDTH, bar_widths, outcome_colours, report_html
from dicebound.report import (
    Outcome,
    Report,
    build_report,
    percent_text,
    report_text,
)
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from kind_samples import KIND_BLOCKS, PACKAGED, ruleset_of_kind

ASH_BUILD: dict[str, Any] = {
    "abilities": {"grit": 3, "wits": 2},
    "skills": {"climb": "trained"},
    "saves": {"endure": "trained"},
}


def _ash(ruleset: Ruleset) -> Character:
    return load_character(ruleset, {"name": "Ash", "sheet": {"v": 1, "build": ASH_BUILD}})


def _sample(kind: str, **resolution: Any) -> Ruleset:
    return compile_ruleset(ruleset_of_kind(kind, **resolution))


PACKAGED_FIRST = [
    (path.stem, names[0]) for path in PACKAGED if (names := packaged_characters(path.stem))
]


def _two_step(ruleset_id: str) -> Ruleset:
    """A packaged ruleset with its ladder cut to the first and last steps (some kinds'
    odds take a while, and the report asks every check at every step)."""
    raw = json.loads((PACKAGED[0].parent / f"{ruleset_id}.json").read_text("utf-8"))
    ladder = raw["resolution"]["difficultyLadder"]
    raw["resolution"]["difficultyLadder"] = [ladder[0], ladder[-1]] if len(ladder) > 1 else ladder
    return compile_ruleset(raw)


# -- the report's chances are the odds engine's ----------------------------------------


def _assert_cells_are_the_engines(
    ruleset: Ruleset, character: Character, *, every: int = 1
) -> Report:
    """Check the report against the odds engine: every cell (or every ``every``-th, and
    the whole first row) equals ``check_odds``; every cell's columns add up."""
    report = build_report(ruleset, character)
    sheet = ruleset.sheet
    labels = [*(s.label for s in sheet.skills), *(s.label for s in sheet.saves)]
    labels += [a.label for a in sheet.abilities]
    assert [r.label for r in report.rows] == labels
    assert [s.label for s in report.steps] == [s.label for s in ruleset.resolution.ladder]
    for i, row in enumerate(report.rows):
        for j, (step, cell) in enumerate(zip(report.steps, row.cells, strict=True)):
            if cell.odds is None:
                continue
            if i == 0 or (i * len(report.steps) + j) % every == 0:
                # The tag a Game Master writes: the check's name and the step's label.
                assert cell.tag is not None
                assert cell.odds == check_odds(ruleset, character, cell.tag)
                written = f'skill="{row.label}" difficulty="{step.label}"'
                if cell.tag == f"[skill_check: {written}]":
                    assert check_odds(ruleset, character, written) == cell.odds
            # The report's columns carry the cell's fractions, and they add up to 1.
            columns = list(zip(report.outcomes, cell.probabilities, strict=True))
            shown = {(o.label, o.success): p for o, p in columns}
            for o in cell.odds.outcomes:
                assert shown[(o.label, o.success)] == o.probability
            assert sum(cell.probabilities) == 1
            assert cell.success == sum((p for o, p in columns if o.success), Fraction(0))
    return report


@pytest.mark.parametrize(
    ("ruleset_id", "name"), PACKAGED_FIRST, ids=[f"{r}/{n}" for r, n in PACKAGED_FIRST]
)
def test_a_packaged_character_s_report_is_the_odds_engine_s(ruleset_id: str, name: str) -> None:
    ruleset = _two_step(ruleset_id)
    report = _assert_cells_are_the_engines(ruleset, read_character(ruleset, name), every=5)
    assert any(c.odds is not None for r in report.rows for c in r.cells)


@pytest.mark.parametrize("kind", sorted(KIND_BLOCKS))
def test_every_kind_s_report_is_the_odds_engine_s(kind: str) -> None:
    ruleset = _sample(kind)
    report = _assert_cells_are_the_engines(ruleset, _ash(ruleset))
    climb = report.rows[0]
    assert climb.label == "Climb" and all(c.odds is not None for c in climb.cells)
    # A harder step never raises the chance of success.
    for row in report.rows:
        chances = [c.success for c in row.cells if c.success is not None]
        assert chances == sorted(chances, reverse=True)


def test_known_numbers_on_2d6() -> None:
    """Climb: Grit 3 + trained 2 = +5 on 2d6. DC 6 always made; DC 10 needs 5+ (30/36)."""
    report = build_report(_sample("dice-sum"), _ash(_sample("dice-sum")))
    climb = report.rows[0]
    assert [c.success for c in climb.cells] == [Fraction(1), Fraction(30, 36)]
    assert [o.label for o in report.outcomes] == ["Success", "Failure"]


def test_bands_are_columns_best_first_with_the_player_s_choice_marked() -> None:
    bands = {
        "by": "total",
        "tiers": [
            {"id": "triumph", "label": "Triumph", "atLeast": 2, "success": True, "critical": True},
            {"id": "win", "label": "Success", "atLeast": 1, "success": True},
            {"id": "botch", "label": "Botch"},
        ],
    }
    ruleset = _sample("step-pool", outcomes=bands)
    report = _assert_cells_are_the_engines(ruleset, _ash(ruleset))
    assert [(o.label, o.success, o.critical) for o in report.outcomes] == [
        ("Triumph", True, "success"),
        ("Success", True, None),
        ("Botch", False, None),
    ]
    assert report.shows_bands
    advanced = read_ruleset("advanced-resolution")
    report = build_report(advanced, read_character(advanced, "maud"))
    assert [o.label for o in report.outcomes if o.choice] == ["Sacrifice"]
    assert "Sacrifice (player's choice)" in report_text(report)


# -- steps that share a label, and checks no name picks alone --------------------------

SHARED_LADDERS: dict[str, list[dict[str, Any]]] = {
    "dice-sum": [
        {"label": "Easy", "dc": 6},
        {"label": "Hard", "dc": 8},
        {"label": "hard", "dc": 10},
    ],
    "dice-highest": [
        {"label": "Easy", "dc": 4},
        {"label": "Hard", "dc": 5},
        {"label": "Hard", "dc": 6},
    ],
    "symbol-pool": [
        {"label": "Easy", "dc": 1},
        {"label": "Hard", "dc": 2},
        {"label": "Hard", "dc": 3},
    ],
    "step-pool": [
        {"label": "Easy", "dc": 3},
        {"label": "Hard", "dc": 5},
        {"label": "Hard", "dc": 6},
    ],
    "dice-pool": [
        {"label": "Easy", "successes": 1},
        {"label": "Hard", "successes": 2, "target": 8},
        {"label": "Hard", "successes": 3},
    ],
}


@pytest.mark.parametrize("kind", sorted(SHARED_LADDERS))
def test_a_step_whose_label_is_shared_is_asked_by_its_number(kind: str) -> None:
    """difficulty= names neither "Hard"; the report asks dc= and gets what the same
    ruleset gives with the labels made distinct (untrained "harder" included: Sneak)."""
    ladder = SHARED_LADDERS[kind]
    ruleset = _sample(kind, difficultyLadder=ladder)
    report = build_report(ruleset, _ash(ruleset))
    distinct = copy.deepcopy(ladder)
    for i, step in enumerate(distinct):
        step["label"] = f"Step {i}"
    oracle = _sample(kind, difficultyLadder=distinct)
    oracle_ash = _ash(oracle)
    for row in report.rows:
        if row.not_rolled is not None:
            continue
        for i, cell in enumerate(row.cells):
            assert cell.odds is not None, cell.not_rolled
            expected = check_odds(oracle, oracle_ash, f'skill="{row.label}" difficulty="Step {i}"')
            assert cell.odds.outcomes == expected.outcomes
            if i > 0:
                assert cell.tag is not None and "dc=" in cell.tag


def test_roll_against_cannot_ask_a_shared_label_and_says_so() -> None:
    """On roll-against dc= shifts the target instead of naming a step."""
    ladder = [{"label": "Hard", "dc": 0}, {"label": "Hard", "dc": -2, "divide": 2}]
    ruleset = _sample("roll-against", difficultyLadder=ladder)
    report = build_report(ruleset, _ash(ruleset))
    cell = report.rows[0].cells[0]
    assert cell.odds is None and cell.success is None
    assert cell.not_rolled is not None
    assert 'Two steps answer to "Hard"' in cell.not_rolled
    assert "0%" not in report_text(report).split("Not rolled:")[0].split("Skills")[1]


def test_a_dice_pool_step_is_not_asked_when_another_needs_as_many_successes() -> None:
    ladder = [{"label": "Hard", "successes": 2, "target": 8}, {"label": "Hard", "successes": 2}]
    ruleset = _sample("dice-pool", difficultyLadder=ladder)
    cell = build_report(ruleset, _ash(ruleset)).rows[0].cells[1]
    assert cell.odds is None and "needs 2 successes too" in (cell.not_rolled or "")


def test_an_ability_no_name_picks_alone_is_shown_as_not_asked() -> None:
    """A skill called "Grit" (id grit) takes every name of the ability Grit but its short
    name; without one, no tag can roll the ability."""
    doc = ruleset_of_kind("dice-sum")
    doc["sheet"]["skills"].append({"id": "grit", "label": "Grit", "ability": "grit"})
    with_short = compile_ruleset(doc)
    rows = {(r.group, r.label): r for r in build_report(with_short, _ash(with_short)).rows}
    assert all(c.tag and 'skill="GRT"' in c.tag for c in rows[("ability", "Grit")].cells)
    del doc["sheet"]["abilities"][0]["short"]
    ruleset = compile_ruleset(doc)
    report = build_report(ruleset, _ash(ruleset))
    rows = {(r.group, r.label): r for r in report.rows}
    assert rows[("ability", "Grit")].not_rolled == "No name picks Grit alone, so no tag asks it."
    assert rows[("skill", "Grit")].not_rolled is None


def test_a_save_named_like_its_ability_is_reached_by_both() -> None:
    doc = ruleset_of_kind("dice-sum")
    doc["sheet"]["saves"].append({"id": "grit_save", "label": "Grit", "ability": "grit"})
    ruleset = compile_ruleset(doc)
    rows = build_report(ruleset, _ash(ruleset)).rows
    assert all(r.not_rolled is None for r in rows if r.label != "Runes")
    ability = next(r for r in rows if r.group == "ability" and r.label == "Grit")
    assert ability.cells[0].tag is not None and "GRT" in ability.cells[0].tag


# -- what cannot be rolled -------------------------------------------------------------


def test_an_untrained_refuse_skill_shows_as_not_rolled_never_as_zero() -> None:
    ruleset = _sample("dice-sum")
    report = build_report(ruleset, _ash(ruleset))
    runes = next(r for r in report.rows if r.label == "Runes")
    assert runes.not_rolled == "Ash cannot attempt Runes untrained, so it was not rolled."
    assert all(c.success is None and c.probabilities == () for c in runes.cells)
    text = report_text(report)
    line = next(line for line in text.splitlines() if line.startswith("Runes"))
    assert "%" not in line and "—" in line
    assert "[1] Ash cannot attempt Runes untrained, so it was not rolled." in text
    page = report_html(report)
    assert "Not rolled: Ash cannot attempt Runes untrained, so it was not rolled." in page


def test_trained_the_same_skill_rolls() -> None:
    ruleset = _sample("dice-sum")
    ash = load_character(
        ruleset,
        {"name": "Ash", "sheet": {"v": 1, "build": {**ASH_BUILD, "skills": {"runes": "trained"}}}},
    )
    runes = next(r for r in build_report(ruleset, ash).rows if r.label == "Runes")
    assert runes.not_rolled is None and all(c.odds is not None for c in runes.cells)


# -- layers -------------------------------------------------------------------------------


def test_a_layer_s_ladder_is_the_one_reported() -> None:
    doc = ruleset_of_kind("dice-sum")
    doc["layers"] = [
        {"id": "grim", "label": "Grim", "difficultyLadder": [{"label": "Grim", "dc": 12}]}
    ]
    ruleset = compile_ruleset(doc)
    report = build_report(ruleset, _ash(ruleset), layers=["grim"])
    assert [(s.label, s.ask) for s in report.steps] == [("Grim", "DC 12")]
    assert report.rows[0].cells[0].success == Fraction(21, 36)  # +5 on 2d6 needs 7+
    assert report.layers == ("grim",)
    assert "with grim" in report_text(report)


# -- rounding ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (Fraction(0), "0%"),
        (Fraction(1), "100%"),
        (Fraction(1, 2), "50%"),
        (Fraction(1, 3), "33%"),
        (Fraction(2, 3), "67%"),
        (Fraction(1, 200), "1%"),  # half a percent rounds up
        (Fraction(1, 201), "<1%"),  # possible, so never "0%"
        (Fraction(199, 200), ">99%"),  # not certain, so never "100%"
        (Fraction(99, 100), "99%"),
    ],
    ids=str,
)
def test_percentages_are_rounded_but_never_claim_certainty(p: Fraction, shown: str) -> None:
    assert percent_text(p) == shown


def test_step_asks_in_each_kind_s_words() -> None:
    asks = {
        k: [s.ask for s in build_report(_sample(k), _ash(_sample(k))).steps] for k in KIND_BLOCKS
    }
    assert asks == {
        "dice-sum": ["DC 6", "DC 10"],
        "dice-pool": ["1 success", "2 successes, target 8"],
        "dice-highest": ["DC 4", "DC 6"],
        "roll-against": ["number +4", "number ÷ 2 -2"],
        "symbol-pool": ["1 difficulty die", "3 difficulty dice"],
        "step-pool": ["target 3", "target 6"],
    }


# -- the text ---------------------------------------------------------------------------


def test_the_text_table() -> None:
    ruleset = _sample("dice-sum")
    text = report_text(build_report(ruleset, _ash(ruleset)))
    assert text.splitlines()[:2] == [
        "A dice-sum sample: chances for Ash (dice-sum)",
        "Ladder in force: Easy (DC 6); Hard (DC 10)",
    ]
    table = text.split("\n\n", 1)[1]
    assert table.splitlines()[:4] == [
        "Skills     Easy  Hard",
        "Climb      100%   83%",
        "Sneak       42%   42%",  # untrained "harder": Easy is read as Hard
        "Runes [1]     —     —",
    ]


# -- the page ---------------------------------------------------------------------------


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.rects: list[dict[str, str]] = []
        self.svgs = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "svg":
            self.svgs += 1
        if tag == "rect":
            self.rects.append({k: v or "" for k, v in attrs} | {"svg": str(self.svgs)})


def test_the_page_is_self_contained_with_a_chart_per_check() -> None:
    ruleset = read_ruleset("advanced-resolution")
    report = build_report(ruleset, read_character(ruleset, "maud"))
    page = report_html(report)
    assert page.startswith("<!doctype html>")
    for needs_something_else in (
        "<script",
        "<link",
        "<img",
        "src=",
        "url(",
        "http:",
        "https:",
        "@import",
    ):
        assert needs_something_else not in page
    parsed = _Page()
    parsed.feed(page)
    assert parsed.svgs == sum(1 for r in report.rows if r.not_rolled is None)
    colours = outcome_colours(report.outcomes)
    # The first chart: a bar per step whose segments are the outcomes' rounded shares.
    first = [r for r in parsed.rects if r["svg"] == "1"]
    expected = []
    for cell in report.rows[0].cells:
        widths = bar_widths(cell.probabilities)
        assert sum(widths) == BAR_WIDTH
        expected += [(c, str(w)) for c, w in zip(colours, widths, strict=True) if w > 0]
    assert [(r["fill"], r["width"]) for r in first] == expected
    assert re.search(r"<title>Triumph: \d+% \(\d+/\d+\)</title>", page)
    assert "Exact fractions" in page


def test_outcome_colours_read_green_for_success_red_for_failure() -> None:
    outcomes = (
        Outcome("Critical success", True, "success"),
        Outcome("Success", True, None),
        Outcome("Partial", False, None, choice=True),
        Outcome("Failure", False, None),
        Outcome("Critical failure", False, "failure"),
    )
    colours = outcome_colours(outcomes)
    assert len(set(colours)) == 5

    def rgb(c: str) -> tuple[int, int, int]:
        return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)

    for o, c in zip(outcomes, colours, strict=True):
        r, g, b = rgb(c)
        if o.success:
            assert g > r and g > b
        elif not o.choice:
            assert r > g and r > b
    assert sum(rgb(colours[0])) < sum(rgb(colours[1]))  # the critical is the darker


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=12).filter(any))
def test_bar_widths_fill_the_bar_exactly(weights: list[int]) -> None:
    total = sum(weights)
    widths = bar_widths(tuple(Fraction(w, total) for w in weights))
    assert sum(widths) == BAR_WIDTH
    assert all(w >= 0 for w in widths)
    for w, weight in zip(widths, weights, strict=True):
        assert abs(w - Fraction(weight * BAR_WIDTH, total)) <= 1


# -- the command ------------------------------------------------------------------------


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_dicebound_report_prints_the_text_and_writes_the_page(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, text = _run(
        "report", "--ruleset", "dnd5e-srd", "--character", "bram", "--html", str(page)
    )
    assert code == 0
    ruleset = read_ruleset("dnd5e-srd")
    report = build_report(ruleset, read_character(ruleset, "bram"))
    assert text == report_text(report) + "\n"
    assert page.read_text("utf-8") == report_html(report)


def test_dicebound_report_without_html_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, text = _run("report", "--ruleset", "dnd5e-srd", "--character", "mira")
    assert code == 0 and "Chance" not in text and "Skills" in text
    assert list(tmp_path.iterdir()) == []


def test_dicebound_report_refuses_an_unknown_layer(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _run("report", "--ruleset", "dnd5e-srd", "--character", "bram", "--layer", "nope")
    assert code == 2
    assert '"nope" is not a layer of' in capsys.readouterr().err


def test_dicebound_report_says_when_the_page_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = tmp_path / "missing" / "report.html"
    code, _ = _run("report", "--ruleset", "dnd5e-srd", "--character", "bram", "--html", str(where))
    assert code == 2
    assert "cannot write the page to" in capsys.readouterr().err


def test_character_files_work_too(tmp_path: Path) -> None:
    ruleset_file = tmp_path / "sample.json"
    ruleset_file.write_text(json.dumps(ruleset_of_kind("symbol-pool")))
    character_file = tmp_path / "ash.json"
    character_file.write_text(json.dumps({"name": "Ash", "sheet": {"v": 1, "build": ASH_BUILD}}))
    code, text = _run("report", "--ruleset", str(ruleset_file), "--character", str(character_file))
    assert code == 0
    assert "Ladder in force: Easy (1 difficulty die); Hard (3 difficulty dice)" in text
