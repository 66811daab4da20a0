"""The chat page: its weight, its first paint, and how soon a turn's live trace starts to move.

Starts `run.py serve` as a user would (rules only, then the embedded model), posts turns the
way the page does (CSRF token, JSON) and reads the Server-Sent Events stream. First paint is
read in Debian's Chromium (the browser tests' one) from the Paint Timing API.

    python -m bench.web            # the whole table
    python -m bench.web --page     # page weight and first paint only (seconds, rules only)
"""

from __future__ import annotations

import gzip
import http.cookiejar
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench.common import median, run_notes, write_table
from bench.serve import ROOT, _free_port

TURNS = 3
PAINT_LOADS = 7
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")  # a new event each turn
REQUEST = "lunch with Karthik Rao next {day} at 1pm at Blue Bottle, draft a reply"
THREAD = "Karthik Rao: lunch next week? I'm free Thursday after 12:30"


def _serve(port: int, data_dir: str, *flags: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), "serve", "--port", str(port), "--data-dir",
         data_dir, *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise TimeoutError("serve did not answer in 180 s")


def _fetch(url: str) -> tuple[bytes, int]:
    """A body as a browser gets it (gzip accepted): the decoded bytes and the bytes sent."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        sent = response.read()
        zipped = response.headers.get("Content-Encoding") == "gzip"
    return (gzip.decompress(sent) if zipped else sent), len(sent)


def page_weight(base: str) -> tuple[int, int, int]:
    """Bytes of the page and everything it loads: decoded, transferred, number of requests."""
    html, html_sent = _fetch(base + "/")
    assets = re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)
    fetched = [(html, html_sent)] + [_fetch(base + a.decode()) for a in assets]
    return sum(len(b) for b, _ in fetched), sum(n for _, n in fetched), len(fetched)


def first_paint(base: str, loads: int = PAINT_LOADS) -> float:
    """Median milliseconds to first contentful paint of the page in headless Chromium,
    over `loads` fresh contexts (no cache carried over), at a desktop width."""
    from playwright.sync_api import sync_playwright

    from bench.journeys import CHROMIUM

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            for _ in range(loads):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                page.goto(base + "/", wait_until="load")
                paint = page.wait_for_function(
                    "() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime"
                ).json_value()
                times.append(float(paint))
                context.close()
        finally:
            browser.close()
    return median(times)


def page_only() -> tuple[tuple[int, int, int], float]:
    """Page weight and first paint against a fresh rules-only server."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        process = _serve(port, data_dir, "--no-llm")
        try:
            base = f"http://127.0.0.1:{port}"
            return page_weight(base), first_paint(base)
        finally:
            process.terminate()
            process.wait(30)


def timed_turn(
    base: str, opener: urllib.request.OpenerDirector, token: str, day: str
) -> dict[str, float]:
    """Seconds from the POST to the first trace event, to the finished plan, and to the end."""
    started = time.perf_counter()
    request = REQUEST.format(day=day)
    body = json.dumps({"request": request, "thread": THREAD, "tz": "Europe/Berlin"}).encode()
    post = urllib.request.Request(
        base + "/api/turns",
        data=body,
        headers={"Content-Type": "application/json", "X-CSRF-Token": token},
    )
    turn = json.load(opener.open(post))
    marks: dict[str, float] = {}
    with opener.open(base + turn["events"], timeout=600) as stream:
        for raw in stream:
            line = raw.decode().strip()
            if line.startswith("event: end"):
                marks["end"] = time.perf_counter() - started
                break
            if line.startswith("data: "):
                event = json.loads(line[6:])
                marks.setdefault("first", time.perf_counter() - started)
                if event.get("stage") == "plan" and event.get("status") == "ok":
                    marks.setdefault("plan", time.perf_counter() - started)
    status = json.load(opener.open(f"{base}/api/turns/{turn['turn']}"))
    if status["status"] != "done":
        raise RuntimeError(f"turn ended {status['status']}: {status['error']}")
    return marks


def measure(flags: tuple[str, ...]) -> tuple[list[dict[str, float]], tuple[int, int, int]]:
    """TURNS timed turns (after one warm-up) against a fresh server."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        process = _serve(port, data_dir, *flags)
        try:
            base = f"http://127.0.0.1:{port}"
            opener = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
            )
            token = json.load(opener.open(base + "/api/csrf"))["token"]
            timed_turn(base, opener, token, DAYS[-1])  # warm-up: spaCy, Presidio, the model
            turns = [timed_turn(base, opener, token, day) for day in DAYS[:TURNS]]
            return turns, page_weight(base)
        finally:
            process.terminate()
            process.wait(30)


def main() -> None:
    """Write bench/results/web.md (`--page`: print page weight and first paint only)."""
    if "--page" in sys.argv[1:]:
        (raw, sent, requests), paint = page_only()
        print(
            f"Page weight: {raw / 1024:.1f} KiB in {requests} requests "
            f"({sent / 1024:.1f} KiB transferred); first contentful paint {paint:.0f} ms"
        )
        return
    rows = []
    weight = (0, 0, 0)
    for label, flags in (("rules only (--no-llm)", ("--no-llm",)), ("embedded SmolLM2", ())):
        turns, weight = measure(flags)
        rows.append(
            [
                label,
                f"{median([t['first'] for t in turns]) * 1000:.0f} ms",
                f"{median([t['plan'] for t in turns]):.2f} s",
                f"{median([t['end'] for t in turns]):.2f} s",
            ]
        )
    raw, sent, requests = weight
    paint = page_only()[1]
    write_table(
        "web",
        "Chat page: live trace and page weight",
        ["model", "POST to first trace event", "to the finished plan", "to the end of the turn"],
        rows,
        notes=[
            f"Median of {TURNS} turns after one warm-up turn, through `run.py serve` on loopback: "
            "the page's own POST /api/turns, then its Server-Sent Events stream. The request "
            "names a person, a place and a time, pastes a two-line thread and asks for a draft.",
            f"Page weight: {raw / 1024:.1f} KiB in {requests} requests, {sent / 1024:.1f} KiB "
            "transferred (the server gzips text); no fonts, images, frameworks or other origins. "
            "Before issue 42: 20.0 KiB in 3 requests, all of it transferred (6.8 KiB had it been "
            "gzipped), first paint 144-172 ms. First contentful paint: "
            f"{paint:.0f} ms (median of {PAINT_LOADS} fresh loads in headless Chromium, "
            "1280×800, rules-only server on loopback).",
            *run_notes(None),
        ],
    )


if __name__ == "__main__":
    main()
