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
import ipaddress
import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Response, abort, current_app, g, request, session

TOKEN_PARAM = "token"  # ?token=... in the URL printed at start (as Jupyter's)
TOKEN_COOKIE = "veil_token"
TOKEN_HEADER = "X-Veil-Token"
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


def is_loopback_bind(host: str) -> bool:
    """Whether binding `host` keeps the server on this machine (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def new_access_token() -> str:
    """A token for a server reachable beyond loopback: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def access_url(host: str, port: int, token: str) -> str:
    """The URL printed once at start: the page, with the token that opens it."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/?{TOKEN_PARAM}={token}"


def _given_token() -> tuple[str, bool]:
    """The token this request carries, and whether it came in the URL."""
    in_url = request.args.get(TOKEN_PARAM, "")
    if in_url:
        return in_url, True
    header = request.headers.get(TOKEN_HEADER) or request.headers.get("Authorization", "")
    header = header.removeprefix("token ").removeprefix("Token ").removeprefix("Bearer ")
    return header or request.cookies.get(TOKEN_COOKIE, ""), False


def check_token() -> None:
    """With ACCESS_TOKEN set (always when bound beyond loopback), refuse (403) any request
    that does not carry it: in the URL, the X-Veil-Token or Authorization header, or the
    cookie set on first use. Runs before every route, so a request without it never sees
    the page, nor the CSRF token the page holds (issue 40)."""
    expected = current_app.config.get("ACCESS_TOKEN")
    if not expected:
        return
    given, in_url = _given_token()
    if not given or not hmac.compare_digest(given.encode(), str(expected).encode()):
        abort(
            403,
            description="This Veil needs its access token: open the address with ?token=... "
            "that Veil printed when it started (or send it in the X-Veil-Token header).",
        )
    if in_url:
        g.veil_token_seen = True


def remember_token(response: Response) -> Response:
    """After a token came in the URL, keep it in a cookie so the page's own requests carry it:
    HttpOnly (no script reads it), SameSite=Strict (no other site's request sends it)."""
    if g.pop("veil_token_seen", False):
        response.set_cookie(
            TOKEN_COOKIE,
            str(current_app.config["ACCESS_TOKEN"]),
            httponly=True,
            samesite="Strict",
            secure=request.is_secure,
        )
    return response


def check_host() -> None:
    """Refuse (403) a request for another name: DNS rebinding, a foreign page's post.

    Runs before every route, static files, streams and downloads included. Behind an access
    token (a server bound beyond loopback) the token is what admits a request, so any Host
    is served; a post must still come from a page of that same host.
    """
    extra = allowed_hosts(current_app.config.get("ALLOWED_HOSTS"))
    served = _served_port()
    host = request.headers.get("Host", "")
    if current_app.config.get("ACCESS_TOKEN"):
        extra = extra | allowed_hosts(host)
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
