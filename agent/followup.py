"""Follow-ups in a chat: "cancel it", "actually make it 8:30", "forget dinner", "Diego lo
cambió a las 3", and an answer to Veil's own proposal ("make it 20:30" after "dinner sometime
next week").

A chat has state, and code decides what a follow-up changes, never the language model. What the
request does is read by the learned act model (understanding.acts), in any wording and language
it was fitted on; a reading under its act's fitted threshold is no follow-up. A follow-up is
recognised only in a chat, with nothing pasted, and acts on the chat's event still ahead that it
names (agent/naming.py: an activity, a title word, a person the event has, a day), else on the
one changed last when it names nothing and says nothing else (MAX_UNNAMED_WORDS words besides
the act's own words, read by the act model, everyday words and times):
- after a turn that proposed a time, a request stating a clock time answers that proposal (the
  proposed event is created at the stated time, the day the proposal's unless said), unless the
  model reads it as something else entirely (a cancel, a question, a draft, a memory act); after
  Veil asked which of two readings was meant, a stated day or time is the pick;
- otherwise a cancel act, or a move act with a new time or shift, acts on the event meant;
  a negated act ("don't cancel dinner"), a person the event lacks, a word that argues against
  the act ("my gym membership") change nothing; a cancel asked as a question, or words that name
  two events alike, are asked back.
New times come only from the request (tools/calendar/gate.moved_start); a reading with two
answers is a question. The calendar keeps one event per UID: a move rewrites it with SEQUENCE
+ 1 and a new .ics, a cancel removes it and writes a METHOD:CANCEL .ics.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from agent.bundle import BundleEvent, BundleFile, PlanItem, StepOutcome, TurnBundle, in_zone
from agent.calendar_answers import event_time
from agent.extraction.cue import NEGATION_RE
from agent.naming import (
    LETTERS_RE,
    content_words,
    holds_person,
    named_by,
    names_word,
    naming_count,
    people_named,
    placeholders,
    roles_lacked,
    title_words,
)
from lang import data
from lang.activities import PLAN_KINDS, named_activities
from memory.calendar import CalendarStore
from memory.errors import StoreError
from memory.event import CalendarEvent
from privacy.entity_map import PLACEHOLDER_RE
from tools.calendar.gate import moved_start
from tools.calendar.ics import export_event
from tools.calendar.lang import states_date, weekday_only
from tools.calendar.slots import Schedule
from tools.calendar.times import TimeMention
from understanding.acts import (
    Group,
    act_words,
    counter_words,
    forgets_or_calls_off,
    read_act,
    reads_as,
    reply_agrees,
)

_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
_POINTERS = data.words("acts", "event_pointers")
_PERSON_POINTERS = data.words("acts", "person_pointers")
# A follow-up that names no activity and points at nothing may say this many other words
# ("push to friday", "cancel pls"); "cancel my newsletter subscription" says more.
MAX_UNNAMED_WORDS = 0
# Acts that are no answer to a proposal, whatever time they state.
_NOT_ANSWERS = frozenset(
    {"cancel", "decline", "calendar_question", "ask_availability", "draft", "remember",
     "recall", "forget"}
)  # fmt: skip


@dataclass(frozen=True)
class Meant:
    """The chat's event a request is about, whether the request names it, and the events it
    names alike when it cannot tell them apart (then `event` is None)."""

    event: CalendarEvent | None
    named: bool
    alike: tuple[CalendarEvent, ...] = ()


@dataclass(frozen=True)
class FollowUp:
    """A follow-up act on one of the chat's events (or a question back about it)."""

    act: Literal["cancel", "move", "answer", "confirm", "ask_cancel", "ask_which"]
    event: CalendarEvent
    alike: tuple[CalendarEvent, ...] = ()  # "ask_which": the events the words name alike


