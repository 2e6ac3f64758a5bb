"""Resolution kinds: one module each, behind the small interface in ``base``."""
