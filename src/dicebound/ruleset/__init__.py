"""The ruleset's vocabulary: the compiled model, the spec nodes, value references.

It imports nothing above it, so the kinds, bands and readers can use it; the compiler
that builds a ``Ruleset`` from a file is the ``compiler`` package, above it.
"""
