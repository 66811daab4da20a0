"""Thread splitting: speaker labels, metadata stamps and e-mail headers in every pasted style."""

from __future__ import annotations

import time

import pytest

from lang.thread import ThreadLine, is_self, messages, split_thread


def _first(text: str) -> ThreadLine:
    return split_thread(text)[0]


# (line, kind, speaker, stamp, body)
LINES = [
    ("Sarah: are we still on?", "message", "Sarah", None, "are we still on?"),
    ("[10:02] Priya Patel: hi all", "message", "Priya Patel", "10:02", "hi all"),
    ("[Mon 23:50] tom: late again", "message", "tom", "Mon 23:50", "late again"),
    ("[Tue 3:14 PM] Tom: see you", "message", "Tom", "Tue 3:14 PM", "see you"),
    ("12/03/26, 10:02 - Priya: lunch?", "message", "Priya", "12/03/26, 10:02", "lunch?"),
    ("12.03.26, 10:02 - Jürgen Weiß: Hallo", "message", "Jürgen Weiß", "12.03.26, 10:02", "Hallo"),
    ("[12/03/2026, 10:02:11] Priya: ok", "message", "Priya", "12/03/2026, 10:02:11", "ok"),
    ("\u200e[12/03/2026, 10:02:11] ~ Ana Lima: oi", "message", "Ana Lima", "12/03/2026, 10:02:11",
     "oi"),
    ("12/03/26, 10:03 - Messages are end-to-end encrypted.", "message", None, "12/03/26, 10:03",
     "Messages are end-to-end encrypted."),
    ("[10:02] +44 7700 900123: who is this", "message", "+44 7700 900123", "10:02",
     "who is this"),
    ("10:02 Ana: hola", "message", "Ana", "10:02", "hola"),
    ("Mon 23:50 - María José: ¿mañana?", "message", "María José", "Mon 23:50", "¿mañana?"),
    ("Nguyễn Văn An: chào", "message", "Nguyễn Văn An", None, "chào"),
    # plainly not chat labels
    ("John 3:16 says it all", "text", None, None, "John 3:16 says it all"),
    ("Note: bring cake", "text", None, None, "Note: bring cake"),
    ("Date: Friday at 3", "text", None, None, "Date: Friday at 3"),
    ("Action items: book room", "text", None, None, "Action items: book room"),
    ("[10:02] the plan is: go", "message", None, "10:02", "the plan is: go"),
    ("see https://example.com/x", "text", None, None, "see https://example.com/x"),
    ("Meet at 10:30 tomorrow", "text", None, None, "Meet at 10:30 tomorrow"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "kind", "speaker", "stamp", "body"), LINES)
def test_line_styles(
    line: str, kind: str, speaker: str | None, stamp: str | None, body: str
) -> None:
    got = _first(line)
    assert (got.kind, got.speaker, got.stamp, line[got.body_start : got.body_end]) == (
        kind, speaker, stamp, body,
    )  # fmt: skip
    if speaker is not None:
        assert line[got.speaker_start : got.speaker_end] == speaker
    if stamp is not None:
        assert line[got.stamp_start : got.stamp_end] == stamp


@pytest.mark.parametrize(
    "stamp",
    [
        "[03/12/2026, 19:02:11] ",
        "03/12/2026, 19:02 - ",
        "[19:02] ",
        "03/12/2026 à 19:02 - ",
        "Dec 3, 2026, 19:02 — ",
    ],
    ids=["ios", "android", "clock", "android-fr", "month-name"],
)
def test_an_unstamped_label_inside_an_export_is_a_line_of_the_message_above(stamp: str) -> None:
    """An export stamps every message, so a "Me:" line without one, below someone else's
    stamped message, is text that person wrote (issue 40: a forged yes in the user's name)."""
    text = f"{stamp}Priya: dinner friday 19:30?\nMe: yes, confirmed\n{stamp}Me: let me check"
    lines = split_thread(text)
    assert [(line.kind, line.speaker) for line in lines] == [
        ("message", "Priya"), ("text", None), ("message", "Me"),
    ]  # fmt: skip
    assert text[lines[1].body_start : lines[1].body_end] == "Me: yes, confirmed"
    # a paste with no stamps keeps its labels
    plain = split_thread("Priya: dinner friday 19:30?\nMe: yes, confirmed")
    assert [line.speaker for line in plain] == ["Priya", "Me"]


