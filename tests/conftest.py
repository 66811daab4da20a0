"""Shared fixtures: no network, a temporary data folder, the embedded model loaded once."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


class NetworkBlockedError(OSError):
    """A test tried to reach beyond this machine."""


def is_loopback(address: object) -> bool:
    """True for Unix sockets and 127.0.0.0/8, ::1, localhost."""
    if isinstance(address, str | bytes):  # AF_UNIX path
        return True
    if not isinstance(address, tuple) or not address:
        return False
    host = address[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not is_loopback(address):
        raise NetworkBlockedError(f"tests may not connect to {address!r}: no network in Veil")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not is_loopback(address):
        raise NetworkBlockedError(f"tests may not connect to {address!r}: no network in Veil")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test: any connect outside loopback raises."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data folder, never the user's."""
    folder = tmp_path / "veil-data"
    monkeypatch.setenv("VEIL_DATA_DIR", str(folder))
    for name in ("VEIL_MODEL", "VEIL_LLM_URL", "VEIL_NO_LLM"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture(scope="session")
def embedded_model() -> Iterator[object]:
    """The embedded SmolLM2 GGUF, loaded once for the whole run (about a second)."""
    from agent.backends import embedded_model_path
    from agent.backends.llama_cpp import LlamaCppModel

    model = LlamaCppModel(embedded_model_path(), n_ctx=2048)
    model.load()
    yield model
