"""Rendering a record for people: the dice card and the one-line summary (no I/O)."""

from dicebound.render.text import RESULT_WORDS, outcome_words, render_text, summarize

__all__ = ["RESULT_WORDS", "outcome_words", "render_text", "summarize"]
