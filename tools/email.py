"""E-mail tools over a local mail folder: list and read .eml/.mbox mail, write reply drafts.

Veil never sends mail. `draft_reply` writes an .eml marked `X-Unsent: 1` (mail apps open it
as a draft) and a mailto: link; the user reviews and sends from their own mail app.
"""

from __future__ import annotations

import email
import mailbox
import re
from datetime import UTC, datetime
from email import policy
from email.errors import MessageError
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, make_msgid
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from lang.html import html_to_text
from privacy.entity_map import PLACEHOLDER_RE
from tools.base import Tool, ToolContext, ToolFile, ToolResult

NO_FOLDER = "no mail folder configured; start Veil with --mail-dir DIR"
MAX_LIST = 50
SNIPPET_CHARS = 160
BODY_CHARS = 8_000
MAX_MAIL_BYTES = 50 * 1024 * 1024
MAILTO_LIMIT = 2_000  # common browser/mail-client ceiling for a URL
MAILTO_NOTE = "…\r\n\r\n[Shortened here: the full text is in the .eml draft.]"
_ADDRESS_RE = re.compile(r"[^@\s<>(),;:\"]+@[^@\s<>(),;:\"]+")


def _part_text(part: EmailMessage) -> str:
    try:
        return str(part.get_content())
    except (LookupError, ValueError, AttributeError):
        # An unknown or lying charset: keep what decodes rather than losing the message.
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


def body_text(msg: EmailMessage) -> str:
    """The text/plain body, or the HTML body as text; empty when there is neither."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if not isinstance(part, EmailMessage):
        return ""
    text = _part_text(part)
    if part.get_content_subtype() == "html":
        text = html_to_text(text)
    return text.strip()


def _header(msg: EmailMessage, name: str) -> str:
    try:
        return str(msg.get(name, "") or "")
    except (ValueError, IndexError, MessageError):  # a malformed header: keep the raw text
        return next((str(v) for k, v in msg.raw_items() if k.lower() == name.lower()), "")


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    pairs = getaddresses([_header(msg, name)]) if _header(msg, name) else []
    return [f"{n} <{a}>" if n else a for n, a in pairs if a]


def _date(msg: EmailMessage, tz: str) -> datetime | None:
    try:
        value = getattr(msg.get("Date"), "datetime", None)
    except (ValueError, IndexError, MessageError):
        return None
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:  # "-0000": the sender's zone is unknown; RFC 5322 means UTC
        value = value.replace(tzinfo=UTC)
    return value.astimezone(ZoneInfo(tz))


def _parse(data: bytes) -> EmailMessage:
    msg = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(msg, EmailMessage):
        raise TypeError("policy.default always builds EmailMessage")
    return msg


def _folder(context: ToolContext) -> Path | str:
    """The mail folder, or the sentence to fail with."""
    if context.email_dir is None:
        return NO_FOLDER
    if not context.email_dir.is_dir():
        return f"the mail folder {context.email_dir} does not exist; check --mail-dir"
    return context.email_dir


def _visible(path: Path, root: Path) -> bool:
    """Not hidden, and not a symlink out of the folder (read_email would refuse it)."""
    hidden = any(p.startswith(".") for p in path.relative_to(root).parts)
    return not hidden and path.resolve().is_relative_to(root.resolve())


def _messages(root: Path) -> tuple[list[tuple[str, EmailMessage]], list[str]]:
    """Every message under `root` with its stable id, plus the files that could not be read."""
    found: list[tuple[str, EmailMessage]] = []
    skipped: list[str] = []
    for path in sorted(root.rglob("*")):
        suffix = path.suffix.lower()
        if suffix not in (".eml", ".mbox") or not path.is_file() or not _visible(path, root):
            continue
        rel = path.relative_to(root).as_posix()
        try:
            if suffix == ".eml":
                if path.stat().st_size > MAX_MAIL_BYTES:
                    skipped.append(rel)
                    continue
                found.append((rel, _parse(path.read_bytes())))
            else:
                box = mailbox.mbox(path, create=False)
                try:
                    for number, key in enumerate(box.keys(), start=1):
                        found.append((f"{rel}#{number}", _parse(box.get_bytes(key))))
                finally:
                    box.close()
        except (OSError, mailbox.Error):
            skipped.append(rel)
    return found, skipped


def _load(root: Path, message_id: str) -> EmailMessage | str:
    """The message with this list_emails id, or the sentence to fail with."""
    rel, _, number = message_id.partition("#")
    unknown = f"no e-mail with id {message_id!r}; call list_emails to get ids"
    try:
        path = (root / rel).resolve()
        if not path.is_relative_to(root.resolve()) or not path.is_file():
            return unknown
        if path.suffix.lower() == ".eml" and not number:
            if path.stat().st_size > MAX_MAIL_BYTES:
                return f"{rel} is larger than {MAX_MAIL_BYTES // 2**20} MB; Veil will not read it"
            return _parse(path.read_bytes())
        if path.suffix.lower() == ".mbox" and number.isdigit():
            box = mailbox.mbox(path, create=False)
            try:
                keys = box.keys()
                index = int(number) - 1
                if 0 <= index < len(keys):
                    return _parse(box.get_bytes(keys[index]))
            finally:
                box.close()
    except ValueError:  # a NUL byte in the id
        return unknown
    except (OSError, mailbox.Error) as exc:
        return f"cannot read {rel}: {exc.__class__.__name__}"
    return unknown


def _snippet(text: str) -> str:
    lines = (line for line in text.splitlines() if not line.lstrip().startswith(">"))
    flat = " ".join(" ".join(lines).split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def list_emails(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Newest-first summaries, so the planner can pick an id to read or reply to."""
    root = _folder(context)
    if isinstance(root, str):
        return ToolResult.fail(root)
    limit = min(int(args.get("limit") or 20), MAX_LIST)
    words = str(args.get("query") or "").casefold().split()
    rows = []
    messages, skipped = _messages(root)
    for message_id, msg in messages:
        body = body_text(msg)
        sender, subject = _header(msg, "From"), _header(msg, "Subject")
        haystack = " ".join((sender, _header(msg, "To"), subject, body)).casefold()
        if all(word in haystack for word in words):
            rows.append((_date(msg, context.tz), message_id, sender, subject, body))
    # Newest first; undated mail last.
    rows.sort(key=lambda r: r[0].timestamp() if r[0] else float("-inf"), reverse=True)
    emails = [
        {
            "id": message_id,
            "from": sender,
            "subject": subject,
            "date": date.isoformat() if date else None,
            "snippet": _snippet(body),
        }
        for date, message_id, sender, subject, body in rows[:limit]
    ]
    data: dict[str, Any] = {"emails": emails, "total": len(rows)}
    if skipped:
        data["skipped"] = skipped
    return ToolResult(ok=True, data=data)


