"""The ``combat`` block at import: its shape, its cross-checks, its Capability API gates
and the values it compiles to (docs/design/fights-schema.md)."""
