"""Errors raised by Veil's tools."""


class ToolError(Exception):
    """Base class for every error raised by a tool."""


class TimeParseError(ToolError):
    """The time parser could not run (bad zone, bad anchor time)."""


class IcsError(ToolError):
    """An .ics file that cannot be imported; the message is one line saying why."""


class CalDAVError(ToolError):
    """The user's CalDAV server could not be used; the message is one line saying why and
    what to do. Nothing is lost when it is raised: Veil's store keeps the event."""


class CalDAVUnreachableError(CalDAVError):
    """The CalDAV server did not answer (down, timeout, TLS): trying more requests now would
    only wait longer, so a round of writes stops at the first one."""


class ExportFileError(ToolError):
    """A chat export or mail file that cannot be read; the message says why and what to do.
    Nothing is changed when it is raised."""


class UnknownExportError(ExportFileError):
    """A file that is no export Veil reads at all (binary data, another archive or JSON)."""
