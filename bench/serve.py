"""`run.py serve`: cold start to the page and to loaded, turn times, and memory over a session.

Every figure is measured on this tree and, when VEIL_BASELINE names a checkout of an older
commit (`git worktree add /tmp/veil-base <commit>`), on that one in the same run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import psutil

from bench.common import median, run_notes, shown, write_table

ROOT = Path(__file__).resolve().parent.parent
BIG_CALENDAR_EVENTS = 5000
LONG_SESSION_TURNS = 20
TURNS = (
    "lunch with karthik thursday next week at 1",
    "dinner with priya on friday at 7pm",
    "coffee with sam sometime next week",
    "what's on my calendar this week?",
    "email karthik about the budget",
)


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


def _start(tree: Path, port: int, data_dir: str) -> tuple[subprocess.Popen[bytes], float, float]:
    """Start serve; return it, the seconds until GET / answered 200, and when it was spawned."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            str(tree / "run.py"),
            "serve",
            "--port",
            str(port),
            "--data-dir",
            data_dir,
        ],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                if page.status == 200:
                    return process, time.perf_counter() - started, started
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise TimeoutError("serve did not answer in 120 s")


def _ready(port: int, started: float) -> float:
    """Seconds from spawn until /healthz says the background load ended (or the page, for a
    server that loads everything before it serves)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            health = json.load(answer)
        if health.get("ready", True):
            if health.get("error"):
                raise RuntimeError(f"warm-up failed: {health['error']}")
            return time.perf_counter() - started
        time.sleep(0.05)
    raise TimeoutError("serve was not ready in 300 s")


def measure(tree: Path, repeat: int, big: bytes) -> dict[str, float]:
    """One tree's figures: `repeat` cold starts, then one long session on a big calendar."""
    from bench.load import Client

    figures: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    for round_ in range(repeat):
        with tempfile.TemporaryDirectory() as data_dir:
            port = _free_port()
            process, page, started = _start(tree, port, data_dir)
            try:
                add("page_s", page)
                add("ready_s", _ready(port, started))
                handle = psutil.Process(process.pid)
                add("idle_rss", _rss(handle))
                client = Client(f"http://127.0.0.1:{port}")
                add("first_turn_s", _timed(client.turn, TURNS[0]))
                warm = [_timed(client.turn, TURNS[n % len(TURNS)]) for n in range(5)]
                add("warm_turn_s", median(warm))
                add("five_turns_rss", _rss(handle))
                if round_ == 0:  # the long session: a big calendar, then many turns
                    client.upload("big.ics", big)
                    for n in range(LONG_SESSION_TURNS):
                        client.turn(TURNS[n % len(TURNS)])
                    add("big_session_rss", _rss(handle))
            finally:
                process.terminate()
                process.wait(timeout=30)
    return {name: median(values) for name, values in figures.items()}


def _timed(work: Callable[[str], None], text: str) -> float:
    started = time.perf_counter()
    work(text)
    return time.perf_counter() - started


def main(repeat: int = 3) -> None:
    """Measure this tree (and VEIL_BASELINE's) and write bench/results/serve.md."""
    from bench.load import calendar

    trees = {"this tree": ROOT}
    baseline = os.environ.get("VEIL_BASELINE")
    if baseline:
        trees["baseline"] = Path(baseline).resolve()
    big = calendar(0, events=BIG_CALENDAR_EVENTS, days=360)
    results = {label: measure(tree, repeat, big) for label, tree in trees.items()}
    mib = 1024 * 1024
    spec = [
        ("cold start to the first served page", "page_s", 1.0, "s", "≤ 3 s"),
        ("cold start until spaCy, Duckling and the model are loaded", "ready_s", 1.0, "s", ""),
        ("first turn (after loading)", "first_turn_s", 1.0, "s", "≤ 3 s"),
        ("warm turn (median of 5)", "warm_turn_s", 1.0, "s", "≤ 1.5 s"),
        ("RSS, idle after loading", "idle_rss", mib, "MiB", ""),
        ("RSS after 6 turns", "five_turns_rss", mib, "MiB", "≤ 1.2 GiB"),
        (f"RSS after a {BIG_CALENDAR_EVENTS:,}-event import and {LONG_SESSION_TURNS} more turns",
         "big_session_rss", mib, "MiB", "≤ 1.2 GiB"),
    ]  # fmt: skip
    header = ["measure", *(f"{label} (median of {repeat})" for label in results)]
    if baseline:
        header.append("this / baseline")
    header.append("target")
    rows = []
    for title, key, scale, unit, target in spec:
        row = [title]
        for figures in results.values():
            value = figures.get(key)
            row.append("–" if value is None else shown(value / scale, unit))
        if baseline:
            new, old = results["this tree"].get(key), results["baseline"].get(key)
            row.append(f"{new / old:.2f}×" if new and old else "–")
        rows.append([*row, target])
    notes = [
        "`run.py serve` with the embedded model on 127.0.0.1, a fresh data folder per start. "
        "Turns go through the page's own POST /api/turns and its event stream (bench/load.py's "
        "client), each with a two-line pasted thread that names a person.",
        "The server answers its page at once and loads spaCy, Duckling and the model on a thread "
        "(web/warmup.py); a turn sent before that waits. Turn timings start after loading.",
        f"The long session (first start only): a calendar of {BIG_CALENDAR_EVENTS:,} events in "
        f"the year ahead imported through /api/upload, then {LONG_SESSION_TURNS} turns.",
    ]
    notes += run_notes(baseline)
    write_table("serve", "`run.py serve` with the embedded model (bench/serve.py)", header, rows,
                notes)  # fmt: skip


if __name__ == "__main__":
    main()
