"""The chat page: its weight, its first paint, and how soon a turn's live trace starts to move.

Starts `run.py serve` as a user would (rules only, then the embedded model), posts turns the
way the page does (CSRF token, JSON) and reads the Server-Sent Events stream. First paint is
read in Debian's Chromium (the browser tests' one) from the Paint Timing API.

    python -m bench.web            # the whole table
    python -m bench.web --page     # page weight and first paint only, now and before issue 42

Page weight and paint are measured against the page before issue 42 (BASELINE, checked out in
a temporary git worktree) in the same run, the two servers' loads alternating, so the ratio
holds on a busy machine where the milliseconds alone do not.
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
from pathlib import Path

from bench.common import median, run_notes, write_table
from bench.serve import ROOT, _free_port

TURNS = 3
PAINT_LOADS = 7
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")  # a new event each turn
REQUEST = "lunch with Karthik Rao next {day} at 1pm at Blue Bottle, draft a reply"
THREAD = "Karthik Rao: lunch next week? I'm free Thursday after 12:30"


BASELINE = "2dc3b80"  # the page before issue 42 (chat layout, week strip, gzip)
PAINT_ROUNDS = 5


def _serve(port: int, data_dir: str, *flags: str, root: Path = ROOT) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, str(root / "run.py"), "serve", "--port", str(port), "--data-dir",
         data_dir, *flags],
        cwd=root,
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


def page_only() -> tuple[dict[str, tuple[int, int, int]], dict[str, float]]:
    """Page weight and first paint of this page and of BASELINE's, each on a fresh rules-only
    server, first paints taken in alternating rounds: {"now"|"before": ...}."""
    with tempfile.TemporaryDirectory() as scratch:
        old = Path(scratch) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), BASELINE],
            check=True,
        )
        servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        try:
            for name, root in (("now", ROOT), ("before", old)):
                port = _free_port()
                data = Path(scratch) / f"data-{name}"
                servers[name] = (_serve(port, str(data), "--no-llm", root=root),
                                 f"http://127.0.0.1:{port}")  # fmt: skip
            weights = {name: page_weight(base) for name, (_, base) in servers.items()}
            paints: dict[str, list[float]] = {name: [] for name in servers}
            for _ in range(PAINT_ROUNDS):
                for name, (_, base) in servers.items():
                    paints[name].append(first_paint(base))
            return weights, {name: median(times) for name, times in paints.items()}
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(30)
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           check=False)  # fmt: skip


def _page_note(weights: dict[str, tuple[int, int, int]], paints: dict[str, float]) -> str:
    (raw, sent, requests), (old_raw, old_sent, old_requests) = weights["now"], weights["before"]
    return (
        f"Page weight: {raw / 1024:.1f} KiB in {requests} requests, {sent / 1024:.1f} KiB "
        f"transferred (the server gzips text); before issue 42 ({BASELINE}, same run): "
        f"{old_raw / 1024:.1f} KiB in {old_requests} requests, {old_sent / 1024:.1f} KiB "
        f"transferred: {sent / old_sent:.2f}× the bytes sent, {raw / old_raw:.2f}× decoded. "
        f"No fonts, images, frameworks or other origins. First contentful paint: "
        f"{paints['now']:.0f} ms against {paints['before']:.0f} ms "
        f"({paints['now'] / paints['before']:.2f}×; median of {PAINT_ROUNDS} alternating rounds "
        f"of {PAINT_LOADS} fresh loads each in headless Chromium, 1280×800, rules-only servers "
        "on loopback)."
    )


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
        print(_page_note(*page_only()))
        return
    rows = []
    for label, flags in (("rules only (--no-llm)", ("--no-llm",)), ("embedded SmolLM2", ())):
        turns, _ = measure(flags)
        rows.append(
            [
                label,
                f"{median([t['first'] for t in turns]) * 1000:.0f} ms",
                f"{median([t['plan'] for t in turns]):.2f} s",
                f"{median([t['end'] for t in turns]):.2f} s",
            ]
        )
    page = _page_note(*page_only())
    write_table(
        "web",
        "Chat page: live trace and page weight",
        ["model", "POST to first trace event", "to the finished plan", "to the end of the turn"],
        rows,
        notes=[
            f"Median of {TURNS} turns after one warm-up turn, through `run.py serve` on loopback: "
            "the page's own POST /api/turns, then its Server-Sent Events stream. The request "
            "names a person, a place and a time, pastes a two-line thread and asks for a draft.",
            page,
            *run_notes(None),
        ],
    )


if __name__ == "__main__":
    main()