def find_follow_up(
    request: str,
    *,
    thread: str,
    mentions: list[TimeMention],
    store: CalendarStore,
    session: str | None,
    now: datetime,
    tz: str,
    pending: dict[str, Any] | None = None,
    offered: Sequence[dict[str, Any]] = (),
    value_of: Callable[[str], str | None] = lambda placeholder: None,
) -> FollowUp | None:
    """The follow-up this request is, or None when it is anything else.

    `pending` is the event the chat's previous turn proposed (and asked about). A request that
    states a time then answers it ("thursday at 7pm", "make it 20:30"): the proposal becomes
    the event at that time, rather than a new event named after the answer's words. `offered`
    are all the options that turn proposed: a day alone that names one of them ("wednesday
    works" after Mon, Tue and Wed were offered) picks it.
    """
    if not session or thread.strip():
        return None
    said = [m for m in mentions if m.source == "request" and m.value is not None]
    # "push it back an hour", "30 min earlier": a shift by an amount is a new time too
    shifts = [m for m in mentions if m.source == "request" and m.shift is not None]
    act = read_act(request, "request").act
    if pending is not None:
        answer = _answer_to(
            pending, offered, request, said, shifts, act, tz=tz, session=session, value_of=value_of
        )
        if answer is not None:
            return answer
    ahead = store.upcoming_of_chat(session, now)
    follow: Literal["cancel", "move"] | None = None
    people = people_named(request, value_of)
    meant = _meant(request, ahead, said, tz, people)
    event, named = meant.event, meant.named
    offer = _proposal(pending, tz=tz, session=session) if pending is not None else None
    if pending is not None and (
        not named or (offer and _meant(request, [offer], [], tz, people).named)
    ):
        return None  # after Veil's own proposal, "cancel it" / "cancel the meeting" is its
    # forgetting counts only for an event named by its activity: "forget that <PERSON_1> is
    # vegetarian" forgets a fact about a person whose lunch stays
    by_activity = event is not None and any(
        names_word(a, title_words(event)) for a in named_activities(request)
    )
    drops = reads_as(request, "call_off") or (by_activity and forgets_or_calls_off(request))
    if event and _names_no_other_time(said, event, tz) and drops:
        follow = "cancel"  # the user declining (or forgetting) their own chat's event calls it off
    elif (shifts and not said) or ((said or shifts) and reads_as(request, "change")):
        # a time moved by an amount ("media hora más tarde", "eine halbe Stunde früher") is a
        # change whatever else the sentence reports
        meant = _meant(request, ahead, [], tz, people)  # the day said is the new one
        follow, event = "move", meant.event
    if meant.alike and (reads_as(request, "call_off") or reads_as(request, "change")):
        return FollowUp("ask_which", meant.alike[0], meant.alike)
    if follow is None or event is None:
        return None
    group: Group = "call_off" if follow == "cancel" else "change"
    if _negated(request, group) or not _about(request, event, [*said, *shifts], group, value_of):
        return None  # "don't cancel dinner", "n'annule pas le dîner"
    if follow == "cancel" and request.rstrip().endswith("?"):
        return FollowUp("ask_cancel", event)  # "should I cancel the meeting?" asks back
    return FollowUp(follow, event)


def _negated(request: str, group: Group) -> bool:
    """Whether a negation stands right beside a word that alone reads as the act, in one
    clause: "don't cancel dinner", "n'annule pas", "nicht absagen", "no canceles" (and not "I
    can't make it, cancel dinner", where the act's word is not negated)."""
    for clause in re.split(r"[.,;:!?\n]", request):
        tokens = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", clause)  # "don't" is one
        for at, token in enumerate(tokens):
            if not NEGATION_RE.fullmatch(token) and not re.search(r"n['’]t$", token, re.I):
                continue
            beside = tokens[max(0, at - 2) : at] + tokens[at + 1 : at + 3]
            if any(reads_as(word, group) for word in content_words(" ".join(beside))):
                return True
    return False


def _starts(event: CalendarEvent) -> datetime:
    return event.start


def _title_key(event: CalendarEvent) -> str:
    return " ".join(title_words(event))


