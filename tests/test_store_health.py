"""A store that says what is wrong (issue 40): a damaged veil.db or a read-only data folder is
named, with its fix, on the page, in /healthz and on the command line; a rolling backup made
with SQLite's backup API keeps all but the last turn, and the message names it."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from memory import health
from memory.health import BACKUP, StoreMonitor, backup_store, check_store
from web import create_app
from web.errors import StartupError

TZ = "Europe/Berlin"


def build(data_dir: Path) -> Flask:
    return create_app(
        {
            "TESTING": False,  # the error handlers answer as in production
            "DATA_DIR": data_dir,
            "NO_LLM": True,
            "WARM_UP": False,
            "CHECK_MODEL": False,
        }
    )


def csrf_client(app: Flask) -> FlaskClient:
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    return client


def damage(database: Path) -> None:
    """Overwrite the pages after the header: SQLite's own check fails on it."""
    size = database.stat().st_size
    with open(database, "r+b") as handle:
        handle.seek(100)
        handle.write(os.urandom(max(size - 100, 4096)))


@pytest.fixture
def used(tmp_path: Path) -> Path:
    """A data folder whose store has one chat, and its backup."""
    data_dir = tmp_path / "veil"
    app = build(data_dir)
    client = csrf_client(app)
    assert client.post("/api/sessions", json={"title": "kept"}).status_code == 201
    assert app.extensions["store"].backup(force=True) == data_dir / BACKUP
    return data_dir


def test_a_healthy_store_is_ready(tmp_path: Path) -> None:
    app = build(tmp_path / "veil")
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 200 and answer.get_json()["store"] is None


@pytest.mark.parametrize("how", ["garbage", "damaged-pages"])
def test_a_damaged_database_is_named_with_its_backup_everywhere(used: Path, how: str) -> None:
    database = used / "veil.db"
    if how == "garbage":
        database.write_bytes(os.urandom(8192))
    else:
        damage(database)
    app = build(used)  # starts: the page has to be able to say what is wrong
    client = app.test_client()
    ready = client.get("/healthz")
    assert ready.status_code == 503
    body = ready.get_json()
    assert body["ready"] is False and str(database) in body["error"]
    assert "damaged" in body["error"] and str(used / BACKUP) in body["error"]
    page = client.get("/", headers={"Accept": "text/html"})
    assert page.status_code == 503 and str(used / BACKUP).encode() in page.data
    api = client.get("/api/sessions")
    assert api.status_code == 503 and "damaged" in api.get_json()["error"]


def test_restoring_the_backup_brings_back_all_but_the_last_turn(used: Path) -> None:
    database = used / "veil.db"
    damage(database)
    os.replace(used / BACKUP, database)
    client = build(used).test_client()
    assert client.get("/healthz").status_code == 200
    titles = [s["title"] for s in client.get("/api/sessions").get_json()["sessions"]]
    assert titles == ["kept"]


def test_a_damaged_database_found_by_a_query_is_named(tmp_path: Path) -> None:
    """The header is fine, a page is not: the first failing query triggers SQLite's check."""
    data_dir = tmp_path / "veil"
    app = build(data_dir)
    client = csrf_client(app)
    for n in range(30):
        client.post("/api/sessions", json={"title": f"chat {n} " + "x" * 150})
    damage(data_dir / "veil.db")
    answer = client.get("/api/sessions")
    assert answer.status_code == 503 and "damaged" in answer.get_json()["error"]
    assert client.get("/healthz").status_code == 503


def test_a_read_only_folder_is_named_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = tmp_path / "veil"
    app = build(data_dir)
    real = health._writable
    monkeypatch.setattr(health, "_writable", lambda path: path != data_dir and real(path))
    client = app.test_client()
    ready = client.get("/healthz")
    assert ready.status_code == 503
    assert (
        "read-only" in ready.get_json()["error"]
        and f"chmod u+w {data_dir}" in (ready.get_json()["error"])
    )
    assert client.get("/api/sessions").status_code == 503
    # ... and at start, the same words stop it
    with pytest.raises(StartupError, match="read-only"):
        build(data_dir)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any mode")
def test_a_really_read_only_folder_is_found(tmp_path: Path) -> None:
    data_dir = tmp_path / "veil"
    data_dir.mkdir()
    data_dir.chmod(0o500)
    try:
        assert "read-only" in str(check_store(data_dir).problem)
    finally:
        data_dir.chmod(0o700)


def test_the_command_line_names_a_damaged_store(
    used: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from run import main

    (used / "veil.db").write_bytes(b"not a database at all" * 100)
    code = main(["ask", "--no-llm", "--data-dir", str(used), "--tz", TZ, "hi"])
    err = capsys.readouterr().err
    assert code == 2 and "damaged" in err and str(used / BACKUP) in err
    assert "Traceback" not in err


def test_a_damaged_database_never_replaces_the_good_backup(used: Path) -> None:
    good = (used / BACKUP).read_bytes()
    damage(used / "veil.db")
    assert backup_store(used) is None
    assert (used / BACKUP).read_bytes() == good


def test_the_backup_is_private_and_a_real_database(used: Path) -> None:
    backup = used / BACKUP
    assert backup.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(backup) as copy:
        assert copy.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_a_turn_takes_a_backup(tmp_path: Path) -> None:
    data_dir = tmp_path / "veil"
    app = build(data_dir)
    (data_dir / BACKUP).unlink(missing_ok=True)
    monitor: StoreMonitor = app.extensions["store"]
    client = csrf_client(app)
    started = client.post("/api/turns", json={"request": "lunch tomorrow at 1pm", "tz": TZ})
    turn = started.get_json()["turn"]
    live = app.extensions["turns"].get(turn)
    for _ in range(120):  # the backup follows the turn's end on its thread
        if live.wait(10_000, 0.5)[1] and (data_dir / BACKUP).exists():
            break
        time.sleep(0.25)
    assert live.outcome is not None and "answer" in live.outcome, live.outcome
    assert (data_dir / BACKUP).exists() and monitor.current().ok


def test_a_wal_file_removed_while_the_folder_is_made_private_is_no_start_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another app on the same folder may close its last connection, and SQLite then removes
    veil.db-wal, between the listing and the chmod; Veil still starts and the rest is private."""
    from memory import paths

    data = tmp_path / "data"
    data.mkdir()
    (data / "veil.db").touch()
    (data / "veil.db-wal").touch()
    (data / "audit.jsonl").touch()
    os.chmod(data / "audit.jsonl", 0o644)
    real_chmod = os.chmod

    def vanishing_chmod(path: str | Path, mode: int, **kw: object) -> None:
        if str(path).endswith("-wal"):
            os.remove(path)
        real_chmod(path, mode, **kw)

    monkeypatch.setattr(paths.os, "chmod", vanishing_chmod)
    assert paths.secure_data_dir(data) == data
    assert not (data / "veil.db-wal").exists()
    assert (data / "audit.jsonl").stat().st_mode & 0o777 == 0o600
