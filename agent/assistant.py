"""One turn, end to end: redact, find times, plan, execute behind the gate, reply, restore.

    input -> Redactor -> TimeParser (+ injections dropped) -> event linker -> Planner
          -> Executor (tools; create_* run the gate) -> synthesis + integrity -> restore

Only redacted text reaches the model (every call crosses agent.gateway); real names come back
only in the bundle's reply, events and files, and a placeholder left anywhere in the bundle
fails the turn.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlite_utils

from agent.agreement import agreed_in_thread, pressed
from agent.audit import AuditLog
from agent.backends import model_cache_dir, select_model
from agent.bundle import BundleEvent, BundleFile, PlanItem, StepOutcome, TurnBundle, in_zone
from agent.calendar_answers import answer_calendar_question, find_calendar_question
from agent.contacts import learn_contacts, name_roles
from agent.direct_call import call_tool, grounding_mentions, heard_times
from agent.drafting import draft_points, is_reply_only, reply_target
from agent.errors import AgentError, InputError
from agent.executor import EventOutcome, Executor, TurnState
from agent.extraction import ProposedEvent, RuleLinker, candidates, link_with_model
from agent.extraction.cue import ACCEPT_RE
from agent.followup import carry_out, find_follow_up
from agent.gateway import ModelGateway
from agent.intent import intent_by_rules
from agent.memory_answers import (
    answer_from_recall,
    carry_out_memory,
    describe_contact,
    find_memory_act,
)
from agent.model import ChatModel, Message
from agent.planner import PlanInput, Planner
from agent.prompts import load_prompt
from agent.start_trust import doubtful
from agent.synthesis import facts, write_reply
from lang import exports
from lang.activities import ACTIVITY_RE
from lang.fold import unmask_roles
from lang.text import clean_text, has_forged_label
from lang.thread import is_self, messages, speaks_for_a_recipient
from memory.calendar import CalendarStore
from memory.store import Contact, MemoryStore
from privacy import EntityMap, PrivacyGuard
from privacy.entity_map import PLACEHOLDER_RE
from privacy.redactor import Redactor
from tools.base import ToolContext, ToolResult
from tools.calendar.ics import import_ics
from tools.calendar.lang import HOUR_RE
from tools.calendar.slots import MEAL_DURATIONS
from tools.calendar.times import TimeMention, TimeParser
from tools.registry import builtin_registry
from understanding.acts import (
    read_act,
    reads_as,
    reply_agrees,
)
from understanding.start_hours import rare_start

logger = logging.getLogger(__name__)

MAX_INPUT_CHARS = 200_000
# The recent window of a pasted thread that a turn reads (issue 40): a 199,000-character line
# held the time parser for minutes and a 10,000-line thread the model for 265 s, while the
# plan a request is about sits in the last messages. Older text is left out, and the reply
# says so.
MAX_THREAD_LINES = 200
MAX_THREAD_CHARS = 12_000
MAX_LINE_CHARS = 2_000
Progress = Callable[[dict[str, Any]], None]
# Window of a calendar import: recent past for context, a year ahead for conflicts.
IMPORT_PAST = timedelta(days=30)
IMPORT_AHEAD = timedelta(days=365)
RECALL_K = 3  # remembered facts offered to the planner
# The planner's view of the calendar: how many events these days hold.
SUMMARY_DAYS = 7
# Prompts whose fixed system part the warm-up reads ahead (the planner's is built in code).
PRIMED_PROMPTS = ("reply", "link")


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
    id: int | None = None  # the stored turn: its own message is not "earlier in this chat"


class Assistant:
    """Holds the process-wide parts (model gateway) and runs turns against them."""

    def __init__(
        self,
        gateway: ModelGateway,
        *,
        data_dir: Path,
        mail_dir: Path | None = None,
        docs_dir: Path | None = None,
    ) -> None:
        self.gateway = gateway
        self.data_dir = data_dir
        self.mail_dir = mail_dir
        self.docs_dir = docs_dir
        self._index: Any = None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.registry = builtin_registry()

    def warm_up(self, notify: Progress | None = None, *, model: bool = True) -> None:
        """Load what a first turn would, and read each prompt's fixed part once.

        The server runs this in the background while it already answers the page, so the first
        turn pays for neither spaCy, Duckling and the language detector nor the model's
        system prompts. `notify` hears each stage; `model=False` leaves the model unloaded.
        """
        tell = notify or (lambda _event: None)
        tell({"stage": "privacy"})
        Redactor().redact("Lunch with Sam Lee tomorrow at 3pm")
        tell({"stage": "times"})
        TimeParser(tz="UTC", now=datetime.now(ZoneInfo("UTC"))).parse("tomorrow at 3pm")
        if model and self.gateway.model is not None:
            tell({"stage": "model"})
            self.gateway.check()
            self.gateway.prime(
                [
                    Planner(self.gateway, self.registry).system_message(),
                    *(Message("system", load_prompt(name)["system"]) for name in PRIMED_PROMPTS),
                ]
            )
        tell({"stage": "ready"})

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

    def call_tool(
        self, name: str, args: dict[str, Any], *, now: datetime, tz: str, thread: str = ""
    ) -> ToolResult:
        """One calendar tool called directly (agent.direct_call), against this user's calendar.

        `thread` is what a write is grounded in: it is redacted and its times read as a turn
        reads them, so `create_event` lets through only a start the thread states.
        """
        parse_zone(tz)
        thread = clean_text(thread)
        if len(thread) > MAX_INPUT_CHARS:
            raise InputError(
                f"thread too long ({len(thread):,} characters; the limit is {MAX_INPUT_CHARS:,})"
            )
        db = sqlite_utils.Database(self.data_dir / "veil.db")
        try:
            contacts = MemoryStore(db).contact_names() if thread.strip() else []
            mentions = grounding_mentions(thread, tz=tz, now=now, contacts=contacts)
            context = ToolContext(
                tz=tz,
                now=now,
                out_dir=self._out_dir(Turn(request="", now=now, tz=tz)),
                calendar=CalendarStore(db),
                mentions=mentions,
            )
            return call_tool(self.registry, name, args, context=context)
        finally:
            db.close()

    def ask(
        self,
        turn: Turn,
        entity_map: EntityMap | None = None,
        *,
        calendar: bytes | None = None,
        calendar_name: str = "calendar.ics",
        progress: Progress | None = None,
    ) -> TurnBundle:
        """Run one turn; the returned bundle holds real names only where DESIGN.md allows.

        A long thread is cut to its most recent part first (recent_window), and the reply
        says so: every parser after this point then works on a bounded text.
        """
        thread, note = recent_window(clean_text(turn.thread))
        bundle = self._ask(
            replace(turn, thread=thread),
            entity_map,
            calendar=calendar,
            calendar_name=calendar_name,
            progress=progress,
        )
        if note:
            bundle.reply = f"{bundle.reply} {note}".strip()
        return bundle

    def _ask(
        self,
        turn: Turn,
        entity_map: EntityMap | None = None,
        *,
        calendar: bytes | None = None,
        calendar_name: str = "calendar.ics",
        progress: Progress | None = None,
    ) -> TurnBundle:
        """`ask` on a thread already cut to its window."""
        # every front-end cleans its input; a caller of the library gets the same reading
        # ... and a role word spelled in look-alike letters reads as itself (issue 40)
        turn = replace(
            turn,
            request=clean_text(turn.request),
            thread=unmask_roles(clean_text(turn.thread)),
        )
        forged = has_forged_label(turn.thread) or speaks_for_a_recipient(turn.thread)
        if not turn.request.strip() and not turn.thread.strip():
            raise InputError("nothing to do: give a request or paste a thread")
        if len(turn.request) + len(turn.thread) > MAX_INPUT_CHARS:
            raise InputError(
                f"input too long ({len(turn.request) + len(turn.thread):,} characters; "
                f"the limit is {MAX_INPUT_CHARS:,}): paste the part of the thread that matters"
            )
        notify = progress or (lambda _event: None)
        entity_map = entity_map if entity_map is not None else EntityMap()
        imported = ""
        if calendar is not None:
            notify({"stage": "import", "status": "running"})
            imported = self.import_calendar(calendar, name=calendar_name, now=turn.now, tz=turn.tz)
        notify({"stage": "redact", "status": "running"})
        # One connection for the turn: contacts, history and recall, then calendar and tools.
        db = sqlite_utils.Database(self.data_dir / "veil.db")
        try:
            memory = MemoryStore(db)
            # Known contacts are always redacted, in every session and front-end.
            contacts = list(dict.fromkeys([*turn.contacts, *memory.contact_names()]))
            redactor = Redactor(entity_map=entity_map, contacts=contacts)
            request = redactor.redact(turn.request).text
            thread = redactor.redact(turn.thread).text if turn.thread.strip() else ""
            learned = [
                memory.save_contact(c.name, role=c.role, email=c.email, phone=c.phone)
                for c in learn_contacts(request, entity_map)
            ]
            request = name_roles(request, memory.contacts(), entity_map)  # "my cfo" -> a person
            history: list[tuple[str, str]] = []
            if turn.session is not None:
                history = memory.prompt_history(
                    turn.session, lambda text: redactor.redact(text).text, before_turn=turn.id
                )
            recall = self._recall_for(memory, request)
            guard = PrivacyGuard(entity_map, contacts)
            notify({"stage": "times", "status": "running"})
            parser = TimeParser(tz=turn.tz, now=turn.now)
            heard = heard_times(parser, request, thread)
            mentions, quiet, injections = heard.mentions, heard.quiet, heard.injections
            offered = _pending_proposals(memory, turn)
            follow = find_follow_up(
                request, thread=thread, mentions=mentions, store=CalendarStore(db),
                session=turn.session, now=turn.now,
                tz=turn.tz, pending=offered[0] if offered else None, offered=offered,
                value_of=entity_map.value_of,
            )  # fmt: skip
            if follow is not None:  # "cancel it", "make it 8:30": code changes the chat's event
                notify({"stage": "step", "tool": f"{follow.act}_event", "status": "running"})
                bundle = carry_out(
                    follow, store=CalendarStore(db), mentions=mentions, tz=turn.tz,
                    now=turn.now, out_dir=self._out_dir(turn),
                )  # fmt: skip
                bundle = _without_placeholders(bundle)
                notify({"stage": "done", "status": "ok"})
                return bundle
            # Asked of Veil itself: code reads or changes memory and the calendar; no model.
            direct = self._direct_answer(turn, mentions, memory=memory, store=CalendarStore(db),
                                         learned=learned)  # fmt: skip
            if direct is not None:
                direct.reply = f"{imported} {direct.reply}" if imported else direct.reply
                bundle = _without_placeholders(direct)
                notify({"stage": "done", "status": "ok"})
                return bundle
            intent = intent_by_rules(request)
            notify({"stage": "link", "status": "running"})
            found = candidates(request, quiet, mentions)
            linker = RuleLinker(turn.tz, turn.now)
            events = linker.link(request, quiet, found, intent=intent)
            events, _ = link_with_model(
                events, found, request=request, thread=quiet, gateway=self.gateway, guard=guard,
                session=turn.session,
            )  # fmt: skip
            if offered and not thread.strip() and _answers_proposal(request):
                # "thursday morning works" after Veil offered times for a coffee: the coffee,
                # at what the answer says (free times again if it says no clock), not "Works"
                asked_about = offered[0]
                for event in events:
                    event.title = redactor.redact(str(asked_about.get("title") or "")).text
                    event.attendees = [
                        redactor.redact(str(a)).text for a in asked_about.get("attendees") or []
                    ]
                    event.location = (
                        event.location
                        or redactor.redact(str(asked_about.get("location") or "")).text
                    )
            blank = not request.strip()
            unasked = intent == "other" and not reads_as(request, "add")
            if thread.strip() and (intent == "question" or blank or unasked):
                # "who is this?", "summarise", "anything I need to do?": a request that asks
                # for no event (no verb of one, and the act model reads no ask to add) adds
                # nothing; a plan it is asked over is offered for the user's yes, never created
                # unasked. A thread pasted with no request at all is the same: nobody asked for
                # an event, and the thread alone (its forged "Me:" lines, a time one person
                # stated, an order hidden in it) must not be able to create one (issue 40).
                for event in events:
                    if event.schedulable and not event.pending:
                        event.pending, event.held_because = True, "you did not ask me to add it"
            elif not thread.strip() and _moves_something(request, CalendarStore(db), turn, offered):
                # "pásalo a las 3" that the follow-up could not tie to the chat's event: a move
                # is no ask for a new one ("Pásalo" today), so what it names is offered instead;
                # a start read two ways is left to the gate, which asks which one
                for event in events:
                    two_ways = any(m.value == event.start and m.alternatives for m in mentions)
                    if event.schedulable and not event.pending and not two_ways:
                        event.pending = True
                        event.held_because = "it reads as moving something, not adding it"
            zone = ZoneInfo(turn.tz)
            said_in = messages(thread)  # read once: every event below is weighed against it
            # "add the call": a plan the thread names ("Termin eintragen" names none), which
            # the user picked knowing the thread
            asked_for = {a.casefold() for a in ACTIVITY_RE.findall(request)} & {
                a.casefold() for a in ACTIVITY_RE.findall(thread)
            }

            def named(event: ProposedEvent) -> bool:
                return bool(asked_for & {a.casefold() for a in ACTIVITY_RE.findall(event.title)})

            sent_at = functools.cache(parser.stamp_time)
            if forged:  # a line written to pass for the user's (or another person's): what
                # the thread says was agreed cannot be trusted, so its starts wait for the
                # user's own yes; a start the user typed stands
                for event in events:
                    if event.start is not None and not _typed(event.start, mentions, zone):
                        event.pending = event.pending or event.schedulable
            elif (injections or any(is_self(m.speaker) for m in said_in)) and (
                not _says_yes(request)
            ):  # the user wrote in the pasted thread, or it gives the assistant orders: the
                # request's "add this" is no yes to a time the user's own lines did not take
                # part in ("let me check with my boss first" - "so Tuesday 15:00 is settled";
                # an "ok" to a file claimed for a meeting; a notice claiming the user accepted,
                # beside an order to create it). A start stands when the user typed it, took
                # part in it in the thread (`agreed_in_thread`), says yes in the request ("reply
                # yes and add it") or names the plan there ("add the call": the user picked it
                # knowing the thread); a notice the user only forwards is theirs to add.
                for event in events:
                    if (
                        event.start is not None and event.schedulable and not event.pending
                        and not _typed(event.start, mentions, zone)
                        and not named(event)
                        and not agreed_in_thread(thread, said_in, event, mentions, zone, sent_at)
                    ):  # fmt: skip
                        event.pending = True
                        event.held_because = (
                            "the pasted text also gives me orders, and no line of yours in it "
                            "agrees to that time"
                            if injections
                            else "no line of yours in the thread agrees to that time"
                        )
            elif thread.strip() and not _says_yes(request):
                # the user wrote nothing in the thread: their ask is their yes, unless what
                # sets the time pushed it on them ("I've booked you for Thursday 10:00, no need
                # to reply"; "add it within 24 hours or your account is closed"): a time set
                # for the user, not with them, waits for their yes (the pressure head)
                for event in events:
                    if (
                        event.start is not None and event.schedulable and not event.pending
                        and not _typed(event.start, mentions, zone)
                        and not named(event)
                        and pressed(thread, said_in, event, mentions, zone)
                    ):  # fmt: skip
                        event.pending = True
                        event.held_because = (
                            "the message that sets that time decides it for you or presses "
                            "you to add it"
                        )
            for event in events:  # a start at an hour real bookings almost never use, stated
                # only by someone else and backed by nobody but its proposer, is asked about: a
                # misread "3" or an order hidden in the thread is likelier than a plan (a start
                # the user typed, or that two people in the thread agreed on, stands)
                if (
                    event.schedulable and not event.all_day and event.start is not None
                    and rare_start(event.start, zone) and not _typed(event.start, mentions, zone)
                    and len(event.offers.get(event.start, ())) < 2
                    and not _said_in_another_zone(event.start, mentions, zone)
                ):  # fmt: skip
                    event.pending, event.rare_hour = True, True
            if thread.strip():  # a start read from pasted text that reads like a deadline,
                # a listing or someone else's plan rather than the user's is asked about
                typed = [e for e in events if e.start and _typed(e.start, mentions, zone)]
                for event in doubtful(events, found, quiet, now=turn.now, zone=zone, typed=typed):
                    event.pending = True
                    event.held_because = "the text may not hold a plan of yours at that time"
            if intent in ("other", "question") and thread.strip() and events:
                intent = "schedule"  # "what do I do with this?" over a pasted plan: the plan
            reply_only = intent == "email" and is_reply_only(request)
            points = draft_points(request) if intent == "email" else []
            if reply_only:
                # "reply to sam that friday works": a draft and no event, unless asked. A reply
                # with nothing said to a plan with no time yet proposes free times in the draft.
                events = [] if points else [e for e in events if not e.schedulable]
            elif points:  # "email sam that the deck is ready and ask him to review it": the
                # activity words of what to say are no plan; only a said time makes one
                events = [e for e in events if e.start or e.day or e.within]
            store = CalendarStore(db)
            plan_input = PlanInput(
                request=request,
                thread=quiet,
                intent=intent,
                stated_time=any(e.schedulable for e in events),
                vague_time=any(not e.schedulable for e in events)
                or (intent in ("schedule", "remind") and not events and not linker.called_off),
                called_off=not events and bool(linker.called_off),
                calendar_summary=_calendar_summary(store, turn.now),
                recall=tuple(redactor.redact(fact).text for fact in recall),
                history=tuple(f"{role}: {text}" for role, text in history),
                reply_only=reply_only,
            )
            notify({"stage": "plan", "status": "running"})
            plan = Planner(self.gateway, self.registry).plan(
                plan_input, guard=guard, session=turn.session
            )
            notify({"stage": "plan", "status": "ok", "planner": plan.planner,
                    "steps": [s.tool for s in plan.steps]})  # fmt: skip
            context = ToolContext(
                tz=turn.tz,
                now=turn.now,
                out_dir=self._out_dir(turn),
                calendar=store,
                mentions=mentions,
                memory=memory,
                session=turn.session,
                email_dir=self.mail_dir,
                documents_dir=self.docs_dir,
                services={
                    "extract": lambda: events,
                    "recall": lambda query, k: self._recall(query, k, memory),
                },
            )
            state = TurnState(
                people=[
                    m.group(0)
                    for m in PLACEHOLDER_RE.finditer(f"{request}\n{quiet}")
                    if m.group(1) == "PERSON"
                ],
                topic=_topic(request),
                points=points,
                reply_to=reply_target(quiet) if intent == "email" and quiet.strip() else None,
                called_off=[] if events else linker.called_off,
            )
            executor = Executor(
                self.registry,
                gateway=self.gateway,
                guard=guard,
                entity_map=entity_map,
                redact=lambda text: redactor.redact(text).text,
                session=turn.session,
                progress=notify,
            )
            records = executor.run(plan.steps, context, state)
        finally:
            db.close()
        notify({"stage": "reply", "status": "running"})
        # Facts quote tool results that hold real names (calendar titles, draft recipients):
        # they go through the privacy layer before the reply prompt sees them.
        lines = [
            redactor.redact(line).text
            for line in facts(
                state,
                tz=turn.tz,
                injections=[i.text for i in injections],
                intent=intent,
                failures=[(r.tool, r.detail) for r in records if r.status == "failed"],
            )  # fmt: skip
        ]
        if imported:
            lines.insert(0, imported)
        has_ics = any(f.type == "ics" for f in state.files)
        has_eml = any(f.type == "eml" for f in state.files)
        reply, removed = write_reply(
            lines, request=request, gateway=self.gateway, guard=guard, session=turn.session,
            has_ics=has_ics, has_eml=has_eml,
        )  # fmt: skip
        if removed:
            logger.info("integrity check removed %d claim(s)", len(removed))
        restored = entity_map.restore(reply)
        if PLACEHOLDER_RE.search(restored):  # the model named someone the turn does not know
            restored = entity_map.restore(" ".join(lines))
        bundle = TurnBundle(
            reply=restored,
            question=entity_map.restore(state.question) if state.question else None,
            events=[
                shown
                for o in state.outcomes
                if _shown(o, state)
                for shown in _bundle_events(o, state, entity_map, turn.tz)
            ],
            files=[
                BundleFile(f.type, f.path, f.url, entity_map.restore(f.label)) for f in state.files
            ],
            plan=[
                PlanItem(s.tool, _restore_json(s.args, entity_map), entity_map.restore(s.purpose))
                for s in plan.steps
            ],
            steps=[
                StepOutcome(r.tool, r.status, r.attempts, entity_map.restore(r.detail))  # type: ignore[arg-type]
                for r in records
            ],
            planner=plan.planner,
        )
        bundle = _without_placeholders(bundle)
        notify({"stage": "done", "status": "ok"})
        return bundle

    def _direct_answer(
        self,
        turn: Turn,
        mentions: list[TimeMention],
        *,
        memory: MemoryStore,
        store: CalendarStore,
        learned: list[Contact],
    ) -> TurnBundle | None:
        """A memory act or a calendar question, answered by code; None for anything else."""
        act = find_memory_act(turn.request, thread=turn.thread, mentions=mentions)
        if act is not None:
            indexed = MemoryStore(memory.db, self._index) if self._index is not None else memory
            return carry_out_memory(
                act, memory=indexed, session=turn.session,
                learned=[describe_contact(c) for c in learned],
            )  # fmt: skip
        question = find_calendar_question(
            turn.request, thread=turn.thread, mentions=mentions, now=turn.now, tz=turn.tz
        )
        if question is not None:
            return answer_calendar_question(question, store=store, now=turn.now, tz=turn.tz)
        if (
            not turn.thread.strip()
            and memory.fact_count()
            and read_act(turn.request, "request").act == "recall"
        ):
            return answer_from_recall(self._recall(turn.request, RECALL_K, memory))
        if not turn.thread.strip() and _calls_off_nothing(turn.request, mentions):
            reply = (
                "This reads as calling something off, but it names no event ahead in this chat "
                "that it calls off, so nothing was cancelled or added."
            )
            return TurnBundle(
                reply=reply,
                plan=[PlanItem("cancel_event", {}, "call off the chat's event the user named")],
                steps=[StepOutcome("cancel_event", "blocked", 1, "no event of the chat matches")],
            )
        return None

    def _out_dir(self, turn: Turn) -> Path:
        """The turn's own folder for the files it writes."""
        return self.data_dir / "files" / f"{turn.now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"

    def _recall_for(self, memory: MemoryStore, request: str) -> list[str]:
        """Remembered facts near the request; the encoder is not loaded while there are none."""
        if not request.strip() or not memory.fact_count():
            return []
        return self._recall(request, RECALL_K, memory)

    def _recall(self, query: str, k: int, memory: MemoryStore) -> list[str]:
        """Facts nearest in meaning to `query`, read through the turn's own connection.

        The index lives for the process and outlives the turn (and the server thread) that
        built it: its connection reads SQLite only while it loads, under the index's lock.
        """
        from memory.index import FactIndex, MiniLMEmbedder

        if self._index is None:
            shared = sqlite3.connect(self.data_dir / "veil.db", check_same_thread=False)
            self._index = FactIndex(
                sqlite_utils.Database(shared), MiniLMEmbedder(), path=self.data_dir / "facts.faiss"
            )
        hits = self._index.search(query, k)
        return [fact.text for fact in memory.get_facts([fact_id for fact_id, _ in hits])]


