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
    tz = str(payload.get("tz") or local_zone_name())
    now = parse_now(payload.get("now"), parse_zone(tz))
    turn = Turn(
        request=str(payload.get("request") or ""),
        thread=str(payload.get("thread") or ""),
        now=now,
        tz=tz,
    )
    return jsonify(_assistant().ask(turn).to_dict())
