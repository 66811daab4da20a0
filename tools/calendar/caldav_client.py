"""The connection to the user's CalDAV server, and what its failures say.

One client per use, for exactly the URL the user gave: no DNS service discovery (RFC 6764), so
no other host is ever contacted. Every way a request can fail becomes one CalDAVError line that
says what to do, without the password or the server's reply in it.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from memory.caldav import CalDAVStore
from tools.calendar.caldav_secret import SecretStore
from tools.errors import CalDAVError, CalDAVUnreachableError

log = logging.getLogger(__name__)
# caldav logs every request and response body at DEBUG: event titles, attendees, real names.
logging.getLogger("caldav").setLevel(logging.INFO)

TIMEOUT_SECONDS = 10.0
REFUSED = (
    "the CalDAV server refused the user name or password (401); "
    "run `run.py calendar connect` again with the right ones (an app password for iCloud)"
)


def open_client(url: str, username: str, password: str, *, timeout: float = TIMEOUT_SECONDS):
    """A caldav client for exactly this URL: no DNS discovery, no second address."""
    from caldav import DAVClient

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CalDAVError(f"{url!r} is not an http(s) URL; give the CalDAV URL of your server")
    if parts.username or parts.password:
        raise CalDAVError("put the user name in --user and the password in the prompt, not the URL")
    return DAVClient(
        url=url,
        username=username,
        password=password,
        timeout=timeout,  # type: ignore[arg-type]  # niquests takes float seconds
        enable_rfc6764=False,
    )


def client_for(store: CalDAVStore, secrets: SecretStore, timeout: float) -> Any:
    """A client for the connected account, its password loaded from where it lives."""
    account = store.account()
    if account is None:
        raise CalDAVError("no CalDAV calendar is connected; run `run.py calendar connect URL`")
    password = secrets.load(account.url, account.username, account.secret)
    return open_client(account.url, account.username, password, timeout=timeout)


def canonical_url(url: object) -> str:
    """One spelling of a resource URL, for comparing and storing."""
    from caldav.lib.url import URL

    return str(URL.objectify(str(url)).canonical())


def text_of(data: object) -> str:
    """A reply body or object data as text."""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data or "")


def status_error(status: int, href: str) -> CalDAVError:
    """The one line for an HTTP status a request did not expect."""
    if status == 404:
        return CalDAVError(
            f"the calendar was not found on the server (404 for {where(href)}); "
            "check the URL with `run.py calendar connect`"
        )
    if status in (401, 403):
        return CalDAVError(REFUSED)
    if status == 409:
        return CalDAVError(
            f"the server refused the event (409 for {where(href)}): the calendar may be gone; "
            "check with `run.py calendar status` and connect again"
        )
    return CalDAVError(f"the CalDAV server answered {status} for {where(href)}")


def where(url: object) -> str:
    """host:port/path of a URL: enough to say where, never a user name or query."""
    parts = urlsplit(str(url))
    return f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


@contextmanager
def failures(url: object) -> Iterator[None]:
    """Turns every way a CalDAV request can fail into one CalDAVError line."""
    try:
        yield
    except CalDAVError:
        raise
    except Exception as error:
        # The type only: a library's message may quote the server's reply, with event text.
        log.debug("CalDAV request to %s failed: %s", where(url), type(error).__name__)
        kind = CalDAVUnreachableError if is_unreachable(error) else CalDAVError
        raise kind(describe(error, url)) from None


def is_unreachable(error: BaseException) -> bool:
    """Whether the server did not answer at all (down, timeout, TLS), as opposed to answering
    with something Veil cannot use."""
    import niquests

    return isinstance(
        error,
        niquests.exceptions.ConnectionError | niquests.exceptions.Timeout | ConnectionError
        | TimeoutError | ssl.SSLError | CalDAVUnreachableError,
    )  # fmt: skip


def describe(error: Exception, url: object = "") -> str:
    """One line for a failed CalDAV request, without the password or the server's body."""
    import niquests
    from caldav.lib import error as dav_error
    from lxml import etree

    host = urlsplit(str(url)).hostname or "the server"
    if isinstance(error, dav_error.AuthorizationError):
        return REFUSED
    if isinstance(error, dav_error.NotFoundError):
        return f"the calendar was not found on the server (404 at {where(url)}); check the URL"
    if isinstance(error, niquests.exceptions.Timeout | TimeoutError):
        return f"the CalDAV server did not answer in time ({host}); try again later"
    if isinstance(error, niquests.exceptions.SSLError | ssl.SSLError):
        return (
            f"TLS failed with {host}: its certificate could not be verified; check the URL "
            "(https) and the server's certificate"
        )
    if isinstance(error, niquests.exceptions.ConnectionError | ConnectionError):
        return f"could not reach the CalDAV server at {host} (is it running, is the URL right?)"
    if isinstance(error, etree.XMLSyntaxError | dav_error.DAVError | ValueError | KeyError):
        return (
            f"the CalDAV server at {host} sent a reply Veil could not read "
            f"({type(error).__name__}); nothing was changed"
        )
    return f"the CalDAV request to {host} failed ({type(error).__name__})"
