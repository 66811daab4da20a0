"""Run a validated plan: fill each step's arguments, check them, run the tool, judge, retry.

Arguments come from the model's plan when it gave valid ones, else code fills them from what
earlier steps found (one round per extracted event, at most MAX_ROUNDS a step). Every round is
validated against the tool's JSON schema first. Write tools get real names back (restored
arguments); the create tools run the scheduling gate themselves. Failed rounds are retried with
the error fed back to the model (or as they were, without one); a gate block is final.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import jsonschema

from agent.drafting import ReplyTarget
from agent.errors import ModelError, ModelOutputError
from agent.evaluator import Verdict, judge
from agent.extraction import ProposedEvent
from agent.gateway import ModelGateway
from agent.model import Message
from agent.planner import PlanStep
from privacy import EntityMap, PrivacyGuard
from tools.base import Registry, ToolContext, ToolFile, ToolResult
from tools.calendar.gate import which_one

logger = logging.getLogger(__name__)

MAX_ROUNDS = 5
SLOT_PROPOSALS = 3  # free times offered for a vague one, each a button on the page
Progress = Callable[[dict[str, Any]], None]


@dataclass
class EventOutcome:
    """What became of one proposed event this turn."""

    event: ProposedEvent
    status: str = "proposed"  # created | proposed | blocked
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""
    duplicate: bool = False
    uid: str | None = None  # the stored event's UID once created, as its .ics has it


@dataclass
class StepRecord:
    tool: str
    status: str
    attempts: int
    detail: str


@dataclass
class TurnState:
    """What the steps found so far; later steps read it, synthesis reports it."""

    outcomes: list[EventOutcome] = field(default_factory=list)
    slots: list[dict[str, str]] = field(default_factory=list)
    question: str | None = None
    files: list[ToolFile] = field(default_factory=list)
    draft: dict[str, Any] | None = None
    listed: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extracted: bool = False
    people: list[str] = field(default_factory=list)  # placeholders the request and thread name
    topic: str = ""  # "about the budget" in the request: a draft's subject
    points: list[str] = field(default_factory=list)  # what the draft was asked to say
    reply_to: ReplyTarget | None = None  # the pasted e-mail's sender and subject
    called_off: list[ProposedEvent] = field(default_factory=list)  # plans the input called off

    def schedulable(self, kind: str) -> list[EventOutcome]:
        return [o for o in self.outcomes if o.event.schedulable and o.event.kind == kind]


def restore_args(value: Any, entity_map: EntityMap) -> Any:
    """Real values back into arguments of a write tool, recursively."""
    if isinstance(value, str):
        return entity_map.restore(value)
    if isinstance(value, list):
        return [restore_args(v, entity_map) for v in value]
    if isinstance(value, dict):
        return {k: restore_args(v, entity_map) for k, v in value.items()}
    return value


def _event_args(event: ProposedEvent) -> dict[str, Any]:
    args: dict[str, Any] = {
        "title": event.title,
        "start": event.start.isoformat() if event.start else "",
        "all_day": event.all_day,
        "attendees": event.attendees,
    }
    if event.end is not None:
        args["end"] = event.end.isoformat()
    if event.location:
        args["location"] = event.location
    return args


def _when(iso: str) -> str:
    value = datetime.fromisoformat(iso)
    return f"{value:%a %d %b} at {value:%H:%M}"


class Executor:
    """Runs steps against the registry for one turn."""

    def __init__(
        self,
        registry: Registry,
        *,
        gateway: ModelGateway,
        guard: PrivacyGuard,
        entity_map: EntityMap,
        redact: Callable[[str], str],
        session: str | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.registry = registry
        self.gateway = gateway
        self.guard = guard
        self.entity_map = entity_map
        self.redact = redact
        self.session = session
        self.progress = progress or (lambda _event: None)

    def run(self, steps: list[PlanStep], ctx: ToolContext, state: TurnState) -> list[StepRecord]:
        records = []
        drafted = False
        for step in steps:
            if step.tool == "draft_reply" and drafted:
                records.append(
                    StepRecord(step.tool, "ok", 0, "one draft per turn: already drafted")
                )
                continue
            self.progress({"stage": "step", "tool": step.tool, "status": "running"})
            record = self._run_step(step, ctx, state)
            drafted = drafted or (step.tool == "draft_reply" and record.status == "ok")
            self.progress(
                {
                    "stage": "step",
                    "tool": step.tool,
                    "status": record.status,
                    "detail": record.detail,
                }
            )
            records.append(record)
        if state.question is None:  # "'at 8' could mean 08:00 or 20:00": the turn asks which
            state.question = next(
                (
                    asked
                    for o in state.outcomes
                    if o.status == "blocked"
                    and (asked := which_one(o.event.title, o.reason or "")) is not None
                ),
                None,
            )
        return records

    # ------------------------------------------------------------------ one step
    def _run_step(self, step: PlanStep, ctx: ToolContext, state: TurnState) -> StepRecord:
        tool = self.registry.get(step.tool)
        assert tool is not None, "the plan validator drops unknown tools"
        rounds = [step.args] if step.args else self._fill(step.tool, state, ctx)
        if not rounds:
            return StepRecord(step.tool, "ok", 0, "nothing to do for this step")
        statuses: list[str] = []
        details: list[str] = []
        attempts_total = 0
        for index, args in enumerate(rounds[:MAX_ROUNDS]):
            verdict, attempts, result = self._attempt(tool.name, args, ctx)
            attempts_total += attempts
            statuses.append(verdict.status)
            details.append(verdict.detail or _summary(tool.name, result))
            self._absorb(tool.name, index, args, result, verdict, state)
        status = "blocked" if "blocked" in statuses else "failed" if "failed" in statuses else "ok"
        detail = "; ".join(d for d in details if d)[:500]
        return StepRecord(step.tool, status, attempts_total, detail)

    def _attempt(
        self, name: str, args: dict[str, Any], ctx: ToolContext
    ) -> tuple[Verdict, int, ToolResult]:
        tool = self.registry.get(name)
        assert tool is not None
        attempts = 0
        while True:
            attempts += 1
            try:
                jsonschema.validate(args, tool.parameters)
                real = restore_args(args, self.entity_map) if tool.writes else args
                result = tool.run(real, ctx)
            except jsonschema.ValidationError as error:
                result = ToolResult.fail(f"arguments do not fit the schema: {error.message}")
            except (ValueError, KeyError, OSError) as error:
                result = ToolResult.fail(f"{type(error).__name__}: {error}")
            verdict = judge(result, attempts)
            if not verdict.retry:
                return verdict, attempts, result
            args = self._repair(name, args, verdict.detail) or args

    def _repair(self, name: str, args: dict[str, Any], error: str) -> dict[str, Any] | None:
        """Ask the model for corrected arguments, the error fed back; None without a model."""
        tool = self.registry.get(name)
        if tool is None or not self.gateway.is_available:
            return None
        messages = [
            Message(
                "system",
                "You fix the arguments of a tool call. Answer with JSON arguments only. "
                "Names are placeholders like <PERSON_1>; keep them.",
            ),
            Message(
                "user",
                f"Tool: {name}\nArguments: {self.redact(str(args))}\nError: {self.redact(error)}",
            ),
        ]
        try:
            return self.gateway.complete_json(
                messages,
                guard=self.guard,
                purpose="repair",
                schema=tool.parameters,
                schema_name=name,
                max_tokens=160,
                session=self.session,
            )
        except (ModelError, ModelOutputError) as failure:
            logger.info("argument repair failed: %s", failure)
            return None

    # ------------------------------------------------------------------ arguments by code
    def _fill(self, name: str, state: TurnState, ctx: ToolContext) -> list[dict[str, Any]]:
        if name == "extract_events":
            return [{}]
        if name == "check_conflicts":
            return [
                {"start": o.event.start.isoformat(), "end": o.event.end.isoformat()}
                for o in state.outcomes
                if o.event.schedulable and o.event.end is not None
            ]
        if name in ("create_event", "create_reminder"):
            kind = "reminder" if name == "create_reminder" else "event"
            return [_event_args(o.event) for o in state.schedulable(kind)]
        if name == "find_free_slots":
            return self._slot_args(state)
        if name == "ask_user":
            question = self._question(state, ctx.tz)
            return [{"question": question}] if question else []
        if name == "draft_reply":
            return [self._draft_args(state, ctx)]
        if name == "list_events":
            return [{"days": 7}]
        if name == "memory_recall":
            return []
        return []

    def _slot_args(self, state: TurnState) -> list[dict[str, Any]]:
        """Proposals for the first open event: on its day, within its days, or the next 7."""
        open_events = [o.event for o in state.outcomes if not o.event.schedulable]
        event = next((e for e in open_events if e.meal), open_events[0] if open_events else None)
        args: dict[str, Any] = {"limit": SLOT_PROPOSALS}
        if event is not None and event.meal:
            args["meal"] = event.meal
        else:
            args["duration_minutes"] = 60
        if event is not None and event.day is not None and event.meal:
            args["day"] = event.day.isoformat()
        elif event is not None and event.day is not None:
            args["after"], args["days"] = f"{event.day.isoformat()}T00:00", 1
        elif event is not None and event.within is not None:
            first, days = event.within
            args["after"], args["days"] = f"{first.isoformat()}T00:00", min(days, 14)
        else:
            args["days"] = 7
        return [args]

    def _question(self, state: TurnState, tz: str) -> str | None:
        undecided = [o.event for o in state.outcomes if o.event.undecided]
        if undecided:
            return f"Which time should I use for {undecided[0].title}?"
        blocked = [o for o in state.outcomes if o.status == "blocked"]
        waiting = [o.event for o in state.outcomes if o.event.pending and o.event.start]
        if waiting and waiting[0].rare_hour:  # 3 am from someone else's message
            event = waiting[0]
            return f"Should I add {event.title} at {_when(event.start.isoformat())} ({tz})?"
        if waiting:  # "could we move it to Sunday 11 instead?", not answered yet
            event = waiting[0]
            return (
                f"Is {event.title} on {_when(event.start.isoformat())} ({tz}) agreed, "
                "or is there another time to add?"
            )
        open_events = [o.event for o in state.outcomes if o.event.start is None or o.event.pending]
        slots = ", ".join(_when(s["start"]) for s in state.slots[:3])
        what = open_events[0].title if open_events else blocked[0].event.title if blocked else ""
        if not what and not state.outcomes and not state.called_off:
            what = "this"
        if not what:
            return None
        if slots:
            return f"Which time works for {what}: {slots} ({tz})?"
        return f"What day and time should {what} be?"

    def _draft_args(self, state: TurnState, ctx: ToolContext) -> dict[str, Any]:
        """Recipients, subject and body by code: what the user asked to say comes first."""
        people = [p for o in state.outcomes for p in o.event.attendees] or state.people
        people = list(dict.fromkeys(people))[:3]
        to = state.reply_to.to if state.reply_to else people
        greeted = [p for p in (people if not state.reply_to else state.reply_to.names) if p]
        created = [o for o in state.outcomes if o.status == "created"]
        greeting = f"Hi {' and '.join(greeted)}," if greeted else "Hi,"
        lines = list(state.points)
        subject = state.topic[:1].upper() + state.topic[1:] if state.topic else ""
        if created:
            event = created[0].event
            when = _when(event.start.isoformat()) if event.start else ""
            if not lines:
                lines.append(f"{event.title.split(' with ')[0]} on {when} works for me.")
            subject = subject or event.title.split(" with ")[0]
        elif state.slots and not lines:
            times = ", ".join(_when(s["start"]) for s in state.slots[:3])
            lines.append(f"Thanks! Would one of these work: {times} ({ctx.tz})?")
            subject = subject or next(
                (o.event.title.split(" with ")[0] for o in state.outcomes), "Finding a time"
            )
        elif not lines:
            lines.append(
                f"I'd like to talk about {state.topic}." if state.topic
                else "Thanks for your message."
            )  # fmt: skip
        if state.reply_to and state.reply_to.subject:
            subject = state.reply_to.subject
            if not subject.casefold().startswith("re:"):
                subject = f"Re: {subject}"
        body = "\n\n".join([greeting, " ".join(lines), "Best"])
        if not subject and state.points:  # "draft an email saying I'm late": "I'm late"
            subject = " ".join(state.points[0].rstrip(".?!").split()[:8])
        return {"to": to, "subject": subject or "Hello", "body": body}

    # ------------------------------------------------------------------ results into state
    def _absorb(
        self,
        name: str,
        index: int,
        args: dict[str, Any],
        result: ToolResult,
        verdict: Verdict,
        state: TurnState,
    ) -> None:
        state.files.extend(result.files)
        if name == "extract_events" and result.ok:
            events = result.data.get("_events") or []
            state.outcomes = [EventOutcome(e) for e in events]
            state.extracted = True
        elif name == "check_conflicts" and result.ok:
            for outcome in state.outcomes:
                if outcome.event.start and outcome.event.start.isoformat() == args.get("start"):
                    outcome.conflicts = result.data.get("conflicts", [])
        elif name in ("create_event", "create_reminder"):
            outcome = next(
                (
                    o
                    for o in state.outcomes
                    if o.event.start and o.event.start.isoformat() == args.get("start")
                ),
                None,
            )
            if outcome is None:
                return
            if verdict.status == "blocked":
                outcome.status, outcome.reason = "blocked", verdict.detail
            elif result.ok and result.data.get("duplicate"):
                outcome.duplicate, outcome.reason = True, str(result.data.get("reason", ""))
            elif result.ok:
                outcome.status, outcome.uid = "created", result.data.get("uid")
            else:
                outcome.reason = verdict.detail
        elif name == "find_free_slots" and result.ok:
            state.slots = result.data.get("slots", [])
        elif name == "ask_user" and result.ok:
            state.question = result.data["question"]
        elif name == "draft_reply" and result.ok:
            state.draft = result.data
        elif name == "list_events" and result.ok:
            state.listed = result.data.get("events", [])
        elif result.ok:
            state.notes.append(self.redact(_summary(name, result)))


def _summary(name: str, result: ToolResult) -> str:
    """A short line about a result for step details: no private "_" data, no server paths."""
    if not result.ok:
        return result.error or "failed"
    data = {k: v for k, v in result.data.items() if not k.startswith("_") and k != "path"}
    text = f"{name}: " + ", ".join(f"{k}={_short(v)}" for k, v in list(data.items())[:4])
    return text[:240]


def _short(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} item(s)"
    return re.sub(r"\s+", " ", str(value))[:60]
