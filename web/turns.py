"""Turns run in the background: POST starts one, its progress events are kept and streamed.

Each turn is checkpointed in memory/ as it goes (every trace event, then the answer), so a
trace stays viewable after the page reloads or the server restarts. The session's entity map
is loaded before and saved after every turn, so <PERSON_1> stays the same person across turns.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.assistant import Assistant, Turn
from agent.errors import AgentError, InputError
from memory.errors import StoreError
from memory.store import MemoryStore
from privacy import EntityMap, PrivacyError
from tools.errors import ToolError
from web.answer import answer_view
from web.db import open_store
from web.generation import BusyError, GenerationQueue

log = logging.getLogger(__name__)

KEEP_FINISHED = 50  # finished turns kept in memory for their streams; older ones replay from disk


@dataclass
class LiveTurn:
    """A turn this process is running or ran: its events so far and, at the end, its outcome."""

    id: int
    session_id: str
    started: float = field(default_factory=time.monotonic)
    events: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)

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

    def __init__(self, assistant: Assistant, data_dir: str | Path, queue: GenerationQueue) -> None:
        self.assistant = assistant
        self.data_dir = Path(data_dir)
        self.queue = queue
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
        shown = "\n\n".join(part for part in (turn.request, turn.thread) if part.strip())
        turn_id = store.start_turn(turn.session, turn.request)
        turn.id = turn_id
        store.append_message(turn.session, "user", shown, turn_id)
        live = LiveTurn(turn_id, turn.session)
        with self._lock:
            finished = [i for i, t in self._live.items() if t.outcome is not None]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._live[old]  # memory/ still has them; only the live copy goes
            self._live[turn_id] = live
        threading.Thread(target=self._run, args=(live, turn), daemon=True).start()
        return live

    def _run(self, live: LiveTurn, turn: Turn) -> None:
        store = open_store(self.data_dir)
        entity_map = EntityMap()

        def emit(event: dict[str, Any]) -> None:
            shown = live.emit(
                {k: entity_map.restore(v) if isinstance(v, str) else v for k, v in event.items()}
            )
            try:
                store.checkpoint(live.id, str(shown.get("stage", "event")), shown)
            except (StoreError, ValueError) as error:  # the live trace still has it
                log.warning("trace event of turn %d not stored: %s", live.id, error)

        try:
            emit({"stage": "queued", "status": "waiting"})
            with self.queue.slot(lambda place: emit({"stage": "queue", "position": place})):
                entity_map = store.load_map(live.session_id)
                audit_from = self._audit_count(live.session_id)
                bundle = self.assistant.ask(turn, entity_map, progress=emit)
                store.save_map(live.session_id, entity_map)
            outcome = {
                "answer": answer_view(
                    bundle.to_dict(),
                    register=lambda path, kind, label: (
                        store.register_file(live.session_id, path, kind, label).id
                    ),
                    all_url=f"/api/turns/{live.id}/calendar.ics",
                ),
                "audit": [audit_from, self._audit_count(live.session_id)],
                "tz": turn.tz,
            }
            said = "\n\n".join(x for x in (bundle.reply, bundle.question or "") if x)
            store.append_message(live.session_id, "assistant", said, live.id)
        except BusyError as error:
            outcome = {"error": str(error), "status": 503}
        except InputError as error:
            outcome = {"error": str(error), "status": 400}
        except (AgentError, ToolError, PrivacyError, StoreError) as error:
            outcome = {"error": str(error), "status": 422}
        except Exception:  # a bug of ours: logged in full, the page gets no stack trace
            log.exception("turn %d failed", live.id)
            outcome = {"error": "Something went wrong inside Veil; nothing was changed.",
                       "status": 500}  # fmt: skip
        try:
            store.finish_turn(live.id, outcome)
        except (StoreError, ValueError) as error:  # the page still gets the outcome
            log.warning("turn %d could not be saved: %s", live.id, error)
        finally:
            store.db.close()
            live.finish(outcome)

    def _audit_count(self, session_id: str) -> int:
        audit = self.assistant.gateway.audit
        return sum(1 for _ in audit.read(session=session_id)) if audit else 0


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