def _answer_to(
    pending: dict[str, Any],
    offered: Sequence[dict[str, Any]],
    request: str,
    said: list[TimeMention],
    shifts: list[TimeMention],
    act: str,
    *,
    tz: str,
    session: str,
    value_of: Callable[[str], str | None],
) -> FollowUp | None:
    """The request as an answer to the proposal of the chat's previous turn, or None."""
    # A proposal's clock was Veil's suggestion (a meal default), so only a clock time
    # answers it. An event refused for words read two ways ("at 8", "next thursday") had
    # the user's own day and clock: a day or a clock time answers it.
    picked = _picked_option(offered, said, act, tz=tz, session=session)
    # an answer to Veil's offer is a reply: read as one ("wednesday works" is a yes there)
    if picked is not None and (
        "?" in request or not (reply_agrees(request) or reads_as(request, "add", "thread"))
    ):
        picked = None  # "what about tuesday?" asks, "tuesday I'm out" refuses: no pick
    if picked is not None:
        return FollowUp("confirm", picked)
    proposal = _proposal(pending, tz=tz, session=session)
    own = pending.get("status") == "blocked"
    if proposal is not None and pending.get("held") and not said and not shifts:
        # "Should I add it at 03:00?" - "yes": the start the input stated, now agreed
        return FollowUp("confirm", proposal) if reads_as(request, "add") else None
    if proposal is None or not any(m.has_clock_time or (own and m.all_day) for m in said):
        return None
    # After "which did you mean: A or B?" a bare day is the pick, whatever else a bare day
    # can be; after a proposal of Veil's own, a question or a cancel is no answer.
    group: Group = "change" if reads_as(request, "change") else "add"  # "lo han movido a las 2"
    if (not own and act in _NOT_ANSWERS) or not _about(request, proposal, said, group, value_of):
        return None
    return FollowUp("answer", proposal)


def _meant(
    request: str,
    ahead: list[CalendarEvent],
    said: list[TimeMention],
    tz: str,
    people: list[str],
) -> Meant:
    """Which of the chat's events still ahead (changed last first) the follow-up is about, and
    whether the request names it.

    The activities it names pick the events whose title all of them name ("forget dinner"
    with a lunch and a dinner ahead; an activity no event has names none: "cancel the
    dentist"); with none named, its other words pick the events whose title one of them names
    ("annulla l'aperitivo"), and so do the `people` it names ("Diego lo cambió a las 3"); a day
    it names alone picks the events on that day ("cancel thursday"); of those, or of all when it
    names nothing, the one changed last ("cancel it")."""
    # a kind any plan can be ("friday's appointment") that no event's title names points, as
    # "it" does
    activities = [
        a for a in named_activities(request) if a not in PLAN_KINDS or named_by([a], ahead)
    ]
    if activities:
        ahead = named_by(activities, ahead)
    words = content_words(request)
    naming = [
        e for e in ahead
        if naming_count(words, e) or any(holds_person(e, p) for p in people)
    ]  # fmt: skip
    named = bool(activities and ahead) or bool(naming)
    ahead = naming or ahead
    zone = ZoneInfo(tz)
    days = {
        m.value.astimezone(zone).date()
        for m in said
        if m.value is not None and not m.has_clock_time and states_date(m.text)
    }
    on_day = [e for e in ahead if e.start.astimezone(zone).date() in days]
    picked = on_day or ahead
    if named and len(picked) > 1 and len({_title_key(e) for e in picked}) < len(picked):
        return Meant(None, named, tuple(picked))  # two dentist visits ahead: which one?
    return Meant((picked or [None])[0], named)


