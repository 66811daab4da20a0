"""The chat page as a newcomer meets it (issue 42), in Debian's Chromium through Playwright:
no sideways scrolling from phone to wide screen, no console errors or failed requests, actions
only where they work, a visible stage with Stop while a turn runs, keys that send and stop,
dark mode, user-facing sentences on cards, and an axe-core run with no serious violation.

Turns run without a model: these tests are about the page. A turn is held in line by taking
the app's one generation slot, so its progress and Stop can be seen however fast the rules are.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from flask import Flask
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from bench.journeys import CALENDAR, CHROMIUM, drop
from web import create_app
from web.answer import answer_view

WIDTHS = (360, 390, 768, 1280, 1920)
THREAD = "Karthik Rao: lunch next week? I'm free Thursday after 12:30"
REQUEST = "lunch with Karthik Rao thursday next week at 1pm at Blue Bottle, draft a reply"

expect.set_options(timeout=30_000)


@pytest.fixture(scope="module", autouse=True)
def chromium_is_installed() -> None:
    """A missing browser is a failure that says what to install, never a skip."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app({"DATA_DIR": str(tmp_path / "data"), "NO_LLM": True})


@pytest.fixture
def server(app: Flask) -> Iterator[str]:
    """The real app on a free loopback port, in a thread."""
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


