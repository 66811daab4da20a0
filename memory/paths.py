"""Where Veil keeps its data, and who may read it: the user alone.

The data folder holds raw messages, name maps and contacts, so it is 0700 and Veil's files in it
are 0600 whatever the umask says. Installs made before that rule are fixed at start-up.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import platformdirs

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
DATABASE = "veil.db"
# Veil's own files in the data folder; anything else the user keeps there is left alone.
_OWN_FILES = (
    DATABASE,
    f"{DATABASE}-wal",
    f"{DATABASE}-shm",
    f"{DATABASE}-journal",
    f"{DATABASE}.backup",  # memory/health.py's rolling copy
    "audit.jsonl",
    "secret_key",
    "caldav_secret",  # the CalDAV password when the OS has no keyring
    "facts.faiss",
    "facts.faiss.json",
    "facts.faiss.tmp",
)
_OWN_FOLDERS = ("files",)


def default_data_dir() -> Path:
    """The platform's per-user data folder for Veil (e.g. ~/.local/share/veil on Linux)."""
    return platformdirs.user_data_path("veil", appauthor=False)


def private_file(path: str | Path) -> None:
    """Make an existing file readable by its owner only (a link is left as it is).

    A file that goes away meanwhile is no error: SQLite removes its -wal and -shm files when the
    last connection of another app on the same folder closes.
    """
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.chmod(path, PRIVATE_FILE)
    except FileNotFoundError:
        return


def private_dir(path: str | Path) -> Path:
    """Create the folder if needed and make it the owner's alone."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    if not folder.is_symlink():
        os.chmod(folder, PRIVATE_DIR)
    return folder


def secure_data_dir(path: str | Path) -> Path:
    """Create or repair the data folder: 0700, Veil's files 0600, files/ all private.

    The database file is created here with 0600 before SQLite opens it, because SQLite gives
    its -wal and -shm files the database file's mode.
    """
    folder = private_dir(path)
    database = folder / DATABASE
    if not database.exists():
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    for name in _OWN_FILES:
        private_file(folder / name)
    for name in _OWN_FOLDERS:
        root = folder / name
        if root.is_dir() and not root.is_symlink():
            _private_tree(root)
    return folder


def _private_tree(root: Path) -> None:
    os.chmod(root, PRIVATE_DIR)
    for parent, dirs, names in os.walk(root):  # links are not followed
        for name in dirs:
            try:
                if stat.S_ISDIR(os.lstat(os.path.join(parent, name)).st_mode):
                    os.chmod(os.path.join(parent, name), PRIVATE_DIR)
            except FileNotFoundError:  # removed by a running app meanwhile
                continue
        for name in names:
            private_file(os.path.join(parent, name))
