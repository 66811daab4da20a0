"""The page in a real browser: Debian's Chromium driven by Playwright against a loopback server.

Each test leaves a PNG of the page in test-artifacts/e2e/ (gitignored) for a human to look at.
The assistant runs without a model here: these tests are about the page, not the model.
"""

from __future__ import annotations

import base64
import io
import shutil
import threading
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import icalendar
import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from bench.ocr import FONTS, render_chat
from web import create_app

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "e2e"
TOMORROW = f"{date.today() + timedelta(days=1):%Y%m%d}"  # the page's turns use the real clock
CALENDAR = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20261101T000000Z\r\n"
    f"DTSTART:{TOMORROW}T130000Z\r\nDTEND:{TOMORROW}T140000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n"
    "BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
).encode()

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


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


def drop(page: Page, name: str, data: bytes, mime: str) -> None:
    """Drop a file on the drop zone the way a browser does: a DataTransfer on a drop event."""
    page.evaluate(
        """([name, b64, mime]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: mime }));
            const zone = document.getElementById("dropzone");
            for (const type of ["dragover", "drop"])
                zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true }));
        }""",
        [name, base64.b64encode(data).decode(), mime],
    )


def ask_by_keyboard(page: Page, request: str, thread: str = "") -> None:
    """Reach the message box with Tab, type, and send with Enter."""
    page.wait_for_selector("body[data-ready]")  # the page focuses the box once it has loaded
    page.keyboard.press("Shift+Tab")
    for _ in range(12):
        if page.evaluate("document.activeElement.id") == "request":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "request"
    if thread:
        page.get_by_label("Pasted thread (optional)").fill(thread)
        page.get_by_label("What should I do?").focus()
    page.keyboard.type(request)
    page.keyboard.press("Enter")


def test_page_loads_with_labelled_controls(page: Page) -> None:
    for label in (
        "What should I do?",
        "Pasted thread (optional)",
        "Add a screenshot (PNG, JPEG, WebP) or an .ics calendar",
        "Your time zone",
    ):
        assert page.get_by_label(label).count() == 1, label
    assert page.get_by_label("Your time zone").input_value() == "Europe/Berlin"
    assert page.get_by_role("button", name="New chat").is_visible()