def read_email(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """One message's headers and text body (plain text preferred), capped in length."""
    root = _folder(context)
    if isinstance(root, str):
        return ToolResult.fail(root)
    msg = _load(root, str(args.get("id", "")))
    if isinstance(msg, str):
        return ToolResult.fail(msg)
    body = body_text(msg)
    date = _date(msg, context.tz)
    return ToolResult(
        ok=True,
        data={
            "id": args["id"],
            "from": _header(msg, "From"),
            "to": _addresses(msg, "To"),
            "cc": _addresses(msg, "Cc"),
            "subject": _header(msg, "Subject"),
            "date": date.isoformat() if date else None,
            "body": body[:BODY_CHARS],
            "truncated": len(body) > BODY_CHARS,
        },
    )


# Line breaks end a header and start another; other controls have no place in one either.
_UNSAFE = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def _refused(entry: str, why: str) -> str:
    """The error for one recipient string, shown with its line breaks visible."""
    shown = entry if len(entry) <= 80 else entry[:79] + "…"
    return f"{shown!r} is not a valid e-mail address: {why}"


def _parse_recipients(entry: str) -> list[tuple[str, str]] | str:
    """(display name, address) pairs of one "@"-holding string, or the reason it is refused.

    Two parsers must agree: email.headerregistry (strict, reports defects) and getaddresses
    (what this Python's mail code does with a header). Whatever either reads differently, or
    anything beyond a plain list of addresses, is refused rather than guessed at: that is how
    "a@b.com, Bcc: x@evil.com" or a display name holding an address would smuggle a recipient.
    """
    try:
        header = policy.default.header_factory("To", entry)
    except (ValueError, IndexError, TypeError, MessageError):
        return _refused(entry, "it is not a list of e-mail addresses")
    groups = list(header.groups)  # type: ignore[attr-defined]
    strict = [(a.display_name, a.addr_spec) for g in groups for a in g.addresses]
    loose = getaddresses([entry])
    if any(not addr or "@" not in addr for _, addr in loose):
        if "," in _QUOTED.sub("", entry):
            return _refused(
                entry, 'a name with a comma must be quoted, like "Smith, Bob" <bob@example.com>'
            )
        return _refused(entry, "it is not a plain list of e-mail addresses")
    if any(g.display_name is not None for g in groups):
        return _refused(entry, 'it holds a group or header name ("Bcc:" and the like)')
    if header.defects or [a for _, a in strict] != [a for _, a in loose]:  # type: ignore[attr-defined]
        return _refused(entry, "it is not a plain list of e-mail addresses")
    for name, addr in strict:
        if not _ADDRESS_RE.fullmatch(addr):
            return f"{entry!r} is not a valid e-mail address"
        if any(c in name for c in "@<>"):
            return _refused(entry, "its display name looks like another address")
    return strict


def _recipients(entries: list[str], context: ToolContext) -> tuple[list[Address], list[str]] | str:
    """Addresses for names and addresses; names without a known address come back unresolved.

    Raises nothing: a string that could become an extra header or an extra recipient (CR/LF,
    group syntax, an unquoted comma, two parsers disagreeing) is refused with a reason.
    """
    found: list[Address] = []
    unresolved: list[str] = []
    for raw in entries:
        if _UNSAFE.search(raw):
            return _refused(raw, "it holds a line break or control character")
        entry = " ".join(raw.split())
        if not entry:
            continue
        if "@" in entry:
            pairs = _parse_recipients(entry)  # "A <a@x>, b@y" is two recipients in one string
            if isinstance(pairs, str):
                return pairs
        elif context.memory is not None and (contact := context.memory.find_contact(entry)):
            pairs = [(contact.name, contact.email)] if contact.email else []
        else:
            pairs = []
        if not pairs:
            unresolved.append(entry)
            continue
        for name, addr in pairs:
            if _UNSAFE.search(name + addr) or not _ADDRESS_RE.fullmatch(addr):
                return f"{entry!r} is not a valid e-mail address"
            try:
                found.append(Address(display_name=name, addr_spec=addr))
            except (ValueError, IndexError, MessageError):
                return f"{entry!r} is not a valid e-mail address"
    return found, unresolved


def _safe_name(subject: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", subject).strip("-")[:40].strip("-")
    return slug or "draft"


def _write_new(folder: Path, stem: str, data: bytes) -> Path:
    """Write `data` to a file that did not exist before; never overwrite an earlier draft."""
    for n in range(1, 1000):
        path = folder / (f"{stem}.eml" if n == 1 else f"{stem}-{n}.eml")
        try:
            with path.open("xb") as handle:
                handle.write(data)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"too many drafts named {stem} in {folder}")


def mailto_url(to: list[str], cc: list[str], subject: str, body: str) -> tuple[str | None, bool]:
    """A mailto: link under MAILTO_LIMIT characters and whether its body had to be shortened.

    None when even the recipients and subject alone do not fit.

    Raises:
        ValueError: an address that is not a bare addr-spec, or a subject with a line break:
            either would let the link carry headers of its own (RFC 6068 hfields).
    """
    for address in [*to, *cc]:
        if not _ADDRESS_RE.fullmatch(address):
            raise ValueError(f"mailto recipients must be bare addresses, got {address!r}")
    if _UNSAFE.search(subject):
        raise ValueError("a mailto subject must be one line")
    base = "mailto:" + ",".join(quote(a, safe="@") for a in to)
    query = [f"cc={quote(','.join(cc), safe='@,')}"] if cc else []
    query.append(f"subject={quote(subject, safe='')}")
    head = f"{base}?{'&'.join(query)}&body="

    def url(text: str) -> str:
        # RFC 6068: line breaks in a mailto body are CRLF.
        return head + quote(text.replace("\r\n", "\n").replace("\n", "\r\n"), safe="")

    if len(url(body)) < MAILTO_LIMIT:
        return url(body), False
    if len(url(MAILTO_NOTE)) >= MAILTO_LIMIT:
        return None, True
    low, high = 0, len(body)  # the longest prefix that fits with the note: binary search
    while low < high:
        mid = (low + high + 1) // 2
        if len(url(body[:mid].rstrip() + MAILTO_NOTE)) < MAILTO_LIMIT:
            low = mid
        else:
            high = mid - 1
    return url(body[:low].rstrip() + MAILTO_NOTE), True


def draft_reply(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Write one .eml draft (and a mailto: link) to real recipients; never sends anything."""
    values = [*args.get("to", []), *args.get("cc", [])]
    values += [args.get(k) or "" for k in ("subject", "body", "in_reply_to")]
    for value in values:
        match = PLACEHOLDER_RE.search(str(value))
        if match:
            return ToolResult.fail(
                f"draft_reply got the placeholder {match.group(0)}; "
                "a draft needs real names, restored from the session map"
            )
    to = _recipients(list(args.get("to", [])), context)
    if isinstance(to, str):
        return ToolResult.fail(to)
    cc = _recipients(list(args.get("cc", [])), context)
    if isinstance(cc, str):
        return ToolResult.fail(cc)
    # Header values may not hold line breaks (header injection); the body keeps its own.
    subject = str(args.get("subject") or "").strip()
    if _UNSAFE.search(subject):
        return ToolResult.fail(
            "the subject holds a line break or control character; a subject is one line"
        )
    subject = " ".join(subject.split())
    msg = EmailMessage(policy=policy.default)
    if args.get("in_reply_to"):
        root = _folder(context)
        if isinstance(root, str):
            return ToolResult.fail(root)
        original = _load(root, str(args["in_reply_to"]))
        if isinstance(original, str):
            return ToolResult.fail(original)
        # Someone else's subject: its line breaks and controls are dropped, not refused.
        subject = subject or " ".join(_UNSAFE.sub(" ", _header(original, "Subject")).split())
        if not subject.casefold().startswith("re:"):
            subject = f"Re: {subject}"
        parent = _header(original, "Message-ID").strip()
        if parent:
            msg["In-Reply-To"] = parent
            msg["References"] = " ".join(_header(original, "References").split() + [parent])
    if not subject:
        return ToolResult.fail("a new draft needs a subject (or in_reply_to, to reply)")
    now = context.now if context.now.tzinfo else context.now.replace(tzinfo=ZoneInfo(context.tz))
    if to[0]:
        msg["To"] = to[0]
    if cc[0]:
        msg["Cc"] = cc[0]
    msg["Subject"] = subject
    msg["Date"] = format_datetime(now)
    # A fixed domain: make_msgid() would otherwise look up this machine's name in DNS.
    msg["Message-ID"] = make_msgid(domain="veil.local")
    msg["X-Unsent"] = "1"
    body = str(args.get("body") or "")
    msg.set_content(body, charset="utf-8")
    try:
        context.out_dir.mkdir(parents=True, exist_ok=True)
        stem = f"{now:%Y%m%d-%H%M%S}-{_safe_name(subject)}"
        path = _write_new(context.out_dir, stem, msg.as_bytes(policy=policy.SMTP))
    except OSError as exc:
        return ToolResult.fail(f"cannot write the draft to {context.out_dir}: {exc.strerror}")
    unresolved = to[1] + cc[1]
    who = ", ".join([a.display_name or a.addr_spec for a in to[0]] + to[1]) or "nobody yet"
    url, shortened = mailto_url(
        [a.addr_spec for a in to[0]], [a.addr_spec for a in cc[0]], subject, body
    )
    data: dict[str, Any] = {
        "path": str(path),
        "to": [str(a) for a in to[0]],
        "cc": [str(a) for a in cc[0]],
        "subject": subject,
        "in_reply_to": msg.get("In-Reply-To"),
        "unresolved": unresolved,
        "mailto_shortened": shortened,
    }
    files = [ToolFile("eml", str(path), None, f"Draft to {who}: {subject}")]
    if url is None:
        data["note"] = "too many recipients or too long a subject for a mailto link; use the .eml"
    else:
        files.append(ToolFile("mailto", None, url, f"Open in your mail app: {subject}"))
        if shortened:
            data["note"] = "the mailto link holds a shortened body; the .eml has the full text"
    return ToolResult(ok=True, data=data, files=files)


_STRING_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 20}

TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_emails",
        description="List e-mails in the user's mail folder, newest first; query: words to match.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words that must all appear"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST},
            },
            "required": [],
            "additionalProperties": False,
        },
        run=list_emails,
    ),
    Tool(
        name="read_email",
        description="Read one e-mail (headers and text body) by the id list_emails gave.",
        parameters={
            "type": "object",
            "properties": {"id": {"type": "string", "minLength": 1}},
            "required": ["id"],
            "additionalProperties": False,
        },
        run=read_email,
    ),
    Tool(
        name="draft_reply",
        description="Write an e-mail draft (.eml and mailto link) for the user to send; "
        "in_reply_to threads it under an e-mail id.",
        parameters={
            "type": "object",
            "properties": {
                "to": {**_STRING_LIST, "description": "names or addresses; [] for none yet"},
                "cc": _STRING_LIST,
                "subject": {"type": "string"},
                "body": {"type": "string"},
                "in_reply_to": {"type": "string", "description": "an id from list_emails"},
            },
            "required": ["to", "body"],
            "additionalProperties": False,
        },
        run=draft_reply,
        writes=True,
    ),
)
