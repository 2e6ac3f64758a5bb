"""scripts/code_shape.py on a tiny package written here, and on src/dicebound."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType

from repo_paths import REPO

ROOT = REPO

FILES = {
    "__init__.py": "",
    # a and b import each other when they load: one eager cycle.
    "a.py": "from pkg import b\n",
    "b.py": "from .a import VALUE\n\nVALUE = getattr(b, 'x', 1)\n",
    # c imports d when it loads, d imports c only when f runs: a lazy cycle.
    "c.py": "import pkg.d\n",
    "d.py": (
        "import os\n"
        "\n"
        "\n"
        "class Box:\n"
        "    def f(self) -> None:\n"
        "        from pkg import c\n"
        "\n"
        "        print(c, os, getattr(c, 'x', None), getattr(c, 'y', None))\n"
    ),
    "e.py": 'KIND = "dice-pool"\n"""Not a kind: dice-pool."""\nOTHER = "dice-poolish"\n',
    "kinds/__init__.py": 'NAME = "dice-pool"\n',
    "kinds/registry.py": 'KNOWN_KINDS: tuple[str, ...] = ("dice-pool", "dice-sum")\n',
    "kinds/x.py": "from ..e import KIND\n\nprint(getattr(KIND, 'x', None))\n",
    # The kinds package reaches e, and e reaches kinds under TYPE_CHECKING only.
    "f.py": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.kinds import x\n"
    ),
}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("code_shape", ROOT / "scripts" / "code_shape.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["code_shape"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path) -> Path:
    tree = tmp_path / "pkg"
    for name, text in FILES.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tree


def test_the_shape_of_a_tiny_package(tmp_path: Path) -> None:
    shape = _script().measure(_package(tmp_path), top=2)

    assert shape["longest"]["modules"] == [
        {"name": "pkg.d", "lines": 8, "where": "pkg.d:1"},
        {"name": "pkg.f", "lines": 4, "where": "pkg.f:1"},
    ]
    assert shape["longest"]["classes"] == [{"name": "pkg.d.Box", "lines": 5, "where": "pkg.d:4"}]
    assert shape["longest"]["functions"] == [
        {"name": "pkg.d.Box.f", "lines": 4, "where": "pkg.d:5"}
    ]

    eager = {"nodes": ["pkg.a", "pkg.b"], "edges": [
        {"source": "pkg.a", "target": "pkg.b", "kind": "eager", "at": "pkg.a:1"},
        {"source": "pkg.b", "target": "pkg.a", "kind": "eager", "at": "pkg.b:1"},
    ]}  # fmt: skip
    lazy = {"nodes": ["pkg.c", "pkg.d"], "edges": [
        {"source": "pkg.c", "target": "pkg.d", "kind": "eager", "at": "pkg.c:1"},
        {"source": "pkg.d", "target": "pkg.c", "kind": "lazy", "at": "pkg.d:6"},
    ]}  # fmt: skip
    assert shape["cycles"]["modules_eager"] == [eager]
    assert shape["cycles"]["modules_all"] == [eager, lazy]
    # Top-level modules are their own packages; pkg.kinds is one package with x in it. The
    # kinds package and pkg.e make no cycle: nothing in e imports kinds.
    assert shape["cycles"]["packages_eager"] == [eager]
    assert shape["cycles"]["packages_all"] == [eager, lazy]

    assert shape["kind_names"]["kinds"] == ["dice-pool", "dice-sum"]
    assert shape["kind_names"]["kinds_from"].endswith("registry.py")
    assert shape["kind_names"]["found"] == [{"module": "pkg.e", "line": 1, "kind": "dice-pool"}]
    assert shape["getattr"] == {"pkg.d": 2, "pkg.b": 1}


def test_a_type_checking_import_is_marked_typing_and_packages_collapse(tmp_path: Path) -> None:
    script = _script()
    tree = _package(tmp_path)
    (tree / "e.py").write_text(
        "from typing import TYPE_CHECKING\n\nKIND = 'dice-pool'\n\nif TYPE_CHECKING:\n"
        "    from pkg.kinds.x import KIND as K\n",
        encoding="utf-8",
    )
    modules = script.load_modules(tree)
    assert script.package_of("pkg.kinds.x", "pkg") == "pkg.kinds"
    assert script.package_of("pkg.e", "pkg") == "pkg.e"
    assert script.package_of("pkg", "pkg") == "pkg"
    report = script.cycle_report(modules)
    modules_all = [c.nodes for c in report["modules_all"]]
    assert modules_all == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"], ["pkg.e", "pkg.kinds.x"]]
    assert [c.nodes for c in report["packages_all"]] == [
        ["pkg.a", "pkg.b"],
        ["pkg.c", "pkg.d"],
        ["pkg.e", "pkg.kinds"],
    ]
    (typing_cycle,) = [c for c in report["packages_all"] if c.nodes == ["pkg.e", "pkg.kinds"]]
    assert [(e.source, e.target, e.kind, e.at) for e in typing_cycle.edges] == [
        ("pkg.e", "pkg.kinds", "typing", "pkg.e:6"),
        ("pkg.kinds", "pkg.e", "eager", "pkg.kinds.x:1"),
    ]
    assert [c.nodes for c in report["packages_eager"]] == [["pkg.a", "pkg.b"]]


def test_tarjan_finds_a_long_cycle_without_recursion() -> None:
    n = 5000  # deeper than the default recursion limit
    graph = {str(i): {str((i + 1) % n)} for i in range(n)}
    graph["tail"] = {"0"}
    components = _script().strongly_connected(graph, graph)
    assert [len(c) for c in components] == [n, 1]


def test_it_runs_on_dicebound_with_json() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert _script().main([str(ROOT / "src" / "dicebound"), "--json", "--top", "3"]) == 0
    shape = json.loads(out.getvalue())
    assert set(shape) == {"longest", "cycles", "kind_names", "getattr"}
    assert set(shape["longest"]) == {"modules", "classes", "functions"}
    assert all(len(rows) == 3 for rows in shape["longest"].values())
    assert set(shape["cycles"]) == {
        "modules_eager",
        "modules_all",
        "packages_eager",
        "packages_all",
    }
    assert set(shape["kind_names"]) == {"kinds", "kinds_from", "found"}
    assert len(shape["kind_names"]["kinds"]) == 6
    assert all(not m.startswith("dicebound.kinds") for m in shape["getattr"])


def test_dicebound_has_no_import_cycle_between_modules_or_packages() -> None:
    # Eager, lazy and TYPE_CHECKING imports all count: each layer imports only below it
    # (docs/design/index.md).
    script = _script()
    report = script.cycle_report(script.load_modules(ROOT / "src" / "dicebound"))
    assert {name: [c.nodes for c in found] for name, found in report.items() if found} == {}
