"""Errors of the web front-end."""


class WebError(Exception):
    """Base class for the web package's own errors."""


class StartupError(WebError):
    """The app cannot start as configured; the message says what to change."""
