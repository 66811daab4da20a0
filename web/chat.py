"""The chat blueprint: the page, turns (start, status, live trace, prompts) and one-shot ask."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from agent.assistant import (
    MAX_INPUT_CHARS,
    Assistant,
    Turn,
    local_zone_name,
    parse_now,
    parse_zone,
)
from agent.errors import InputError
from lang.text import clean_text
from web.db import get_store
from web.generation import GenerationQueue
from web.security import csrf_token
from web.turns import LiveTurn, TurnRunner, guarded, model_saw
from web.warmup import Warmup

chat = Blueprint("chat", __name__)

KEEP_ALIVE_S = 15.0
# A JSON body may hold MAX_INPUT_CHARS characters even when every one is a \uXXXX escape;
# anything bigger is refused before it is read, let alone stored.
MAX_JSON_BYTES = 2 * 1024 * 1024
MAX_EVENT_ID = 10**9


def _assistant() -> Assistant:
    return current_app.extensions["assistant"]


def _runner() -> TurnRunner:
    return current_app.extensions["turns"]


def json_body(*, default: Any = None) -> Any:
    """The request's JSON (None or `default` when it is not JSON); 413 past MAX_JSON_BYTES.

    The limit is set before the body is read, so an oversized post costs nothing and stores
    nothing; the app-wide limit stays at the upload size.
    """
    request.max_content_length = MAX_JSON_BYTES
    try:
        payload = request.get_json(silent=True)
    except RecursionError:  # "[[[[..." 100,000 deep: no request of ours nests past a few levels
        raise InputError("that JSON is nested too deeply; send a flat object") from None
    return default if payload is None else payload


def _text_fields(payload: Any, names: tuple[str, ...]) -> dict[str, str | None]:
    """The named fields of a JSON object, each text or absent, cleaned of control characters;
    anything else is a clear 400."""
    if not isinstance(payload, dict):
        raise InputError("send a JSON object with at least a 'request' field")
    fields = {key: payload.get(key) for key in names}
    wrong = [key for key, value in fields.items() if not isinstance(value, str | None)]
    if wrong:
        raise InputError(f"these fields must be text: {', '.join(wrong)}")
    return {key: clean_text(value) if value else value for key, value in fields.items()}


def _turn(fields: dict[str, str | None], session: str | None = None) -> Turn:
    request_text, thread = fields["request"] or "", fields["thread"] or ""
    if len(request_text) + len(thread) > MAX_INPUT_CHARS:
        abort(
            413,
            description=f"That request is too long ({len(request_text) + len(thread):,} "
            f"characters; the limit is {MAX_INPUT_CHARS:,}): paste the part of the thread "
            "that matters.",
        )
    tz = fields["tz"] or local_zone_name()
    turn = Turn(
        request=request_text,
        thread=thread,
        now=parse_now(fields["now"], parse_zone(tz)),
        tz=tz,
        session=session,
    )
    if not turn.request.strip() and not turn.thread.strip():
        raise InputError("nothing to do: give a request or paste a thread")
    return turn


def session_title(turn: Turn) -> str:
    """A new chat's name: the first non-blank line of the request, else of the thread."""
    for text in (turn.request, turn.thread):
        for line in text.splitlines():
            if line.strip():
                return line.strip()[:60].rstrip(" ,.;:")
    return ""


def _event_id() -> int:
    """The Last-Event-ID a reconnecting stream sends back: -1 when absent, else a seq number."""
    given = request.headers.get("Last-Event-ID", "").strip()
    if not given:
        return -1
    if not (given.isascii() and given.isdigit()) or int(given) > MAX_EVENT_ID:
        raise InputError("Last-Event-ID must be the number of an event this stream sent")
    return int(given)


@chat.get("/")
def index() -> str:
    """The chat page."""
    return render_template("index.html", model=_assistant().gateway.description, csrf=csrf_token())


@chat.get("/favicon.ico")
def favicon() -> Response:
    """The page links its SVG icon; tools that guess /favicon.ico get it too, not a 404."""
    return current_app.send_static_file("favicon.svg")


@chat.get("/healthz")
def health() -> Any:
    """Liveness for scripts and benchmarks; `ready` once the background load has ended and
    while the store works (503 with the store's problem when it does not)."""
    warmup: Warmup = current_app.extensions["warmup"]
    status = warmup.status()
    store = current_app.extensions["store"].current()
    if not store.ok:  # not ready, and why: the file and the fix (issue 40)
        status = {**status, "ready": False, "stage": "store", "error": store.problem}
    body = jsonify(ok=store.ok, model=_assistant().gateway.description, store=store.problem,
                   **status)  # fmt: skip
    return body if store.ok else (body, 503)


@chat.get("/api/csrf")
def csrf() -> Any:
    """The token scripts send back in the X-CSRF-Token header (same-origin readers only)."""
    return jsonify(token=csrf_token())


