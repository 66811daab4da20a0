"""A chat has state: "make it 12:30" and "cancel it" change the event the chat made."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from sqlite_utils import Database

from agent.assistant import Assistant, Turn, build_assistant
from agent.bundle import TurnBundle
from agent.session import answer_in_session
from memory.calendar import CalendarStore
from memory.store import MemoryStore

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))  # a Tuesday


@pytest.fixture
def chat(tmp_path: Path) -> tuple[Assistant, MemoryStore]:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    return assistant, MemoryStore(Database(tmp_path / "veil.db"))


def say(chat: tuple[Assistant, MemoryStore], session: str, request: str, **kw: str) -> TurnBundle:
    assistant, store = chat
    turn = Turn(request=request, now=NOW, tz=TZ, session=session, **kw)
    return answer_in_session(assistant, store, turn)


def ics(bundle: TurnBundle) -> icalendar.Calendar:
    [path] = [f.path for f in bundle.files if f.type == "ics"]
    return icalendar.Calendar.from_ical(Path(str(path)).read_bytes())


def test_make_it_then_cancel_it_change_the_same_event(chat: tuple[Assistant, MemoryStore]) -> None:
    session = chat[1].create_session("lunch").id
    created = say(chat, session, "lunch with Karthik Rao thursday next week at 1")
    assert [e.status for e in created.events] == ["created"]
    [first] = ics(created).walk("VEVENT")

    moved = say(chat, session, "actually make it 12:30")
    [event] = moved.events
    assert event.status == "updated" and event.start.startswith("2026-12-03T12:30")
    [vevent] = ics(moved).walk("VEVENT")
    assert vevent["UID"] == first["UID"] and int(vevent["SEQUENCE"]) == 1
    assert vevent["DTSTART"].dt.hour == 12 and vevent["DTSTART"].params["TZID"] == TZ
    assert "Karthik Rao" in moved.reply

    # "friday" reads two ways for an event next week (this Friday, or that week's): ask.
    asked = say(chat, session, "move it to friday")
    assert not asked.events and asked.question and "Fri 27 Nov or Fri 04 Dec" in asked.question
    moved_day = say(chat, session, "move it to friday dec 4")
    assert moved_day.events[0].start.startswith("2026-12-04T12:30")  # the day, not the clock

    cancelled = say(chat, session, "cancel it please")
    assert [e.status for e in cancelled.events] == ["cancelled"]
    calendar = ics(cancelled)
    assert calendar["METHOD"] == "CANCEL"
    [gone] = calendar.walk("VEVENT")
    assert gone["UID"] == first["UID"] and gone["STATUS"] == "CANCELLED"
    assert int(gone["SEQUENCE"]) == 3
    # Off the calendar: it no longer blocks its time, and the chat has no event left to change.
    calendar_store = CalendarStore(Database(chat[0].data_dir / "veil.db"))
    assert calendar_store.latest_of_chat(session) is None
    assert calendar_store.count() == 0


@pytest.mark.parametrize(
    ("request_text", "hour", "minute"),
    [
        ("push it back an hour", 14, 0),
        ("can we bring it forward 30 minutes", 12, 30),
        ("15 min later please", 13, 15),
    ],
)
def test_a_move_by_an_amount_moves_the_chats_event(
    chat: tuple[Assistant, MemoryStore], request_text: str, hour: int, minute: int
) -> None:
    session = chat[1].create_session("lunch").id
    say(chat, session, "lunch with Karthik Rao thursday next week at 1")
    [event] = say(chat, session, request_text).events
    assert event.status == "updated"
    assert event.start.startswith(f"2026-12-03T{hour:02d}:{minute:02d}")


@pytest.mark.parametrize(
    "request_text",
    [
        "cancel the dentist",  # names something that is not the chat's event
        "dinner with Ana Silva on friday at 8pm",  # a new plan, no follow-up act
        "can we do dinner with Ana Silva on friday at 8pm instead",  # a move act, another plan
        "make it 8",  # 08:00 or 20:00 for a 13:00 lunch: neither is clearly meant
        "the dentist is 30 min later",  # an amount said of something else
        "cancel my newsletter subscription",  # a cancel of something that is no event
        "cancel friday lunch",  # a lunch on another day than the chat's
        "can't do lunch at 1 anymore, 3?",  # a no with a new time counters, it calls nothing off
    ],
)
def test_follow_ups_that_must_not_change_the_event(
    chat: tuple[Assistant, MemoryStore], request_text: str
) -> None:
    session = chat[1].create_session("lunch").id
    say(chat, session, "lunch with Karthik Rao thursday next week at 1")
    answer = say(chat, session, request_text)
    assert not any(e.status in ("updated", "cancelled") for e in answer.events)
    calendar_store = CalendarStore(Database(chat[0].data_dir / "veil.db"))
    month = calendar_store.between(NOW, NOW + timedelta(days=30))
    [kept] = [e for e in month if "Lunch" in e.title]
    assert kept.start.hour == 13 and kept.sequence == 0
    if request_text == "make it 8":
        assert answer.question and "08:00 or 20:00" in answer.question


@pytest.mark.parametrize(
    ("request_text", "status", "start"),
    [
        ("can we push that to 3pm instead?", "updated", "2026-12-03T15:00"),
        ("hmm shift it to 2:30pm pls", "updated", "2026-12-03T14:30"),
        ("lunch needs to move to friday dec 4", "updated", "2026-12-04T13:00"),
        ("forget lunch", "cancelled", None),
        ("verschieb das bitte auf 15 Uhr", "updated", "2026-12-03T15:00"),
        ("annule ça, j'ai un empêchement", "cancelled", None),
        ("cancela eso por favor", "cancelled", None),
        # a call-off split between decline and cancel, idioms, the meal in another language,
        # and the event's own day named in words
        ("drop the lunch, sorry", "cancelled", None),
        ("scrap lunch, something came up", "cancelled", None),
        ("lunch is off", "cancelled", None),
        ("das Mittagessen fällt aus", "cancelled", None),
        ("on laisse tomber le déjeuner", "cancelled", None),
        ("cancel thursday's lunch", "cancelled", None),
        ("bump lunch to 2pm", "updated", "2026-12-03T14:00"),
        # a bare hour in a request the act model reads as a change is the new time, in any
        # words ("make it 2" is one by its own phrasing)
        ("shift that to 2", "updated", "2026-12-03T14:00"),
        ("rück das auf 3", "updated", "2026-12-03T15:00"),
        # a move by an amount that the sentence reports, however the act model reads it
        ("make the lunch an hour later", "updated", "2026-12-03T14:00"),
        ("me ha escrito, que el almuerzo sea media hora más tarde", "updated", "2026-12-03T13:30"),
    ],
)
def test_follow_ups_in_a_persons_own_words(
    chat: tuple[Assistant, MemoryStore], request_text: str, status: str, start: str | None
) -> None:
    session = chat[1].create_session("lunch").id
    made = say(chat, session, "lunch with Karthik Rao thursday next week at 1")
    [event] = say(chat, session, request_text).events
    assert event.status == status and event.uid == made.events[0].uid
    if start is not None:
        assert event.start.startswith(start)
    assert "Instead" not in event.title and event.title == made.events[0].title


def test_another_chat_or_a_pasted_thread_is_not_a_follow_up(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    sessions = chat[1]
    lunch = sessions.create_session("lunch").id
    say(chat, lunch, "lunch with Karthik Rao thursday next week at 1")
    other = sessions.create_session("other").id
    assert not say(chat, other, "cancel it").events  # nothing of this chat to cancel
    pasted = say(chat, lunch, "cancel it", thread="Ana: the party is cancelled")
    assert not any(e.status == "cancelled" for e in pasted.events)
    kept = CalendarStore(Database(chat[0].data_dir / "veil.db")).latest_of_chat(lunch)
    assert kept is not None and kept.sequence == 0


def _page_chat(
    tmp_path: Path, requests: list[str] | list[tuple[str, str]]
) -> tuple[str, list[dict]]:
    """Turns through the page's own routes in one chat: (session id, each turn's answer). A
    turn is a request, or a (request, pasted thread) pair."""
    from web import create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True})
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    session, answers = None, []
    for said in requests:
        request, thread = said if isinstance(said, tuple) else (said, "")
        body = {
            "request": request, "thread": thread, "tz": TZ, "now": NOW.isoformat(),
            "session": session,
        }  # fmt: skip
        started = client.post("/api/turns", json=body).get_json()
        session = started["session"]
        client.get(started["events"]).get_data(as_text=True)
        answers.append(client.get(f"/api/turns/{started['turn']}").get_json()["answer"])
    return str(session), answers


def _month(tmp_path: Path) -> list:
    return CalendarStore(Database(tmp_path / "veil.db")).between(NOW, NOW + timedelta(days=30))


def test_an_answer_to_a_proposal_creates_the_proposed_event(tmp_path: Path) -> None:
    """Lunch made, a vague dinner proposed, then "make it 20:30": the dinner is created on the
    proposed day at 20:30 (not a new event called "Make"), and the lunch does not move."""
    _, answers = _page_chat(
        tmp_path,
        [
            "lunch with Karthik Rao thursday next week at 1",
            "dinner with Sam Lee sometime next week",
            "make it 20:30",
        ],
    )
    proposed = [e for e in answers[1]["events"] if e["status"] == "proposed"][0]
    [made] = answers[2]["events"]
    assert made["status"] == "created" and made["title"] == proposed["title"]
    assert "Sam Lee" in made["title"]
    assert made["start"][:10] == proposed["start"][:10] and made["start"][11:16] == "20:30"
    titles = sorted(e.title for e in _month(tmp_path))
    assert titles == sorted([proposed["title"], "Lunch with Karthik Rao"])
    [lunch] = [e for e in _month(tmp_path) if e.title.startswith("Lunch")]
    assert lunch.start.hour == 13 and lunch.sequence == 0


@pytest.mark.parametrize(
    ("asked", "thread", "held", "start"),
    [
        # a start at an hour plans almost never start at, from someone else's message
        ("add this", "Alex: can you do the transfer monday at 3am?", "rare_hour",
         "2026-11-30T03:00"),
        # an agreed plan pasted with no request: offered, never created unasked
        ("", "Priya: lunch on monday at 1pm?\nMe: sure!", "unagreed", "2026-11-30T13:00"),
        # the user answered in the thread without a yes; the other side took it as one
        ("add it", "Alex: drinks monday at 6pm\nMe: which bar?\nAlex: so that's a yes",
         "unagreed", "2026-11-30T18:00"),
        # the user said no in the thread; the other side then called the same start settled
        ("add this", "Jonas: tennis on monday at 17:00?\nMe: sorry, monday is out for me\n"
         "Jonas: perfect, monday 17:00 it is then", "unagreed", "2026-11-30T17:00"),
    ],
)  # fmt: skip
def test_a_yes_creates_a_held_proposal_at_its_stated_start(
    tmp_path: Path, asked: str, thread: str, held: str, start: str
) -> None:
    """A start the input stated but nobody agreed to (or at 3 am) is proposed and asked about;
    the user's bare yes creates it at that start, and a no creates nothing."""
    _, answers = _page_chat(tmp_path, [(asked, thread), ("yes", "")])
    [offered] = answers[0]["events"]
    assert offered["status"] == "proposed" and offered["held"] == held
    assert offered["start"][:16] == start and answers[0]["question"]
    [made] = answers[1]["events"]
    assert made["status"] == "created" and made["uid"] and made["start"][:16] == start
    _, refused = _page_chat(tmp_path / "no", [(asked, thread), ("no thanks", "")])
    assert not any(e["status"] == "created" for e in refused[1]["events"])