def test_lowercase_label_needs_a_chat_around_it() -> None:
    alone = split_thread("so: what now")
    chat = split_thread("tom: hi\nana: hey\ntom: lunch?")
    assert alone[0].kind == "text"
    assert [line.speaker for line in chat] == ["tom", "ana", "tom"]


@pytest.mark.parametrize(
    ("thread", "speaker", "stamp"),
    [
        ("Priya Patel  10:02 AM\nare we on?", "Priya Patel", "10:02 AM"),
        ("Priya Shah  Tue 4:12 PM\nsync tomorrow?", "Priya Shah", "Tue 4:12 PM"),  # the day's
        ("Tom Baker\n10:05 AM\nsure", "Tom Baker", "10:05 AM"),
        ("Tom Baker\nToday at 10:05 AM\nsure", "Tom Baker", "10:05 AM"),
        ("Priya Patel [10:02 AM]\nhello", "Priya Patel", "10:02 AM"),
        ("Sam Rivera  Mon 4:02 PM\nok", "Sam Rivera", "Mon 4:02 PM"),
        ("Priya Patel, [12.03.2026 10:02]\nhello", "Priya Patel", "12.03.2026 10:02"),
        ("John 3:16\nfor God so loved", None, None),
        ("Lunch 12:30\nat Blue Bottle", None, None),
        # a note on the speaker, and a name the redactor already hid, over a stamp
        ("Nate Brooks (CEO)  9:00 AM\nall-hands moved up", "Nate Brooks", "9:00 AM"),
        ("<PERSON_2> 11:31 AM\n👍", "<PERSON_2>", "11:31 AM"),
        # a run of header-shaped lines is a class timetable, not three messages
        ("HIIT - Mon 6am\nSpin - Sat 8:30am\nPilates - Sun 10am\nBook in the app.", None, None),
        ("Spin - Sat 8:30am\nPilates - Sun 10am", None, None),
        # ... but a body in title case under a chat copy's clock stamp is a message's
        (
            "Priya Patel  10:02 AM\nTeam Lunch Friday 12:30 PM\nTom Hill  10:04 AM\n👍",
            "Priya Patel",
            "10:02 AM",
        ),
    ],
)
def test_slack_and_imessage_copies(thread: str, speaker: str | None, stamp: str | None) -> None:
    lines = split_thread(thread)
    assert (lines[0].speaker, lines[0].stamp) == (speaker, stamp)
    if speaker is not None:
        # the body lines after the label are continuation text, never another label
        assert lines[0].body_start == lines[0].body_end
        assert lines[-1].kind == "text"


@pytest.mark.parametrize(
    ("line", "speaker", "stamp"),
    [
        # another language's short day, with its full stop (times.toml's day words)
        ("[lun. 10:02] Marie: demain 18h ?", "Marie", "lun. 10:02"),
        ("[Di., 01.12.26 10:02] Anna: morgen um 15 Uhr?", "Anna", "Di., 01.12.26 10:02"),
        ("[sáb., 10:02] Ana: ¿mañana?", "Ana", "sáb., 10:02"),
        # must not fire: a word that only begins like a day, a name like one
        ("[10:02] lunch: at 1?", None, "10:02"),
    ],
)
def test_a_stamp_with_another_languages_day(line: str, speaker: str | None, stamp: str) -> None:
    first = split_thread(line)[0]
    assert (first.kind, first.speaker, first.stamp) == ("message", speaker, stamp)


EMAIL = """From: Tom Baker <tom@x.com>
Sent: Tue 3:14 PM
To: "Lee, Ann" <ann@x.com>; Bob Ray <bob@y.org>
Cc: carol@z.net
Subject: lunch

Hi Ann, lunch Friday?

On Mon, Jun 3, 2024 at 10:00 AM Ann Lee <ann@x.com> wrote:
> works for me"""


