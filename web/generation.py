"""One generation at a time: a first-come queue with visible positions and a wait limit.

A 135M model on two cores is slow enough that two turns at once would each take twice as long
and fight over memory; queued turns instead see their place in line, and give up with a clear
message when the wait passes the limit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class BusyError(Exception):
    """The wait for the model passed the limit."""


class LeftQueueError(Exception):
    """The turn was stopped while it waited in line."""


class GenerationQueue:
    """A fair lock: tickets run in arrival order, one at a time."""

    def __init__(self, wait_limit: float) -> None:
        self.wait_limit = wait_limit
        self._changed = threading.Condition()
        self._waiting: list[object] = []
        self._running: object | None = None

    @contextmanager
    def slot(
        self, on_wait: Callable[[int], None] | None = None, stop: threading.Event | None = None
    ) -> Iterator[None]:
        """Hold the generation slot; `on_wait(position)` hears each change while queued, and a
        set `stop` leaves the line (LeftQueueError) within a quarter of a second."""
        ticket = object()
        deadline = time.monotonic() + self.wait_limit
        with self._changed:
            self._waiting.append(ticket)
            told = -1
            while self._running is not None or self._waiting[0] is not ticket:
                place = self._waiting.index(ticket) + 1
                if on_wait and place != told:
                    try:
                        on_wait(place)
                    except BaseException:  # a stopped turn's listener: leave the line first
                        self._waiting.remove(ticket)
                        self._changed.notify_all()
                        raise
                    told = place
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._waiting.remove(ticket)
                    self._changed.notify_all()
                    raise BusyError(
                        f"Veil is busy with other requests and this one waited more than "
                        f"{self.wait_limit:.0f} s; try again in a moment."
                    )
                if stop is not None and stop.is_set():
                    self._waiting.remove(ticket)
                    self._changed.notify_all()
                    raise LeftQueueError("stopped while waiting in line")
                self._changed.wait(remaining if stop is None else min(remaining, 0.25))
            self._waiting.pop(0)
            self._running = ticket
        try:
            yield
        finally:
            with self._changed:
                self._running = None
                self._changed.notify_all()
