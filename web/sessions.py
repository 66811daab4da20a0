"""The sessions sidebar: list, create, open, rename, forget (keep the chat, drop its memory),
delete."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from agent.errors import InputError
from lang.text import clean_text
from memory.calendar import CalendarStore
from memory.store import Session
from web.chat import json_body, turn_payload
from web.db import get_store
from web.files import remove_files

sessions = Blueprint("sessions", __name__, url_prefix="/api/sessions")


def _session(session: Session) -> dict[str, str]:
    title = session.title or "Untitled chat"
    return {"id": session.id, "title": title, "updated": session.updated_at}


def _title() -> str:
    payload = json_body(default={})
    title = payload.get("title", "") if isinstance(payload, dict) else ""
    if not isinstance(title, str) or len(title) > 200:
        raise InputError("a title is text of at most 200 characters")
    return clean_text(title).strip()


@sessions.get("")
def list_sessions() -> Any:
    """Every session, most recent first."""
    return jsonify(sessions=[_session(s) for s in get_store().list_sessions()])


@sessions.post("")
def create_session() -> Any:
    """A new, empty chat."""
    return jsonify(_session(get_store().create_session(_title()))), 201


@sessions.get("/<session_id>")
def open_session(session_id: str) -> Any:
    """A session with its turns (request, trace, answer) in order."""
    store = get_store()
    session = store.get_session(session_id)
    shown = {m.turn_id: m.content for m in store.messages(session_id) if m.role == "user"}
    turns = []
    for turn in store.turns(session_id):
        payload = turn_payload(turn.id)
        payload["said"] = shown.get(turn.id, turn.request)
        turns.append(payload)
    return jsonify(session=_session(session), turns=turns)


@sessions.post("/<session_id>/rename")
def rename_session(session_id: str) -> Any:
    """Give the chat a new title."""
    title = _title()
    if not title:
        raise InputError("give the chat a title")
    get_store().rename_session(session_id, title)
    return jsonify(_session(get_store().get_session(session_id)))


@sessions.post("/<session_id>/forget")
def forget_session(session_id: str) -> Any:
    """Keep the chat in the list but drop its messages, turns, files and name map."""
    store = get_store()
    doomed = store.files(session_id)
    store.forget_session(session_id)
    remove_files(doomed)
    return jsonify(ok=True)


@sessions.post("/<session_id>/delete")
def delete_session(session_id: str) -> Any:
    """Forget the chat, remove it from the list and, as the dialog says ("everything Veil
    remembers from it"), take the events it created off the calendar (issue 40); send
    {"keep_events": true} to keep them."""
    payload = json_body(default={})
    keep = payload.get("keep_events", False) if isinstance(payload, dict) else False
    if not isinstance(keep, bool):
        raise InputError("keep_events is true or false")
    store = get_store()
    doomed = store.files(session_id)
    store.delete_session(session_id)
    removed = 0 if keep else CalendarStore(store.db).remove_created_in(session_id)
    remove_files(doomed)
    return jsonify(ok=True, events_removed=removed)
