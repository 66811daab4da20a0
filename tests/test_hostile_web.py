"""The page under attack (issue 17): one row per probe of the hostile test.

Every row runs against the real app (rules only) holding earlier data, and asserts three
things: the clear error, that the server still serves, and that the earlier data is intact.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from agent.audit import AuditLog, AuditRecord
from web import create_app
from web.db import open_store

TZ = "Europe/Berlin"
NOW = "2026-11-21T10:00"
EVIL = "evil.example.com"
HUGE_ID = 2**70  # past SQLite's 64-bit rowids
FIRST_REQUEST = "lunch with Anna Berg tomorrow at 1pm at Blue Bottle"


def browser(app: Flask) -> FlaskClient:
    """A client that loaded the page: it holds a session cookie and echoes its CSRF token."""
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    return client


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return browser(app)


def stream(client: FlaskClient, url: str, limit: float = 30) -> str:
    """A turn's whole event stream; a stream that never ends fails the test instead of hanging
    it (a turn left `running` used to say "still working" forever)."""
    box: list[str] = []
    reader = threading.Thread(
        target=lambda: box.append(client.get(url).get_data(as_text=True)), daemon=True
    )
    reader.start()
    reader.join(limit)
    assert box, f"the stream {url} did not end in {limit:.0f} s"
    return box[0]


def finish(client: FlaskClient, started: TestResponse) -> dict[str, Any]:
    """Drain a started turn's stream; the turn as the page then sees it."""
    assert started.status_code == 202, started.get_json()
    body = started.get_json()
    assert "event: end" in stream(client, body["events"])
    return client.get(f"/api/turns/{body['turn']}").get_json()


def turn(client: FlaskClient, request: str, **fields: Any) -> dict[str, Any]:
    payload = {"request": request, "tz": TZ, "now": NOW, **fields}
    return finish(client, client.post("/api/turns", json=payload))


@dataclass
class Earlier:
    """Data stored before the probe: one chat with one finished turn and one .ics download."""

    session: str
    turn: int
    file_url: str
    counts: dict[str, int] = field(default_factory=dict)


def table_counts(app: Flask) -> dict[str, int]:
    store = open_store(app.config["DATA_DIR"])
    try:
        tables = ("sessions", "messages", "turns", "turn_steps", "files", "calendar_events")
        return {t: store.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    finally:
        store.db.close()


@pytest.fixture
def earlier(app: Flask, client: FlaskClient) -> Earlier:
    done = turn(client, FIRST_REQUEST)
    assert done["status"] == "done"
    [ics] = [f for f in done["answer"]["files"] if f["type"] == "ics"]
    return Earlier(done["session"], done["id"], ics["url"], table_counts(app))


def assert_still_serving(app: Flask, earlier: Earlier, *, changed: bool = False) -> None:
    """The page, the earlier chat and its download all answer; rows only grew if `changed`."""
    client = browser(app)
    assert client.get("/").status_code == 200
    listed = client.get("/api/sessions").get_json()["sessions"]
    assert [s["title"] for s in listed if s["id"] == earlier.session] == [FIRST_REQUEST]
    opened = client.get(f"/api/sessions/{earlier.session}").get_json()
    assert [t["status"] for t in opened["turns"]][:1] == ["done"]
    assert client.get(earlier.file_url).status_code == 200
    counts = table_counts(app)
    if changed:
        assert all(counts[t] >= n for t, n in earlier.counts.items()), counts
    else:
        assert counts == earlier.counts


# --- Host: DNS rebinding --------------------------------------------------------------------

FOREIGN_HOSTS = [
    f"{EVIL}:5000",
    EVIL,
    "127.0.0.1.evil.example.com",
    "localhost:9999",  # a loopback name with another port than the one served (80 here)
    "localhost@evil.example.com",
    "",
]


def _routes(earlier: Earlier) -> list[tuple[str, str]]:
    s = earlier.session
    return [
        ("GET", "/"),
        ("GET", "/healthz"),
        ("GET", "/api/csrf"),
        ("GET", "/static/veil.js"),
        ("GET", "/api/sessions"),
        ("GET", f"/api/sessions/{s}"),
        ("POST", f"/api/sessions/{s}/rename"),
        ("POST", f"/api/sessions/{s}/forget"),
        ("POST", f"/api/sessions/{s}/delete"),
        ("POST", "/api/sessions"),
        ("POST", "/api/turns"),
        ("GET", f"/api/turns/{earlier.turn}"),
        ("GET", f"/api/turns/{earlier.turn}/events"),  # the SSE stream
        ("GET", f"/api/turns/{earlier.turn}/prompts"),
        ("GET", earlier.file_url),  # a download
        ("GET", "/no/such/page"),
    ]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_is_refused_on_every_route(
    app: Flask, client: FlaskClient, earlier: Earlier, host: str
) -> None:
    for method, path in _routes(earlier):
        response = client.open(
            path,
            method=method,
            json={"title": "pwned", "request": "x"} if method == "POST" else None,
            environ_overrides={"HTTP_HOST": host},
        )
        assert response.status_code == 403, (method, path)
        body = response.get_data(as_text=True)
        assert "own address" in body and "VEIL_ALLOWED_HOSTS" in body, path
        assert "csrf" not in response.headers.get("Set-Cookie", "").lower()
    assert_still_serving(app, earlier)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "127.0.0.1:80", "LOCALHOST"])
