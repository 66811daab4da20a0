"""Shared fixtures: no network, a temporary data folder, the embedded model loaded once."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
# Before anything can import onnxruntime (tools/ocr.py sets it too): its telemetry would write a
# device id under ~/.cache/Microsoft and query DNS from native code (issue 17).
os.environ["ORT_DISABLE_TELEMETRY"] = "1"

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo
_real_gethostbyname = socket.gethostbyname
_real_gethostbyname_ex = socket.gethostbyname_ex
_real_create_connection = socket.create_connection
_real_gethostbyaddr = socket.gethostbyaddr
# Names that never leave the machine: /etc/hosts answers them, no DNS server is asked.
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
# Every lookup and connect a test made, allowed or not: (what, host) pairs.
_attempts: list[tuple[str, str]] = []


class NetworkBlockedError(OSError):
    """A test tried to reach beyond this machine."""


def is_loopback_host(host: object) -> bool:
    """True for loopback names and addresses, and for no host at all (a local bind)."""
    if host is None or host in ("", b""):
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower().rstrip(".") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def is_loopback(address: object) -> bool:
    """True for Unix sockets and 127.0.0.0/8, ::1, localhost."""
    if isinstance(address, str | bytes):  # AF_UNIX path
        return True
    if not isinstance(address, tuple) or not address:
        return False
    return address[0] is not None and is_loopback_host(address[0])


def _check(what: str, host: object) -> None:
    """Record the attempt; raise unless it stays on this machine."""
    _attempts.append((what, str(host)))
    if not is_loopback_host(host):
        raise NetworkBlockedError(f"tests may not {what} {host!r}: no network in Veil")


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not is_loopback(address):
        _check("connect to", address)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not is_loopback(address):
        _check("connect to", address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
    _check("look up", host)
    return _real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]


def _guarded_gethostbyname(host: str) -> str:
    _check("look up", host)
    return _real_gethostbyname(host)


def _guarded_gethostbyname_ex(host: str) -> object:
    _check("look up", host)
    return _real_gethostbyname_ex(host)


def _guarded_gethostbyaddr(host: str) -> object:
    _check("look up", host)  # socket.getfqdn() goes through here: a reverse DNS query
    return _real_gethostbyaddr(host)


def _guarded_create_connection(address: tuple[object, ...], *args: object, **kwargs: object):
    _check("connect to", address[0])
    return _real_create_connection(address, *args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every test: any connect or name lookup outside loopback raises. The value is the list of
    every attempt the test made, allowed or refused, for tests that prove nothing was tried
    even where a library would swallow the error."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    monkeypatch.setattr(socket, "gethostbyname", _guarded_gethostbyname)
    monkeypatch.setattr(socket, "gethostbyname_ex", _guarded_gethostbyname_ex)
    monkeypatch.setattr(socket, "gethostbyaddr", _guarded_gethostbyaddr)
    monkeypatch.setattr(socket, "create_connection", _guarded_create_connection)
    _attempts.clear()
    yield _attempts
    _attempts.clear()


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data folder, never the user's."""
    folder = tmp_path / "veil-data"
    monkeypatch.setenv("VEIL_DATA_DIR", str(folder))
    # Parsers run in-process in tests (a worker pool costs a process start per app); the
    # tests of tools/worker.py and the hostile-input tests turn it on (ISOLATE_PARSERS).
    monkeypatch.setenv("VEIL_ISOLATE_PARSERS", "false")
    for name in ("VEIL_MODEL", "VEIL_LLM_URL", "VEIL_NO_LLM"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture(autouse=True)
def prompts_reach_the_guard_clean(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No name reaches a prompt in any test (issue 39). The guard is the last screen before a
    model: a value it has to re-redact was left in clear by the redaction upstream, so any
    test whose prompts needed it fails, unless it feeds the guard raw text on purpose
    (`@pytest.mark.guard_catches`)."""
    from privacy.guard import PrivacyGuard

    caught: list[str] = []
    real = PrivacyGuard.screen

    def screen(self: PrivacyGuard, text: str) -> Any:
        result = real(self, text)
        caught.extend(self.entity_map.value_of(p) or p for p in result.reredacted)
        return result

    monkeypatch.setattr(PrivacyGuard, "screen", screen)
    yield
    if caught and request.node.get_closest_marker("guard_catches") is None:
        pytest.fail(f"a prompt reached the guard with {sorted(set(caught))} in clear")


@pytest.fixture(scope="session")
def embedded_model() -> Iterator[object]:
    """The embedded SmolLM2 GGUF, loaded once for the whole run (about a second)."""
    from agent.backends import embedded_model_path
    from agent.backends.llama_cpp import LlamaCppModel

    model = LlamaCppModel(embedded_model_path(), n_ctx=2048)
    model.load()
    yield model


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright, one per test module (the browser tests use it)."""
    from playwright.sync_api import sync_playwright

    from bench.journeys import CHROMIUM

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()


@pytest.fixture
def app(tmp_path: Path) -> Any:
    """The page's Flask app, rules only, on a temporary data folder (a module may override it)."""
    from web import create_app

    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "NO_LLM": True})


@pytest.fixture
def client(app: Any) -> Any:
    """A browser-like client: it has loaded the page, so it holds a CSRF token."""
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    return client
