"""The chat blueprint: the page, and the JSON endpoint every front-end shares."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, render_template, request

from agent.assistant import Assistant, Turn, local_zone_name, parse_now, parse_zone
from agent.errors import InputError

chat = Blueprint("chat", __name__)


def _assistant() -> Assistant:
    return current_app.extensions["assistant"]


@chat.get("/")
def index() -> str:
    """The chat page."""
    return render_template("index.html", model=_assistant().gateway.description)


@chat.get("/healthz")
def health() -> Any:
    """Liveness for scripts and benchmarks."""
    return jsonify(ok=True, model=_assistant().gateway.description)


@chat.post("/api/ask")
def ask() -> Any:
    """One turn: JSON in ({request, thread, now, tz}), the turn bundle out."""
    payload = request.get_json(silent=True)
    if not isinstance(payload, dict):
        raise InputError("send a JSON object with at least a 'request' field")
    fields = {key: payload.get(key) for key in ("request", "thread", "tz", "now")}
    wrong = [
        key for key, value in fields.items() if value is not None and not isinstance(value, str)
    ]
    if wrong:
        raise InputError(f"these fields must be text: {', '.join(wrong)}")
    tz = fields["tz"] or local_zone_name()
    turn = Turn(
        request=fields["request"] or "",
        thread=fields["thread"] or "",
        now=parse_now(fields["now"], parse_zone(tz)),
        tz=tz,
    )
    return jsonify(_assistant().ask(turn).to_dict())
