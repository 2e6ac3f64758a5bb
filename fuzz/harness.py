"""What every fuzz campaign shares: a budget, the bounds each input must keep, and the
figures a run prints.

An input passes when it gives a result or dicebound's own error (``DiceboundError``)
within ``TIME_BOUND`` seconds, with the process under ``MEMORY_BOUND`` bytes of address
space. Anything else (another exception, a timeout, running out of memory) is a failure:
the input is written to ``fuzz/found/`` to become a test, and the run says so.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from dicebound.errors import DiceboundError

TIME_BOUND = 5.0
"""Seconds one input may take, at most (the odds' bound)."""

MEMORY_BOUND = 4 * 1024**3
"""Bytes of address space the whole campaign may use (an input past it fails)."""

FOUND = Path(__file__).resolve().parent / "found"


class _Timeout(BaseException):
    """Raised in the campaign by the timer when one input runs past ``TIME_BOUND``."""


def _expire(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


@dataclass
class Figures:
    """What a run did: inputs, how they ended, the slowest, and the failures."""

    campaign: str
    inputs: int = 0
    ended: Counter[str] = field(default_factory=Counter)
    slowest: float = 0.0
    slowest_input: str = ""
    failures: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def report(self) -> str:
        elapsed = time.perf_counter() - self.started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        lines = [
            f"campaign {self.campaign}: {self.inputs:,} inputs in {elapsed:.1f} s "
            f"({self.inputs / max(elapsed, 1e-9):,.0f}/s)",
            f"  bounds: {TIME_BOUND} s per input, {MEMORY_BOUND / 1024**3:.0f} GiB of memory",
            f"  slowest input: {self.slowest * 1000:.1f} ms; peak memory: {peak:.0f} MiB",
            "  ended: "
            + ", ".join(f"{name} {count:,}" for name, count in self.ended.most_common()),
            f"  failures: {len(self.failures)}",
            *(f"    {path}" for path in self.failures),
        ]
        return "\n".join(lines)


def budget_arguments(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--count", type=int, default=None, help="stop after this many inputs")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    args = parser.parse_args()
    if args.seconds is None and args.count is None:
        args.seconds = 60.0
    return args


def run(
    campaign: str,
    inputs: Iterator[str],
    target: Callable[[str], str],
    *,
    seconds: float | None,
    count: int | None,
) -> Figures:
    """Feed ``inputs`` to ``target`` until the budget is spent; ``target`` returns a
    word for how the input ended (a result's kind), or raises."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > MEMORY_BOUND:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, hard))
    previous = signal.signal(signal.SIGALRM, _expire)
    figures = Figures(campaign)
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        for text in inputs:
            if count is not None and figures.inputs >= count:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            figures.inputs += 1
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, TIME_BOUND)
            try:
                ended = target(text)
            except DiceboundError as exc:
                ended = f"refused ({type(exc).__name__})"
            except _Timeout:
                ended = "FAILED"
                figures.failures.append(_keep(campaign, text, f"took over {TIME_BOUND} s"))
            except (Exception, MemoryError, RecursionError):
                ended = "FAILED"
                figures.failures.append(_keep(campaign, text, traceback.format_exc()))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            took = time.perf_counter() - start
            if took > figures.slowest:
                figures.slowest, figures.slowest_input = took, text[:200]
            figures.ended[ended] += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    return figures


def _keep(campaign: str, text: str, why: str) -> str:
    """Write a failing input where a test can read it; its path."""
    FOUND.mkdir(exist_ok=True)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    path = FOUND / f"{campaign}-{digest}.txt"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    path.with_suffix(".why").write_text(why, encoding="utf-8", errors="backslashreplace")
    return str(path)


def finish(figures: Figures) -> int:
    print(figures.report())
    sys.stdout.flush()
    return 1 if figures.failures else 0
