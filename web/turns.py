"""Turns run in the background: POST starts one, its progress events are kept and streamed.

Each turn is checkpointed in memory/ as it goes (every trace event, then the answer), so a
trace stays viewable after the page reloads or the server restarts. The session's entity map
is loaded before and saved after every turn, so <PERSON_1> stays the same person across turns.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from agent.assistant import Assistant, Turn
from agent.bundle import TurnBundle
from agent.errors import AgentError, InputError
from agent.session import answer_in_session, close_turn, open_turn
from memory.errors import StoreError
from memory.health import StoreMonitor
from memory.paths import private_dir, private_file
from memory.store import MemoryStore
from privacy import EntityMap, PrivacyError
from tools.errors import ToolError
from web.answer import answer_view
from web.db import open_store
from web.generation import BusyError, GenerationQueue, LeftQueueError
from web.warmup import Warmup

log = logging.getLogger(__name__)

KEEP_FINISHED = 50  # finished turns kept in memory for their streams; older ones replay from disk
BUG_MESSAGE = "Something went wrong inside Veil; nothing was changed."
CRASH_MESSAGE = (
    "A part of Veil that reads text (a native library) crashed on this input, so the turn "
    "stopped; nothing was changed. Remove unusual characters from the request or thread and "
    "try again."
)
STOPPED_MESSAGE = "You stopped this turn before Veil saved anything; nothing was added."
# Exits that must keep going up once the turn is marked: the process is stopping.
FATAL = (KeyboardInterrupt, SystemExit)
T = TypeVar("T")


class StopError(Exception):
    """The user pressed Stop, and the turn had not begun to write: it ends here, clean."""


class CrashError(Exception):
    """A BaseException that is not an Exception (pyo3's PanicException from Duckling's Rust
    code) came out of a turn: `except Exception` would let it kill the thread silently."""


def guarded(work: Callable[[], T]) -> T:
    """Run `work`; a native library's panic becomes a CrashError, an exit stays an exit."""
    try:
        return work()
    except Exception:
        raise
    except FATAL:
        raise
    except BaseException as error:
        log.error("a native library crashed: %s", type(error).__name__)
        raise CrashError(CRASH_MESSAGE) from error


@dataclass
class LiveTurn:
    """A turn this process is running or ran: its events so far and, at the end, its outcome."""

    id: int
    session_id: str
    started: float = field(default_factory=time.monotonic)
    events: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)
    stop: threading.Event = field(default_factory=threading.Event)
    writing: bool = False  # a write step began: Stop is too late, the turn runs to its end

    def request_stop(self) -> bool:
        """Ask the turn to end at its next stage; False when it is writing or has ended."""
        with self.changed:
            if self.writing or self.outcome is not None:
                return False
            self.stop.set()
            return True

    def emit(self, event: dict[str, Any]) -> dict[str, Any]:
        """Add one trace event (numbered, timed) and wake the streams."""
        with self.changed:
            event = {**event, "seq": len(self.events), "ms": self._ms()}
            self.events.append(event)
            self.changed.notify_all()
        return event

    def finish(self, outcome: dict[str, Any]) -> None:
        """Record the answer (or error) and wake the streams for the last time."""
        with self.changed:
            self.outcome = outcome
            self.changed.notify_all()

    def wait(self, seen: int, timeout: float) -> tuple[list[dict[str, Any]], bool]:
        """Events after the first `seen`, waiting up to `timeout` for one; and whether done."""
        with self.changed:
            if len(self.events) <= seen and self.outcome is None:
                self.changed.wait(timeout)
            return self.events[seen:], self.outcome is not None

    def _ms(self) -> int:
        return round((time.monotonic() - self.started) * 1000)


