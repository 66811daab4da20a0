"""The plan of a turn: which tools run, in which order, and why.

The model proposes steps under a JSON-schema grammar whose tool enum is the registry; code
validates the plan against DESIGN.md's hard rules and repairs what it can. A plan that cannot
serve the request (no event creation where the user stated a time, no draft where an e-mail was
asked) is replaced by the rule planner's, which derives the same kind of step sequence from
deterministic intent rules and also runs when there is no model or it is down.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Literal

import jsonschema

from agent.errors import ModelError, ModelOutputError
from agent.gateway import ModelGateway
from agent.model import Message
from agent.prompts import load_prompt
from privacy import PrivacyGuard
from tools.base import Registry

logger = logging.getLogger(__name__)

MAX_STEPS = 10
# The planner needs the gist, not the whole thread: code already found the events in it, and a
# short prompt keeps a turn within seconds on a laptop CPU.
MAX_THREAD_CHARS = 800
MAX_HISTORY_CHARS = 600  # the newest end of the session's short-term messages
WRITE_EVENT_TOOLS = ("create_event", "create_reminder")
_NOT_IN_A_REPLY = WRITE_EVENT_TOOLS
_WEB_WORDS = ("web", "search_internet", "browse", "http")


@dataclass
class PlanStep:
    tool: str
    args: dict[str, Any]
    purpose: str


@dataclass(frozen=True)
class PlanInput:
    """What the planner may see: all of it redacted."""

    request: str
    thread: str
    intent: str
    stated_time: bool  # the input states a date and clock time for some event
    vague_time: bool  # it talks about a time without stating one ("dinner friday")
    calendar_summary: str = ""
    recall: tuple[str, ...] = ()
    history: tuple[str, ...] = ()  # earlier messages of the session, "role: text", redacted
    reply_only: bool = False  # a reply was asked for and no event: nothing is created
    called_off: bool = False  # the plan the input talks about was called off: nothing to propose


@dataclass
class Plan:
    steps: list[PlanStep]
    planner: Literal["model", "rules"]
    notes: list[str] = field(default_factory=list)


def _step(tool: str, purpose: str) -> PlanStep:
    return PlanStep(tool, {}, purpose)


def rule_plan(plan_input: PlanInput) -> list[PlanStep]:
    """The deterministic plan for an intent; every hard rule holds by construction."""
    intent = plan_input.intent
    if intent == "question":
        steps = [
            _step("list_events", "read the calendar to answer the question"),
            _step("find_free_slots", "find free time in the coming days"),
        ]
        if plan_input.vague_time:
            steps.append(_step("ask_user", "no specific time: ask which one"))
        return steps
    steps = [_step("extract_events", "find the events the request and thread talk about")]
    if plan_input.stated_time:
        steps.append(_step("check_conflicts", "check the stated time against the calendar"))
        create = "create_reminder" if intent == "remind" else "create_event"
        steps.append(_step(create, "create the event at the time the user stated"))
    if plan_input.vague_time or (
        intent in ("schedule", "remind")
        and not plan_input.stated_time
        and not plan_input.called_off
    ):
        steps.append(_step("find_free_slots", "no time was stated: find free slots to propose"))
        steps.append(_step("ask_user", "ask which time the user wants"))
    if intent == "email":
        steps.append(_step("draft_reply", "draft the reply the user asked for"))
    return steps


def validate_plan(
    steps: list[PlanStep], plan_input: PlanInput, registry: Registry
) -> tuple[list[PlanStep], list[str], str | None]:
    """Apply the hard rules; returns (steps, notes on repairs, why the plan is unusable or None)."""
    notes: list[str] = []
    kept: list[PlanStep] = []
    for step in steps:
        tool = registry.get(step.tool)
        if tool is None or any(word in step.tool for word in _WEB_WORDS):
            notes.append(f"dropped unknown or web tool {step.tool!r}")
            continue
        try:
            if step.args:  # {} means "code fills them from earlier results"
                jsonschema.validate(step.args, tool.parameters)
        except jsonschema.ValidationError as error:
            notes.append(
                f"{step.tool}: arguments did not fit its schema ({error.message}); code fills them"
            )
            step = PlanStep(step.tool, {}, step.purpose)
        kept.append(step)
    if plan_input.reply_only:
        dropped = [s.tool for s in kept if s.tool in _NOT_IN_A_REPLY]
        if dropped:
            notes.append(f"dropped {', '.join(dropped)}: a reply was asked for, not an event")
        kept = [s for s in kept if s.tool not in _NOT_IN_A_REPLY]
    names = [s.tool for s in kept]
    creates = [n for n in names if n in WRITE_EVENT_TOOLS]
    if creates and "extract_events" not in names[: names.index(creates[0])]:
        kept.insert(0, _step("extract_events", "events must be found before any is created"))
        notes.append("added extract_events before the first create")
    names = [s.tool for s in kept]
    if plan_input.vague_time or (creates and not plan_input.stated_time):
        # A vague time always gets free-slot proposals, found before the question that
        # offers them (a conflict check of nothing proposes nothing).
        if "find_free_slots" not in names:
            slots = _step("find_free_slots", "no specific time: find free slots to propose")
            at = names.index("ask_user") if "ask_user" in names else len(kept)
            kept.insert(at, slots)
            notes.append("added free-slot proposals: no specific time was stated")
        elif "ask_user" in names and names.index("ask_user") < names.index("find_free_slots"):
            kept.insert(names.index("ask_user"), kept.pop(names.index("find_free_slots")))
            notes.append("moved the free-slot search before the question that offers them")
        if "ask_user" not in [s.tool for s in kept]:
            kept.append(_step("ask_user", "no specific time: ask the user"))
            notes.append("added a question: no specific time was stated")
    if len(kept) > MAX_STEPS:
        notes.append(f"cut the plan from {len(kept)} to {MAX_STEPS} steps")
        kept = kept[:MAX_STEPS]
    names = [s.tool for s in kept]
    if not kept:
        return kept, notes, "the plan is empty"
    if plan_input.stated_time and plan_input.intent in ("schedule", "remind", "email"):
        if not any(n in WRITE_EVENT_TOOLS for n in names):
            return kept, notes, "a time was stated but the plan creates no event"
    if plan_input.intent == "email" and "draft_reply" not in names:
        return kept, notes, "an e-mail was asked for but the plan drafts none"
    return kept, notes, None


def plan_schema(names: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_STEPS,
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string", "enum": names},
                        "args": {"type": "object"},
                    },
                    "required": ["tool", "args"],
                },
            }
        },
        "required": ["steps"],
    }


class Planner:
    """Model plan when a model is there and its plan validates; the rule plan otherwise."""

    def __init__(self, gateway: ModelGateway, registry: Registry) -> None:
        self.gateway = gateway
        self.registry = registry

    def plan(
        self, plan_input: PlanInput, *, guard: PrivacyGuard, session: str | None = None
    ) -> Plan:
        if self.gateway.is_available:
            proposed = self._model_steps(plan_input, guard=guard, session=session)
            if proposed is not None:
                steps, notes, unusable = validate_plan(proposed, plan_input, self.registry)
                if unusable is None:
                    return Plan(steps, "model", notes)
                logger.info("model plan rejected (%s); rule plan used", unusable)
                return Plan(
                    rule_plan(plan_input), "rules", [*notes, f"model plan rejected: {unusable}"]
                )
        return Plan(rule_plan(plan_input), "rules")

    def system_message(self) -> Message:
        """The plan prompt's fixed part: rules and the tool catalogue (the same every turn)."""
        catalogue = "\n".join(
            f"- {spec['name']}: {spec['description']}" for spec in self.registry.catalogue()
        )
        return Message("system", load_prompt("plan")["system"].format(tools=catalogue))

    def _model_steps(
        self, plan_input: PlanInput, *, guard: PrivacyGuard, session: str | None
    ) -> list[PlanStep] | None:
        prompt = load_prompt("plan")
        facts = "\n".join(f"- {fact}" for fact in plan_input.recall) or "(none)"
        history = "\n".join(" ".join(line.split())[:200] for line in plan_input.history)
        user = prompt["user"].format(
            request=plan_input.request[:1000],
            thread=plan_input.thread[-MAX_THREAD_CHARS:] if plan_input.thread else "(none)",
            calendar=plan_input.calendar_summary or "(empty)",
            facts=facts,
            history=history[-MAX_HISTORY_CHARS:] if history else "(none)",
            time_note="The input states a date and clock time."
            if plan_input.stated_time
            else "The input states no specific date and clock time.",
        )
        try:
            answer = self.gateway.complete_json(
                [self.system_message(), Message("user", user)],
                guard=guard,
                purpose="plan",
                schema=plan_schema(self.registry.names()),
                schema_name=prompt["schema_name"],
                max_tokens=160,
                session=session,
            )
        except (ModelError, ModelOutputError) as error:
            logger.warning("planner model failed, rule plan used: %s", error)
            return None
        steps = answer.get("steps")
        if not isinstance(steps, list):
            return None
        purposes = {spec["name"]: spec["description"] for spec in self.registry.catalogue()}
        return [
            PlanStep(
                str(s.get("tool", "")),
                s.get("args") if isinstance(s.get("args"), dict) else {},
                purposes.get(str(s.get("tool", "")), ""),  # the model spends no tokens on prose
            )
            for s in steps
            if isinstance(s, dict)
        ]
