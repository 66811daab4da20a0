"""Drafts say what was asked, to whom it was asked; a reply creates no event unless asked;
a vague time gives every proposal as its own event (a button on the page), never in the past."""

from __future__ import annotations

import email
from datetime import datetime
from email import policy
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent.assistant import Turn, build_assistant
from agent.drafting import draft_points, is_reply_only, reply_target

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))  # a Tuesday

MAIL = """From: Sam Lee <sam.lee@example.org>
To: Me <me@example.com>
Subject: Dinner on Friday
Date: Mon, 23 Nov 2026 09:12:00 +0100

Hi! Would Friday at 7pm work for dinner at Luigi's?
Sam
"""


@pytest.mark.parametrize(
    ("request_text", "points"),
    [
        (
            "reply to <PERSON_1> that friday works and ask if we can bring a friend",
            ["Friday works.", "Can we bring a friend?"],
        ),
        ("tell <PERSON_1> that I will be late", ["I will be late."]),
        ("reply and ask them to send their slides", ["Could you send your slides?"]),
        (
            "reply to <PERSON_1> saying thanks, and ask whether she is free on monday",
            ["Thanks.", "Are you free on monday?"],
        ),
        (
            "reply and ask if the venue has parking",
            ["Could you let me know if the venue has parking?"],
        ),
        ("reply to <PERSON_1> that Tuesday at 11 works, and add it", ["Tuesday at 11 works."]),
        # nothing to say: the draft falls back to its usual lines
        ("reply to this", []),
        ("email <PERSON_1> about the Q3 numbers", []),
        ("lunch with <PERSON_1> at 1, and say hi", []),
    ],
)
def test_what_a_draft_is_asked_to_say(request_text: str, points: list[str]) -> None:
    assert draft_points(request_text) == points


@pytest.mark.parametrize(
    ("request_text", "only"),
    [
        ("reply to <PERSON_1> that friday works", True),
        ("hey, tell <PERSON_1> that thursday at 7 is fine", True),
        # an event is asked for, or stated before the reply
        ("reply to <PERSON_1> that Tuesday at 11 works, and add it", False),
        ("reply yes to <PERSON_1> and put it in my calendar", False),
        ("lunch with <PERSON_1> thursday next week at 1pm, draft a reply", False),
        ("email <PERSON_1> about lunch thursday next week at 1", False),
    ],
)
def test_a_reply_alone_asks_for_no_event(request_text: str, only: bool) -> None:
    assert is_reply_only(request_text) is only


def test_a_reply_goes_to_the_newest_senders_address_with_its_subject() -> None:
    thread = (
        "From: <PERSON_1> <<EMAIL_1>>\nTo: <PERSON_2> <<EMAIL_2>>\nSubject: Dinner\n\n"
        "Friday?\n\n> From: <PERSON_3> <<EMAIL_3>>\n> Subject: Old\n"
    )
    target = reply_target(thread)
    assert target is not None
    assert (target.to, target.subject, target.names) == (["<EMAIL_1>"], "Dinner", ["<PERSON_1>"])
    assert reply_target("Sam: dinner friday?") is None


def test_reply_to_a_pasted_email_drafts_what_was_asked_and_creates_nothing(
    tmp_path: Path,
) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    bundle = assistant.ask(
        Turn(
            "reply to sam that friday works and ask if we can bring a friend",
            NOW,
            TZ,
            thread=MAIL,
        )
    )
    assert bundle.events == [] and not any(f.type == "ics" for f in bundle.files)
    [eml] = [f for f in bundle.files if f.type == "eml"]
    message = email.message_from_bytes(Path(str(eml.path)).read_bytes(), policy=policy.default)
    assert message["To"] == "sam.lee@example.org"
    assert message["Subject"] == "Re: Dinner on Friday"
    body = message.get_content()
    assert "Friday works. Can we bring a friend?" in body and body.startswith("Hi Sam Lee,")
    assert "sam.lee@example.org" in bundle.reply


def test_a_stated_event_with_a_reply_asked_is_still_created(tmp_path: Path) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    bundle = assistant.ask(
        Turn("reply to Noemi Gallo that Thursday at 11 works, and add it", NOW, TZ)
    )
    assert [e.status for e in bundle.events] == ["created"]
    [eml] = [f for f in bundle.files if f.type == "eml"]
    assert "Thursday at 11 works." in Path(str(eml.path)).read_text()


@pytest.mark.parametrize(
    ("request_text", "days"),
    [
        ("dinner with Sam Lee sometime next week", ["2026-11-30", "2026-12-01", "2026-12-02"]),
        # this week, asked on a Tuesday: from now on, never earlier, never past Sunday
        ("coffee with Ana Ruiz this week", ["2026-11-24", "2026-11-25", "2026-11-26"]),
        ("call with Ana Ruiz tomorrow", ["2026-11-25"]),
        # Duckling reads "evening next week" as Monday evening: the week words widen it
        ("dinner with Sam Lee some evening next week", ["2026-11-30", "2026-12-01", "2026-12-02"]),
        ("dinner with Sam Lee one evening this week", ["2026-11-24", "2026-11-25", "2026-11-26"]),
        # one day said: proposals on that day only
        ("dinner with Sam Lee friday", ["2026-11-27"]),
        ("dinner with Sam Lee friday evening", ["2026-11-27"]),
        ("dinner with Sam Lee wednesday evening next week", ["2026-12-02"]),
        # "about lunch" is a topic here, not today's lunch
        ("email Sam Lee about lunch", ["2026-11-24", "2026-11-25", "2026-11-26"]),
    ],
)
def test_every_proposal_for_a_vague_time_is_its_own_event(
    tmp_path: Path, request_text: str, days: list[str]
) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    bundle = assistant.ask(Turn(request_text, NOW, TZ))
    assert [e.status for e in bundle.events] == ["proposed"] * len(days)
    assert [e.start[:10] for e in bundle.events] == days
    for event in bundle.events:
        start = datetime.fromisoformat(event.start)
        assert start >= NOW and 9 <= start.hour <= 20
    assert bundle.question and f"({TZ})" in bundle.question


@pytest.mark.parametrize(
    ("request_text", "subject", "said", "events"),
    [
        # what to say is given: its activity words ("review") are no plan to propose times for
        ("email Sam Lee that the deck is ready and ask him to review it", "The deck is ready",
         "The deck is ready. Could you review it?", []),
        ("draft an email saying I'm late", "I'm late", "I'm late.", []),
        # a time said in it still makes the event, as before
        ("email Sam Lee that lunch friday at 1 works", "Lunch", "Lunch friday at 1 works.",
         ["created"]),
    ],
)  # fmt: skip
def test_an_email_says_what_was_asked(
    tmp_path: Path, request_text: str, subject: str, said: str, events: list[str]
) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    bundle = assistant.ask(Turn(request_text, NOW, TZ))
    assert [e.status for e in bundle.events] == events
    [eml] = [f for f in bundle.files if f.type == "eml"]
    message = email.message_from_bytes(Path(str(eml.path)).read_bytes(), policy=policy.default)
    assert message["Subject"] == subject and said in message.get_content()
    assert bundle.question is None


def test_a_draft_with_nobody_to_send_to_is_still_written_and_says_so(tmp_path: Path) -> None:
    bundle = build_assistant(data_dir=tmp_path, no_llm=True).ask(Turn("reply to this", NOW, TZ))
    assert [f.type for f in bundle.files] == ["eml", "mailto"]
    assert "It has no recipient yet" in bundle.reply and "schema" not in bundle.reply