class TurnRunner:
    """Starts turns on their own threads; the generation queue lets one generate at a time."""

    def __init__(
        self,
        assistant: Assistant,
        data_dir: str | Path,
        queue: GenerationQueue,
        warmup: Warmup | None = None,
        *,
        store: StoreMonitor | None = None,
    ) -> None:
        self.assistant = assistant
        self.store = store  # its rolling backup is taken after every finished turn
        self.data_dir = Path(data_dir)
        self.queue = queue
        self.warmup = warmup
        self._live: dict[int, LiveTurn] = {}
        self._lock = threading.Lock()

    def get(self, turn_id: int) -> LiveTurn | None:
        """The live record of a turn this process started, if any."""
        with self._lock:
            return self._live.get(turn_id)

    def start(self, store: MemoryStore, turn: Turn) -> LiveTurn:
        """Open the turn in memory/ and run it on a thread of its own."""
        if turn.session is None:
            raise InputError("a turn needs a session")
        try:
            turn_id = open_turn(store, turn)
        except BaseException:  # never leave a turn `running` that no thread will finish
            if turn.id is not None:
                self._end(store, turn.id, {"error": BUG_MESSAGE, "status": 500}, "failed")
            raise
        live = LiveTurn(turn_id, turn.session)
        with self._lock:
            finished = [i for i, t in self._live.items() if t.outcome is not None]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._live[old]  # memory/ still has them; only the live copy goes
            self._live[turn_id] = live
        threading.Thread(target=self._run, args=(live, turn), daemon=True).start()
        return live

    def _run(self, live: LiveTurn, turn: Turn) -> None:
        """The turn's thread: whatever happens, the turn ends failed, done or interrupted."""
        outcome: dict[str, Any] = {"error": BUG_MESSAGE, "status": 500}
        status, fatal = "failed", None
        store: MemoryStore | None = None
        try:
            store = open_store(self.data_dir)
            outcome = self._answer(live, turn, store)
            status = "done"
        except (StopError, LeftQueueError):
            outcome = {"error": STOPPED_MESSAGE, "status": 409, "stopped": True}
        except BusyError as error:
            outcome = {"error": str(error), "status": 503}
        except InputError as error:
            outcome = {"error": str(error), "status": 400}
        except (AgentError, ToolError, PrivacyError, StoreError) as error:
            outcome = {"error": str(error), "status": 422}
        except Exception:  # a bug of ours: logged in full, the page gets no stack trace
            log.exception("turn %d failed", live.id)
        except FATAL as error:  # the process is stopping: the turn can be re-run later
            outcome = {"error": "Veil stopped during this turn; run it again.", "status": 503}
            status, fatal = "interrupted", error
        except BaseException as error:  # a native panic (pyo3's PanicException) is no Exception
            log.error("turn %d: a native library crashed (%s)", live.id, type(error).__name__)
            outcome = {"error": CRASH_MESSAGE, "status": 500}
        try:
            self._end(store, live.id, outcome, status)
        finally:
            if store is not None:
                store.db.close()
            live.finish(outcome)
        if self.store is not None and fatal is None:
            self.store.backup()  # after the turn is stored: a damaged file loses at most it
        if fatal is not None:
            raise fatal

    def _answer(self, live: LiveTurn, turn: Turn, store: MemoryStore) -> dict[str, Any]:
        """Run the turn and store its answer; the outcome the page shows."""
        entity_map = EntityMap()

        def emit(event: dict[str, Any]) -> None:
            # Stop is honoured at each stage until a write step is about to run: the turn then
            # ends before any event, file or draft exists (the wait in line ends at once too).
            self._check_stop(live, event)
            shown = live.emit(
                {k: entity_map.restore(v) if isinstance(v, str) else v for k, v in event.items()}
            )
            try:
                store.checkpoint(live.id, str(shown.get("stage", "event")), shown)
            except (StoreError, ValueError, sqlite3.Error) as error:  # the live trace has it
                log.warning("trace event of turn %d not stored: %s", live.id, error)

        emit({"stage": "queued", "status": "waiting"})
        if self.warmup is not None and not self.warmup.ready:
            emit({"stage": "warming", "status": "waiting"})  # queued, never refused
            self.warmup.wait()
        with self.queue.slot(
            lambda place: emit({"stage": "queue", "position": place}), stop=live.stop
        ):
            entity_map = store.load_map(live.session_id)  # the trace restores names with it
            audit_from = self._audit_count(live.session_id)
            bundle = answer_in_session(
                self.assistant, store, turn, progress=emit, entity_map=entity_map
            )

        span = [audit_from, self._audit_count(live.session_id)]
        outcome = turn_outcome(bundle, turn, store, self.data_dir, audit=span)
        close_turn(store, turn, bundle)
        return outcome

    def _check_stop(self, live: LiveTurn, event: dict[str, Any]) -> None:
        """Raise StopError if Stop was pressed; mark the turn writing before a write step."""
        if event.get("stage") == "done":
            return  # the work is over (a direct answer may have kept a fact): let it show
        with live.changed:
            writes = event.get("stage") in ("step", "import") and event.get("status") == "running"
            if writes and event.get("stage") == "step":
                tool = self.assistant.registry.get(str(event.get("tool")))
                writes = tool is None or tool.writes  # a follow-up's move or cancel writes
            if live.stop.is_set() and not live.writing:
                raise StopError
            live.writing = live.writing or writes

    def _end(
        self, store: MemoryStore | None, turn_id: int, outcome: dict[str, Any], status: str
    ) -> None:
        """Store how the turn ended; if that fails, at least its status on a fresh connection."""
        if store is not None:
            try:
                store.finish_turn(turn_id, outcome, status=status)
                return
            except (StoreError, ValueError, sqlite3.Error) as error:
                log.warning("turn %d could not be saved: %s", turn_id, error)
        try:  # an outcome the store refuses (a placeholder) must still not leave it `running`
            fresh = open_store(self.data_dir)
            try:
                fresh.finish_turn(turn_id, {"error": BUG_MESSAGE, "status": 500}, status="failed")
            finally:
                fresh.db.close()
        except (StoreError, ValueError, sqlite3.Error) as error:
            log.error("turn %d is left running in the store: %s", turn_id, error)

    def _audit_count(self, session_id: str) -> int:
        audit = self.assistant.gateway.audit
        return sum(1 for _ in audit.read(session=session_id)) if audit else 0


def turn_outcome(
    bundle: TurnBundle, turn: Turn, store: MemoryStore, data_dir: Path, audit: list[int]
) -> dict[str, Any]:
    """What a finished turn stores for the page: the answer view with its files registered
    under ids, the span of its prompts in the audit log, and the zone its times are in."""

    def register(path: str, kind: str, label: str) -> str:
        # The tools write with the umask's modes: the file, its folder and files/ go 0600/0700.
        for folder in (Path(path).parent, data_dir / "files"):
            if folder.is_dir():
                private_dir(folder)
        private_file(path)
        return store.register_file(str(turn.session), path, kind, label).id

    answer = answer_view(
        bundle.to_dict(), register=register, all_url=f"/api/turns/{turn.id}/calendar.ics"
    )
    return {"answer": answer, "audit": audit, "tz": turn.tz}


def model_saw(assistant: Assistant, session_id: str, span: list[int]) -> list[dict[str, Any]]:
    """The redacted prompts of one turn: the session's audit records inside its span."""
    audit = assistant.gateway.audit
    if audit is None or len(span) != 2:
        return []
    records = list(audit.read(session=session_id))[span[0] : span[1]]
    return [
        {"purpose": r.get("purpose", ""), "prompt": r.get("prompt", ""), "time": r.get("time")}
        for r in records
    ]
