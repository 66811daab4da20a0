"""The Flask app, through its real test client."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web import create_app


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "NO_LLM": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_page_is_served(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert b"<title>Veil</title>" in page.data
    assert b"http://" not in page.data and b"https://" not in page.data  # nothing fetched


def test_ask_returns_a_bundle(client: FlaskClient) -> None:
    response = client.post(
        "/api/ask",
        json={
            "request": "lunch with karthik tomorrow at 1",
            "tz": "Europe/Dublin",
            "now": "2026-11-21T10:00",
        },
    )
    assert response.status_code == 200
    assert list(response.get_json()) == [
        "reply",
        "question",
        "events",
        "files",
        "plan",
        "steps",
        "planner",
    ]


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
    response = client.post("/api/ask", json=payload)
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_not_json_is_a_clear_400(client: FlaskClient) -> None:
    response = client.post("/api/ask", data="request=hi")
    assert response.status_code == 400
    assert "JSON" in response.get_json()["error"]


def test_oversized_upload_is_refused_clearly(client: FlaskClient) -> None:
    response = client.post(
        "/api/ask", data=b"x" * (21 * 1024 * 1024), content_type="application/json"
    )
    assert response.status_code == 413
    assert "20 MB" in response.get_json()["error"]


def test_secret_key_is_per_install_and_stable(tmp_path: Path) -> None:
    config = {"TESTING": True, "DATA_DIR": str(tmp_path / "d"), "NO_LLM": True}
    first, second = create_app(config), create_app(config)
    other = create_app({**config, "DATA_DIR": str(tmp_path / "e")})
    assert first.secret_key == second.secret_key != other.secret_key
    assert len(str(first.secret_key)) >= 32
