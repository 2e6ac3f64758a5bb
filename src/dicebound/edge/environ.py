"""Settings the service reads from its environment that are a plain switch."""

from __future__ import annotations

from collections.abc import Mapping

from dicebound.errors import UsageError


def switched_on(environ: Mapping[str, str], name: str, *, default: bool = False) -> bool:
    """Whether the variable ``name`` says ``on`` (any case, spaces around it allowed);
    ``off`` is off, and unset or empty is ``default``.

    Raises:
        UsageError: any other value, named with the variable, before anything starts.
    """
    given = environ.get(name, "").strip()
    if not given:
        return default
    if given.lower() == "off":
        return False
    if given.lower() == "on":
        return True
    raise UsageError(f'{name} must be "on" or "off"; it is "{given}".')
