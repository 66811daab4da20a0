"""E-mail as records: one message (.eml) or a mailbox (.mbox), read with Python's `email`.

Each message is its sender (the From header's display name, else its address), its Date (in
the user's zone) and its words: the subject, then the plain-text part (or the HTML part as the
text it shows), decoded from quoted-printable or base64 in whatever charset it names. A
mailbox's messages are put in date order, oldest first.
"""

from __future__ import annotations

import email
import re
from datetime import UTC, datetime
from email import policy
from email.errors import MessageError
from email.message import EmailMessage
from email.utils import getaddresses, parsedate_to_datetime
from zoneinfo import ZoneInfo

from lang.exports.canonical import ExportError, Record
from lang.html import html_to_text

MAX_MESSAGES = 20_000
# Header names of RFC 5322 and their mail servers' additions: two of them at the top of a file
# make it a message, "Priya: hi" does not.
_HEADERS = frozenset({
    "from", "to", "cc", "date", "subject", "message-id", "received", "return-path",
    "mime-version", "content-type", "delivered-to", "reply-to", "in-reply-to", "references",
    "x-mailer", "user-agent", "dkim-signature", "authentication-results", "sender",
})  # fmt: skip
_HEADER_LINE_RE = re.compile(rb"([A-Za-z][A-Za-z0-9-]{0,60})[ \t]*:")
_FROM_LINE_RE = re.compile(rb"^From \S+.*$", re.MULTILINE)


def looks_like_message(data: bytes) -> bool:
    """Whether the bytes open with a block of RFC 5322 headers (two known ones at least)."""
    head = data[:8192].removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    block = head.split(b"\n\n", 1)[0].split(b"\n")
    known = 0
    for line in block[:60]:
        if line[:1] in (b" ", b"\t"):
            continue  # a folded header's next line
        match = _HEADER_LINE_RE.match(line)
        if not match:
            return False
        known += match.group(1).decode("ascii").casefold() in _HEADERS
    return known >= 2 and b"\n\n" in head + b"\n\n"


def looks_like_mbox(data: bytes) -> bool:
    """Whether the bytes open like an mbox file: a "From " line, then a message's headers."""
    head = data[:8192].removeprefix(b"\xef\xbb\xbf")
    if not head.startswith(b"From "):
        return False
    rest = head.split(b"\n", 1)[1] if b"\n" in head else b""
    return looks_like_message(rest)


def eml(data: bytes, tz: str | None) -> tuple[list[Record], list[str]]:
    """The one message of an .eml file; none when it has no Date (a copied mail's headers,
    which the message model reads as they are)."""
    record = _record(_parse(data), None, tz)
    return ([record] if record is not None else []), []


def mbox(data: bytes, tz: str | None) -> tuple[list[Record], list[str]]:
    """The messages of an mbox file, oldest first.

    Raises:
        ExportError: More than MAX_MESSAGES messages.
    """
    starts = [m.start() for m in _FROM_LINE_RE.finditer(data) if _opens(data, m.start())]
    if len(starts) > MAX_MESSAGES:
        raise ExportError(
            f"the mailbox holds {len(starts):,} messages, more than the {MAX_MESSAGES:,} Veil "
            "reads; export the conversation's messages only"
        )
    records, undated = [], 0
    for start, end in zip(starts, [*starts[1:], len(data)], strict=True):
        chunk = data[start:end]
        first_line, _, message = chunk.partition(b"\n")
        record = _record(_parse(_unquote_from(message)), first_line, tz)
        if record is None:
            undated += 1
            continue
        records.append(record)
    notes = (
        [f"{undated} message(s) of the mailbox had no date and were left out."] if undated else []
    )
    return sorted(records, key=lambda r: r.sent), notes


def _opens(data: bytes, at: int) -> bool:
    """A "From " line opens a message at the file's start or after a blank line (mboxo/mboxrd
    escape the ones inside bodies as ">From ")."""
    return (
        at == 0 or data[max(0, at - 2) : at] in (b"\n\n",) or data[max(0, at - 3) : at] == b"\n\r\n"
    )


def _unquote_from(message: bytes) -> bytes:
    """mboxrd's ">From " escapes inside a body undone."""
    return re.sub(rb"(?m)^>(>*From )", rb"\1", message)


def _parse(data: bytes) -> EmailMessage:
    message = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(message, EmailMessage):
        raise TypeError("policy.default always builds EmailMessage")
    return message


def _header(message: EmailMessage, name: str) -> str:
    try:
        return str(message.get(name, "") or "")
    except (ValueError, IndexError, MessageError):  # a malformed header: its raw text
        return next((str(v) for k, v in message.raw_items() if k.lower() == name.lower()), "")


def _sent(message: EmailMessage, from_line: bytes | None, tz: str | None) -> datetime | None:
    """The Date header (or the mbox "From " line's date) as the user's wall time."""
    candidates = [_header(message, "Date")]
    if from_line:
        candidates.append(" ".join(from_line.decode("ascii", "replace").split()[2:]))
    for value in candidates:
        try:
            moment = parsedate_to_datetime(value) if value else None
        except (TypeError, ValueError, IndexError):
            moment = None
        if moment is None:
            continue
        if moment.tzinfo is None:  # "-0000" or an asctime: RFC 5322 means UTC
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(ZoneInfo(tz) if tz else UTC).replace(tzinfo=None)
    return None


def _sender(message: EmailMessage) -> str:
    pairs = getaddresses([_header(message, "From")])
    name, address = pairs[0] if pairs else ("", "")
    name = " ".join(name.split()).strip("'\" ")
    if name:
        return name
    if address:
        return address.split("@", 1)[0].replace(".", " ").replace("_", " ").title()
    return "Unknown sender"


def _text(message: EmailMessage) -> str:
    """The text/plain part, or the HTML part as its text; empty when there is neither."""
    part = message.get_body(preferencelist=("plain", "html"))
    if not isinstance(part, EmailMessage):
        return ""
    try:
        text = str(part.get_content())
    except (LookupError, ValueError, AttributeError):  # an unknown or lying charset
        payload = part.get_payload(decode=True)
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if part.get_content_subtype() == "html":
        text = html_to_text(text)
    return text.replace("\r\n", "\n").strip()


def _record(message: EmailMessage, from_line: bytes | None, tz: str | None) -> Record | None:
    sent = _sent(message, from_line, tz)
    if sent is None:
        return None
    subject = " ".join(_header(message, "Subject").split())
    lines = [subject, *_text(message).split("\n")] if subject else _text(message).split("\n")
    return Record(sent.replace(microsecond=0), _sender(message), tuple(lines))
