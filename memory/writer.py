"""One writer per database file: every write transaction of this process takes its turn.

SQLite allows one writer at a time. Left to itself, a deferred transaction that read first and
writes second fails at once with "database is locked" when another connection committed in
between (the busy handler is not even asked), and twenty threads that each wait on the busy
handler give up after its timeout. So a write here holds a process-wide lock for its file and
opens with `BEGIN IMMEDIATE` (the write lock up front, no upgrade to lose), and every connection
waits up to BUSY_TIMEOUT_MS for a writer in another process (the CLI next to the server).
Readers never wait: the database runs in WAL mode.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

BUSY_TIMEOUT_MS = 10_000

_locks: dict[str, threading.RLock] = {}
_locks_guard = threading.Lock()


def database_file(db: Database) -> str:
    """The main file's real path, or "" for an in-memory database."""
    return str(db.execute("PRAGMA database_list").fetchone()[2] or "")


def writer_lock(db: Database) -> threading.RLock:
    """The lock every writer of this database file in this process shares."""
    name = database_file(db)
    key = os.path.realpath(name) if name else f"memory:{id(db.conn)}"
    with _locks_guard:
        return _locks.setdefault(key, threading.RLock())


def prepare(db: Database) -> None:
    """Per connection: wait for another process's writer instead of failing at once."""
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


@contextmanager
def write(db: Database) -> Iterator[Database]:
    """A write transaction: committed on leaving, rolled back on any exception.

    Nested calls on the same connection join the outer transaction (a savepoint), so store
    methods that write can call each other.
    """
    with writer_lock(db):
        if db.conn.in_transaction:
            with db.atomic():
                yield db
            return
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            _rollback(db)
            raise
        try:
            db.conn.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise


def _rollback(db: Database) -> None:
    if db.conn.in_transaction:
        try:
            db.conn.execute("ROLLBACK")
        except sqlite3.Error:  # the failure already ended the transaction
            pass
