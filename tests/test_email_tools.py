"""E-mail tools on real .eml and .mbox files written in tmp_path, and drafts parsed back."""

from __future__ import annotations

import email
import mailbox
from datetime import datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import jsonschema
import pytest
from sqlite_utils import Database

from memory.calendar import CalendarStore
from memory.store import MemoryStore
from tools.base import ToolContext, ToolResult
from tools.email import MAILTO_LIMIT, NO_FOLDER, TOOLS

NOW = datetime(2024, 5, 6, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))


def message(sender: str, subject: str, date: str, body: str, **headers: str) -> EmailMessage:
    msg = EmailMessage(policy=policy.default)
    msg["From"] = sender
    msg["To"] = headers.pop("to", "Me <me@example.com>")
    msg["Subject"] = subject
    msg["Date"] = date
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


@pytest.fixture
def mail_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "mail"
    folder.mkdir()
    lunch = message(
        "Karthik Rao <karthik@example.com>",
        "Lunch next week?",
        "Thu, 02 May 2024 10:00:00 +0200",
        "> earlier quoted text\nAre you free for lunch on Thursday at Blue Bottle?\n",
        Message_ID="<lunch-1@example.com>",
        References="<older@example.com>",
        Cc="Priya Patel <priya@example.com>",
    )
    lunch.add_alternative("<p>Are you free for <b>lunch</b>? (HTML part)</p>", subtype="html")
    (folder / "lunch.eml").write_bytes(bytes(lunch))

    html = EmailMessage(policy=policy.default)
    html["From"] = "News <news@example.org>"
    html["Subject"] = "Weekly digest"
    html["Date"] = "Wed, 01 May 2024 08:00:00 +0000"
    html.set_content(
        "<html><head><style>p {color: red}</style></head><body><p>First &amp; best</p>"
        "<script>alert('x')</script><div>Second line</div></body></html>",
        subtype="html",
    )
    (folder / "digest.eml").write_bytes(bytes(html))

    box = mailbox.mbox(folder / "archive.mbox")
    box.add(
        message(
            "Old <old@example.com>",
            "Spring plans",
            "Mon, 01 Apr 2024 12:00:00 +0000",
            "Planning for spring.",
        )
    )
    box.add(
        message(
            "Ana <ana@example.com>",
            "Budget numbers",
            "Fri, 03 May 2024 17:45:00 +0000",
            "The budget numbers are attached. " * 400,
        )
    )
    box.close()

    hidden = folder / ".trash"
    hidden.mkdir()
    (hidden / "deleted.eml").write_bytes(
        bytes(message("X <x@example.com>", "Gone", "Sat, 04 May 2024 10:00:00 +0000", "gone"))
    )
    return folder


def make_context(tmp_path: Path, mail_dir: Path | None, memory: MemoryStore | None = None):
    return ToolContext(
        tz="Europe/Berlin",
        now=NOW,
        out_dir=tmp_path / "out",
        calendar=CalendarStore(Database(tmp_path / "veil.db")),
        memory=memory,
        email_dir=mail_dir,
    )


@pytest.fixture
def context(tmp_path: Path, mail_dir: Path) -> ToolContext:
    return make_context(tmp_path, mail_dir)


