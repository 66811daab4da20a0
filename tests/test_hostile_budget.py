"""Issue 40 at the server: the .ics bomb and long threads get a clear answer in bounded time
while /healthz keeps answering; long threads are cut to their recent window, and the reply
says so."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from agent.assistant import MAX_LINE_CHARS, MAX_THREAD_LINES, recent_window
from tools import worker
from web import create_app

DATA = Path(__file__).parent / "data"
TZ = "Europe/Berlin"


def test_a_short_thread_is_read_whole() -> None:
    thread = "Sam: lunch tomorrow at 1pm?\nMe: sure"
    assert recent_window(thread) == (thread, "")


def test_one_long_line_keeps_its_end() -> None:
    line = "Sam: " + "blah " * 40_000 + "so lunch tomorrow at 1pm?"
    window, note = recent_window(line)
    assert len(window) <= MAX_LINE_CHARS and window.endswith("lunch tomorrow at 1pm?")
    assert "1 line," in note and "most recent part" in note


def test_many_lines_keep_the_last_ones() -> None:
    thread = "\n".join(f"Sam: message {i}" for i in range(10_000))
    window, note = recent_window(thread)
    assert window.splitlines()[-1] == "Sam: message 9999"
    assert len(window.splitlines()) == MAX_THREAD_LINES
    assert "10,000 lines" in note


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    built = create_app(
        {
            "TESTING": True,
            "DATA_DIR": tmp_path_factory.mktemp("veil"),
            "NO_LLM": True,
            "WARM_UP": False,
            "CHECK_MODEL": False,
            "ISOLATE_PARSERS": True,
            "PARSER_WORKERS": 1,
        }
    )
    pool = built.extensions["parsers"]
    pool.start()
    yield built
    worker.isolate(None)
    pool.close()
    built.extensions["ocr"].pool.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client


def upload(client: FlaskClient, data: bytes, name: str) -> tuple[int, dict, float]:
    started = time.monotonic()
    response = client.post(
        "/api/upload",
        data={"file": (io.BytesIO(data), name), "tz": TZ, "now": "2026-03-01T12:00:00+01:00"},
        content_type="multipart/form-data",
    )
    return response.status_code, response.get_json(), time.monotonic() - started


def test_the_vtimezone_bomb_is_a_clear_answer_while_healthz_answers(
    app: Flask, client: FlaskClient
) -> None:
    data = (DATA / "hostile" / "vtimezone-every-second.ics").read_bytes()
    waits: list[float] = []
    done = threading.Event()

    def probe() -> None:
        prober = app.test_client()
        while not done.is_set():
            started = time.monotonic()
            assert prober.get("/healthz").status_code == 200
            waits.append(time.monotonic() - started)
            time.sleep(0.05)

    thread = threading.Thread(target=probe)
    thread.start()
    try:
        status, body, seconds = upload(client, data, "bomb.ics")
    finally:
        done.set()
        thread.join()
    assert status == 422 and "changes offset every second" in body["error"]
    assert seconds < 5.0
    assert waits and max(waits) < 1.0


def test_a_utf16_calendar_is_imported(client: FlaskClient) -> None:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:u16\r\n"
        "DTSTART:20260305T100000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    status, body, _ = upload(client, text.encode("utf-16"), "outlook.ics")
    assert status == 200 and body["imported"] == 1


@pytest.mark.parametrize(
    "body",
    ["[" * 100_000 + "]" * 100_000, '{"request": ' + "[" * 100_000, '{"a":' * 100_000],
    ids=["arrays", "unclosed", "objects"],
)
@pytest.mark.parametrize("path", ["/api/turns", "/api/ask", "/api/sessions"])
def test_json_nested_100000_deep_is_a_clear_400(client: FlaskClient, body: str, path: str) -> None:
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.get_json()["error"]


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (width, height), 1).save(out, format="PNG")
    return out.getvalue()


def test_a_screenshot_is_read_in_the_ocr_worker(app: Flask, client: FlaskClient) -> None:
    status, body, _ = upload(client, _png(1080, 1200), "shot.png")
    assert status == 200 and body["kind"] == "screenshot"
    assert app.extensions["ocr"].pool is not None


def test_an_ocr_read_past_its_limit_is_a_clear_answer(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tools.ocr.OCR_SECONDS", 0.0)
    status, body, _ = upload(client, _png(1080, 1200), "shot.png")
    assert status == 422 and "took longer than" in body["error"] and "crop" in body["error"]
