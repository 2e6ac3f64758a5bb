"""A fast start, structurally: what importing dicebound and reading a ruleset load.

Speed itself is measured in bench/cold_start.py, never here; these tests pin the
structure that makes it fast (a ruleset loads only the kind it names).
"""

from __future__ import annotations

import json
import subprocess
import sys

KIND_MODULES = {
    "dice-sum": "dicebound.kinds.dice_sum",
    "dice-pool": "dicebound.kinds.dice_pool",
    "dice-highest": "dicebound.kinds.dice_highest",
    "roll-against": "dicebound.kinds.roll_against",
    "step-pool": "dicebound.kinds.step_pool",
    "symbol-pool": "dicebound.kinds.symbol_pool",
}


# Standard-library modules that cost a fresh process milliseconds each to import, and
# that reading a packaged ruleset and asking its odds has no need of: dataclasses (which
# imports inspect), pathlib, hashlib (OpenSSL), secrets, difflib, importlib.resources.
HEAVY_STDLIB = (
    "dataclasses",
    "inspect",
    "pathlib",
    "hashlib",
    "secrets",
    "difflib",
    "importlib.resources",
)

FIVE_E_ODDS = (
    "import dicebound, dicebound.edge.files as f\n"
    "r = f.read_ruleset('dnd5e-srd')\n"
    "c = f.read_character(r, 'mira')\n"
    'dicebound.check_odds(r, c, \'skill="Stealth" dc="15" mode="advantage"\')'
)


def _modules_after(code: str, prefix: str = "dicebound") -> set[str]:
    """The modules named ``prefix...`` a fresh interpreter holds after running ``code``."""
    script = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefix!r}))))"
    )
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_reading_a_packaged_ruleset_and_its_odds_import_nothing_heavy() -> None:
    for code in (FIVE_E_ODDS, "import dicebound.edge.cli"):
        loaded = _modules_after(code, prefix="")
        assert not loaded & set(HEAVY_STDLIB), code


def test_import_dicebound_loads_no_kind() -> None:
    loaded = _modules_after("import dicebound")
    assert not loaded & set(KIND_MODULES.values())


def test_a_ruleset_and_its_odds_load_only_the_kind_it_names() -> None:
    loaded = _modules_after(FIVE_E_ODDS)
    assert KIND_MODULES["dice-sum"] in loaded
    assert not loaded & (set(KIND_MODULES.values()) - {KIND_MODULES["dice-sum"]})


def test_every_kind_the_registry_names_loads_by_name() -> None:
    from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler, kind_player

    for name in KNOWN_KINDS:
        compiler, player = kind_compiler(name), kind_player(name)
        assert compiler is not None and compiler.name == name
        assert player is not None
        assert sys.modules[KIND_MODULES[name]].KIND is compiler
    assert kind_compiler("no-such-kind") is None
    assert kind_player("no-such-kind") is None