class Watched:
    """A page with every console error, uncaught exception and failed request it had."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.problems.append(m.text))
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on(
            "response",
            lambda r: r.status >= 400 and self.problems.append(f"{r.status} {r.url}"),
        )


@pytest.fixture
def watched(browser: Browser, server: str) -> Iterator[Watched]:
    """A fresh phone-sized page in Europe/Berlin; the test fails on any console error."""
    context = browser.new_context(
        timezone_id="Europe/Berlin", viewport={"width": 390, "height": 844}, accept_downloads=True
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    seen = Watched(page)
    page.goto(server)
    page.wait_for_selector("body[data-ready]")
    yield seen
    context.close()
    assert not seen.problems, seen.problems


def _ask(page: Page, request: str, thread: str = "") -> None:
    if thread:
        page.get_by_label("Pasted thread (optional)").fill(thread)
    page.get_by_label("What should I do?").fill(request)
    page.get_by_label("What should I do?").press("Enter")


def _overflow(page: Page) -> int:
    """How many pixels the page scrolls sideways (0 when it fits)."""
    return page.evaluate(
        "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - innerWidth"
    )


def _serious(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_a_new_chat_fits_every_width_and_hides_its_actions(watched: Watched) -> None:
    page = watched.page
    expect(page.locator("#session-actions")).to_be_hidden()  # nothing saved to rename yet
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert _overflow(page) <= 0, f"scrolls sideways at {width} px"
    page.set_viewport_size({"width": 390, "height": 844})
    ask = page.get_by_role("button", name="Ask").bounding_box()
    assert ask and ask["x"] >= 0 and ask["x"] + ask["width"] <= 390, ask
    assert not _serious(page)


def test_a_turn_reads_as_a_chat_and_fits_with_its_cards(watched: Watched) -> None:
    page = watched.page
    _ask(page, REQUEST, THREAD)
    page.wait_for_selector(".turn .event-card")
    expect(page.locator("#session-actions")).to_be_visible()  # a saved chat has them
    expect(page.get_by_role("button", name="Ask")).to_be_enabled()
    expect(page.locator("#progress")).to_be_hidden()
    _ask(page, "what's on thursday next week?")
    expect(page.locator(".turn")).to_have_count(2)
    page.wait_for_selector(".turn:nth-child(2) .reply")
    said = page.locator(".turn .said").all_inner_texts()
    assert said[0].startswith("lunch with Karthik") and said[1].startswith("what's on")
    box = page.locator("#composer").bounding_box()
    assert box and 844 / 2 < box["y"] and box["y"] + box["height"] <= 844 + 1  # in view, below
    page.locator("summary", has_text="What the model saw").first.click()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert _overflow(page) <= 0, f"scrolls sideways at {width} px with cards"
    assert not _serious(page)


@pytest.mark.parametrize("how", ["button", "escape"])
def test_a_running_turn_shows_its_stage_and_stops_cleanly(
    app: Flask, watched: Watched, how: str
) -> None:
    page = watched.page
    slot_taken, release = threading.Event(), threading.Event()

    def hold_the_model() -> None:  # another turn is generating: ours waits in line
        with app.extensions["generation"].slot():
            slot_taken.set()
            release.wait(60)

    holder = threading.Thread(target=hold_the_model, daemon=True)
    holder.start()
    try:
        assert slot_taken.wait(10)
        _ask(page, REQUEST, THREAD)
        expect(page.locator("#stage")).to_contain_text("In line", timeout=60_000)
        expect(page.locator(".spinner")).to_be_visible()
        expect(page.get_by_role("button", name="Ask")).to_be_disabled()
        _ask(page, "dinner with sam friday at 7pm")  # Enter while running starts nothing
        expect(page.locator(".turn")).to_have_count(1)
        page.get_by_label("What should I do?").fill("")
        if how == "button":
            page.get_by_role("button", name="Stop").click()
        else:
            page.keyboard.press("Escape")
        expect(page.locator(".turn .stopped")).to_contain_text("nothing was added")
    finally:
        release.set()
        holder.join(10)
    expect(page.locator("#progress")).to_be_hidden()
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    expect(page.get_by_role("button", name="Ask")).to_be_enabled()
    assert page.locator(".event-card, .downloads").count() == 0
    data = Path(app.config["DATA_DIR"])
    assert not list((data / "files").rglob("*.ics")) if (data / "files").exists() else True
    # The chat goes on: the next turn runs to its answer.
    _ask(page, REQUEST, THREAD)
    page.wait_for_selector(".turn:nth-child(2) .event-card")


def test_enter_sends_and_shift_enter_breaks_the_line(watched: Watched) -> None:
    page = watched.page
    box = page.get_by_label("What should I do?")
    box.focus()
    page.keyboard.type("what's on")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("thursday?")
    assert box.input_value() == "what's on\nthursday?"
    assert page.locator(".turn").count() == 0
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn .reply")
    assert page.locator(".turn .said").inner_text() == "what's on\nthursday?"


def test_favicon_and_zone_picker(watched: Watched, server: str) -> None:
    page = watched.page
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert icon and page.request.get(server + icon).status == 200
    assert page.request.get(server + "/favicon.ico").status == 200  # for tools that guess
    zone = page.get_by_label("Your time zone")
    assert zone.input_value() == "Europe/Berlin"  # the browser's zone by default
    zone.focus()
    options = page.eval_on_selector_all("#zones option", "o => o.map(x => x.value)")
    assert "America/New_York" in options and "Asia/Kolkata" in options


def test_dark_mode_follows_the_system(browser: Browser, server: str) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        problems = Watched(page).problems
        page.goto(server)
        page.wait_for_selector("body[data-ready]")
        colours[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert not _serious(page), scheme
        context.close()
        assert not problems, problems
    assert colours["light"] != colours["dark"]


def _bundle(status: str, detail: str) -> dict[str, Any]:
    event = {
        "title": "Dinner",
        "start": "2026-11-27T20:00:00+01:00",
        "end": "2026-11-27T21:00:00+01:00",
        "all_day": False,
        "location": "",
        "attendees": [],
        "status": status,
        "conflicts": [],
    }
    step = {"tool": "create_event", "status": "blocked", "attempts": 1, "detail": detail}
    return {"reply": "", "question": None, "events": [event], "files": [], "plan": [],
            "steps": [step]}  # fmt: skip


@pytest.mark.parametrize(
    "detail",
    [
        "2026-11-27 20:00 is not stated; the user's input has no date and clock time",
        "'Today 9:41' is in the past (now is 2026-11-28 10:00)",
        "'at 8' could mean 08:00 or 20:00",
        "'9am my time' is in a time zone the input does not name",
        "'Sat 28 Nov' is not a time the user's input states (it states 'Today 9:41')",
    ],
)
def test_blocked_cards_speak_to_the_user_not_of_the_gate(detail: str) -> None:
    view = answer_view(_bundle("blocked", detail), register=lambda *a: "x", all_url="")
    reason = view["events"][0]["reason"]
    assert reason.startswith("Not added")
    for internal in ("user's input", "stated as", "Blocked:", "'", "2026-"):
        assert internal not in reason, (internal, reason)


def test_text_is_sent_gzipped_to_a_browser_and_plain_to_others(app: Flask) -> None:
    import gzip

    client = app.test_client()
    plain = client.get("/static/veil.js").get_data()
    zipped = client.get("/static/veil.js", headers={"Accept-Encoding": "gzip, br"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert gzip.decompress(zipped.get_data()) == plain
    assert len(zipped.get_data()) < len(plain) / 2
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert b"<title>Veil</title>" in gzip.decompress(page.get_data())
    health = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in health.headers  # JSON stays plain


def test_a_pasted_thread_becomes_an_event_in_the_week_and_a_download(watched: Watched) -> None:
    """Issue 42's done-when: from the first screen to an event seen in the week and saved."""
    page = watched.page
    drop(page, "work.ics", CALENDAR, "text/calendar")  # Dentist tomorrow 14:00-15:00 Berlin
    expect(page.locator("#week .chip.imported")).to_contain_text("14:00 Dentist")
    expect(page.locator("#week .chip.clash")).to_have_count(0)
    _ask(page, "lunch with Anna tomorrow at 2pm")
    page.wait_for_selector(".turn .event-card")
    expect(page.locator("#week .chip.created")).to_contain_text("14:00 Lunch with Anna")
    expect(page.locator("#week .chip.clash")).to_have_count(2)  # both sides of the conflict
    with page.expect_download() as download:
        page.locator("a.file-ics").first.click()
    assert b"BEGIN:VEVENT" in Path(download.value.path()).read_bytes()
    assert _overflow(page) <= 0
    page.get_by_role("button", name="Undo import of work.ics").click()
    expect(page.locator("#upload-status .undone")).to_have_text(
        "Removed 1 event(s) imported from work.ics."
    )
    expect(page.locator("#week .chip.imported")).to_have_count(0)
    expect(page.locator("#week .chip.clash")).to_have_count(0)  # the conflict went with it
    expect(page.locator("#week .chip.created")).to_have_count(1)