_ABOUT_RE = re.compile(r"\b(?:about|re|regarding|on)\s+(?:the\s+)?(?P<topic>[^.?!\n]{2,60})$", re.I)


def _topic(request: str) -> str:
    """What an e-mail is about, from "email karthik about the budget"."""
    match = _ABOUT_RE.search(request.strip())
    return match.group("topic").strip() if match else ""


def _restore_json(value: dict[str, Any], entity_map: EntityMap) -> dict[str, Any]:
    return json.loads(entity_map.restore(json.dumps(value, ensure_ascii=False)))


def _without_placeholders(bundle: TurnBundle) -> TurnBundle:
    """The bundle, unless a placeholder would reach the user (then the turn is refused)."""
    leftover = PLACEHOLDER_RE.search(json.dumps(bundle.to_dict(), ensure_ascii=False))
    if leftover:
        raise AgentError(f"a placeholder ({leftover.group(0)}) would reach the user; turn refused")
    return bundle


def recent_window(thread: str) -> tuple[str, str]:
    """The most recent part of `thread` a turn reads, and a sentence for the reply when
    anything was left out ('' when the whole thread fits).

    The last MAX_THREAD_LINES lines, then as many of those as fit in MAX_THREAD_CHARS; a line
    longer than MAX_LINE_CHARS keeps its end (the latest words), cut at a space. A chat export
    (lang/exports' canonical text) is cut at whole messages and days within the same budget,
    and the reply names the dates read ("from 12 Nov to 28 Nov 2026, 214 of 18,400").
    """
    export = exports.recent_window(
        thread, max_lines=MAX_THREAD_LINES, max_chars=MAX_THREAD_CHARS,
        max_line_chars=MAX_LINE_CHARS,
    )  # fmt: skip
    if export is not None:
        return export.text, export.note
    lines = thread.splitlines()
    if (
        len(lines) <= MAX_THREAD_LINES
        and len(thread) <= MAX_THREAD_CHARS
        and all(len(line) <= MAX_LINE_CHARS for line in lines)
    ):
        return thread, ""
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-MAX_THREAD_LINES:]):
        if len(line) > MAX_LINE_CHARS:
            tail = line[-MAX_LINE_CHARS:]
            space = tail.find(" ")
            line = tail[space + 1 :] if 0 <= space < 200 else tail
        if kept and size + len(line) + 1 > MAX_THREAD_CHARS:
            break
        kept.append(line)
        size += len(line) + 1
    window = "\n".join(reversed(kept))
    note = (
        f"(The pasted thread is long ({_count(len(lines), 'line')}, {len(thread):,} "
        f"characters), so I read only its most recent part: {_count(len(kept), 'line')}, "
        f"{len(window):,} characters. Paste the messages that matter if the plan is further up.)"
    )
    return window, note


