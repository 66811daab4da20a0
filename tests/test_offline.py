"""Veil stays on this machine: no DNS, no connect beyond loopback, no files outside its folder.

The socket guard in conftest.py records every lookup and connect made from Python. onnxruntime's
telemetry resolved its events host from native code, which no Python guard sees; what it did
first, at import, was write a device id under ~/.cache/Microsoft. So the OCR check runs in a
fresh interpreter with an empty HOME: nothing there afterwards means the telemetry never
started, and with it neither did its uploader (issue 17).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import tools.ocr
from agent.assistant import Turn, build_assistant
from bench.ocr import CHATS, FONTS, render_chat
from memory.event import CalendarEvent
from tests.conftest import is_loopback_host
from tools.calendar.ics import export_events
from tools.ocr import RapidOcrEngine, ScreenshotError, ScreenshotReader

ROOT = Path(__file__).resolve().parents[1]
TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 21, 9, 30, tzinfo=ZoneInfo(TZ))


def screenshot() -> bytes:
    """The first bench chat drawn as a PNG phone screenshot."""
    buffer = io.BytesIO()
    render_chat(CHATS[0], "light", FONTS["liberation-sans"]).save(buffer, format="PNG")
    return buffer.getvalue()


def files_outside(home: Path, data: Path) -> list[str]:
    """Every file under `home` that is not under the data folder."""
    return sorted(
        str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and data not in p.parents
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty HOME with the XDG folders inside it, so any stray write lands where we look."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return folder


def test_ocr_import_turn_and_draft_try_no_network_and_write_only_the_data_folder(
    home: Path, no_network: list[tuple[str, str]]
) -> None:
    data = home / "veil-data"
    read = ScreenshotReader().read(screenshot())
    assert "1pm" in read.text
    assistant = build_assistant(data_dir=data, no_llm=True)
    busy = CalendarEvent.new("Dentist", datetime(2026, 11, 26, 9, tzinfo=ZoneInfo(TZ)), tz=TZ)
    said = assistant.import_calendar(export_events([busy]), name="work.ics", now=NOW, tz=TZ)
    assert said.startswith("Imported 1 event")
    bundle = assistant.ask(
        Turn(
            request="email karthik my cfo about lunch thursday next week at 1",
            thread=read.text,
            now=NOW,
            tz=TZ,
        )
    ).to_dict()
    assert "eml" in {f["type"] for f in bundle["files"]}  # the draft was written
    assert [a for a in no_network if not is_loopback_host(a[1])] == []
    assert files_outside(home, data) == []


def test_ocr_in_a_fresh_process_leaves_no_telemetry_files(tmp_path: Path) -> None:
    """Nothing imported onnxruntime before tools.ocr, and onnxruntime wrote nothing to HOME."""
    home = tmp_path / "home"
    home.mkdir()
    image = tmp_path / "chat.png"
    image.write_bytes(screenshot())
    script = (
        "import json, os, sys\n"
        "import tools.ocr\n"
        "early = 'onnxruntime' in sys.modules\n"
        "read = tools.ocr.ScreenshotReader().read(open(sys.argv[1], 'rb').read())\n"
        "print(json.dumps({'early': early, 'switch': os.environ.get('ORT_DISABLE_TELEMETRY'),"
        " 'loaded': 'onnxruntime' in sys.modules, 'text': read.text}))\n"
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("XDG_", "ORT_")) and key != "HOME"
    }
    env |= {"HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(image)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] and not result["early"] and "1pm" in result["text"]
    assert files_outside(home, home / "veil-data") == []
    assert result["switch"] == "1"


def test_ocr_refuses_to_run_when_onnxruntime_loaded_with_telemetry_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fail closed: telemetry cannot be turned off once onnxruntime is loaded."""
    monkeypatch.setattr(tools.ocr, "_ORT_LOADED_WITH_TELEMETRY", True)
    with pytest.raises(ScreenshotError, match="ORT_DISABLE_TELEMETRY=1"):
        RapidOcrEngine().detect(render_chat(CHATS[0], "light", FONTS["liberation-sans"]))
