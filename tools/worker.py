"""Worker processes with a wall-clock and a memory limit, for parsers of untrusted input.

Veil's own budgets (the .ics importer's CPU meter, recurrence's step count) only cover Veil's
own loops. A third-party parser can spin or grow inside one call where no budget is checked:
a 444-byte .ics whose VTIMEZONE repeats every second from 1601 ran inside the time-zone
library for minutes and grew to 3.2 GB, and Duckling held the process for over a minute on
one long line (issue 40). Python cannot interrupt a native call, so such work runs in a worker
process that can be killed:

- each worker caps its own address space (RLIMIT_AS) at what it holds once warm plus
  `memory_mb`, so a runaway allocation fails there, not in the server;
- the caller waits at most `seconds` for the answer; past that the worker is killed (SIGKILL)
  and a fresh one takes its place on the next job;
- the server's threads only wait on a pipe, so `/healthz` and other requests keep answering.

Workers start with the "spawn" method: a fork of the server would inherit its threads, its
loaded model and its address space (which the limit would then count).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable, Iterable
from importlib import import_module
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from tools.errors import ToolError

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_SECONDS = 4.0
DEFAULT_MEMORY_MB = 400


class WorkerLimitError(ToolError):
    """A job ran past its time or memory limit and its worker was stopped."""


class WorkerCrashError(ToolError):
    """A worker died on a job (a native crash) without an answer."""


def _address_space() -> int:
    """This process's virtual size in bytes (what RLIMIT_AS counts)."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _serve(conn: Connection, preload: tuple[str, ...], warm: str | None, memory_mb: int) -> None:
    """A worker's loop: import and warm up, cap the address space, then answer jobs."""
    for name in preload:
        import_module(name)
    if warm:
        module, _, function = warm.rpartition(".")
        getattr(import_module(module), function)()
    if memory_mb > 0:
        limit = _address_space() + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        function, args, kwargs = job
        try:
            conn.send(("ok", function(*args, **kwargs)))
        except MemoryError:
            conn.send(("memory", None))
        except Exception as error:  # handed back to the caller, raised there
            try:
                conn.send(("error", error))
            except Exception:  # an exception that cannot be pickled: its words then
                conn.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, preload: tuple[str, ...], warm: str | None, memory_mb: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, preload, warm, memory_mb), daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self, seconds: float) -> bool:
        """Whether the worker finished starting within `seconds`."""
        if self.ready:
            return True
        if self.conn.poll(seconds):
            try:
                self.ready = self.conn.recv()[0] == "ready"
            except (EOFError, OSError):
                return False
        return self.ready

    def stop(self) -> None:
        """Kill the process (a native call ignores anything gentler) and reap it."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class WorkerPool:
    """A few warm worker processes; `run` sends one job to an idle one, within limits.

    Args:
        size: At most this many jobs run at once; more wait for a free worker.
        preload: Modules each worker imports before its first job.
        warm: "module.function" each worker calls once at start (loads a parser's data).
        memory_mb: Address space a worker may add beyond what it holds once warm.
        start_seconds: How long a worker may take to start and warm up.
    """

    def __init__(
        self,
        *,
        size: int = 2,
        preload: Iterable[str] = (),
        warm: str | None = None,
        memory_mb: int = DEFAULT_MEMORY_MB,
        start_seconds: float = 60.0,
    ) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = size
        self.preload = tuple(preload)
        self.warm = warm
        self.memory_mb = memory_mb
        self.start_seconds = start_seconds
        self._idle: list[_Worker] = []
        self._started = 0
        self._lock = threading.Condition()
        self._closed = False

    def _take(self) -> _Worker:
        with self._lock:
            while not self._idle and self._started >= self.size:
                self._lock.wait()
            if self._closed:
                raise WorkerCrashError("the worker pool is closed")
            if self._idle:
                return self._idle.pop()
            self._started += 1
        try:
            return _Worker(self.preload, self.warm, self.memory_mb)
        except BaseException:
            self._lost()
            raise

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)
            self._lock.notify()

    def _lost(self) -> None:
        with self._lock:
            self._started -= 1
            self._lock.notify()

    def start(self) -> None:
        """Start one worker now (in the caller's thread) so the first job finds it warm."""
        worker = self._take()
        if worker.wait_ready(self.start_seconds):
            self._give_back(worker)
        else:
            worker.stop()
            self._lost()

    def run(
        self,
        function: Callable[..., T],
        *args: Any,
        seconds: float = DEFAULT_SECONDS,
        what: str = "this input",
        **kwargs: Any,
    ) -> T:
        """`function(*args, **kwargs)` in a worker; its result or its exception.

        `function` must be importable by name (a module-level function). `what` names the
        input in the error message ("this .ics file").

        Raises:
            WorkerLimitError: The job ran past `seconds` or past the memory limit.
            WorkerCrashError: The worker died without an answer.
        """
        if seconds <= 0:  # no time allows no job (a tiny one could answer before a poll(0))
            raise WorkerLimitError(
                f"reading {what} took longer than {seconds:g} s, so Veil stopped it; "
                "nothing was changed"
            )
        worker = self._take()
        if worker.ready and not worker.process.is_alive():  # died idle (the OOM killer)
            self._discard(worker)
            worker = self._take()
        try:
            if not worker.wait_ready(self.start_seconds):
                raise WorkerCrashError("a parser worker could not start; see the server log")
            started = time.monotonic()
            worker.conn.send((function, args, kwargs))
            if not worker.conn.poll(seconds):
                log.warning("a %s job passed %g s; its worker is stopped", what, seconds)
                raise WorkerLimitError(
                    f"reading {what} took longer than {seconds:g} s, so Veil stopped it; "
                    "nothing was changed"
                )
            status, value = worker.conn.recv()
        except WorkerLimitError:
            self._discard(worker)
            raise
        except (EOFError, OSError, BrokenPipeError):
            self._discard(worker)
            raise self._died(worker, what) from None
        except BaseException:
            self._discard(worker)
            raise
        log.debug("worker job done in %.3f s", time.monotonic() - started)
        if status == "memory":
            self._discard(worker)  # a MemoryError can leave a library half-initialised
            raise WorkerLimitError(
                f"reading {what} needed more than {self.memory_mb} MB of memory, so Veil "
                "stopped it; nothing was changed"
            )
        self._give_back(worker)
        if status == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def _died(self, worker: _Worker, what: str) -> ToolError:
        worker.process.join(timeout=1)
        code = worker.process.exitcode
        # A runaway native allocation under RLIMIT_AS ends in an abort (GHC: "out of memory").
        if code is not None and code != 0:
            log.warning("a parser worker died on %s (exit code %s)", what, code)
            return WorkerLimitError(
                f"reading {what} needed more than {self.memory_mb} MB of memory or crashed a "
                "parser, so Veil stopped it; nothing was changed"
            )
        return WorkerCrashError(f"a parser worker stopped while reading {what}")

    def _discard(self, worker: _Worker) -> None:
        worker.stop()
        self._lost()

    @property
    def closed(self) -> bool:
        """Whether `close` was called (a closed pool takes no more jobs)."""
        return self._closed

    def close(self) -> None:
        """Stop every idle worker; jobs still running end with their callers."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._started -= len(idle)
            self._lock.notify_all()
        for worker in idle:
            worker.stop()


# The pool the parsers of untrusted input use in this process (None: they run in-process, as in
# a worker itself, the library and most tests). The web app and the CLI set it at start-up.
_shared: WorkerPool | None = None


def isolate(pool: WorkerPool | None) -> WorkerPool | None:
    """Make `pool` the one parsers use (None: run in-process); returns the previous one."""
    global _shared
    previous, _shared = _shared, pool
    return previous


def shared_pool() -> WorkerPool | None:
    """The pool set by `isolate`, if any."""
    return _shared
