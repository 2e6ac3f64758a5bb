"""The ruleset compiler: raw JSON in, an immutable ``Ruleset`` out, or every problem.

Two phases. Structure first, over the whole file, with the spec nodes of ``schema``.
Then the cross-checks the file format (docs/design/format.md) and the page name (ids
that must exist, with a "did you mean"; order; live reads that may not feed a maximum;
rules that could never fire; the kind's own checks), run as the named passes of
``compiler.passes`` (sheet, tracks, derived, maxima, resolution, combat, gm, catalogs,
layers, rests) only on the parts whose structure is sound, so a broken file never crashes the
compiler and one fault is reported once. Every problem is collected; ``RulesetInvalid``
carries them all, ordered by where they stand in the file.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from typing import Any

from dicebound.compiler.capability import capability_problems, ruleset_features, version_problem
from dicebound.compiler.combat.blank import blank_sheet_problems
from dicebound.compiler.passes import PASSES, Context, assemble
from dicebound.compiler.schema import MAX_RULESET_BYTES, ruleset_node
from dicebound.errors import RulesetInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.kinds.registry import kind_compiler
from dicebound.problem_codes import (
    BAD_NUMBER,
    NOT_JSON,
    TOO_LARGE,
    WRONG_TYPE,
)
from dicebound.problems import (
    Path,
    PathPart,
    Problem,
    hints_bounded,
    path_order,
    sort_problems,
)
from dicebound.ruleset.model import (
    Ruleset,
)
from dicebound.ruleset.spec import describe

__all__ = ["compile_ruleset", "load_ruleset_text", "run_to_end"]

_DOUBLE_MAX = int(sys.float_info.max)


def run_to_end() -> None:
    """The checkpoint of work that is never abandoned (the default)."""


def load_ruleset_text(
    text: str, *, capability_api: str | None = None, checkpoint: Callable[[], None] = run_to_end
) -> Ruleset:
    """Parse a ruleset file's text and compile it.

    A file over 256 KB, or text that is not JSON (reported with its line and column),
    is a problem like any other. ``checkpoint`` is as ``compile_ruleset`` takes it.

    Raises:
        RulesetInvalid: every problem found.
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_RULESET_BYTES:
        raise RulesetInvalid(
            [
                Problem(
                    (),
                    TOO_LARGE,
                    f"is {size:,} bytes; a ruleset file may be at most "
                    f"{MAX_RULESET_BYTES:,} bytes (256 KB).",
                )
            ]
        )
    try:
        raw, twice = read_json(text)
    except Unreadable as exc:
        raise RulesetInvalid([Problem((), NOT_JSON, str(exc))]) from None
    if twice:
        raise RulesetInvalid(twice)
    checkpoint()
    return compile_ruleset(raw, capability_api=capability_api, checkpoint=checkpoint)


def compile_ruleset(
    raw: object, *, capability_api: str | None = None, checkpoint: Callable[[], None] = run_to_end
) -> Ruleset:
    """Check a parsed ruleset file and compile it.

    Args:
        raw: the file's parsed JSON.
        capability_api: check the file as a packaged ruleset declaring this Capability
            API version (``"1.38"``): every feature above it is refused. None checks it
            as a community ruleset, which needs no version.
        checkpoint: called between the steps of the work (and every thousand or so
            problems); it raises to abandon the work, as a service does for a client
            that is gone or a check past its time.

    Raises:
        RulesetInvalid: every problem found, in document order.
    """
    with hints_bounded():  # a file of thousands of unknown names costs no more to hint
        return _compile(raw, capability_api, checkpoint)


