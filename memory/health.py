"""Whether the store can work, in words that say how to fix it, and the backup that fixes it.

A corrupt veil.db or a data folder that turned read-only used to give the same generic 500 on
every route while /healthz said ready; only the server log named the cause (issue 40). The web
app checks the store at start-up and before every request (a few system calls), runs SQLite's
own quick_check when a query fails, and keeps a rolling copy of veil.db made with SQLite's
backup API after each turn, so a damaged file loses at most the last turn.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memory.paths import DATABASE, PRIVATE_FILE

log = logging.getLogger(__name__)

BACKUP = f"{DATABASE}.backup"
SQLITE_MAGIC = b"SQLite format 3\x00"
# Seconds between two backups (0: after every turn, so a damaged file loses at most the last).
BACKUP_EVERY_S = 0.0
# Seconds between two thorough re-checks of a store found broken (so a fix is seen soon).
RECHECK_S = 2.0


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """`problem` is None when the store works; else one paragraph naming the file and the fix."""

    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


def _backup_note(folder: Path) -> str:
    backup = folder / BACKUP
    if not backup.is_file():
        return (
            f"There is no backup yet: move {folder / DATABASE} aside and Veil starts with an "
            "empty store."
        )
    saved = datetime.fromtimestamp(backup.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return (
        f"To restore the backup Veil keeps ({backup}, saved {saved}): stop Veil, move "
        f"{folder / DATABASE} aside, copy the backup to {folder / DATABASE}, and start Veil "
        "again."
    )


def _damaged(folder: Path, why: str) -> StoreHealth:
    return StoreHealth(
        f"Veil's database {folder / DATABASE} is damaged ({why}), so chats cannot be read or "
        f"saved. {_backup_note(folder)}"
    )


def _read_only(path: Path, what: str) -> StoreHealth:
    return StoreHealth(
        f"Veil cannot write to {what} {path} (it is read-only), so nothing can be saved. Make "
        f"it writable (chmod u+w {path}) or start Veil with --data-dir set to a writable "
        "folder."
    )


def _writable(path: Path) -> bool:
    """Whether this process may write `path` (a read-only mount counts as not)."""
    return os.access(path, os.W_OK)


def check_store(data_dir: str | Path, *, thorough: bool = False) -> StoreHealth:
    """The store's health: folder and file writable, the file an SQLite database; with
    `thorough`, SQLite's quick_check over every page as well."""
    folder = Path(data_dir)
    if not folder.is_dir():
        return StoreHealth(
            f"Veil's data folder {folder} is missing or not a folder. Create it, or start "
            "Veil with --data-dir set to a folder it can write."
        )
    if not _writable(folder):
        return _read_only(folder, "its data folder")
    database = folder / DATABASE
    if not database.exists():
        return StoreHealth()
    if not _writable(database):
        return _read_only(database, "its database")
    try:
        with open(database, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        return _damaged(folder, f"it cannot be read: {error.strerror or error}")
    if head and head != SQLITE_MAGIC:
        return _damaged(folder, "it is not an SQLite database")
    if thorough and head:
        why = _quick_check(database)
        if why:
            return _damaged(folder, why)
    return StoreHealth()


def _quick_check(database: Path) -> str | None:
    """SQLite's own check of every page, read-only; None when it passes."""
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            rows = connection.execute("PRAGMA quick_check").fetchall()
        finally:
            connection.close()
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            return None  # another connection is writing: busy, not broken
        return str(error)
    except sqlite3.DatabaseError as error:
        return str(error)
    if rows and rows[0][0] != "ok":
        return f"SQLite's check says: {str(rows[0][0])[:120]}"
    return None


def backup_store(data_dir: str | Path) -> Path | None:
    """Copy veil.db to veil.db.backup with SQLite's backup API (consistent while others
    write); only a database that passes quick_check replaces the last good copy. Returns the
    backup's path, or None when there was nothing (good) to copy."""
    folder = Path(data_dir)
    database = folder / DATABASE
    if not database.is_file() or database.stat().st_size == 0:
        return None
    if not check_store(folder, thorough=True).ok:
        log.warning("veil.db fails its check: the last backup is kept as it is")
        return None
    target = folder / BACKUP
    partial = folder / f"{BACKUP}.tmp"
    partial.unlink(missing_ok=True)
    # 0600 before SQLite writes a byte: the copy holds the same raw messages as the store
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    source = sqlite3.connect(database, timeout=10)
    copy = sqlite3.connect(partial)
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()
    os.replace(partial, target)
    return target


class StoreMonitor:
    """The web app's view of the store: a cheap check on every request, a thorough one after
    a query failed (until it passes again), and the rolling backup after turns."""

    def __init__(self, data_dir: str | Path, *, backup_every: float = BACKUP_EVERY_S) -> None:
        self.data_dir = Path(data_dir)
        self.backup_every = backup_every
        self._suspect: StoreHealth | None = None
        self._checked = 0.0
        self._backed_up = float("-inf")
        self._lock = threading.Lock()

    def current(self) -> StoreHealth:
        """The store's health now."""
        health = check_store(self.data_dir)
        if not health.ok:
            return health
        with self._lock:
            if self._suspect is None:
                return health
            if time.monotonic() - self._checked < RECHECK_S:
                return self._suspect
        return self.failed()

    def failed(self) -> StoreHealth:
        """A query failed: check every page; a problem found stays reported until it is gone."""
        health = check_store(self.data_dir, thorough=True)
        with self._lock:
            self._suspect = None if health.ok else health
            self._checked = time.monotonic()
        return health

    def backup(self, *, force: bool = False) -> Path | None:
        """The rolling backup, at most once every `backup_every` seconds unless forced."""
        with self._lock:
            if not force and time.monotonic() - self._backed_up < self.backup_every:
                return None
            self._backed_up = time.monotonic()
        try:
            return backup_store(self.data_dir)
        except (OSError, sqlite3.Error) as error:
            log.warning("the backup of veil.db failed: %s", error)
            return None
