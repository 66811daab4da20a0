"""Serve first, load second: the page answers before the heavy parts load, turns wait for them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from agent.assistant import Assistant
from agent.errors import ModelError
from web import create_app

ROOT = Path(__file__).resolve().parents[1]
NOW, TZ = "2026-11-24T10:00:00", "Europe/Berlin"


def _client(app: Flask) -> FlaskClient:
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    return client


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The warm-up blocks until the test releases it, as a slow model load would."""
    release = threading.Event()
    real = Assistant.warm_up

    def slow(self: Assistant, notify: Any = None, *, model: bool = True) -> None:
        if notify:
            notify({"stage": "model"})
        assert release.wait(60), "the test never released the warm-up"
        real(self, notify, model=model)

    monkeypatch.setattr(Assistant, "warm_up", slow)
    return release


def test_the_page_and_health_answer_while_loading(tmp_path: Path, held: threading.Event) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True})
    client = _client(app)
    assert client.get("/").status_code == 200
    health = client.get("/healthz").get_json()
    assert health["ready"] is False and health["stage"] == "model"
    held.set()
    assert app.extensions["warmup"].wait(120)
    assert client.get("/healthz").get_json()["ready"] is True


def test_a_turn_sent_while_loading_waits_and_then_runs(
    tmp_path: Path, held: threading.Event
) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True})
    client = _client(app)
    started = client.post(
        "/api/turns", json={"request": "lunch with Ana Silva friday at 1", "tz": TZ, "now": NOW}
    )
    assert started.status_code == 202  # accepted at once, never refused
    turn_id = started.get_json()["turn"]
    live = app.extensions["turns"].get(turn_id)
    deadline = time.monotonic() + 30
    while not any(e.get("stage") == "warming" for e in live.events):
        assert time.monotonic() < deadline, live.events
        time.sleep(0.02)
    assert live.outcome is None  # still waiting for the load
    held.set()
    client.get(started.get_json()["events"]).get_data(as_text=True)  # drain to the end
    done = client.get(f"/api/turns/{turn_id}").get_json()
    assert done["status"] == "done", done
    assert [e["status"] for e in done["answer"]["events"]] == ["created"]


def test_a_part_that_fails_to_load_is_named_on_health(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Assistant, notify: Any = None, *, model: bool = True) -> None:
        raise ModelError("llama.cpp could not load /models/x.gguf: pass another --model")

    monkeypatch.setattr(Assistant, "warm_up", broken)
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True})
    assert app.extensions["warmup"].wait(30)
    health = _client(app).get("/healthz").get_json()
    assert health["ready"] is True and health["stage"] == "failed"
    assert "could not load /models/x.gguf" in health["error"]


def test_warm_up_off_loads_nothing_until_a_turn(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True, "WARM_UP": False})
    health = _client(app).get("/healthz").get_json()
    assert health["ready"] is False and health["stage"] == "starting"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_its_page_before_the_model_is_loaded(tmp_path: Path) -> None:
    """The real program with the embedded model: the page first, the model later."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), "serve", "--port", str(port),
         "--data-dir", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        page_health = None
        while page_health is None:
            assert time.monotonic() < deadline, "no page in 60 s"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as h:
                    page_health = json.load(h)
            except OSError:
                time.sleep(0.05)
        # The first answer comes while the model (or more) is still loading.
        assert page_health["ready"] is False, page_health
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as h:
                health = json.load(h)
            if health["ready"]:
                break
            assert time.monotonic() < deadline + 120, health
            time.sleep(0.1)
        assert health["error"] is None and health["stage"] == "ready"
        # The warm-up read the fixed prompts: their states are on disk for the first turn.
        assert list((tmp_path / "model-cache").rglob("*.state"))
        prompts = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
        assert {p["purpose"] for p in prompts} == {"prime"}
    finally:
        process.terminate()
        process.wait(timeout=30)