def _clocks_of(start: datetime, mentions: list[TimeMention], zone: ZoneInfo) -> list[TimeMention]:
    """The mentions that say `start`'s clock time (its day may be said apart)."""
    wall = start.astimezone(zone).time()
    return [
        m for m in mentions
        if m.has_clock_time and m.value is not None and m.value.astimezone(zone).time() == wall
    ]  # fmt: skip


# A request's opening "ok", "yes", "sure" (and the punctuation after it): said to Veil, or
# filler, never a yes to the thread's time.
_OPENING_YES_RE = re.compile(rf"\s*(?:(?:{ACCEPT_RE.pattern})[\s,.!:;-]*)+", re.IGNORECASE)


def _says_yes(request: str) -> bool:
    """Whether the request itself agrees to the thread's plan ("reply yes to her and add
    it", "add it, I said yes"): an accept word past its opening one ("ok add this" and "sure,
    put it in" are asks, so the thread's own lines still decide)."""
    opening = _OPENING_YES_RE.match(request)
    return bool(ACCEPT_RE.search(request, opening.end() if opening else 0))


def _typed(start: datetime, mentions: list[TimeMention], zone: ZoneInfo) -> bool:
    """Whether the user's own request states `start`'s clock time."""
    return any(m.source == "request" for m in _clocks_of(start, mentions, zone))


