"""What ``GET /metrics`` tells Prometheus, counted with the official ``prometheus_client``.

Every series is named by Prometheus' conventions (``dicebound_`` first, ``_total`` for
a counter, base units such as ``_seconds``) and labelled only by sets that stay small:
a route's template (``/games/{game}/checks``), never a game id, a path or a token; a
method; a status; a fixed reason.

Each app holds one ``Metrics`` (``app.state.metrics``) in a registry of its own, so
two apps in one process (the tests) never collide. Under ``dicebound serve --workers
N`` the server sets ``PROMETHEUS_MULTIPROC_DIR`` before this module first imports
``prometheus_client`` (``multiproc_dir``): each worker then writes its values to files
there, and whichever worker answers a scrape reads all of them, so the N processes
report one set. ``prometheus_client`` decides that mode when first imported, which is
why it is imported here lazily, in ``Metrics()``, never at the top of a module.

``Metrics(enabled=False)`` (``DICEBOUND_METRICS=off``) counts nothing: what ``bench/
metrics_cost.py`` sets beside the default to measure what counting costs a check.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from dicebound.sheet_commands.reasons import REASONS

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["MULTIPROC_VARIABLE", "Metrics", "multiproc_dir", "process_gone"]

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# a check answers in about a millisecond; a slow one waits for a lock or the disk
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_FAULTS = ("lost", "busy", "full", "refused")


@contextmanager
def multiproc_dir(environ: dict[str, str] | os._Environ[str]) -> Iterator[str]:
    """A fresh, empty directory for the workers' metric files, named in ``environ``
    as ``PROMETHEUS_MULTIPROC_DIR`` while the service runs, then removed with its files
    (a directory left from an earlier run would add its counts to this one's)."""
    made = tempfile.mkdtemp(prefix="dicebound-metrics-")
    before = environ.get(MULTIPROC_VARIABLE)
    environ[MULTIPROC_VARIABLE] = made
    try:
        yield made
    finally:
        if before is None:
            environ.pop(MULTIPROC_VARIABLE, None)
        else:
            environ[MULTIPROC_VARIABLE] = before
        shutil.rmtree(made, ignore_errors=True)


def process_gone(pid: int) -> None:
    """Drop the gauges of a process that no longer serves (a worker that ended, or the
    process that started the workers and made the app, whose values are all zero)
    from the set: its open streams, its connections in use, its start time. Its
    counters stay, as counts that happened."""
    if os.environ.get(MULTIPROC_VARIABLE):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


class Metrics:
    """The service's series, and the text of a scrape (``exposition``)."""

    def __init__(self, version: str, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._requests: dict[tuple[str, str, int], Any] = {}
        self._durations: dict[tuple[str, str], Any] = {}
        self.multiprocess = bool(os.environ.get(MULTIPROC_VARIABLE))
        if not enabled:
            return
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            disable_created_metrics,
        )

        # a ``_created`` series beside each counter adds only noise
        disable_created_metrics()  # type: ignore[no-untyped-call]
        registry = self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "dicebound_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ("route", "method", "status"),
            registry=registry,
        )
        self.duration = Histogram(
            "dicebound_http_request_duration_seconds",
            "Time from a request's headers to the end of its answer, by route template.",
            ("route", "method"),
            buckets=_BUCKETS,
            registry=registry,
        )
        self.checks = Counter(
            "dicebound_checks",
            "Check tags resolved (result=resolved) or refused (result=refused, by reason).",
            ("result", "reason"),
            registry=registry,
        )
        self.sheet = Counter(
            "dicebound_sheet_commands",
            "Sheet commands applied (result=applied) or refused (by their fixed reason).",
            ("result", "reason"),
            registry=registry,
        )
        self.streams = Gauge(
            "dicebound_event_streams_open",
            "Event streams (GET /games/{game}/events) open now.",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.followed = Gauge(
            "dicebound_event_games_followed",
            "Games with at least one open stream: each a subscriber to the store's events.",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.rate_limited = Counter(
            "dicebound_rate_limit_refusals",
            "Requests refused 429 for their rate, by whose bucket was empty.",
            ("bucket",),
            registry=registry,
        )
        self.store_faults = Counter(
            "dicebound_store_faults",
            "Store failures answered 503 or 422, by fault (lost, busy, full, refused).",
            ("fault",),
            registry=registry,
        )
        self.pool_in_use = Gauge(
            "dicebound_store_pool_connections_in_use",
            "Connections of the store's pool handed out now.",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.started = Gauge(
            "dicebound_process_start_time_seconds",
            "When each service process started, in seconds since the Unix epoch.",
            registry=registry,
            multiprocess_mode="liveall",
        )
        self.build = Gauge(
            "dicebound_build_info",
            "Always 1: the dicebound version serving, as a label.",
            ("version",),
            registry=registry,
            multiprocess_mode="max",
        )
        self.build.labels(version).set(1)
        for fault in _FAULTS:  # each series there from the start, at 0
            self.store_faults.labels(fault)

    def process_started(self, engine: Engine) -> None:
        """This process serves: its start time, and its pool's connections counted as
        they are handed out and given back (called in each worker, after the fork)."""
        if not self.enabled:
            return
        from sqlalchemy import event

        self.started.set(time.time())
        self.pool_in_use.set(0)
        event.listen(engine, "checkout", lambda *_: self.pool_in_use.inc())
        event.listen(engine, "checkin", lambda *_: self.pool_in_use.dec())

    def answered(self, route: str, method: str, status: int, seconds: float) -> None:
        """One request answered (its children kept: ``labels`` takes a lock each time)."""
        if not self.enabled:
            return
        key = (route, method, status)
        counter = self._requests.get(key)
        if counter is None:
            counter = self._requests[key] = self.requests.labels(route, method, str(status))
        counter.inc()
        timed = self._durations.get(key[:2])
        if timed is None:
            timed = self._durations[key[:2]] = self.duration.labels(route, method)
        timed.observe(seconds)

    def resolved(self, answer: Mapping[str, Any]) -> None:
        """A text's checks and sheet commands, from its answer: each result resolved,
        each tag in ``errors`` refused (reason ``unresolved``), each command applied or
        refused with its reason."""
        if not self.enabled:
            return
        if answer["results"]:
            self.checks.labels("resolved", "").inc(len(answer["results"]))
        if answer["errors"]:
            self.checks.labels("refused", "unresolved").inc(len(answer["errors"]))
        for command in answer.get("sheet", ()):
            if command["ok"]:
                self.sheet.labels("applied", "").inc()
            else:
                reason = command["reason"]
                self.sheet.labels("refused", reason if reason in REASONS else "other").inc()

    def request_refused(self) -> None:
        """A text refused whole (422: seed and faces together, faces that do not fit)."""
        if self.enabled:
            self.checks.labels("refused", "request").inc()

    def rate_limited_by(self, bucket: str) -> None:
        if self.enabled:
            self.rate_limited.labels(bucket).inc()

    def store_fault(self, fault: str) -> None:
        if self.enabled:
            self.store_faults.labels(fault if fault in _FAULTS else "busy").inc()

    def streams_open(self, streams: int, games: int) -> None:
        if self.enabled:
            self.streams.set(streams)
            self.followed.set(games)

    def exposition(self) -> bytes:
        """The scrape's text: every process's series under ``--workers``, else this
        process's."""
        from prometheus_client import CollectorRegistry, generate_latest, multiprocess

        if not self.enabled:
            return b""
        if not self.multiprocess:
            return bytes(generate_latest(self.registry))
        gathered = CollectorRegistry()
        multiprocess.MultiProcessCollector(gathered)  # type: ignore[no-untyped-call]
        return bytes(generate_latest(gathered))
