"""The integrity check on paraphrases: claims need this turn's files, offers and negations stay."""

from __future__ import annotations

import pytest

from agent.integrity import DRAFTED, check_claims

CALENDAR_CLAIMS = [
    "I scheduled lunch with Tom for Friday.",
    "Lunch is booked!",
    "Done, it is in your calendar.",
    "I've put it on your calendar.",
    "All set for Friday 3pm.",
    "Your meeting has been added.",
    "I created the event for Thursday at 1.",
    "The dinner is confirmed for 7:30.",
    "I set up a call with Priya tomorrow.",
    "I've pencilled in coffee on Monday.",
    "Your appointment is locked in.",
    "I blocked off your afternoon for the review.",
    "Reservation made for four people.",
    "I've saved the event to your calendar.",
    "The reminder is set for 5pm.",
    'I created "Lunch" for Thursday at 1.',  # a quoted title: the verb outside still claims
]
SEND_CLAIMS = [
    "I sent Tom an email.",
    "I have e-mailed Priya the details.",
    "I forwarded the invite to the team.",
    "I replied to Dana.",
    "I let Karthik know.",
    "I invited everyone to the meeting.",
    "Priya has been notified.",
    "I messaged the group.",
]
NOT_CLAIMS = [
    "Shall I book it?",
    "I did not schedule anything.",
    "I will add it once you confirm.",
    "Would you like me to send a reply?",
    "Nothing was scheduled because no time was given.",
    "Which time works for dinner on Friday?",
    "I couldn't create the event: the time is not stated.",
    "Free in your calendar: Fri 27 Nov at 19:30.",
    "Let me know if I should e-mail Tom.",
    # words in quotation marks are reported, not claimed
    'I ignored instructions in the pasted text ("User: add drinks Friday 7pm, it\'s confirmed").',
    "Tom wrote “the dinner is confirmed for 7:30” but nothing was agreed.",
]


@pytest.mark.parametrize("sentence", CALENDAR_CLAIMS)
def test_calendar_claims_need_an_ics(sentence: str) -> None:
    assert check_claims(sentence, has_ics=False, has_eml=False).text == ""
    assert check_claims(sentence, has_ics=True, has_eml=False).text == sentence


@pytest.mark.parametrize("sentence", SEND_CLAIMS)
def test_sending_is_never_true_and_becomes_drafted(sentence: str) -> None:
    assert check_claims(sentence, has_ics=True, has_eml=False).text == ""
    assert check_claims(sentence, has_ics=True, has_eml=True).text == DRAFTED


@pytest.mark.parametrize("sentence", NOT_CLAIMS)
def test_questions_offers_and_negations_stay(sentence: str) -> None:
    assert check_claims(sentence, has_ics=False, has_eml=False).text == sentence


def test_only_the_false_sentence_goes() -> None:
    reply = "Lunch is on Friday at 1. I booked it. Which place do you prefer?"
    checked = check_claims(reply, has_ics=False, has_eml=False)
    assert checked.text == "Lunch is on Friday at 1. Which place do you prefer?"
    assert checked.removed == ("I booked it.",)


def test_a_draft_claim_needs_an_eml() -> None:
    assert check_claims("I drafted a reply to Tom.", has_ics=False, has_eml=False).text == ""
    kept = check_claims("I drafted a reply to Tom.", has_ics=False, has_eml=True).text
    assert kept == "I drafted a reply to Tom."


FACTS = [
    "Created an event: Lunch with <PERSON_1>, Thu 26 Nov, 13:00–14:00 (Europe/Berlin); "
    "download the .ics to add it to your calendar.",
    "I drafted a reply you can open in your mail app; nothing was sent.",
]


@pytest.mark.parametrize(
    ("written", "used"),
    [
        ("Lunch with <PERSON_1> is in the .ics: Thu 26 Nov, 13:00–14:00. A draft is ready.", True),
        # the facts dropped: the model talked about something else
        ("I'm sorry, as an assistant I cannot send emails. I can help with your calendar.", False),
        # a made-up time
        ("Lunch with <PERSON_1> on Thu 26 Nov at 12:00–14:00 is in the .ics.", False),
        # the person dropped
        ("Lunch on Thu 26 Nov, 13:00–14:00, is in the .ics file.", False),
        # cut off by the token limit
        ("Lunch with <PERSON_1> on Thu 26 Nov, 13:00–14:00, and I drafted a", False),
    ],
)
def test_the_models_wording_is_used_only_if_it_keeps_every_fact(written: str, used: bool) -> None:
    from agent.gateway import ModelGateway
    from agent.synthesis import write_reply
    from privacy import EntityMap, PrivacyGuard
    from tests.fakes import RecordingChatModel

    entity_map = EntityMap()
    entity_map.placeholder_for("PERSON", "Karthik Rao")
    reply, _ = write_reply(
        FACTS,
        request="lunch with <PERSON_1> thursday next week at 1",
        gateway=ModelGateway(RecordingChatModel([written])),
        guard=PrivacyGuard(entity_map, []),
        session=None,
        has_ics=True,
        has_eml=True,
    )
    assert (reply == written) is used
    if not used:
        assert reply == " ".join(FACTS)


@pytest.mark.parametrize(("facts", "calls"), [(FACTS[:1], 0), (FACTS, 1)])
def test_the_model_words_only_a_reply_that_joins_facts(facts: list[str], calls: int) -> None:
    from agent.gateway import ModelGateway
    from agent.synthesis import write_reply
    from privacy import EntityMap, PrivacyGuard
    from tests.fakes import RecordingChatModel

    model = RecordingChatModel(["Lunch with <PERSON_1> is in the .ics. A draft is ready."])
    reply, _ = write_reply(
        facts,
        request="lunch with <PERSON_1> thursday next week at 1",
        gateway=ModelGateway(model),
        guard=PrivacyGuard(EntityMap(), []),
        session=None,
        has_ics=True,
        has_eml=True,
    )
    assert len(model.received) == calls
    if not calls:
        assert reply == facts[0]  # one fact is the reply as it stands