def _said_in_another_zone(start: datetime, mentions: list[TimeMention], zone: ZoneInfo) -> bool:
    """Whether every clock said for `start` was another zone's ("4:00 PM GMT", 03:00 in the
    user's): its hour was chosen on that clock, where it is no rare hour. A message that also
    says the user's own hour ("that's 3am Monday for you") is judged on the user's clock."""
    hour = start.astimezone(zone).hour % 12
    written = [
        {int(h) % 12 for h in HOUR_RE.findall(m.text)} for m in _clocks_of(start, mentions, zone)
    ]
    return bool(written) and all(hours and hour not in hours for hours in written)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


# A request that does one of these after Veil's proposal answers it.
_ANSWER_ACTS = frozenset({"accept", "counter", "confirm", "move", "schedule"})


def _answers_proposal(request: str) -> bool:
    """Whether a request after Veil's proposal answers it: it agrees, counters with another
    time or asks to add (act model), naming no activity and nobody of its own ("friday is
    better for me"; "lunch with <PERSON_1> tomorrow" is a plan of its own)."""
    if ACTIVITY_RE.search(request) or PLACEHOLDER_RE.search(request) or not request.strip():
        return False
    act = read_act(request, "request").act
    return act in _ANSWER_ACTS or reply_agrees(request) or reads_as(request, "add")