def _picked_option(
    offered: Sequence[dict[str, Any]],
    said: list[TimeMention],
    act: str,
    *,
    tz: str,
    session: str,
) -> CalendarEvent | None:
    """The one offered option on the day an answer names alone ("wednesday works", "the 2nd
    is good"), or None: a clock answers by itself, a question or a no is no pick, and a day
    that names no option, or two, picks nothing. A weekday alone matches the option on that
    weekday (the options may lie next week)."""
    if len(offered) < 2 or len(said) != 1 or said[0].has_clock_time or act in _NOT_ANSWERS:
        return None
    zone = ZoneInfo(tz)
    day = said[0]
    if (
        day.value is None
        or day.end_value is not None
        and day.end_value - day.value > timedelta(days=1)
    ):
        return None  # "next week" names no one day
    named = day.value.astimezone(zone).date()
    options = [p for p in (_proposal(o, tz=tz, session=session) for o in offered) if p]

    def on_that_day(option: CalendarEvent) -> bool:
        local = option.start.astimezone(zone).date()
        return local.weekday() == named.weekday() if weekday_only(day.text) else local == named

    matches = [o for o in options if on_that_day(o)]
    return matches[0] if len(matches) == 1 else None


# Grains of a date too coarse to name a day of their own: a call-off that says "this week"
# points at the event it names, it does not counter with another day.
_COARSE_GRAINS = frozenset({"week", "month", "quarter", "year"})


def _names_no_other_time(said: list[TimeMention], event: CalendarEvent, tz: str) -> bool:
    """Whether the times a call-off says only point at the event ("cancel thursday's lunch" on
    that Thursday, "le déjeuner" as the meal, "quiz isn't happening this week"): no clock time,
    which would make it a counter ("can't do 1, 3?"), and no day but the event's own."""
    zone = ZoneInfo(tz)
    day = event.start.astimezone(zone).date()

    def other_day(mention: TimeMention) -> bool:
        if not states_date(mention.text) or mention.value is None:
            return False
        if mention.grain in _COARSE_GRAINS:  # "this week", "en marzo" name no one day
            return False
        said_day = mention.value.astimezone(zone).date()
        # "thursday" read as this week's names next week's Thursday as well
        return said_day != day and not (
            said_day.weekday() == day.weekday() and 0 < (day - said_day).days <= 7
        )

    return not any(m.has_clock_time or other_day(m) for m in said)


def _proposal(pending: dict[str, Any], *, tz: str, session: str) -> CalendarEvent | None:
    """The proposed event of the previous turn's answer, as an event to create."""
    try:
        start = datetime.fromisoformat(str(pending["start"]))
        # the proposal's own length (a dinner's two hours), where the answer it came in says it
        end = datetime.fromisoformat(str(pending["end"])) if pending.get("end") else None
        return CalendarEvent.new(
            str(pending["title"]),
            start,
            end if end is not None and end > start else None,
            tz=tz,
            location=str(pending.get("location") or ""),
            attendees=[str(a) for a in pending.get("attendees") or []],
            session=session,
        )
    except (KeyError, ValueError):
        return None


def _about(
    request: str,
    event: CalendarEvent,
    said: list[TimeMention],
    group: Group,
    value_of: Callable[[str], str | None],
) -> bool:
    """Whether the request is about `event`: every activity it names names the event ("cancel
    the meeting, lunch is still on" is about no one event), and it names one, points back at
    the chat's event, or says little else besides filler, times, the words that do the act
    (`group`, read by the act model) and everyday words of its language ("ela mudou para as
    11h"; "cancel my newsletter subscription" says more)."""
    title = title_words(event)
    named = [a for a in named_activities(request) if a not in PLAN_KINDS or names_word(a, title)]
    if not all(names_word(word, title) for word in named):
        return False
    # a placeholder whose person the event does not have ("et <PERSON_1> mardi à 11h15" adds a
    # plan with them; a word read as a name is one too) is one more word of something else
    people = people_named(request, value_of)
    strangers = [p for p in people if not holds_person(event, p)]
    strangers += [p for p in placeholders(request) if not value_of(p)]
    strangers += roles_lacked(request, event)  # "forget the dinner with my boss"
    spans = [(m.start, m.end) for m in said]
    blanked = PLACEHOLDER_RE.sub(lambda m: " " * len(m.group()), request)
    words = [
        w.group().casefold()
        for w in LETTERS_RE.finditer(blanked)
        if not any(s <= w.start() < e for s, e in spans)
    ]
    if strangers:
        return False  # "cancel dinner with <PERSON_2>": another dinner than <PERSON_1>'s
    pointers = (_POINTERS | _PERSON_POINTERS if event.attendees else _POINTERS) | PLAN_KINDS
    if any(w in pointers for w in words) and not named:
        return True
    everyday = set(words) - set(content_words(request))
    # words that argue against the act model's reading argue for nothing when the model does
    # not read the act (a move by an amount in reported words: "me ha escrito el fisio, que
    # vaya media hora más tarde")
    against = counter_words(request, group) if reads_as(request, group) else frozenset()
    doing = act_words(request, group)
    other = [
        w for w in words
        if w not in everyday and w not in doing and len(w) >= 3
        and not names_word(w, title) and w not in named
    ]  # fmt: skip
    if named or people or any(names_word(w, title) for w in set(words) - everyday):
        # the event is named: the rest may say why or when ("lunch needs to move to friday"),
        # unless it argues against the act ("cancel my gym membership")
        return not any(w in against for w in other)
    return len(other) <= MAX_UNNAMED_WORDS


