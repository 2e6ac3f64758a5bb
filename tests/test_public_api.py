"""The public API: explicit re-exports, a sorted __all__, every kind behind one interface."""

from __future__ import annotations

import dicebound
from dicebound.kinds.base import KindCompiler, KindPlayer
from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler, kind_player


def test_all_is_sorted_and_every_name_is_there() -> None:
    # isort-style, as ruff keeps it: classes first, then functions, each alphabetical.
    assert dicebound.__all__ == sorted(dicebound.__all__, key=lambda n: (n[0].islower(), n))
    assert len(set(dicebound.__all__)) == len(dicebound.__all__)
    for name in dicebound.__all__:
        assert hasattr(dicebound, name), name


def test_every_kind_is_built_behind_the_two_halves_of_one_interface() -> None:
    for name in KNOWN_KINDS:
        compiler: KindCompiler | None = kind_compiler(name)
        player: KindPlayer | None = kind_player(name)
        assert compiler is not None and player is not None, name
        assert compiler.name == name
        assert "difficultyLadder" in compiler.keys


def test_the_library_call_resolves_a_check() -> None:
    from dicebound.edge.files import read_character, read_ruleset

    ruleset = read_ruleset("dnd5e-srd")
    party = [read_character(ruleset, "dnd5e-srd/mira")]
    report = dicebound.resolve_text(
        ruleset, party, '[skill_check: skill="Stealth" dc="15"]', seed=9
    )
    assert report.results[0].record.get("seed") == "9"
    odds = dicebound.check_odds(ruleset, party[0], 'skill="Stealth" dc="15"')
    assert odds.success == sum((o.probability for o in odds.outcomes if o.success), start=0)


def test_every_public_name_loads_lazily_from_where_it_lives() -> None:
    assert sorted(dicebound._EXPORTS) == sorted(dicebound.__all__)
    try:
        dicebound.__getattr__("nothing_here")
    except AttributeError as exc:
        assert "nothing_here" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