def _calls_off_nothing(request: str, mentions: list[TimeMention]) -> bool:
    """Whether a request calls a plan off (act model) and says no new time: the follow-up found
    no event of the chat it names ("scrap dinner, something came up" with no dinner ahead), so
    it is answered as such, never read as a new plan ("Scrap dinner" at the free times)."""
    said = any(m.source == "request" and m.has_clock_time for m in mentions)
    return not said and reads_as(request, "call_off") and not reads_as(request, "add")


def _moves_something(
    request: str, store: CalendarStore, turn: Turn, offered: list[dict[str, Any]]
) -> bool:
    """Whether a request reads as changing a time (act model) while the chat has an event
    still ahead, or a proposal of the last turn, that it could be about: with neither, "let's
    do 8 instead" is a plan of its own."""
    if turn.session is None or not reads_as(request, "change") or reads_as(request, "add"):
        return False  # "the standup moved to friday 9, add it" asks to add
    return bool(offered) or bool(store.upcoming_of_chat(turn.session, turn.now))


def _pending_proposals(memory: MemoryStore, turn: Turn) -> list[dict[str, Any]]:
    """The events the chat's previous turn proposed, or refused to create, and asked about, as
    the page shows them ("'next thursday at 1' could mean Thu 26 Nov or Thu 03 Dec"), in
    order: the first is the one a bare answer fills."""
    if turn.session is None:
        return []
    outcome = memory.previous_outcome(turn.session, turn.id)
    answer = outcome.get("answer") if isinstance(outcome, dict) else None
    events = answer.get("events", []) if isinstance(answer, dict) else []
    asked = [
        e
        for e in events
        if isinstance(e, dict) and e.get("status") in ("proposed", "blocked") and e.get("start")
    ]
    return asked


