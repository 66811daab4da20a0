"""Veil's chat page: a Flask app served on loopback."""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from agent.assistant import build_assistant
from agent.errors import AgentError, InputError
from memory.errors import NotFoundError, StoreError
from memory.health import StoreMonitor, check_store
from memory.paths import default_data_dir, secure_data_dir
from privacy.errors import PrivacyError
from tools import worker
from tools.errors import ToolError
from tools.ocr import OCR_MEMORY_MB, ScreenshotReader
from tools.worker import WorkerPool
from web.compress import compress
from web.db import close_store
from web.errors import StartupError
from web.generation import BusyError, GenerationQueue
from web.security import check_csrf, check_host, check_token, is_loopback_bind, remember_token
from web.turns import CrashError, TurnRunner
from web.warmup import Warmup

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": None,
    "MODEL_PATH": None,
    "LLM_URL": None,
    "NO_LLM": False,
    "NO_ADAPTER": False,  # the embedded model without Veil's fine-tuned adapter
    "MAIL_DIR": None,  # a folder of .eml/.mbox the mail tools may read
    "DOCS_DIR": None,  # a folder of .txt/.md/.pdf/.docx the document tools may read
    # Load or reach the model at start-up, in the background (web/warmup.py): a model that
    # cannot work shows on the page and /healthz before anyone's turn needs it.
    "CHECK_MODEL": True,
    # Load spaCy, Duckling and the model on a thread after the app is built (False: on the
    # first turn that needs them).
    "WARM_UP": True,
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,
    "WAIT_LIMIT": 120.0,  # seconds a turn may wait for the model before a 503
    "SESSION_COOKIE_SAMESITE": "Strict",
    # Host names besides 127.0.0.1, localhost and [::1] the page answers to: comma-separated
    # ("veil.home.arpa, box:8080") or a list; env VEIL_ALLOWED_HOSTS. Everything else is a 403.
    "ALLOWED_HOSTS": "",
    # Parse untrusted input (time expressions, .ics files) in worker processes with a time and
    # memory limit (tools/worker.py), so no paste or upload can freeze or bloat the server.
    # The address the server binds (run.py sets it). Beyond loopback an ACCESS_TOKEN is
    # required: without one the app refuses to start (web/security.py check_token).
    "BIND_HOST": "127.0.0.1",
    "ACCESS_TOKEN": None,
    "ISOLATE_PARSERS": True,
    "PARSER_WORKERS": 2,
    "PARSER_MEMORY_MB": 400,
}
# The page loads only its own files: no inline script, no other origin, no framing.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

# Routes that answer without the store: /healthz reports on it itself.
STORE_FREE_ENDPOINTS = frozenset({"static", "chat.health"})
# What a parser worker imports before its first job.
PARSER_MODULES = ("tools.calendar.times", "tools.calendar.ics")

# Aliases of the environment variables DESIGN.md names (VEIL_MODEL, VEIL_LLM_URL).
_ENV_ALIASES = {"MODEL": "MODEL_PATH"}