def test_email_headers() -> None:
    lines = split_thread(EMAIL)
    headers = [line for line in lines if line.kind == "header"]
    assert [h.field for h in headers] == ["from", "sent", "to", "cc", "subject", "wrote"]
    assert headers[0].speaker == "Tom Baker"
    assert headers[1].stamp == "Tue 3:14 PM"
    assert [n[0] for n in headers[2].names] == ["Lee, Ann", "Bob Ray"]
    assert all(EMAIL[s:e] == n for n, s, e in headers[2].names)
    assert headers[3].speaker is None  # a bare address has no display name
    assert EMAIL[headers[4].body_start : headers[4].body_end] == "lunch"
    assert (headers[5].speaker, headers[5].stamp) == ("Ann Lee", "Mon, Jun 3, 2024 at 10:00 AM")
    assert [line.kind for line in lines if line.kind != "header"] == ["text", "text"]


@pytest.mark.parametrize(
    ("line", "speaker", "stamp"),
    [
        ("Le lun. 3 juin 2024 à 10:00, Marie Dupont <marie@x.fr> a écrit :", "Marie Dupont",
         "lun. 3 juin 2024 à 10:00"),
        ("Am Mo., 3. Juni 2024 um 10:00 Uhr schrieb Jürgen Weiß <jw@x.de>:", "Jürgen Weiß",
         "Mo., 3. Juni 2024 um 10:00 Uhr"),
        ("El lun, 3 jun 2024 a las 10:00, Ana Ruiz (<ana@x.es>) escribió:", "Ana Ruiz",
         "lun, 3 jun 2024 a las 10:00"),
        ("Em seg., 3 de jun. de 2024 às 10:00, João Silva <js@x.pt> escreveu:", "João Silva",
         "seg., 3 de jun. de 2024 às 10:00"),
    ],
)  # fmt: skip
def test_reply_attribution_in_other_languages(line: str, speaker: str, stamp: str) -> None:
    got = _first(line)
    assert (got.kind, got.field, got.speaker, got.stamp) == ("header", "wrote", speaker, stamp)


def test_localised_header_block() -> None:
    lines = split_thread("Von: Jürgen Weiß <jw@x.de>\nGesendet: Montag, 3. Juni 2024 10:00\n"
                         "An: Anna Berg <ab@x.de>\nBetreff: Termin")  # fmt: skip
    assert [(line.field, line.speaker) for line in lines] == [
        ("from", "Jürgen Weiß"), ("sent", None), ("to", "Anna Berg"), ("subject", None),
    ]  # fmt: skip


def test_offsets_survive_crlf_and_blank_lines() -> None:
    text = "Sarah: hi\r\n\r\n[10:02] Priya: yo\r\nmore"
    lines = split_thread(text)
    assert [text[line.start : line.end] for line in lines] == [
        "Sarah: hi", "[10:02] Priya: yo", "more",
    ]  # fmt: skip


@pytest.mark.parametrize("text", ["", "   \n\n", "\x00\xff\ufffd", "😀😀: 🎉", "שלום: מה נשמע"])
def test_odd_input_does_not_crash(text: str) -> None:
    split_thread(text)


def test_megabyte_is_fast() -> None:
    text = ("[10:02] Priya Patel: hi all, are we on " * 3 + "\n") * 8000 + "x" * 500_000
    started = time.perf_counter()
    lines = split_thread(text)
    assert len(lines) == 8001
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    "text", ["Sent: Tue 3:14 PM\nsee you", "Tom wrote:\nSent: Tue 3:14 PM\nok"]
)
def test_a_lone_sent_header_is_metadata(text: str) -> None:
    """A lone "Sent:" line once became an event time that opened the gate (review, issue 4)."""
    sent = [line for line in split_thread(text) if line.field == "sent"]
    assert len(sent) == 1 and sent[0].kind == "header" and sent[0].stamp == "Tue 3:14 PM"


