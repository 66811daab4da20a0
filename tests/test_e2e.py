"""The page in a real browser: Debian's Chromium driven by Playwright against a loopback server.

Each test leaves a PNG of the page in test-artifacts/e2e/ (gitignored) for a human to look at.
The assistant runs without a model here: these tests are about the page, not the model.
"""

from __future__ import annotations

import io
import re
import shutil
import threading
import zipfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from bench.journeys import CALENDAR, CHROMIUM, JOURNEYS, ask_by_keyboard, drop
from bench.ocr import FONTS, render_chat
from web import create_app

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "e2e"

expect.set_options(timeout=60_000)  # OCR and turns share two cores with the browser
pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None, reason="Debian's chromium is not installed (.ci/run does it)"
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The real app on a free loopback port, in a thread."""
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "NO_LLM": True})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture
def page(browser: Browser, server: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page on the app in Europe/Berlin; its screenshot is saved when the test ends."""
    context = browser.new_context(
        accept_downloads=True, timezone_id="Europe/Berlin", viewport={"width": 1100, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(server)
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


def test_page_loads_with_labelled_controls(page: Page) -> None:
    for label in (
        "What should I do?",
        "Pasted thread (optional)",
        "Add a chat export, a screenshot or an .ics calendar",
        "Your time zone",
    ):
        assert page.get_by_label(label).count() == 1, label
    assert page.get_by_label("Your time zone").input_value() == "Europe/Berlin"
    assert page.get_by_role("button", name="New chat").is_visible()


def test_a_turn_streams_its_trace_then_offers_ics_and_mailto(page: Page) -> None:
    ask_by_keyboard(
        page,
        "lunch with Karthik Rao thursday next week at 1pm at Blue Bottle, draft a reply",
        thread="Karthik Rao: lunch next week?",
    )
    # Wait for what the user sees, the reply; the trace folds away once a turn is done, so
    # waiting for a visible trace item raced the end of a fast turn (a flaky fresh-clone run).
    page.wait_for_selector(".turn .reply")
    stages = page.eval_on_selector_all(".trace-event", "items => items.map(i => i.dataset.stage)")
    assert stages[0] == "queued" and "plan" in stages and stages[-1] == "done"
    card = page.locator(".event-card")
    assert "Europe/Berlin" in card.inner_text() and "created" in card.inner_text()

    with page.expect_download() as download:
        page.click("a.file-ics")
    calendar = icalendar.Calendar.from_ical(Path(download.value.path()).read_bytes())
    [event] = calendar.walk("VEVENT")
    assert str(event["SUMMARY"]).startswith("Lunch with Karthik Rao")
    assert event["DTSTART"].dt.hour == 13 and event["DTSTART"].params["TZID"] == "Europe/Berlin"

    mailto = page.locator("a.file-mailto")
    assert mailto.inner_text() == "Open in mail app"
    assert mailto.get_attribute("href").startswith("mailto:")
    assert page.locator("a.file-eml").get_attribute("href").startswith("/files/")


def test_dropped_screenshot_and_ics(page: Page) -> None:
    image = render_chat(
        [("them", "Dinner on Friday at 7pm?"), ("me", "Yes! Where?"), ("them", "Luigi's")],
        "light",
        FONTS["liberation-sans"],
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    drop(page, "chat.png", buffer.getvalue(), "image/png")
    thread = page.get_by_label("Pasted thread (optional)")
    expect(thread).to_have_value("Them: Dinner on Friday at 7pm?\nMe: Yes! Where?\nThem: Luigi's")
    assert "check and correct" in page.locator("#ocr-note").inner_text().lower()

    drop(page, "work.ics", CALENDAR, "text/calendar")
    page.wait_for_selector("#upload-status .imported")
    assert page.locator("#upload-status .imported").inner_text().startswith("Imported 1 event(s)")
    assert "VTODO" in page.locator("#upload-status .refused li").inner_text()

    pdf = {"name": "x.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.7"}
    page.set_input_files("#file", files=[pdf])  # the file picker path
    page.wait_for_selector("#upload-status .error")
    assert "checked by its content" in page.locator("#upload-status .error").inner_text()


def test_a_dropped_whatsapp_export_fills_the_box_and_its_dinner_is_created(page: Page) -> None:
    today = datetime.now(ZoneInfo("Europe/Berlin")).date()
    earlier = next(today - timedelta(days=n) for n in range(1, 32)
                   if (today - timedelta(days=n)).day > 12)  # fmt: skip
    chat = (
        f"{earlier:%d/%m/%Y}, 18:58 - Olivia Hart: Fancy dinner soon?\n"
        f"{today:%d/%m/%Y}, 00:10 - Olivia Hart: Dinner tomorrow at 7:30?\n"
        f"{today:%d/%m/%Y}, 00:12 - James O'Neill: Perfect, 7:30 it is\n"
    )
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("_chat.txt", chat)
    drop(page, "WhatsApp Chat with Olivia Hart.zip", stored.getvalue(), "application/zip")
    thread = page.get_by_label("Pasted thread (optional)")
    expect(thread).to_have_value(re.compile(r"^\[\d{4}-\d{2}-\d{2} 18:58\] Olivia Hart: Fancy"))
    assert "WhatsApp export: 3 messages" in page.locator("#ocr-note").inner_text()
    ask_by_keyboard(page, "add the dinner")
    page.wait_for_selector(".turn .reply")
    tomorrow = today + timedelta(days=1)
    assert f"{tomorrow:%d %b}, 19:30" in page.locator(".turn .reply").inner_text()


def test_sessions_survive_a_reload_and_can_be_renamed(page: Page) -> None:
    ask_by_keyboard(page, "lunch with Anna tomorrow at 1pm")
    page.wait_for_selector(".turn .reply")
    page.reload()
    page.wait_for_selector(".turn .reply")
    assert page.locator(".turn .trace-event").count() >= 5
    current = page.locator('#session-list button[aria-current="page"]')
    assert current.inner_text().startswith("lunch with Anna")

    page.once("dialog", lambda dialog: dialog.accept("Anna lunches"))
    page.get_by_role("button", name="Rename").click()
    page.wait_for_selector('#session-list button:text("Anna lunches")')

    page.locator("summary", has_text="What the model saw").click()
    page.wait_for_selector(".model-saw .meta")
    assert "No model call" in page.locator(".model-saw .meta").inner_text()

    page.get_by_role("button", name="New chat").click()
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.locator("#session-title")).to_have_text("New chat")  # waits for the redraw


@pytest.mark.parametrize("name", list(JOURNEYS), ids=[j.__name__ for j in JOURNEYS.values()])
def test_journey_without_a_model(page: Page, name: str) -> None:
    """Issue 16's journeys as a user types and clicks them (bench/journeys.py), rules only."""
    JOURNEYS[name](page)
