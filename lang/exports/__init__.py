"""Chat exports as they come: a file's bytes become the one thread text Veil reads.

`read_export(data, name)` takes what a user drops or passes with `--thread` (a WhatsApp .txt or
.zip, a Telegram, Signal or Slack JSON export, an .eml or .mbox, or plain pasted text) and
returns an `Export`: the canonical thread text (`canonical.py`), the format, the messages as
read and notes for the user. The format is told by the content (zip magic, JSON keys, RFC 5322
headers, "From " lines, stamped lines), never by the name alone. Plain text comes back as it
is, so a paste reads exactly as before.

`recent_window` cuts a long canonical thread to its most recent whole messages and days and
words the cut for the reply; the budget is the caller's (agent/assistant.py's).
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from datetime import datetime

from lang.exports import apps, mail, whatsapp
from lang.exports.archive import MAX_EXPORT_BYTES, Archive, decode, is_zip, mb
from lang.exports.canonical import (
    Export,
    ExportError,
    Record,
    UnknownFormatError,
    Window,
    recent_window,
    render,
    speaker_labels,
)
from lang.thread import messages

__all__ = [
    "MAX_EXPORT_BYTES",
    "Export",
    "ExportError",
    "Record",
    "UnknownFormatError",
    "Window",
    "read_export",
    "read_text",
    "reads_as_thread",
    "recent_window",
]

# How much of a plain text `reads_as_thread` looks at: a thread shows its shape at once.
_SHAPE_CHARS = 20_000


def read_export(
    data: bytes, name: str = "", *, tz: str | None = None, day_first: bool | None = None
) -> Export:
    """The export in `data` as canonical thread text; plain text as it is.

    Args:
        data: The file's bytes.
        name: Its name, used only in messages ("chat.zip is not ...").
        tz: The user's IANA zone: stamps the app stored as instants (Signal, Slack, e-mail)
            are shown as wall time there.
        day_first: Whether the user's locale writes the day first; consulted only when a
            WhatsApp export's own dates read either way.

    Raises:
        ExportError: The file is too big, damaged, hostile (a zip bomb, a member named
            "../x"), not text, or an export whose messages cannot be read. The message says
            what to do instead.
    """
    what = name or "the file"
    if len(data) > MAX_EXPORT_BYTES:
        raise ExportError(
            f"{what} is {mb(len(data))}, over the {mb(MAX_EXPORT_BYTES)} Veil reads from an "
            "export; export a shorter period"
        )
    if is_zip(data):
        return _zip(Archive(data), what, tz=tz, day_first=day_first)
    if mail.looks_like_mbox(data):
        return _built("mbox", *mail.mbox(data, tz))
    if mail.looks_like_message(data):
        records, notes = mail.eml(data, tz)
        if records:
            return _built("eml", records, notes)
    text = decode(data, what)
    export = read_text(text.text, what, tz=tz, day_first=day_first)
    if text.note:
        return replace(export, notes=(*export.notes, text.note))
    return export


def read_text(
    text: str, what: str = "the text", *, tz: str | None = None, day_first: bool | None = None
) -> Export:
    """Decoded text as an export: JSON of a chat app, a WhatsApp export, else the text as
    it is (format "paste")."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("{", "["):
        document = _json_or_none(stripped, what)
        if document is not None:
            return _json(document, what, tz=tz)
    if whatsapp.looks_like(text):
        chat = whatsapp.read(text, day_first=day_first)
        return _built("whatsapp", chat.records, chat.notes, older=chat.older, oldest=chat.oldest)
    return Export(text, "paste")


def reads_as_thread(text: str) -> bool:
    """Whether plain text has the shape of a thread: a message with a speaker or a stamp, or
    an e-mail's header block, among its first lines ("just some text" has none)."""
    return any(m.speaker or m.stamp for m in messages(text[:_SHAPE_CHARS]))


def _json_or_none(text: str, what: str) -> object | None:
    """A JSON document, or None when text that opens with a bracket is no JSON ("[10:02]
    Priya: hi" is a pasted chat); deep nesting is an error all the same."""
    try:
        return apps.load_json(text, what)
    except ExportError as error:
        if "nested too deeply" in str(error):
            raise
        return None


def _json(document: object, what: str, *, tz: str | None) -> Export:
    kind = apps.kind_of(document)
    if kind == "telegram":
        return _built("telegram", *apps.telegram(document))
    if kind == "signal-export":
        return _built("signal", *apps.signal_export(document))  # type: ignore[arg-type]
    if kind == "sigtop":
        return _built("signal", *apps.sigtop(document, tz))  # type: ignore[arg-type]
    if kind == "slack":
        return _built("slack", *apps.slack([document], {}, tz))  # type: ignore[list-item]
    raise UnknownFormatError(
        f"{what} is JSON but no chat export Veil knows (Telegram Desktop, signal-export or "
        "sigtop, Slack); see docs/exports.md"
    )


def _zip(archive: Archive, what: str, *, tz: str | None, day_first: bool | None) -> Export:
    """A zipped export: WhatsApp's chat file with its media, Telegram's result.json, a
    Slack workspace, or signal-export's data.json."""
    names = archive.names
    base = {n: posixpath.basename(n) for n in names}
    chats = [n for n in names if base[n] == "_chat.txt"] or [
        n for n in names if base[n].lower().endswith(".txt") and "whatsapp" in base[n].lower()
    ]
    if chats:
        text = decode(archive.read(chats[0]), base[chats[0]])
        chat = whatsapp.read(text.text, day_first=day_first)
        notes = [*chat.notes, *([text.note] if text.note else [])]
        return _built("whatsapp", chat.records, notes, older=chat.older, oldest=chat.oldest)
    if any(base[n] == "users.json" for n in names) and any(
        base[n] == "channels.json" for n in names
    ):
        return _slack_zip(archive, tz)
    for wanted in ("result.json", "data.json"):
        found = [n for n in names if base[n] == wanted]
        if found:
            text = decode(archive.read(found[0]), wanted)
            return _json(apps.load_json(text.text, wanted), wanted, tz=tz)
    texts = [n for n in names if base[n].lower().endswith((".txt", ".json"))]
    if len(texts) == 1:
        text = decode(archive.read(texts[0]), base[texts[0]])
        export = read_text(text.text, base[texts[0]], tz=tz, day_first=day_first)
        if export.format != "paste":
            return export
    raise UnknownFormatError(
        f"{what} is a zip archive without a chat export Veil knows (WhatsApp's _chat.txt, "
        "Telegram's result.json, a Slack export, signal-export's data.json)"
    )


def _slack_zip(archive: Archive, tz: str | None) -> Export:
    """A Slack export: the channel whose latest day is the newest, its days in order."""
    users_name = next(n for n in archive.names if posixpath.basename(n) == "users.json")
    users = apps.slack_users(apps.load_json(decode(archive.read(users_name), "users.json").text,
                                            "users.json"))  # fmt: skip
    channels: dict[str, list[str]] = {}
    for name in archive.names:
        folder, file = posixpath.split(name)
        if folder and file.endswith(".json") and file[:4].isdigit():
            channels.setdefault(folder, []).append(name)
    if not channels:
        raise ExportError("the Slack export holds no channel messages")
    channel = max(channels, key=lambda c: max(posixpath.basename(n) for n in channels[c]))
    days = [
        apps.load_json(decode(archive.read(n), posixpath.basename(n)).text, n)
        for n in sorted(channels[channel], key=posixpath.basename)
    ]
    records, notes = apps.slack([d for d in days if isinstance(d, list)], users, tz)
    if len(channels) > 1:
        notes.append(
            f"The Slack export holds {len(channels)} channels; I read #{channel}, the one with "
            "the latest messages."
        )
    return _built("slack", records, notes)


def _built(
    format_name: str,
    records: list[Record],
    notes: list[str],
    *,
    older: int = 0,
    oldest: datetime | None = None,
) -> Export:
    """The Export of `records` in their canonical text (`older` messages before them unread)."""
    if not records:
        raise ExportError(
            f"no messages found in this {format_name} export (only the app's own notices, or "
            "nothing at all)"
        )
    labels, label_notes = speaker_labels(r.speaker for r in records)
    text = render(records, labels, indent_all=format_name not in ("eml", "mbox"))
    return Export(text, format_name, tuple(records), labels, (*notes, *label_notes), older, oldest)