@pytest.mark.parametrize(
    ("first", "answer", "start"),
    [
        # words read two ways: the answer picks the reading, the rest of the user's words stay
        ("meet Ana Silva friday at 8", "8pm", "2026-11-27T20:00"),
        ("lunch with Karthik Rao next thursday at 1", "thursday 26th", "2026-11-26T13:00"),
        ("lunch with Karthik Rao next thursday at 1", "thursday 3 december", "2026-12-03T13:00"),
    ],
)
def test_an_answer_to_a_question_of_two_readings_creates_that_one(
    tmp_path: Path, first: str, answer: str, start: str
) -> None:
    _, answers = _page_chat(tmp_path, [first, answer])
    [asked] = answers[0]["events"]
    assert asked["status"] == "blocked" and "could mean" in answers[0]["reply"]
    assert answers[0]["question"].startswith(f"Which did you mean for {asked['title']}: ")
    [made] = answers[1]["events"]
    assert made["status"] == "created" and made["title"] == asked["title"]
    assert made["start"][:16] == start


def test_a_new_plan_after_a_question_of_two_readings_is_its_own(tmp_path: Path) -> None:
    _, answers = _page_chat(
        tmp_path, ["meet Ana Silva friday at 8", "lunch with Sam Lee on monday nov 30 at 1pm"]
    )
    [made] = answers[1]["events"]
    assert made["title"].startswith("Lunch") and made["start"][:16] == "2026-11-30T13:00"


