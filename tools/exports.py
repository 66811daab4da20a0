"""Reading a dropped or passed export (lang/exports) within the parser pool's limits.

The conversion itself is lang's (no Veil package below it is needed); this module adds what
the tools layer knows: which order the user's country writes a date in (the tie-breaker for a
WhatsApp export whose own dates read either way), and the worker pool that bounds a parse of
untrusted bytes in time and memory (tools/worker.py), so a hostile file stops there and the
server keeps serving.
"""

from __future__ import annotations

from lang import exports, zones
from lang.exports import Export
from tools import worker
from tools.calendar.lang import writes_day_first
from tools.errors import ExportFileError, UnknownExportError

# A year of a busy group chat reads in about a second here; a file that takes this long is
# not an export (bench/results/exports.md).
READ_SECONDS = 30.0
JSON_FORMATS = frozenset({"telegram", "signal", "slack"})


def read_export(data: bytes, name: str = "", *, tz: str | None = None) -> Export:
    """The export in `data` as canonical thread text (plain text comes back as it is).

    Raises:
        ExportFileError: The file is too big, damaged, hostile or not an export Veil reads,
            or its parse ran past the pool's time or memory limit; the message says why.
    """
    day_first = writes_day_first(tz, zones.zoneinfo_dir()) if tz else None
    pool = worker.shared_pool()
    try:
        if pool is None:
            return exports.read_export(data, name, tz=tz, day_first=day_first)
        return pool.run(
            read_slim, data, name, tz=tz, day_first=day_first,
            seconds=READ_SECONDS, what=name or "this export",
        )  # fmt: skip
    except exports.UnknownFormatError as error:
        raise UnknownExportError(str(error)) from None
    except exports.ExportError as error:
        raise ExportFileError(str(error)) from None
    except (worker.WorkerLimitError, worker.WorkerCrashError) as error:
        raise ExportFileError(f"{error}; export a shorter period of the chat") from None


def read_slim(data: bytes, name: str, *, tz: str | None, day_first: bool | None) -> Export:
    """`lang.exports.read_export` as a worker runs it: the messages' lines stay behind, since
    the canonical text already holds them."""
    return exports.read_export(data, name, tz=tz, day_first=day_first).slim()


def thread_text(text: str, *, tz: str | None = None) -> tuple[str, Export]:
    """A thread given as text (the MCP server's argument) in canonical form when it is a chat
    app's JSON export pasted whole; any other text unchanged."""
    if text.lstrip()[:1] not in ("{", "["):
        return text, Export(text, "paste")
    export = read_export(text.encode("utf-8"), "the pasted thread", tz=tz)
    if export.format not in JSON_FORMATS:  # "[10:02] Priya: hi" is read as pasted
        return text, Export(text, "paste")
    return export.text, export