def carry_out(
    follow: FollowUp,
    *,
    store: CalendarStore,
    mentions: list[TimeMention],
    tz: str,
    now: datetime,
    out_dir: Path,
) -> TurnBundle:
    """Cancel or move the event; the bundle says what happened, or asks."""
    event = follow.event
    if follow.act == "ask_which":
        listed = " or ".join(event_time(e, tz) for e in sorted(follow.alike, key=_starts))
        return _asked(
            f"Which {event.title} do you mean: {listed}? Say it with its day.",
            "move_event", "the words name more than one event",
        )  # fmt: skip
    if follow.act == "ask_cancel":
        return _asked(
            f"Should I cancel {_said(event)}? Say “cancel {event.title}” and I will.",
            "cancel_event", "asked as a question: confirm",
        )  # fmt: skip
    if follow.act == "cancel":
        store.remove(event)
        gone = replace(event, sequence=event.sequence + 1)
        path = _write(out_dir, gone, cancel=True, now=now)
        return _bundle(
            f"Cancelled {_said(event)}. Import the .ics to take it off your calendar.",
            gone, "cancelled", path, "cancel_event", f"cancelled uid {event.uid}",
        )  # fmt: skip
    # an answer to Veil's offer speaks of the days offered: "thursday at 1" after a lunch was
    # offered for next week is next week's Thursday, not this one's
    answering = follow.act == "answer"
    start, reason = moved_start(event.start, mentions=mentions, tz=tz, now=now, near=answering)
    if follow.act == "confirm":
        start, reason = event.start, "the proposed start, confirmed"
        if start <= now:
            start, reason = None, f"{event_time(event, tz)} has passed"
    if follow.act in ("answer", "confirm"):
        return _answer(event, start, reason, store=store, tz=tz, now=now, out_dir=out_dir)
    if start is not None and start == event.start:
        # "bump thursday's lunch by half an hour": the day said is the day it has, and no new
        # clock was read; moving it there would claim a change that changes nothing
        start, reason = None, "no new time was read"
    if start is None:
        question = f"What time should I move {_said(event)} to? ({reason})"
        return _asked(question, "move_event", reason)
    try:
        moved = store.move(event, start, start + event.duration)
    except StoreError as error:
        return TurnBundle(
            reply=f"I did not move {_said(event)}: {error}.",
            question=None,
            events=[],
            files=[],
            plan=[PlanItem("move_event", {"start": start.isoformat()}, "move the event")],
            steps=[StepOutcome("move_event", "failed", 1, str(error))],
            planner="rules",
        )
    path = _write(out_dir, moved, cancel=False, now=now)
    return _bundle(
        f"Moved {event.title} to {event_time(moved, moved.tz)}. Import the .ics to update your "
        "calendar; it replaces the earlier one.",
        moved, "updated", path, "move_event", f"moved to {reason}", _conflicts(store, moved),
    )  # fmt: skip