def _calendar_summary(store: CalendarStore, now: datetime) -> str:
    """How many events the coming week holds: all the planner needs to know of the calendar.

    The tools check conflicts and free slots against all of it, so the planner sees a count and
    never titles (they hold names: "Call with Dr. Chen"). The prompt costs the same tokens for
    5 events as for 5,000, and nothing of the calendar needs redacting.
    """
    total = store.count_between(now, now + timedelta(days=SUMMARY_DAYS))
    return f"{total} events in the next {SUMMARY_DAYS} days" if total else ""


def _shown(outcome: EventOutcome, state: TurnState) -> bool:
    """Events with a time (created, blocked, or to confirm) or a proposed free slot."""
    return outcome.event.start is not None or bool(state.slots)


def _bundle_events(
    outcome: EventOutcome, state: TurnState, entity_map: EntityMap, tz: str
) -> list[BundleEvent]:
    """The event as the user sees it; a vague one once per free slot proposed for it."""
    event: ProposedEvent = outcome.event
    if event.start is not None:
        return [_bundle_event(outcome, event.start, event.end, entity_map, tz)]
    return [
        _bundle_event(
            outcome,
            datetime.fromisoformat(slot["start"]),
            _proposed_end(event, slot),
            entity_map,
            tz,
        )
        for slot in state.slots
    ]