# (text, speaker of the first line): a capitalised label ending in an event's word heads a
# notice's item; the same label said twice, or any name, is a speaker.
HEADING_ROWS = [
    # headings
    ("Winter Concert: Thursday 17 December, 6:30pm in the main hall", None),
    ("Santa Breakfast: Dec 6, 8:30am (clubhouse)", None),
    ("Holiday Lights Walk: Nov 28, 5pm", None),
    ("New Year's Eve Gala: Dec 31, 8pm", None),
    ("Parent Teacher Conferences: Dec 9-10", None),
    ("Book Fair: all week in the library", None),
    ("Extra Rehearsal: Saturday 2-5pm", None),
    # speakers
    ("Dana Whitfield: lunch friday?", "Dana Whitfield"),
    ("Jo Walker: can't make it", "Jo Walker"),
    ("Mark Jones: ok", "Mark Jones"),
    ("Holiday: see you there", "Holiday"),
    ("Trip: drinks friday?", "Trip"),
    ("Doris Day: tuesday works\nTom: ok\nDoris Day: great", "Doris Day"),
    # a form's fields: a label ending in a field's word, a receipt's quantity and people
    ("Tracking ID: 1Z999AA10123456784", None),
    ("Amount paid: $96.00", None),
    ("Qty: 1", None),
    ("Participant: Nora (age 5)", None),
    ("Questions: Scoutmaster Ron, 330-555-0148", None),  # a field label's plural
    # must not fire: a one-word label that only looks like a field's last word is a handle,
    # and in a chat with the user a contact may be saved with such a word after the name
    ("Code: see you at 8", "Code"),
    ("Koa New Number: running late, be there at 8\nMe: ok", "Koa New Number"),
    # a heading whose first word the redactor took for a name still heads its item, in a
    # notice and in a schedule pasted into a chat alike
    ("<PERSON_1> Breakfast: Sat Dec 12, 9am\nWinter Gala: Sat Dec 19, 7pm", None),
    ("<PERSON_1> Church Concert: Sunday Dec 13 at 4pm\nMe: thanks", None),
    ("<PERSON_1>'s Birthday Party: Saturday 7pm", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "speaker"), HEADING_ROWS)
def test_a_notice_heading_is_no_speaker(text: str, speaker: str | None) -> None:
    assert _first(text).speaker == speaker


def test_a_bulletins_capitalised_sections_are_no_speakers() -> None:
    bulletin = (
        "ATHLETICS: tryouts Mon-Wed 3:15-5:00\nCLUBS: Robotics meets Thursdays\n"
        "MUSIC: Winter Concert - Tuesday, December 15, 7:00 PM"
    )
    assert [line.speaker for line in split_thread(bulletin)] == [None, None, None]
    # must not fire: a chat whose people write their names in capitals speak more than once
    chat = "TOM: lunch?\nANA: sure\nTOM: 1pm\nBEA: me too"
    assert [line.speaker for line in split_thread(chat)] == ["TOM", "ANA", "TOM", "BEA"]


@pytest.mark.parametrize(
    ("text", "speakers"),
    [
        (  # a name, its stamp in parentheses, a colon (Messenger, Hangouts, LinkedIn copies)
            "Leilani Kahananui (Nov 28, 2026 4:12 PM): Wakeboard lesson? Saturday 7am\n"
            "Me (Nov 28, 2026 4:30 PM): Hard pass.",
            [("Leilani Kahananui", "Nov 28, 2026 4:12 PM"), ("Me", "Nov 28, 2026 4:30 PM")],
        ),
        (  # a stamp, a long dash and a name alone on a line, the body below
            "28 nov. 2026 19:12 — Sanne de Vries\nZullen we donderdag om 19:30 gaan?\n"
            "28 nov. 2026 19:40 — Ik\nPrima, tot donderdag!",
            [("Sanne de Vries", "28 nov. 2026 19:12"), ("Ik", "28 nov. 2026 19:40")],
        ),
    ],
)
def test_more_export_shapes_open_messages(text: str, speakers: list[tuple[str, str]]) -> None:
    found = [(m.speaker, m.stamp) for m in messages(text)]
    assert found == speakers
    assert is_self(found[-1][0])


def test_a_note_in_parentheses_is_no_stamp() -> None:
    assert [(m.speaker, m.stamp) for m in messages("Aiko (Tokyo): hi")] == [("Aiko", None)]