def test_loopback_names_on_the_served_port_are_served(app: Flask, host: str) -> None:
    client = app.test_client()
    assert client.get("/healthz", environ_overrides={"HTTP_HOST": host}).status_code == 200


@pytest.mark.parametrize(
    ("setting", "host", "code"),
    [
        ("veil.home.arpa", "veil.home.arpa:8080", 200),
        ("veil.home.arpa, box.lan", "box.lan", 200),
        (["veil.home.arpa"], "VEIL.home.arpa.", 200),
        ("box.lan:8080", "box.lan:8080", 200),
        ("box.lan:8080", "box.lan:9090", 403),
        ("veil.home.arpa", EVIL, 403),
    ],
)
def test_configured_hosts_are_served(
    tmp_path: Path, setting: str | list[str], host: str, code: int
) -> None:
    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True, "ALLOWED_HOSTS": setting}
    client = create_app(config).test_client()
    assert client.get("/healthz", environ_overrides={"HTTP_HOST": host}).status_code == code


def test_allowed_hosts_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEIL_ALLOWED_HOSTS", "veil.home.arpa,box.lan")
    client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NO_LLM": True}).test_client()
    assert client.get("/healthz", environ_overrides={"HTTP_HOST": "box.lan"}).status_code == 200
    assert client.get("/healthz", environ_overrides={"HTTP_HOST": EVIL}).status_code == 403


# --- Origin: another page posting -----------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": f"http://{EVIL}"},
        {"Origin": "null"},  # a sandboxed frame or a file:// page
        {"Origin": "http://localhost:9999"},  # another local web app
        {"Origin": "https://localhost"},  # another port (443)
        {"Origin": "http://[::1"},
        {"Referer": f"http://{EVIL}/page.html"},
    ],
)
def test_a_foreign_origin_cannot_change_anything(
    app: Flask, client: FlaskClient, earlier: Earlier, headers: dict[str, str]
) -> None:
    s = earlier.session
    for path in (f"/api/sessions/{s}/rename", f"/api/sessions/{s}/delete", "/api/turns"):
        response = client.post(path, json={"title": "pwned", "request": "x"}, headers=headers)
        assert response.status_code == 403, path
        assert "another web page" in response.get_json()["error"]
    assert_still_serving(app, earlier)


@pytest.mark.parametrize("headers", [{}, {"Origin": "http://localhost"}])
def test_own_origin_or_none_may_post(
    app: Flask, client: FlaskClient, earlier: Earlier, headers: dict[str, str]
) -> None:
    response = client.post("/api/sessions", json={"title": "mine"}, headers=headers)
    assert response.status_code == 201 and response.get_json()["title"] == "mine"
    assert_still_serving(app, earlier, changed=True)


# --- bad input that used to be a 500 --------------------------------------------------------


