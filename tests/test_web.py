"""The Flask app, through its real test client: every route, the turn flow, the guards."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import icalendar
import pytest
from flask import Flask
from flask.testing import FlaskClient

from agent.audit import AuditLog
from tests.fakes import RecordingChatModel
from web import create_app
from web.files import merge_ics
from web.generation import BusyError, GenerationQueue
from web.turns import model_saw

NOW = "2026-11-21T10:00"
TZ = "Europe/Berlin"
CALENDAR = (
    b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    b"BEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20261101T000000Z\r\n"
    b"DTSTART;TZID=Europe/Berlin:20261122T130000\r\nDTEND;TZID=Europe/Berlin:20261122T140000\r\n"
    b"SUMMARY:Dentist\r\nEND:VEVENT\r\n"
    b"BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)


def run_turn(client: FlaskClient, request: str, **fields: str) -> dict[str, Any]:
    """Start a turn, drain its event stream, return the finished turn."""
    started = client.post("/api/turns", json={"request": request, "tz": TZ, "now": NOW, **fields})
    assert started.status_code == 202, started.get_json()
    body = started.get_json()
    stream = client.get(body["events"]).get_data(as_text=True)
    assert "event: end" in stream
    turn = client.get(f"/api/turns/{body['turn']}").get_json()
    turn["stream"] = stream
    return turn


# --- the page ---------------------------------------------------------------------------------


def test_page_is_served_offline_with_a_token(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert b"<title>Veil</title>" in page.data
    assert b"http://" not in page.data and b"https://" not in page.data  # nothing fetched
    assert re.search(rb'<meta name="csrf-token" content="[\w-]{20,}">', page.data)
    for static in ("veil.js", "veil.css"):
        text = client.get(f"/static/{static}").get_data(as_text=True)
        assert "http://" not in text and "https://" not in text


def test_every_control_has_a_label(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    labelled = set(re.findall(r'<label for="([\w-]+)"', page))
    controls = set(re.findall(r'<(?:input|textarea|select)[^>]*\sid="([\w-]+)"', page))
    assert controls and controls <= labelled


def test_responses_carry_security_headers(client: FlaskClient) -> None:
    headers = client.get("/").headers
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_health_says_when_the_background_load_has_ended(app: Flask, client: FlaskClient) -> None:
    assert app.extensions["warmup"].wait(120)
    health = client.get("/healthz").get_json()
    assert health["ok"] is True and health["model"] == "none"
    assert health["ready"] is True and health["stage"] == "ready" and health["error"] is None


# --- CSRF and errors --------------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, "forged-token"])
def test_post_without_the_right_token_is_refused(app: Flask, token: str | None) -> None:
    client = app.test_client()
    client.get("/")
    headers = {"X-CSRF-Token": token} if token else {}
    for path in ("/api/ask", "/api/turns", "/api/sessions", "/api/upload"):
        response = client.post(path, json={"request": "x"}, headers=headers)
        assert response.status_code == 400
        assert "security token" in response.get_json()["error"]


def test_token_in_a_form_field_is_accepted(app: Flask) -> None:
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    response = client.post("/api/upload", data={"csrf_token": token})
    assert response.status_code == 400
    assert "choose a file" in response.get_json()["error"]


def test_oversized_request_is_refused_clearly(client: FlaskClient) -> None:
    # A JSON turn is held to 2 MB (issue 17); only uploads may reach the 20 MB limit.
    response = client.post(
        "/api/ask", data=b"x" * (21 * 1024 * 1024), content_type="application/json"
    )
    assert response.status_code == 413
    assert response.get_json() == {"error": "That request is too large: the limit is 2 MB."}


def test_oversized_file_is_refused_clearly(client: FlaskClient) -> None:
    response = upload(client, b"\x89PNG\r\n\x1a\n" + b"0" * (21 * 1024 * 1024), "big.png")
    assert response.status_code == 413
    assert response.get_json() == {"error": "That upload is too large: the limit is 20 MB."}


def test_browser_navigation_gets_an_html_error_page(client: FlaskClient) -> None:
    response = client.get("/files/nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert b"Back to the chat" in response.data


def test_unexpected_errors_show_no_stack_trace(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("secret internals at /home/user/.veil")

    monkeypatch.setattr(app.extensions["assistant"], "ask", explode)
    app.testing = False
    response = client.post("/api/ask", json={"request": "lunch at 1", "tz": "UTC"})
    assert response.status_code == 500
    assert response.get_json()["error"] == "Something went wrong inside Veil; nothing was changed."
    turn = run_turn(client, "lunch tomorrow at 1pm")
    assert turn["status"] == "error" and "internals" not in json.dumps(turn)


# --- one-shot ask ------------------------------------------------------------------------------


def test_ask_returns_a_bundle(client: FlaskClient) -> None:
    response = client.post(
        "/api/ask", json={"request": "lunch with karthik tomorrow at 1", "tz": TZ, "now": NOW}
    )
    assert response.status_code == 200
    keys = ["reply", "question", "events", "files", "plan", "steps", "planner"]
    assert list(response.get_json()) == keys


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"request": "x", "tz": "Nowhere/Land"}, "unknown time zone"),
        ({"request": "x", "now": "yesterday-ish", "tz": "UTC"}, "ISO 8601"),
        ({"request": "", "tz": "UTC"}, "nothing to do"),
        ({"request": "x", "now": "0001-01-01T00:00+14:00", "tz": "UTC"}, "between 1900"),
        ({"request": "x", "now": 123, "tz": "UTC"}, "must be text: now"),
    ],
)
def test_bad_input_is_a_clear_400(client: FlaskClient, payload: dict, message: str) -> None:
    for path in ("/api/ask", "/api/turns"):
        response = client.post(path, json=payload)
        assert response.status_code == 400
        assert message in response.get_json()["error"]


def test_not_json_is_a_clear_400(client: FlaskClient) -> None:
    response = client.post("/api/ask", data="request=hi")
    assert response.status_code == 400
    assert "JSON" in response.get_json()["error"]


def test_secret_key_is_per_install_and_stable(tmp_path: Path) -> None:
    config = {"TESTING": True, "DATA_DIR": str(tmp_path / "d"), "NO_LLM": True}
    first, second = create_app(config), create_app(config)
    other = create_app({**config, "DATA_DIR": str(tmp_path / "e")})
    assert first.secret_key == second.secret_key != other.secret_key
    assert len(str(first.secret_key)) >= 32


# --- turns ---------------------------------------------------------------------------------------


def test_a_turn_streams_its_trace_and_ends_with_the_answer(client: FlaskClient) -> None:
    turn = run_turn(
        client,
        "lunch with Karthik Rao thursday next week at 1pm at Blue Bottle, draft a reply",
        thread="Karthik Rao: lunch next week?",
    )
    stages = [json.loads(line[6:])["stage"] for line in turn["stream"].splitlines()
              if line.startswith("data: ") and '"seq"' in line]  # fmt: skip
    assert stages[0] == "queued" and stages[-1] == "done"
    assert {"plan", "step", "redact"} <= set(stages)
    assert turn["status"] == "done" and [e["seq"] for e in turn["events"]] == list(
        range(len(turn["events"]))
    )
    answer = turn["answer"]
    [event] = answer["events"]
    assert event["status"] == "created" and event["when"] == "Thu 26 Nov 2026, 13:00–14:00"
    assert event["attendees"] == ["Karthik Rao"] and event["reason"]
    types = [f["type"] for f in answer["files"]]
    assert types == ["ics", "eml", "mailto"]
    assert answer["files"][2]["url"].startswith("mailto:")
    text = json.dumps(turn)
    assert '"path"' not in text and "/files/20" not in text  # server paths stay on the server
    assert "<PERSON_" not in text


def test_ics_and_eml_downloads_by_id(client: FlaskClient) -> None:
    answer = run_turn(client, "lunch with Karthik Rao thursday next week at 1pm, draft a reply")[
        "answer"
    ]
    ics_url, eml_url = (f["url"] for f in answer["files"][:2])
    ics = client.get(ics_url)
    assert ics.mimetype == "text/calendar" and "attachment" in ics.headers["Content-Disposition"]
    [event] = icalendar.Calendar.from_ical(ics.data).walk("VEVENT")
    assert str(event["SUMMARY"]).startswith("Lunch with Karthik Rao")
    assert event["DTSTART"].params["TZID"] == TZ and event["DTSTART"].dt.hour == 13
    eml = client.get(eml_url)
    assert eml.mimetype == "message/rfc822" and b"Karthik Rao" in eml.data


@pytest.mark.parametrize("file_id", ["nope", "..%2F..%2Fsecret_key", "%2Fetc%2Fpasswd"])
def test_downloads_only_by_known_id(client: FlaskClient, file_id: str) -> None:
    assert client.get(f"/files/{file_id}").status_code == 404


def test_a_registered_path_outside_the_files_folder_is_not_served(
    app: Flask, client: FlaskClient
) -> None:
    from web.db import open_store

    store = open_store(app.config["DATA_DIR"])
    session = store.create_session("x")
    secret = Path(app.config["DATA_DIR"]) / "secret_key"
    record = store.register_file(session.id, str(secret), "ics")
    store.db.close()
    assert client.get(f"/files/{record.id}").status_code == 404


def test_all_events_of_a_turn_in_one_calendar(client: FlaskClient) -> None:
    turn = run_turn(client, "lunch with Anna tomorrow at 1pm")
    response = client.get(f"/api/turns/{turn['id']}/calendar.ics")
    assert response.status_code == 200
    assert len(icalendar.Calendar.from_ical(response.data).walk("VEVENT")) == 1
    vague = run_turn(client, "dinner with Anna sometime friday")
    assert client.get(f"/api/turns/{vague['id']}/calendar.ics").status_code == 404


def test_merge_ics_defines_each_zone_once() -> None:
    def one(uid: str, hour: int) -> bytes:
        calendar = icalendar.Calendar()
        calendar.add("prodid", "-//t//EN")
        calendar.add("version", "2.0")
        zone = icalendar.Timezone()
        zone.add("tzid", TZ)
        calendar.add_component(zone)
        event = icalendar.Event()
        event.add("uid", uid)
        event.add("summary", uid)
        event.add("dtstart", icalendar.vDatetime.from_ical(f"20261126T{hour:02}0000"))
        calendar.add_component(event)
        return calendar.to_ical()

    merged = icalendar.Calendar.from_ical(merge_ics([one("a", 13), one("b", 15)]))
    assert [str(e["UID"]) for e in merged.walk("VEVENT")] == ["a", "b"]
    assert len(merged.walk("VTIMEZONE")) == 1


def test_vague_time_offers_slots_that_answer_the_question(client: FlaskClient) -> None:
    turn = run_turn(client, "dinner with Karthik Rao friday")
    answer = turn["answer"]
    assert answer["question"] and answer["events"][0]["status"] == "proposed"
    [slot] = answer["slots"][:1]
    assert slot["label"] == answer["events"][0]["when"]
    chosen = run_turn(client, slot["answer"], session=turn["session"])
    [event] = chosen["answer"]["events"]
    assert event["status"] == "created" and event["when"] == slot["label"]


def test_turns_share_the_session_and_its_name_map(app: Flask, client: FlaskClient) -> None:
    from web.db import open_store

    first = run_turn(client, "lunch with Karthik Rao tomorrow at 1pm")
    store = open_store(app.config["DATA_DIR"])
    placeholders = store.load_map(first["session"]).to_dict()["entries"]
    second = run_turn(client, "and coffee with Karthik Rao monday at 9am", session=first["session"])
    assert second["session"] == first["session"]
    again = store.load_map(first["session"]).to_dict()["entries"]
    karthik = [e["placeholder"] for e in again if e["value"] == "Karthik Rao"]
    assert karthik == [e["placeholder"] for e in placeholders if e["value"] == "Karthik Rao"]
    roles = [m.role for m in store.messages(first["session"])]
    assert roles == ["user", "assistant", "user", "assistant"]
    store.db.close()


def test_unknown_session_or_turn_is_a_404(client: FlaskClient) -> None:
    response = client.post("/api/turns", json={"request": "x at 1pm", "session": "nope"})
    assert response.status_code == 404
    assert client.get("/api/turns/999").status_code == 404
    assert client.get("/api/sessions/nope").status_code == 404


def test_a_finished_turn_replays_its_trace(app: Flask, client: FlaskClient) -> None:
    turn = run_turn(client, "lunch with Anna tomorrow at 1pm")
    fresh = create_app({"TESTING": True, "DATA_DIR": app.config["DATA_DIR"], "NO_LLM": True})
    replay = fresh.test_client().get(f"/api/turns/{turn['id']}/events").get_data(as_text=True)
    assert replay.count("event: trace") == len(turn["events"]) and "event: end" in replay
    assert '"status": "done"' in replay


# --- what the model saw -----------------------------------------------------------------------


def test_the_model_saw_only_placeholders(app: Flask, client: FlaskClient) -> None:
    gateway = app.extensions["assistant"].gateway
    gateway.model = RecordingChatModel()
    turn = run_turn(client, "lunch with Karthik Rao tomorrow at 1pm at 12 Baker Street")
    saw = client.get(f"/api/turns/{turn['id']}/prompts").get_json()
    assert saw["model"] == "fake:recording"
    assert saw["prompts"] and all(p["purpose"] for p in saw["prompts"])
    text = json.dumps(saw["prompts"])
    assert "Karthik" not in text and "<PERSON_1>" in text


def test_model_saw_keeps_to_the_turn_and_session(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    for index, session in enumerate(["a", "b", "a", "a"]):
        log.path.open("a").write(
            json.dumps({"session": session, "purpose": f"p{index}", "prompt": f"x{index}"}) + "\n"
        )

    class Holder:
        class gateway:  # noqa: N801 - the attribute path the function reads
            audit = log

    saw = model_saw(Holder(), "a", [1, 3])  # type: ignore[arg-type]
    assert [p["prompt"] for p in saw] == ["x2", "x3"]


def test_no_model_call_means_an_empty_panel(client: FlaskClient) -> None:
    turn = run_turn(client, "lunch tomorrow at 1pm")
    assert client.get(f"/api/turns/{turn['id']}/prompts").get_json() == {
        "model": "none",
        "prompts": [],
    }


# --- sessions ---------------------------------------------------------------------------------


def test_sessions_create_list_rename_forget_delete(app: Flask, client: FlaskClient) -> None:
    created = client.post("/api/sessions", json={"title": "Planning"})
    assert created.status_code == 201
    session = created.get_json()["id"]
    turn = run_turn(client, "lunch with Anna tomorrow at 1pm", session=session)
    listed = client.get("/api/sessions").get_json()["sessions"]
    assert [s["title"] for s in listed] == ["Planning"]
    opened = client.get(f"/api/sessions/{session}").get_json()
    assert [t["id"] for t in opened["turns"]] == [turn["id"]]
    assert opened["turns"][0]["said"] == "lunch with Anna tomorrow at 1pm"

    renamed = client.post(f"/api/sessions/{session}/rename", json={"title": "Lunches"})
    assert renamed.get_json()["title"] == "Lunches"
    assert client.post(f"/api/sessions/{session}/rename", json={"title": " "}).status_code == 400

    files = list((Path(app.config["DATA_DIR"]) / "files").rglob("*.ics"))
    assert files
    assert client.post(f"/api/sessions/{session}/forget").get_json() == {"ok": True}
    assert client.get(f"/api/sessions/{session}").get_json()["turns"] == []
    assert not any(f.exists() for f in files)  # forgetting removes the generated files too

    # deleting takes the chat's created lunch off the calendar (issue 40); forgetting kept it
    deleted = client.post(f"/api/sessions/{session}/delete").get_json()
    assert deleted == {"ok": True, "events_removed": 1}
    assert client.get("/api/sessions").get_json()["sessions"] == []


def test_a_turn_without_a_session_starts_one_named_after_it(client: FlaskClient) -> None:
    turn = run_turn(client, "lunch with Anna tomorrow at 1pm")
    [listed] = client.get("/api/sessions").get_json()["sessions"]
    assert listed["id"] == turn["session"] and listed["title"].startswith("lunch with Anna")


# --- uploads ----------------------------------------------------------------------------------


def upload(client: FlaskClient, data: bytes, name: str) -> Any:
    from io import BytesIO

    return client.post(
        "/api/upload",
        data={"file": (BytesIO(data), name), "tz": TZ},
        content_type="multipart/form-data",
    )


def test_ics_upload_imports_with_count_and_refused_list(client: FlaskClient) -> None:
    response = upload(client, CALENDAR, "work.png")  # the name lies; the bytes decide
    body = response.get_json()
    assert response.status_code == 200 and body["kind"] == "ics"
    assert body["imported"] == 1 and body["message"].startswith("Imported 1 event(s) from work.png")
    assert [r["reason"] for r in body["refused"]] == ["a VTODO is not an event"]
    turn = run_turn(client, "lunch with Anna on sunday at 1pm", now="2026-11-21T10:00")
    assert turn["answer"]["events"][0]["conflicts"][0]["title"] == "Dentist"


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"%PDF-1.7 not a screenshot", "shot.png"),
        (b"GIF89a......", "anim.gif"),
        (b"just some text", "notes.ics"),
    ],
)
def test_other_files_are_refused_by_content(client: FlaskClient, data: bytes, name: str) -> None:
    response = upload(client, data, name)
    assert response.status_code == 415
    assert "checked by its content" in response.get_json()["error"]


def test_a_broken_calendar_is_a_clear_422(client: FlaskClient) -> None:
    response = upload(client, b"BEGIN:VCALENDAR\r\nthis is not ics", "broken.ics")
    assert response.status_code == 422 and response.get_json()["error"]


def test_a_fake_png_is_a_clear_422(client: FlaskClient) -> None:
    response = upload(client, b"\x89PNG\r\n\x1a\n" + b"0" * 100, "fake.png")
    assert response.status_code == 422
    assert "not a readable PNG" in response.get_json()["error"]


def test_screenshot_upload_returns_text_to_correct(client: FlaskClient) -> None:
    from io import BytesIO

    from bench.ocr import FONTS, render_chat

    image = render_chat(
        [("them", "Lunch on Thursday at 1pm?"), ("me", "Sure, see you then")],
        "dark",
        FONTS["dejavu-sans"],
    )
    buffer = BytesIO()
    image.save(buffer, format="WEBP", lossless=True)
    body = upload(client, buffer.getvalue(), "shot.webp").get_json()
    assert body["kind"] == "screenshot" and body["engine"] == "rapidocr"
    assert body["text"] == "Them: Lunch on Thursday at 1pm?\nMe: Sure, see you then"
    assert [line["speaker"] for line in body["lines"]] == ["them", "me"]


# --- one generation at a time ----------------------------------------------------------------


def test_queue_runs_in_order_and_reports_positions() -> None:
    queue = GenerationQueue(wait_limit=5)
    order: list[str] = []
    heard: list[int] = []
    release = threading.Event()

    def first() -> None:
        with queue.slot():
            order.append("first")
            release.wait(5)

    def second() -> None:
        with queue.slot(heard.append):
            order.append("second")

    one = threading.Thread(target=first)
    one.start()
    while not order:
        pass
    two = threading.Thread(target=second)
    two.start()
    while not heard:
        pass
    release.set()
    one.join()
    two.join()
    assert order == ["first", "second"] and heard == [1]


def test_queue_gives_up_after_the_wait_limit() -> None:
    queue = GenerationQueue(wait_limit=0.1)
    with queue.slot(), pytest.raises(BusyError, match="busy"), queue.slot():
        pass


def test_a_request_that_waits_too_long_gets_503(app: Flask, client: FlaskClient) -> None:
    app.extensions["generation"].wait_limit = 0.1
    with app.extensions["generation"].slot():
        response = client.post("/api/ask", json={"request": "lunch at 1pm", "tz": "UTC"})
        turn = run_turn(client, "lunch tomorrow at 1pm")
    assert response.status_code == 503 and "busy" in response.get_json()["error"]
    assert turn["status"] == "error" and turn["code"] == 503
    assert any(e["stage"] == "queue" and e["position"] == 1 for e in turn["events"])


def test_an_interrupted_turn_can_be_rerun_with_its_thread(app: Flask, client: FlaskClient) -> None:
    from web.db import open_store

    store = open_store(app.config["DATA_DIR"])
    session = store.create_session("lunch")
    turn_id = store.start_turn(session.id, "add this")
    store.append_message(session.id, "user", "add this\n\nAnna: lunch tomorrow at 1pm?", turn_id)
    store.db.execute("UPDATE turns SET status = 'interrupted' WHERE id = ?", [turn_id])
    store.db.commit()
    assert client.get(f"/api/turns/{turn_id}").get_json()["status"] == "interrupted"
    started = client.post(f"/api/turns/{turn_id}/rerun", json={"tz": TZ})
    assert started.status_code == 202, started.get_json()
    body = started.get_json()
    assert body["session"] == session.id and body["turn"] != turn_id
    assert "event: end" in client.get(body["events"]).get_data(as_text=True)
    rerun = client.get(f"/api/turns/{body['turn']}").get_json()
    assert rerun["status"] == "done"
    [event] = [e for e in rerun["answer"]["events"] if e["status"] == "created"]
    assert "Anna" in event["title"]
    said = [m.content for m in store.messages(session.id) if m.turn_id == body["turn"]]
    assert said[0] == "add this\n\nAnna: lunch tomorrow at 1pm?"
    # a finished turn is not re-run: ask again instead
    again = client.post(f"/api/turns/{body['turn']}/rerun", json={"tz": TZ})
    assert again.status_code == 400 and "interrupted" in again.get_json()["error"]
    store.db.close()
