"""The ruleset compiler: raw JSON in, an immutable ``Ruleset`` out, or every problem.

It sits above the ruleset's vocabulary (``ruleset.model``, ``ruleset.spec``,
``ruleset.refs``) and above the kinds, bands and overrides it compiles with; nothing
below it imports it (docs/design/index.md). ``schema`` is the shape of a whole file,
``capability`` the API version each feature needs, ``passes`` the cross-checks.
"""

from __future__ import annotations

from dicebound.compiler.compile import compile_ruleset, load_ruleset_text, run_to_end

__all__ = ["compile_ruleset", "load_ruleset_text", "run_to_end"]
