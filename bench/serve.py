"""`run.py serve`: cold start to the first served page, and memory idle and while generating."""

from __future__ import annotations

import http.cookiejar
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

from bench.common import median, write_table

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss(process: psutil.Process) -> int:
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def _start(port: int, data_dir: str) -> tuple[subprocess.Popen[bytes], float]:
    """Start serve and return it with the seconds until GET / answered 200."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "run.py"),
            "serve",
            "--port",
            str(port),
            "--data-dir",
            data_dir,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                if page.status == 200:
                    return process, time.perf_counter() - started
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise TimeoutError("serve did not answer in 120 s")


def _peak_during(process: psutil.Process, port: int) -> tuple[int, float]:
    """Peak RSS while one turn with the model runs, and the turn's seconds."""
    peak = _rss(process)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss(process))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    body = json.dumps({"request": "lunch with karthik next thursday at 1", "tz": "UTC"}).encode()
    # The page's session cookie carries the CSRF token every POST must echo.
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    token = json.load(opener.open(f"http://127.0.0.1:{port}/api/csrf"))["token"]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/ask",
        data=body,
        headers={"Content-Type": "application/json", "X-CSRF-Token": token},
    )
    started = time.perf_counter()
    with opener.open(request, timeout=120) as response:
        response.read()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    return peak, seconds


def main(repeat: int = 3) -> None:
    """Measure and write bench/results/serve.md."""
    starts, idle, peaks, turns = [], [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as data_dir:
            port = _free_port()
            process, seconds = _start(port, data_dir)
            try:
                starts.append(seconds)
                handle = psutil.Process(process.pid)
                time.sleep(1.0)
                idle.append(_rss(handle))
                peak, turn = _peak_during(handle, port)
                peaks.append(peak)
                turns.append(turn)
            finally:
                process.terminate()
                process.wait(timeout=30)
    mib = 1024 * 1024
    write_table(
        "serve",
        "`run.py serve` with the embedded model",
        ["measure", f"median of {repeat}"],
        [
            ["cold start to first served page (model loaded)", f"{median(starts):.2f} s"],
            ["peak RSS, idle", f"{median(idle) / mib:.0f} MiB"],
            ["peak RSS, during a turn with a generation", f"{median(peaks) / mib:.0f} MiB"],
            ["first turn through /api/ask", f"{median(turns):.2f} s"],
        ],
        ["The app loads the model at start-up (fail closed), so cold start includes the load."],
    )


if __name__ == "__main__":
    main()