def _compile(raw: object, capability_api: str | None, checkpoint: Callable[[], None]) -> Ruleset:
    problems: list[Problem] = []
    declared_problem = None if capability_api is None else version_problem(capability_api)
    if declared_problem is not None:
        problems.append(declared_problem)
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                (), WRONG_TYPE, f"must be a JSON object holding a ruleset, not {describe(raw)}."
            )
        )
        raise RulesetInvalid(problems)
    faults = _json_faults(raw)
    if faults:
        raise RulesetInvalid(_in_document_order(raw, [*problems, *faults]))
    checkpoint()
    res = raw.get("resolution")
    kind_name = res.get("kind") if isinstance(res, dict) else None
    kind = kind_compiler(kind_name) if isinstance(kind_name, str) else None
    structure: list[Problem] = []
    found = ruleset_node(kind.name if kind is not None else None).check(raw, ())
    while chunk := list(islice(found, 1024)):
        structure += chunk
        checkpoint()
    ctx = Context(raw, structure, kind)
    for step in PASSES:
        step.run(ctx)
        checkpoint()
    ruleset = assemble(ctx)
    problems.extend(structure)
    problems.extend(ctx.problems)
    if ruleset is not None:
        problems.extend(blank_sheet_problems(ruleset))
    if capability_api is not None and declared_problem is None:
        block = res if kind is not None and ctx.clean(("resolution",)) else None
        features = ruleset_features(raw, kind, block if isinstance(block, dict) else None)
        problems.extend(capability_problems(features, capability_api))
    if problems or ruleset is None:
        raise RulesetInvalid(_in_document_order(raw, problems))
    return ruleset


def _in_document_order(raw: dict[str, Any], problems: Sequence[Problem]) -> list[Problem]:
    """Each problem once, in the order its place comes in the file (keys as written),
    then by path. A path's place is its parent's and one step more, and each parent is
    found once, so the problems of one long list or object cost no walk from the top
    (nor a scan of its keys) each."""
    orders: dict[int, dict[str, int]] = {}  # each object's keys by place, made once
    parents: dict[Path, tuple[object, tuple[int, ...]]] = {}

    def step(node: object, out: tuple[int, ...], part: PathPart) -> tuple[object, tuple[int, ...]]:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            keys = orders.get(id(node))
            if keys is None:
                keys = orders[id(node)] = {key: i for i, key in enumerate(node)}
            return node[part], (*out, keys[part])
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            return node[part], (*out, part)
        # a place the file does not hold: after everything it does
        return None, (*out, len(node) if isinstance(node, dict | list) else 0)

    def place(path: Path) -> tuple[int, ...]:
        if not path:
            return ()
        parent = path[:-1]
        found = parents.get(parent)
        if found is None:
            node: object = raw
            out: tuple[int, ...] = ()
            for part in parent:
                node, out = step(node, out, part)
            found = parents[parent] = (node, out)
        return step(*found, path[-1])[1]

    unique = list(dict.fromkeys(problems))
    places = [place(p.path) for p in unique]
    if len(set(places)) < len(places):  # paths the file does not hold may share a place
        unique.sort(key=lambda p: path_order(p.path))
        places = [place(p.path) for p in unique]
    return [unique[i] for _, i in sorted(zip(places, range(len(unique)), strict=True))]


# -- helpers ---------------------------------------------------------------------------

_MAX_FAULTS = 50


def _json_faults(raw: object) -> list[Problem]:
    """Values no JSON number or text can be: a number too large for a double (JSON
    numbers are doubles to every reader), a non-finite number, or a non-JSON object;
    the first 50 found.

    Walked without recursion, so no depth of nesting can stop it, and a value's path is
    built only for a container or a fault (not for each of a long list's numbers).
    """
    out: list[Problem] = []
    stack: list[tuple[Path, object]] = [((), raw)]
    while stack and len(out) < _MAX_FAULTS:
        path, value = stack.pop()
        if not isinstance(value, dict | list):
            _fault(value, path, out)
            continue
        keyed = isinstance(value, dict)
        pairs: Iterable[tuple[Any, object]] = (
            value.items() if isinstance(value, dict) else enumerate(value)
        )
        for key, item in pairs:
            if keyed and not isinstance(key, str):
                out.append(Problem(path, WRONG_TYPE, "has a key that is not a string."))
            elif isinstance(item, dict | list):
                stack.append(((*path, key), item))
            elif type(item) is int:  # the common case, checked here: no call per number
                if not -_DOUBLE_MAX <= item <= _DOUBLE_MAX:
                    _fault(item, (*path, key), out)
            elif not (item is None or isinstance(item, str | bool)):
                _fault(item, (*path, key), out)
    return sort_problems(out)


def _fault(value: object, path: Path, out: list[Problem]) -> None:
    """A problem for a scalar no JSON value can be, if ``value`` is one."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > _DOUBLE_MAX:
            out.append(
                Problem(path, BAD_NUMBER, "is too large to be a number: JSON numbers are doubles.")
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            out.append(Problem(path, BAD_NUMBER, "is not a finite number."))
    else:
        out.append(Problem(path, WRONG_TYPE, f"is a {type(value).__name__}, not a JSON value."))
