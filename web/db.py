"""The memory store for a request (flaskr's get_db pattern): one connection per thread."""

from __future__ import annotations

from pathlib import Path

from flask import current_app, g
from sqlite_utils import Database

from memory.store import MemoryStore


def open_store(data_dir: str | Path) -> MemoryStore:
    """The memory store in the data folder's veil.db; the caller closes `store.db`."""
    return MemoryStore(Database(Path(data_dir) / "veil.db"))


def get_store() -> MemoryStore:
    """This request's store, opened on first use and closed when the request ends."""
    if "store" not in g:
        g.store = open_store(current_app.config["DATA_DIR"])
    return g.store


def close_store(_error: BaseException | None = None) -> None:
    """Teardown: close the request's connection if one was opened."""
    store = g.pop("store", None)
    if store is not None:
        store.db.close()
