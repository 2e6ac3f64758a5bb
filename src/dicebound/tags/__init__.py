"""Check tags in the Game Master's text: the tolerant lexer and in-place rewriting."""

from dicebound.tags.parse import (
    BARE_FLAGS,
    QUOTES,
    TAG_NAME,
    Span,
    TagMatch,
    format_tag,
    is_key,
    parse_tags,
    rewrite,
)

__all__ = [
    "BARE_FLAGS",
    "QUOTES",
    "TAG_NAME",
    "Span",
    "TagMatch",
    "format_tag",
    "is_key",
    "parse_tags",
    "rewrite",
]
