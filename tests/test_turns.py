"""A real `run.py serve` killed with SIGKILL mid-turn loses nothing it had written.

The server runs the embedded model so a turn lasts long enough to be killed inside it: the
kill comes when the trace says the model is planning. A fresh app on the same data folder
then finds every earlier message, file and map entry, and shows the killed turn as
interrupted, ready to re-run.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import urllib.request
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from bench.serve import _free_port
from bench.web import _serve
from memory.store import MemoryStore
from web import create_app

TZ = "Europe/Berlin"


class _Client:
    """The page's side of the conversation: cookies, the CSRF token, JSON and SSE."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.token = json.load(self.opener.open(base + "/api/csrf"))["token"]

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.token},
        )
        return json.load(self.opener.open(request, timeout=30))

    def events(self, path: str) -> Any:
        """Each trace event of a turn's stream as it arrives."""
        with self.opener.open(self.base + path, timeout=300) as stream:
            for raw in stream:
                line = raw.decode().strip()
                if line.startswith("event: end"):
                    return
                if line.startswith("data: "):
                    yield json.loads(line[6:])


def test_sigkill_during_a_model_turn_loses_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = _free_port()
    server = _serve(port, str(data_dir))
    try:
        client = _Client(f"http://127.0.0.1:{port}")
        first = client.post(
            "/api/turns",
            {
                "request": "lunch with Karthik Rao thursday next week at 1pm, draft a reply",
                "tz": TZ,
            },
        )
        list(client.events(first["events"]))
        second = client.post(
            "/api/turns",
            {
                "request": "and dinner with Priya Raman friday",
                "tz": TZ,
                "session": first["session"],
            },
        )
        seen = []
        for event in client.events(second["events"]):
            seen.append(event["stage"])
            if event.get("stage") == "plan" and event.get("status") == "running":
                os.kill(server.pid, signal.SIGKILL)  # the model is planning right now
                break
    finally:
        server.kill()
        server.wait(30)
    assert server.returncode == -signal.SIGKILL

    store = MemoryStore(Database(data_dir / "veil.db"))
    session = first["session"]
    said = [(m.role, m.content) for m in store.messages(session)]
    assert said[0] == ("user", "lunch with Karthik Rao thursday next week at 1pm, draft a reply")
    assert said[1][0] == "assistant" and "Karthik Rao" in said[1][1]
    assert said[2:] == [("user", "and dinner with Priya Raman friday")]
    files = store.files(session)
    assert {f.type for f in files} >= {"ics", "eml"}
    assert all(Path(f.path).is_file() for f in files)
    values = {value for _, value in store.load_map(session).items()}
    assert "Karthik Rao" in values
    assert store.get_turn(first["turn"]).status == "done"
    killed = store.get_turn(second["turn"])
    assert killed.status == "interrupted"
    # each trace event is stored right after it is streamed: at most the last one is missing
    stored = [s["kind"] for s in killed.steps]
    assert stored == seen[: len(stored)] and len(stored) >= len(seen) - 1
    store.db.close()

    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "NO_LLM": True})
    page = app.test_client()
    page.environ_base["HTTP_X_CSRF_TOKEN"] = page.get("/api/csrf").get_json()["token"]
    assert page.get(f"/api/turns/{second['turn']}").get_json()["status"] == "interrupted"
    rerun = page.post(f"/api/turns/{second['turn']}/rerun", json={"tz": TZ}).get_json()
    assert "event: end" in page.get(rerun["events"]).get_data(as_text=True)
    assert page.get(f"/api/turns/{rerun['turn']}").get_json()["status"] == "done"
