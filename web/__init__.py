"""Veil's chat page: a Flask app served on loopback."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from agent.assistant import build_assistant
from agent.errors import AgentError, InputError
from memory.errors import StoreError
from memory.paths import default_data_dir
from privacy.errors import PrivacyError
from tools.errors import ToolError

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": None,
    "MODEL_PATH": None,
    "LLM_URL": None,
    "NO_LLM": False,
    "CHECK_MODEL": True,  # load or reach the model at start-up: fail closed, not mid-turn
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,
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
    data_dir = Path(app.config["DATA_DIR"] or default_data_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(data_dir)

    assistant = build_assistant(
        data_dir=data_dir,
        model_path=app.config["MODEL_PATH"],
        llm_url=app.config["LLM_URL"],
        no_llm=bool(app.config["NO_LLM"]),
    )
    if app.config["CHECK_MODEL"]:
        assistant.gateway.check()
    app.extensions["assistant"] = assistant

    from web.chat import chat

    app.register_blueprint(chat)
    _register_errors(app)
    return app


def _register_errors(app: Flask) -> None:
    """Only web formats errors: a clear JSON message, never a stack trace."""

    @app.errorhandler(InputError)
    def bad_input(error: InputError) -> tuple[Any, int]:
        return jsonify(error=str(error)), 400

    @app.errorhandler(AgentError)
    @app.errorhandler(ToolError)
    @app.errorhandler(PrivacyError)
    @app.errorhandler(StoreError)
    def known_failure(error: Exception) -> tuple[Any, int]:
        return jsonify(error=str(error)), 422

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Any, int]:
        message = (
            error.description
            if error.code != 413
            else ("That upload is too large: the limit is 20 MB.")
        )
        return jsonify(error=message), error.code or 500

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[Any, int]:
        if app.testing:
            raise error
        app.logger.exception("unexpected error")
        return jsonify(error="Something went wrong inside Veil; nothing was changed."), 500