def _secret_key(data_dir: Path) -> str:
    """One secret per install, kept in the data folder so sessions survive a restart."""
    path = data_dir / "secret_key"
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text(encoding="utf-8").strip()


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then VEIL_* environment, then `config` (tests)."""
    app = Flask(__name__)
    app.json.sort_keys = False  # keep the bundle's keys in the contract's order
    app.config.from_mapping(DEFAULTS)
    app.config.from_prefixed_env("VEIL")
    for alias, key in _ENV_ALIASES.items():
        if app.config.get(alias):
            app.config[key] = app.config.pop(alias)
    if config:
        app.config.from_mapping(config)
    bind = str(app.config["BIND_HOST"] or "127.0.0.1")
    if not is_loopback_bind(bind) and not app.config["ACCESS_TOKEN"]:
        raise StartupError(
            f"Veil will not serve on {bind} without an access token: anyone on the network "
            "could read your calendar and drafts. Start it with `run.py serve --host "
            f"{bind}` (which makes a token and prints the address to open), set "
            "VEIL_ACCESS_TOKEN, or serve on 127.0.0.1."
        )
    # 0700 folder, 0600 files, existing installs repaired: the data is the user's alone.
    data_dir = _data_dir(Path(app.config["DATA_DIR"] or default_data_dir()))
    app.config["DATA_DIR"] = str(data_dir)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(data_dir)

    assistant = build_assistant(
        data_dir=data_dir,
        model_path=app.config["MODEL_PATH"],
        llm_url=app.config["LLM_URL"],
        no_llm=bool(app.config["NO_LLM"]),
        no_adapter=bool(app.config["NO_ADAPTER"]),
        mail_dir=app.config["MAIL_DIR"],
        docs_dir=app.config["DOCS_DIR"],
    )
    app.extensions["assistant"] = assistant
    warmup = Warmup(assistant, load_model=bool(app.config["CHECK_MODEL"]))
    app.extensions["warmup"] = warmup
    if app.config["WARM_UP"]:
        warmup.start()
    monitor = StoreMonitor(data_dir)
    app.extensions["store"] = monitor
    health = monitor.failed()  # the thorough check, once at start
    if health.ok:
        threading.Thread(target=monitor.backup, name="veil-backup", daemon=True).start()
    else:  # served anyway: the page and /healthz name the problem and its fix
        app.logger.error("%s", health.problem)
    queue = GenerationQueue(float(app.config["WAIT_LIMIT"]))
    app.extensions["generation"] = queue
    app.extensions["turns"] = TurnRunner(
        assistant, data_dir, queue, warmup if app.config["WARM_UP"] else None, store=monitor
    )
    app.extensions["ocr"] = ScreenshotReader()
    if app.config["ISOLATE_PARSERS"]:
        _isolate_parsers(app)
        app.extensions["ocr"] = ScreenshotReader(pool=_ocr_pool())

    from web.caldav import caldav
    from web.chat import chat
    from web.files import files
    from web.sessions import sessions
    from web.uploads import uploads
    from web.week import week

    for blueprint in (chat, sessions, files, uploads, caldav, week):
        app.register_blueprint(blueprint)
    app.before_request(check_host)  # first: a foreign name learns nothing, not even a token
    app.before_request(check_token)  # then: without the access token, no page, no CSRF token
    app.before_request(_check_store)
    app.before_request(check_csrf)
    app.after_request(remember_token)
    app.after_request(_secure_headers)
    app.after_request(compress)
    app.teardown_appcontext(close_store)
    _register_errors(app)
    return app


def _data_dir(folder: Path) -> Path:
    """The data folder made private; one that cannot be written stops the start with the fix."""
    try:
        data_dir = secure_data_dir(folder)
    except OSError as error:
        health = check_store(folder)
        raise StartupError(health.problem or f"Veil cannot prepare {folder}: {error}") from None
    health = check_store(data_dir)
    if not health.ok and "read-only" in str(health.problem):
        raise StartupError(str(health.problem))
    return data_dir


def _check_store() -> tuple[Any, int] | None:
    """Before every request but /healthz and static files: a store that cannot work is named,
    with its fix, instead of a generic 500 from the first query."""
    if request.endpoint in STORE_FREE_ENDPOINTS:
        return None
    monitor: StoreMonitor = current_app.extensions["store"]
    health = monitor.current()
    return None if health.ok else _error(str(health.problem), 503)


_OCR_POOL: list[WorkerPool] = []


def _ocr_pool() -> WorkerPool:
    """One OCR worker per process, started on the first screenshot (the engine costs about
    350 MB, which a user who never drops a screenshot should not pay)."""
    if not _OCR_POOL or _OCR_POOL[0].closed:
        _OCR_POOL[:] = []
        _OCR_POOL.append(
            WorkerPool(
                size=1, preload=("tools.ocr",), warm="tools.ocr.warm_reader",
                memory_mb=OCR_MEMORY_MB,
            )
        )  # fmt: skip
    return _OCR_POOL[0]


def _isolate_parsers(app: Flask) -> None:
    """One pool of parser workers per process (every app of a process shares it), started in
    the background so the first paste finds a warm one."""
    pool = worker.shared_pool()
    if pool is None or pool.closed:
        pool = WorkerPool(
            size=int(app.config["PARSER_WORKERS"]),
            preload=PARSER_MODULES,
            warm="tools.calendar.times.warm_engine",
            memory_mb=int(app.config["PARSER_MEMORY_MB"]),
        )
        worker.isolate(pool)
    app.extensions["parsers"] = pool
    if app.config["WARM_UP"]:
        threading.Thread(target=pool.start, name="veil-parser-start", daemon=True).start()


def _secure_headers(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


def _error(message: str, code: int) -> tuple[Any, int]:
    """JSON for the API and scripts, a small page for a browser that navigated here."""
    if request.path.startswith("/api/") or not request.accept_mimetypes.accept_html:
        return jsonify(error=message), code
    return render_template("error.html", message=message, code=code), code


def _register_errors(app: Flask) -> None:
    """Only web formats errors: a clear JSON message, never a stack trace."""

    @app.errorhandler(InputError)
    def bad_input(error: InputError) -> tuple[Any, int]:
        return _error(str(error), 400)

    @app.errorhandler(NotFoundError)
    def not_found(error: NotFoundError) -> tuple[Any, int]:
        return _error(str(error), 404)

    @app.errorhandler(BusyError)
    def busy(error: BusyError) -> tuple[Any, int]:
        return _error(str(error), 503)

    @app.errorhandler(CrashError)
    def crashed(error: CrashError) -> tuple[Any, int]:
        return _error(str(error), 500)

    @app.errorhandler(AgentError)
    @app.errorhandler(ToolError)
    @app.errorhandler(PrivacyError)
    @app.errorhandler(StoreError)
    def known_failure(error: Exception) -> tuple[Any, int]:
        return _error(str(error), 422)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Any, int]:
        message = str(error.description)
        if error.code == 413 and message == RequestEntityTooLarge.description:
            limit = (request.max_content_length or app.config["MAX_CONTENT_LENGTH"]) / 1024**2
            what = "upload" if request.path == "/api/upload" else "request"
            message = f"That {what} is too large: the limit is {limit:g} MB."
        return _error(message, error.code or 500)

    @app.errorhandler(sqlite3.DatabaseError)
    def store_failed(error: sqlite3.DatabaseError) -> tuple[Any, int]:
        health = app.extensions["store"].failed()
        if not health.ok:  # damaged or read-only: say which file and how to fix it
            app.logger.error("store failed: %s", error)
            return _error(str(health.problem), 503)
        return unexpected(error)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[Any, int]:
        if app.testing:
            raise error
        app.logger.exception("unexpected error")
        return _error("Something went wrong inside Veil; nothing was changed.", 500)
