"""Dropped or picked files: an .ics is imported into the local calendar, a screenshot is read by
OCR and its text handed back for the user to correct before any turn runs. The kind is decided
from the file's bytes; its name and the browser's content type are not trusted.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from sqlite_utils import Database
from werkzeug.utils import secure_filename

from agent.assistant import IMPORT_AHEAD, IMPORT_PAST, local_zone_name, parse_now, parse_zone
from agent.errors import InputError
from lang.text import clean_bytes, clean_text
from memory.calendar import CalendarStore
from tools.calendar.ics import as_utf8, import_ics
from tools.ocr import ScreenshotReader
from web.security import image_kind, looks_like_ics

uploads = Blueprint("uploads", __name__)

ACCEPTED = "an .ics calendar or a PNG, JPEG or WebP screenshot"


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
        return jsonify(error=f"{name} is not {ACCEPTED} (checked by its content)."), 415
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
