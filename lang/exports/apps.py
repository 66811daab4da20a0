"""JSON exports of chat apps as records: Telegram Desktop, Signal (two exporters) and Slack.

- Telegram Desktop, "Export chat history" as JSON: `result.json`, one chat
  (`{"name", "type", "messages": [...]}`) or the whole account (`{"chats": {"list": [...]}}`).
  A message has `date` (the exporter's wall time, "2026-12-03T19:02:11"), `from` and `text`,
  a string or a list of strings and `{"type", "text"}` entities; `"type": "service"` lines
  (joins, pins, calls) are the app's, not anyone's words.
- Signal, as carderne/signal-export writes it: `data.json` beside each chat's `chat.md`, one
  JSON object a line, `{"date": "2026-12-03T19:02:11", "sender", "body", "attachments",
  "deleted", "call", ...}` in the exporter's wall time.
- Signal, as tbvdm/sigtop writes it (`sigtop export-messages -f json`): a list of Signal
  Desktop's own message objects, `{"type": "incoming"|"outgoing", "sent_at": ms, "source",
  "body", ...}`. It names no one: the user's own messages read as "Me", others by their
  number, or "Contact A" where Signal kept only an id.
- Slack, "Export data": a zip of `users.json`, `channels.json` and a folder per channel of
  one JSON list per day, `{"type": "message", "user", "user_profile": {"real_name"}, "text",
  "ts": "1764788531.000200"}`; a single day's file is read too. Slack's markup ("<@U0123>",
  "<https://x|label>", "&amp;") becomes the words it shows.

Stamps given as instants (Signal's milliseconds, Slack's seconds) are shown in the user's zone.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from lang.exports.canonical import ATTACHMENT, ExportError, Record, alias

_SLACK_SKIPPED = frozenset({
    "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name",
    "channel_archive", "channel_unarchive", "group_join", "group_leave", "group_topic",
    "group_purpose", "group_name", "group_archive", "group_unarchive", "pinned_item",
    "unpinned_item", "bot_add", "bot_remove", "tombstone", "sh_room_created",
})  # fmt: skip
_SLACK_LINK_RE = re.compile(r"<(?P<target>[^<>|\n]+)(?:\|(?P<label>[^<>\n]*))?>")


def load_json(text: str, what: str) -> Any:
    """The JSON document of `text`, or a list of each line's object when it is JSON Lines.

    Raises:
        ExportError: Not JSON, or nested deeper than the parser goes.
    """
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError as whole:
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) < 2:
                raise ExportError(f"{what} is not valid JSON ({whole.msg})") from None
            try:
                return [json.loads(line) for line in lines]
            except json.JSONDecodeError:
                raise ExportError(
                    f"{what} is not valid JSON ({whole.msg} at line {whole.lineno})"
                ) from None
    except RecursionError:  # "[[[[...": past the parser's own depth limit; no export nests so
        raise ExportError(f"{what} is JSON nested too deeply to be a chat export") from None


def kind_of(document: Any) -> str | None:
    """Which export a JSON document is, by its keys: "telegram", "signal-export", "sigtop",
    "slack" or None."""
    if isinstance(document, dict):
        if isinstance(document.get("messages"), list):
            return "telegram"
        chats = document.get("chats")
        if isinstance(chats, dict) and isinstance(chats.get("list"), list):
            return "telegram"
        return None
    if not isinstance(document, list) or not document:
        return None
    items = [d for d in document[:50] if isinstance(d, dict)]
    if not items:
        return None
    if all("sender" in d and "date" in d and "body" in d for d in items):
        return "signal-export"
    if all("sent_at" in d or "timestamp" in d for d in items) and any(
        d.get("type") in ("incoming", "outgoing") for d in items
    ):
        return "sigtop"
    if all("ts" in d for d in items) and any(d.get("type") == "message" for d in items):
        return "slack"
    return None


# ------------------------------------------------------------------------------- Telegram


def telegram(document: Any) -> tuple[list[Record], list[str]]:
    """Records of a Telegram Desktop export: the one chat, or of a whole account's the chat
    with the latest message (a note names how many others there were)."""
    notes: list[str] = []
    chat = document
    if "messages" not in document:
        chats = [c for c in document["chats"]["list"] if isinstance(c, dict)]
        chats = [c for c in chats if isinstance(c.get("messages"), list) and c["messages"]]
        if not chats:
            raise ExportError("the Telegram export holds no chat with messages")
        chat = max(chats, key=lambda c: _telegram_latest(c["messages"]))
        if len(chats) > 1:
            notes.append(
                f"The Telegram export holds {len(chats)} chats; I read the one with the latest "
                "message. Export a single chat to choose another."
            )
    records = []
    for message in chat["messages"]:
        if not isinstance(message, dict) or message.get("type", "message") != "message":
            continue  # service lines: joins, pins, calls
        sent = _telegram_date(message)
        if sent is None:
            continue
        lines = _telegram_text(message.get("text", "")).split("\n")
        if any(k in message for k in ("photo", "file", "media_type", "sticker_emoji")):
            lines = [ATTACHMENT, *[line for line in lines if line.strip()]]
        if "poll" in message and isinstance(message["poll"], dict):
            lines = [str(message["poll"].get("question", ""))]
        if not any(line.strip() for line in lines):
            continue
        speaker = message.get("from") or message.get("actor") or "Deleted Account"
        records.append(Record(sent, str(speaker), tuple(lines)))
    return _in_order(records), notes


def _telegram_latest(messages: list[Any]) -> str:
    return max((str(m.get("date", "")) for m in messages if isinstance(m, dict)), default="")


def _telegram_date(message: dict[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(message["date"])).replace(tzinfo=None, microsecond=0)
    except (KeyError, ValueError):
        return None


def _telegram_text(text: Any) -> str:
    """A message's text: a string, or a list of strings and entities with a "text"."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in text
            if isinstance(part, str | dict)
        )
    return ""


