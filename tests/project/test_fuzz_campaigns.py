"""The fuzz campaigns themselves, each under a short budget (the full runs are made by
hand; their figures are in the closing notes): every generated or mutated input gives a
result or dicebound's own error within the harness's bounds, and nothing lands in
``fuzz/found/``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from repo_paths import REPO

FUZZ = REPO / "fuzz"
BUDGET = "3"  # seconds of each campaign in CI


@pytest.mark.parametrize("campaign", ["tags", "rulesets", "characters", "fights"])
def test_a_campaign_under_a_short_budget_finds_nothing(campaign: str) -> None:
    done = subprocess.run(
        [sys.executable, str(FUZZ / f"{campaign}.py"), "--seconds", BUDGET, "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "failures: 0" in done.stdout
    inputs = int(
        done.stdout.split(f"campaign {campaign}: ")[1].split(" inputs")[0].replace(",", "")
    )
    assert inputs > 100, done.stdout


@pytest.mark.parametrize("target", ["lexer", "compiler"])
def test_atheris_under_a_short_budget_finds_nothing(target: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(FUZZ / "atheris_targets.py"), target, f"-max_total_time={BUDGET}"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done " in done.stderr and "stat::number_of_executed_units" in done.stderr
