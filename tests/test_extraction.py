"""The rule linker: which stated time belongs to which activity, on redacted text."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent.extraction import ProposedEvent, RuleLinker, candidates
from agent.extraction.title import named_title
from tools.calendar.times import TimeParser

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 21, 9, 30, tzinfo=ZoneInfo(TZ))  # Saturday


def link(request: str, thread: str = "", intent: str = "schedule") -> list[ProposedEvent]:
    mentions = TimeParser(tz=TZ, now=NOW).parse_input(request, thread)
    found = candidates(request, thread, mentions)
    return RuleLinker(TZ, NOW).link(request, thread, found, intent=intent)


def starts(events: list[ProposedEvent]) -> list[str]:
    return [e.start.isoformat() for e in events if e.schedulable]


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("<PERSON_1>: lunch tmrw at 1?\nMe: sure\n<PERSON_1>: actually make it 1:30\nMe: ok",
         ["2026-11-22T13:30:00+01:00"]),
        # a change after the user's yes that the user has not answered waits (the turn asks)
        ("<PERSON_1>: lunch tmrw at 1?\nMe: sure\n<PERSON_1>: actually make it 1:30", []),
        ("<PERSON_1>: coffee on monday?\nMe: 10am works", ["2026-11-23T10:00:00+01:00"]),
        ("<PERSON_1>: call at 3 tomorrow\n<PERSON_1>: can we push to 4pm?",
         ["2026-11-22T16:00:00+01:00"]),
        ("<PERSON_1>: standup tomorrow at 9\n<PERSON_1>: can't make it, skip it", []),
        ("<PERSON_1>: I'm free from 2 to 5 on monday\nMe: ok, review monday at 3",
         ["2026-11-23T15:00:00+01:00"]),
        ("<PERSON_1>: dentist on Tuesday at 9:30\n<PERSON_2>: and dinner friday at 8pm",
         ["2026-11-24T09:30:00+01:00", "2026-11-27T20:00:00+01:00"]),
    ],
)  # fmt: skip
def test_the_latest_word_on_each_event_wins(thread: str, expected: list[str]) -> None:
    assert starts(link("add this", thread)) == expected


def test_offered_options_stay_undecided_until_one_is_picked() -> None:
    [event] = link("add this", "<PERSON_1>: lunch tomorrow at 1pm or 2pm?")
    assert not event.schedulable and len(event.undecided) == 2
    picked = link("add this", "<PERSON_1>: lunch tomorrow at 1pm or 2pm?\nMe: 2pm works")
    assert starts(picked) == ["2026-11-22T14:00:00+01:00"]


def test_a_vague_meal_keeps_its_day_and_no_start() -> None:
    [event] = link("add this", "<PERSON_1>: dinner friday?")
    assert event.start is None and event.meal == "dinner" and str(event.day) == "2026-11-27"


# A date with no clock is a whole day's when its message or the request names a whole-day plan
# (times.toml [all_day]); a meeting or a "free" day stays a question.
@pytest.mark.parametrize(
    ("request_text", "thread", "all_day"),
    [
        ("add the enrollment deadline", "The open enrollment deadline is Friday, December 11.",
         "2026-12-11"),
        # something due on a date is that day's
        ("add the deadline", "<PERSON_1>: Reminder: self-reviews due Dec 18 in Lattice.",
         "2026-12-18"),
        ("add it", "Giving Tree gifts due back by Sunday, Dec. 13", "2026-12-13"),
        # ... in its own sentence: the meeting after it keeps its open time
        ("add the deadline and the meeting",
         "Prof. <PERSON_1>: Essay due Dec 11. Advising meeting Monday Dec 7, time TBD.",
         "2026-12-11"),
        # must not fire: a meeting, someone free, a request's word alone, a line's delivery,
        # a clock with the due date, "due to"
        ("add it", "<PERSON_1>: let's meet on Friday, December 11", None),
        ("add it", "<PERSON_1>: I'm open Thursday, you?", None),
        ("add it", "<PERSON_1>: my calendar is pretty open Thursday Dec 10", None),
        ("add it", "<PERSON_1>: pretty open Friday Dec 11, mornings best", None),
        ("add the deadline", "<PERSON_1>: the kickoff is Dec 18, bring the deck", None),
        ("add it", "<PERSON_1>: project delivery review on Monday Dec 7", None),
        ("add it", "<PERSON_1>: the report is due Friday Dec 4 at 5pm", None),
        ("add it", "<PERSON_1>: due to the rain the picnic is Saturday Dec 5", None),
        # ... or something due beside another plan, which stays that plan
        ("add the staff meeting", "Staff meeting Friday Dec 4 (timesheets due)", None),
        ("add the call", "Call with the landlord Tuesday Dec 8 about the rent that's due", None),
        ("add the haircut", "Haircut Thursday Dec 3, way past due", None),
        # the day to hand something in by
        ("add the deadline", "Please submit the form by Sunday, Dec 13", "2026-12-13"),
        ("add the deadline", "Please RSVP by Friday, Dec 11", "2026-12-11"),
    ],
)  # fmt: skip
def test_a_whole_days_plan(request_text: str, thread: str, all_day: str | None) -> None:
    days = [e.start.date().isoformat() for e in link(request_text, thread) if e.all_day]
    assert days == ([all_day] if all_day else [])


def test_an_offsite_day_is_all_day() -> None:
    [event] = link("add this", "<PERSON_1>: team offsite on Dec 3")
    assert event.all_day and event.start.isoformat() == "2026-12-03T00:00:00+01:00"
    assert "offsite" in event.title.lower()


def test_quoted_older_mail_comes_before_the_reply() -> None:
    thread = "Friday 11am is better for me.\n\n> Can we do the budget review on Thursday at 10?"
    [event] = link("add this", thread)
    assert event.start.isoformat() == "2026-11-27T11:00:00+01:00"
    assert "review" in event.title.lower()


def test_a_reminder_takes_its_title_from_the_request() -> None:
    [event] = link("remind me to call the bank tomorrow at 5", intent="remind")
    assert event.kind == "reminder" and event.title == "Call the bank"
    assert event.start.isoformat() == "2026-11-22T17:00:00+01:00"


@pytest.mark.parametrize(
    ("request_text", "title"),
    [
        # a holiday before the activity names the occasion, whole
        ("Christmas Eve dinner at 6pm", "Christmas Eve dinner"),
        ("new years eve party at 9pm", "New years eve party"),
        # must not fire: a day before the activity is no part of its name
        ("Friday dinner at 6pm", "Dinner"),
    ],
)
def test_a_holiday_names_the_occasion_in_a_title(request_text: str, title: str) -> None:
    [event] = link(request_text)
    assert event.title == title


def test_names_in_titles_stay_placeholders() -> None:
    [event] = link("lunch with <PERSON_1> thursday next week at 1")
    assert "<PERSON_1>" in event.title and event.attendees == ["<PERSON_1>"]


def test_one_message_can_hold_several_events() -> None:
    thread = (
        "<PERSON_1>: farmers market tue 9am, then brunch wed 11:30\n"
        "<PERSON_1>: and the plumber comes monday at 8"
    )
    events = link("add all of this", thread)
    assert starts(events) == [
        "2026-11-24T09:00:00+01:00",
        "2026-11-25T11:30:00+01:00",
        "2026-11-23T08:00:00+01:00",
    ]
    assert "market" in events[0].title.lower() and "plumber" in events[2].title.lower()


def test_reported_free_time_is_no_event() -> None:
    thread = (
        "Agent: On March 9th you are free from 8 am to 6 pm.\n"
        "Me: ok, add the dentist at 9:30 that day"
    )
    [event] = link("add it", thread)
    assert event.start.isoformat() == "2027-03-09T09:30:00+01:00"


def test_someone_elses_commitment_is_no_event() -> None:
    thread = "<PERSON_1>: can we push the review to 3:30? my 2pm is running long"
    assert starts(link("add this", "<PERSON_1>: review tomorrow at 2\n" + thread)) == [
        "2026-11-22T15:30:00+01:00"
    ]


def test_the_request_picks_the_event_it_names() -> None:
    thread = (
        "<PERSON_1>: dentist moved to friday 8:30am\n"
        "<PERSON_1>: can you do the pickup at 3:15 that day?"
    )
    [event] = link("add the pickup to my calendar", thread)
    assert event.start.isoformat() == "2026-11-27T15:15:00+01:00"


def test_a_label_names_the_event_the_time_came_with() -> None:
    thread = (
        "Me: add an event at 9:45 tomorrow night\nAgent: What should I call it?\n"
        "Me: Title it as The Hives Concert."
    )
    [event] = link("add the event we agreed on", thread)
    assert event.title == "The Hives Concert"


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("Let's add the label Leave for airport to that time range.", "Leave for airport"),
        ("Yes, give it the title Viewing at Villa Fontana at <ADDRESS_1> for 6 pm.",
         "Viewing at Villa Fontana"),
        ("and you can log it under Football Game: Usc Vs Utah.", "Football Game: Usc Vs Utah"),
        ("the event title should be Appointment", "Appointment"),
        ("Put Bedtime as the event title.", "Bedtime"),
        ("Please add that ot my calendar and put out of office for the event title for 11:00.",
         "Out of office"),
        ("so make a Reservation at Lulu's Kitchen as a title for the event.",
         "Reservation at Lulu's Kitchen"),
        ("Can you add this to my calendar as new house?", "New house"),
        ("Could you just add Apartment viewing.", "Apartment viewing"),
        ("Title it as The Hives Concert.", "The Hives Concert"),
        ("Put in Movie show at the night 10 pm spot please.", "Movie show"),
        ("I'll put in the order at 3", ""),  # no capitalised name: nothing named
        ("Nenn es Team-Retro.", ""),  # no rule for German naming yet: no title, no harm
        ("What should I call it?", ""),
        ("I called the dentist yesterday", ""),
        ("add this to my calendar", ""),
        ("Can you add it to my calendar as well?", ""),
        ("Put it on the calendar as usual.", ""),
    ],
)  # fmt: skip
def test_the_users_own_name_for_an_event(sentence: str, title: str) -> None:
    assert named_title(sentence, [])[0] == title


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("Label it Team retro on my schedule.", "Team retro"),
        ("the event name is Dentist appointment", "Dentist appointment"),
        # "name" as a noun in a clause that goes on names nothing
        ("I need a name and time and the address is right.", ""),
        ("Label if Food at 16:45 on my schedule.", ""),
    ],
)  # fmt: skip
def test_a_label_names_an_activity_only_when_it_gives_one(sentence: str, title: str) -> None:
    from agent.extraction.title import activity_title

    assert activity_title(sentence) == title


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        # a generic activity is named by what it is for, in five languages
        ("Schedule a meeting on Saturday at 9:00 am to discuss new phone contracts.",
         "Meeting to discuss new phone contracts"),
        ("make an appointment for nails on Thursday at 4pm", "Appointment for nails"),
        ("set up a call tomorrow at 10 about the Q3 budget", "Call about the Q3 budget"),
        ("Termin am Montag um 10 zur Besprechung der Zahlen", "Termin zur Besprechung der Zahlen"),
        ("reunión el lunes a las 10 para revisar el presupuesto",
         "Reunión para revisar el presupuesto"),
        # must not fire: how long, how many, for whom, where to, a day, another clause, and an
        # activity that names itself
        ("meeting with sam for an hour on friday at 3", "Meeting"),
        ("call for 30 minutes tomorrow at 9", "Call"),
        ("book a reservation for two on friday at 7pm", "Reservation"),
        ("meeting at 3 on friday for <PERSON_1>", "Meeting"),
        ("meeting on friday at 3 to the office", "Meeting"),
        ("move the meeting to friday at 3", "Meeting"),
        ("meeting at 3. For the record, I am late", "Meeting"),
        ("lunch on friday at 1 to celebrate", "Lunch"),
        # a person's possessive stays on the person's word
        ("<PERSON_1>'s birthday on Saturday at 7pm", "<PERSON_1>'s birthday"),
        ("<PERSON_1>'s party on friday", "<PERSON_1>'s party"),
    ],
)  # fmt: skip
def test_a_generic_activity_carries_its_purpose(sentence: str, title: str) -> None:
    from agent.extraction.title import activity_title

    assert activity_title(sentence) == title


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        # a letter ending the activity's phrase says which of a set it is
        ("add session B", "Session B"),
        ("Session B: Thursday 5pm", "Session B"),
        ("Team meeting A, then lunch", "Team meeting A"),
        ("Dec 8 (Tue) - Troop meeting, 7p", "Troop meeting"),  # a listing's dash is no word
        # must not fire: a pronoun or an article going on, a clock, a count
        ("dinner I think at 8", "Dinner"),
        ("meeting A new client wants", "Meeting"),
        ("meeting 3pm friday", "Meeting"),
        ("dinner 8 people", "Dinner"),
    ],
)
def test_a_lettered_item_keeps_its_letter(sentence: str, title: str) -> None:
    from agent.extraction.title import activity_title

    assert activity_title(sentence) == title


# A clock right after an end's label is when the plan ends, never when it starts
# (times.toml [end_labels], [finish_labels]).
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("Dec 12-13 - Winter campout at the lake. Depart 8am Sat from the church lot, return "
         "~2pm Sun.", ["2026-12-12T08:00:00+01:00"]),
        ("<PERSON_1>: dinner 7pm friday? ends around 10\nMe: ok", ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: workshop friday 2pm\n<PERSON_1>: it should finish at 5\nMe: ok",
         ["2026-11-27T14:00:00+01:00"]),
        # must not fire: an arrival alone is when to be there; "call me back" opens a call
        ("<PERSON_1>: arrive at 7 for dinner friday\nMe: ok", ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: call me back friday at 4pm\nMe: ok", ["2026-11-27T16:00:00+01:00"]),
        ("<PERSON_1>: Yoga class returns Monday at 6pm\nMe: ok", ["2026-11-23T18:00:00+01:00"]),
    ],
)  # fmt: skip
def test_an_end_is_no_start(thread: str, expected: list[str]) -> None:
    assert starts(link("add it", thread)) == expected


def test_the_request_picks_the_way_back() -> None:
    thread = "Train Fri Nov 27 6:10pm to Boston; return 8:05am Mon Nov 30"
    assert starts(link("add the return trip", thread)) == ["2026-11-30T08:05:00+01:00"]


# A clause that opens with "or" offers another option for the start just offered; "then"
# ending a clause with a new time offers it in place of the plan on the table.
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("Party Dec 12. 8pm? or 9pm?", []),
        ("Brunch at 11 on Dec 13. Or Dec 20, if you're away.", []),
        ("Party Dec 12. 8pm? or 9pm?\nMe: 9pm works", ["2026-12-12T21:00:00+01:00"]),
        ("<PERSON_1>: dinner Saturday at 7?\n<PERSON_2>: can't, my project is due Saturday\n"
         "<PERSON_1>: Sunday at 7 then\nMe: works", ["2026-11-22T19:00:00+01:00"]),
        # must not fire: "or so", "then" inside a clause, a confirmation with "then"
        ("Party Dec 12 at 8pm. Or so I heard.", ["2026-12-12T20:00:00+01:00"]),
        ("<PERSON_1>: dinner then a movie at 9pm on friday?\nMe: ok",
         ["2026-11-27T21:00:00+01:00"]),
        ("<PERSON_1>: dinner Saturday at 7pm?\nMe: ok see you Saturday at 7 then",
         ["2026-11-21T19:00:00+01:00"]),
        ("Meeting Friday at 2pm.\nOr, if the room's booked, Friday at 2pm in the lobby",
         ["2026-11-27T14:00:00+01:00"]),
    ],
)  # fmt: skip
def test_another_option_and_a_counter(thread: str, expected: list[str]) -> None:
    assert starts(link("add it", thread)) == expected


# "until" after a delay's words is the new start (times.toml [delayed_until]); after "busy"
# it stays a bound.
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("<PERSON_1>: standup at 10am tomorrow\n<PERSON_1>: standup postponed until 11am",
         ["2026-11-22T11:00:00+01:00"]),
        ("<PERSON_1>: Meeting is at 2pm Monday\n<PERSON_1>: update: meeting delayed till 3pm",
         ["2026-11-23T15:00:00+01:00"]),
        ("<PERSON_1>: reunião segunda às 14h\n<PERSON_1>: a reunião foi adiada até as 15h",
         ["2026-11-23T15:00:00+01:00"]),
        ("<PERSON_1>: Meeting Montag um 14 Uhr\n<PERSON_1>: Meeting verschoben bis 15 Uhr",
         ["2026-11-23T15:00:00+01:00"]),
        ("<PERSON_1>: dinner at 8pm on Friday\n<PERSON_1>: wait, not until 9pm actually",
         ["2026-11-27T21:00:00+01:00"]),
        ("Doors open at 7pm Friday, the show won't start until 8pm",
         ["2026-11-27T20:00:00+01:00"]),  # the side time's day
        # must not fire: someone busy until a time, a bound on a time still being chosen
        ("<PERSON_1>: dinner friday 7pm?\nMe: I'm busy until 6pm so 7 works",
         ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: meeting Friday? not before 10am please", []),
    ],
)  # fmt: skip
def test_a_delay_until_a_time_moves_the_plan(thread: str, expected: list[str]) -> None:
    assert starts(link("add it", thread)) == expected


# When to answer or pay by is no day of another plan; alone, or asked for, it is its own.
@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        ("add the trip", "<PERSON_1>: Ski trip Jan 8-10. Pay the deposit by Dec 15",
         ["2027-01-08T00:00:00+01:00"]),
        ("add the dinner", "<PERSON_1>: Dinner Friday? Confirm by tomorrow and I'll book 7pm",
         ["2026-11-27T19:00:00+01:00"]),
        ("add the lunch", "<PERSON_1>: Lunch Friday? Let me know by Thursday at 5", []),
        # must not fire: the deadline alone, or the one the request asks for
        ("add the deadline", "Please submit the form by Sunday, Dec 13",
         ["2026-12-13T00:00:00+01:00"]),
        ("add the deadline", "<PERSON_1>: I need to submit the proposal by 2pm Monday, so "
         "let's call at 4 instead", ["2026-11-23T14:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_deadline_gives_no_plan_its_day(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


def test_then_after_an_errand_is_no_counter() -> None:
    thread = "<PERSON_1>: Dinner Fri 7pm?\nMe: I'll pick up the wine at 6 then"
    assert starts(link("add the dinner", thread)) == ["2026-11-27T19:00:00+01:00"]


# A parish bulletin: a day's list of times is a set of options the request picks from by its
# own clock and holiday; a whole day's plan above takes no clock from it; "No ..." is no plan.
BULLETIN = (
    "Giving Tree gifts due back by Sunday, Dec. 13\n\nCHRISTMAS MASS SCHEDULE\n"
    "Christmas Eve, Thursday Dec. 24: 4 PM (Children's Mass), 6 PM, 10 PM\n"
    "No 5:30 PM Saturday vigil on Dec. 26."
)


@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        ("add the 10pm christmas eve mass", BULLETIN, ["2026-12-24T22:00:00+01:00"]),
        ("add the mass", BULLETIN, []),  # which of the three: a question
        ("add it", "<PERSON_1>: sessions Saturday 10am, 2pm", []),
        ("add it", "No 5:30 PM Saturday vigil on Dec. 26.", []),
        # must not fire: "No problem" says yes; one clock with a comma after it
        ("add it", "<PERSON_1>: No problem, dinner Friday at 7pm", ["2026-11-27T19:00:00+01:00"]),
        ("add it", "<PERSON_1>: dinner Saturday 7pm, see you", ["2026-11-21T19:00:00+01:00"]),
        ("add it", "Dinner on Dec 11. No wait, Dec 12 at 7pm.", ["2026-12-12T19:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_bulletins_options_and_nones(request_text: str, thread: str, expected: list[str]) -> None:
    assert starts(link(request_text, thread)) == expected


# A listing's next dated line is its own item, not the day of the one above it.
@pytest.mark.parametrize(
    ("thread", "days"),
    [
        ("Office notes:\nDec 7 - Team meeting\nDec 24 - Holiday (office closed)",
         {"Team meeting": "2026-12-07", "Holiday office closed": "2026-12-24"}),
        ("Syllabus\nWeek 13: Tue Dec 8 - Review session\nFinal project due Friday Dec 11",
         {"Review": "2026-12-08", "Final project due": "2026-12-11"}),
        # must not fire: a line that only gives the day of the plan above it
        ("Team lunch next week\nThursday Dec 3 works best", {"Team lunch": "2026-12-03"}),
        ("Holiday party 6pm\nDec 18 - Main hall", {"Holiday party": "2026-12-18"}),
        ("<PERSON_1>: dinner friday?\n<PERSON_2>: monday is better", {"Dinner": "2026-11-23"}),
    ],
)  # fmt: skip
def test_a_listings_lines_are_items(thread: str, days: dict[str, str]) -> None:
    said = {
        e.title.split(" with ")[0]: (e.start or e.day).isoformat()[:10]  # type: ignore[union-attr]
        for e in link("add them", thread)
        if e.start or e.day
    }
    assert said == days


def test_a_name_beats_an_activity_word_said_earlier() -> None:
    thread = (
        "Me: I want to do some more planning on friday at 9:45 pm.\n"
        "Agent: What should I call it?\nMe: Let's add the label Leave for airport to it."
    )
    [event] = link("add the event we agreed on", thread)
    assert event.title == "Leave for airport"
    assert event.start.isoformat() == "2026-11-27T21:45:00+01:00"


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a restatement to confirm moves the event being set up, it is not a second event
        ("Me: book the dentist on Tuesday at 4:30 pm\n"
         "Agent: Sorry, that failed. Try Wednesday?\n"
         "Agent: You'd like an appointment at 4:30 pm on Wednesday, correct?",
         ["2026-11-25T16:30:00+01:00"]),
        # the same minute said twice with two words for it: one event
        ("Me: Booking the dentist at 11:30 am on Monday.\n"
         "Me: Add this to my calendar, call it Appointment, at 11:30 in the morning.",
         ["2026-11-23T11:30:00+01:00"]),
        # a day said after a bare time completes it
        ("Me: Book it for 12:30 in the afternoon.\nAgent: On what date?\nMe: For Friday next week.",
         ["2026-11-27T12:30:00+01:00"]),
        # the same clock said again with its day: the undated one was today only by default
        ("Me: I want to book the salon at 5 in the evening.\nAgent: What date?\n"
         "Me: I need to visit the salon on the 4th.\n"
         "Agent: Please confirm: the appointment is on December 4th at 5 pm.\nMe: Yes.",
         ["2026-12-04T17:00:00+01:00"]),
        # no restatement: two events stay two
        ("<PERSON_1>: dentist on Tuesday at 9:30\n<PERSON_2>: and an appointment friday at 8pm",
         ["2026-11-24T09:30:00+01:00", "2026-11-27T20:00:00+01:00"]),
        # two clocks that differ are two plans, dated or not
        ("<PERSON_1>: gym at 6 tonight\n<PERSON_2>: and dinner on friday at 8pm",
         ["2026-11-21T18:00:00+01:00", "2026-11-27T20:00:00+01:00"]),
    ],
)  # fmt: skip
def test_an_event_being_set_up_is_one_event(thread: str, expected: list[str]) -> None:
    assert sorted(starts(link("add all of this", thread))) == sorted(expected)


@pytest.mark.parametrize(
    ("request_text", "count"),
    [
        ("add it", 1),
        ("add the event we agreed on to my calendar", 1),
        ("add both", 2),
        ("add all of this", 2),
        ("add this", 2),  # says nothing about how many
    ],
)
def test_a_singular_request_takes_the_event_settled_last(request_text: str, count: int) -> None:
    thread = (
        "Me: book the dentist on Tuesday at 3 pm\n"
        "Agent: Your appointment is booked.\n"
        "Me: Also add an event titled Out of office at 2:30 pm on Tuesday."
    )
    events = [e for e in link(request_text, thread) if e.schedulable]
    assert len(events) == count
    assert events[-1].title == "Out of office"


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # "at 1" before a street name is a house number, "9 pm" is the time
        ("Me: the movie on Thursday 9 pm at 1 Embarcadero Center", ["2026-11-26T21:00:00+01:00"]),
        # "by 5:30 pm" on a day is that time, not "from now until 5:30"
        ("Agent: The event name is Football game on Monday by 5:30 pm",
         ["2026-11-23T17:30:00+01:00"]),
        # a free range answering an availability question is an option, not an event
        ("Me: Any other time available on Monday?\nAgent: There is another between 8 pm and 10 pm.",
         []),
        # ... but a range someone settles on is an event
        ("Me: Are you free on Monday?\n<PERSON_1>: let's do the review from 2 pm to 3 pm.",
         ["2026-11-23T14:00:00+01:00"]),
        # a day said of the event being set up moves it
        ("Me: Book the haircut on Monday at 2 pm.\nAgent: The date for the event is Tuesday.",
         ["2026-11-24T14:00:00+01:00"]),
    ],
)  # fmt: skip
def test_which_time_and_day_a_message_sets(thread: str, expected: list[str]) -> None:
    assert starts(link("add all of this", thread)) == expected


def titles(events: list[ProposedEvent]) -> list[tuple[str, str]]:
    return [(e.title, e.start.isoformat()) for e in events if e.schedulable]


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # An older message quoted deeper (">>") is read before the one quoting it (">").
        ("Great, Tuesday 9am it is.\n> Tuesday works. 9am?\n"
         ">> Would Monday at 3 or Tuesday morning suit you for the fitting?",
         ["2026-11-24T09:00:00+01:00"]),
        # A time offered against a day ("Monday at 3 or Tuesday morning?") is undecided.
        ("<PERSON_1>: fitting Monday at 3 or Tuesday morning?", []),
        # A day answered with no calls off the event set on it; the other one stands.
        ("<PERSON_1>: Yoga Montag 18 Uhr und Dienstag 18 Uhr?\nMe: Montag ja, Dienstag nein",
         ["2026-11-23T18:00:00+01:00"]),
        ("<PERSON_1>: squash wed at 7pm and thu at 7pm?\nMe: wed no problem, see you",
         ["2026-11-25T19:00:00+01:00", "2026-11-26T19:00:00+01:00"]),  # no-match row
        # two clocks for one day with nothing but "and" between are options: none is agreed
        # until one is picked (acts.toml [alternative_and])
        ("<PERSON_1>: there's a 7pm and a 9:30pm on friday\nMe: let me check", []),
        ("<PERSON_1>: there's a 7pm and a 9:30pm on friday. Which?\nMe: 7pm",
         ["2026-11-27T19:00:00+01:00"]),
        # ... whatever follows the second clock after a comma
        ("<PERSON_1>: free at 10 and 2 tomorrow, which suits?", []),
        ("<PERSON_1>: free at 10 and 2 tomorrow, whichever suits you", []),
        ("<PERSON_1>: practice at 7am and 5pm sunday, let me know if you're coming\n"
         "Me: I'll be at both", ["2026-11-22T07:00:00+01:00", "2026-11-22T17:00:00+01:00"]),
        # a bare hour before another clock is an option too ("10 or 2 tomorrow?")
        ("<PERSON_1>: 10 or 2 tomorrow?\nMe: sure", []),
        ("<PERSON_1>: 10 or 2 tomorrow?\nMe: 2 works", ["2026-11-22T14:00:00+01:00"]),
        ("<PERSON_1>: 3 or 4 on friday?\nMe: 4 is better", ["2026-11-27T16:00:00+01:00"]),
        # a number alone picks the one option at that hour
        ("<PERSON_1>: I can do 3 or 4 tomorrow\nMe: 4", ["2026-11-22T16:00:00+01:00"]),
        ("<PERSON_1>: free at 10 and 2 tomorrow, which suits?\nMe: 2!",
         ["2026-11-22T14:00:00+01:00"]),
        ("<PERSON_1>: 10 or 2 tomorrow?\nMe: 5", []),  # no option at 5
        ("<PERSON_1>: dentist at 10 and 3 tomorrow, one for each kid\nMe: ok",
         ["2026-11-22T10:00:00+01:00", "2026-11-22T15:00:00+01:00"]),  # no-match row
        ("<PERSON_1>: can do 2pm and 4pm friday, let me know\nMe: 4pm",
         ["2026-11-27T16:00:00+01:00"]),
        ("<PERSON_1>: lunch friday 12:30 and drinks at 6, ok?\nMe: ok",
         ["2026-11-27T12:30:00+01:00", "2026-11-27T18:00:00+01:00"]),  # no-match row
        # a time turned down ("4 is bad"), the earlier one kept ("keep 3")
        ("<PERSON_1>: thu at 3?\nMe: ok\n<PERSON_1>: can we do 4?\nMe: 4 is bad, can we keep 3?"
         "\n<PERSON_1>: sure, keep 3", ["2026-11-26T15:00:00+01:00"]),
        # an offered time taken since is turned down; the one left waits for the user's yes
        ("<PERSON_1>: I can do Friday at 10am or 3pm\nMe: 10am please\n"
         "<PERSON_1>: Ah, 10am just got taken, only 3pm left now", []),
        ("<PERSON_1>: I can do Friday at 10am or 3pm\nMe: 10am please\n"
         "<PERSON_1>: Ah, 10am just got taken, only 3pm left now\nMe: 3pm then",
         ["2026-11-27T15:00:00+01:00"]),
        ("<PERSON_1>: Friday 10am at the studio?\nMe: yes\n"
         "<PERSON_1>: oh no, 10am just got taken, sorry", []),
        # an emoji-only yes
        ("<PERSON_1>: brunch sun 11:30?\n<PERSON_2>: 🙌🙌", ["2026-11-22T11:30:00+01:00"]),
        # a clock written with a dot names no day: it takes the day the message named
        ("<PERSON_1>: Squash on Tuesday? 6.45pm?", ["2026-11-24T18:45:00+01:00"]),
        # "Depart:" and "Arrive:" are field labels, not speakers: the departure is the start
        ("BA0117 LHR -> JFK\nDepart: Tue 08 Dec 2026 11:20\nArrive: Tue 08 Dec 2026 14:05",
         ["2026-12-08T11:20:00+01:00"]),
        # a pick by place among offered times (acts.toml [ordinal_picks])
        ("<PERSON_1>: Could you do Tue 24 Nov 11:00, Wed 25 Nov 15:00 or Thu 26 Nov 09:30?\n"
         "Me: The second one please.", ["2026-11-25T15:00:00+01:00"]),
        ("<PERSON_1>: Tue 24 Nov 11:00 or Wed 25 Nov 15:00?\nMe: option 1 works",
         ["2026-11-24T11:00:00+01:00"]),
        ("<PERSON_1>: Tue 24 Nov 11:00 or Wed 25 Nov 15:00?\nMe: it's my first one-on-one "
         "with them", []),  # must not: no pick
        # a meal said with its day gives the clock after it that day
        ("<PERSON_1>: lunch wed nxt wk @ 1?\nMe: 👍 sounds gd", ["2026-11-25T13:00:00+01:00"]),
    ],
)  # fmt: skip
def test_offers_and_answers(thread: str, expected: list[str]) -> None:
    assert starts(link("add all of this", thread)) == expected


def test_a_moved_event_named_before_the_change_is_its_own_event() -> None:
    thread = (
        "<PERSON_1>: lunch & learn on Thursday at 12\n"
        "<PERSON_1>: also the town hall got moved to Friday 10am"
    )
    assert titles(link("add both", thread)) == [
        ("Lunch with <PERSON_1>", "2026-11-26T12:00:00+01:00"),
        ("Town hall with <PERSON_1>", "2026-11-27T10:00:00+01:00"),
    ]
    # said after the change word, an activity word does not make a new event
    changed = link(
        "add it", "<PERSON_1>: lunch tmrw at 1?\n<PERSON_1>: actually make it 2, call me"
    )
    assert starts(changed) == ["2026-11-22T14:00:00+01:00"]


@pytest.mark.parametrize(
    ("thread", "title"),
    [
        ("<PERSON_1>: ¿Nos vemos el martes a las 18:00 en el gimnasio?", "Gimnasio"),
        ("<PERSON_1>: treino na academia terça às 18h?", "Treino"),
        ("<PERSON_1>: we still on for the 24-hour relay sat\n<PERSON_1>: start is 10am",
         "24-hour relay"),
        ("<PERSON_1>: heads up: dinner Friday at 8", "Dinner"),  # not "Up: dinner"
        ("<PERSON_1>: Free Tuesday at 11 to go over the lease renewal?", "Lease renewal"),
    ],
)  # fmt: skip
def test_titles_from_the_thread(thread: str, title: str) -> None:
    [event] = [e for e in link("add it", thread) if e.schedulable]
    assert title.lower() in event.title.lower()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("lunch friday at 1 at Blue Bottle", "Blue Bottle"),
        ("Pode ser às 20h no Tasca do Chico, combinado?", "Tasca do Chico"),
        ("Mittagessen am Freitag um 13 Uhr im Café Einstein?", "Café Einstein"),
        ("dîner vendredi à 20h au Café de Flore", "Café de Flore"),
        ("cena el viernes a las 21h en Casa Lucio", "Casa Lucio"),
        ("Treffen am Montag bei Luigi um 12", "Luigi"),
        # a time after the cue is no place; nor is a lower-case word
        ("cena en Enero a las 9", ""),
        ("I said no to the party at 9", ""),
    ],
)
def test_places_after_the_cue_word_of_five_languages(text: str, place: str) -> None:
    from agent.extraction.title import place_in

    parser = TimeParser(
        tz="Europe/Lisbon", now=datetime(2026, 11, 22, 10, tzinfo=ZoneInfo("Europe/Lisbon"))
    )
    assert place_in(text, parser.parse_input(text, thread=""), 0) == place


@pytest.mark.parametrize(
    ("second", "hour"),
    [
        ("can't do 10:30 am, how about at 1 instead??", 13),
        ("cannot do 10:30 am, could we do 2pm instead?", 14),
        ("not 10:30 am, 11:45 am instead", 11),
        # nothing turned down: the plainly stated time stands
        ("10:30 am works, see you at the course", 10),
    ],
)
def test_a_time_turned_down_is_not_the_new_time(second: str, hour: int) -> None:
    sydney = ZoneInfo("Australia/Sydney")
    now = datetime(2026, 11, 3, 12, 5, tzinfo=sydney)
    thread = f"Me: mini golf on november 11 at 10:30 am??\nClara: {second}\nMe: deal\n"
    mentions = TimeParser(tz="Australia/Sydney", now=now).parse_input("add it", thread=thread)
    found = candidates("add it", thread, mentions)
    [event] = RuleLinker("Australia/Sydney", now).link("add it", thread, found)
    assert event.start is not None and event.start.astimezone(sydney).hour == hour


# Cancel and decline acts (lang/data/acts.toml): the plan on the table creates nothing; the
# same words with a time of their own are a counter. NOW is Saturday 2026-11-21 09:30 Berlin.
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # fires
        ("<PERSON_1>: dinner monday at 7pm?\nMe: yes!\n<PERSON_1>: sorry, need to call off monday",
         []),
        ("That doesn't work anymore, sorry.\n\nOn Fri, 20 Nov 2026 at 09:12, <PERSON_1> wrote:\n"
         "> Let's meet Tuesday at 2pm", []),
        ("<PERSON_1>: coffee tuesday 10am?\n<PERSON_2>: Termin abgesagt, tut mir leid", []),
        ("<PERSON_1>: drinks thursday 6pm\n<PERSON_1>: ça ne marche pas, désolé", []),
        ("<PERSON_1>: gym 7am fri?\nMe: lol no way 7am 😂", []),
        ("<PERSON_1>: dinner monday at 7pm?\nMe: yes\n<PERSON_1>: call me, I need to cancel", []),
        ("Ihr Termin am 24.11.2026 um 08:15 Uhr muss leider entfallen. Wir melden uns.", []),
        ("Glow Salon\nYour appointment has been cancelled\nBalayage with Sofia\n"
         "Sat, Dec 5 at 10:00 AM\nBook again", []),
        # a stranger's plan the others dismiss; a plan the user says they never agreed to
        ("Unknown: Security review on Tuesday at 8am.\n<PERSON_1>: who is this??\nMe: no idea, "
         "ignore it.", []),
        ("<PERSON_1>: drinks friday 8pm, confirmed\nMe: I haven't agreed to anything yet", []),
        # must not fire
        ("Reminder: your appointment is on Tue 24/11 at 16:15. Reply C to cancel, or call "
         "<PHONE_1>.", ["2026-11-24T16:15:00+01:00"]),
        ("Reminder: the vet is tomorrow (Sunday) at 16:00. To cancel reply CANCEL.",
         ["2026-11-22T16:00:00+01:00"]),
        # one guest out of a group the others still join
        ("<PERSON_1>: Book club: Tuesday Dec 15, 7pm at mine!\n<PERSON_2>: can't make it this "
         "time, sorry!!\n<PERSON_3>: I'm in\nMe: in!", ["2026-12-15T19:00:00+01:00"]),
        ("<PERSON_1>: dinner friday 7pm?\n<PERSON_2>: yes!\nMe: in\n<PERSON_1>: sorry, can't "
         "make it after all", []),  # the one who set it
        ("<PERSON_1>: dinner friday 7pm?\nMe: yes!\n<PERSON_1>: sorry, can't make it", []),
        ("<PERSON_1>: dinner friday 7pm?\nMe: Can't make it, can we do another day?", []),
        ("<PERSON_1>: tennis sat 10am?\nMe: Need to cancel - is Sunday ok?", []),
        ("Glow Salon\nYour appointment is confirmed\nBalayage with Sofia\n"
         "Sat, Dec 5 at 10:00 AM\nFree cancellation until Dec 4.", ["2026-12-05T10:00:00+01:00"]),
        # a confirmation's links and its question to the reader
        ("Your reservation is confirmed\nSaturday, December 12, 2026 at 7:45 PM\n"
         "Need to make a change? Modify · Cancel", ["2026-12-12T19:45:00+01:00"]),
        ("Appointment confirmed\nSat, Dec 5, 2026 · 11:40 AM - 12:25 PM\nNeed to reschedule? "
         "Manage your booking in the app.", ["2026-12-05T11:40:00+01:00"]),
        ("<PERSON_1>: lunch friday at 1?\nMe: yes, ignore the other message",
         ["2026-11-27T13:00:00+01:00"]),
        ("<PERSON_1>: gym 7am fri?\nMe: lol no way 7am 😂 8am?\n<PERSON_1>: fine",
         ["2026-11-27T08:00:00+01:00"]),
        ("<PERSON_1>: dinner monday at 7pm?\nMe: tuesday 8pm won't work, monday is great",
         ["2026-11-23T19:00:00+01:00"]),
        ("<PERSON_1>: that doesn't work for me, how about tuesday at 2pm?",
         ["2026-11-24T14:00:00+01:00"]),
        ("<PERSON_1>: the call is at 3pm tomorrow\nMe: ok", ["2026-11-22T15:00:00+01:00"]),
        ("<PERSON_1>: call me off the record at 5pm tomorrow", ["2026-11-22T17:00:00+01:00"]),
        # Portuguese "no" after a clock says where (acts.toml [decline_after_not])
        ("A reunião será na quinta-feira, 26/11, às 19h30, no salão de festas.",
         ["2026-11-26T19:30:00+01:00"]),
        # a clock inside a notice's range, said by the one who set it, is an item of it
        ("Holiday Market on Saturday, November 28, 10am-4pm. Live music at noon.",
         ["2026-11-28T10:00:00+01:00"]),
        ("<PERSON_1>: lunch 12-2 sunday?\nMe: how about 1pm?\n<PERSON_1>: ok",
         ["2026-11-22T13:00:00+01:00"]),  # no-match row: another's clock counters
        ("<PERSON_1>: dinner sunday 6-10pm\n<PERSON_1>: let's say 8\nMe: 👍",
         ["2026-11-22T20:00:00+01:00"]),  # no-match row: in a chat, one's own clock counters
        ("<PERSON_1>: dinner tuesday 8pm?\nMe: tuesday 8pm no, sorry", []),
    ],
)  # fmt: skip
def test_a_cancelled_or_declined_plan_creates_nothing(thread: str, expected: list[str]) -> None:
    assert starts(link("add this", thread)) == expected


# Relative moves (acts.toml [same_time]; times.toml [shift_later_after], [shift_earlier_before]
# and their kin) and postponements with no new time (acts.toml [postpone]).
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # fires
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: can we do 30 min later?\nMe: sure",
         ["2026-11-24T10:30:00+01:00"]),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: eine Stunde früher?\nMe: passt",
         ["2026-11-24T09:00:00+01:00"]),
        ("<PERSON_1>: review tuesday 2pm?\nMe: ok\n<PERSON_1>: same time but Monday?\nMe: fine",
         ["2026-11-23T14:00:00+01:00"]),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: could we push it back an hour?"
         "\nMe: sure", ["2026-11-24T11:00:00+01:00"]),
        ("<PERSON_1>: call at 4 tomorrow?\nMe: yes\n<PERSON_1>: can we bring it forward by 30 "
         "minutes?\nMe: ok", ["2026-11-22T15:30:00+01:00"]),
        ("<PERSON_1>: review monday at 10?\nMe: ok\n<PERSON_1>: client asked to postpone, new date "
         "TBC", []),
        ("<PERSON_1>: review monday at 10\n<PERSON_2>: ok\n<PERSON_1>: we need to push it back "
         "20 minutes", []),  # a change in a group chat that nobody else took up yet
        # must not fire
        ("<PERSON_1>: review monday at 10?\nMe: ok\n<PERSON_1>: it got postponed from 9 to 10",
         ["2026-11-23T10:00:00+01:00"]),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok, the drive takes an hour so I'll leave early",
         ["2026-11-24T10:00:00+01:00"]),
        ("<PERSON_1>: dentist tuesday 10am. To reschedule, call the office.",
         ["2026-11-24T10:00:00+01:00"]),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok, it takes 30 min later I have a call",
         ["2026-11-24T10:00:00+01:00"]),
        ("<PERSON_1>: review tuesday 2pm?\nMe: same time works", ["2026-11-24T14:00:00+01:00"]),
        ("<PERSON_1>: run for 30 min later today?", []),
    ],
)  # fmt: skip
def test_relative_moves(thread: str, expected: list[str]) -> None:
    assert starts(link("add this", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "hour", "minute", "allowed"),
    [
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: can we do 30 min later?", 10, 30,
         True),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: bring it forward by 30 minutes?",
         9, 30, True),
        # must not: another amount, the amount the other way, a move no start was stated for
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: can we do 30 min later?", 10, 45,
         False),
        ("<PERSON_1>: coffee tuesday 10am?\nMe: ok\n<PERSON_1>: can we do 30 min later?", 9, 30,
         False),
        ("<PERSON_1>: coffee tuesday?\nMe: ok\n<PERSON_1>: can we do 30 min later?", 10, 30,
         False),
    ],
)  # fmt: skip
def test_the_gate_takes_a_stated_start_moved_by_a_stated_amount(
    thread: str, hour: int, minute: int, allowed: bool
) -> None:
    from tools.calendar.gate import check_start

    mentions = TimeParser(tz=TZ, now=NOW).parse_input("add this", thread)
    start = datetime(2026, 11, 24, hour, minute, tzinfo=ZoneInfo(TZ))
    decision = check_start(start, all_day=False, mentions=mentions, tz=TZ, now=NOW)
    assert decision.allowed is allowed, decision.reason


@pytest.mark.parametrize(
    ("thread", "title"),
    [
        # the message that gives the time names the event in its next clause
        ("Me: Do I have any free time on Friday?\nAgent: You are free after 2.\n"
         "Me: At 3, please. It's a Hairdresser appointment.", "Hairdresser appointment"),
        # another speaker's next words name nothing
        ("Me: Do I have any free time on Friday?\nAgent: You are free after 2.\n"
         "Me: At 3, please.\nAgent: Noted. Lunch is on me next time.", "Meeting"),
    ],
)  # fmt: skip
def test_the_turn_that_times_an_event_names_it(thread: str, title: str) -> None:
    [event] = link("add the event we agreed on to my calendar", thread)
    assert event.title == title


@pytest.mark.parametrize(
    ("asked", "reply", "name"),
    [
        ("What name should I use for the event?", "Doctor visit, please.", "Doctor visit"),
        ("Can I have a name for the event?", "ENT Specialist.", "ENT Specialist"),
        ("What should I call it?", "Sure, the Budget review", "Budget review"),
        ("Wie soll der Termin heißen?", "Zahnarzt", "Zahnarzt"),
        ("¿Qué nombre le pongo?", "Cena con amigos", "Cena con amigos"),
        ("Great, what name should I call the event?", "Make it a food event.", "Food"),
        # must not fire: no name was asked, the answer is no name, or it names a person
        ("What name should I use for the event?", "Make it 8pm.", ""),
        ("What time should I add?", "Doctor visit, please.", ""),
        ("I picked a name for the event", "Doctor visit", ""),  # no question asked
        ("What name should I use for the event?", "I don't know yet.", ""),
        ("What name should I use for the event?", "Why do you ask?", ""),
        ("What name should I use for the event?", "Dr. <PERSON_1>", ""),
        ("What name should I use for the event?", "Yes, thanks.", ""),
        ("What do you want to name the event?", "Name the event <PERSON_1>.", ""),
        ("What name should I use for the event?",
         "Something long that goes on and on about the plan", ""),
    ],
)  # fmt: skip
def test_an_answer_to_a_name_question_names_the_event(asked: str, reply: str, name: str) -> None:
    from agent.extraction.title import answered_name

    assert answered_name(reply, asked) == name


@pytest.mark.parametrize(
    ("asked", "reply", "said", "name"),
    [
        ("How should I title the event? What time?", "Great. Stylist visit at three pm.",
         "at three pm", "Stylist visit"),
        ("Name and time of event?", "House at morning 11:30.", "morning 11:30", "House"),
        ("What name should I put down for the event.", "Put errand at 09:45.", "at 09:45",
         "Errand"),
        # must not fire: a confirmation states a name and asks nothing of it, an acceptance is
        # no name, a time question wants no name
        ("Can you confirm these details? The name of the event is Apartment visit.",
         "Yes, sounds perfect.", "", ""),
        ("What name should I use for the event?", "Yes, sounds perfect.", "", ""),
        ("What time works for you?", "Errand at 09:45.", "at 09:45", ""),
        ("What name should I use for the event?", "Tomorrow at 3.", "Tomorrow at 3", ""),
    ],
)  # fmt: skip
def test_an_answer_names_the_event_around_its_time(
    asked: str, reply: str, said: str, name: str
) -> None:
    from agent.extraction.title import answered_name

    times = [(reply.index(said), reply.index(said) + len(said))] if said else []
    assert answered_name(reply, asked, times) == name


@pytest.mark.parametrize(
    ("said", "title"),
    [
        ("Create an event for a hockey game at the American Airlines center tomorrow at 7 pm.",
         "Hockey game"),
        ("Book a conference room in City Center for the finance staff meeting at 2pm Thursday.",
         "Finance staff meeting"),
        ("Put me down for cardio at Planet Fitness on Saturday at 10 am.", "Cardio"),
        ("Create calendar entry tomorrow 6pm reminder.", "Reminder"),
        ("Create a get-together on Mt. Denali for Saturday morning at 9.", "Get-together Denali"),
        # must not fire: the activity is no place's name, the words before the time name it
        ("Lunch at the Conference Center tomorrow at 1", "Lunch"),
        ("yoga at Planet Fitness tomorrow at 7am", "Yoga"),
        ("farmers market sat 9am", "Farmers market"),
        # words that only lead from "event" to the activity; a clock and a day's words are
        # no modifier or purpose of it
        ("Set a new event in my calendar for my upcoming auto appointment at the garage at "
         "3 pm next Tuesday for getting my brakes checked.", "Auto appointment"),
        ("Add my 2:00 pm meeting on Tuesday.", "Meeting"),
        ("Make a doctors appointment for the following Tuesday at 2 PM", "Doctors appointment"),
        ("set a call for the quarterly review this Friday at 3pm", "Call for the quarterly review"),
        ("add my 10am review tomorrow for 2 hours", "Review"),
        ("add the 9 am standup tomorrow", "Standup"),
        # a field label opens a notice; it names nothing
        ("Reminder: your cleaning is Thursday at 9:00 AM.", "Cleaning"),
        # must not fire: a count opens the title, not a clock
        ("schedule a 30 min call tomorrow at 4pm", "30 min call"),
    ],
)  # fmt: skip
def test_a_title_is_the_activity_not_the_place_or_the_calendar(said: str, title: str) -> None:
    [event] = link(said)
    assert event.title == title


@pytest.mark.parametrize(
    ("said", "title"),
    [
        ("meeting the accountant wednesday at 2pm", "Meeting with the accountant"),
        ("book a call with the landlord tuesday at 11am", "Call with the landlord"),
        ("lunch with my boss friday at 1pm", "Lunch with my boss"),
        ("coffee with the new intern monday at 10am", "Coffee with the new intern"),
        ("Abendessen mit meinem Chef am Freitag um 19 Uhr", "Abendessen mit meinem Chef"),
        ("call with the team lead tuesday at 3pm", "Call with the team lead"),
        # must not fire: whose plan it is, a pickup, a role that is the plan, nobody in particular
        ("drinks for my sister's birthday friday at 7pm", "Drinks"),
        ("pick up my sister friday at 3pm", "Pick up"),
        ("dentist wednesday at 2pm", "Dentist"),
        ("lunch with all of them friday at 1pm", "Lunch"),
        ("call the wedding photographer on tuesday at 3pm", "Call"),
    ],
)
def test_a_role_the_plan_is_with_joins_its_title(said: str, title: str) -> None:
    """ "lunch with my boss" is "Lunch with my boss", as a name would be, so that the title says
    who it is with and a later "move the accountant" finds its meeting."""
    [event] = link(said)
    assert event.title == title


def test_a_role_said_beside_two_plans_joins_neither() -> None:
    events = link("lunch with my boss on monday at 1pm and gym on tuesday at 6pm")
    assert sorted(e.title for e in events) == ["Gym", "Lunch"]


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("There's an ophthalmologist in San Carlos called <PERSON_1>, MD.", ""),
        ("The dentist is called Dr. <PERSON_1>.", ""),
        ("The event is called <PERSON_1>'s farewell.", "<PERSON_1>'s farewell"),
        # a contact detail ends a name; "the following:" points at what comes after it
        ("If you want to call them you can at <PHONE_1>.", ""),
        ("Call it Dinner at <ADDRESS_1> please", "Dinner"),
        ("Add the following to my calendar: property visit appointment at 2:30.", ""),
    ],
)  # fmt: skip
def test_a_person_is_no_event_name(sentence: str, title: str) -> None:
    assert named_title(sentence, [])[0] == title


@pytest.mark.parametrize(
    ("text", "last_words"),
    [
        ("You want to visit Dr. <PERSON_1> at 3 pm? Yes.", ["pm?"]),
        ("Sra. Gómez viene hoy. Vale.", ["hoy."]),
        ("Approx. 2 hours, e.g. a long lunch. Ok", ["lunch."]),
        # a full stop that does end the sentence: "No.", "etc.", a weekday, a street
        ("No. Let's do 6.", ["No."]),
        ("Bring cake, plates etc. Then we eat.", ["etc."]),
        ("Lunch on Sat. Dinner on Sun.", ["Sat."]),
        ("Essay due Dec 11. Advising meeting Monday", ["11."]),  # a date's day ends one
        ("Thursday Dec. 24: 4 PM. Friday Dec. 25: 9 AM", ["PM."]),  # a month's short form
        ("am 3. Juli treffen wir uns. Gut", ["uns."]),  # an ordinal's dot does not
        ("I live on Main St. See you at 5.", ["St."]),
    ],
)  # fmt: skip
def test_sentences_end_where_no_abbreviation_goes_on(text: str, last_words: list[str]) -> None:
    from lang.text import sentence_breaks

    assert [text[: m.start()].split()[-1] for m in sentence_breaks(text)] == last_words


@pytest.mark.parametrize(
    ("thread", "start", "title"),
    [
        # the agent's counter-offer, accepted, wins over the first request
        ("Me: I'd like a visit quarter past 3 in the afternoon on March 1st.\n"
         "Agent: You want to visit Dr. <PERSON_1>, MD at 3:15 pm on March 1st?\n"
         "Me: That is correct.\n"
         "Agent: I couldn't book that time. Want to instead see Dr. <PERSON_1>, MD at 3:30 pm on "
         "March 1st?\nMe: Yeah, that'd be fine.\nAgent: What name should I use for the event?\n"
         "Me: Doctor visit, please.", "2027-03-01T15:30:00+01:00", "Doctor visit"),
        # a new day for the plan, then its time restated beside that day
        ("Me: I would like to book an appointment at 2 pm on the 14th of March.\n"
         "Agent: Please confirm the stylist at 2 pm on March 14th.\n"
         "Me: No, I'd like to visit the 10th of March.\nAgent: Please confirm on March 10th.\n"
         "Me: Yes.\nMe: Please confirm a stylist visit for March 10th at <ADDRESS_1> for 2 pm.\n"
         "Agent: Yes, that is great.", "2027-03-10T14:00:00+01:00", None),
        # the time said again last is the one agreed
        ("Me: Can you book me an appt on the 10th of March at 10:30 in the morning?\n"
         "Agent: Appointment for 10:30 am on March 10th. Is that correct?\nMe: Yes.\n"
         "Agent: What time should I add?\nMe: Quarter past 10 in the morning.\n"
         "Agent: I have the appointment at 10:30 am on March 10th. Is that correct?\nMe: Yes.",
         "2027-03-10T10:30:00+01:00", None),
    ],
)  # fmt: skip
def test_the_last_agreed_start_of_a_booking_dialogue_wins(
    thread: str, start: str, title: str | None
) -> None:
    events = [e for e in link("add the event we agreed on to my calendar", thread) if e.schedulable]
    assert [e.start.isoformat() for e in events] == [start]
    if title is not None:
        assert events[0].title.startswith(title)


@pytest.mark.parametrize(
    ("request_text", "thread", "title"),
    [
        # the agent's read-back names an unnamed event
        ("add the event we agreed on", "Agent: You are free tomorrow from 11 am until 6:30 pm.\n"
         "Agent: When is the event?\nMe: Time: tomorrow 11:15.\nAgent: Please confirm: Dentist "
         "appointment tomorrow for 11:15 am\nMe: Yes thank you", "Dentist"),
        # ... and one that qualifies its activity names a plan known only by a verb more closely
        ("add the event we agreed on", "Me: I'd like to visit it on the 9th.\nAgent: I have "
         "scheduled your visit.\nMe: put it down at 1 in the afternoon\nAgent: You want me to "
         "add the event Property appointment to your calendar at 1 pm on the 9th?\nMe: Yes",
         "Property appointment"),
        # must not fire: a named event keeps its name, a bare "appointment" names nothing more
        # closely, and a name the request uses itself stays
        ("add the event we agreed on", "Me: Lunch tomorrow at 1?\nAgent: Please confirm: "
         "reservation tomorrow at 1 pm\nMe: Yes", "Lunch"),
        ("add the event we agreed on", "Me: dentist tomorrow at 3pm\nAgent: Please confirm: the "
         "appointment at 3 pm\nMe: Yes", "Dentist"),
        ("add the haircut", "Me: haircut sunday?\nAgent: We can do 4pm. Please confirm a color "
         "appointment at 4pm?\nMe: no, just the cut at 4pm\nAgent: ok, haircut at 4pm booked",
         "Haircut"),
    ],
)  # fmt: skip
def test_a_confirmation_names_an_event_that_has_no_name_yet(
    request_text: str, thread: str, title: str
) -> None:
    [event] = [e for e in link(request_text, thread) if e.schedulable]
    assert event.title.startswith(title)


@pytest.mark.parametrize(
    ("thread", "all_day"),
    [
        ("<PERSON_1>: Konferenz vom 14.–16. Mai 2027", ("2027-05-14", "2027-05-17")),
        ("<PERSON_1>: we're in Lisbon Dec 20 - Dec 27", ("2026-12-20", "2026-12-28")),
        # a range hedged into a window (acts.toml [estimate]): one of those days, which is unknown
        ("Your order has shipped!\nEstimated delivery: 2-4 December", None),
        ("Lieferung voraussichtlich 2.–4. Dezember", None),
        # must not fire: one day with no all-day word is a plan to ask about
        ("<PERSON_1>: Konferenz am 16. Mai 2027", None),
        ("<PERSON_1>: dinner friday?", None),
    ],
)  # fmt: skip
def test_a_range_of_whole_days_is_all_day(thread: str, all_day: tuple[str, str] | None) -> None:
    [event] = link("add this", thread)
    if all_day is None:
        assert not event.all_day and event.start is None
    else:
        assert event.all_day
        assert (event.start.date().isoformat(), event.end.date().isoformat()) == all_day


@pytest.mark.parametrize(
    ("request_text", "title"),
    [
        # a request verb asks for the event; it names no part of it
        ("Add date night for friday next week at 7", "Date night"),
        ("Set up a vacation at Bahamas Friday next week at 2PM.", "Vacation"),  # Bahamas is where
        ("create work meeting on monday at 5", "Work meeting"),
        ("trage Zahnarzt am Montag um 10 ein", "Zahnarzt"),
        # ... nor does a move's verb
        ("push standup to 10am tomorrow", "Standup"),
        # must not fire: nouns that are also verbs, and words that only follow a verb
        ("book club thursday at 7pm", "Book club"),
        ("moving day saturday at 9am", "Moving day"),
        ("oil change appointment friday at 3pm", "Oil change appointment"),
        ("farmers market sat 9am", "Farmers market"),
        ("plan review on monday at 10", "Plan review"),
        # a place said in lower case right before the time is where, not what
        ("study group in the library tomorrow at 3pm", "Study group"),
        ("a secret project to work on in the closet tomorrow at 2 pm", "Secret project work"),
        # ... unless nothing else names it
        ("in the office tomorrow at 3pm", "Office"),
    ],
)  # fmt: skip
def test_request_verbs_name_no_event(request_text: str, title: str) -> None:
    from agent.extraction.title import words_around

    mention = next(m for m in TimeParser(tz="Europe/Berlin", now=NOW).parse(request_text))
    assert words_around(request_text, mention.start, mention.end) == title


@pytest.mark.parametrize(
    ("request_text", "title"),
    [
        # a meal is a time and an activity: the name it is given names the event
        ("Set an event at 5 on Saturday called dinner.", "Dinner"),
        ("add lunch on monday at 1, call it brunch", "Brunch"),
        # must not fire: a time of day after a name ends the name
        ("call it Dentist tonight at 7", "Dentist"),
    ],
)  # fmt: skip
def test_a_meal_word_given_as_a_name_names_the_event(request_text: str, title: str) -> None:
    [event] = link(request_text)
    assert event.title == title


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a read-back of the event being set up, with another day: the event moves there
        ("Me: book the dentist on November 25th at 11:15\n"
         "Agent: Date of the event: November 26th at 11:15 am.\nMe: Yes, that's right.",
         ["2026-11-26T11:15:00+01:00"]),
        # must not fire: another activity with its own day is its own event; a read-back with
        # nothing before it is the event itself
        ("Me: dentist on November 25th at 11:15\nMe: the plumber comes November 26th at 8am",
         ["2026-11-25T11:15:00+01:00", "2026-11-26T08:00:00+01:00"]),
        ("Agent: Date of the event: November 26th at 11:15 am.\nMe: Yes.",
         ["2026-11-26T11:15:00+01:00"]),
    ],
)  # fmt: skip
def test_a_read_back_of_the_event_restates_it(thread: str, expected: list[str]) -> None:
    assert starts(link("add all of it", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a reply that puts the plan off leaves it proposed, not agreed, in five languages
        ("<PERSON_1>: lunch thursday at 1?\nMe: let me check and get back to you", []),
        ("<PERSON_1>: call monday at 3?\nMe: 3 is hard, how about 4:30?\n"
         "<PERSON_1>: I'll let you know tomorrow", []),
        ("<PERSON_1>: Essen am Freitag um 20 Uhr?\nIch: ich schau mal und melde mich", []),
        ("<PERSON_1>: on dîne vendredi à 20h ?\nMoi : je regarde et je te redis", []),
        ("<PERSON_1>: ¿comemos el jueves a la 1?\nYo: déjame ver", []),
        ("<PERSON_1>: meet thursday at 3pm?\n"
         "Me: should be fine but let me double check with my manager first", []),
        # must not fire: settled afterwards, by a time said again or by a yes; a plain yes
        ("<PERSON_1>: lunch thursday at 1?\nMe: let me check\nMe: 1 works",
         ["2026-11-26T13:00:00+01:00"]),
        ("<PERSON_1>: lunch thursday at 1?\nMe: let me check\nMe: ok, that works",
         ["2026-11-26T13:00:00+01:00"]),
        ("<PERSON_1>: lunch thursday at 1?\nMe: sure, see you then", ["2026-11-26T13:00:00+01:00"]),
        ("Me: dentist thursday at 3pm\nAgent: Let me double check with you: thursday at 3pm?\n"
         "Me: That will do it.", ["2026-11-26T15:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_reply_that_puts_the_plan_off_leaves_it_open(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a counter nobody answered: neither time is agreed
        ("<PERSON_1>: interview debrief Monday 9am?\nMe: I'd prefer 10 if possible", []),
        ("<PERSON_1>: can we do the demo Friday at 2?\nMe: How about 3:30 instead?", []),
        ("<PERSON_1>: demo Friday at 2?\nMe: how about 3:30?\nMe: or 4?", []),
        # the counter answered by someone else: its time
        ("<PERSON_1>: debrief Monday 9am?\nMe: could we do 10?\n<PERSON_1>: sure",
         ["2026-11-23T10:00:00+01:00"]),
        ("<PERSON_1>: debrief Monday 9am?\nMe: could we do 10?\n<PERSON_1>: 10 works",
         ["2026-11-23T10:00:00+01:00"]),
        # back to a time the other side offered: agreed
        ("<PERSON_1>: debrief Monday 9am?\nMe: could we do 10?\n"
         "<PERSON_1>: 10 is impossible for me unfortunately\nMe: ok 9 then",
         ["2026-11-23T09:00:00+01:00"]),
        # a yes that counters again settles nothing
        ("<PERSON_1>: debrief Monday 9am?\nMe: could we do 10?\n"
         "<PERSON_1>: ok, what about friday instead?", []),
        ("<PERSON_1>: debrief Monday 9am?\nMe: could we do 10?\n"
         "<PERSON_1>: in the afternoon would be better", []),
        # must not fire: one person correcting their own time, a pick among offered options
        ("<PERSON_1>: dinner sunday? let's say 7pm\n<PERSON_1>: actually 7:30pm",
         ["2026-11-22T19:30:00+01:00"]),
        ("<PERSON_1>: lunch monday at 1pm or 2pm?\nMe: 2pm works", ["2026-11-23T14:00:00+01:00"]),
        # an unsigned e-mail reply is not by the one it quotes: its new time is a counter
        ("Could we make it 11 instead of 10?\n\nOn Mon, 23 Nov 2026 at 10:12, <PERSON_1> wrote:\n"
         "> <PERSON_2>, Friday 10am confirmed.", []),
        # a booking dialogue: the user's own request takes up the service's counter
        ("Me: dentist Tuesday at 4:30 pm\nAgent: Sorry, how about Wednesday at 4:30 pm?",
         ["2026-11-25T16:30:00+01:00"]),
        # a change after the user's "ok" that asks for an answer waits for it; "3 it is" after
        # "let's keep the original" settles the start both backed
        ("<PERSON_1>: Friday 3pm for the project call?\nMe: ok\n<PERSON_1>: Actually could we do "
         "4 instead?", []),
        ("<PERSON_1>: Friday 3pm for the project call?\nMe: ok\n<PERSON_1>: Actually could we do "
         "4 instead?\nMe: Hmm 4 is hard for me, let's keep the original\n<PERSON_1>: Sure, 3 it is",
         ["2026-11-27T15:00:00+01:00"]),
        # ... a person's counter waits for the user's own yes; so does a waitlist
        ("<PERSON_1>: Saturday 10am at the climbing wall?\nMe: Yes! Saturday 10\n<PERSON_1>: Hmm, "
         "could we move it to Sunday 11 instead? Let me know", []),
        ("<PERSON_1>: You're on the waitlist for Spin, Saturday 10:00. We'll let you know if a "
         "slot opens.", []),
        ("<PERSON_1>: A slot has opened: Thursday 26 Nov at 14:20. Reply YES to claim it.\n"
         "Me: YES", ["2026-11-26T14:20:00+01:00"]),
        # a notice's lines: the waiting list two lines above the time, or the hope below it
        ("Eventbrite\nYou're on the waiting list for Festive Wreath Making\n"
         "Sat 5 Dec 2026, 14:00 - 16:30\nThe Potting Shed, Hove", []),
        ("Festive Wreath Making\nSat 5 Dec 2026, 14:00 - 16:30\n"
         "We'll email you if a place becomes available.", []),
        # must not fire: a waiting list in another message, before the person's own plan
        ("<PERSON_1>: I'm on the waiting list for the wreath class, ugh\n"
         "<PERSON_2>: come to mine instead, Sat 5 Dec at 2pm?\nMe: deal",
         ["2026-12-05T14:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_counter_waits_for_someone_elses_yes(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a weekday said with the clock of a dated offer is that offer, not the coming weekday
        ("Wednesday at 11 works, see you then.\n\nOn Mon, 16 Nov 2026 at 10:12, <PERSON_1> wrote:\n"
         "> Are you free Wednesday Dec 2 at 11?", ["2026-12-02T11:00:00+01:00"]),
        ("<PERSON_1>: budget review Wednesday Dec 2 at 11?\nMe: Wednesday at 11 works",
         ["2026-12-02T11:00:00+01:00"]),
        # must not fire: another activity on that weekday is its own event; another clock
        ("<PERSON_1>: budget review Wednesday Dec 2 at 11?\nMe: yes\n"
         "<PERSON_1>: and lunch Wednesday at 11 too?",
         ["2026-12-02T11:00:00+01:00", "2026-11-25T11:00:00+01:00"]),
        ("<PERSON_1>: budget review Wednesday Dec 2 at 11?\nMe: Wednesday at 2 is better", []),
    ],
)  # fmt: skip
def test_a_weekday_said_again_is_the_offer_it_answers(thread: str, expected: list[str]) -> None:
    assert sorted(starts(link("add them", thread))) == sorted(expected)


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a bare hour that answers a clock reads in that clock's half of the day
        ("<PERSON_1>: footie fri 8pm?\nMe: 9 better?\n<PERSON_1>: 9 ok",
         ["2026-11-27T21:00:00+01:00"]),
        # ... with its minutes too, which Duckling reads itself
        ("<PERSON_1>: movie fri 9pm?\nMe: make it 9:30\n<PERSON_1>: ok",
         ["2026-11-27T21:30:00+01:00"]),
        # ... and a clock the words read in one half, when the other is clearly nearer
        ("<PERSON_1>: drinks fri 9pm?\nMe: make it 11:30\n<PERSON_1>: ok",
         ["2026-11-27T23:30:00+01:00"]),
        ("<PERSON_1>: lunch fri 12:30?\nMe: make it 1\n<PERSON_1>: ok",
         ["2026-11-27T13:00:00+01:00"]),
        ("<PERSON_1>: meeting fri 10am?\nMe: make it 11\n<PERSON_1>: ok",
         ["2026-11-27T11:00:00+01:00"]),
        # ... the clock said before it in time: in a mail chain the quoted message is older,
        # and "6ish" is a clock, roughly
        ("7 it is.\n\nOn 21 Nov 2026, at 08:21, <PERSON_1> wrote:\n> Friday's good but can we say "
         "7 instead?\n>\n> On 21 Nov 2026, at 08:05, <PERSON_2> wrote:\n>> Drinks Friday 6ish?",
         ["2026-11-27T19:00:00+01:00"]),
        # "Saturday I'm away" turns the Saturday down; "maybe", "not sure" leave it open
        ("<PERSON_1>: games Saturday 4pm then?\nMe: Saturday I'm away. next weekend?", []),
        ("<PERSON_1>: quiz night tues 8pm?\nMe: maybe, depends on work", []),
        ("<PERSON_1>: squash mon 7pm?\nMe: yes!\nMe: hmm actually not sure, will confirm monday",
         []),
        # a bare hour said again, in either of its readings, is the agreed time
        ("<PERSON_1>: pub 2nite @ 7ish?\nMe: 7ish 👍", ["2026-11-21T19:00:00+01:00"]),
        # an activity answered with no is off, the one answered with yes stands
        ("<PERSON_1>: lunch thurs 1pm and drinks fri 6pm?\nMe: lunch yes, drinks I can't sorry",
         ["2026-11-26T13:00:00+01:00"]),
        # a reply that is nothing but a "can't" turns the plan down (acts.toml [decline_alone])
        ("<PERSON_1>: dinner fri 7pm?\nMe: can't, sorry", []),
        ("<PERSON_1>: dinner fri 7pm?\nMe: sorry I can't 😕", []),
        ("<PERSON_1>: cena el viernes a las 19h?\nMe: no puedo, lo siento", []),
        ("<PERSON_1>: Abendessen Freitag 19 Uhr?\nMe: kann leider nicht", []),
        # ... only as the answer to the message that offered it, in a chat of two; a counter
        # may follow it ("how about saturday same time?"), and a yes after it settles it
        ("<PERSON_1>: dinner fri 7pm?\nMe: sorry can't\n<PERSON_1>: how about sunday same "
         "time?\nMe: sunday works!", ["2026-11-22T19:00:00+01:00"]),
        # the one who said no does not settle the start with a later yes of their own: it may
        # answer a counter read as no time ("no can do" - "11?" - "yep" is no 10am)
        ("<PERSON_1>: dinner fri 7pm?\nMe: can't, sorry\nMe: wait actually I can! see you then",
         []),
        ("<PERSON_1>: meeting sun 10am?\nMe: no can do\n<PERSON_1>: 11?\nMe: yep", []),
        # the one who offered it takes it back after a yes: off
        ("<PERSON_1>: can we sync sun at 2pm?\nMe: sure\n<PERSON_1>: actually can't, sorry", []),
        ("<PERSON_1>: dinner fri at 7pm at mine?\nMe: yes I'm in\n<PERSON_1>: great. can you "
         "bring wine?\nMe: can't, sorry", ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: tennis sun 9am?\nMe: yes!\n<PERSON_2>: can't\nMe: ok just us two then",
         ["2026-11-22T09:00:00+01:00"]),
        # must not fire: a yes, a plain clock that answers nothing, "no problem", "can't wait"
        ("<PERSON_1>: dinner fri 7pm?\nMe: can't wait!", ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: quiz night tues 8pm?\nMe: yes!", ["2026-11-24T20:00:00+01:00"]),
        ("<PERSON_1>: drinks fri 6pm?\nMe: drinks no problem!", ["2026-11-27T18:00:00+01:00"]),
    ],
)  # fmt: skip
def test_answers_that_settle_or_leave_a_time_open(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("request_", "thread", "expected"),
    [
        # how to cancel is an instruction for later, not a call-off
        ("add my appointment", "Your appointment is confirmed for Thursday 26 November at 08:50. "
         "To cancel call <PHONE_1>.", ["2026-11-26T08:50:00+01:00"]),
        ("add it", "Table for 2 on Friday 27 November at 8pm. Free cancellation until 6pm.",
         ["2026-11-27T20:00:00+01:00"]),
        # the request's own name for the one event a notice calls "your appointment"
        ("add my haircut", "Your appointment on Sat 28 Nov at 11:00 has been moved to Sat 28 Nov "
         "at 12:30.", ["2026-11-28T12:30:00+01:00"]),
        # must not fire: a real call-off
        ("add it", "<PERSON_1>: dinner friday 27 november at 8pm?\nMe: sorry, need to cancel", []),
    ],
)  # fmt: skip
def test_notices_say_how_to_cancel_and_the_request_names_them(
    request_: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_, thread)) == expected


def test_a_bound_on_a_clock_names_no_day() -> None:
    thread = (
        "<PERSON_1>: design crit tomorrow? free 11-12 or after 3\nMe: after 3 is better for me\n"
        "<PERSON_1>: 3:30 then?\nMe: ok"
    )
    assert starts(link("add it", thread)) == ["2026-11-22T15:30:00+01:00"]


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a move from one day and time to another: the new day and time
        ("The call has been rescheduled from Monday at 10:00 am to Friday, Nov 27 at 9:00 am.",
         ["2026-11-27T09:00:00+01:00"]),
        # must not fire: a move of the clock alone keeps the day
        ("<PERSON_1>: review Monday 23 Nov at 4pm\n<PERSON_1>: moved from 4pm to 11am",
         ["2026-11-23T11:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_move_from_one_time_to_another_takes_the_new_one(
    thread: str, expected: list[str]
) -> None:
    assert starts(link("add it", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a day or time turned down by the words before it, in a group chat too
        ("<PERSON_1>: team lunch thursday 12:30?\n<PERSON_2>: can't thursday\n"
         "<PERSON_1>: ok let's figure out another day", []),
        ("<PERSON_1>: call monday at 10?\nMe: I'm busy monday", []),
        # must not fire: "can't wait", "busy" said of something else
        ("<PERSON_1>: dinner thursday at 8?\nMe: yes! can't wait for thursday",
         ["2026-11-26T20:00:00+01:00"]),
        ("<PERSON_1>: the office is busy monday, so call at 10 monday?\nMe: ok",
         ["2026-11-23T10:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_day_turned_down_before_it_is_off(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a reply that calls the plan a fake: nothing of it is created
        ("<PERSON_1>: your security review is set for Friday at 4pm\nMe: looks like phishing", []),
        ("<PERSON_1>: refund call Thursday 3pm, reply YES\nMe: that's a scam, don't click", []),
        # ... or takes it back as sent to the wrong chat
        ("<PERSON_1>: dinner friday at 8?\nMe: yes\n<PERSON_1>: sorry wrong chat lol, ignore", []),
        # must not fire: the word in a message with a time of its own, or said of something else
        ("<PERSON_1>: dinner friday at 8?\nMe: yes\n<PERSON_1>: pls ignore the typo, 8 works",
         ["2026-11-27T20:00:00+01:00"]),
        ("<PERSON_1>: dinner friday at 8?\nMe: yes! no fake tan this time", [
            "2026-11-27T20:00:00+01:00"]),
        ("<PERSON_1>: phishing training friday at 10?\nMe: ok",
         ["2026-11-27T10:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_plan_called_a_fake_is_off(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # moved to a week with no day or time: nothing is agreed until one is said
        ("<PERSON_1>: 1:1 tomorrow 11am still good?\nMe: can we push to next week?\n"
         "<PERSON_1>: sure, I'll send a new time", []),
        # a rain check is a call-off
        ("<PERSON_1>: tennis fri 5pm?\nMe: yes!\n<PERSON_1>: rain check? forecast is awful", []),
        # the speaker's own other plan, said as why they are away
        ("<PERSON_1>: my sister's wedding is Saturday at 2, so I'm out all weekend\n"
         "Me: have fun!", []),
        # must not fire: a move to a named day keeps the clock; being away with an offer
        ("<PERSON_1>: 1:1 tomorrow 11am?\nMe: can we push to monday?\n<PERSON_1>: sure",
         ["2026-11-23T11:00:00+01:00"]),
        ("<PERSON_1>: I'm out until 3, how about 4pm monday?\nMe: ok",
         ["2026-11-23T16:00:00+01:00"]),
        # put off to a day nobody names yet, in any language (acts.toml [postpone])
        ("<PERSON_1>: ¿Mañana a las 5 en el gimnasio?\nYo: Dale\n"
         "<PERSON_1>: Uy, mejor lo dejamos para otro día", []),
        ("<PERSON_1>: drinks tmrw at 6?\nMe: yes\n<PERSON_1>: let's do it another day", []),
        # must not fire: the other day is past, another plan put off; a day and a time said
        # with it move the plan
        ("<PERSON_1>: coffee tmrw at 10am?\nMe: yes! and let's do drinks another day",
         ["2026-11-22T10:00:00+01:00"]),
        ("<PERSON_1>: saw Jo the other day! drinks tmrw at 6?\nMe: yes",
         ["2026-11-22T18:00:00+01:00"]),
        ("<PERSON_1>: drinks tmrw at 6?\nMe: let's do it another day? monday at 6\n"
         "<PERSON_1>: ok", ["2026-11-23T18:00:00+01:00"]),
        # a clock said as a booking the speaker has is no offer (acts.toml [have_a_clock]),
        # nor is the hour someone has to leave by (times.toml [finish_labels])
        ("<PERSON_1>: drinks thursday, 5:30?\n<PERSON_2>: can we make it 6? I have a 5pm that "
         "always runs over\n<PERSON_1>: sure, 6", ["2026-11-26T18:00:00+01:00"]),
        ("<PERSON_1>: Mon 10?\nMe: make it 11\n<PERSON_1>: actually 10:30? I have a hard stop "
         "at noon\nMe: ok", ["2026-11-23T10:30:00+01:00"]),
        ("<PERSON_1>: lunch friday? I have a 2pm, so 12?\nMe: yes", []),  # 12 is no clock here
        # must not fire: a noun after the clock says what is at that time; a slot offered
        ("<PERSON_1>: I have a 7pm table for us at Nopa on friday, ok?\nMe: yes",
         ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: we have a 2pm tomorrow, want it?\nMe: yes", ["2026-11-22T14:00:00+01:00"]),
        ("<PERSON_1>: I've got a 10am that opened up tomorrow, want it?\nMe: yes",
         ["2026-11-22T10:00:00+01:00"]),
        ("<PERSON_1>: we need to leave at 7am tomorrow for the airport\nMe: ok",
         ["2026-11-22T07:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_plan_put_off_or_away_is_not_agreed(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("request_text", "subject"),
    [
        ("add the design crit, I'm going", [["desig", "crit"]]),
        ("add parents' evening to my calendar", [["paren", "eveni"]]),
        ("add <PERSON_1>'s eye appointment, I'm taking her", [["eye"]]),
        ("add book club", [["book", "club"]]),
        ("add the 22 March sync", [["sync"]]),
        ("agrega la cena del viernes", [["cena"]]),
        # several things, each its own name; a redacted name is a word of its own
        ("add the book club and the gingerbread workshop", [["book", "club"], ["ginge", "works"]]),
        ("put the extra rehearsal and the concert in", [["extra", "rehea"], ["conce"]]),
        ("add <PERSON_1>", [["<person_1>"]]),
        # no verb, opened by a word that picks
        ("just the holiday party", [["holid", "party"]]),
        ("solo la cena", [["cena"]]),
        # names nothing: generic words, pronouns, days, people, no verb
        ("add the event we agreed on to my calendar", []),
        ("add it", []),
        ("add this meeting to my calendar", []),
        ("add my booking", []),
        ("schedule a call with <PERSON_1> tomorrow", []),
        ("ajoute le rendez-vous à la caisse", []),
        ("anything I need to add from this?", []),
        ("what's on thursday?", []),
        ("just add it", []),
        ("the holiday party was fun", []),
        ("add lunch and dinner", [["lunch"], ["dinne"]]),
    ],
)  # fmt: skip
def test_the_words_a_request_names_its_event_by(
    request_text: str, subject: list[list[str]]
) -> None:
    from agent.extraction.title import request_subject

    assert request_subject(request_text) == subject


@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        # the request's words pick the event whose messages say them
        ("add the dentist", "<PERSON_1>: dentist tue at 3\n<PERSON_1>: and gym wed at 6",
         ["2026-11-24T15:00:00+01:00"]),
        ("add my dentist appointment",
         "<PERSON_1>: dont forget ur dentist tmrw at 9!!\nMe: ugh fine",
         ["2026-11-22T09:00:00+01:00"]),
        ("add the review", "<PERSON_1>: sorry, need to cancel the review\n"
         "<PERSON_1>: and the retro is on monday at 2", []),
        # said in the thread, but no timed event comes from there: no other event stands in
        ("add parents' evening",
         "Dear all, last day of term: Friday 18 December, children finish at 1.30pm.\n"
         "Parents' evening: bookings open on 12 January.", []),
        # not fired: a name the thread never says is the user's own for what it times
        ("add book club", "<PERSON_1>: weds 2nd it is, my place 7:30pm\nMe: 🙌",
         ["2026-12-02T19:30:00+01:00"]),
        # not fired: generic words name nothing
        ("add the meeting", "<PERSON_1>: sync on monday at 10?\nMe: yes",
         ["2026-11-23T10:00:00+01:00"]),
        # not fired: the request's own time stands
        ("add lunch with <PERSON_1> tomorrow at 1", "<PERSON_1>: lunch this week? maybe",
         ["2026-11-22T13:00:00+01:00"]),
    ],
)  # fmt: skip
def test_the_request_names_which_event_to_add(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # the user asked and no one else said yes: nothing agreed
        ("Me: would you be up for a run on Sunday morning, 8am from the park gates?", []),
        ("Me: hi, would Tuesday 1 December at 10:00 work for the planning session?\n"
         "<PERSON_1>: I am out of the office until Monday 30 November.", []),
        # not fired: someone else's yes, someone else's question (the request answers it), or
        # the user's own plain plan
        ("Me: run on Sunday 8am?\n<PERSON_1>: sure", ["2026-11-22T08:00:00+01:00"]),
        ("<PERSON_1>: run on Sunday 8am?", ["2026-11-22T08:00:00+01:00"]),
        ("Me: let's do a run on Sunday at 8am.", ["2026-11-22T08:00:00+01:00"]),
    ],
)  # fmt: skip
def test_the_users_own_question_waits_for_an_answer(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on to my calendar", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a notice that calls off what it goes on to describe (acts.toml [cancel_notice])
        ("Cancelled: Sprint review - Fri 27 Nov 2026 14:00", []),
        ("From: <PERSON_1> <<EMAIL_1>>\nSent: Tuesday, November 24, 2026 3:47 PM\nTo: Team\n"
         "Subject: Canceled: Sprint review\n\nWhen: Friday, November 27, 2026 2:00 PM-3:00 PM\n"
         "Where: Teams\n\nSorry all, release freeze.", []),
        ("<PERSON_1>  24/11 15:47\nCanceled a meeting\nSprint review\n"
         "Friday, November 27, 2026 @ 2:00 PM", []),
        # must not fire: a scheduling notice, a cancelled thing of one's own, a policy
        ("<PERSON_1>  24/11 11:02\nScheduled a meeting\nSprint review\n"
         "Friday, November 27, 2026 @ 2:00 PM", ["2026-11-27T14:00:00+01:00"]),
        ("Subject: Updated: Sprint review\n\nWhen: Friday, November 27, 2026 2:00 PM-3:00 PM",
         ["2026-11-27T14:00:00+01:00"]),
        ("Your booking: Friday 27 November at 14:00.\nCancellation policy: cancel 24 hours "
         "before.", ["2026-11-27T14:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_cancellation_notice_creates_nothing(thread: str, expected: list[str]) -> None:
    assert starts(link("add the sprint review", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # Italian, read like the other languages: a yes, a call-off, a "let you know"
        ("<PERSON_1>: cena giovedì alle 20?\nIo: perfetto, a giovedì",
         ["2026-11-26T20:00:00+01:00"]),
        ("<PERSON_1>: cena giovedì alle 20?\nIo: sì\n<PERSON_1>: scusa, devo annullare", []),
        ("<PERSON_1>: Facciamo la call col fornitore dopodomani alle 11?\n"
         "Io: Meglio alle 11:30, alle 11 ho un'altra riunione\n"
         "<PERSON_1>: Ok, chiedo al fornitore se va bene alle 11:30 e ti faccio sapere", []),
        ("<PERSON_1>: pranzo lunedì 30 novembre alle 13?\nIo: va benissimo",
         ["2026-11-30T13:00:00+01:00"]),
    ],
)  # fmt: skip
def test_italian_threads(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # the user introduces two people and steps out: their coffee is theirs (asked about)
        ("Me: <PERSON_1>, meet <PERSON_2>. You two should meet!\n"
         "<PERSON_2>: Thanks (moving you to bcc). <PERSON_1> - coffee Tuesday at 11?\n"
         "<PERSON_1>: Sounds great, Tuesday 11 works for me.", []),
        # must not fire: the user is in the plan and says its time
        ("Me: you two should come to dinner on friday at 8!\n<PERSON_1>: yes please\n"
         "<PERSON_2>: in!", ["2026-11-27T20:00:00+01:00"]),
        ("<PERSON_1>: coffee Tuesday at 11?\nMe: Sounds great", ["2026-11-24T11:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_plan_the_user_stepped_out_of_is_asked_about(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        # the user's own plan, asked for by its clock: "my" does not make it another's
        ("Add my 2:00 pm meeting on Tuesday.", "", ["2026-11-24T14:00:00+01:00"]),
        # any request verb (labels.toml [request_verbs]), in any language of the table
        ("put my 2pm meeting on tuesday", "", ["2026-11-24T14:00:00+01:00"]),
        ("schedule our 3pm call for Tuesday", "", ["2026-11-24T15:00:00+01:00"]),
        ("aggiungi il mio incontro delle 14:00 martedì", "", ["2026-11-24T14:00:00+01:00"]),
        # a request that opens with the plan, alone or after a wish with no verb of its own
        # (labels.toml [possessive_wants]), asks for nothing else
        ("my 3pm dentist on tuesday", "", ["2026-11-24T15:00:00+01:00"]),
        ("I need my 2pm meeting on tuesday in the calendar", "", ["2026-11-24T14:00:00+01:00"]),
        ("I want you to my 2:00 pm meeting on Tuesday.", "", ["2026-11-24T14:00:00+01:00"]),
        ("necesito mi reunión de las 3 el martes", "", ["2026-11-24T15:00:00+01:00"]),
        ("hi! my 2pm meeting on tuesday with <PERSON_1>, in the calendar please", "",
         ["2026-11-24T14:00:00+01:00"]),
        # a plan of the calendar's, called off in the same request, leaves the new one alone
        ("Make a doctors appointment for Tuesday at 2 PM and cancel my lunch that same Tuesday "
         "at 1 PM", "", ["2026-11-24T14:00:00+01:00"]),
        # must not fire: "my 2pm" in a thread is another plan; a move names the old time;
        # a plan called off in the thread, by name or not, is off
        ("add it", "<PERSON_1>: my 2pm meeting is running long, call at 4 instead?\nMe: ok",
         ["2026-11-21T16:00:00+01:00"]),
        ("move my 2pm meeting to Thursday", "", []),
        ("add lunch with Jo on Tuesday after my 2pm meeting", "", []),
        ("put lunch after my 2pm meeting on tuesday", "", []),
        ("I need to prep for my 2pm meeting on tuesday", "", []),
        ("I don't want my 2pm meeting on tuesday", "", []),
        ("when is my 2pm meeting on tuesday?", "", []),
        ("my 2pm meeting on tuesday, then drinks with Jo", "", []),
        # ... nor when the rest of the request asks anything else, or the plan is another's
        ("my 2pm meeting on tuesday?", "", []),
        ("my 2pm meeting on tuesday what room", "", []),
        ("My 2pm meeting on tuesday. What should I prepare", "", []),
        ("I need my 2pm meeting on tuesday to be shorter", "", []),
        ("my 2pm meeting on tuesday was great", "", []),
        ("my 2pm meeting on tuesday, don't add it", "", []),
        ("her 3pm recital on tuesday", "", []),
        ("mi reunión de las 3 el martes se canceló", "", []),
        ("block 30 minutes to prepare for my 2pm interview on Tuesday", "", []),
        ("cancel my meeting", "<PERSON_1>: let's hop on a call tomorrow at 3\nMe: ok", []),
        ("add it", "<PERSON_1>: lunch tuesday at 1?\nMe: sure\n<PERSON_1>: sorry, need to "
         "cancel our lunch", []),
        ("add it", "<PERSON_1>: lunch tuesday at 1?\nMe: sure\n<PERSON_1>: sorry, need to "
         "cancel", []),
    ],
)  # fmt: skip
def test_my_plan_in_a_request_is_the_event_asked_for(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a confirmation's later sentence that names no activity restates the event's start
        ("Me: when am I free on the 30th?\nAgent: at 8 am and at 5 pm.\nMe: add an event\n"
         "Agent: What time?\nMe: The event is called the Dentist appointment at 14:30.\n"
         "Agent: Can you confirm the following details? The event name is Dentist appointment."
         " It's scheduled for next Tuesday at 2:30 pm.\nMe: Yes, indeed.",
         ["2026-11-24T14:30:00+01:00"]),
        # a day of one's own against a time only the other side offered is a counter
        ("Agent: It is playing at 4 pm on the 30th.\nMe: I want to see it on the 29th.\n"
         "Agent: There is a showing at 10 am that day.\nMe: That works.",
         ["2026-11-29T10:00:00+01:00"]),
        ("<PERSON_1>: dinner friday at 7pm?\nMe: I would prefer saturday", []),
        # must not fire: a day that picks, accepts or matches the offer
        ("<PERSON_1>: dinner friday at 7pm?\nMe: friday is great", ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: dinner friday at 7pm?\nMe: sure!\n<PERSON_1>: saturday I am at the zoo",
         ["2026-11-27T19:00:00+01:00"]),
        ("<PERSON_1>: coffee friday at 10am?\nMe: I have the kids on sunday\n<PERSON_1>: great, "
         "see you friday", ["2026-11-27T10:00:00+01:00"]),
        ("Agent: Please confirm dinner on friday at 7pm. I'm back in town on thursday at 5pm.\n"
         "Me: yes", ["2026-11-27T19:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_restated_or_countered_day_moves_the_event(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a day said after options picks the one offered on that day
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: tuesday", ["2026-11-24T18:00:00+01:00"]),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: Tuesday suits me better",
         ["2026-11-24T18:00:00+01:00"]),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: ok tuesday", ["2026-11-24T18:00:00+01:00"]),
        # must not fire: a day no option is on, a day two options are on, a day turned down,
        # asked about or said of another plan
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: wednesday?", []),
        ("<PERSON_1>: yoga mon 6pm or mon 8pm?\nMe: monday", []),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: tuesday doesn't work for me", []),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: not tuesday", []),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: I'm in Chicago on tuesday", []),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: tuesday is my kid's recital", []),
        ("<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: does tuesday work for Ana too?", []),
    ],
)  # fmt: skip
def test_a_day_picks_the_option_offered_on_it(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("sentence", "title", "anaphoric"),
    [
        ("The event title is dental, time is twelve pm.", "Dental", True),
        # must not fire: entry words, a day, an opinion, a place, what the event is like
        # (a first cut named "make it a food event" and a hostile review found "Weekly",
        # "Tentative", "Month's": the words before "event" say what it is like, not what)
        ("Make it a weekly event.", "", False),
        ("this month's event is bowling", "", False),
        ("Please add a new event to my calendar.", "", False),
        ("Would you like me to add an event to your calendar?", "", False),
        ("add the Friday event", "", False),
        ("It was a great event", "", False),
        ("Is this an all-day event?", "", False),
        ("lunch thursday at 1pm? I'll be at the charity event in the morning", "", False),
        ("it is a black-tie event", "", False),
        ("make an outlook event for the budget review", "", False),
        # a quoted name is whole, with the time words in it
        ('add an event "An evening with us" on Tuesday at 7', "An evening with us", False),
        ('add a new event "Lunch at noon" on friday', "Lunch at noon", False),
    ],
)  # fmt: skip
def test_the_words_before_event_name_no_kind_of_event(
    sentence: str, title: str, anaphoric: bool
) -> None:
    assert named_title(sentence, []) == (title, anaphoric)


@pytest.mark.parametrize(
    ("thread", "titles"),
    [
        # a look at one's own calendar, or a day asked about with no plan, makes no event
        ("Me: Do I have something scheduled for the 30th?\nAgent: You have 2 empty slots.", []),
        ("Me: Anything else for the 30th?", []),
        ("Me: am I free on the 30th?", []),
        # must not fire: a day asked about for a plan on the table, a plan with its day
        ("<PERSON_1>: drinks?\nMe: the 30th?", ["Drinks with <PERSON_1>"]),
        ("<PERSON_1>: drinks on the 30th?", ["Drinks with <PERSON_1>"]),
    ],
)  # fmt: skip
def test_a_day_asked_about_names_no_event(thread: str, titles: list[str]) -> None:
    assert [e.title for e in link("add the event we agreed on", thread)] == titles


def test_a_place_said_as_the_event_is_no_title() -> None:
    from agent.extraction.title import activity_title

    assert activity_title("The event is <ADDRESS_1>.") == ""
    assert activity_title("The event is Dentist appointment.") == "Dentist appointment"


@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        # rows a hostile review found creating wrong events after the rules above: none may
        # fire. A move beside a calendar question still moves (and waits for a yes).
        ("add it", "<PERSON_1>: dinner thursday at 8?\nMe: sure\n<PERSON_1>: we should move it "
         "to friday, anything else on friday for you?", []),
        # a pick that compares two days, hedges, or is another person's
        ("add it", "<PERSON_1>: dinner mon 7pm or tue 7pm?\nMe: tuesday is better than monday",
         []),
        ("add it", "<PERSON_1>: dinner mon 7pm or tue 7pm?\nMe: Tuesday but earlier if possible",
         []),
        ("add it", "<PERSON_1>: dinner mon 7pm or tue 7pm?\n<PERSON_2>: tuesday!", []),
        # "my 2pm" after a verb that does something else with it
        ("create my 3pm meeting notes doc", "", []),
        ("save my 2pm meeting link", "", []),
        # a date said of one's own preparation is no counter
        ("add it", "<PERSON_1>: call monday at 10am\nMe: I'll prep for it on friday\n"
         "<PERSON_1>: perfect", ["2026-11-23T10:00:00+01:00"]),
        # lengths: never a clock, and they may end after midnight
        ("add call with Tom tomorrow at 3pm (1h)", "", ["2026-11-22T15:00:00+01:00"]),
        ("add it", "<PERSON_1>: call tomorrow at 3pm\nMe: ok\n<PERSON_1>: can we move it 1h "
         "later?\nMe: sure", ["2026-11-22T16:00:00+01:00"]),
        ("brunch sunday at 11 for an hour and a half", "", ["2026-11-22T11:00:00+01:00"]),
    ],
)  # fmt: skip
def test_rules_found_unsafe_by_review_stay_safe(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


@pytest.mark.parametrize(
    ("said", "title", "end"),
    [
        ("Next Steps meeting tuesday at 3pm", "Next Steps meeting", "16:00"),
        ("Last Mile sync tuesday at 3pm", "Last Mile sync", "16:00"),
        ("add the gala friday at 7pm for 4 hours", "Gala", "23:00"),
    ],
)
def test_a_capitalised_lead_word_and_a_late_length_are_kept(
    said: str, title: str, end: str
) -> None:
    [event] = link(said)
    assert (event.title, event.end.strftime("%H:%M")) == (title, end)


@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        # a third review's rows: a repeating time names no one day (`times.toml [recurrence]`)
        ("add team sync weekdays at 10 for 30 minutes", "", []),
        ("add standup every day at 10am", "", []),
        ("add standup daily at 9 for 15 min", "", []),
        ("add it", "<PERSON_1>: group runs saturdays 7 AM from the boathouse", []),  # plural
        ("add it", "<PERSON_1>: Lauftreff samstags um 9 Uhr", []),
        # a pick in a group chat, a hedged pick, a pick for someone else, a pick still asking
        ("add it", "<PERSON_1>: call Monday or Tuesday at 10?\nMe: Tuesday suits me better\n"
         "<PERSON_2>: I'm away Tuesday", []),
        ("add it", "<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: Tuesday would suit me better if "
         "Bob can join", []),
        ("add it", "<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: Tuesday suits <PERSON_2> better", []),
        ("add it", "<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: Tuesday better for me. Bob, "
         "Tuesday ok?", []),
        # must not fire: a time with a word of repetition after it, a plain pick
        ("tuesday at 10, each of us brings a dish", "", ["2026-11-24T10:00:00+01:00"]),
        ("add it", "<PERSON_1>: sunday's run at 7 AM?\nMe: yes", ["2026-11-22T07:00:00+01:00"]),
        ("add it", "<PERSON_1>: Sundays are bad for me, Monday 3pm?\nMe: sure",
         ["2026-11-23T15:00:00+01:00"]),  # the plural is no part of the clock's phrase
        ("add it", "<PERSON_1>: yoga mon 6pm or tue 6pm?\nMe: Tuesday suits me better",
         ["2026-11-24T18:00:00+01:00"]),
    ],
)  # fmt: skip
def test_repeating_times_and_unsure_picks_create_nothing(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


@pytest.mark.parametrize(
    ("said", "end"),
    [
        ("add call with Tom tomorrow at 3pm (1h)", "16:00"),
        ("add the review tomorrow at 10am, 90 minutes", "11:30"),
        # a length written as an adjective
        ("add a 45-minute video interview tomorrow at 1:30pm", "14:15"),
        # must not fire: a move by an amount, no length at all
        ("lunch friday at 1", "14:00"),
    ],
)
def test_a_length_said_beside_the_clock_sets_the_end(said: str, end: str) -> None:
    [event] = link(said)
    assert event.end.strftime("%H:%M") == end


# The lines of a listing in one message, each with its own day and clock, are events of their
# own; the request's name picks one. Rows after "must not fire" are one plan said again or
# moved.
LISTING = "This month at Elm Park:\nDec 5 – Toy drive 10am-2pm\nDec 12 – Farmers market 9am-1pm\n"
LISTING_ROWS = [
    ("add these", LISTING + "Dec 19 – Caroling 6pm",
     ["2026-12-05T10:00:00+01:00", "2026-12-12T09:00:00+01:00", "2026-12-19T18:00:00+01:00"]),
    ("add these", "Interview schedule:\nTuesday Dec 8 - 9:00 am - Candidate A\n"
     "Tuesday Dec 8 - 1:30 pm - Candidate B",
     ["2026-12-08T09:00:00+01:00", "2026-12-08T13:30:00+01:00"]),
    # a schedule whose lines name the same activity
    ("add these", "Game 1 - Sat Dec 5 - 9:00 - vs Hawks\nGame 2 - Sat Dec 12 - 10:30 - vs Comets",
     ["2026-12-05T09:00:00+01:00", "2026-12-12T10:30:00+01:00"]),
    ("add the comets game", "Game 1 - Sat Dec 5 - 9:00 - vs Hawks\n"
     "Game 2 - Sat Dec 12 - 10:30 - vs Comets", ["2026-12-12T10:30:00+01:00"]),
    # must not fire
    ("add it", "Game Sat Dec 5 9:00\nGame Sat Dec 5 10:00 sorry, typo above",
     ["2026-12-05T10:00:00+01:00"]),
    ("add it", "<PERSON_1>: dinner mon 7pm?\n<PERSON_2>: tue 7pm better?\n<PERSON_1>: ok",
     ["2026-11-24T19:00:00+01:00"]),
    ("add it", "<PERSON_1>: Team lunch Dec 8 at 12:30.\nReminder: Dec 8 at 12:30, bring slides",
     ["2026-12-08T12:30:00+01:00"]),
    ("add it", "Design crit Thu Dec 3 2pm\ncorrection - Thu Dec 3 2:30pm",
     ["2026-12-03T14:30:00+01:00"]),
]  # fmt: skip


@pytest.mark.parametrize(("request_text", "thread", "expected"), LISTING_ROWS)
def test_a_listings_lines_are_events_of_their_own(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


def test_the_request_names_the_listed_event_it_wants() -> None:
    [event] = [e for e in link("add the toy drive", LISTING) if e.schedulable]
    assert event.start.isoformat() == "2026-12-05T10:00:00+01:00"


# A dated deadline dropped beside another clock leaves its day; a request that asks for the
# deadline, or for an agenda's item by name, gets it.
@pytest.mark.parametrize(
    ("request_text", "thread", "expected"),
    [
        ("add it", "<PERSON_1>: I need to confirm the venue by 2pm tomorrow, then let's call at 4",
         ["2026-11-22T16:00:00+01:00"]),
        ("add the deadline",
         "<PERSON_1>: I need to submit the proposal by 2pm tomorrow, so let's call at 4 instead",
         ["2026-11-22T14:00:00+01:00"]),
        ("add the coding interview", "Onsite Friday 9am-3pm:\n9:00 - Recruiter chat\n"
         "10:00 - Coding with Priya\n12:00 - Lunch", ["2026-11-27T10:00:00+01:00"]),
        # must not fire: the request names nothing of the agenda
        ("add it", "Onsite Friday 9am-3pm:\n9:00 - Recruiter chat\n10:00 - Coding with Priya",
         ["2026-11-27T09:00:00+01:00"]),
    ],
)  # fmt: skip
def test_what_the_request_asks_for_beside_a_notices_start(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert starts(link(request_text, thread)) == expected


# A request naming several things picks the event of each; one opened with "just" picks too.
NOTICE = (
    "Cedar Hills HOA - Holiday events\nHoliday Lights Walk: Dec 12, 5pm\n"
    "Santa Breakfast: Dec 6, 8:30am (clubhouse)\nNew Year's Eve Gala: Dec 31, 8pm (tickets $40)"
)
NAMED_ROWS = [
    ("add the breakfast and the gala", NOTICE,
     ["2026-12-06T08:30:00+01:00", "2026-12-31T20:00:00+01:00"]),
    ("just the gala", NOTICE, ["2026-12-31T20:00:00+01:00"]),
    ("add the lights walk", NOTICE, ["2026-12-12T17:00:00+01:00"]),
    # a name with "and" in it is one thing
    ("add the Mac and Cheese Cookoff", "Fair:\nChili Cookoff - Sat Dec 5, 1pm\n"
     "Mac and Cheese Cookoff - Sun Dec 6, 2pm", ["2026-12-06T14:00:00+01:00"]),
    # the request's name said on a line that set no time: the timed line is another plan
    ("add check-in", "Check-in: Friday, December 18, 2026 (after 3:00 PM)\n"
     "Check-out: Sunday, December 20, 2026 (by 11:00 AM)", []),
    # ... but a line that set the plan before it moved names it
    ("add the movie", "<PERSON_1>: movie tonight at 9?\nMe: tonight is off for me, tomorrow?\n"
     "<PERSON_1>: tomorrow 9 it is", ["2026-11-22T21:00:00+01:00"]),
    # must not fire: a name the notice never says picks nothing; "add these" takes all
    ("add the bake sale and the gala", NOTICE, ["2026-12-31T20:00:00+01:00"]),
    ("add these", NOTICE,
     ["2026-12-06T08:30:00+01:00", "2026-12-12T17:00:00+01:00", "2026-12-31T20:00:00+01:00"]),
]  # fmt: skip


@pytest.mark.parametrize(("request_text", "thread", "expected"), NAMED_ROWS)
def test_a_request_picks_each_item_it_names(
    request_text: str, thread: str, expected: list[str]
) -> None:
    assert sorted(starts(link(request_text, thread))) == expected


# "instead of": the time after it is the old one; a clock said with it goes to the new day.
# A cancel that names another day than the plan's leaves the plan.
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("<PERSON_1>: den meeting this week is on Thursday instead of Tuesday, 6:30-8pm",
         ["2026-11-26T18:30:00+01:00"]),
        ("<PERSON_1>: let's do 4pm instead of 3pm tomorrow", ["2026-11-22T16:00:00+01:00"]),
        ("<PERSON_1>: dinner friday rather than monday, at 8pm", ["2026-11-27T20:00:00+01:00"]),
        ("<PERSON_1>: session moved to tomorrow 7pm, my place. Tonight is off",
         ["2026-11-22T19:00:00+01:00"]),
        # a day turned down, then the plan slid to another at the same time
        ("<PERSON_1>: review Thursday at 10am\n<PERSON_2>: the VP can't make Thursday. Can we "
         "slide it to Friday at the same time?\n<PERSON_1>: ok, Friday it is",
         ["2026-11-27T10:00:00+01:00"]),
        # must not fire: the cancel names the plan's own day, or no day
        ("<PERSON_1>: dinner monday at 7pm?\nMe: yes\n<PERSON_1>: monday is off, sorry", []),
        ("<PERSON_1>: drinks tomorrow at 6\n<PERSON_1>: drinks are off", []),
        ("<PERSON_1>: tennis Thursday 6pm?\nMe: yes\n<PERSON_1>: I've been sick since "
         "yesterday, have to cancel", []),
    ],
)  # fmt: skip
def test_a_replaced_day_and_a_cancel_of_another_day(thread: str, expected: list[str]) -> None:
    assert starts(link("add it", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a correction by the one who said the plan moves it, keeping its clock
        ("<PERSON_1>: Dinner at 7pm Friday\n<PERSON_1>: oops I meant Sun",
         ["2026-11-22T19:00:00+01:00"]),
        ("<PERSON_1>: Dinner at 7pm Friday\n<PERSON_1>: actually Sun",
         ["2026-11-22T19:00:00+01:00"]),
        ("<PERSON_1>: Retro is Thursday at 11am\n<PERSON_1>: oops I mean Friday at 11am",
         ["2026-11-27T11:00:00+01:00"]),
        # must not fire: correction words that correct no plan, a day the speaker is away
        ("Meeting Monday at 10am to review the deck.\nTypo on slide 4 still needs fixing, "
         "sorry!", ["2026-11-23T10:00:00+01:00"]),
        ("Meeting Tuesday at 2pm.\nCorrection to the agenda: budget item moves to Thursday.",
         ["2026-11-24T14:00:00+01:00"]),
        ("Lunch Tuesday at 12:30?\nI meant to tell you, the new place opens Monday. Tuesday "
         "12:30 works!", ["2026-11-24T12:30:00+01:00"]),
        ("<PERSON_1>: drinks Thursday 6pm?\nMe: yes!\n<PERSON_1>: ps the typo in Monday's "
         "report is fixed", ["2026-11-26T18:00:00+01:00"]),
        ("<PERSON_1>: Dinner at 7pm Friday?\nMe: yes\n<PERSON_1>: I mean, I'm away Sunday anyway",
         ["2026-11-27T19:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_correction_moves_the_plan_it_corrects(thread: str, expected: list[str]) -> None:
    assert sorted(starts(link("add the event we agreed on", thread))) == expected


def test_an_end_on_a_day_gives_the_plan_its_day_not_its_start() -> None:
    # "dinner ending monday at 10pm": Monday is the dinner's day, 10pm is no start
    [event] = link("create dinner ending monday at 10pm")
    assert event.start is None and event.day is not None and event.day.isoformat() == "2026-11-23"
    # must not: a start said with it stands
    assert starts(link("dinner monday at 7pm, ends at 10pm")) == ["2026-11-23T19:00:00+01:00"]


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a day said with "same time" (acts.toml [same_time]) moves the plan, even one whose
        # first day was turned down, and keeps its clock
        ("<PERSON_1>: Yoga Tue 6:15pm?\nMe: Can't Tue. Thu same time?\n<PERSON_1>: Thu works",
         ["2026-11-26T18:15:00+01:00"]),
        ("<PERSON_1> : On se voit lundi à 10h ?\nMoi : Lundi je peux pas, mardi même heure ?\n"
         "<PERSON_1> : Ok pour mardi.", ["2026-11-24T10:00:00+01:00"]),
        # a later week with the same time: the plan moved by whole weeks
        ("<PERSON_1>: yoga tuesday at 6pm?\nMe: yes\n<PERSON_1>: same time next week instead?\n"
         "Me: ok", ["2026-12-01T18:00:00+01:00"]),
        # must not fire: a next week with no "same time" leaves the day and time open
        ("<PERSON_1>: yoga tuesday at 6pm?\nMe: yes\n<PERSON_1>: can we push to next week?\n"
         "Me: ok", []),
    ],
)  # fmt: skip
def test_the_same_time_on_another_day_or_week(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a later day said with the same time in the clause after a dated clock keeps the clock
        ("<PERSON_1>: great call today at 11, same time tomorrow?\nMe: yes",
         ["2026-11-22T11:00:00+01:00"]),
        # must not fire: "too" adds a plan; "at the same time" is another one
        ("<PERSON_1>: yoga sunday at 6pm, same time monday too?\nMe: yes",
         ["2026-11-22T18:00:00+01:00"]),
        ("<PERSON_1>: dinner sunday at 7pm? at the same time monday I have practice\nMe: yes",
         ["2026-11-22T19:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_later_day_with_the_same_time_keeps_the_clock(thread: str, expected: list[str]) -> None:
    assert starts(link("add the event we agreed on", thread))[:1] == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # hours said after a window's word are hours to pick in, never a start
        ("<PERSON_1>: I work 9-5 tomorrow, dinner after at 6:30?\nMe: yes", []),
        ("<PERSON_1>: I'm free 2-4 tomorrow\nMe: cool", []),
        ("<PERSON_1>: I'm around 2-4 tomorrow\nMe: ok", []),  # Duckling keeps "around"
        # must not fire: a plan inside the window, an event named with such a word, a meal's
        # rough hours
        ("<PERSON_1>: dinner around 7-9 tonight?\nMe: yes", ["2026-11-21T19:00:00+01:00"]),
        ("<PERSON_1>: I'm free 2-4 tomorrow\nMe: haircut at 3 then?\n<PERSON_1>: yes",
         ["2026-11-22T15:00:00+01:00"]),
        ("<PERSON_1>: open house sat 10-2\nMe: see you there", ["2026-11-21T10:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_window_of_hours_is_no_start(thread: str, expected: list[str]) -> None:
    assert starts(link("add it", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a move from one clock to another keeps the new one, the verb before or after it
        ("<PERSON_1>: can we move the meeting tomorrow from 10 to 11?\nMe: ok",
         ["2026-11-22T11:00:00+01:00"]),
        ("<PERSON_1>: standup moved from 9 to 9:30 tomorrow\nMe: ok",
         ["2026-11-22T09:30:00+01:00"]),
        ("<PERSON_1>: Können wir das Meeting morgen von 10 auf 11 verschieben?\nMe: ja",
         ["2026-11-22T11:00:00+01:00"]),
        ("<PERSON_1>: moving tomorrow's dentist from 3 to 4:15pm", ["2026-11-22T16:15:00+01:00"]),
        ("<PERSON_1>: rescheduled: standup from 9:30 to 10 tomorrow",
         ["2026-11-22T10:00:00+01:00"]),
        ("<PERSON_1>: possiamo spostare la riunione di lunedì dalle 10 alle 11?\nMe: certo",
         ["2026-11-23T11:00:00+01:00"]),
        # must not fire: a range with no move ("from 10 to 11" is when it runs)
        ("<PERSON_1>: meeting tomorrow from 10 to 11\nMe: ok", ["2026-11-22T10:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_move_from_one_clock_to_another_keeps_the_new_one(
    thread: str, expected: list[str]
) -> None:
    assert starts(link("add it", thread)) == expected


# A plan told of as past (acts.toml [recap_after], [recap_before]) is no start; the rows after
# "must not fire" are plans.
@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        ("<PERSON_1>: lunch 12-1 tuesday was fun\nMe: same", []),
        ("<PERSON_1>: dinner 7-9 thursday was so much fun\nMe: yes!", []),
        ("<PERSON_1>: thanks for lunch on monday at 1!\nMe: anytime", []),
        ("<PERSON_1>: loved brunch sunday at 11, pics attached\nMe: same", []),
        ("<PERSON_1>: la cena del jueves a las 8 fue genial\nMe: sí", []),
        # must not fire
        ("<PERSON_1>: Thanks for reaching out, Tuesday at 3pm works for me\nMe: great",
         ["2026-11-24T15:00:00+01:00"]),
        ("<PERSON_1>: the meeting friday at 3pm was moved to 4pm\nMe: ok",
         ["2026-11-27T16:00:00+01:00"]),
    ],
)  # fmt: skip
def test_a_plan_told_of_as_past_is_no_start(thread: str, expected: list[str]) -> None:
    assert starts(link("add all of this", thread)) == expected


@pytest.mark.parametrize(
    ("thread", "expected"),
    [
        # a landing's clock is no option beside the plan's, and the plan's own clause names it
        ("<PERSON_1>: flight lands 10:45, dinner 8-10 tonight?\nMe: yes",
         [("Dinner", "2026-11-21T20:00:00+01:00")]),
        ("<PERSON_1>: my flight arrives at 10:45. dinner at 8 tonight?\nMe: yes",
         [("Dinner", "2026-11-21T20:00:00+01:00")]),
        ("<PERSON_1>: after the game, drinks at 9 tonight?\nMe: yes",
         [("Drinks", "2026-11-21T21:00:00+01:00")]),
        # must not fire: a lone landing is the plan; two clocks listed with no end's label are
        # options; one activity titles its clause whatever comes after
        ("<PERSON_1>: my flight lands at 6:40pm tomorrow, can you pick me up?\nMe: sure",
         [("Flight", "2026-11-22T18:40:00+01:00")]),
        ("<PERSON_1>: dinner at 7pm, 8pm or 9pm tonight?", []),
        ("<PERSON_1>: movie at 7pm tonight, dinner after?\nMe: yes",
         [("Movie", "2026-11-21T19:00:00+01:00")]),
    ],
)  # fmt: skip
def test_a_start_beside_an_arrival_is_named_by_its_own_clause(
    thread: str, expected: list[tuple[str, str]]
) -> None:
    assert [(t.split(" with ")[0], s) for t, s in titles(link("add it", thread))] == expected


@pytest.mark.parametrize(
    ("request_text", "thread", "days"),
    [
        # a day word between an article and the activity names the thread's plan, it sets no
        # day of its own (labels.toml [definite_articles])
        ("add the christmas dinner", "O jantar de Natal será na sexta-feira, 18 de dezembro, "
         "às 20h.", ["2026-12-18"]),
        ("add the friday standup", "<PERSON_1>: standup moved to thursday 9am\nMe: ok",
         ["2026-11-26"]),
        # must not fire: a day said with a preposition, with no thread to name, with a thread
        # that states no day, or that says the same day among others
        ("add dinner on christmas at 7pm", "", ["2026-12-25"]),
        ("add the christmas dinner", "", ["2026-12-25"]),
        ("add the friday meeting", "<PERSON_1>: meeting at 3pm?\nMe: works", ["2026-11-27"]),
        ("add the monday hike", "<PERSON_1>: hike sunday 8am or monday 9am?\nMe: either",
         ["2026-11-23"]),
    ],
)  # fmt: skip
def test_a_day_word_in_the_name_of_the_threads_plan_sets_no_day(
    request_text: str, thread: str, days: list[str]
) -> None:
    events = [e for e in link(request_text, thread) if not e.cancelled]
    assert [str(e.start.date() if e.start else e.day) for e in events] == days