def test_a_proposal_in_the_week_books_with_a_click(watched: Watched) -> None:
    page = watched.page
    _ask(page, "dinner with sam sometime next week")
    page.wait_for_selector(".turn .slots")
    proposals = page.locator("#week .chip.proposed button")
    expect(proposals.first).to_be_visible()
    chosen = proposals.first.inner_text()
    proposals.first.click()
    page.wait_for_selector(".turn:nth-child(2) .event-card .status-created")
    expect(page.locator("#week .chip.created")).to_contain_text(chosen)


def test_undo_import_names_a_file_and_nothing_else(app: Flask) -> None:
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    for name in ("", "../veil.db", 7):
        answer = client.post(
            "/api/imports/undo", json={"name": name}, headers={"X-CSRF-Token": token}
        )
        assert answer.status_code == 400, name


# --- the page as it looks: stored references, compared with a tolerance ---------------------
SCREENS = Path(__file__).resolve().parent / "data" / "screens"
PIXEL_STEP = 16  # a channel differing by more than this counts (anti-aliasing differs less)
MAX_CHANGED = 0.005  # share of pixels that may differ: hinting and rounding vary a little


def _changed(shot: bytes, reference: Path) -> float:
    """Share of pixels that differ visibly between a screenshot and its reference."""
    import io

    from PIL import Image, ImageChops

    new = Image.open(io.BytesIO(shot)).convert("RGB")
    old = Image.open(reference).convert("RGB")
    if new.size != old.size:
        return 1.0
    red, green, blue = ImageChops.difference(new, old).split()
    most = ImageChops.lighter(ImageChops.lighter(red, green), blue)  # the largest channel's change
    return sum(most.histogram()[PIXEL_STEP + 1 :]) / (new.width * new.height)


