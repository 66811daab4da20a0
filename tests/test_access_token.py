"""Beyond loopback, a token (issue 40): a server bound to the network refuses to start without
one, every route refuses a request that lacks it, and the CSRF token is never served to one."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from web import create_app
from web.errors import StartupError
from web.security import TOKEN_COOKIE, access_url, is_loopback_bind

TOKEN = "s3cret-token-for-tests"
LAN = {"Host": "192.168.1.5:5000"}
GETS = ["/", "/healthz", "/api/csrf", "/api/sessions", "/static/veil.css", "/api/turns/1"]


def build(tmp_path: Path, **config: object) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "DATA_DIR": tmp_path / "veil",
            "NO_LLM": True,
            "WARM_UP": False,
            "CHECK_MODEL": False,
            **config,
        }
    )


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return build(tmp_path, BIND_HOST="0.0.0.0", ACCESS_TOKEN=TOKEN)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "fd00::5"])
def test_a_network_bind_without_a_token_refuses_to_start(tmp_path: Path, host: str) -> None:
    with pytest.raises(StartupError, match="without an access token"):
        build(tmp_path, BIND_HOST=host)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_needs_no_token(tmp_path: Path, host: str) -> None:
    assert is_loopback_bind(host)
    assert build(tmp_path, BIND_HOST=host).test_client().get("/healthz").status_code == 200


@pytest.mark.parametrize("path", GETS)
@pytest.mark.parametrize("headers", [LAN, {"Host": "127.0.0.1"}], ids=["lan", "loopback-host"])
def test_every_route_refuses_a_request_without_the_token(
    app: Flask, path: str, headers: dict[str, str]
) -> None:
    response = app.test_client().get(path, headers=headers)
    assert response.status_code == 403
    assert b"access token" in response.data
    assert b"csrf" not in response.data.lower()


def test_a_post_without_the_token_is_refused_before_anything_else(app: Flask) -> None:
    response = app.test_client().post(
        "/api/turns", json={"request": "lunch at 1pm tomorrow"}, headers=LAN
    )
    assert response.status_code == 403 and "access token" in response.get_json()["error"]


def test_a_wrong_token_is_refused(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/?token=wrong", headers=LAN).status_code == 403
    assert client.get("/api/csrf", headers={**LAN, "X-Veil-Token": "wrong"}).status_code == 403


def test_the_token_in_the_url_opens_the_page_and_a_cookie_keeps_it(app: Flask) -> None:
    client = app.test_client()
    page = client.get(f"/?token={TOKEN}", headers=LAN)
    assert page.status_code == 200 and b'name="csrf-token"' in page.data
    cookie = page.headers["Set-Cookie"]
    assert f"{TOKEN_COOKIE}={TOKEN}" in cookie and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    # the page's own requests now carry the cookie: no token in their URLs
    csrf = client.get("/api/csrf", headers=LAN).get_json()["token"]
    made = client.post(
        "/api/sessions",
        json={"title": "t"},
        headers={**LAN, "X-CSRF-Token": csrf, "Origin": "http://192.168.1.5:5000"},
    )
    assert made.status_code == 201


def test_a_script_may_send_the_token_in_a_header(app: Flask) -> None:
    for header in ({"X-Veil-Token": TOKEN}, {"Authorization": f"Bearer {TOKEN}"}):
        assert app.test_client().get("/healthz", headers={**LAN, **header}).status_code == 200


def test_a_post_from_another_origin_is_still_refused(app: Flask) -> None:
    client = app.test_client()
    csrf = client.get(f"/api/csrf?token={TOKEN}", headers=LAN).get_json()["token"]
    response = client.post(
        "/api/sessions",
        json={"title": "t"},
        headers={**LAN, "X-CSRF-Token": csrf, "Origin": "http://evil.example"},
    )
    assert response.status_code == 403


def test_serve_on_the_network_makes_a_token_and_prints_it_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import web
    from run import main

    seen: dict[str, object] = {}

    class Stopped(Exception):
        pass

    def fake_app(config: dict[str, object]) -> None:
        seen.update(config)
        raise Stopped

    monkeypatch.delenv("VEIL_ACCESS_TOKEN", raising=False)
    monkeypatch.setattr(web, "create_app", fake_app)
    with pytest.raises(Stopped):
        main(["serve", "--no-llm", "--host", "0.0.0.0", "--port", "5050"])
    token = seen["ACCESS_TOKEN"]
    assert isinstance(token, str) and len(token) >= 32 and seen["BIND_HOST"] == "0.0.0.0"
    printed = capsys.readouterr().out
    assert printed.count(token) == 1
    assert access_url("0.0.0.0", 5050, token) in printed


def test_serve_on_loopback_needs_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import web
    from run import main

    seen: dict[str, object] = {}

    class Stopped(Exception):
        pass

    def fake_app(config: dict[str, object]) -> None:
        seen.update(config)
        raise Stopped

    monkeypatch.delenv("VEIL_ACCESS_TOKEN", raising=False)
    monkeypatch.setattr(web, "create_app", fake_app)
    with pytest.raises(Stopped):
        main(["serve", "--no-llm"])
    assert seen["ACCESS_TOKEN"] is None
