"""Fail closed (issue 39): when the redactor, a detector it runs, or the prompt guard breaks, no
model is called and the user gets one clear line; a hyphenated given name no longer breaks the
guard."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent.assistant import Assistant, Turn
from agent.gateway import ModelGateway
from agent.model import Message
from privacy import EntityMap, PrivacyError, PrivacyGuard
from privacy.errors import RedactionFailedError
from privacy.redactor import Redactor
from tests.fakes import RecordingChatModel

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 21, 9, 30, tzinfo=ZoneInfo(TZ))
THREAD = "Seo-yeon Park: dinner friday?\nMe: sure, seo-yeon, where?"


class BrokenDetector:
    """The learned detector failing as a library can: an exception from inside its run."""

    def word_scores(self, _text: str) -> object:
        raise RuntimeError("onnxruntime: invalid input shape")


@pytest.fixture
def broken_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("privacy.redactor.detector", lambda: BrokenDetector())


@pytest.mark.usefixtures("broken_detector")
def test_a_broken_detector_raises_a_privacy_error_not_the_text() -> None:
    with pytest.raises(RedactionFailedError) as caught:
        Redactor().redact(THREAD)
    message = str(caught.value)
    assert "nothing was sent to a model" in message and "Seo" not in message


@pytest.mark.usefixtures("broken_detector")
def test_a_turn_whose_redaction_breaks_never_calls_the_model(data_dir: Path) -> None:
    plan = {"steps": [{"tool": "create_event", "args": {"title": "Dinner"}}]}
    model = RecordingChatModel([json.dumps(plan), "done"])
    assistant = Assistant(ModelGateway(model), data_dir=data_dir)
    with pytest.raises(PrivacyError):
        assistant.ask(Turn(request="add this", thread=THREAD, now=NOW, tz=TZ))
    assert model.received == []


def test_a_broken_guard_blocks_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_values: object) -> None:
        raise ValueError("bad pattern")

    monkeypatch.setattr("privacy.guard._value_pattern", broken)
    model = RecordingChatModel(["hi"])
    entity_map = EntityMap()
    entity_map.placeholder_for("PERSON", "Seo-yeon Park")
    with pytest.raises(RedactionFailedError):
        ModelGateway(model).complete(
            [Message("user", "plan dinner with Seo-yeon Park")],
            guard=PrivacyGuard(entity_map),
            purpose="test",
        )
    assert model.received == []


@pytest.mark.usefixtures("broken_detector")
def test_the_cli_says_one_line_when_redaction_breaks(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from run import main

    thread = tmp_path / "thread.txt"
    thread.write_text(THREAD, encoding="utf-8")
    code = main(["ask", "--no-llm", "--data-dir", str(data_dir), "--thread", str(thread), "add"])
    err = capsys.readouterr().err
    assert code == 2 and "names could not be hidden" in err
    assert "Traceback" not in err and "Seo" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.guard_catches
@pytest.mark.parametrize(
    ("known", "text", "hidden"),
    [
        (["Seo-yeon"], "hi Seo-yeon and seo-yeon", ["Seo-yeon", "seo-yeon"]),
        (["Ji-woo Kim"], "ask JI-WOO and ji-woo kim", ["JI-WOO", "ji-woo kim"]),
        (["Karthik Raman"], "ping karthik.raman today", ["karthik.raman"]),
        (["Jean-Luc Martin"], "Jean-Luc said yes", ["Jean-Luc"]),
    ],
)
def test_the_guard_screens_hyphenated_and_dotted_names(
    known: list[str], text: str, hidden: list[str]
) -> None:
    # the guard matched "seo-yeon" but looked it up as "seo yeon": a KeyError crashed the turn
    entity_map = EntityMap()
    for value in known:
        entity_map.placeholder_for("PERSON", value)
    screened = PrivacyGuard(entity_map).screen(text).text
    assert "<PERSON_" in screened
    for value in hidden:
        assert value not in screened


@pytest.mark.parametrize(
    ("text", "first", "again"),
    [
        ("Jose: hola\nMe: josé, nos vemos", "Jose", "josé"),
        ("Zoë: hi\nMe: zoe see you", "Zoë", "zoe"),
        ("Hi Jürgen,\nok.\nJurgen said yes", "Jürgen", "Jurgen"),
    ],
)
def test_a_name_written_with_or_without_accents_is_one_person(
    text: str, first: str, again: str
) -> None:
    redacted = Redactor(entity_map=EntityMap()).redact(text)
    assert first not in redacted.text and again not in redacted.text
    placeholders = {span.placeholder for span in redacted.spans if span.type == "PERSON"}
    assert len(placeholders) == 1, redacted.text


def test_a_saved_map_keeps_its_numbers_when_its_keys_are_folded() -> None:
    saved = {
        "entries": [
            {"placeholder": "<PERSON_1>", "type": "PERSON", "value": "José", "key": "josé"}
        ],
        "counters": {"PERSON": 1},
    }
    entity_map = EntityMap.from_dict(saved)
    assert entity_map.placeholder_for("PERSON", "Jose") == "<PERSON_1>"


def test_a_speakers_name_that_is_a_word_holds_where_it_names_them() -> None:
    # "June:" labels a message, so she is a person there and where she is greeted; the month
    # after "in" stays a month (the detector reads the words around each)
    redacted = Redactor(entity_map=EntityMap()).redact("June: hey\nMe: hey june, see you in june")
    assert redacted.text == "<PERSON_1>: hey\nMe: hey <PERSON_1>, see you in june"
    assert Redactor().redact("Will: on for friday?\nMe: yes").text.startswith("<PERSON_1>:")
    # a one-word label that is a common word and writes once is still its writer ("ty" is
    # also "thank you"); a role or a greeting as a label stays a word
    assert Redactor().redact("Ty: hey, 5pm?\nMe: ok").text.startswith("<PERSON_1>:")
    assert Redactor().redact("Bill: hey, 5pm?\nMe: ok").text.startswith("<PERSON_1>:")
    assert Redactor().redact("Dentist: reminder, 5pm\nMe: ok").text.startswith("Dentist:")
    assert Redactor().redact("Monday: 5pm?\nMe: ok").text.startswith("Monday:")
