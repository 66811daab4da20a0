"""A new user's journeys through the chat page, in a real browser, on both model settings.

Each journey is what a person types and clicks, turn after turn, with the checks they would
make by eye (the event card, the .ics they download, the mail link). tests/test_e2e.py runs
them without a model and tests/test_e2e_model.py with the embedded one; `python -m
bench.journeys` times them on both and writes bench/results/journeys.md.

Every journey starts on a fresh app with an empty data folder: a first session.
"""

from __future__ import annotations

import base64
import logging
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

CHROMIUM = "/usr/bin/chromium"
TZ = "Europe/Berlin"
TIMEOUT_MS = 90_000  # turns share two cores with the browser (and the model)
# The page's turns use the real clock in the page's zone: "tomorrow" is Berlin's tomorrow,
# which near midnight UTC is not the machine's.
TOMORROW = f"{datetime.now(ZoneInfo(TZ)).date() + timedelta(days=1):%Y%m%d}"
CALENDAR = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20261101T000000Z\r\n"
    f"DTSTART:{TOMORROW}T130000Z\r\nDTEND:{TOMORROW}T140000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n"
    "BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
).encode()
MAIL = (
    "From: Sam Lee <sam.lee@example.org>\nTo: Me <me@example.com>\n"
    "Subject: Dinner on Friday\n\nWould Friday at 7pm work for dinner?\nSam"
)

Page = Any  # playwright.sync_api.Page: imported lazily, the bench runs without it installed


# ---------------------------------------------------------------- what a user does


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


def send(page: Page, request: str, thread: str = "") -> None:
    """A later turn: type into the box and press Enter."""
    page.wait_for_selector("body[data-ready]")
    if thread:
        page.get_by_label("Pasted thread (optional)").fill(thread)
    page.get_by_label("What should I do?").fill(request)
    page.get_by_label("What should I do?").press("Enter")


def turn(page: Page, number: int, part: str) -> Any:
    """A part of the n-th turn of the chat shown ("reply", "event-card", "a.file-ics" ...)."""
    selector = part if part.startswith(("a.", "button.", ".")) else f".{part}"
    return page.locator(f".turn:nth-of-type({number}) {selector}")


def reply_of(page: Page, number: int) -> str:
    """The n-th turn's reply, once it is there."""
    turn(page, number, "reply").wait_for()
    return str(turn(page, number, "reply").inner_text())


def ics_of_turn(page: Page, number: int) -> icalendar.Calendar:
    """Download the n-th turn's .ics the way a user does, and parse it."""
    with page.expect_download() as download:
        turn(page, number, "a.file-ics").first.click()
    return icalendar.Calendar.from_ical(Path(download.value.path()).read_bytes())


def wait_status(page: Page, number: int, status: str) -> None:
    turn(page, number, f".badge.status-{status}").first.wait_for()


# ---------------------------------------------------------------- the journeys


def follow_ups(page: Page) -> None:
    """Make an event, move it with "make it 12:30", then "cancel it": one UID throughout."""
    ask_by_keyboard(page, "lunch with Karthik Rao thursday next week at 1pm")
    wait_status(page, 1, "created")
    [created] = ics_of_turn(page, 1).walk("VEVENT")
    send(page, "actually make it 12:30")
    wait_status(page, 2, "updated")
    assert "12:30" in turn(page, 2, "event-card").inner_text()
    [moved] = ics_of_turn(page, 2).walk("VEVENT")
    assert moved["UID"] == created["UID"] and int(moved["SEQUENCE"]) == 1
    assert (moved["DTSTART"].dt.hour, moved["DTSTART"].dt.minute) == (12, 30)
    send(page, "cancel it")
    wait_status(page, 3, "cancelled")
    calendar = ics_of_turn(page, 3)
    assert calendar["METHOD"] == "CANCEL" and calendar.walk("VEVENT")[0]["UID"] == created["UID"]


def proposals(page: Page) -> None:
    """A vague time: three free times, each a button, in the zone named; a click books it."""
    ask_by_keyboard(page, "dinner with Karthik Rao sometime next week")
    turn(page, 1, "button.slot").first.wait_for()
    slots = turn(page, 1, "button.slot")
    assert slots.count() == 3, f"{slots.count()} proposal buttons"
    assert TZ in turn(page, 1, ".question").inner_text()
    second = slots.nth(1).inner_text()
    slots.nth(1).click()
    wait_status(page, 2, "created")
    assert second.split(",")[0] in turn(page, 2, "event-card").inner_text()
    [event] = ics_of_turn(page, 2).walk("VEVENT")
    assert "Karthik Rao" in str(event["SUMMARY"])


def answer_to_the_question(page: Page) -> None:
    """Answering Veil's proposal with a time fills the proposed event, title and person kept."""
    ask_by_keyboard(page, "dinner with Karthik Rao sometime next week")
    turn(page, 1, "button.slot").first.wait_for()
    first_day = turn(page, 1, "button.slot").first.inner_text().split(",")[0]
    send(page, "make it 20:30")
    wait_status(page, 2, "created")
    card = turn(page, 2, "event-card").inner_text()
    assert "Karthik Rao" in card and "20:30" in card and first_day in card


