"""Advanced Resolution through the command line: the rule's own example, exactly.

Peet: talent d10 (Skilled affinity 3), training 2d6 (Apprentice), TN 6 (Uncommon),
Agility +1, Uncommon picks +1. Faces 5, 1, 6 give 2 EFFORT: a Success, with Triumph on
offer for 5 points of Luck, Body or Mind.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction

from dicebound.edge.cli import main

TAG = '[skill_check: skill="Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'


def run(*argv: str) -> tuple[int, dict[str, object]]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, json.loads(out.getvalue())


def check(*extra: str) -> dict[str, object]:
    code, body = run(
        "check",
        "--ruleset",
        "advanced-resolution",
        "--character",
        "peet",
        "--faces",
        "5,1,6",
        "--json",
        *extra,
        TAG,
    )
    assert code == 0, body
    (result,) = body["results"]  # type: ignore[misc]
    return result  # type: ignore[no-any-return]


def test_the_rules_example_is_a_success_offering_triumph_for_five_points() -> None:
    result = check()
    assert result["outcome"] == "Success" and result["success"] is True
    attrs = result["attrs"]
    assert attrs["rolls"] == "5|1|6" and attrs["effort"] == "2" and attrs["dc"] == "6"
    assert attrs["offer"] == "Triumph: 5 from body, mind or luck"
    assert result["changes"] == []


def test_spending_five_luck_after_the_roll_makes_it_a_triumph() -> None:
    result = check("--after", "luck:5")
    assert result["outcome"] == "Triumph"
    assert result["changes"] == [{"who": "Sneeky Peet", "pool": "luck", "from": 6, "to": 1}]
    assert result["attrs"]["after"] == "luck:5@2"


def test_four_luck_is_not_enough_so_nothing_is_paid() -> None:
    result = check("--after", "Luck:4")
    assert result["outcome"] == "Success"
    assert result["changes"] == []
    assert "after" not in result["attrs"]


def test_a_sacrifice_stays_open_until_the_player_chooses() -> None:
    # Faces 1, 1, 6 on TN 6: one EFFORT (quality and tool cannot lift a 1 to 6).
    tag = '[skill_check: skill="Lockpick" difficulty="Uncommon"]'
    base = (
        "check",
        "--ruleset",
        "advanced-resolution",
        "--character",
        "peet",
        "--faces",
        "1,1,6",
        "--json",
    )
    _, body = run(*base, tag)
    result = body["results"][0]  # type: ignore[index]
    assert (result["outcome"], result["success"], result["choice"]) == ("Sacrifice", False, "open")
    _, body = run(*base, "--choose", "succeed", tag)
    result = body["results"][0]  # type: ignore[index]
    assert (result["success"], result["choice"]) == (True, "succeed")
    assert result["attrs"]["choice"] == "succeed"


def test_odds_with_and_without_a_spend_after_the_roll() -> None:
    tag = 'skill="Lockpick" difficulty="Uncommon" quality="agility" tool="1"'
    base = ("odds", "--ruleset", "advanced-resolution", "--character", "peet", "--json")
    _, plain = run(*base, tag)
    _, spent = run(*base, "--after", "luck:6", tag)
    labels = [o["label"] for o in plain["outcomes"]]  # type: ignore[index]
    assert labels == ["Triumph", "Success", "Sacrifice", "Botch"]
    total = sum(Fraction(o["probability"]) for o in plain["outcomes"])  # type: ignore[index]
    assert total == 1
    # Spending can only help: the chance of success never falls.
    assert Fraction(spent["success"]) >= Fraction(plain["success"])  # type: ignore[arg-type]
    assert Fraction(spent["success"]) > Fraction(plain["success"])  # type: ignore[arg-type]


def test_gm_teaches_quality_tool_the_outcomes_and_that_spending_is_the_players() -> None:
    out = io.StringIO()
    assert main(["gm", "--ruleset", "advanced-resolution"], out=out) == 0
    text = out.getvalue()
    assert 'quality="field"' in text and 'tool="N": the Tool quality, 0 to 4' in text
    assert "- Uncommon: target number 6" in text
    for band in ("Triumph", "Success", "Sacrifice (the player chooses)", "Botch"):
        assert f"- {band}" in text
    assert "player's choice, once the dice are seen" in text
