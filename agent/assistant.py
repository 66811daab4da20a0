"""One turn, end to end: redact the input, ask the model through the gateway, build the bundle.

Scheduling, drafting and the planner/executor loop arrive with the agent-loop issue; until
then the bundle is honest about what this build cannot do yet and creates nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlite_utils

from agent.audit import AuditLog
from agent.backends import select_model
from agent.bundle import TurnBundle
from agent.errors import InputError
from agent.gateway import ModelGateway
from agent.intent import classify_intent
from memory.calendar import CalendarStore
from privacy import EntityMap, PrivacyGuard
from privacy.redactor import Redactor
from tools.calendar.ics import import_ics

logger = logging.getLogger(__name__)

MAX_INPUT_CHARS = 200_000
# Window of a calendar import: recent past for context, a year ahead for conflicts.
IMPORT_PAST = timedelta(days=30)
IMPORT_AHEAD = timedelta(days=365)

_CANNOT_YET = {
    "schedule": "I read this as a scheduling request. Creating calendar events is not built "
    "into this version yet, so nothing was scheduled.",
    "remind": "I read this as a reminder request. Reminders are not built into this version "
    "yet, so nothing was set.",
    "email": "I read this as an e-mail request. Drafting e-mails is not built into this "
    "version yet, so nothing was drafted or sent.",
    "question": "I read this as a question. Answering from your calendar is not built into "
    "this version yet.",
    "other": "I could not tell what you would like me to do; this version can redact text "
    "and will learn to schedule and draft replies.",
}


def parse_zone(name: str) -> ZoneInfo:
    """The user's IANA zone, or an error that says what a valid one looks like."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise InputError(
            f"unknown time zone {name!r}; use an IANA name like Europe/Berlin"
        ) from error


def local_zone_name() -> str:
    """This machine's IANA zone, read from the /etc/localtime link; UTC when it is not one."""
    link = Path("/etc/localtime")
    if link.is_symlink():
        target = str(link.resolve())
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    return "UTC"


def parse_now(text: str | None, zone: ZoneInfo) -> datetime:
    """The turn's "now": an ISO 8601 time (naive means wall time in `zone`), default the clock."""
    if not text:
        return datetime.now(zone)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as error:
        raise InputError(
            f"--now must be ISO 8601 like 2026-11-21T09:30 or 2026-11-21T09:30+01:00, got {text!r}"
        ) from error
    if not 1900 <= parsed.year <= 9000:
        raise InputError(f"--now must be a year between 1900 and 9000, got {parsed.year}")
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=zone)
    return parsed.astimezone(zone)


@dataclass
class Turn:
    """What the user gave this turn."""

    request: str
    now: datetime
    tz: str
    thread: str = ""
    session: str | None = None
    contacts: list[str] = field(default_factory=list)


class Assistant:
    """Holds the process-wide parts (model gateway) and runs turns against them."""

    def __init__(self, gateway: ModelGateway, *, data_dir: Path) -> None:
        self.gateway = gateway
        self.data_dir = data_dir

    def import_calendar(self, data: bytes, *, name: str, now: datetime, tz: str) -> str:
        """Import an .ics into the local calendar; returns one sentence saying what happened."""
        found = import_ics(
            data,
            tz=tz,
            window_start=now - IMPORT_PAST,
            window_end=now + IMPORT_AHEAD,
            source=f"import:{name}",
        )
        db = sqlite_utils.Database(self.data_dir / "veil.db")
        try:
            stored = CalendarStore(db).import_events(found.events, f"import:{name}")
        finally:
            db.close()
        refused = f", {len(found.refused)} item(s) refused" if found.refused else ""
        return f"Imported {stored.stored} event(s) from {name}{refused}."

    def ask(
        self,
        turn: Turn,
        entity_map: EntityMap | None = None,
        *,
        calendar: bytes | None = None,
        calendar_name: str = "calendar.ics",
    ) -> TurnBundle:
        """Run one turn; the returned bundle holds real names only where DESIGN.md allows."""
        if not turn.request.strip() and not turn.thread.strip():
            raise InputError("nothing to do: give a request or paste a thread")
        if len(turn.request) + len(turn.thread) > MAX_INPUT_CHARS:
            raise InputError(
                f"input too long ({len(turn.request) + len(turn.thread):,} characters; "
                f"the limit is {MAX_INPUT_CHARS:,}): paste the part of the thread that matters"
            )
        entity_map = entity_map if entity_map is not None else EntityMap()
        redactor = Redactor(entity_map=entity_map, contacts=turn.contacts)
        request = redactor.redact(turn.request).text
        thread = redactor.redact(turn.thread).text if turn.thread.strip() else ""
        guard = PrivacyGuard(entity_map, turn.contacts)
        guess = classify_intent(
            request, thread, gateway=self.gateway, guard=guard, session=turn.session
        )
        logger.info("turn intent %s by %s", guess.intent, guess.decided_by)
        reply = _CANNOT_YET[guess.intent]
        if calendar is not None:
            imported = self.import_calendar(calendar, name=calendar_name, now=turn.now, tz=turn.tz)
            reply = f"{imported} {reply}"
        return TurnBundle(reply=entity_map.restore(reply))


def build_assistant(
    *,
    data_dir: str | Path,
    model_path: str | None = None,
    llm_url: str | None = None,
    no_llm: bool = False,
    audit_path: str | Path | None = None,
) -> Assistant:
    """The assistant for a model choice; weights load lazily on the first generation."""
    model = select_model(model_path=model_path, llm_url=llm_url, no_llm=no_llm)
    data = Path(data_dir)
    data.mkdir(parents=True, exist_ok=True)
    audit = AuditLog(audit_path if audit_path else data / "audit.jsonl")
    return Assistant(ModelGateway(model, audit=audit), data_dir=data)
