"""Downloads, by file id only: the browser never names a path, and a registered path outside the
data folder's files/ is refused too (a tampered database must not serve /etc/passwd).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import icalendar
from flask import Blueprint, Response, abort, current_app, send_file

from memory.store import FileRecord
from web.db import get_store

files = Blueprint("files", __name__)

MIMETYPES = {"ics": "text/calendar", "eml": "message/rfc822"}
PRODID = "-//Veil//Veil private assistant//EN"


def _files_root() -> Path:
    return (Path(current_app.config["DATA_DIR"]) / "files").resolve()


def _checked_path(record: FileRecord) -> Path:
    path = Path(record.path).resolve()
    if not path.is_relative_to(_files_root()) or not path.is_file():
        abort(404, description="That file is no longer on disk.")
    return path


@files.get("/files/<file_id>")
def download(file_id: str) -> Any:
    """One generated .ics or .eml, as an attachment."""
    record = get_store().get_file(file_id)
    path = _checked_path(record)
    return send_file(
        path,
        mimetype=MIMETYPES.get(record.type, "application/octet-stream"),
        as_attachment=True,
        download_name=path.name,
    )


@files.get("/api/turns/<int:turn_id>/calendar.ics")
def download_all(turn_id: int) -> Response:
    """Every event of one turn in a single .ics."""
    store = get_store()
    answer = (store.get_turn(turn_id).outcome or {}).get("answer") or {}
    ids = [f["url"].rsplit("/", 1)[1] for f in answer.get("files", []) if f["type"] == "ics"]
    if not ids:
        abort(404, description="This turn made no calendar events.")
    blobs = [_checked_path(store.get_file(file_id)).read_bytes() for file_id in ids]
    return Response(
        merge_ics(blobs),
        mimetype="text/calendar",
        headers={"Content-Disposition": f'attachment; filename="veil-turn-{turn_id}.ics"'},
    )


def merge_ics(blobs: Iterable[bytes]) -> bytes:
    """One calendar holding every event of `blobs`, each time zone defined once."""
    merged = icalendar.Calendar()
    merged.add("prodid", PRODID)
    merged.add("version", "2.0")
    zones: dict[str, icalendar.Component] = {}
    events: list[icalendar.Component] = []
    for blob in blobs:
        for component in icalendar.Calendar.from_ical(blob).subcomponents:
            if component.name == "VTIMEZONE":
                zones.setdefault(str(component.get("TZID")), component)
            else:
                events.append(component)
    for component in [*zones.values(), *events]:
        merged.add_component(component)
    return merged.to_ical()


def remove_files(records: Iterable[FileRecord]) -> None:
    """Delete generated files from disk when their session is forgotten."""
    root = _files_root()
    for record in records:
        path = Path(record.path).resolve()
        if path.is_relative_to(root):
            path.unlink(missing_ok=True)
