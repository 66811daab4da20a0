"""Request hygiene: a CSRF token on every state-changing request, and file types read from bytes.

The page runs on the user's own machine, but any web page the user visits can still post to
127.0.0.1; the token (kept in the signed session cookie, echoed in a header or form field) is
what tells Veil's own page apart from such a page.
"""

from __future__ import annotations

import hmac
import secrets

from flask import abort, request, session

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

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
