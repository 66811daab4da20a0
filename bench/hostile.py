"""Hostile content against a running server (issue 40): each input's answer, time and memory,
whether /healthz kept answering within 1 s meanwhile, and whether anything was created.

The corpus lives in the repository: the .ics files under tests/data/hostile/, the injection
variants in tests/data/injections.jsonl, and the builders below for what is too big to keep
(a 199,000-character line, a 10,000-line thread, a 19-megapixel PNG, JSON nested 100,000 deep).
The server is `run.py serve --no-llm` on 127.0.0.1 with a fresh data folder; every request has
a deadline.

    python -m bench.hostile
"""

from __future__ import annotations

import http.cookiejar
import io
import json
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import psutil
from PIL import Image

from bench.common import run_notes, write_table
from bench.serve import _free_port, _rss
from bench.web import _serve

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
TZ = "Europe/Berlin"
DEADLINE_S = 60.0  # one input's answer; the issue asks for 5 s
HEALTH_LIMIT_S = 1.0
HEALTH_EVERY_S = 0.1
SAMPLE_EVERY_S = 0.05
SOON = f"{date.today() + timedelta(days=7):%Y%m%d}T100000"  # inside the import's window


@dataclass
class Outcome:
    """One input's row."""

    name: str
    kind: str
    status: str = ""
    seconds: float = 0.0
    peak_mib: float = 0.0
    health_max_s: float = 0.0
    health_missed: int = 0
    created: int = 0
    answer: str = ""