@pytest.mark.parametrize(
    "answer",
    [
        "lunch with Ana on friday dec 4 at 1",  # must not fire: a new plan, not the answer
        "monday nov 30 then",  # must not fire: a day alone keeps Veil's own clock (a default)
    ],
)
def test_answers_that_must_not_fill_the_proposal(tmp_path: Path, answer: str) -> None:
    _, answers = _page_chat(tmp_path, ["dinner with Sam Lee sometime next week", answer])
    proposed = [e for e in answers[0]["events"] if e["status"] == "proposed"][0]
    made = [e for e in answers[1]["events"] if e["status"] == "created"]
    assert not any(e["title"] == proposed["title"] for e in made)
    if answer.startswith("thursday"):
        assert answers[1]["question"] and "could be" in answers[1]["question"]


@pytest.mark.parametrize(
    ("said", "dated"),
    [
        ("friday dec 4", True),
        ("4 Dec", True),
        ("the 4th", True),
        ("4.12.", True),
        # must not count as a date: weekdays (also those that start like a month) and clocks
        ("friday at 9", False),
        ("mardi à 19h", False),
        ("martes a las 7", False),
        ("thursday at 7pm", False),
        ("19:00", False),
    ],
)
def test_a_day_is_dated_only_by_its_date_not_its_weekday_or_clock(said: str, dated: bool) -> None:
    from tools.calendar.gate import _DATED_RE

    assert bool(_DATED_RE.search(said)) is dated


