"""The page's CalDAV routes: confirm one offered event into the user's own calendar, and the
connection's status. The page's button is its owner's; these routes are the contract
(docs/caldav.md). Connecting stays on the command line, where the password prompt is."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, jsonify, request

from agent.assistant import parse_zone
from agent.calendar_link import caldav_summary, catch_up, write_file
from web.db import get_store
from web.files import _checked_path

caldav = Blueprint("caldav", __name__)


@caldav.post("/api/caldav/confirm")
def confirm() -> Any:
    """Write the event of one of the turn's .ics files (by file id) to the CalDAV calendar."""
    body = request.get_json(silent=True)
    file_id = body.get("file_id") if isinstance(body, dict) else None
    if not isinstance(file_id, str) or not file_id:
        abort(400, description='Send {"file_id": "<id of an .ics file>"}.')
    record = get_store().get_file(file_id)
    if record.type != "ics":
        abort(400, description="Only an .ics file can be written to a calendar.")
    outcome = write_file(_checked_path(record), data_dir=Path(current_app.config["DATA_DIR"]))
    return jsonify(status=outcome.status, message=outcome.message)


@caldav.get("/api/caldav/status")
def status() -> Any:
    """Connected or not, objects cached, writes pending, conflicts."""
    return jsonify(caldav_summary(Path(current_app.config["DATA_DIR"])))


@caldav.post("/api/caldav/sync")
def sync() -> Any:
    """Send the writes still pending and refresh a stale copy (the page's "sync" button, or
    its call after a turn). Each line says what happened to one write."""
    body = request.get_json(silent=True)
    tz = body.get("tz") if isinstance(body, dict) else None
    zone = parse_zone(tz if isinstance(tz, str) else "UTC")  # the user's zone: all-day dates
    lines = catch_up(data_dir=Path(current_app.config["DATA_DIR"]), tz=str(zone),
                     now=datetime.now(zone))  # fmt: skip
    return jsonify(lines=lines, **caldav_summary(Path(current_app.config["DATA_DIR"])))