def test_a_request_of_spaces_with_a_thread_is_named_after_the_thread(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    done = turn(client, "   ", thread="\n  \nAnna: lunch tomorrow at 1pm?")
    assert done["status"] == "done"
    titles = {s["id"]: s["title"] for s in client.get("/api/sessions").get_json()["sessions"]}
    assert titles[done["session"]] == "Anna: lunch tomorrow at 1pm?"
    assert_still_serving(app, earlier, changed=True)


def test_only_spaces_is_a_clear_400_that_stores_nothing(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    response = client.post("/api/turns", json={"request": "  \t ", "thread": " \n ", "tz": TZ})
    assert response.status_code == 400 and "nothing to do" in response.get_json()["error"]
    assert_still_serving(app, earlier)


def test_a_lone_surrogate_is_dropped_before_it_is_stored(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    body = json.dumps({"request": "lunch with Anna \ud800tomorrow at 1pm", "tz": TZ, "now": NOW})
    started = client.post("/api/turns", data=body, content_type="application/json")
    done = finish(client, started)
    assert done["status"] == "done" and done["request"] == "lunch with Anna tomorrow at 1pm"
    renamed = client.post(
        f"/api/sessions/{done['session']}/rename",
        data=json.dumps({"title": "a\udfffb"}),
        content_type="application/json",
    )
    assert renamed.status_code == 200 and renamed.get_json()["title"] == "ab"
    assert_still_serving(app, earlier, changed=True)


def test_control_characters_are_stripped_before_any_parser(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    # A NUL reached Duckling's Rust code and panicked; ESC and BEL are terminal tricks.
    done = turn(
        client,
        "lunch\x00 with Anna\x07 on sunday at 1pm\x7f",
        thread="Anna:\x1b[31m sunday 1pm works\r\n\tsee you",
    )
    assert done["status"] == "done", done["error"]
    assert done["request"] == "lunch with Anna on sunday at 1pm"
    store = open_store(app.config["DATA_DIR"])
    said = [m.content for m in store.messages(done["session"]) if m.role == "user"]
    store.db.close()
    # a colour code goes whole: its "[31m" was read as 31 minutes (issue 40)
    assert said == ["lunch with Anna on sunday at 1pm\n\nAnna: sunday 1pm works\r\n\tsee you"]
    assert_still_serving(app, earlier, changed=True)


@pytest.mark.parametrize("last_id", ["abc", "-1", "1e3", "9" * 40, "٣"])
def test_a_bad_last_event_id_is_a_clear_400(
    app: Flask, client: FlaskClient, earlier: Earlier, last_id: str
) -> None:
    response = client.get(f"/api/turns/{earlier.turn}/events", headers={"Last-Event-ID": last_id})
    assert response.status_code == 400
    assert "Last-Event-ID must be the number" in response.get_json()["error"]
    resumed = client.get(f"/api/turns/{earlier.turn}/events", headers={"Last-Event-ID": "1"})
    assert resumed.status_code == 200 and '"seq": 2' in resumed.get_data(as_text=True)
    assert '"seq": 1,' not in resumed.get_data(as_text=True)
    assert_still_serving(app, earlier)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/api/turns/{HUGE_ID}"),
        ("GET", f"/api/turns/{HUGE_ID}/events"),
        ("GET", f"/api/turns/{HUGE_ID}/prompts"),
        ("GET", f"/api/turns/{HUGE_ID}/calendar.ics"),
        ("POST", f"/api/turns/{HUGE_ID}/rerun"),
        ("GET", f"/api/turns/{2**63}"),
    ],
)
def test_a_turn_id_beyond_64_bits_is_a_404(
    app: Flask, client: FlaskClient, earlier: Earlier, method: str, path: str
) -> None:
    response = client.open(path, method=method, json={} if method == "POST" else None)
    assert response.status_code == 404
    assert response.get_json()["error"].startswith("no turn ")
    assert_still_serving(app, earlier)


# --- oversized input: refused before anything is stored ------------------------------------


@pytest.mark.parametrize(
    ("path", "field_name"),
    [("/api/turns", "thread"), ("/api/ask", "thread"), ("/api/sessions", "title")],
)
def test_a_19_mb_request_is_refused_and_stores_nothing(
    app: Flask, client: FlaskClient, earlier: Earlier, path: str, field_name: str
) -> None:
    body = json.dumps({"request": "lunch at 1pm", field_name: "x" * (19 * 1024 * 1024)})
    database = Path(app.config["DATA_DIR"]) / "veil.db"
    size = database.stat().st_size
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.get_json()["error"] == "That request is too large: the limit is 2 MB."
    assert database.stat().st_size == size
    assert_still_serving(app, earlier)


def test_too_many_characters_is_a_413_before_the_session_is_made(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    response = client.post("/api/turns", json={"request": "lunch", "thread": "é" * 250_000})
    assert response.status_code == 413
    assert "the limit is 200,000" in response.get_json()["error"]
    assert_still_serving(app, earlier)


# --- many at once: one writer ---------------------------------------------------------------


def _in_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            results[i] = work(i)
        except Exception as error:  # reported through the result, asserted below
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_20_concurrent_turns_all_finish(app: Flask, earlier: Earlier) -> None:
    def one(i: int) -> dict[str, Any]:
        client = browser(app)
        day = ("monday", "tuesday", "wednesday", "thursday", "friday")[i % 5]
        return turn(client, f"call with Anna Berg on {day} at {8 + i % 10}am")

    results = _in_threads(20, one)
    assert [r["status"] if isinstance(r, dict) else repr(r) for r in results] == ["done"] * 20
    store = open_store(app.config["DATA_DIR"])
    statuses = store.db.execute("SELECT status, count(*) FROM turns GROUP BY status").fetchall()
    store.db.close()
    assert statuses == [("done", 21)]
    assert_still_serving(app, earlier, changed=True)


def _calendar(i: int) -> bytes:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        + "".join(
            f"BEGIN:VEVENT\r\nUID:load-{i}-{n}\r\nDTSTAMP:20261101T000000Z\r\n"
            f"DTSTART;TZID=Europe/Berlin:202612{n + 1:02d}T090000\r\n"
            f"DTEND;TZID=Europe/Berlin:202612{n + 1:02d}T100000\r\n"
            f"SUMMARY:Meeting {i}.{n}\r\nEND:VEVENT\r\n"
            for n in range(20)
        )
        + "END:VCALENDAR\r\n"
    ).encode()


def test_concurrent_ics_imports_and_a_turn_all_finish(app: Flask, earlier: Earlier) -> None:
    def one(i: int) -> Any:
        client = browser(app)
        if i == 4:  # a turn writing at the same time as the imports
            return turn(client, "coffee with Anna Berg on monday at 9am")["status"]
        response = client.post(
            "/api/upload",
            data={"file": (BytesIO(_calendar(i)), f"cal{i}.ics"), "tz": TZ, "now": NOW},
            content_type="multipart/form-data",
        )
        return response.status_code, response.get_json().get("imported")

    results = _in_threads(5, one)
    assert results == [(200, 20)] * 4 + ["done"]
    assert table_counts(app)["calendar_events"] == earlier.counts["calendar_events"] + 80 + 1
    assert_still_serving(app, earlier, changed=True)


# --- a native crash (Rust panic) ------------------------------------------------------------


class FakePanic(BaseException):
    """Like pyo3's PanicException: a BaseException, not an Exception."""


def test_a_base_exception_leaves_the_turn_failed_and_the_server_serving(
    app: Flask, client: FlaskClient, earlier: Earlier, monkeypatch: pytest.MonkeyPatch
) -> None:
    def panic(*_args: object, **_kwargs: object) -> None:
        raise FakePanic("thread panicked at src/lib.rs")

    monkeypatch.setattr("agent.assistant.TimeParser.parse_input", panic)
    crashed = turn(client, "lunch with Anna on monday at 1pm")
    assert crashed["status"] == "error" and crashed["code"] == 500
    assert "crashed on this input" in crashed["error"]
    store = open_store(app.config["DATA_DIR"])
    assert store.get_turn(crashed["id"]).status == "failed"
    store.db.close()
    asked = client.post("/api/ask", json={"request": "lunch on monday at 1pm", "tz": TZ})
    assert asked.status_code == 500 and "crashed on this input" in asked.get_json()["error"]
    monkeypatch.undo()
    assert turn(client, "lunch with Anna on monday at 1pm")["status"] == "done"
    assert_still_serving(app, earlier, changed=True)


def test_a_panic_behind_the_input_boundary_fails_the_turn(
    app: Flask, earlier: Earlier, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn past the HTTP boundary whose planner dies of a BaseException ends, not hangs."""
    from agent.assistant import Turn, parse_now, parse_zone

    def panic(*_args: object, **_kwargs: object) -> None:
        raise FakePanic("thread panicked at src/planner.rs")

    monkeypatch.setattr("agent.assistant.Planner.plan", panic)
    runner = app.extensions["turns"]
    store = open_store(app.config["DATA_DIR"])
    session = store.create_session("raw")
    raw = Turn(request="lunch\x00 at 1pm", now=parse_now(NOW, parse_zone(TZ)), tz=TZ)
    raw.session = session.id
    live = runner.start(store, raw)
    for _ in range(60):  # the stream's own wait: wakes on the outcome, at most 30 s in all
        if live.wait(10_000, 0.5)[1]:
            break
    assert live.outcome is not None and "crashed on this input" in live.outcome["error"]
    assert store.get_turn(live.id).status == "failed"
    store.db.close()
    monkeypatch.undo()
    assert_still_serving(app, earlier, changed=True)


# --- private on disk ------------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_install_is_private(app: Flask, client: FlaskClient, earlier: Earlier) -> None:
    data = Path(app.config["DATA_DIR"])
    AuditLog(data / "audit.jsonl").write(
        AuditRecord("t", "none", "none", "test", "p", [], None, "", 0, 0, 0.0, None)
    )
    store = open_store(data)  # an open writer keeps the -wal and -shm files in place
    store.set_preference("probe", 1)
    assert _mode(data) == 0o700
    names = ["veil.db", "veil.db-wal", "veil.db-shm", "secret_key", "audit.jsonl"]
    assert {n: _mode(data / n) for n in names} == dict.fromkeys(names, 0o600)
    generated = [data / "files", *(data / "files").rglob("*")]
    assert any(p.suffix == ".ics" for p in generated)
    assert {p.name: _mode(p) for p in generated} == {
        p.name: 0o700 if p.is_dir() else 0o600 for p in generated
    }
    store.db.close()
    assert_still_serving(app, earlier, changed=True)


def test_an_old_world_readable_install_is_fixed_at_start(
    app: Flask, client: FlaskClient, earlier: Earlier
) -> None:
    data = Path(app.config["DATA_DIR"])
    (data / "audit.jsonl").write_text("{}\n")
    own = [data / "veil.db", data / "secret_key", data / "audit.jsonl"]
    generated = [data / "files", *(data / "files").rglob("*")]
    for path in [*own, *generated]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    os.chmod(data, 0o755)
    keep = data / "notes-of-my-own.txt"  # not Veil's: left as the user made it
    keep.write_text("mine")
    os.chmod(keep, 0o644)
    restarted = create_app({"TESTING": True, "DATA_DIR": str(data), "NO_LLM": True})
    assert _mode(data) == 0o700
    assert {p.name: _mode(p) for p in own} == {p.name: 0o600 for p in own}
    assert all(_mode(p) == (0o700 if p.is_dir() else 0o600) for p in generated)
    assert _mode(keep) == 0o644
    assert_still_serving(restarted, earlier)


def test_a_real_server_checks_the_port_it_serves(app: Flask, earlier: Earlier) -> None:
    """Over a real loopback socket the served port is known: other ports and names are 403."""
    import http.client

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    port = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        codes = {}
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost",
                     f"localhost:{port + 1}", f"{EVIL}:{port}"):  # fmt: skip
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/api/sessions", headers={"Host": host})
            codes[host] = connection.getresponse().status
            connection.close()
    finally:
        server.shutdown()
    assert list(codes.values()) == [200, 200, 200, 200, 403, 403], codes
    assert_still_serving(app, earlier)
