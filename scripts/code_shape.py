"""Measure the shape of a source tree: long code, import cycles, kind names, getattr probes.

    .venv/bin/python scripts/code_shape.py                 the tables, for src/dicebound
    .venv/bin/python scripts/code_shape.py --top 20        twenty rows per "longest" table
    .venv/bin/python scripts/code_shape.py --json          one JSON object, the same four sections
    .venv/bin/python scripts/code_shape.py path/to/pkg     another package

Standard library only; the tree is parsed, never imported. The four sections:

1. ``longest``: the longest modules (lines in the file), classes and functions or methods
   (``lineno`` to ``end_lineno`` of the ``def``/``class``, decorators not counted).
2. ``cycles``: import cycles, as strongly connected components of more than one node
   (Tarjan's algorithm, iterative). An edge is ``eager`` (runs when the module loads),
   ``lazy`` (inside a function) or ``typing`` (under ``if TYPE_CHECKING:``, never run).
   Cycles are reported twice: over eager edges only, and over every edge. The module
   graph is collapsed to packages the way the issue counts them: ``pkg.X`` is one
   package whatever lies below it (``pkg.kinds``, ``pkg.ruleset``, ``pkg.edge``), and a
   top-level module (``pkg.engine``) and ``pkg`` itself each count as their own package.
   ``import a.b`` is an edge to ``a.b``; ``from a import b`` is an edge to ``a.b`` when
   that is a module of the tree, else to ``a``; relative imports are resolved.
3. ``kind_names``: every string literal equal to a resolution kind id in a module
   outside ``pkg.kinds``. The ids are read from the tree's ``kinds/registry.py``
   (``KNOWN_KINDS``), the one list of them; a tree without it names none.
4. ``getattr``: calls of ``getattr(`` per module outside ``pkg.kinds``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TREE = ROOT / "src" / "dicebound"

EdgeKind = Literal["eager", "lazy", "typing"]


@dataclass(frozen=True)
class Module:
    name: str
    """Dotted name, e.g. ``dicebound.kinds.dice_sum``; a package is its ``__init__``."""
    path: Path
    is_package: bool
    tree: ast.Module
    lines: int


@dataclass(frozen=True)
class Length:
    name: str
    lines: int
    where: str
    """``module:line`` of the first line."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    at: str
    """``module:line`` of the import statement (one of them, for an edge between packages)."""


@dataclass
class Cycle:
    nodes: list[str]
    edges: list[Edge] = field(default_factory=list)
    """The edges between nodes of the component (one per source, target and kind)."""


@dataclass(frozen=True)
class KindName:
    module: str
    line: int
    kind: str


# -- reading the tree ---------------------------------------------------------------------


