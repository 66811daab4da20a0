"""Chat exports as they come (issue 41, item 3): every format and locale reads its speakers,
stamps and order exactly, through the message model; a long export is cut to its recent
window; hostile files get a clear error and the server keeps serving."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from agent.assistant import MAX_LINE_CHARS, MAX_THREAD_CHARS, MAX_THREAD_LINES, recent_window
from lang.exports import (
    MAX_EXPORT_BYTES,
    Export,
    ExportError,
    UnknownFormatError,
    read_export,
    reads_as_thread,
)
from lang.exports import recent_window as export_window
from lang.exports.whatsapp import RECENT, date_order
from lang.thread import messages
from tests.test_web import run_turn
from tools.exports import thread_text

DATA = Path(__file__).resolve().parent / "data" / "exports"
GOLD = {k: v for k, v in json.loads((DATA / "expected.json").read_text("utf-8")).items()
        if not k.startswith("_")}  # fmt: skip


def read(name: str, **kwargs: Any) -> Export:
    return read_export((DATA / name).read_bytes(), name, tz=GOLD[name]["tz"], **kwargs)


def said(export: Export) -> list[tuple[str, str]]:
    """(stamp, speaker label) of each message the message model reads in the canonical text;
    quoted originals (an e-mail's history) are the quoted message's, not the export's."""
    return [(str(m.stamp), str(m.speaker)) for m in messages(export.text) if not m.quoted]


# --- every format, every locale: stamps and speakers exact ----------------------------------


@pytest.mark.parametrize("name", sorted(GOLD))
def test_each_sample_reads_its_speakers_stamps_and_order_exactly(name: str) -> None:
    export = read(name)
    gold = [tuple(m) for m in GOLD[name]["messages"]]
    assert export.format == GOLD[name]["format"]
    assert [(f"{r.sent:%Y-%m-%d %H:%M}", r.speaker) for r in export.records] == gold
    # ... and the message model reads the same from the canonical text
    assert said(export) == [(stamp, export.speakers[who]) for stamp, who in gold]


@pytest.mark.parametrize("name", sorted(n for n in GOLD if n.startswith("whatsapp")))
def test_a_whatsapp_zip_reads_as_its_chat_file(name: str) -> None:
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_chat.txt", (DATA / name).read_bytes())
        archive.writestr("00000012-PHOTO-2026-11-28-12-01-44.jpg", b"\xff\xd8\xff" + b"0" * 500)
    export = read_export(stored.getvalue(), "chat.zip", tz=GOLD[name]["tz"])
    assert export.text == read(name).text


def test_an_android_zip_names_its_chat_file_after_the_chat() -> None:
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("WhatsApp Chat with Olivia Hart.txt",
                         (DATA / "whatsapp_android_en-GB.txt").read_bytes())  # fmt: skip
        archive.writestr("IMG-20261201-WA0003.jpg", b"\xff\xd8\xff")
    assert read_export(stored.getvalue(), "x.zip").count == 7


def test_what_the_apps_write_in_place_of_words_is_left_out() -> None:
    text = read("whatsapp_ios_en-US.txt").text
    for gone in ("end-to-end", "created group", "deleted", "edited", "PHOTO-2026", "omitted"):
        assert gone not in text
    assert "(attachment)" in text  # a photo was sent: the message stays, its file name goes
    assert "  Note: I can host this time" in text  # a message's own line, not a speaker "Note"


def test_a_slack_workspace_zip_reads_its_latest_channel_with_names() -> None:
    day = json.loads((DATA / "slack_day.json").read_text("utf-8"))
    for item in day:
        item.pop("user_profile", None)  # older exports name people only in users.json
    users = [
        {"id": "U01AAA", "name": "priya", "real_name": "Priya Shah", "profile": {}},
        {"id": "U02BBB", "name": "diego", "profile": {"real_name": "Diego Alvarez"}},
    ]
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("users.json", json.dumps(users))
        archive.writestr("channels.json", json.dumps([{"id": "C1", "name": "design"}]))
        archive.writestr("design/2026-11-27.json", json.dumps(day))
        archive.writestr("random/2026-10-01.json", json.dumps(day[:2]))
    export = read_export(stored.getvalue(), "slack.zip", tz="Europe/London")
    assert export.format == "slack" and export.count == 4
    assert "@Diego Alvarez can you make it? see the agenda" in export.text
    assert any("#design" in note for note in export.notes)


def test_a_telegram_account_export_reads_the_chat_with_the_latest_message() -> None:
    export = read("telegram_account.json")
    assert "old news" not in export.text and any("2 chats" in n for n in export.notes)


def test_an_email_names_its_sender_as_people_say_it() -> None:
    export = read("reply_latin1.eml")
    assert export.speakers == {"Lund, Henrik": "Henrik Lund"}
    assert "Café Rosa?" in export.text  # quoted-printable Latin-1
    # the quoted original keeps its attribution, so it reads as quoted, not as Henrik's
    assert [m.quoted for m in messages(export.text)] == [False, True]
    assert "<script>" not in read("html_only.eml").text and "x()" not in read("html_only.eml").text


def test_plain_text_comes_back_as_it_is() -> None:
    text = "Anna: lunch tomorrow at 1?\nMe: sure\n"
    export = read_export(text.encode(), "paste.txt")
    assert export.format == "paste" and export.text == text and export.count == 0
    # a mail copied with its headers but no Date is a paste too: the message model reads it
    copied = "From: Tom Baker\nTo: Ann Lee\nSubject: lunch\n\nFriday at 1?\n"
    assert read_export(copied.encode()).format == "paste"


def test_only_text_shaped_like_a_thread_is_a_thread() -> None:
    assert reads_as_thread("Anna: lunch tomorrow at 1?\nMe: sure")
    assert not reads_as_thread("just some text")


# --- stamps: the order of day and month is the export's, never a line's ---------------------


def test_one_day_past_twelve_settles_the_order_for_every_line() -> None:
    text = (
        "28/11/2026, 18:58 - Olivia Hart: dinner?\n"
        "04/12/2026, 20:10 - James Lee: tomorrow at 7:30\n"
    )
    export = read_export(text.encode(), tz="America/New_York")  # a month-first zone
    assert [r.sent for r in export.records][-1] == datetime(2026, 12, 4, 20, 10)
    assert export.notes == ()


def test_dates_that_read_either_way_run_forward() -> None:
    # day first: 12 Nov, then 1 Dec; month first would go back from 11 Dec to 12 Jan
    order, notes = date_order(["12/11/2026", "01/12/2026"], ["10:00", "11:00"], False)
    assert (order, notes) == ("dmy", [])


@pytest.mark.parametrize(
    ("day_first", "clock", "sent", "reading"),
    [
        (True, "18:58", datetime(2026, 12, 3, 18, 58), "day first"),
        (False, "18:58", datetime(2026, 3, 12, 18, 58), "month first"),
        (None, "6:58 PM", datetime(2026, 3, 12, 18, 58), "month first"),  # a 12-hour phone
        (None, "18:58", datetime(2026, 12, 3, 18, 58), "day first"),
    ],
)
def test_a_tie_goes_to_the_zone_then_to_the_phones_habit(
    day_first: bool | None, clock: str, sent: datetime, reading: str
) -> None:
    text = f"03/12/2026, {clock} - Nina Kowalski: coffee tomorrow?\n"
    export = read_export(text.encode(), day_first=day_first)
    assert export.records[0].sent == sent
    [note] = export.notes
    assert reading in note


@pytest.mark.parametrize(
    ("stamp", "sent"),
    [
        ("[1/5/27, 12:05:00\u202fAM]", datetime(2027, 1, 5, 0, 5)),
        ("[1/5/27, 12:30:00\u202fPM]", datetime(2027, 1, 5, 12, 30)),
        ("[1/5/27, 7:02:11 pm]", datetime(2027, 1, 5, 19, 2)),
        ("[13/01/2027, 19.02.11]", datetime(2027, 1, 13, 19, 2)),
        ("[2027-01-05, 19:02:11]", datetime(2027, 1, 5, 19, 2)),
    ],
)
def test_clocks_as_phones_write_them(stamp: str, sent: datetime) -> None:
    text = f"{stamp} Nina: hi\n{stamp} Nina: again\n"
    assert read_export(text.encode(), day_first=False).records[0].sent == sent


def test_dates_that_fit_no_order_are_a_clear_error() -> None:
    text = "13/01/2026, 10:00 - A B: x\n01/13/2026, 10:00 - A B: y\n"
    with pytest.raises(ExportError, match="neither day-first nor month-first"):
        read_export(text.encode())


def test_a_name_the_message_model_would_not_read_is_written_plainly() -> None:
    text = (
        "[03/12/2026, 19:02:11] the boys: hi\n[03/12/2026, 19:03:11] Jean-Luc (work): hey\n"
        "[03/12/2026, 19:04:11] José García López de la Vega: hola\n"
    )
    export = read_export(text.encode())
    assert len(set(export.speakers.values())) == 3
    assert said(export) == [(f"2026-12-03 19:0{n}", export.speakers[r.speaker])
                            for n, r in zip((2, 3, 4), export.records, strict=True)]  # fmt: skip


def test_senders_with_no_readable_name_get_distinct_contact_labels() -> None:
    from lang.exports.canonical import speaker_labels

    labels, notes = speaker_labels(["42", "??", "Contact A", "Priya Patel"])
    assert labels["Contact A"] == "Contact A" and labels["Priya Patel"] == "Priya Patel"
    assert len(set(labels.values())) == 4 and notes


# --- the recent window of a long export -----------------------------------------------------


def year_of_group_chat(count: int = 18_400) -> bytes:
    names = ["Olivia Hart", "James O'Neill", "Priya Patel", "Tom Becker", "Aisha Khan"]
    sent = datetime(2025, 11, 30, 8, 0)
    lines = []
    for n in range(count):
        sent += timedelta(minutes=17 + n % 40)
        lines.append(f"{sent:%d/%m/%Y, %H:%M} - {names[n % 5]}: message {n} of the year")
    return ("\n".join(lines) + "\n").encode()


def test_a_year_of_a_group_chat_is_cut_to_whole_recent_days_and_says_so() -> None:
    export = read_export(year_of_group_chat(), "chat.txt")
    # the whole year is counted and dated; only the recent messages are read into the text
    assert export.count == 18_400 and len(export.records) == RECENT < 18_400
    assert export.first is not None and export.first < export.records[0].sent
    assert f"holds 18,400 messages; I read the most recent {RECENT:,}" in " ".join(export.notes)
    assert export.summary().startswith("WhatsApp export: 18,400 messages")
    window, note = recent_window(export.text)
    kept = messages(window)
    assert len(window) <= MAX_THREAD_CHARS and len(window.splitlines()) <= MAX_THREAD_LINES
    assert kept[-1].body(window) == "message 18399 of the year"
    days = sorted({str(m.stamp)[:10] for m in kept})
    assert f"{len(kept):,} of {RECENT:,}" in note
    first, last = datetime.fromisoformat(days[0]), datetime.fromisoformat(days[-1])
    assert f"from {first.day} {first:%b} to {last.day} {last:%b %Y}" in note
    # whole days: the day before the window is not cut in half
    before = [r for r in export.records if f"{r.sent:%Y-%m-%d}" == days[0]]
    assert len([m for m in kept if str(m.stamp).startswith(days[0])]) == len(before)


def test_a_short_export_is_read_whole() -> None:
    export = read("whatsapp_android_en-GB.txt")
    assert recent_window(export.text) == (export.text, "")


def test_one_message_past_the_budget_keeps_its_speaker_and_its_end() -> None:
    text = "[2026-12-03 19:02] Priya Patel: first\n" + "".join(
        f"  line {n} " + "x" * 100 + "\n" for n in range(400)
    )
    window = export_window(text, max_lines=MAX_THREAD_LINES, max_chars=MAX_THREAD_CHARS,
                           max_line_chars=MAX_LINE_CHARS)  # fmt: skip
    assert window is not None and window.text.startswith("[2026-12-03 19:02] Priya Patel: first")
    assert "line 399" in window.text and len(window.text) <= MAX_THREAD_CHARS
    assert window.note


def test_a_pasted_thread_keeps_the_line_window() -> None:
    thread = "\n".join(f"Anna: line {n}" for n in range(500))
    window, note = recent_window(thread)
    assert len(window.splitlines()) == MAX_THREAD_LINES and "most recent part" in note


# --- hostile files: a clear error, never a traceback -----------------------------------------


def test_a_few_broken_bytes_show_as_replacement_characters_with_a_note() -> None:
    data = (DATA / "whatsapp_android_en-GB.txt").read_bytes().replace(b"Fancy", b"F\xffncy")
    export = read_export(data, "chat.txt")
    assert export.count == 7 and "F\ufffdncy" in export.text
    assert any("not valid UTF-8" in note for note in export.notes)


def test_a_file_that_is_mostly_not_utf8_is_refused_clearly() -> None:
    latin1 = ("28/11/2026, 18:58 - Zoë Müller: à bientôt, ça va être génial ! " * 40).encode(
        "latin-1"
    )
    with pytest.raises(ExportError, match="not UTF-8 text.*export it again"):
        read_export(latin1, "chat.txt")


def test_utf16_with_a_bom_reads_like_utf8() -> None:
    text = (DATA / "whatsapp_android_en-GB.txt").read_text("utf-8")
    assert read_export(text.encode("utf-16"), "chat.txt").count == 7


def bomb(size: int = MAX_EXPORT_BYTES + 1024 * 1024) -> bytes:
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("_chat.txt", "w", force_zip64=True) as member:
            block = b"0" * (1024 * 1024)
            for _ in range(size // len(block)):
                member.write(block)
    return stored.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_unpacked() -> None:
    data = bomb()
    assert len(data) < 200_000
    with pytest.raises(ExportError, match="unpacks to .* over the"):
        read_export(data, "bomb.zip")


def test_a_zip_whose_header_lies_about_its_size_is_refused() -> None:
    data = bytearray(bomb(8 * 1024 * 1024))
    # the central directory's uncompressed size says 100 bytes
    at = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, at + 24, 100)
    with pytest.raises(ExportError, match="zip archive"):
        read_export(bytes(data), "liar.zip")


@pytest.mark.parametrize(
    "member", ["../../.bashrc", "/etc/passwd", "chat/../../x.txt", "C:\\x.txt"]
)
def test_a_member_named_outside_the_archive_is_refused(member: str) -> None:
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("_chat.txt", (DATA / "whatsapp_android_en-GB.txt").read_bytes())
        archive.writestr(member, b"x")
    with pytest.raises(ExportError, match="points outside the archive"):
        read_export(stored.getvalue(), "evil.zip")


def test_deeply_nested_json_is_refused() -> None:
    with pytest.raises(ExportError, match="nested too deeply"):
        read_export(b"[" * 200_000 + b"]" * 200_000, "deep.json")


def test_unknown_json_and_other_archives_say_so() -> None:
    with pytest.raises(UnknownFormatError, match="no chat export Veil knows"):
        read_export(b'{"hello": "world"}', "x.json")
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("word/document.xml", b"<w:document/>")
    with pytest.raises(UnknownFormatError, match="zip archive without a chat export"):
        read_export(stored.getvalue(), "report.docx")


def test_an_export_over_the_size_limit_is_refused_at_once() -> None:
    with pytest.raises(ExportError, match="over the 64 MB"):
        read_export(b"x" * (MAX_EXPORT_BYTES + 1), "huge.txt")


# --- end to end: CLI, page, MCP --------------------------------------------------------------

DINNER = (
    "28/11/2026, 18:58 - Olivia Hart: Fancy dinner next week?\n"
    "28/11/2026, 19:01 - James O'Neill: Yes! Let's find a day\n"
    "04/12/2026, 20:10 - Olivia Hart: Dinner tomorrow at 7:30?\n"
    "04/12/2026, 20:12 - James O'Neill: Perfect, 7:30 it is\n"
)


def test_a_day_first_export_passed_with_thread_creates_the_dinner_at_1930(
    data_dir: Path, tmp_path: Path
) -> None:
    from tests.test_run import run_cli

    stored = tmp_path / "WhatsApp Chat with Olivia Hart.zip"
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_chat.txt", DINNER)
    result = run_cli(
        "ask", "--no-llm", "--json", "--now", "2026-12-04T21:00", "--tz", "America/New_York",
        "--thread", str(stored), "add the dinner", data_dir=data_dir,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [event] = json.loads(result.stdout)["events"]
    # a month-first zone, a day-first phone: 4 December's "tomorrow at 7:30" is 5 Dec, evening
    assert event["status"] == "created" and event["start"] == "2026-12-05T19:30:00-05:00"
    assert "WhatsApp export: 4 messages, 28 Nov to 4 Dec 2026." in result.stderr


def upload(client: FlaskClient, data: bytes, name: str, tz: str = "Europe/London") -> Any:
    return client.post(
        "/api/upload",
        data={"file": (io.BytesIO(data), name), "tz": tz},
        content_type="multipart/form-data",
    )


def test_a_dropped_export_fills_the_thread_box_and_a_turn_creates_the_dinner(
    client: FlaskClient,
) -> None:
    response = upload(client, DINNER.encode(), "chat.txt", tz="America/New_York")
    body = response.get_json()
    assert response.status_code == 200 and body["kind"] == "export"
    assert body["format"] == "whatsapp" and body["messages"] == 4
    assert body["note"] == "WhatsApp export: 4 messages, 28 Nov to 4 Dec 2026."
    assert body["text"].startswith("[2026-11-28 18:58] Olivia Hart: Fancy dinner next week?")
    turn = run_turn(client, "add the dinner", thread=body["text"], tz="America/New_York",
                    now="2026-12-04T21:00")  # fmt: skip
    [event] = turn["answer"]["events"]
    assert event["status"] == "created" and event["start"] == "2026-12-05T19:30:00-05:00"


def test_the_box_holds_a_year_of_chat_cut_to_what_a_turn_can_send(client: FlaskClient) -> None:
    body = upload(client, year_of_group_chat(), "chat.txt").get_json()
    assert body["messages"] == 18_400 and 0 < body["shown"] < 18_400
    assert len(body["text"]) <= 100_000 and "The box holds the latest" in body["note"]


@pytest.mark.parametrize(
    ("data", "status", "words"),
    [
        (b"just some text", 415, "checked by its content"),
        (b"%PDF-1.7\x00\x00\x00\x00" * 200, 415, "checked by its content"),
        (("Zoë: à bientôt, ça va être génial ! " * 40).encode("latin-1"), 422, "not UTF-8"),
        (b"[" * 100_000, 422, "nested too deeply"),
    ],
)
def test_a_hostile_upload_is_a_clear_error_and_the_server_keeps_serving(
    client: FlaskClient, data: bytes, status: int, words: str
) -> None:
    response = upload(client, data, "chat.txt")
    assert response.status_code == status and words in response.get_json()["error"]
    assert client.get("/healthz").status_code == 200
    assert upload(client, DINNER.encode(), "chat.txt").get_json()["messages"] == 4


def test_a_zip_bomb_upload_is_refused_and_nothing_is_stored(
    app: Flask, client: FlaskClient
) -> None:
    response = upload(client, bomb(), "chat.zip")
    assert response.status_code == 422 and "unpacks to" in response.get_json()["error"]
    assert client.get("/api/sessions").get_json()["sessions"] == []


def test_a_json_export_given_to_mcp_as_text_reads_as_its_messages() -> None:
    pasted = (DATA / "telegram_result.json").read_text("utf-8")
    text, export = thread_text(pasted, tz="Europe/Berlin")
    assert export.format == "telegram" and text.startswith("[2026-11-27 18:59] Sam Okafor:")
    chat = "[10:02] Priya: hi\n[10:03] Tom: hey"
    assert thread_text(chat) == (chat, Export(chat, "paste"))
