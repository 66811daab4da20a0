"""The no-network fixture must catch a real connect attempt, and let loopback through."""

from __future__ import annotations

import ipaddress
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


@pytest.mark.parametrize(
    "lookup",
    [
        lambda: socket.getaddrinfo("mobile.events.data.microsoft.com", 443),
        lambda: socket.getaddrinfo("example.com", None, socket.AF_INET, socket.SOCK_STREAM),
        lambda: socket.gethostbyname("example.com"),
        lambda: socket.gethostbyname_ex("example.org"),
        lambda: socket.gethostbyaddr("203.0.113.7"),
        lambda: socket.create_connection(("example.com", 443), timeout=1),
    ],
    ids=["getaddrinfo", "getaddrinfo-args", "gethostbyname", "ex", "reverse", "connection"],
)
def test_a_name_lookup_outside_loopback_is_refused_and_recorded(
    lookup: object, no_network: list[tuple[str, str]]
) -> None:
    """A DNS query is a network call even when no connect follows (issue 17)."""
    with pytest.raises(NetworkBlockedError, match="look up|connect to"):
        lookup()  # type: ignore[operator]
    assert no_network and no_network[-1][0] in ("look up", "connect to")


def test_a_lookup_a_library_swallows_is_still_recorded(no_network: list[tuple[str, str]]) -> None:
    """getfqdn() catches the OSError and returns the name: only the record shows the query."""
    assert socket.getfqdn("example.net") == "example.net"
    assert ("look up", "example.net") in no_network


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "::1", "LOCALHOST", None])
def test_loopback_names_still_resolve(host: str | None) -> None:
    found = socket.getaddrinfo(host, 8080, type=socket.SOCK_STREAM)
    assert found and all(ipaddress.ip_address(info[4][0]).is_loopback for info in found)


def test_loopback_by_name_still_connects() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with socket.create_connection(("localhost", port), timeout=2) as client:
            assert client.getpeername()[1] == port
