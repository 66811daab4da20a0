"""Dropped or picked files: an .ics is imported into the local calendar, a screenshot is read by
OCR and a chat export (WhatsApp, Telegram, Signal, Slack, .eml, .mbox, plain text) converted;
either text is handed back for the thread box, where the user can check it before any turn
runs. The kind is decided from the file's bytes; its name and the browser's content type are
not trusted.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from sqlite_utils import Database
from werkzeug.utils import secure_filename

from agent.assistant import (
    IMPORT_AHEAD,
    IMPORT_PAST,
    MAX_INPUT_CHARS,
    MAX_LINE_CHARS,
    local_zone_name,
    parse_now,
    parse_zone,
)
from agent.errors import InputError
from lang.exports import Export, reads_as_thread, recent_window
from lang.text import clean_bytes, clean_text
from memory.calendar import CalendarStore
from tools.calendar.ics import as_utf8, import_ics
from tools.errors import UnknownExportError
from tools.exports import read_export
from tools.ocr import ScreenshotReader
from web.security import image_kind, looks_like_ics

uploads = Blueprint("uploads", __name__)

ACCEPTED = (
    "an .ics calendar, a PNG, JPEG or WebP screenshot, or a chat export (WhatsApp .txt or "
    ".zip, Telegram, Signal or Slack JSON, .eml, .mbox, plain text)"
)
# What the thread box may hold of an export: the page posts it back with the request, and a
# turn takes at most MAX_INPUT_CHARS; the turn itself then reads its recent window
# (agent/assistant.py's budget) and says which dates it read.
BOX_CHARS = MAX_INPUT_CHARS // 2
BOX_LINES = 5_000


@uploads.post("/api/upload")
def upload() -> Any:
    """Import an .ics or read a screenshot; 415 for anything else."""
    sent = request.files.get("file")
    if sent is None:
        raise InputError(f"choose a file to upload: {ACCEPTED}")
    name = secure_filename(sent.filename or "") or "upload"
    data = as_utf8(sent.read())  # before clean_bytes, which would strip UTF-16's NULs
    if looks_like_ics(data):
        return jsonify(kind="ics", name=name, **_import(clean_bytes(data), name))
    kind = image_kind(data)
    if kind is None:
        return _export(data, name)
    reader: ScreenshotReader = current_app.extensions["ocr"]
    read = reader.read(data)
    return jsonify(
        kind="screenshot",
        name=name,
        text=read.text,
        lines=[{"speaker": line.speaker, "text": line.text} for line in read.lines],
        engine=read.engine,
        seconds=round(read.seconds, 2),
    )


def _export(data: bytes, name: str) -> Any:
    """A chat export (or plain text) as the text for the thread box, cut to what the box may
    hold; 415 for a file that is no export at all, 422 for one that cannot be read."""
    tz = clean_text(request.form.get("tz", "")) or local_zone_name()
    parse_zone(tz)
    try:
        export = read_export(data, name, tz=tz)
    except UnknownExportError as error:
        return jsonify(error=f"{name} is not {ACCEPTED} (checked by its content): {error}."), 415
    if export.format == "paste" and not reads_as_thread(export.text):
        return jsonify(
            error=f"{name} is not {ACCEPTED} (checked by its content): its text has no "
            "message lines; paste it into the thread box instead."
        ), 415
    text, shown = _box(export)
    note = export.summary() if export.format != "paste" else ""
    if shown < export.count:
        note += (
            f" The box holds the latest {shown:,}, from {_day(export, shown)}; a turn reads "
            "the most recent of them and says which."
        )
    elif export.format == "paste" and len(text) < len(export.text):
        note = "The file is long: the box holds its end."
    return jsonify(
        kind="export",
        name=name,
        format=export.format,
        messages=export.count,
        shown=shown,
        first=export.first.isoformat() if export.first else None,
        last=export.last.isoformat() if export.last else None,
        note=note.strip(),
        notes=list(export.notes),
        text=clean_text(text),
    )


def _box(export: Export) -> tuple[str, int]:
    """The export's text as the box holds it, and how many of its messages that is."""
    window = recent_window(
        export.text, max_lines=BOX_LINES, max_chars=BOX_CHARS, max_line_chars=MAX_LINE_CHARS
    )
    if window is not None:
        return window.text, window.kept if export.count else 0
    if len(export.text) <= BOX_CHARS:
        return export.text, export.count
    tail = export.text[-BOX_CHARS:]
    return tail[tail.find("\n") + 1 :], 0


def _day(export: Export, shown: int) -> str:
    sent = export.records[-shown].sent
    return f"{sent.day} {sent:%b %Y}"


def _import(data: bytes, name: str) -> dict[str, Any]:
    """The same import window as a turn's calendar, plus the refused items one by one."""
    tz = clean_text(request.form.get("tz", "")) or local_zone_name()
    now = parse_now(clean_text(request.form.get("now", "")), parse_zone(tz))
    source = f"import:{name}"
    found = import_ics(
        data, tz=tz, window_start=now - IMPORT_PAST, window_end=now + IMPORT_AHEAD, source=source
    )
    db = Database(current_app.config["DATA_DIR"] + "/veil.db")
    try:
        stored = CalendarStore(db).import_events(found.events, source)
    finally:
        db.close()
    refused = [{"item": r.item, "reason": r.reason} for r in found.refused]
    message = f"Imported {stored.stored} event(s) from {name}"
    message += f"; {len(refused)} item(s) refused." if refused else "."
    return {"imported": stored.stored, "refused": refused, "message": message}