@pytest.mark.parametrize(
    ("name", "width", "height", "scheme"),
    [("phone-dark", 390, 844, "dark"), ("desktop-light", 1280, 800, "light")],
)
def test_the_new_page_looks_as_it_did(
    browser: Browser, server: str, name: str, width: int, height: int, scheme: str
) -> None:
    """A fresh page against its reference; VEIL_UPDATE_SCREENS=1 rewrites the references."""
    import os

    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme,
        timezone_id="Europe/Berlin", locale="en-GB",
    )  # fmt: skip
    page = context.new_page()
    page.clock.set_fixed_time("2026-11-23T09:00:00+01:00")  # the week strip's dates
    for _ in range(600):  # the parts load first, so no "Getting ready" note is drawn
        if page.request.get(server + "/healthz").json().get("ready"):
            break
        time.sleep(0.1)
    page.goto(server)
    page.wait_for_selector("body[data-ready]")
    shot = page.screenshot(animations="disabled", caret="hide")
    context.close()
    reference = SCREENS / f"{name}.png"
    if os.environ.get("VEIL_UPDATE_SCREENS") == "1":
        SCREENS.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(shot)
    assert reference.exists(), f"no reference {reference}: run with VEIL_UPDATE_SCREENS=1"
    changed = _changed(shot, reference)
    if changed > MAX_CHANGED:
        failed = SCREENS.parent.parent.parent / "test-artifacts" / "screens"
        failed.mkdir(parents=True, exist_ok=True)
        (failed / f"{name}.png").write_bytes(shot)
    assert changed <= MAX_CHANGED, f"{name}: {changed:.1%} of pixels changed (see test-artifacts)"


def test_stop_is_refused_once_a_turn_writes_and_for_a_finished_turn(app: Flask) -> None:
    from web.turns import LiveTurn, StopError

    runner = app.extensions["turns"]
    reading = LiveTurn(1, "s")
    runner._check_stop(reading, {"stage": "step", "tool": "find_free_slots", "status": "running"})
    assert reading.request_stop()  # reading the calendar: Stop still lands
    with pytest.raises(StopError):
        runner._check_stop(reading, {"stage": "reply", "status": "running"})
    writing = LiveTurn(2, "s")
    runner._check_stop(writing, {"stage": "step", "tool": "create_event", "status": "running"})
    assert not writing.request_stop()  # the event is being written: the turn finishes
    runner._check_stop(writing, {"stage": "reply", "status": "running"})  # and is not cut
    moving = LiveTurn(3, "s")  # a follow-up's move is no registered tool, and writes
    runner._check_stop(moving, {"stage": "step", "tool": "move_event", "status": "running"})
    assert not moving.request_stop()

    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    assert client.post("/api/turns/999/stop", headers={"X-CSRF-Token": token}).status_code == 404


def test_a_listener_that_raises_leaves_the_line_free() -> None:
    """A turn stopped while its place is being reported must not keep its ticket: the next
    turn would wait behind it forever."""
    from web.generation import GenerationQueue

    queue = GenerationQueue(wait_limit=5)

    def stopped(_place: int) -> None:
        raise RuntimeError("stopped")

    with queue.slot():
        with pytest.raises(RuntimeError):
            with queue.slot(stopped):
                pass
    with queue.slot():  # free at once, no ticket left ahead of it
        pass