def _proposed_end(event: ProposedEvent, slot: dict[str, str]) -> datetime:
    """A proposal lasts as long as the meal or an hour, not the whole free gap it starts."""
    start, gap_end = datetime.fromisoformat(slot["start"]), datetime.fromisoformat(slot["end"])
    length = MEAL_DURATIONS.get(event.meal or "", timedelta(hours=1))
    return min(gap_end, start + length)


def _bundle_event(
    outcome: EventOutcome,
    start: datetime,
    end: datetime | None,
    entity_map: EntityMap,
    tz: str,
) -> BundleEvent:
    event: ProposedEvent = outcome.event
    return BundleEvent(
        title=entity_map.restore(event.title),
        start=start.isoformat(),
        end=(end or start).isoformat(),
        all_day=event.all_day,
        location=entity_map.restore(event.location),
        attendees=[entity_map.restore(a) for a in event.attendees],
        status=outcome.status,  # type: ignore[arg-type]
        uid=outcome.uid,
        conflicts=[
            {**in_zone(c, tz), "title": entity_map.restore(str(c.get("title", "")))}
            for c in outcome.conflicts
        ],
        held=_held(outcome),
    )


def _held(outcome: EventOutcome) -> Literal["unagreed", "rare_hour"] | None:
    """Why an event with a stated start is only proposed; None when it is not."""
    event: ProposedEvent = outcome.event
    if outcome.status != "proposed" or not event.pending or event.start is None:
        return None
    return "rare_hour" if event.rare_hour else "unagreed"


def build_assistant(
    *,
    data_dir: str | Path,
    model_path: str | None = None,
    llm_url: str | None = None,
    no_llm: bool = False,
    no_adapter: bool = False,
    audit_path: str | Path | None = None,
    mail_dir: str | Path | None = None,
    docs_dir: str | Path | None = None,
    model: ChatModel | None = None,
) -> Assistant:
    """The assistant for a model choice; weights load lazily on the first generation.

    `model` is a backend the caller already chose (and may be loading) for the same choice.
    """
    data = Path(data_dir)
    if model is None:
        model = select_model(
            model_path=model_path,
            llm_url=llm_url,
            no_llm=no_llm,
            no_adapter=no_adapter,
            cache_dir=model_cache_dir(data),
        )
    audit = AuditLog(audit_path if audit_path else data / "audit.jsonl")
    return Assistant(
        ModelGateway(model, audit=audit),
        data_dir=data,
        mail_dir=Path(mail_dir) if mail_dir else None,
        docs_dir=Path(docs_dir) if docs_dir else None,
    )
