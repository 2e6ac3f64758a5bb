"""Ruleset files: the structural spec, the compiled model and the compiler."""
