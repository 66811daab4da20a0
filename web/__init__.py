"""Veil's chat page: a Flask app served on loopback."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from agent.assistant import build_assistant
from agent.errors import AgentError, InputError
from memory.errors import NotFoundError, StoreError
from memory.paths import default_data_dir, secure_data_dir
from privacy.errors import PrivacyError
from tools.errors import ToolError
from tools.ocr import ScreenshotReader
from web.compress import compress
from web.db import close_store
from web.generation import BusyError, GenerationQueue
from web.security import check_csrf, check_host
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
}
# The page loads only its own files: no inline script, no other origin, no framing.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

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
    # 0700 folder, 0600 files, existing installs repaired: the data is the user's alone.
    data_dir = secure_data_dir(Path(app.config["DATA_DIR"] or default_data_dir()))
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
    queue = GenerationQueue(float(app.config["WAIT_LIMIT"]))
    app.extensions["generation"] = queue
    app.extensions["turns"] = TurnRunner(
        assistant, data_dir, queue, warmup if app.config["WARM_UP"] else None
    )
    app.extensions["ocr"] = ScreenshotReader()

    from web.chat import chat
    from web.files import files
    from web.sessions import sessions
    from web.uploads import uploads
    from web.week import week

    for blueprint in (chat, sessions, files, uploads, week):
        app.register_blueprint(blueprint)
    app.before_request(check_host)  # first: a foreign name learns nothing, not even a token
    app.before_request(check_csrf)
    app.after_request(_secure_headers)
    app.after_request(compress)
    app.teardown_appcontext(close_store)
    _register_errors(app)
    return app


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

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[Any, int]:
        if app.testing:
            raise error
        app.logger.exception("unexpected error")
        return _error("Something went wrong inside Veil; nothing was changed.", 500)
