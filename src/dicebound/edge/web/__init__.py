"""The web page the service serves at ``/``: static files, no build step, no network.

``STATIC`` is the folder of ``index.html``, ``app.css`` and the page's ES modules:
``app.js`` wires the tabs over ``api.js`` (the one fetch of an answer, the token), ``dom.js`` and
``words.js`` (a sheet change or command in the ruleset's labels), and each tab has its
own (``play.js`` with ``tend.js`` for rests, damage and heal and ``cards.js`` for the
dice cards; ``author.js``,
``balance.js``, ``sheet.js``); ``live.js`` follows the game's events (read by
``sse.js``), so the page changes by itself; ``empty.js`` writes what the page says where
there is nothing yet. ``app.css`` sets every colour once as a custom property, for light
and for dark. The page talks to the service's own API with the token the person enters.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PAGE_HEADERS", "STATIC"]

STATIC = Path(__file__).resolve().parent / "static"

# The page loads nothing from elsewhere: its own script, style and the API.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