def load_modules(tree: Path) -> dict[str, Module]:
    """Every ``.py`` file below ``tree`` (a package directory), by dotted module name."""
    tree = tree.resolve()
    modules: dict[str, Module] = {}
    for path in sorted(tree.rglob("*.py")):
        parts = list(path.relative_to(tree.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        text = path.read_text(encoding="utf-8")
        name = ".".join(parts)
        modules[name] = Module(
            name=name,
            path=path,
            is_package=is_package,
            tree=ast.parse(text, filename=str(path)),
            lines=len(text.splitlines()),
        )
    return modules


def in_kinds(module: str, root: str) -> bool:
    """Whether ``module`` is ``root.kinds`` or below it."""
    kinds = f"{root}.kinds"
    return module == kinds or module.startswith(kinds + ".")


def root_name(modules: dict[str, Module]) -> str:
    return min(modules, key=len).split(".")[0]


# -- 1. lengths ---------------------------------------------------------------------------


def _definitions(
    body: Iterable[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Classes and functions at any depth, named ``Outer.inner`` as ``__qualname__`` would."""
    stack: list[tuple[str, ast.AST]] = [(prefix, node) for node in reversed(list(body))]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = f"{prefix}{node.name}"
            yield qualname, node
            inner = qualname + (".<locals>." if not isinstance(node, ast.ClassDef) else ".")
            stack.extend((inner, child) for child in reversed(node.body))
        else:
            # Definitions nested in if/try/with/for bodies keep the enclosing prefix.
            children = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
            stack.extend((prefix, child) for child in reversed(children))


def lengths(modules: dict[str, Module]) -> dict[str, list[Length]]:
    """Every module, class and function with its length, longest first."""
    found: dict[str, list[Length]] = {"modules": [], "classes": [], "functions": []}
    for module in modules.values():
        found["modules"].append(Length(module.name, module.lines, f"{module.name}:1"))
        for qualname, node in _definitions(module.tree.body, ""):
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            entry = Length(
                f"{module.name}.{qualname}", end - node.lineno + 1, f"{module.name}:{node.lineno}"
            )
            found["classes" if isinstance(node, ast.ClassDef) else "functions"].append(entry)
    for entries in found.values():
        entries.sort(key=lambda e: (-e.lines, e.name))
    return found


# -- 2. imports and cycles ----------------------------------------------------------------


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, EdgeKind]]:
    """Every import statement with how it runs: eager, lazy (in a function) or typing."""
    stack: list[tuple[ast.AST, EdgeKind]] = [(tree, "eager")]
    while stack:
        node, kind = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, kind
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            kind = "typing" if kind == "typing" else "lazy"
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((child, "typing") for child in node.body)
            stack.extend((child, kind) for child in node.orelse)
            continue
        stack.extend((child, kind) for child in ast.iter_child_nodes(node))


def _resolve_from(module: Module, node: ast.ImportFrom) -> str | None:
    """The absolute module named by ``from X import ...`` (None when it leaves the tree)."""
    if node.level == 0:
        return node.module
    base = module.name.split(".")
    if not module.is_package:
        base.pop()
    up = node.level - 1
    if up > len(base) - 1:
        return None
    base = base[: len(base) - up] if up else base
    return ".".join([*base, node.module] if node.module else base)


def import_edges(modules: dict[str, Module]) -> list[Edge]:
    """The imports between modules of the tree, one edge per statement and target."""
    edges: set[Edge] = set()
    for module in modules.values():
        for node, kind in _imports(module.tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names if alias.name in modules]
            else:
                source = _resolve_from(module, node)
                if source is None:
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in modules:
                        targets.append(sub)
                    elif source in modules:
                        targets.append(source)
            for target in targets:
                if target != module.name:
                    edges.add(Edge(module.name, target, kind, f"{module.name}:{node.lineno}"))
    return sorted(edges, key=lambda e: (e.source, e.target, e.kind, e.at))


def strongly_connected(nodes: Iterable[str], graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion; each sorted, all sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


def package_of(module: str, root: str) -> str:
    """``root.X`` for anything at or below ``root.X``; ``root`` for the root's ``__init__``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == root else module


def cycles(edges: list[Edge], kinds: set[EdgeKind], collapse: str | None = None) -> list[Cycle]:
    """Components of more than one node over edges of ``kinds``; packages if ``collapse``."""
    nodes: set[str] = set()
    graph: dict[str, set[str]] = {}
    kept: dict[tuple[str, str, EdgeKind], Edge] = {}
    for edge in edges:
        if edge.kind not in kinds:
            continue
        source, target = edge.source, edge.target
        if collapse is not None:
            source, target = package_of(source, collapse), package_of(target, collapse)
        if source == target:
            continue
        nodes.update((source, target))
        graph.setdefault(source, set()).add(target)
        kept.setdefault((source, target, edge.kind), Edge(source, target, edge.kind, edge.at))
    found = []
    for component in strongly_connected(nodes, graph):
        if len(component) < 2:
            continue
        members = set(component)
        inside = [e for key, e in sorted(kept.items()) if key[0] in members and key[1] in members]
        found.append(Cycle(component, inside))
    return found


def cycle_report(modules: dict[str, Module]) -> dict[str, list[Cycle]]:
    edges = import_edges(modules)
    root = root_name(modules)
    every: set[EdgeKind] = {"eager", "lazy", "typing"}
    return {
        "modules_eager": cycles(edges, {"eager"}),
        "modules_all": cycles(edges, every),
        "packages_eager": cycles(edges, {"eager"}, collapse=root),
        "packages_all": cycles(edges, every, collapse=root),
    }


# -- 3. kind names, 4. getattr ------------------------------------------------------------


def known_kinds(tree: Path) -> tuple[tuple[str, ...], str]:
    """The kind ids and where they came from."""
    registry = tree / "kinds" / "registry.py"
    if registry.is_file():
        target: ast.expr
        value: ast.expr | None
        for node in ast.parse(registry.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id == "KNOWN_KINDS" and value:
                try:
                    ids = ast.literal_eval(value)
                except ValueError:
                    break
                return tuple(str(v) for v in ids), str(registry)
    return (), f"nowhere: {registry} declares no KNOWN_KINDS"


def kind_names(modules: dict[str, Module], kinds: Iterable[str]) -> list[KindName]:
    """Every string literal equal to a kind id, in modules outside ``root.kinds``."""
    wanted = set(kinds)
    root = root_name(modules)
    found: list[KindName] = []
    for module in modules.values():
        if in_kinds(module.name, root):
            continue
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Constant) and node.value in wanted:
                found.append(KindName(module.name, node.lineno, str(node.value)))
    return sorted(found, key=lambda k: (k.module, k.line, k.kind))


def getattr_calls(modules: dict[str, Module]) -> dict[str, int]:
    """Calls of ``getattr(`` per module outside ``root.kinds``, most first, zeros left out."""
    root = root_name(modules)
    counts: dict[str, int] = {}
    for module in modules.values():
        if in_kinds(module.name, root):
            continue
        n = sum(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            for node in ast.walk(module.tree)
        )
        if n:
            counts[module.name] = n
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# -- output -------------------------------------------------------------------------------


def measure(tree: Path, top: int) -> dict[str, Any]:
    """The four sections as plain data (what ``--json`` prints)."""
    modules = load_modules(tree)
    if not modules:
        raise SystemExit(f"no .py files under {tree}")
    kinds, kinds_source = known_kinds(tree)
    return {
        "longest": {
            section: [asdict(e) for e in entries[:top]]
            for section, entries in lengths(modules).items()
        },
        "cycles": {
            section: [{"nodes": c.nodes, "edges": [asdict(e) for e in c.edges]} for c in found]
            for section, found in cycle_report(modules).items()
        },
        "kind_names": {
            "kinds": list(kinds),
            "kinds_from": kinds_source,
            "found": [asdict(k) for k in kind_names(modules, kinds)],
        },
        "getattr": getattr_calls(modules),
    }


def _table(headings: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [headings, *rows]) for i in range(len(headings))]

    def line(row: list[str]) -> str:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return [line(headings), line(["-" * w for w in widths]), *(line(r) for r in rows)]


_CYCLE_TITLES = {
    "modules_eager": "Import cycles between modules, eager imports only",
    "modules_all": "Import cycles between modules, lazy and TYPE_CHECKING imports included",
    "packages_eager": "Import cycles between packages, eager imports only",
    "packages_all": "Import cycles between packages, lazy and TYPE_CHECKING imports included",
}


def render(shape: dict[str, Any], top: int) -> str:
    out: list[str] = []
    for section, title in (
        ("modules", "modules"),
        ("classes", "classes"),
        ("functions", "functions and methods"),
    ):
        entries = shape["longest"][section]
        out += [f"The {top} longest {title}", ""]
        rows = [[str(e["lines"]), e["name"], e["where"]] for e in entries]
        out += (
            _table(["lines", "name", "at"], rows, right={0})
            if section != "modules"
            else _table(["lines", "module"], [r[:2] for r in rows], right={0})
        )
        out.append("")
    root = "the root package"
    out += [
        "Packages: pkg.X counts as one package with everything below it; each top-level "
        f"module and {root} itself count as their own package.",
        "Edges: eager = runs when the module loads; lazy = inside a function; "
        "typing = under `if TYPE_CHECKING:`.",
        "",
    ]
    eager_nodes = {
        f"{level}_all": [c["nodes"] for c in shape["cycles"][f"{level}_eager"]]
        for level in ("modules", "packages")
    }
    for section, title in _CYCLE_TITLES.items():
        found = shape["cycles"][section]
        out += [f"{title}: {len(found)}", ""]
        for n, cycle in enumerate(found, 1):
            kinds: dict[str, int] = {}
            for edge in cycle["edges"]:
                kinds[edge["kind"]] = kinds.get(edge["kind"], 0) + 1
            counted = ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
            out.append(f"  cycle {n}: {len(cycle['nodes'])} nodes, edges inside: {counted}")
            out.append("    " + ", ".join(cycle["nodes"]))
            edges = cycle["edges"]
            if section.endswith("_all") and cycle["nodes"] in eager_nodes[section]:
                # The same component as an eager one above: only the new edges are news.
                edges = [e for e in edges if e["kind"] != "eager"]
                if not edges:
                    out.append("    (the same as the eager-only cycle above)")
                    continue
                out.append("    (the same nodes as an eager-only cycle above; its other edges:)")
            rows = [[e["source"], "->", e["target"], e["kind"], e["at"]] for e in edges]
            table = _table(["from", "", "to", "edge", "an import at"], rows, right=set())
            out += ["    " + row for row in table]
        if found:
            out.append("")
    named = shape["kind_names"]
    out += [
        f"Kind ids named as string literals outside kinds/: {len(named['found'])}",
        f"(ids from {named['kinds_from']})",
        "",
    ]
    out += _table(
        ["at", "kind"],
        [[f"{k['module']}:{k['line']}", k["kind"]] for k in named["found"]],
        right=set(),
    )
    counts = shape["getattr"]
    out += [
        "",
        f"getattr( calls per module outside kinds/: {sum(counts.values())} in {len(counts)} modules",
        "",
    ]
    out += _table(["calls", "module"], [[str(v), k] for k, v in counts.items()], right={0})
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "tree",
        nargs="?",
        type=Path,
        default=DEFAULT_TREE,
        help="a package directory (default src/dicebound)",
    )
    parser.add_argument("--top", type=int, default=10, help="rows per 'longest' table (default 10)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )
    args = parser.parse_args(argv)
    shape = measure(args.tree, args.top)
    if args.json:
        json.dump(shape, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(shape, args.top) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