def calendar_questions(page: Page) -> None:
    """Questions about an imported calendar are answered from it, in the user's zone."""
    page.wait_for_selector("body[data-ready]")
    drop(page, "work.ics", CALENDAR, "text/calendar")
    page.wait_for_selector("#upload-status .imported")
    ask_by_keyboard(page, "what's on tomorrow?")
    reply = reply_of(page, 1)
    assert "Dentist" in reply and "14:00–15:00 (Europe/Berlin)" in reply, reply
    send(page, "am I free tomorrow afternoon?")
    assert "You have 1 event" in reply_of(page, 2)
    send(page, "when is the dentist?")
    assert "Dentist is on" in reply_of(page, 3)
    assert page.locator(".event-card").count() == 0  # questions create nothing


def memory(page: Page) -> None:
    """A role remembered in one chat names the recipient of a draft in another."""
    ask_by_keyboard(page, "remember that Karthik Rao (karthik@acme.example) is my cfo")
    assert "I'll remember that" in reply_of(page, 1)
    page.get_by_role("button", name="New chat").click()
    page.locator(".turn").first.wait_for(state="detached")
    send(page, "who is my cfo?")
    assert "Karthik Rao: your cfo" in reply_of(page, 1)
    send(page, "email my cfo about the Q3 numbers")
    mailto = turn(page, 2, "a.file-mailto")
    mailto.wait_for()
    assert mailto.get_attribute("href").startswith("mailto:karthik@acme.example")
    send(page, "forget karthik")
    assert "Forgotten" in reply_of(page, 3)


def reply_draft(page: Page) -> None:
    """A reply to a pasted e-mail says what was asked, to its sender, and books nothing."""
    ask_by_keyboard(page, "reply to sam that friday works and ask if we can bring a friend", MAIL)
    mailto = turn(page, 1, "a.file-mailto")
    mailto.wait_for()
    href = mailto.get_attribute("href")
    assert href.startswith("mailto:sam.lee@example.org"), href
    assert "Friday%20works" in href and "Can%20we%20bring%20a%20friend" in href, href
    assert page.locator(".event-card").count() == 0


def reload_and_resume(page: Page) -> None:
    """A chat survives a reload, with its trace."""
    ask_by_keyboard(page, "lunch with Anna Berg tomorrow at 1pm")
    wait_status(page, 1, "created")
    page.reload()
    page.wait_for_selector(".turn .reply")
    assert page.locator(".turn .trace-event").count() >= 5
    current = page.locator('#session-list button[aria-current="page"]')
    assert current.inner_text().startswith("lunch with Anna")


JOURNEYS: dict[str, Callable[[Page], None]] = {
    "follow-ups: make it 12:30, cancel it": follow_ups,
    "vague time: three proposal buttons, one click books": proposals,
    "an answer to Veil's proposal fills it": answer_to_the_question,
    "calendar questions on an imported calendar": calendar_questions,
    "memory: a role reaches a draft in a new chat": memory,
    "reply draft: what was asked, to the sender, no event": reply_draft,
    "reload and resume": reload_and_resume,
}


# ---------------------------------------------------------------- running them


@contextmanager
def served(data_dir: Path, *, no_llm: bool) -> Iterator[str]:
    """The real app on a free loopback port, in a thread; the model loads in the background."""
    from werkzeug.serving import make_server

    from web import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    app = create_app({"DATA_DIR": str(data_dir), "NO_LLM": no_llm})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()


@contextmanager
def browser_page(browser: Any, base: str) -> Iterator[Page]:
    """A fresh page on the app in Europe/Berlin, downloads allowed."""
    context = browser.new_context(
        accept_downloads=True, timezone_id=TZ, viewport={"width": 1100, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(base)
    try:
        yield page
    finally:
        context.close()


def run_journey(
    browser: Any, journey: Callable[[Page], None], *, no_llm: bool
) -> tuple[float, int]:
    """Seconds the journey took, from the page's first load to its last check, and how many
    turns the user sent (those of every chat it opened)."""
    folder = Path(tempfile.mkdtemp(prefix="veil-journey-"))
    try:
        with served(folder / "data", no_llm=no_llm) as base, browser_page(browser, base) as page:
            page.wait_for_selector("body[data-ready]")
            sent: list[str] = []
            page.on(
                "request",
                lambda r: (
                    sent.append(r.url)
                    if r.method == "POST" and r.url.endswith("/api/turns")
                    else None
                ),
            )
            started = time.perf_counter()
            journey(page)
            return time.perf_counter() - started, len(sent)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    from bench.common import run_notes, write_table

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for name, journey in JOURNEYS.items():
            row: list[object] = [name]
            for no_llm in (True, False):
                try:
                    seconds, turns = run_journey(browser, journey, no_llm=no_llm)
                    count = f", {turns} turn{'s' if turns != 1 else ''}" if turns else ""
                    row.append(f"passed, {seconds:.1f} s{count}")
                except Exception as failure:  # a failed journey is a figure
                    row.append(f"FAILED ({type(failure).__name__}: {str(failure)[:60]})")
                print(name, "no-llm" if no_llm else "embedded", row[-1], file=sys.stderr)
            rows.append(row)
        browser.close()
    write_table(
        "journeys",
        "A new user's journeys in Chromium (bench/journeys.py)",
        ["journey", "rules only (--no-llm)", "embedded model"],
        rows,
        [
            "Each journey runs on a fresh app and data folder, typed and clicked in headless "
            "Chromium; the time is from the loaded page to the last check, turns included "
            "(the model's first turn waits for it to load).",
            *run_notes(None),
        ],
    )


if __name__ == "__main__":
    main()