@chat.post("/api/ask")
def ask() -> Any:
    """One turn without a session: JSON in ({request, thread, now, tz}), the turn bundle out."""
    turn = _turn(_text_fields(json_body(), ("request", "thread", "tz", "now")))
    queue: GenerationQueue = current_app.extensions["generation"]
    warmup: Warmup = current_app.extensions["warmup"]
    if current_app.config["WARM_UP"]:
        warmup.wait()  # a turn sent while the parts load waits for them, never refused
    with queue.slot():
        return jsonify(guarded(lambda: _assistant().ask(turn)).to_dict())


@chat.post("/api/turns")
def start_turn() -> Any:
    """Start a turn in a session (a new one when none is given); 202 with the turn's id."""
    fields = _text_fields(json_body(), ("request", "thread", "tz", "now", "session"))
    turn = _turn(fields)  # every check before the first write: a refused turn stores nothing
    store = get_store()
    session_id = fields["session"]
    if session_id:
        store.get_session(session_id)
    else:
        session_id = store.create_session(session_title(turn)).id
    turn.session = session_id
    live = _runner().start(store, turn)
    return (
        jsonify(turn=live.id, session=session_id, events=f"/api/turns/{live.id}/events"),
        202,
    )


@chat.post("/api/turns/<int:turn_id>/rerun")
def rerun_turn(turn_id: int) -> Any:
    """Run an interrupted turn again, with its request and pasted thread, as a new turn."""
    fields = _text_fields(json_body(default={}), ("tz", "now"))
    store = get_store()
    stored = store.get_turn(turn_id)
    if stored.status != "interrupted":
        raise InputError("only an interrupted turn can be re-run; ask again instead")
    said = next(
        (m.content for m in store.messages(stored.session_id)
         if m.turn_id == turn_id and m.role == "user"),
        stored.request,
    )  # fmt: skip
    # The user message is the request, a blank line, then the thread (TurnRunner.start).
    thread = said[len(stored.request) :].strip("\n") if said.startswith(stored.request) else said
    turn = _turn({"request": stored.request, "thread": thread, **fields}, stored.session_id)
    live = _runner().start(store, turn)
    return (
        jsonify(turn=live.id, session=stored.session_id, events=f"/api/turns/{live.id}/events"),
        202,
    )


@chat.post("/api/turns/<int:turn_id>/stop")
def stop_turn(turn_id: int) -> Any:
    """Stop a running turn at its next stage, unless it has begun to save (then it finishes)."""
    get_store().get_turn(turn_id)  # 404 for a turn that never was
    live = _runner().get(turn_id)
    stopping = live.request_stop() if live is not None else False
    return jsonify(stopping=stopping)


@chat.get("/api/turns/<int:turn_id>")
def turn_status(turn_id: int) -> Any:
    """A turn's state: running, done (with the answer), error (with the message), interrupted."""
    return jsonify(turn_payload(turn_id))


def turn_payload(turn_id: int) -> dict[str, Any]:
    """The page's view of one turn, live or stored."""
    stored = get_store().get_turn(turn_id)
    live = _runner().get(turn_id)
    outcome = live.outcome if live and live.outcome else stored.outcome
    if live and live.outcome is None:
        status = "running"
    elif outcome is None:
        status = stored.status  # running in a dead process: "interrupted"
    elif outcome.get("stopped"):
        status = "stopped"
    else:
        status = "error" if "error" in outcome else "done"
    events = live.events if live else [step["detail"] for step in stored.steps]
    return {
        "id": turn_id,
        "session": stored.session_id,
        "request": stored.request,
        "status": status,
        "answer": (outcome or {}).get("answer"),
        "error": (outcome or {}).get("error"),
        "code": (outcome or {}).get("status"),
        "tz": (outcome or {}).get("tz"),
        "events": events,
    }


@chat.get("/api/turns/<int:turn_id>/events")
def turn_events(turn_id: int) -> Response:
    """Server-Sent Events: each trace event as it happens, then `end`; replays a past turn."""
    first = _event_id() + 1
    live = _runner().get(turn_id)
    if live is None:
        payload = turn_payload(turn_id)
        stream = _replay(payload["events"][first:], payload["status"])
    else:
        stream = _follow(live, first)
    return Response(
        stream,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _sse(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _replay(events: list[dict[str, Any]], status: str) -> Iterator[str]:
    for event in events:
        yield _sse("trace", event, event.get("seq"))
    yield _sse("end", {"status": status})


def _follow(live: LiveTurn, seen: int) -> Iterator[str]:
    yield "retry: 2000\n\n"
    while True:
        events, done = live.wait(seen, KEEP_ALIVE_S)
        for event in events:
            yield _sse("trace", event, event["seq"])
        seen += len(events)
        if done and not events:
            outcome = live.outcome or {}
            yield _sse("end", {"status": "error" if "error" in outcome else "done"})
            return
        if not events:
            yield ": still working\n\n"  # keeps proxies and the browser from timing out


@chat.get("/api/turns/<int:turn_id>/prompts")
def turn_prompts(turn_id: int) -> Any:
    """What the model saw in this turn: its redacted prompts from the audit log."""
    stored = get_store().get_turn(turn_id)
    span = (stored.outcome or {}).get("audit", [])
    return jsonify(
        model=_assistant().gateway.description,
        prompts=model_saw(_assistant(), stored.session_id, span),
    )
