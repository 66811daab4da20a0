"""Load on loopback: many turns and calendar imports at once against `run.py serve`.

Issue 17 found that two concurrent turns already failed with "database is locked" and that
18 of 20 stayed `running` for good. This bench starts the real server twice (rules only, then
the embedded model), fires a bounded number of clients at it together, each with its own
cookie and CSRF token as the page has, and counts what finished. Every request goes to
127.0.0.1; every wait has a deadline.

    python -m bench.load
"""

from __future__ import annotations

import http.cookiejar
import json
import sqlite3
import statistics
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import psutil

from bench.common import write_table
from bench.serve import _free_port, _rss
from bench.web import _serve

RULE_TURNS = 20
MODEL_TURNS = 4
IMPORTS = 8
REQUEST_TIMEOUT_S = 300.0  # one turn's stream, the embedded model queued behind three others
PHASE_DEADLINE_S = 600.0
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
THREAD = "Karthik Rao: can we meet next week? I'm free most mornings"


@dataclass
class Phase:
    """What one kind of work did under load: seconds of each finished one, each failure."""

    label: str
    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, work: Callable[[], None]) -> None:
        started = time.perf_counter()
        try:
            work()
        except Exception as error:  # a failed request is the measurement, not a crash
            with self.lock:
                self.failures.append(f"{type(error).__name__}: {error}"[:200])
            return
        with self.lock:
            self.seconds.append(time.perf_counter() - started)