def run(name: str, args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Run a tool the way the executor does: arguments checked against its schema first."""
    tool = {t.name: t for t in TOOLS}[name]
    jsonschema.validate(args, tool.parameters)
    return tool.run(args, context)


def parse_draft(result: ToolResult) -> EmailMessage:
    """The written .eml parsed back; it is stored with CRLF line ends, as RFC 5322 has them."""
    eml = next(f for f in result.files if f.type == "eml")
    assert eml.path is not None
    msg = email.message_from_bytes(Path(eml.path).read_bytes(), policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def mailto(result: ToolResult) -> str:
    url = next(f.url for f in result.files if f.type == "mailto")
    assert url is not None
    return url


def test_schemas_are_valid_and_descriptions_short() -> None:
    assert [t.name for t in TOOLS] == ["list_emails", "read_email", "draft_reply"]
    for tool in TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        assert tool.parameters["additionalProperties"] is False
        assert 0 < len(tool.description) <= 120
    assert [t.name for t in TOOLS if t.writes] == ["draft_reply"]


def test_list_emails_newest_first_with_stable_ids(context: ToolContext) -> None:
    result = run("list_emails", {}, context)
    assert result.ok, result.error
    emails = result.data["emails"]
    assert [e["id"] for e in emails] == [
        "archive.mbox#2",
        "lunch.eml",
        "digest.eml",
        "archive.mbox#1",
    ]
    lunch = emails[1]
    assert lunch["from"] == "Karthik Rao <karthik@example.com>"
    assert lunch["date"] == "2024-05-02T10:00:00+02:00"
    # The quoted line is left out of the snippet; the plain part is preferred over HTML.
    assert lunch["snippet"] == "Are you free for lunch on Thursday at Blue Bottle?"
    assert len(emails[0]["snippet"]) <= 160 and emails[0]["snippet"].endswith("…")
    assert run("list_emails", {}, context).data["emails"] == emails  # ids stay the same


def test_list_emails_query_and_limit(context: ToolContext) -> None:
    found = run("list_emails", {"query": "BUDGET numbers"}, context).data["emails"]
    assert [e["id"] for e in found] == ["archive.mbox#2"]
    assert run("list_emails", {"query": "karthik lunch"}, context).data["emails"][0]["id"] == (
        "lunch.eml"
    )
    limited = run("list_emails", {"limit": 2}, context).data
    assert len(limited["emails"]) == 2 and limited["total"] == 4


def test_read_email_prefers_plain_text(context: ToolContext) -> None:
    result = run("read_email", {"id": "lunch.eml"}, context)
    assert result.ok, result.error
    assert result.data["subject"] == "Lunch next week?"
    assert result.data["to"] == ["Me <me@example.com>"]
    assert result.data["cc"] == ["Priya Patel <priya@example.com>"]
    assert "Blue Bottle" in result.data["body"] and "HTML part" not in result.data["body"]
    assert result.data["truncated"] is False


def test_read_email_strips_html_only_body(context: ToolContext) -> None:
    body = run("read_email", {"id": "digest.eml"}, context).data["body"]
    assert body == "First & best\nSecond line"


def test_read_email_from_mbox_caps_long_body(context: ToolContext) -> None:
    result = run("read_email", {"id": "archive.mbox#2"}, context)
    assert result.ok, result.error
    assert result.data["from"] == "Ana <ana@example.com>"
    assert len(result.data["body"]) == 8_000 and result.data["truncated"] is True


@pytest.mark.parametrize(
    "bad_id",
    ["nope.eml", "archive.mbox#9", "archive.mbox#x", "../outside.eml", "/etc/passwd", "a\x00.eml"],
)
def test_read_email_refuses_unknown_ids(context: ToolContext, bad_id: str) -> None:
    (context.out_dir.parent / "outside.eml").write_bytes(
        bytes(message("A <a@example.com>", "Secret", "Mon, 01 Apr 2024 12:00:00 +0000", "x"))
    )
    result = run("read_email", {"id": bad_id}, context)
    assert not result.ok and "call list_emails" in (result.error or "")


def test_missing_mail_folder_says_how_to_fix(tmp_path: Path) -> None:
    assert run("list_emails", {}, make_context(tmp_path, None)).error == NO_FOLDER
    missing = run("read_email", {"id": "a.eml"}, make_context(tmp_path, tmp_path / "nowhere"))
    assert not missing.ok and "does not exist" in (missing.error or "")


def test_draft_reply_threads_under_the_original(context: ToolContext) -> None:
    result = run(
        "draft_reply",
        {
            "to": ["Karthik Rao <karthik@example.com>"],
            "body": "Thursday at 12:30 works — see you at Blue Bottle.\nPriya",
            "in_reply_to": "lunch.eml",
        },
        context,
    )
    assert result.ok, result.error
    assert [f.type for f in result.files] == ["eml", "mailto"]
    draft = parse_draft(result)
    assert draft["To"] == "Karthik Rao <karthik@example.com>"
    assert draft["Subject"] == "Re: Lunch next week?"
    assert draft["In-Reply-To"] == "<lunch-1@example.com>"
    assert draft["References"] == "<older@example.com> <lunch-1@example.com>"
    assert draft["X-Unsent"] == "1"
    assert draft["Date"].datetime == NOW
    assert draft["Message-ID"].endswith("@veil.local>")
    assert draft.get_content() == "Thursday at 12:30 works — see you at Blue Bottle.\r\nPriya\r\n"
    assert Path(result.files[0].path or "").parent == context.out_dir


def test_draft_reply_keeps_an_existing_re_prefix_and_never_overwrites(
    context: ToolContext,
) -> None:
    args = {"to": ["ana@example.com"], "subject": "RE: Budget", "body": "Thanks!"}
    first, second = run("draft_reply", args, context), run("draft_reply", args, context)
    assert parse_draft(first)["Subject"] == "RE: Budget"
    assert first.files[0].path != second.files[0].path
    assert len(list(context.out_dir.glob("*.eml"))) == 2


def test_draft_reply_looks_up_names_in_contacts(tmp_path: Path, mail_dir: Path) -> None:
    memory = MemoryStore(Database(tmp_path / "veil.db"))
    memory.save_contact("Priya Patel", aliases=["Priya"], email="priya@example.com")
    context = make_context(tmp_path, mail_dir, memory)
    result = run(
        "draft_reply",
        {"to": ["Priya"], "cc": ["Karthik"], "subject": "Lunch", "body": "Thursday?"},
        context,
    )
    assert result.ok, result.error
    draft = parse_draft(result)
    assert draft["To"] == "Priya Patel <priya@example.com>"
    assert draft["Cc"] is None
    # Karthik has no address anywhere: the draft is still written, the reply can ask for it.
    assert result.data["unresolved"] == ["Karthik"]
    assert mailto(result).startswith("mailto:priya@example.com?subject=Lunch&body=")


def test_unresolved_name_leaves_to_empty(context: ToolContext) -> None:
    result = run("draft_reply", {"to": ["Karthik"], "subject": "Hi", "body": "Hello"}, context)
    assert result.ok, result.error
    assert result.data["unresolved"] == ["Karthik"]
    assert parse_draft(result)["To"] is None
    assert mailto(result) == "mailto:?subject=Hi&body=Hello"


def test_mailto_stays_short_and_the_eml_keeps_the_full_body(context: ToolContext) -> None:
    body = "\n".join(
        f"Línea {n}: the café on Main St. opens at 8 — see you there." for n in range(80)
    )
    result = run(
        "draft_reply",
        {"to": ["karthik@example.com"], "cc": ["ana@example.com"], "subject": "Plan", "body": body},
        context,
    )
    assert result.ok, result.error
    url = mailto(result)
    assert len(url) < MAILTO_LIMIT
    assert url.startswith("mailto:karthik@example.com?cc=ana@example.com&subject=Plan&body=")
    shown = unquote(url.split("&body=", 1)[1])
    assert shown.startswith("Línea 0: the café") and "\r\n" in shown
    assert shown.endswith("[Shortened here: the full text is in the .eml draft.]")
    assert result.data["mailto_shortened"] is True
    assert parse_draft(result).get_content().replace("\r\n", "\n") == body + "\n"


def test_short_body_round_trips_through_mailto(context: ToolContext) -> None:
    body = "See you at 1?\nA & B = ok"
    result = run("draft_reply", {"to": ["a@example.com"], "subject": "Q&A", "body": body}, context)
    url = mailto(result)
    assert unquote(url.split("&body=", 1)[1]) == body.replace("\n", "\r\n")
    assert "subject=Q%26A" in url and result.data["mailto_shortened"] is False


@pytest.mark.parametrize(
    "args",
    [
        {"to": ["<PERSON_1>"], "subject": "Lunch", "body": "Hi"},
        {"to": ["a@example.com"], "subject": "Lunch", "body": "Hi <PERSON_2>, see you"},
        {"to": ["a@example.com"], "cc": ["<EMAIL_ADDRESS_1>"], "subject": "x", "body": "y"},
    ],
)
def test_placeholders_are_refused(context: ToolContext, args: dict[str, Any]) -> None:
    result = run("draft_reply", args, context)
    assert not result.ok and "placeholder" in (result.error or "")
    assert not context.out_dir.exists()


def test_bad_address_and_missing_subject_fail_cleanly(context: ToolContext) -> None:
    for wrong in ("bob@", "Bob <bob@>", "a@example.com, bob@"):
        bad = run("draft_reply", {"to": [wrong], "subject": "x", "body": "y"}, context)
        assert not bad.ok and "not a valid e-mail address" in (bad.error or "")
    no_subject = run("draft_reply", {"to": ["a@example.com"], "body": "y"}, context)
    assert not no_subject.ok and "subject" in (no_subject.error or "")
    unknown = run(
        "draft_reply", {"to": ["a@example.com"], "body": "y", "in_reply_to": "x.eml"}, context
    )
    assert not unknown.ok and "list_emails" in (unknown.error or "")
    assert not context.out_dir.exists()


def test_subject_too_long_for_any_mailto_still_gives_the_eml(context: ToolContext) -> None:
    result = run(
        "draft_reply", {"to": ["a@example.com"], "subject": "x" * 2500, "body": "y"}, context
    )
    assert result.ok, result.error
    assert [f.type for f in result.files] == ["eml"]
    assert parse_draft(result)["Subject"] == "x" * 2500


def test_junk_files_do_not_break_the_listing(context: ToolContext) -> None:
    assert context.email_dir is not None
    (context.email_dir / "junk.eml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (context.email_dir / "empty.mbox").write_bytes(b"")
    result = run("list_emails", {}, context)
    assert result.ok, result.error
    assert [e["id"] for e in result.data["emails"]][-1] == "junk.eml"  # undated: last
    assert run("read_email", {"id": "junk.eml"}, context).ok
