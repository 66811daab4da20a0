"""Build-once values that two threads may ask for at the same time.

`functools.cache` lets two first callers both run the builder: the server's warm-up thread and
a first turn would each load spaCy (or Duckling, or the language detector) and hold two copies.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def once(build: Callable[[], T]) -> Callable[[], T]:
    """`build()` runs at most once per process; every caller gets its result.

    A builder that raises is run again by the next caller (a missing model may be installed).
    """
    lock = threading.Lock()
    done: list[T] = []

    @functools.wraps(build)
    def get() -> T:
        if not done:
            with lock:
                if not done:
                    done.append(build())
        return done[0]

    return get
