"""Serve first, load second: the page answers at once while a thread loads the heavy parts.

spaCy, Duckling, the language detector and the model take seconds to load on two cores. The
server used to load them before its first page; now it starts answering and loads them on a
thread. A turn sent before they are ready waits for them (its trace says so) and is never
refused; a part that fails to load is reported on the page and in /healthz, and the turn that
needs it fails with the same clear message.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from agent.assistant import Assistant

log = logging.getLogger(__name__)


class Warmup:
    """The state of the background load: its stage, whether it is done, and any error."""

    def __init__(self, assistant: Assistant, *, load_model: bool = True) -> None:
        self.assistant = assistant
        self.load_model = load_model
        self._done = threading.Event()
        self._stage = "starting"
        self._error: str | None = None
        self._started = time.monotonic()
        self._seconds: float | None = None

    def start(self) -> None:
        threading.Thread(target=self._run, name="veil-warmup", daemon=True).start()

    def _run(self) -> None:
        try:
            self.assistant.warm_up(self._on_stage, model=self.load_model)
        except Exception as error:  # reported on the page; the turn that needs it says why
            log.error("warm-up failed at %s: %s", self._stage, error)
            self._error = str(error) or type(error).__name__
        except BaseException as error:  # a native panic must not leave turns waiting forever
            log.error("warm-up crashed at %s: %s", self._stage, type(error).__name__)
            self._error = f"a native library crashed while loading ({type(error).__name__})"
        finally:
            self._seconds = time.monotonic() - self._started
            self._done.set()

    def _on_stage(self, event: dict[str, Any]) -> None:
        self._stage = str(event.get("stage", self._stage))

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the load ended (ready or failed); False when `timeout` passed first."""
        return self._done.wait(timeout)

    def status(self) -> dict[str, Any]:
        """For /healthz and the page's "getting ready" note."""
        return {
            "ready": self.ready,
            "stage": "failed" if self._error else self._stage,
            "error": self._error,
            "seconds": None if self._seconds is None else round(self._seconds, 2),
        }
