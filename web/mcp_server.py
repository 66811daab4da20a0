"""Veil as a Model Context Protocol server on stdio: other agents call what a turn does.

`run.py mcp` builds the assistant once and answers MCP requests until its client closes stdin.
Every tool is a front-end over an existing entry point, never a second copy of its logic:

    extract_events, draft_reply  -> Assistant.ask, one whole turn: redaction before any model,
                                    the scheduling gate, the integrity check on the reply
    check_conflicts, find_free_slots, make_ics, the calendar resource
                                 -> Assistant.call_tool (agent/direct_call.py): the registry's
                                    calendar tools; make_ics is create_event, gated by the times
                                    the given thread states
    redact                       -> privacy.redactor.Redactor, as `run.py redact --json`

Bad input becomes an MCP tool error (isError) with one clear line, and the server goes on
serving: wrong types and missing arguments are refused by the SDK against each tool's schema,
Veil's own refusals (too long, unknown zone, a start nobody stated) are raised as ToolError
here, and a crash inside a native library is caught like run.py catches it.
"""

from __future__ import annotations

import email
import json
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from email import policy
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as McpToolError
from pydantic import Field

from agent.assistant import MAX_INPUT_CHARS, Assistant, Turn
from agent.bundle import TurnBundle
from agent.errors import AgentError
from lang.text import clean_text
from memory.errors import StoreError
from privacy.errors import PrivacyError
from privacy.redactor import Redactor
from tools.calendar.slots import MEAL_TIMES
from tools.calendar.tools import MAX_DAYS
from tools.errors import ToolError
from tools.exports import thread_text

logger = logging.getLogger(__name__)

T = TypeVar("T")
# How far ahead the calendar resource looks unless its URI names the days.
COMING_DAYS = 14
INSTRUCTIONS = (
    "Veil reads message threads offline and decides, in code, what may become a calendar "
    "event: only a start a person in the thread stated and agreed is created; vague times are "
    "proposed with free slots and a question. Pass the thread as plain text."
)

# Argument types: the SDK turns these into each tool's JSON schema and refuses what does not fit.
Thread = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_INPUT_CHARS,
        description="the pasted message thread, chat export or e-mail, as plain text (a "
        "Telegram, Signal or Slack JSON export pasted whole is read as its messages)",
    ),
]
# Calling extract_events is itself the ask to add what the thread agreed; a thread pasted on the
# page with no request only proposes (issue 40), since nobody asked for an event there.
EXTRACT_REQUEST = "add this to my calendar"
Request = Annotated[
    str,
    Field(max_length=2_000, description="what the user asked, e.g. 'add the lunch' (optional)"),
]
When = Annotated[
    str,
    Field(
        max_length=40,
        description="ISO 8601 local time, e.g. 2026-11-26T13:00 (no offset: the user's zone)",
    ),
]
Meal = Literal[tuple(MEAL_TIMES)]  # type: ignore[valid-type]


@dataclass(frozen=True)
class McpConfig:
    """What `run.py mcp` parsed: the user's zone, an optional fixed clock and a calendar file."""

    tz: str
    now: datetime | None = None  # a fixed "now" for every call (tests, benchmarks)
    calendar: Path | None = None  # an .ics imported once at start-up


def _veil_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean "this input cannot be used": each package's base, and bad values."""
    return (AgentError, ToolError, PrivacyError, StoreError, ValueError, UnicodeError, OSError)


class MainThreadWorker:
    """Runs Veil's work on the process's main thread, one call at a time.

    Measured here (2 cores, back to back): the assistant's warm-up took 7.8 s on the main
    thread and 88.6 s on another thread, and a session's first embedded extract_events took
    54-150 s from the SDK's worker threads against 8 s from the main thread. Why llama.cpp is
    this much slower off the main thread here is not established (the page loads its model on
    a thread in 3.6 s, bench/results/serve.md), so the server simply avoids it: the MCP event
    loop runs on a thread of its own, and every call is handed to the main thread.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], Future[Any]]] = queue.Queue()

    def __call__(self, work: Callable[[], T]) -> T:
        """Queue `work` for the main thread and wait for its result (or its exception)."""
        future: Future[T] = Future()
        self._jobs.put((work, future))
        return future.result()

    def serve_until(self, done: threading.Event) -> None:
        """On the main thread: run queued work until `done` is set and the queue is empty."""
        while not (done.is_set() and self._jobs.empty()):
            try:
                work, future = self._jobs.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                future.set_result(work())
            except BaseException as error:  # the caller's thread re-raises it and reports it
                future.set_exception(error)
                if isinstance(error, KeyboardInterrupt | SystemExit):
                    raise  # Ctrl-C stops the server, not only the call it interrupted


_INLINE_LOCK = threading.Lock()


def _inline(work: Callable[[], T]) -> T:
    """Run `work` on the calling thread, one call at a time (a server built in-process)."""
    with _INLINE_LOCK:
        return work()


Runner = Callable[[Callable[[], Any]], Any]


def _run(work: Callable[[], T], runner: Runner) -> T:
    """Run one call through `runner` and turn Veil's refusals into MCP tool errors."""
    try:
        return runner(work)  # type: ignore[no-any-return]
    except McpToolError:
        raise
    except _veil_errors() as error:
        raise McpToolError(str(error)) from error
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except Exception:
        raise  # a bug of ours: the SDK logs the traceback and answers a generic error
    except BaseException as error:  # a native panic (pyo3's PanicException) is no Exception
        logger.debug("native crash", exc_info=True)
        raise McpToolError(
            f"a native library crashed on this input ({type(error).__name__}); nothing was "
            "saved. Remove unusual characters and try again."
        ) from None