def _asked(question: str, tool: str, why: str) -> TurnBundle:
    """A follow-up that changes nothing and asks one question (`why` is the step's detail)."""
    return TurnBundle(
        reply=question,
        question=question,
        plan=[PlanItem(tool, {}, f"{tool.replace('_', ' ')} of the chat's event, once answered")],
        steps=[StepOutcome(tool, "blocked", 1, why)],
        planner="rules",
    )


def _answer(
    proposal: CalendarEvent,
    start: datetime | None,
    reason: str,
    *,
    store: CalendarStore,
    tz: str,
    now: datetime,
    out_dir: Path,
) -> TurnBundle:
    """The proposal created at the time the answer states, or one question."""
    if start is None:
        question = f"When should I put {proposal.title}? ({reason})"
        return TurnBundle(
            reply=question,
            question=question,
            plan=[PlanItem("create_event", {}, "create the proposed event")],
            steps=[StepOutcome("create_event", "blocked", 1, reason)],
        )
    event = CalendarEvent.new(
        proposal.title,
        start,
        start + proposal.duration,
        tz=tz,
        location=proposal.location,
        attendees=list(proposal.attendees),
        alarm_minutes=15,
        session=proposal.session,
    )
    stored = store.add(event)
    if not stored.added:
        return TurnBundle(
            reply=f"{proposal.title} is already in your calendar ({stored.reason}).",
            plan=[PlanItem("create_event", {}, "create the proposed event")],
            steps=[StepOutcome("create_event", "ok", 1, stored.reason)],
        )
    path = _write(out_dir, event, cancel=False, now=now)
    return _bundle(
        f"Created {_said(event)}, as you answered. Download the .ics to add it to your calendar.",
        event, "created", path, "create_event", f"created at {reason}", _conflicts(store, event),
    )  # fmt: skip


def _said(event: CalendarEvent) -> str:
    return f"{event.title}, {event_time(event, event.tz)}"


def _write(out_dir: Path, event: CalendarEvent, *, cancel: bool, now: datetime) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "cancel" if cancel else "update"
    path = out_dir / f"{event.start:%Y%m%d-%H%M}-{stem}-{event.uid.split('@')[0][:8]}.ics"
    path.write_bytes(export_event(event, now=now, cancel=cancel))
    return path


def _conflicts(store: CalendarStore, event: CalendarEvent) -> list[dict[str, Any]]:
    """What else in the calendar overlaps or crowds the event at its new time, in its zone."""
    near = store.between(event.start - timedelta(days=1), event.end + timedelta(days=1))
    return [
        in_zone(
            {
                "title": c.event.title,
                "start": c.event.start.isoformat(),
                "end": c.event.end.isoformat(),
                "all_day": c.event.all_day,
                "relation": c.relation,
            },
            event.tz,
        )
        for c in Schedule(near).conflicts(event.start, event.end, ignore_uid=event.uid)
    ]


def _bundle(
    reply: str,
    event: CalendarEvent,
    status: str,
    path: Path,
    tool: str,
    detail: str,
    conflicts: list[dict[str, Any]] | None = None,
) -> TurnBundle:
    kind = {"cancelled": "Cancellation", "updated": "Update"}.get(status, "Event")
    label = f"{kind}: {event.title}"
    return TurnBundle(
        reply=reply,
        question=None,
        events=[
            BundleEvent(
                title=event.title,
                start=event.start.isoformat(),
                end=event.end.isoformat(),
                all_day=event.all_day,
                location=event.location,
                attendees=list(event.attendees),
                status=status,  # type: ignore[arg-type]
                uid=event.uid,
                conflicts=conflicts or [],
            )
        ],
        files=[BundleFile("ics", str(path), None, label)],
        plan=[PlanItem(tool, {}, f"{tool.replace('_', ' ')} of the chat's last event")],
        steps=[StepOutcome(tool, "ok", 1, detail)],
        planner="rules",
    )
