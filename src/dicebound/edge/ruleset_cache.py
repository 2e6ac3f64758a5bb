"""Compiled rulesets kept on disk, so a fresh process skips the compiler (the edge: I/O).

A ruleset compiles in milliseconds to tens of milliseconds, and a fresh process also
pays for importing the compiler; reading back a compiled ``Ruleset`` takes well under
a millisecond. An entry is named by a hash of the ruleset's text, dicebound's version,
a fingerprint of dicebound's own source files (their names, sizes and modification
times, so an edited or upgraded dicebound never reads an entry an older one wrote) and
the Capability API version the file is checked against; the entry holds all four
beside the compiled ruleset, and is used only when every one of them is equal to the
reader's (the whole text compared, so no two texts can share an entry). The hashes are
``zlib``'s (CRC-32 and Adler-32), which a fresh process has at hand: ``hashlib`` would
cost it more to import than reading the entry does.

* Where: ``$DICEBOUND_CACHE_DIR`` if set; otherwise ``$XDG_CACHE_HOME/dicebound``
  (``~/.cache/dicebound`` without it), or ``%LOCALAPPDATA%\\dicebound\\cache`` on
  Windows.
* An entry is a pickle, and reading a pickle can run code: the folder is made readable
  and writable by its user alone, and ``DICEBOUND_CACHE_DIR`` must name a folder no one
  else can write (as Python's own ``__pycache__`` must be).
* Off: ``DICEBOUND_NO_CACHE`` set to anything but ``""`` or ``"0"``.
* An entry is written to a temporary file in the same folder and renamed into place,
  so a reader never sees half of one; only a ruleset that compiled is kept.
* An entry that cannot be read, is corrupt, or holds anything but a ``Ruleset`` is
  ignored and the ruleset compiled again (and the entry rewritten); a cache folder that
  cannot be written is no error. The cache can make a read slower, never wrong or
  failing.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import zlib
from collections.abc import Callable
from functools import cache
from types import MappingProxyType
from typing import Any

from dicebound import __version__
from dicebound.ruleset.model import Ruleset

__all__ = ["ENV_DIR", "ENV_OFF", "cache_dir", "cached_ruleset"]

ENV_DIR = "DICEBOUND_CACHE_DIR"
ENV_OFF = "DICEBOUND_NO_CACHE"
_SUFFIX = ".ruleset.pickle"


def cache_dir() -> str | None:
    """The folder compiled rulesets are kept in; None when the cache is switched off."""
    if os.environ.get(ENV_OFF, "") not in ("", "0"):
        return None
    explicit = os.environ.get(ENV_DIR)
    if explicit:
        return explicit
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return os.path.join(base, "dicebound", "cache")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "dicebound")


@cache
def _code_fingerprint() -> str:
    """dicebound's source files, by name, size and modification time (walked once per
    process: about half a millisecond)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts: list[str] = []
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    parts.append(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}")
    return _digest("\n".join(sorted(parts)).encode("utf-8", "surrogateescape"))


def _digest(data: bytes) -> str:
    """64 bits of hash: CRC-32 and Adler-32 side by side."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _stamp(text: str, capability_api: str | None) -> tuple[str, str, str | None, str]:
    """What an entry must agree with to be used: version, source, API version, text."""
    return (__version__, _code_fingerprint(), capability_api, text)


def _key(stamp: tuple[str, str, str | None, str]) -> str:
    version, fingerprint, capability_api, text = stamp
    head = f"{version}\0{fingerprint}\0{capability_api}\0".encode()
    return _digest(head + text.encode("utf-8", errors="surrogatepass"))


def _proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """A read-only mapping again (pickle writes one as this call on its items)."""
    return MappingProxyType(items)


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _proxy, (dict(proxy),)


def _dumps(entry: tuple[object, ...]) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}
    pickler.dump(entry)
    return out.getvalue()


def _read(path: str, stamp: tuple[str, str, str | None, str]) -> Ruleset | None:
    """The entry's ruleset, if the entry is whole and was written for ``stamp``."""
    try:
        with open(path, "rb") as f:
            entry = pickle.load(f)
    except Exception:  # missing, unreadable, truncated or corrupt: compiled again
        return None
    if not isinstance(entry, tuple) or len(entry) != 2 or entry[0] != stamp:
        return None
    ruleset = entry[1]
    return ruleset if isinstance(ruleset, Ruleset) else None


def _write(
    folder: str, path: str, stamp: tuple[str, str, str | None, str], ruleset: Ruleset
) -> None:
    import tempfile  # only a first read of a ruleset writes

    try:
        data = _dumps((stamp, ruleset))
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except Exception:  # a folder that cannot be written, a full disk: no cache, no error
        return


def cached_ruleset(
    text: str, capability_api: str | None, compile_text: Callable[[str, str | None], Ruleset]
) -> Ruleset:
    """The compiled ruleset of ``text``: from the cache when it holds it, else compiled
    by ``compile_text`` (whose errors pass through) and kept.

    Raises:
        RulesetInvalid: the file's problems (from ``compile_text``; never cached).
    """
    folder = cache_dir()
    if folder is None:
        return compile_text(text, capability_api)
    stamp = _stamp(text, capability_api)
    path = os.path.join(folder, _key(stamp) + _SUFFIX)
    ruleset = _read(path, stamp)
    if ruleset is None:
        ruleset = compile_text(text, capability_api)
        _write(folder, path, stamp, ruleset)
    return ruleset
