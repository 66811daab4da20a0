"""Deleting a chat removes the events it created, as its dialog says (issue 40): the calendar
store kept them, real names included, after "everything Veil remembers" was deleted."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlite_utils import Database

from memory.calendar import CalendarStore
from web import create_app

TZ = "Europe/Berlin"
NOW = "2026-11-21T09:30:00+01:00"


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "DATA_DIR": tmp_path / "veil",
            "NO_LLM": True,
            "WARM_UP": False,
            "CHECK_MODEL": False,
        }
    )


def created_turn(client: FlaskClient, request: str, **fields: Any) -> dict[str, Any]:
    started = client.post("/api/turns", json={"request": request, "tz": TZ, "now": NOW, **fields})
    turn = started.get_json()["turn"]
    for _ in range(240):
        payload = client.get(f"/api/turns/{turn}").get_json()
        if payload["status"] != "running":
            break
        time.sleep(0.25)
    assert payload["status"] == "done", payload
    assert any(e["status"] == "created" for e in payload["answer"]["events"]), payload["answer"]
    return payload


def events(app: Flask) -> int:
    db = Database(Path(app.config["DATA_DIR"]) / "veil.db")
    try:
        return CalendarStore(db).count()
    finally:
        db.close()


@pytest.mark.parametrize(("keep", "left"), [(None, 1), (False, 1), (True, 2)])
def test_deleting_a_chat_removes_its_events_unless_asked_to_keep_them(
    app: Flask, client: FlaskClient, keep: bool | None, left: int
) -> None:
    doomed = created_turn(client, "lunch with Anna Schmidt tomorrow at 1pm")
    created_turn(client, "dentist on monday at 9am")  # another chat's event stays
    assert events(app) == 2
    body = {} if keep is None else {"keep_events": keep}
    answer = client.post(f"/api/sessions/{doomed['session']}/delete", json=body)
    assert answer.status_code == 200
    assert answer.get_json()["events_removed"] == 2 - left
    assert events(app) == left


def test_keep_events_must_be_a_boolean(client: FlaskClient) -> None:
    chat = client.post("/api/sessions", json={"title": "t"}).get_json()["id"]
    answer = client.post(f"/api/sessions/{chat}/delete", json={"keep_events": "yes"})
    assert answer.status_code == 400