class Client:
    """One browser tab: its own cookie jar and CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        with self.opener.open(base + "/api/csrf", timeout=30) as answer:
            self.token = json.load(answer)["token"]

    def post(self, path: str, body: bytes, content_type: str) -> dict:
        request = urllib.request.Request(
            self.base + path,
            data=body,
            headers={"Content-Type": content_type, "X-CSRF-Token": self.token},
        )
        with self.opener.open(request, timeout=REQUEST_TIMEOUT_S) as answer:
            return json.load(answer)

    def turn(self, text: str) -> None:
        """Start a turn, follow its stream to the end, and insist it finished done."""
        body = json.dumps({"request": text, "thread": THREAD, "tz": "Europe/Berlin"}).encode()
        started = self.post("/api/turns", body, "application/json")
        with self.opener.open(self.base + started["events"], timeout=REQUEST_TIMEOUT_S) as stream:
            for raw in stream:
                if raw.startswith(b"event: end"):
                    break
        with self.opener.open(f"{self.base}/api/turns/{started['turn']}", timeout=30) as answer:
            status = json.load(answer)
        if status["status"] != "done":
            raise RuntimeError(f"turn ended {status['status']}: {status['error']}")

    def upload(self, name: str, data: bytes) -> None:
        """Import one .ics the way the page's drop zone does (multipart form)."""
        boundary = uuid.uuid4().hex
        head = f"--{boundary}\r\nContent-Disposition: form-data; "
        body = (
            (
                f'{head}name="tz"\r\n\r\nEurope/Berlin\r\n'
                f'{head}name="file"; filename="{name}"\r\nContent-Type: text/calendar\r\n\r\n'
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        answer = self.post("/api/upload", body, f"multipart/form-data; boundary={boundary}")
        if answer.get("kind") != "ics" or not answer.get("imported"):
            raise RuntimeError(f"import did not store events: {answer}")


def calendar(number: int, events: int = 40, days: int | None = None) -> bytes:
    """A real-looking calendar: `events` meetings over the coming weeks, one a day unless
    `days` packs them into that many days (all inside the import's year ahead)."""
    today = date.today()
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Veil bench//EN"]
    for n in range(events):
        stamp = f"{today + timedelta(days=(n % days if days else n) + 1):%Y%m%d}"
        lines += [
            "BEGIN:VEVENT",
            f"UID:load-{number}-{n}@bench",
            "DTSTAMP:20260101T000000Z",
            f"DTSTART;TZID=Europe/Berlin:{stamp}T{9 + n % 8:02d}0000",
            f"DTEND;TZID=Europe/Berlin:{stamp}T{10 + n % 8:02d}0000",
            f"SUMMARY:Review {number}.{n}",
            "END:VEVENT",
        ]
    return ("\r\n".join([*lines, "END:VCALENDAR"]) + "\r\n").encode()


def _percentile(values: list[float], q: float) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.2f} s"
    return f"{statistics.quantiles(values, n=100, method='inclusive')[q - 1]:.2f} s"


def _left_running(data_dir: str) -> int:
    with sqlite3.connect(Path(data_dir) / "veil.db", timeout=10) as db:
        return int(db.execute("SELECT count(*) FROM turns WHERE status = 'running'").fetchone()[0])


def run_load(
    flags: tuple[str, ...], turns: int, imports: int, label: str
) -> tuple[list[Phase], int, int]:
    """Start a server, fire `turns` turns and `imports` imports at once; the phases, the peak
    RSS of the server and the turns it left `running`."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        process = _serve(port, data_dir, *flags)
        handle = psutil.Process(process.pid)
        peak = _rss(handle)
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                try:
                    peak = max(peak, _rss(handle))
                except psutil.Error:
                    return
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        try:
            base = f"http://127.0.0.1:{port}"
            Client(base).turn("lunch with Karthik Rao friday next week at 1pm")  # warm-up
            sampler.start()
            turn_phase, import_phase = Phase(f"turns, {label}"), Phase(".ics imports")
            clients = [Client(base) for _ in range(turns + imports)]
            with ThreadPoolExecutor(max_workers=turns + imports) as pool:
                futures = [
                    pool.submit(
                        turn_phase.record,
                        lambda c=c, i=i: c.turn(
                            f"coffee with Karthik Rao next {DAYS[i % 5]} at {8 + i % 9}am"
                        ),
                    )
                    for i, c in enumerate(clients[:turns])
                ]
                futures += [
                    pool.submit(
                        import_phase.record,
                        lambda c=c, i=i: c.upload(f"team-{i}.ics", calendar(i)),
                    )
                    for i, c in enumerate(clients[turns:])
                ]
                deadline = time.monotonic() + PHASE_DEADLINE_S
                for future in futures:
                    future.result(timeout=max(1.0, deadline - time.monotonic()))
            done.set()
            left = _left_running(data_dir)
        finally:
            done.set()
            process.terminate()
            process.wait(30)
    phases = [turn_phase] + ([import_phase] if imports else [])
    return phases, peak, left


def main() -> None:
    """Write bench/results/load.md."""
    rows = []
    notes = []
    for flags, turns, imports, label in (
        (("--no-llm",), RULE_TURNS, IMPORTS, "rules only (--no-llm)"),
        ((), MODEL_TURNS, 0, "embedded SmolLM2"),
    ):
        phases, peak, left = run_load(flags, turns, imports, label)
        for phase, running in zip(phases, (str(left), "–"), strict=False):
            rows.append(
                [
                    phase.label,
                    len(phase.seconds) + len(phase.failures),
                    len(phase.seconds),
                    len(phase.failures),
                    _percentile(phase.seconds, 50),
                    _percentile(phase.seconds, 90),
                    f"{peak / 1024**2:.0f} MiB",
                    running,
                ]
            )
            notes += [f"- {phase.label}: {failure}" for failure in phase.failures[:3]]
    write_table(
        "load",
        "Load on loopback: concurrent turns and calendar imports",
        ["work", "sent", "completed", "failed", "p50", "p90", "peak RSS (server)",
         "turns left running"],
        rows,
        notes=[
            f"`run.py serve` on 127.0.0.1, a fresh data folder each run, one warm-up turn. "
            f"{RULE_TURNS} turns and {IMPORTS} .ics imports (40 events each) start together on "
            f"the rules-only server; {MODEL_TURNS} turns start together on the embedded model "
            "(they take turns at the one generation slot). Each client holds its own cookie and "
            "CSRF token; a turn counts as completed when its event stream ended and its status "
            "is `done`. Latency is from the POST to that status; peak RSS is the server's "
            "during the run.",
            *(["", "Failures (first three of each kind):", *notes] if notes else []),
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