@dataclass
class Watch:
    """Samples the server's memory (its worker processes included) and probes /healthz on
    threads while one input runs."""

    process: psutil.Process
    base: str
    token: str
    baseline: int = 0
    peak: int = 0
    health: list[float] = field(default_factory=list)
    missed: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Watch:
        self.baseline = self.peak = _rss(self.process)
        self._threads = [
            threading.Thread(target=self._sample, daemon=True),
            threading.Thread(target=self._probe, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, _rss(self.process))
            except psutil.Error:
                pass
            time.sleep(SAMPLE_EVERY_S)

    def _probe(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                request = urllib.request.Request(
                    self.base + "/healthz", headers={"X-Veil-Token": self.token}
                )
                urllib.request.urlopen(request, timeout=HEALTH_LIMIT_S).close()
                self.health.append(time.perf_counter() - started)
            except (OSError, urllib.error.URLError):
                self.missed += 1
            time.sleep(HEALTH_EVERY_S)


class Client:
    """The page's view: a cookie jar and the CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        with self.opener.open(base + "/api/csrf", timeout=30) as answer:
            self.token = json.load(answer)["token"]

    def send(self, path: str, body: bytes, content_type: str) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path,
            data=body,
            headers={"Content-Type": content_type, "X-CSRF-Token": self.token},
        )
        try:
            with self.opener.open(request, timeout=DEADLINE_S) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            try:
                return error.code, json.load(error)
            except ValueError:
                return error.code, {"error": error.reason}

    def get(self, path: str) -> dict:
        with self.opener.open(self.base + path, timeout=30) as answer:
            return json.load(answer)

    def upload(self, name: str, data: bytes) -> tuple[int, dict]:
        boundary = uuid.uuid4().hex
        head = f"--{boundary}\r\nContent-Disposition: form-data; "
        body = (
            (
                f'{head}name="tz"\r\n\r\n{TZ}\r\n'
                f'{head}name="file"; filename="{name}"\r\nContent-Type: application/octet-stream'
                "\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        return self.send("/api/upload", body, f"multipart/form-data; boundary={boundary}")

    def turn(self, request: str, thread: str) -> tuple[str, dict]:
        """Start a turn and wait for its end; its status and payload."""
        body = json.dumps({"request": request, "thread": thread, "tz": TZ}).encode()
        code, started = self.send("/api/turns", body, "application/json")
        if code != 202:
            return str(code), started
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            payload = self.get(f"/api/turns/{started['turn']}")
            if payload["status"] != "running":
                return payload["status"], payload
            time.sleep(0.05)
        return "timeout", {}


# --- the corpus ------------------------------------------------------------------------------


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("1", (width, height), 1).save(out, format="PNG")
    return out.getvalue()


def _ics(*events: str) -> bytes:
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n"
    return (head + "".join(events) + "END:VCALENDAR\r\n").encode()


def _vevent(uid: str, *lines: str) -> str:
    body = "".join(f"{line}\r\n" for line in lines)
    return f"BEGIN:VEVENT\r\nUID:{uid}\r\n{body}SUMMARY:probe\r\nEND:VEVENT\r\n"


UPLOADS: dict[str, Callable[[], bytes]] = {
    # the kept file, its event moved into the import's window (a year ahead of today)
    "vtimezone-every-second-from-1601.ics": lambda: (
        (DATA / "hostile" / "vtimezone-every-second.ics")
        .read_bytes()
        .replace(b"20260305T100000", SOON.encode())
    ),
    "hourly-by-every-second-from-1900.ics": lambda: _ics(
        _vevent(
            "bomb",
            "DTSTART:19000101T000000Z",
            "RRULE:FREQ=HOURLY;BYMINUTE="
            + ",".join(map(str, range(60)))
            + ";BYSECOND="
            + ",".join(map(str, range(60))),
        )
    ),
    "end-before-start.ics": lambda: _ics(
        _vevent("e", f"DTSTART:{SOON}Z", f"DTEND:{SOON[:9]}090000Z")
    ),
    "unknown-tzid.ics": lambda: _ics(_vevent("z", f"DTSTART;TZID=Mars/Olympus:{SOON}")),
    "utf-16.ics": lambda: _ics(_vevent("u", f"DTSTART:{SOON}Z")).decode().encode("utf-16"),
    "19-megapixel.png": lambda: _png(4400, 4400),
    "40-megapixel.png": lambda: _png(6300, 6300),
    "tall-1440x6000.png": lambda: _png(1440, 6000),
    # chat exports (issue 41): a zip that unpacks to 256 MiB, a text mostly not UTF-8, and a
    # year of a group chat (20 MB, windowed to its recent days)
    "whatsapp-zip-bomb.zip": lambda: _zip({"_chat.txt": b"\0" * (1 << 28)}),
    "whatsapp-broken-utf8.txt": lambda: (
        b"[28/11/2026, 19:02:11] Sam: dinner tomorrow at 7:30?\n" + bytes(range(128, 256)) * 400
    ),
    "whatsapp-a-year.txt": lambda: _a_year_of_chat(),
}


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _a_year_of_chat() -> bytes:
    """A day-first WhatsApp export of a year, 600 messages a day, ending with a plan."""
    lines = []
    start = date.today() - timedelta(days=365)
    for day in range(365):
        stamp = (start + timedelta(days=day)).strftime("%d/%m/%Y")
        lines += [
            f"[{stamp}, {9 + i // 60:02d}:{i % 60:02d}:00] Sam: message {i}" for i in range(600)
        ]
    return "\n".join(lines).encode()


THREADS: dict[str, Callable[[], tuple[str, str]]] = {
    "199000-characters-one-line": lambda: (
        "",  # the thread alone, as pasted with an empty request
        ("Sam: lunch tomorrow at 1pm or friday at 3 maybe, 12:30 works too. " * 3000)[:199_000],
    ),
    "10000-lines": lambda: (
        "",  # the thread alone, as pasted with an empty request
        # 10,000 short lines, under the 200,000-character limit as the thread was
        "\n".join(f"Sam: {i % 12 + 1}pm friday?" for i in range(10_000)),
    ),
    "terminal-colour-codes": lambda: (
        "",
        "Tom: tomorrow\x1b[31m at 3pm\x1b[0m\nMe: sure",
    ),
}

BODIES: dict[str, Callable[[], bytes]] = {
    "json-100000-deep": lambda: ("[" * 100_000 + "]" * 100_000).encode(),
}


def injections() -> list[dict[str, str]]:
    """The injection variants kept in the repository: Veil's own, then the 153 written blind
    from issue 40's text (ids `blind-…`), then 60 more written blind later (ids `b2-…`, half
    of them at business hours), then 70 by a third helper (ids `b3-…`), 70 by a fourth, and
    60 each by a fifth, a sixth and a seventh (six or seven languages each)."""
    rows = []
    names = ("injections.jsonl", "injections_blind.jsonl", "injections_blind2.jsonl",
             "injections_blind3.jsonl", "injections_blind4.jsonl", "injections_blind5.jsonl",
             "injections_blind6.jsonl", "injections_blind7.jsonl")  # fmt: skip
    for name in names:
        text = (DATA / name).read_text(encoding="utf-8")
        rows += [json.loads(line) for line in text.split("\n") if line.strip()]  # not at U+2028
    return rows


# --- the run ---------------------------------------------------------------------------------


def _measure(row: Outcome, watch: Watch, work: Callable[[], None]) -> Outcome:
    started = time.perf_counter()
    with watch:
        work()
    row.seconds = time.perf_counter() - started
    row.peak_mib = max(0, watch.peak - watch.baseline) / 2**20
    row.health_max_s = max(watch.health, default=0.0)
    row.health_missed = watch.missed
    return row


def _short(text: object, limit: int = 70) -> str:
    words = " ".join(str(text or "").split()).replace("|", "/")
    return words if len(words) <= limit else words[: limit - 1] + "…"


def run() -> list[Outcome]:
    """Start the server and replay the whole corpus, one input at a time."""
    port = _free_port()
    token = ""  # loopback: no access token (tests/test_access_token.py covers the other case)
    with tempfile.TemporaryDirectory() as data_dir:
        process = _serve(port, data_dir, "--no-llm")
        try:
            base = f"http://127.0.0.1:{port}"
            client = Client(base)
            server = psutil.Process(process.pid)
            # warm: spaCy, Duckling and the OCR model load once, as after a first real use
            client.turn("lunch with Anna tomorrow at 1pm", "")
            client.upload("warm.png", _png(1080, 2400))
            rows = []
            for name, build in UPLOADS.items():
                rows.append(_upload(client, server, base, token, name, build()))
            for name, build in BODIES.items():
                rows.append(_body(client, server, base, token, name, build()))
            for name, build in THREADS.items():
                request, thread = build()
                rows.append(_turn(client, server, base, token, name, "thread", request, thread))
            for variant in injections():
                rows.append(
                    _turn(client, server, base, token, variant["id"], "injection",
                          variant["request"], variant["thread"])
                )  # fmt: skip
            return rows
        finally:
            process.kill()
            process.wait(timeout=30)


def _upload(
    client: Client, server: psutil.Process, base: str, token: str, name: str, data: bytes
) -> Outcome:
    row = Outcome(name, f"upload ({len(data):,} bytes)")

    def work() -> None:
        code, body = client.upload(name, data)
        row.status = str(code)
        row.created = int(body.get("imported") or 0)
        refused = "; ".join(r["reason"] for r in body.get("refused", []))
        row.answer = _short(body.get("error") or refused or body.get("message") or body.get("text"))

    return _measure(row, Watch(server, base, token), work)


def _body(
    client: Client, server: psutil.Process, base: str, token: str, name: str, data: bytes
) -> Outcome:
    row = Outcome(name, f"POST /api/turns ({len(data):,} bytes)")

    def work() -> None:
        code, body = client.send("/api/turns", data, "application/json")
        row.status = str(code)
        row.created = int(code == 202)
        row.answer = _short(body.get("error"))

    return _measure(row, Watch(server, base, token), work)


def _turn(
    client: Client,
    server: psutil.Process,
    base: str,
    token: str,
    name: str,
    kind: str,
    request: str,
    thread: str,
) -> Outcome:
    row = Outcome(name, f"{kind} ({len(thread):,} chars)")

    def work() -> None:
        status, payload = client.turn(request, thread)
        answer = payload.get("answer") or {}
        row.status = status if status == "done" else f"{status} {payload.get('code', '')}"
        row.created = sum(1 for e in answer.get("events", []) if e.get("status") == "created")
        row.answer = _short(payload.get("error") or answer.get("reply"))

    return _measure(row, Watch(server, base, token), work)


def main() -> None:
    """Replay the corpus and write bench/results/hostile.md."""
    rows = run()
    ok = [
        r for r in rows if r.seconds < 5 and r.peak_mib < 500 and r.health_max_s < HEALTH_LIMIT_S
        and not r.health_missed
    ]  # fmt: skip
    made = [r for r in rows if r.kind.startswith("injection") and r.created]
    shown_rows = [
        [
            r.name, r.kind, r.status, f"{r.seconds:.2f} s", f"{r.peak_mib:.0f} MiB",
            f"{r.health_max_s:.2f} s" + (f" ({r.health_missed} missed)" if r.health_missed else ""),
            r.created, r.answer,
        ]
        for r in rows
    ]  # fmt: skip
    count = sum(1 for r in rows if r.kind.startswith("injection"))
    write_table(
        "hostile",
        "Hostile content: answers, time, memory and /healthz while each input runs",
        [
            "input",
            "kind",
            "status",
            "time",
            "peak extra memory",
            "slowest /healthz",
            "created",
            "answer",
        ],
        shown_rows,
        notes=[
            f"{len(ok)} of {len(rows)} inputs answered within 5 s and 500 MiB of extra memory "
            "with every /healthz probe answered within 1 s; "
            f"{len(made)} of {count} injection variants created an event.",
            "`run.py serve --no-llm` on 127.0.0.1, a fresh data folder, one warm-up "
            "turn. Memory is the server's RSS with its parser workers, sampled every 50 ms, "
            "above what it held when the input was sent; /healthz is probed every 100 ms with a "
            "1 s timeout. `created` is events created by a turn, or imported by an upload "
            "(the UTF-16 file's one event is the expected import). Status 202 for the nested "
            "JSON would mean a turn was started.",
            *run_notes(None),
        ],
    )


if __name__ == "__main__":
    main()
