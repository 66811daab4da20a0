"""Request hygiene: the Host and Origin allow-list, a CSRF token on every state-changing request,
and file types read from bytes.

The page runs on the user's own machine, but any web page the user visits can still reach
127.0.0.1. A page on a rebinding name (evil.example resolving to 127.0.0.1) is same-origin with
its own name, so the browser lets it read Veil's answers: only the Host header gives it away,
and every request whose Host is not a loopback name (or one the user configured) is refused.
Origin does the same for posts, and the CSRF token (kept in the signed session cookie, echoed
in a header or form field) tells Veil's own page apart from any other page.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import abort, current_app, request, session

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
DEFAULT_PORTS = {"http": 80, "https": 443}

# Leading bytes of the uploads Veil accepts; the name and the browser's type are not trusted.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
)


def csrf_token() -> str:
    """This browser session's token, made on first use."""
    if CSRF_FIELD not in session:
        session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return str(session[CSRF_FIELD])


def allowed_hosts(setting: str | Iterable[str] | None) -> frozenset[str]:
    """The user's extra names from a comma-separated setting (or a list), lower-cased."""
    if not setting:
        return frozenset()
    names = setting.split(",") if isinstance(setting, str) else setting
    return frozenset(str(n).strip().lower().rstrip(".") for n in names if str(n).strip())


def _split(netloc: str) -> tuple[str, int | None] | None:
    """("name", port) of a Host value; None when it is not one (userinfo, junk port)."""
    netloc = netloc.strip().lower()
    if not netloc or "@" in netloc or any(c.isspace() for c in netloc):
        return None
    if netloc.startswith("["):
        name, _, rest = netloc.partition("]")
        name, port = name + "]", rest.removeprefix(":") if rest else ""
        if rest and not rest.startswith(":"):
            return None
    else:
        name, _, port = netloc.partition(":")
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    return name.rstrip("."), int(port) if port else None


def host_allowed(
    netloc: str, *, served_port: int | None, extra: frozenset[str], default_port: int | None
) -> bool:
    """Whether a Host (or an Origin's host) names this server.

    Loopback names must carry the served port; a missing port counts as `default_port`
    (None: accepted, as Flask's test client and some scripts send a bare `localhost`). A
    configured `name` is accepted on any port, a configured `name:port` on that port only.
    """
    parts = _split(netloc)
    if parts is None:
        return False
    name, port = parts
    port = port if port is not None else default_port
    if name in extra or (port is not None and f"{name}:{port}" in extra):
        return True
    if name not in LOOPBACK_NAMES:
        return False
    return port is None or served_port is None or port == served_port


def _served_port() -> int | None:
    port = str(request.environ.get("SERVER_PORT", ""))
    return int(port) if port.isdigit() else None


def check_host() -> None:
    """Refuse (403) a request for another name: DNS rebinding, a foreign page's post.

    Runs before every route, static files, streams and downloads included.
    """
    extra = allowed_hosts(current_app.config.get("ALLOWED_HOSTS"))
    served = _served_port()
    host = request.headers.get("Host", "")
    if not host_allowed(host, served_port=served, extra=extra, default_port=None):
        abort(
            403,
            description=(
                f"Veil answers only on its own address (http://127.0.0.1:{served or 5000}); "
                "this request named another host. To reach Veil under another name, add it "
                "to VEIL_ALLOWED_HOSTS."
            ),
        )
    if request.method in SAFE_METHODS:
        return
    # Origin is what browsers send on a post; a script's post without one is fine (the CSRF
    # token still has to match). Our own page sends no Referer (Referrer-Policy).
    origin = request.headers.get("Origin")
    source = origin if origin is not None else request.headers.get("Referer")
    if source is None:
        return
    try:
        url = urlsplit(source.strip())
        allowed = url.scheme in DEFAULT_PORTS and host_allowed(
            url.netloc, served_port=served, extra=extra, default_port=DEFAULT_PORTS[url.scheme]
        )
    except ValueError:  # "http://[::1" and the like
        allowed = False
    if not allowed:
        abort(
            403,
            description="This change came from another web page, so Veil refused it. "
            "Use Veil's own page.",
        )


def check_csrf() -> None:
    """Refuse a state-changing request whose token is missing or wrong (400)."""
    if request.method in SAFE_METHODS:
        return
    expected = session.get(CSRF_FIELD)
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not expected or not given or not hmac.compare_digest(str(expected), given):
        abort(400, description="The security token is missing or out of date: reload the page.")


def image_kind(data: bytes) -> str | None:
    """'png', 'jpeg' or 'webp' when the bytes are one, else None."""
    for magic, kind in _IMAGE_MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def looks_like_ics(data: bytes) -> bool:
    """True when the bytes open like an iCalendar file or a bare event (after a BOM, blanks)."""
    head = data[:256].lstrip(b"\xef\xbb\xbf \t\r\n").upper()
    return head.startswith((b"BEGIN:VCALENDAR", b"BEGIN:VEVENT"))