# --------------------------------------------------------------------------------- Signal


def signal_export(items: list[Any]) -> tuple[list[Record], list[str]]:
    """Records of signal-export's data.json (the exporter's wall time, senders by name)."""
    records = []
    for item in items:
        if not isinstance(item, dict) or item.get("deleted") or item.get("call"):
            continue
        try:
            sent = datetime.fromisoformat(str(item["date"]))
        except (KeyError, ValueError):
            continue
        if sent.tzinfo is not None:
            sent = sent.replace(tzinfo=None)
        lines = str(item.get("body") or "").split("\n")
        if item.get("attachments") or item.get("sticker"):
            lines = [ATTACHMENT, *[line for line in lines if line.strip()]]
        if not any(line.strip() for line in lines):
            continue
        records.append(Record(sent.replace(microsecond=0), str(item["sender"]), tuple(lines)))
    return _in_order(records), []


def sigtop(items: list[Any], tz: str | None) -> tuple[list[Record], list[str]]:
    """Records of sigtop's JSON: Signal Desktop's message objects, stamps in milliseconds."""
    zone, notes = _zone(tz)
    aliases: dict[str, str] = {}
    records = []
    for item in items:
        if not isinstance(item, dict) or item.get("type") not in ("incoming", "outgoing"):
            continue  # group changes, key changes, timers: Signal's own lines
        stamp = item.get("sent_at") or item.get("timestamp")
        if not isinstance(stamp, int | float):
            continue
        sent = _instant(stamp / 1000, zone)
        if item["type"] == "outgoing":
            speaker = "Me"
        elif isinstance(item.get("source"), str) and item["source"].strip():
            speaker = item["source"].strip()  # a phone number: the redactor's to handle
        else:
            key = str(item.get("sourceServiceId") or item.get("sourceUuid") or "?")
            speaker = aliases.setdefault(key, alias(len(aliases)))
        lines = str(item.get("body") or "").split("\n")
        if item.get("attachments") or item.get("sticker"):
            lines = [ATTACHMENT, *[line for line in lines if line.strip()]]
        if any(line.strip() for line in lines):
            records.append(Record(sent, speaker, tuple(lines)))
    if aliases:
        notes.append(
            f"Signal's export names {len(aliases)} sender(s) by an id only; they read as "
            "Contact A, Contact B ..."
        )
    return _in_order(records), notes


