"""Asked of Veil itself: calendar questions and memory acts, answered by code from the store.

Each table has rows that must fire and rows that must not: a scheduling request, an e-mail
that happens to hold "when is", a pasted thread, "forget it" (a cancel), a note with a clock
time (an event to create).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlite_utils import Database

from agent.assistant import Assistant, Turn, build_assistant
from agent.bundle import TurnBundle
from agent.calendar_answers import answer_calendar_question, find_calendar_question
from agent.contacts import name_roles
from agent.memory_answers import find_memory_act
from agent.session import answer_in_session
from memory.calendar import CalendarStore
from memory.event import CalendarEvent
from memory.store import Contact, MemoryStore
from privacy import EntityMap
from tools.calendar.times import TimeParser

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))  # a Tuesday


def _mentions(request: str) -> list:
    return TimeParser(tz=TZ, now=NOW).parse_input(request, "")


@pytest.mark.parametrize(
    ("request_text", "kind"),
    [
        ("what's on my calendar this week?", "list"),
        ("hey, what do I have next week", "list"),
        ("can you tell me what's on thursday?", "list"),
        ("am I free thursday afternoon?", "free"),
        ("Am I busy on Dec 3?", "free"),
        ("do I have time friday at 1pm?", "free"),
        ("when is lunch with sam?", "when"),
        ("when's the standup", "when"),
        ("was habe ich morgen?", "list"),
        ("suis-je libre jeudi ?", "free"),
        # in words no phrase holds: the act model reads them as calendar questions
        ("what does friday look like?", "list"),
        ("how's my thursday looking", "list"),
        ("wie sieht mein Freitag aus?", "list"),
        ("¿qué tengo el viernes?", "list"),
        # must not fire
        ("lunch with sam friday at 1pm", None),
        ("email sam when is good for lunch", None),
        ("schedule a call, what's on the agenda is the budget", None),
        ("when is good for you on friday?", None),
        ("dinner with sam sometime next week", None),
    ],
)
def test_calendar_questions_by_table(request_text: str, kind: str | None) -> None:
    found = find_calendar_question(
        request_text, thread="", mentions=_mentions(request_text), now=NOW, tz=TZ
    )
    assert (found.kind if found else None) == kind


def test_a_pasted_thread_is_never_a_calendar_question() -> None:
    request = "what's on thursday?"
    thread = "Sam: lunch thursday at 1?"
    assert find_calendar_question(request, thread=thread, mentions=[], now=NOW, tz=TZ) is None


@pytest.fixture
def store() -> CalendarStore:
    calendar = CalendarStore(Database(memory=True))
    berlin, new_york = ZoneInfo(TZ), ZoneInfo("America/New_York")
    calendar.add(CalendarEvent.new("Standup", datetime(2026, 11, 26, 14, tzinfo=berlin), tz=TZ))
    calendar.add(
        CalendarEvent.new(
            "Board call", datetime(2026, 11, 26, 9, tzinfo=new_york), tz="America/New_York"
        )
    )
    calendar.add(
        CalendarEvent.new("Lunch with Sam", datetime(2026, 11, 27, 13, tzinfo=berlin), tz=TZ)
    )
    return calendar


def _answer(request: str, store: CalendarStore) -> str:
    question = find_calendar_question(request, thread="", mentions=_mentions(request), now=NOW,
                                      tz=TZ)  # fmt: skip
    assert question is not None
    return answer_calendar_question(question, store=store, now=NOW, tz=TZ).reply


def test_free_busy_names_the_events_the_free_times_and_the_zone(store: CalendarStore) -> None:
    reply = _answer("am I free thursday afternoon?", store)
    assert reply.startswith("You have 2 events on Thu 26 Nov, 12:00–19:00 (Europe/Berlin)")
    # The New York call is shown at Berlin time, its own zone named beside it.
    assert "Board call, Thu 26 Nov, 15:00–16:00 (Europe/Berlin), 09:00 in its own zone" in reply
    assert "Free: Thu 26 Nov 12:00–14:00, Thu 26 Nov 16:00–19:00 (Europe/Berlin)" in reply
    assert "You are free on Thu 03 Dec (Europe/Berlin)" in _answer("am I free on dec 3?", store)


def test_a_listing_covers_the_asked_window_only(store: CalendarStore) -> None:
    reply = _answer("what's on friday?", store)
    assert reply.startswith("1 event for Fri 27 Nov (Europe/Berlin): Lunch with Sam")
    assert "Standup" not in reply
    assert "Nothing in your calendar" in _answer("what do I have next week?", store)


def test_when_is_finds_the_event_by_its_title_words(store: CalendarStore) -> None:
    assert _answer("when is lunch with sam?", store) == (
        "Lunch with Sam is on Fri 27 Nov, 13:00–14:00 (Europe/Berlin)."
    )
    assert "nothing called “dentist”" in _answer("when is the dentist?", store)


def test_when_is_finds_the_event_the_most_of_its_words_name(store: CalendarStore) -> None:
    """Words the title lacks ("my mother's") do not hide the event the others name, in any
    language; the event more of them name comes first; a word no title holds finds nothing."""
    berlin = ZoneInfo(TZ)
    store.add(CalendarEvent.new("Aniversário", datetime(2026, 12, 20, tzinfo=berlin), tz=TZ,
                                all_day=True))  # fmt: skip
    store.add(CalendarEvent.new("Lunch with Bo", datetime(2026, 11, 28, 13, tzinfo=berlin), tz=TZ))
    assert _answer("when is my mother's aniversário again?", store).startswith(
        "Aniversário is on Sun 20 Dec"
    )
    assert _answer("when is lunch with sam?", store).startswith("Lunch with Sam is on Fri 27 Nov")
    assert "nothing called" in _answer("when is the dentist again?", store)


@pytest.mark.parametrize(
    ("request_text", "act", "text"),
    [
        ("remember that karthik is my cfo", "remember", "karthik is my cfo"),
        (
            "remember that Karthik Rao (karthik@acme.example) is my cfo. Thanks!",
            "remember",
            "Karthik Rao (karthik@acme.example) is my cfo",
        ),
        ("Please remember: Priya prefers mornings.", "remember", "Priya prefers mornings"),
        ("who is karthik?", "recall", "karthik"),
        ("who's my cfo", "recall", "cfo"),
        ("what do you know about the Okafors?", "recall", "Okafors"),
        ("forget karthik", "forget", "karthik"),
        ("forget that priya prefers mornings", "forget", "priya prefers mornings"),
        # must not fire
        ("forget it", None, None),
        ("oh forget about it, thanks", None, None),
        ("remember that the dentist is tomorrow at 3pm", None, None),
        ("who is free on friday?", None, None),
        ("lunch with sam, remember that he is vegan", None, None),
        ("remind me to call karthik tomorrow at 9", None, None),
    ],
)
def test_memory_acts_by_table(request_text: str, act: str | None, text: str | None) -> None:
    found = find_memory_act(request_text, thread="", mentions=_mentions(request_text))
    assert (found.act if found else None) == act
    assert (found.text if found else None) == text


@pytest.mark.parametrize(
    ("redacted", "expected"),
    [
        ("email my cfo about the Q3 numbers", "email <PERSON_1> about the Q3 numbers"),
        ("lunch with my CFO friday at 1", "lunch with <PERSON_1> friday at 1"),
        # must stay: the role describes the person named beside it, or is another word
        ("<PERSON_2> is my cfo", "<PERSON_2> is my cfo"),
        ("<PERSON_2>, my cfo, is late", "<PERSON_2>, my cfo, is late"),
        ("my cfo <PERSON_2> says hi", "my cfo <PERSON_2> says hi"),
        ("my cfos are all away", "my cfos are all away"),
        ("my dentist on friday", "my dentist on friday"),
    ],
)
def test_a_remembered_role_names_its_contact(redacted: str, expected: str) -> None:
    entity_map = EntityMap()
    contacts = [Contact(1, "Karthik Rao", [], "cfo", "karthik@acme.example", "")]
    assert name_roles(redacted, contacts, entity_map) == expected


@pytest.fixture
def chat(tmp_path: Path) -> tuple[Assistant, MemoryStore]:
    return build_assistant(data_dir=tmp_path, no_llm=True), MemoryStore(
        Database(tmp_path / "veil.db")
    )


def say(chat: tuple[Assistant, MemoryStore], session: str, request: str) -> TurnBundle:
    assistant, memory = chat
    return answer_in_session(assistant, memory, Turn(request, NOW, TZ, session=session))


def test_remember_recall_use_and_forget_across_chats(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    memory = chat[1]
    first, second = memory.create_session("a").id, memory.create_session("b").id
    kept = say(chat, first, "remember that Karthik Rao (karthik@acme.example) is my cfo")
    assert "I'll remember that" in kept.reply and not kept.events
    assert "Karthik Rao: your cfo, karthik@acme.example" in kept.reply

    assert "Karthik Rao: your cfo" in say(chat, second, "who is my cfo?").reply
    assert "karthik is my cfo" not in say(chat, second, "who is karthik?").reply.casefold()

    drafted = say(chat, second, "email my cfo about the Q3 numbers")
    eml = next(f for f in drafted.files if f.type == "eml")
    assert "karthik@acme.example" in Path(str(eml.path)).read_text()

    gone = say(chat, second, "forget karthik")
    assert "the contact Karthik Rao" in gone.reply
    assert not memory.contacts() and not memory.facts()
    assert "nothing remembered about karthik" in say(chat, first, "who is karthik?").reply


def test_a_calendar_question_in_a_chat_creates_nothing(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    session = chat[1].create_session("week").id
    say(chat, session, "lunch with sam friday at 1pm")
    before = CalendarStore(Database(chat[0].data_dir / "veil.db")).count()
    answer = say(chat, session, "what's on my calendar this week?")
    assert "Lunch with sam, Fri 27 Nov, 13:00–14:00 (Europe/Berlin)" in answer.reply
    assert not answer.events and not answer.files and answer.question is None
    assert CalendarStore(Database(chat[0].data_dir / "veil.db")).count() == before


@pytest.mark.parametrize(
    "question",
    ["what was it Priya can't eat again?", "remind me what Priya is allergic to", "Priya allergy?"],
)
def test_a_question_about_a_remembered_fact_in_any_words_quotes_it(
    chat: tuple[Assistant, MemoryStore], question: str
) -> None:
    session = chat[1].create_session("notes").id
    say(chat, session, "remember that Priya is allergic to peanuts")
    say(chat, session, "remember that the office wifi password is on the fridge")
    answer = say(chat, session, question)
    assert "Priya is allergic to peanuts" in answer.reply
    assert not answer.events and not answer.files


def test_a_conflict_kept_in_another_zone_is_shown_in_the_users(tmp_path: Path) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    CalendarStore(Database(tmp_path / "veil.db")).add(
        CalendarEvent.new(
            "Board call",
            datetime(2026, 11, 27, 7, tzinfo=ZoneInfo("America/New_York")),  # 13:00 in Berlin
            tz="America/New_York",
        )
    )
    bundle = assistant.ask(Turn("lunch with Sam Lee friday at 1pm", NOW, TZ))
    [event] = bundle.events
    [conflict] = event.conflicts
    assert conflict["start"] == "2026-11-27T13:00:00+01:00" and conflict["relation"] == "overlap"
    assert "It overlaps Board call (Fri 27 Nov, 13:00–14:00, Europe/Berlin)." in bundle.reply


def test_recall_works_from_turns_on_different_threads(tmp_path: Path) -> None:
    """The server runs each turn on its own thread; the fact index outlives them all."""
    import threading

    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    results: list[object] = []

    def turn(request: str) -> None:
        try:
            results.append(assistant.ask(Turn(request, NOW, TZ)).reply)
        except Exception as error:  # the failure is the finding
            results.append(error)

    turn("remember that Priya Patel prefers mornings")
    worker = threading.Thread(target=turn, args=("lunch with Priya Patel?",))  # builds the index
    worker.start()
    worker.join()
    turn("coffee with Priya Patel")  # the main thread: alive, so never the worker's ident
    assert not [r for r in results if isinstance(r, Exception)], results
    assert assistant._index is not None  # the later turns recalled through it


def test_a_remembered_contact_never_reaches_a_prompt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Facts, roles and drafts hold real values in memory; every prompt gets placeholders only,
    and the guard at the model boundary finds nothing left to re-redact."""
    from agent.gateway import ModelGateway
    from tests.fakes import RecordingChatModel

    model = RecordingChatModel()
    assistant = Assistant(ModelGateway(model), data_dir=tmp_path)
    memory = MemoryStore(Database(tmp_path / "veil.db"))
    first, second = memory.create_session("a").id, memory.create_session("b").id
    for session, request in (
        (first, "remember that Karthik Rao (karthik@acme.example, +1 415 555 0100) is my cfo"),
        (second, "email my cfo about the Q3 numbers"),
        (second, "lunch with my cfo friday at 1pm"),
        (second, "what do you know about karthik?"),
    ):
        answer_in_session(assistant, memory, Turn(request, NOW, TZ, session=session))
    prompts = [m.content for messages in model.received for m in messages]
    assert prompts, "the model was asked nothing: the test would prove nothing"
    for secret in ("karthik", "rao", "acme", "555"):
        assert not [p for p in prompts if secret in p.casefold()], secret
    assert "re-redacted" not in caplog.text


def test_a_note_too_long_to_remember_is_refused_with_the_limit(
    chat: tuple[Assistant, MemoryStore],
) -> None:
    session = chat[1].create_session("long").id
    answer = say(chat, session, "remember that " + "the blue car is parked outside " * 30)
    assert "too long to remember" in answer.reply and "the limit is 500" in answer.reply
    assert not chat[1].facts()