def test_a_turn_streams_its_trace_then_offers_ics_and_mailto(page: Page) -> None:
    ask_by_keyboard(
        page,
        "lunch with Karthik Rao next thursday at 1pm at Blue Bottle, draft a reply",
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


def test_a_slot_button_answers_the_question(page: Page) -> None:
    ask_by_keyboard(page, "dinner with Karthik Rao friday")
    slot = page.locator("button.slot").first
    slot.wait_for()
    assert page.locator(".question").is_visible()
    slot.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn:nth-of-type(2) .badge.status-created")


def _ics_of_turn(page: Page, turn: int) -> icalendar.Calendar:
    with page.expect_download() as download:
        page.click(f".turn:nth-of-type({turn}) a.file-ics")
    return icalendar.Calendar.from_ical(Path(download.value.path()).read_bytes())


def test_make_it_then_cancel_it_in_the_same_chat(page: Page) -> None:
    """Issue 16's follow-ups, as a user types them, on the real page."""
    ask_by_keyboard(page, "lunch with Karthik Rao next thursday at 1pm")
    page.wait_for_selector(".turn:nth-of-type(1) .badge.status-created")
    [created] = _ics_of_turn(page, 1).walk("VEVENT")

    page.get_by_label("What should I do?").fill("actually make it 12:30")
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn:nth-of-type(2) .badge.status-updated")
    assert "12:30" in page.locator(".turn:nth-of-type(2) .event-card").inner_text()
    [moved] = _ics_of_turn(page, 2).walk("VEVENT")
    assert moved["UID"] == created["UID"] and int(moved["SEQUENCE"]) == 1
    assert moved["DTSTART"].dt.hour == 12 and moved["DTSTART"].dt.minute == 30

    page.get_by_label("What should I do?").fill("cancel it")
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn:nth-of-type(3) .badge.status-cancelled")
    calendar = _ics_of_turn(page, 3)
    assert calendar["METHOD"] == "CANCEL"
    assert calendar.walk("VEVENT")[0]["UID"] == created["UID"]


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


def _send(page: Page, request: str, thread: str = "") -> None:
    """A later turn in the same chat: type into the box and press Enter."""
    if thread:
        page.get_by_label("Pasted thread (optional)").fill(thread)
    page.get_by_label("What should I do?").fill(request)
    page.get_by_label("What should I do?").press("Enter")


def test_every_proposed_time_is_a_button_and_a_click_books_it(page: Page) -> None:
    ask_by_keyboard(page, "dinner with Karthik Rao sometime next week")
    page.wait_for_selector(".turn:nth-of-type(1) button.slot")
    slots = page.locator(".turn:nth-of-type(1) button.slot")
    expect(slots).to_have_count(3)
    second = slots.nth(1).inner_text()
    assert "Europe/Berlin" in page.locator(".turn:nth-of-type(1) .question").inner_text()
    slots.nth(1).click()
    page.wait_for_selector(".turn:nth-of-type(2) .badge.status-created")
    made = page.locator(".turn:nth-of-type(2) .event-card").inner_text()
    assert second.split(",")[0] in made  # the day of the button clicked, not the first one
    [event] = _ics_of_turn(page, 2).walk("VEVENT")
    assert str(event["SUMMARY"]).startswith("Dinner with Karthik Rao")


def test_calendar_questions_are_answered_from_the_imported_calendar(page: Page) -> None:
    drop(page, "work.ics", CALENDAR, "text/calendar")
    page.wait_for_selector("#upload-status .imported")
    ask_by_keyboard(page, "what's on tomorrow?")
    reply = page.locator(".turn:nth-of-type(1) .reply")
    expect(reply).to_contain_text("Dentist")
    assert "14:00–15:00 (Europe/Berlin)" in reply.inner_text()  # 13:00Z, shown in Berlin
    _send(page, "am I free tomorrow afternoon?")
    expect(page.locator(".turn:nth-of-type(2) .reply")).to_contain_text("You have 1 event")
    assert page.locator(".event-card").count() == 0  # a question creates nothing


def test_a_remembered_role_reaches_a_draft_in_a_new_chat(page: Page) -> None:
    ask_by_keyboard(page, "remember that Karthik Rao (karthik@acme.example) is my cfo")
    expect(page.locator(".turn:nth-of-type(1) .reply")).to_contain_text("I'll remember that")
    page.get_by_role("button", name="New chat").click()
    expect(page.locator(".turn")).to_have_count(0)
    _send(page, "who is my cfo?")
    expect(page.locator(".turn:nth-of-type(1) .reply")).to_contain_text("Karthik Rao: your cfo")
    _send(page, "email my cfo about the Q3 numbers")
    mailto = page.locator(".turn:nth-of-type(2) a.file-mailto")
    mailto.wait_for()
    assert mailto.get_attribute("href").startswith("mailto:karthik@acme.example")


def test_a_reply_to_a_pasted_email_says_what_was_asked_and_books_nothing(page: Page) -> None:
    mail = (
        "From: Sam Lee <sam.lee@example.org>\nTo: Me <me@example.com>\n"
        "Subject: Dinner on Friday\n\nWould Friday at 7pm work for dinner?\nSam"
    )
    ask_by_keyboard(page, "reply to sam that friday works and ask if we can bring a friend", mail)
    mailto = page.locator(".turn:nth-of-type(1) a.file-mailto")
    mailto.wait_for()
    href = mailto.get_attribute("href")
    assert href.startswith("mailto:sam.lee@example.org") and "Can%20we%20bring" in href
    assert page.locator(".event-card").count() == 0