def turn_result(bundle: TurnBundle) -> dict[str, Any]:
    """A turn's bundle for an MCP client: events with their status, and why.

    `reasons` lists the steps that were blocked or failed with the detail the gate or the tool
    gave ("'thu at 8' could mean 08:00 or 20:00"); `question` is what Veil would ask the user.
    """
    answer = bundle.to_dict()
    answer["reasons"] = [
        f"{step.tool} {step.status}: {step.detail}" for step in bundle.steps if step.status != "ok"
    ]
    return answer


def read_draft(bundle: TurnBundle) -> dict[str, Any] | None:
    """The turn's e-mail draft (To, Subject, body) read back from its .eml; None without one."""
    path = next((f.path for f in bundle.files if f.type == "eml" and f.path), None)
    if path is None:
        return None
    message = email.message_from_bytes(Path(path).read_bytes(), policy=policy.default)
    body = message.get_body(preferencelist=("plain",))
    return {
        "to": str(message.get("To", "")),
        "subject": str(message.get("Subject", "")),
        "body": body.get_content().strip() if body is not None else "",  # type: ignore[union-attr]
        "path": path,
    }


def build_server(assistant: Assistant, config: McpConfig, runner: Runner = _inline) -> MCPServer:
    """The MCP server over `assistant`: six tools and the calendar's coming events.

    `runner` runs each call's work; `serve_stdio` passes the main-thread worker.
    """
    ZoneInfo(config.tz)  # an unknown zone fails here, at start-up, not at the first call
    server: MCPServer = MCPServer("veil", instructions=INSTRUCTIONS, log_level="WARNING")
    lock = runner

    def clock() -> datetime:
        return config.now or datetime.now(ZoneInfo(config.tz))

    def turn(thread: str, request: str) -> TurnBundle:
        # a Telegram, Signal or Slack JSON export pasted whole reads as its messages
        thread, _export = thread_text(clean_text(thread), tz=config.tz)
        return assistant.ask(Turn(request=request, thread=thread, now=clock(), tz=config.tz))

    def calendar_tool(name: str, args: dict[str, Any], thread: str = "") -> dict[str, Any]:
        """Run a calendar tool; a failure (not a gate block) is the caller's tool error."""
        result = assistant.call_tool(name, args, now=clock(), tz=config.tz, thread=thread)
        if not result.ok and not result.blocked:
            raise McpToolError(result.error or f"{name} failed")
        return {k: v for k, v in result.data.items() if not k.startswith("_")}

    @server.tool()
    def extract_events(thread: Thread, request: Request = EXTRACT_REQUEST) -> dict[str, Any]:
        """Read a thread and decide what becomes an event; runs one whole Veil turn.

        Each event has a status: "created" (a start stated and agreed in the thread: stored
        in Veil's calendar, .ics written), "proposed" (a vague time: free slots offered),
        or "blocked" (a time the gate refused). `reasons` and `question` say why.
        """
        return _run(lambda: turn_result(turn(thread, request or EXTRACT_REQUEST)), lock)

    @server.tool()
    def check_conflicts(start: When, end: When | None = None) -> dict[str, Any]:
        """Calendar events that overlap, touch or sit tight against a time (end: +1 hour)."""
        args = {"start": start, **({"end": end} if end else {})}
        return _run(lambda: calendar_tool("check_conflicts", args), lock)

    @server.tool()
    def find_free_slots(
        duration_minutes: Annotated[int, Field(ge=5, le=720)] = 60,
        days: Annotated[int, Field(ge=1, le=MAX_DAYS)] = 7,
        after: When | None = None,
        meal: Meal | None = None,
        day: Annotated[str | None, Field(description="YYYY-MM-DD, with meal")] = None,
        limit: Annotated[int, Field(ge=1, le=10)] = 5,
    ) -> dict[str, Any]:
        """Free times in working hours (or meal times) in the calendar; never creates anything."""
        args: dict[str, Any] = {"days": days, "limit": limit}
        if meal:
            args["meal"] = meal
            if day:
                args["day"] = day
        else:
            args["duration_minutes"] = duration_minutes
        if after:
            args["after"] = after
        return _run(lambda: calendar_tool("find_free_slots", args), lock)

    @server.tool()
    def make_ics(
        title: Annotated[str, Field(min_length=1, max_length=120)],
        start: When,
        thread: Thread,
        end: When | None = None,
        all_day: bool = False,
        location: Annotated[str, Field(max_length=200)] = "",
        attendees: Annotated[list[str], Field(max_length=20)] = [],  # noqa: B006 (pydantic copies)
    ) -> dict[str, Any]:
        """Write an .ics for an event, only if `thread` states its start (the scheduling gate).

        Returns status "created" with the file and its text, "duplicate" when the calendar
        already holds it, or "blocked" with the gate's reason: a made-up time is never written.
        """
        args: dict[str, Any] = {
            "title": clean_text(title),
            "start": start,
            "all_day": all_day,
            "location": clean_text(location),
            "attendees": [clean_text(a) for a in attendees],
        }
        if end:
            args["end"] = end

        def work() -> dict[str, Any]:
            result = assistant.call_tool(
                "create_event", args, now=clock(), tz=config.tz, thread=thread
            )
            if result.blocked:
                return {"status": "blocked", "reason": result.error, "start": start}
            if not result.ok:
                raise McpToolError(result.error or "make_ics failed")
            if result.data.get("duplicate"):
                return {"status": "duplicate", **result.data}
            path = result.files[0].path if result.files else None
            ics = Path(path).read_text(encoding="utf-8") if path else ""
            return {"status": "created", **result.data, "path": path, "ics": ics}

        return _run(work, lock)

    @server.tool()
    def draft_reply(thread: Thread, request: Request = "draft a reply") -> dict[str, Any]:
        """Draft an e-mail reply to a thread (.eml and mailto link); nothing is ever sent.

        Runs one whole turn, so a plan the thread fixes is also handled as extract_events
        would; `draft` holds the recipients, subject and body.
        """

        def work() -> dict[str, Any]:
            bundle = turn(thread, request or "draft a reply")
            return {"draft": read_draft(bundle), **turn_result(bundle)}

        return _run(work, lock)

    @server.tool()
    def redact(text: Thread) -> dict[str, Any]:
        """Replace names, phones, e-mails and addresses with placeholders (Veil's privacy layer).

        Offsets are into the text after control characters and lone surrogates are removed.
        """
        return _run(lambda: Redactor().redact(clean_text(text)).to_dict(), lock)

    def coming(days: int) -> str:
        events = _run(lambda: calendar_tool("list_events", {"days": days}), lock)
        return json.dumps({"days": days, "tz": config.tz, **events}, ensure_ascii=False)

    @server.resource(
        "veil://calendar/coming",
        name="coming_events",
        description=f"The calendar's events in the next {COMING_DAYS} days (at most 50).",
        mime_type="application/json",
    )
    def coming_events() -> str:
        return coming(COMING_DAYS)

    @server.resource(
        "veil://calendar/coming/{days}",
        name="coming_events_in_days",
        description=f"The calendar's events in the next N days (1 to {MAX_DAYS}, at most 50).",
        mime_type="application/json",
    )
    def coming_events_in(days: str) -> str:
        if not days.isdigit() or not 1 <= int(days) <= MAX_DAYS:
            raise ValueError(f"days must be a whole number from 1 to {MAX_DAYS}, got {days!r}")
        return coming(int(days))

    return server


def serve_stdio(assistant: Assistant, config: McpConfig) -> None:
    """Import the calendar file, if any, then answer MCP requests on stdin/stdout until EOF.

    The event loop runs on a thread; the main thread first loads spaCy, Duckling and the
    model (Assistant.warm_up, while the client initializes, as the page does), then runs each
    call. A load that fails is logged; the call that needs the part reports it again.
    """
    if config.calendar is not None:
        from lang.text import clean_bytes

        now = config.now or datetime.now(ZoneInfo(config.tz))
        said = assistant.import_calendar(
            clean_bytes(config.calendar.read_bytes()),
            name=config.calendar.name,
            now=now,
            tz=config.tz,
        )
        logger.info("%s", said)
    worker = MainThreadWorker()
    server = build_server(assistant, config, worker)
    done = threading.Event()

    def serve() -> None:
        try:
            server.run("stdio")
        finally:
            done.set()

    threading.Thread(target=serve, name="veil-mcp-loop", daemon=True).start()
    try:
        assistant.warm_up()
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as error:
        logger.warning("warm-up failed: %s", error)
    except BaseException as error:  # a native panic: the call that needs the part says so
        logger.warning("warm-up crashed: %s", type(error).__name__)
    worker.serve_until(done)
