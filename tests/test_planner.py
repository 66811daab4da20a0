"""The plan validator holds any plan to DESIGN.md's hard rules; the rule plan meets them."""

from __future__ import annotations

import pytest

from agent.planner import MAX_STEPS, PlanInput, PlanStep, rule_plan, validate_plan
from tools.registry import builtin_registry

REGISTRY = builtin_registry()


def plan_input(intent: str = "schedule", *, stated: bool = True, vague: bool = False) -> PlanInput:
    return PlanInput("req", "", intent, stated, vague)


def tools(steps: list[PlanStep]) -> list[str]:
    return [s.tool for s in steps]


def test_unknown_and_web_tools_are_dropped() -> None:
    steps = [PlanStep("search_web", {}, ""), PlanStep("teleport", {}, ""),
             PlanStep("extract_events", {}, ""), PlanStep("create_event", {}, "")]  # fmt: skip
    kept, notes, unusable = validate_plan(steps, plan_input(), REGISTRY)
    assert tools(kept) == ["extract_events", "create_event"] and unusable is None
    assert len(notes) == 2


def test_extraction_is_put_before_the_first_create() -> None:
    kept, _, unusable = validate_plan([PlanStep("create_event", {}, "")], plan_input(), REGISTRY)
    assert tools(kept) == ["extract_events", "create_event"] and unusable is None


def test_no_specific_time_gets_a_calendar_check_and_a_question() -> None:
    steps = [PlanStep("extract_events", {}, ""), PlanStep("create_event", {}, "")]
    kept, _, _ = validate_plan(steps, plan_input(stated=False, vague=True), REGISTRY)
    assert tools(kept)[-2:] == ["find_free_slots", "ask_user"]


def test_arguments_outside_the_schema_are_left_to_code() -> None:
    steps = [PlanStep("extract_events", {}, ""),
             PlanStep("create_event", {"title": "x", "start": 5, "evil": True}, "")]  # fmt: skip
    kept, notes, _ = validate_plan(steps, plan_input(), REGISTRY)
    assert kept[1].args == {} and "schema" in notes[0]


def test_long_plans_are_cut_to_the_limit() -> None:
    steps = [PlanStep("extract_events", {}, "")] + [PlanStep("create_event", {}, "")] * 14
    kept, _, _ = validate_plan(steps, plan_input(), REGISTRY)
    assert len(kept) == MAX_STEPS


@pytest.mark.parametrize(
    ("steps", "intent", "why"),
    [
        ([], "schedule", "empty"),
        (["list_events"], "schedule", "creates no event"),
        (["extract_events", "create_event"], "email", "drafts none"),
    ],
)
def test_plans_that_cannot_serve_the_request_are_refused(
    steps: list[str], intent: str, why: str
) -> None:
    _, _, unusable = validate_plan(
        [PlanStep(t, {}, "") for t in steps], plan_input(intent), REGISTRY
    )
    assert unusable is not None and why in unusable


@pytest.mark.parametrize("intent", ["schedule", "remind", "email", "question", "other"])
@pytest.mark.parametrize(("stated", "vague"), [(True, False), (False, True), (False, False)])
def test_every_rule_plan_passes_the_validator(intent: str, stated: bool, vague: bool) -> None:
    given = plan_input(intent, stated=stated, vague=vague)
    steps = rule_plan(given)
    kept, notes, unusable = validate_plan(list(steps), given, REGISTRY)
    assert unusable is None or intent == "other" and "empty" in unusable
    assert notes == [] and tools(kept) == tools(steps)


def test_a_reply_alone_never_creates_an_event_whatever_the_model_plans() -> None:
    given = PlanInput(
        request="reply to <PERSON_1> that friday works",
        thread="<PERSON_1>: dinner friday at 7?",
        intent="email",
        stated_time=False,
        vague_time=False,
        reply_only=True,
    )
    steps = [PlanStep(t, {}, "") for t in ("extract_events", "create_event", "draft_reply")]
    kept, notes, unusable = validate_plan(steps, given, REGISTRY)
    assert [s.tool for s in kept] == ["extract_events", "draft_reply"] and unusable is None
    assert any("a reply was asked for" in note for note in notes)
    plain = validate_plan(steps, PlanInput(**{**given.__dict__, "reply_only": False}), REGISTRY)
    assert "create_event" in [s.tool for s in plain[0]]


@pytest.mark.parametrize(
    "planned",
    [
        ["extract_events", "check_conflicts", "create_event", "ask_user"],  # the model's, seen
        ["extract_events", "ask_user", "find_free_slots"],
        ["extract_events", "list_events"],
    ],
)
def test_a_vague_time_always_gets_proposals_before_the_question(planned: list[str]) -> None:
    steps = [PlanStep(t, {}, "") for t in planned]
    kept, _, _ = validate_plan(steps, plan_input(stated=False, vague=True), REGISTRY)
    names = tools(kept)
    assert names.count("find_free_slots") == 1 and names.count("ask_user") == 1
    assert names.index("find_free_slots") < names.index("ask_user")


# What a typed request asks for: a question word opening a request that asks for no event is
# a question, whatever plan it names; one asking Veil to act, or for an event, is not.
@pytest.mark.parametrize(
    ("request_text", "intent"),
    [
        ("what's this invite about?", "question"),
        ("who is this?", "question"),
        ("what's on my calendar thursday?", "question"),
        ("what do I do with this?", "question"),
        # must not fire
        ("what's this? can you calendar it?", "schedule"),
        ("when can you add it?", "schedule"),
        ("lunch with sam friday at 1", "schedule"),
        ("how do I reply to this?", "email"),
        # every verb of labels.toml [request_verbs] asks for an event, whatever it names
        ("create garage sale", "schedule"),
        ("make an ebay listing", "schedule"),
        ("erstelle Flohmarkt", "schedule"),
        # must not fire: no verb that asks for an event, or one that orders none
        ("garage sale", "other"),
        ("the ebay listing sold", "other"),
        ("this will create confusion, can you summarize?", "question"),
        ("can you make sense of this?", "question"),
        ("make it shorter", "other"),
    ],
)
def test_a_question_over_a_plan_is_a_question(request_text: str, intent: str) -> None:
    from agent.intent import intent_by_rules

    assert intent_by_rules(request_text) == intent