def test_a_move_reports_what_the_new_time_overlaps(chat: tuple[Assistant, MemoryStore]) -> None:
    session = chat[1].create_session("thursday").id
    say(chat, session, "call with Bo Chen thursday next week at 12")
    say(chat, session, "lunch with Karthik Rao thursday next week at 2pm")
    moved = say(chat, session, "actually make it 12:30")
    [event] = moved.events
    assert event.status == "updated" and event.start.startswith("2026-12-03T12:30")
    assert [c["title"] for c in event.conflicts] == ["Call with Bo Chen"]


def test_a_move_the_chat_cannot_tie_to_its_event_creates_nothing(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    """A request read as changing a time that names an activity the chat does not hold (the
    dentist, with only a lunch ahead) is no ask for a new event: it is offered with why, never
    created under the verb's name, and the lunch stays. The same move in Spanish with only the
    act's own words ("pásalo", which the act model reads as the move) is the lunch's."""
    session = chat[1].create_session("lunch").id
    say(chat, session, "lunch with Karthik Rao thursday next week at 1")
    moved = say(chat, session, "pásalo a las 3")
    assert [e.status for e in moved.events] == ["updated"]
    calendar = CalendarStore(Database(chat[1].db.conn))
    [lunch] = calendar.between(NOW, NOW + timedelta(days=30))
    assert (lunch.start.hour, lunch.title) == (15, "Lunch with Karthik Rao")
    asked = say(chat, session, "move the dentist to 4pm")
    assert not any(e.status in ("created", "updated") for e in asked.events)
    assert "moving something" in asked.reply
    [lunch] = calendar.between(NOW, NOW + timedelta(days=30))
    assert lunch.start.hour == 15


def test_a_plan_pasted_without_a_request_says_why_it_waits(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    session = chat[1].create_session("pasted").id
    bundle = say(chat, session, "", thread="Kofi Mensah: lunch thursday at 1?\nMe: sounds good")
    assert [e.held for e in bundle.events] == ["unagreed"]
    assert "you did not ask me to add it" in bundle.reply and "leaves it open" not in bundle.reply


@pytest.mark.parametrize(
    ("answer", "day"),
    [("wednesday works", "2026-12-02"), ("mittwoch passt", "2026-12-02"),
     ("what about wednesday?", None), ("wednesday I'm out", None)],
)  # fmt: skip
def test_a_day_that_names_one_offered_option_picks_it(
    tmp_path: Path, answer: str, day: str | None
) -> None:
    """Veil offered three evenings next week; a day alone that names one of them, read as no
    refusal by the reply-stance head, creates that option under the plan's own title (never an
    event called "Works"); a question or a no about that day picks nothing."""
    _, answers = _page_chat(tmp_path, ["dinner with Sam Lee sometime next week", answer])
    offered = [e for e in answers[0]["events"] if e["status"] == "proposed"]
    assert len(offered) >= 2 and any(e["start"].startswith("2026-12-02") for e in offered)
    made = [e for e in answers[1]["events"] if e["status"] == "created"]
    if day is None:
        assert made == []
    else:
        [event] = made
        assert event["title"] == offered[0]["title"] and event["start"][:10] == day
        [chosen] = [e for e in offered if e["start"][:10] == day]
        assert event["start"] == chosen["start"]


def test_a_follow_up_acts_on_the_event_it_names_not_the_last_one(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    """With a dinner and then a lunch ahead, "forget dinner" cancels the dinner, "move the
    lunch" moves the lunch, and "cancel thursday" the event on Thursday; one the chat does
    not hold ("cancel the dentist") changes nothing."""
    session = chat[1].create_session("two").id
    calendar = CalendarStore(Database(chat[0].data_dir / "veil.db"))

    def starts() -> list[str]:
        ahead = calendar.upcoming_of_chat(session, NOW)
        return sorted(f"{e.title.split()[0]} {e.start:%a %H:%M}" for e in ahead)

    assert say(chat, session, "dinner with Anna on Friday at 7:30pm").events[0].status == "created"
    assert say(chat, session, "lunch with Ben on Thursday at 1pm").events[0].status == "created"
    assert say(chat, session, "call with Carla on Wednesday at 9am").events[0].status == "created"
    assert starts() == ["Call Wed 09:00", "Dinner Fri 19:30", "Lunch Thu 13:00"]

    assert say(chat, session, "move dinner to 8pm").events[0].status == "updated"
    assert starts() == ["Call Wed 09:00", "Dinner Fri 20:00", "Lunch Thu 13:00"]
    untouched = say(chat, session, "cancel the dentist")
    assert not any(e.status == "cancelled" for e in untouched.events)
    assert starts() == ["Call Wed 09:00", "Dinner Fri 20:00", "Lunch Thu 13:00"]
    assert say(chat, session, "cancel thursday").events[0].status == "cancelled"
    assert starts() == ["Call Wed 09:00", "Dinner Fri 20:00"]
    assert say(chat, session, "forget dinner, something came up").events[0].status == "cancelled"
    assert starts() == ["Call Wed 09:00"]


def test_a_verb_that_is_also_an_activity_and_a_kind_of_plan_name_no_event(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    """ "call off thursday's lunch" names a lunch, not a call; "friday's appointment" is what
    friday holds; "can we shift the dinner to 9?" moves it to 21:00; and a move to the time
    the event already has asks instead of claiming it moved."""
    session = chat[1].create_session("kinds").id
    calendar = CalendarStore(Database(chat[0].data_dir / "veil.db"))

    def starts() -> list[str]:
        ahead = calendar.upcoming_of_chat(session, NOW)
        return sorted(f"{e.title.split()[0]} {e.start:%a %H:%M}" for e in ahead)

    say(chat, session, "lunch with Ben on Thursday at 1pm")
    say(chat, session, "dentist on Friday at 4pm")
    say(chat, session, "dinner with Anna on Saturday at 7:30pm")
    assert starts() == ["Dentist Fri 16:00", "Dinner Sat 19:30", "Lunch Thu 13:00"]
    assert say(chat, session, "can we shift the dinner to 9?").events[0].status == "updated"
    assert starts() == ["Dentist Fri 16:00", "Dinner Sat 21:00", "Lunch Thu 13:00"]
    asked = say(chat, session, "bump saturday's dinner by a bit")
    assert not asked.events and asked.question and "What time" in asked.question
    assert say(chat, session, "call off thursday's lunch").events[0].status == "cancelled"
    assert starts() == ["Dentist Fri 16:00", "Dinner Sat 21:00"]
    assert say(chat, session, "get rid of friday's appointment").events[0].status == "cancelled"
    assert starts() == ["Dinner Sat 21:00"]
    # a kind of plan with no day that picks one, while an event's title names it, is that one
    untouched = say(chat, session, "cancel the dentist appointment")
    assert not any(e.status == "cancelled" for e in untouched.events)
    assert starts() == ["Dinner Sat 21:00"]


def test_an_answer_with_no_clock_keeps_the_proposal_and_a_call_off_of_nothing_adds_nothing(
    tmp_path: Path,
) -> None:
    """After Veil offers times for a coffee, "thursday morning works" offers Thursday morning
    for that coffee (with its person), never a plan called "Works"; "scrap dinner, something
    came up" with no dinner in the chat cancels nothing and proposes no "Scrap dinner"."""
    _, answers = _page_chat(
        tmp_path,
        [
            "coffee with Sam Lee sometime next week",
            "thursday morning works",
            "scrap dinner, something came up",
        ],
    )
    offered = [e for e in answers[1]["events"] if e["status"] == "proposed"]
    assert offered and all(e["title"] == "Coffee with Sam Lee" for e in offered)
    assert all(e["start"][11:13] < "12" for e in offered)  # the morning asked for
    assert answers[2]["events"] == [] and "nothing was cancelled" in answers[2]["reply"]
    assert _month(tmp_path) == []


@pytest.mark.parametrize(
    "request_text",
    [
        "don't cancel dinner",  # a negated act
        "n'annule pas le dîner",
        "das Abendessen bitte nicht absagen",
        "cancel dinner with Paul",  # a person the dinner does not have
        "forget what I said about Anna being vegetarian",  # memory's, not the calendar's
        "should I cancel dinner?",  # a question asks back
        "Anna's dinner party got cancelled, but ours is still on",  # news, not an act
        "cancela la peluquería",  # a plan the chat does not hold, beside the act's verb
        "cancel the dentist, not the dinner",  # two events named: which is not read
        "cancel the meeting, dinner is still on",  # one named plan the chat does not hold
    ],
)
def test_words_that_name_an_event_but_do_not_call_it_off_leave_it(
    chat: tuple[Assistant, MemoryStore], request_text: str
) -> None:
    session = chat[1].create_session("keep").id
    say(chat, session, "dinner with Anna Weber on Friday at 7pm")
    say(chat, session, "dentist on Monday at 9am")
    answer = say(chat, session, request_text)
    assert not any(e.status in ("cancelled", "updated") for e in answer.events)
    ahead = CalendarStore(Database(chat[0].data_dir / "veil.db")).upcoming_of_chat(session, NOW)
    assert sorted(e.title for e in ahead) == ["Dentist", "Dinner with Anna Weber"]
    if request_text.endswith("?"):
        assert answer.question and "Dinner with Anna Weber" in answer.question


def test_two_events_named_alike_are_asked_about(chat: tuple[Assistant, MemoryStore]) -> None:
    session = chat[1].create_session("gym").id
    say(chat, session, "gym on Thursday at 7am")
    say(chat, session, "gym on Friday at 7am")
    asked = say(chat, session, "cancel gym")
    assert asked.question and "Thu 26 Nov" in asked.question and "Fri 27 Nov" in asked.question
    assert say(chat, session, "cancel gym on friday").events[0].status == "cancelled"
    [left] = CalendarStore(Database(chat[0].data_dir / "veil.db")).upcoming_of_chat(session, NOW)
    assert left.start.strftime("%a %H:%M") == "Thu 07:00"


def test_a_move_that_names_the_old_day_or_clock_moves_to_the_new_one(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    """ "Sam can't do friday, shift it to saturday same time": the event's own day (or clock)
    in a move names what moves, and the other one is where to."""
    session = chat[1].create_session("old").id
    calendar = CalendarStore(Database(chat[0].data_dir / "veil.db"))
    say(chat, session, "drinks with Sam Okafor on Friday at 7pm")
    moved = say(chat, session, "sam can't do friday anymore, shift it to saturday same time")
    assert [e.status for e in moved.events] == ["updated"]
    assert moved.events[0].start.startswith("2026-11-28T19:00")
    moved = say(chat, session, "the 7pm slot is gone, make it 8:30")
    assert moved.events[0].start.startswith("2026-11-28T20:30")
    [left] = calendar.upcoming_of_chat(session, NOW)
    assert left.start.strftime("%a %H:%M") == "Sat 20:30"


@pytest.mark.parametrize(
    ("made", "request_text"),
    [
        ("my flight to Lisbon on Friday at 6:40am", "cancel the flight, something came up"),
        ("moive night with the kids on Friday at 7pm", "scrap movie night"),  # a slip
    ],
)
def test_a_cancel_names_its_event_not_the_last_one_even_through_a_typo(
    chat: tuple[Assistant, MemoryStore], made: str, request_text: str
) -> None:
    session = chat[1].create_session("named").id
    assert say(chat, session, made).events[0].status == "created"
    say(chat, session, "dentist on Monday at 9am")  # changed last: the cancel must name its own
    cancelled = say(chat, session, request_text)
    assert [e.status for e in cancelled.events] == ["cancelled"]
    [left] = CalendarStore(Database(chat[0].data_dir / "veil.db")).upcoming_of_chat(session, NOW)
    assert left.title == "Dentist"


def test_an_answer_that_names_the_person_by_a_pronoun_takes_the_offered_week(
    tmp_path: Path,
) -> None:
    """A lunch offered for next week, then "he says thursday at 1 works": the lunch with its
    person on next week's Thursday (the week offered; NOW is a Tuesday, so this week's
    Thursday is two days off), not an event titled "Says" this week."""
    _, answers = _page_chat(
        tmp_path, ["lunch with Omar Haddad sometime next week", "he says thursday at 1 works"]
    )
    [made] = [e for e in answers[1]["events"] if e["status"] == "created"]
    assert made["title"] == "Lunch with Omar Haddad"
    assert made["start"].startswith("2026-12-03T13:00")
    [held] = _month(tmp_path)
    assert held.start.astimezone(ZoneInfo(TZ)).strftime("%a %d %H:%M") == "Thu 03 13:00"


@pytest.mark.parametrize("answer", ["tomorrow at 10", "this thursday at 10"])
def test_an_answer_that_says_which_week_is_not_moved_into_the_offer(
    tmp_path: Path, answer: str
) -> None:
    """ "tomorrow at 10" after a coffee was offered for next week is not next week's Wednesday:
    only a weekday alone is read in the week offered."""
    _, answers = _page_chat(tmp_path, ["coffee with Ana Ruiz sometime next week", answer])
    made = [e for e in answers[1]["events"] if e["status"] == "created"]
    assert all(e["start"][:10] not in ("2026-12-02", "2026-12-03") for e in made)


def test_a_meal_in_another_language_is_offered_at_its_hours(tmp_path: Path) -> None:
    """ "Mittagessen" is a lunch: its free times are offered around noon, as "lunch" is, not
    from 09:00."""
    _, answers = _page_chat(tmp_path, ["irgendwann nächste Woche Mittagessen mit Lena Vogel"])
    offered = [e for e in answers[0]["events"] if e["status"] == "proposed"]
    assert offered and all("11" <= e["start"][11:13] <= "14" for e in offered)


def test_a_call_off_that_says_this_week_points_at_the_event(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    """ "this week" names no day of its own: a call-off with it is no counter; a day said
    that is another's still is."""
    session = chat[1].create_session("quiz").id
    say(chat, session, "put the pub quiz in for wednesday at 7.30pm")
    say(chat, session, "and a physio session thursday at 9am")
    other = say(chat, session, "cancel the quiz on friday")
    assert not [e for e in other.events if e.status == "cancelled"]
    called = say(chat, session, "quiz isn't happening this week, take it out")
    assert [(e.title, e.status) for e in called.events] == [("Pub quiz", "cancelled")]
