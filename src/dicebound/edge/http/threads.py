"""The fast lane's trip to a thread (``lane.py``): a check's work blocks (SQLite's
file, PostgreSQL's round trips), so it runs off the event loop, on one of a few
threads kept waiting on a queue.

anyio's trip (FastAPI's, for a plain ``def`` route) and ``loop.run_in_executor`` each
pass a request through two futures, a semaphore and a capacity limiter: about three
times the CPU of this one (a job on a ``SimpleQueue``, its answer handed back with one
``call_soon_threadsafe``), whose cost was most of what the HTTP layers added to a check.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, Generic, TypeVar

__all__ = ["Threads"]

T = TypeVar("T")


class _Job(Generic[T]):
    """One piece of work, the context it runs in (the caller's, copied: the request's
    id reaches its log lines, ``edge/logs.py``), and its future on the event loop."""

    __slots__ = ("context", "future", "loop", "work")

    def __init__(self, work: Callable[[], T], loop: asyncio.AbstractEventLoop) -> None:
        self.work = work
        self.context = contextvars.copy_context()
        self.loop = loop
        self.future: asyncio.Future[T] = loop.create_future()

    def settle(self, result: Any, error: BaseException | None) -> None:
        """On the event loop: the thread's answer, to the request if it still waits."""
        if not self.future.done():
            if error is None:
                self.future.set_result(result)
            else:
                self.future.set_exception(error)


class Threads:
    """At most ``most`` threads, started as the work needs them and then kept, running
    the work ``run`` is given in the order given."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._jobs: SimpleQueue[_Job[Any] | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # threads free for the next job
        self._queued = 0  # jobs put while no thread was free: the next free ones take them
        self._counting = threading.Lock()

    async def run(self, work: Callable[[], T]) -> T:
        """``work()``'s result (or its exception), from one of the threads. Cancelled
        meanwhile (the server's shutdown past its grace), it raises at once, as anyio's
        trip does, and the request is answered as cut short (``guards.Guard``); the work
        runs its course, or ends with the process, and its answer is dropped."""
        job = _Job(work, asyncio.get_running_loop())
        with self._counting:
            if self._idle:
                self._idle -= 1
            elif len(self._threads) < self.most:
                self._start()
            else:
                self._queued += 1
        self._jobs.put(job)
        return await job.future

    def _start(self) -> None:
        thread = threading.Thread(
            target=self._serve, name=f"dicebound-check-{len(self._threads)}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _serve(self) -> None:
        jobs = self._jobs
        counting = self._counting
        while True:
            job = jobs.get()
            if job is None:
                return
            try:
                result = job.context.run(job.work)
            except BaseException as exc:  # handed to the waiting request, raised there
                _answer(job, None, exc)
            else:
                _answer(job, result, None)
            del job  # holds neither the work nor its answer while the thread waits
            with counting:
                if self._queued:
                    self._queued -= 1
                else:
                    self._idle += 1

    def stop(self) -> None:
        """End every thread once it has finished its work (the app's shutdown); work
        run later starts new ones."""
        with self._counting:
            for _ in self._threads:
                self._jobs.put(None)
            self._threads = []
            self._idle = self._queued = 0


def _answer(job: _Job[Any], result: Any, error: BaseException | None) -> None:
    """From the thread: hand the answer to the event loop, unless it has closed."""
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no one waits
        job.loop.call_soon_threadsafe(job.settle, result, error)
