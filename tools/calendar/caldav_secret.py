"""Where the CalDAV password (or app token) lives: the OS keyring, else a 0600 file.

The password is the one secret Veil holds for another service, so it is kept out of everything
Veil writes for itself: never in SQLite, a prompt, the audit log, a log line or a bundle. The
database names only *where* it is. On a machine with no usable keyring (a headless Linux box,
a container) it goes to `caldav_secret` in the data folder, created 0600 and refused if anyone
else may read it.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from tools.errors import CalDAVError

log = logging.getLogger(__name__)

SERVICE = "veil-caldav"
SECRET_FILE = "caldav_secret"


def _key(url: str, username: str) -> str:
    return f"{username}@{url}"


def keyring_usable() -> bool:
    """Whether the OS offers a real keyring (the fail and null backends are no keyring)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return False
    backend = keyring.get_keyring()
    names = {type(backend).__module__, type(backend).__name__}
    if isinstance(backend, fail.Keyring) or "keyring.backends.null" in names:
        return False
    return getattr(backend, "priority", 0) > 0


class SecretStore:
    """Saves and loads the CalDAV password for one data folder.

    Args:
        data_dir: Veil's data folder (the file's home when there is no keyring).
        use_keyring: True/False to force a place; None picks the keyring when one is usable.
    """

    def __init__(self, data_dir: str | Path, *, use_keyring: bool | None = None) -> None:
        self.path = Path(data_dir) / SECRET_FILE
        self.use_keyring = keyring_usable() if use_keyring is None else use_keyring

    def save(self, url: str, username: str, password: str) -> str:
        """Keep the password; returns where it went ("keyring" or "file")."""
        if not password:
            raise CalDAVError("an empty password cannot be saved; give the app password")
        if self.use_keyring:
            import keyring

            try:
                keyring.set_password(SERVICE, _key(url, username), password)
                return "keyring"
            except keyring.errors.KeyringError as error:
                log.warning("keyring refused the CalDAV password (%s); using a 0600 file",
                            type(error).__name__)  # fmt: skip
        secrets = self._read_file()
        secrets[_key(url, username)] = password
        self._write_file(secrets)
        return "file"

    def load(self, url: str, username: str, where: str) -> str:
        """The saved password, or CalDAVError saying how to save it again."""
        password: str | None
        if where == "keyring":
            import keyring

            try:
                password = keyring.get_password(SERVICE, _key(url, username))
            except keyring.errors.KeyringError as error:
                raise CalDAVError(
                    f"the OS keyring could not be read ({type(error).__name__}); unlock it or "
                    "run `run.py calendar connect` again"
                ) from None
        else:
            password = self._read_file().get(_key(url, username))
        if not password:
            raise CalDAVError(
                f"no saved CalDAV password for {username} (looked in the {where}); "
                "run `run.py calendar connect` again"
            )
        return password

    def delete(self, url: str, username: str, where: str) -> None:
        """Forget the password (disconnect)."""
        if where == "keyring":
            import keyring

            try:
                keyring.delete_password(SERVICE, _key(url, username))
            except keyring.errors.KeyringError:
                pass  # already gone
            return
        secrets = self._read_file()
        if secrets.pop(_key(url, username), None) is None:
            return
        if secrets:
            self._write_file(secrets)
        else:
            self.path.unlink()  # the last secret: no file left behind

    def _read_file(self) -> dict[str, str]:
        try:
            info = self.path.lstat()
        except FileNotFoundError:
            return {}
        if not stat.S_ISREG(info.st_mode):
            raise CalDAVError(f"{self.path} is not a plain file; remove it and connect again")
        if info.st_mode & 0o077:
            raise CalDAVError(
                f"{self.path} may be read by others (mode {stat.S_IMODE(info.st_mode):o}); "
                f"run `chmod 600 {self.path}` or connect again"
            )
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CalDAVError(f"{self.path} cannot be read ({type(error).__name__}); "
                              "remove it and connect again") from None  # fmt: skip
        return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}

    def _write_file(self, secrets: dict[str, str]) -> None:
        """Write through a new 0600 file and rename it, so the secret is never world-readable,
        not even for a moment, whatever the umask."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_name(f".{SECRET_FILE}.{os.getpid()}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(descriptor, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(secrets, handle)
            os.replace(temporary, self.path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