# ---------------------------------------------------------------------------------- Slack


def slack(
    days: Iterable[list[Any]], users: dict[str, str], tz: str | None
) -> tuple[list[Record], list[str]]:
    """Records of one Slack channel's day files; `users` maps ids to names (users.json)."""
    zone, notes = _zone(tz)
    days = list(days)
    # Recent exports name each message's sender inline: they name the mentions too.
    users = {**_inline_users(days), **users}
    records = []
    for day in days:
        for item in day:
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            if item.get("subtype") in _SLACK_SKIPPED:
                continue
            try:
                sent = _instant(float(item["ts"]), zone)
            except (KeyError, TypeError, ValueError):
                continue
            lines = slack_text(str(item.get("text") or ""), users).split("\n")
            if item.get("files"):
                lines = [ATTACHMENT, *[line for line in lines if line.strip()]]
            if not any(line.strip() for line in lines):
                continue
            records.append(Record(sent, _slack_name(item, users), tuple(lines)))
    return _in_order(records), notes


def slack_users(document: Any) -> dict[str, str]:
    """users.json as {id: the name Slack shows}."""
    names = {}
    for user in document if isinstance(document, list) else []:
        if isinstance(user, dict) and isinstance(user.get("id"), str):
            profile = user.get("profile") if isinstance(user.get("profile"), dict) else {}
            name = (
                user.get("real_name") or profile.get("real_name")
                or profile.get("display_name") or user.get("name")
            )  # fmt: skip
            if name:
                names[user["id"]] = str(name)
    return names


def _inline_users(days: list[list[Any]]) -> dict[str, str]:
    """{id: name} from the messages' own `user_profile`s."""
    names = {}
    for day in days:
        for item in day:
            if isinstance(item, dict) and isinstance(item.get("user_profile"), dict):
                profile = item["user_profile"]
                name = profile.get("real_name") or profile.get("display_name")
                if name and isinstance(item.get("user"), str):
                    names[item["user"]] = str(name)
    return names


def _slack_name(item: dict[str, Any], users: dict[str, str]) -> str:
    profile = item.get("user_profile") if isinstance(item.get("user_profile"), dict) else {}
    return str(
        profile.get("real_name") or profile.get("display_name") or item.get("user_name")
        or users.get(str(item.get("user"))) or item.get("username") or item.get("user")
        or "Slack user"
    )  # fmt: skip


def slack_text(text: str, users: dict[str, str]) -> str:
    """Slack's markup as the words it shows: mentions by name, links by their label."""

    def shown(match: re.Match[str]) -> str:
        target, label = match.group("target"), match.group("label")
        if target.startswith("@"):
            return "@" + (label or users.get(target[1:], target[1:]))
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            return "@" + (label or target[1:].split("^")[0])
        return label or target

    return html.unescape(_SLACK_LINK_RE.sub(shown, text))


# ------------------------------------------------------------------------------------ shared


def _zone(tz: str | None) -> tuple[ZoneInfo, list[str]]:
    """The zone instants are shown in, and a note when none was given."""
    if tz:
        return ZoneInfo(tz), []
    return ZoneInfo("UTC"), [
        "The export's stamps are instants; with no time zone given they are shown in UTC."
    ]


def _instant(seconds: float, zone: ZoneInfo) -> datetime:
    """Seconds since 1970 as the wall time of `zone`, to the second."""
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise ExportError(f"a stamp ({seconds:.0f}) is no date; export the chat again") from None
    return moment.astimezone(zone).replace(tzinfo=None, microsecond=0)


def _in_order(records: list[Record]) -> list[Record]:
    """Oldest first; messages sent in the same second keep the export's order."""
    return sorted(records, key=lambda r: r.sent)
