"""Bytes of an export as text, and the files of a zipped export, both within fixed bounds.

An export comes from someone's phone or a download folder: it may be a zip bomb (a member
that claims or inflates to gigabytes), name a member "../../.bashrc", or hold bytes that are
not UTF-8. Each case is a clear ExportError, never a traceback or a hung server; nothing is
ever extracted to disk.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from lang.exports.canonical import ExportError, UnknownFormatError

MAX_EXPORT_BYTES = 64 * 1024 * 1024  # an export, or everything read out of a zip
MAX_MEMBERS = 50_000  # a Slack workspace: a file per channel per day
# Past this share of undecodable bytes a file is not text in another encoding's clothes but
# another encoding (or no text at all): refused, since guessing would misread every name.
MAX_BROKEN_SHARE = 0.01
_CHUNK = 1024 * 1024
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Text:
    """Decoded text and a note when bytes had to be replaced."""

    text: str
    note: str | None = None


def mb(size: int) -> str:
    """A size in megabytes as a person reads it."""
    return f"{size / 1_048_576:.1f} MB" if size < 10 * 1_048_576 else f"{size // 1_048_576} MB"


def decode(data: bytes, what: str) -> Text:
    """`data` as text: UTF-8 (with or without its BOM), UTF-16 or UTF-32 with a BOM, UTF-16
    without one when every other byte is NUL; else UTF-8 with each broken sequence shown as
    U+FFFD and a note saying how many, up to MAX_BROKEN_SHARE of the bytes.

    Raises:
        ExportError: Binary data, or bytes that are mostly not UTF-8.
    """
    if data[:4].startswith(_UTF32_BOMS):
        encoding = "utf-32"
    elif data[:2] in _UTF16_BOMS:
        encoding = "utf-16"
    elif len(data) >= 8 and data[1:64:2].count(0) >= 24 and not data[0:64:2].count(0):
        encoding = "utf-16-le"  # "h\0i\0": Windows tools write UTF-16 without a BOM
    elif len(data) >= 8 and data[0:64:2].count(0) >= 24 and not data[1:64:2].count(0):
        encoding = "utf-16-be"
    else:
        encoding = "utf-8-sig"
    if encoding != "utf-8-sig":
        try:
            return Text(data.decode(encoding).lstrip("\ufeff"))
        except UnicodeDecodeError:
            raise ExportError(
                f"{what} says it is UTF-16 or UTF-32 text but does not decode as such; "
                "export it again"
            ) from None
    head = data[:65536]
    if head.count(0) > max(8, len(head) // 100):  # a stray NUL is dropped later, as in a paste
        raise UnknownFormatError(f"{what} is binary data, not a text export")
    try:
        return Text(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8-sig", errors="replace")
    broken = text.count("\ufffd") - data.count("\ufffd".encode())
    if broken > max(16, len(data) * MAX_BROKEN_SHARE):
        raise ExportError(
            f"{what} is not UTF-8 text ({broken:,} bytes do not decode): export it again, or "
            "save it as UTF-8 and try once more; nothing was read"
        )
    return Text(
        text,
        f"{broken:,} byte(s) of {what} were not valid UTF-8; they show as \ufffd and the rest "
        "was read as written.",
    )


def is_zip(data: bytes) -> bool:
    """Whether the bytes open like a zip archive (its magic, not its name)."""
    return data[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def _safe_name(name: str) -> bool:
    """A member name that stays inside the archive: relative, no "..", no drive letter."""
    parts = name.replace("\\", "/").split("/")
    return not (
        name.startswith(("/", "\\")) or _DRIVE_RE.match(name) or ".." in parts or "\x00" in name
    )


class Archive:
    """A zip export read member by member, each read bounded whatever its header claims.

    Raises:
        ExportError: Not a readable zip, too many members, or a member name that leaves the
            archive ("../x", "/etc/x", "C:\\x").
    """

    def __init__(self, data: bytes) -> None:
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
            raise ExportError(
                f"the zip archive cannot be read ({error}); export it again"
            ) from None
        if len(infos) > MAX_MEMBERS:
            raise ExportError(
                f"the zip archive holds {len(infos):,} files, more than the {MAX_MEMBERS:,} an "
                "export needs; zip the chat's own files"
            )
        for info in infos:
            if not _safe_name(info.filename):
                raise ExportError(
                    f"the zip archive holds a file named {info.filename[:80]!r}, which points "
                    "outside the archive; Veil reads no such archive"
                )
        self.names = [i.filename for i in infos if not i.is_dir()]
        self._infos = {i.filename: i for i in infos}
        self.read_bytes = 0  # everything read so far counts against MAX_EXPORT_BYTES

    def read(self, name: str) -> bytes:
        """One member's bytes, stopped at the export budget even when its header lies.

        Raises:
            ExportError: The member is encrypted, compressed in a way zip readers lack, or
                inflates past the budget (a zip bomb).
        """
        info = self._infos[name]
        budget = MAX_EXPORT_BYTES - self.read_bytes
        if info.file_size > budget:
            raise ExportError(
                f"{name[:80]} in the zip archive unpacks to {mb(info.file_size)}, over the "
                f"{mb(MAX_EXPORT_BYTES)} Veil reads from an export; export a shorter period"
            )
        chunks: list[bytes] = []
        size = 0
        try:
            with self._zip.open(info) as member:
                while chunk := member.read(_CHUNK):
                    size += len(chunk)
                    if size > budget:
                        raise ExportError(
                            f"{name[:80]} in the zip archive unpacks to more than its header "
                            f"says, past the {mb(MAX_EXPORT_BYTES)} Veil reads from an "
                            "export; this archive is refused"
                        )
                    chunks.append(chunk)
        except (RuntimeError, NotImplementedError) as error:  # encrypted, or deflate64
            raise ExportError(f"{name[:80]} in the zip archive cannot be read: {error}") from None
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
            raise ExportError(f"{name[:80]} in the zip archive is damaged ({error})") from None
        self.read_bytes += size
        return b"".join(chunks)
