"""A real CalDAV server for tests and the bench: Radicale (from PyPI) on a free loopback port.

Each server gets its own folder (collections, config, an htpasswd file with plain passwords),
runs as a subprocess of this interpreter, and can be killed and started again on the same
port and folder, which is how a server dying mid-write is tested. A missing Radicale is a
loud failure, never a skip: `pip install -e .[test]` installs it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

USER = "ana"
PASSWORD = "s3cret-Ap9-horse"
START_SECONDS = 30.0


def free_port() -> int:
    """A TCP port nobody listens on right now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RadicaleServer:
    """One Radicale process; `url` is its root, `calendar_url(name)` a calendar of USER."""

    def __init__(self, folder: Path, *, port: int | None = None) -> None:
        try:
            import radicale  # noqa: F401  # fail here, with the fix, not in a subprocess
        except ImportError as error:
            raise RuntimeError(
                "the CalDAV tests need Radicale: pip install 'radicale>=3.2' (the test extra)"
            ) from error
        self.folder = folder
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "users").write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
        (folder / "config").write_text(
            "[server]\n"
            f"hosts = 127.0.0.1:{self.port}\n"
            "[auth]\n"
            "type = htpasswd\n"
            f"htpasswd_filename = {folder / 'users'}\n"
            "htpasswd_encryption = plain\n"
            "delay = 0\n"
            "[rights]\n"
            "type = owner_only\n"
            "[storage]\n"
            f"filesystem_folder = {folder / 'collections'}\n"
            "[logging]\n"
            "level = warning\n"
            "mask_passwords = True\n",
            encoding="utf-8",
        )

    def calendar_url(self, name: str = "work") -> str:
        """The URL of USER's calendar `name` (make_calendar creates it)."""
        return f"{self.url}{USER}/{name}/"

    def start(self) -> RadicaleServer:
        """Start the process and wait until it answers on its port."""
        log = open(self.folder / "radicale.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--config", str(self.folder / "config")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        log.close()
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Radicale exited at start: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"Radicale did not listen within {START_SECONDS:.0f} s: {self.log_tail()}"
        )

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): no goodbye, as in a crash."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server and wait for it."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_tail(self) -> str:
        """The end of the server's log, for failure messages."""
        path = self.folder / "radicale.log"
        return path.read_text(errors="replace")[-1500:] if path.exists() else "(no log)"

    def make_calendar(self, name: str = "work") -> str:
        """Create USER's calendar `name` through the CalDAV client; returns its URL."""
        from caldav import DAVClient

        with DAVClient(url=self.url, username=USER, password=PASSWORD, enable_rfc6764=False) as c:
            c.principal().make_calendar(name=name, cal_id=name)
        return self.calendar_url(name)
