"""The no-network fixture must catch a real connect attempt, and let loopback through."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import NetworkBlockedError


@pytest.mark.parametrize(
    "address",
    [("203.0.113.7", 80), ("8.8.8.8", 53), ("2001:db8::1", 443, 0, 0)],
)
def test_connect_outside_loopback_is_refused(address: tuple) -> None:
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlockedError):
        sock.connect(address)


def test_create_connection_outside_loopback_is_refused() -> None:
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("198.51.100.1", 443), timeout=1)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2) as client:
            assert client.getpeername() == server.getsockname()
