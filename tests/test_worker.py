"""Budgets that cover third-party code (issue 40): a job in a worker process is stopped at its
wall-clock or memory limit with a clear error, the worker is replaced, and other threads (the
server's /healthz) keep running meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tools import worker
from tools.calendar.ics import import_ics
from tools.calendar.times import TimeParser
from tools.errors import IcsError, TimeParseError
from tools.worker import WorkerLimitError, WorkerPool

TZ = "Europe/Berlin"
NOW = datetime(2026, 3, 1, 12, tzinfo=ZoneInfo(TZ))
DATA = Path(__file__).parent / "data"
# A slow CI machine still answers well inside these; a stuck job is far past them.
LIMIT_S = 1.0
MARGIN_S = 4.0


def spin(seconds: float) -> str:
    """Busy-loop: a native parser that never looks at a budget."""
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        pass
    return "done"


def grow(megabytes: int) -> int:
    """Allocate and keep `megabytes` MB."""
    return len(bytearray(megabytes * 1024 * 1024))


def fail() -> None:
    raise ValueError("a clear error from the job")


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    started = WorkerPool(size=1, memory_mb=200)
    started.start()
    yield started
    started.close()


def test_a_job_runs_and_answers(pool: WorkerPool) -> None:
    assert pool.run(spin, 0.01) == "done"
    assert pool.run(grow, 50) == 50 * 1024 * 1024


def test_a_job_past_its_time_is_stopped_and_the_worker_replaced(pool: WorkerPool) -> None:
    started = time.monotonic()
    with pytest.raises(WorkerLimitError, match="took longer than 1 s"):
        pool.run(spin, 60, seconds=LIMIT_S, what="this test")
    assert time.monotonic() - started < LIMIT_S + MARGIN_S
    assert pool.run(spin, 0.01) == "done"  # a fresh worker took its place


def test_a_job_past_its_memory_is_stopped(pool: WorkerPool) -> None:
    with pytest.raises(WorkerLimitError, match="more than 200 MB"):
        pool.run(grow, 2_000, what="this test")
    assert pool.run(grow, 10) == 10 * 1024 * 1024


def test_a_worker_that_died_idle_is_replaced(pool: WorkerPool) -> None:
    assert pool.run(spin, 0.01) == "done"
    for idle in list(pool._idle):
        idle.process.kill()
        idle.process.join(timeout=5)
    assert pool.run(spin, 0.01) == "done"


def test_a_jobs_own_error_comes_back_as_itself(pool: WorkerPool) -> None:
    with pytest.raises(ValueError, match="a clear error from the job"):
        pool.run(fail)
    assert pool.run(spin, 0.01) == "done"


def test_other_threads_keep_running_while_a_job_spins(pool: WorkerPool) -> None:
    """What /healthz needs: the caller waits on a pipe, not on the GIL."""
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.05)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        with pytest.raises(WorkerLimitError):
            pool.run(spin, 60, seconds=2.0)
    finally:
        stop.set()
        ticker.join()
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:], strict=False)]
    assert len(ticks) > 10 and max(gaps) < 1.0


@pytest.fixture(scope="module")
def parsers() -> Iterator[WorkerPool]:
    """The pool the web app builds, as the process's parser pool."""
    pool = WorkerPool(
        size=1,
        preload=("tools.calendar.times", "tools.calendar.ics"),
        warm="tools.calendar.times.warm_engine",
        memory_mb=400,
    )
    pool.start()
    previous = worker.isolate(pool)
    yield pool
    worker.isolate(previous)
    pool.close()


def test_the_time_parser_runs_in_the_worker(parsers: WorkerPool) -> None:
    mentions = TimeParser(tz=TZ, now=NOW).parse_input("lunch tomorrow at 1pm")
    assert [m.value.hour for m in mentions if m.value] == [13]


def test_a_stuck_duckling_call_is_a_clear_time_parse_error(
    parsers: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tools.calendar.times.DUCKLING_SECONDS", 0.0)
    with pytest.raises(TimeParseError, match="took longer than"):
        TimeParser(tz=TZ, now=NOW).parse_input("lunch tomorrow at 1pm " * 200)


def test_the_vtimezone_bomb_is_answered_quickly(parsers: WorkerPool) -> None:
    data = (DATA / "hostile" / "vtimezone-every-second.ics").read_bytes()
    started = time.monotonic()
    with pytest.raises(IcsError, match="changes offset every second"):
        import_ics(
            data,
            tz=TZ,
            window_start=NOW - timedelta(days=30),
            window_end=NOW + timedelta(days=365),
            source="import:bomb.ics",
        )
    assert time.monotonic() - started < 5.0


def test_an_import_past_its_wall_time_is_a_clear_ics_error(
    parsers: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever a library does inside the import, the wall clock stops it."""
    monkeypatch.setattr("tools.calendar.ics.IMPORT_WALL_SECONDS", 0.0)
    data = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20260305T100000Z\r\nEND:VEVENT\r\n"
    with pytest.raises(IcsError, match="took longer than .* export a shorter date range"):
        import_ics(
            data + b"END:VCALENDAR\r\n",
            tz=TZ,
            window_start=NOW - timedelta(days=30),
            window_end=NOW + timedelta(days=365),
            source="import:slow.ics",
        )


def test_a_document_reader_runs_in_the_worker_and_is_stopped_at_its_limit(
    parsers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docx import Document

    from tools.documents import DocumentError, read_text

    path = tmp_path / "notes.docx"
    document = Document()
    document.add_paragraph("Board meeting moved to Friday at 3pm.")
    document.save(path)
    assert read_text(path, "notes.docx")[0] == "Board meeting moved to Friday at 3pm."
    monkeypatch.setattr("tools.documents.READ_SECONDS", 0.0)
    with pytest.raises(DocumentError, match="reading notes.docx took longer than"):
        read_text(path, "notes.docx")
