"""Screenshot OCR: the repairs, the bubble layout, image checks, and the real engine once."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bench.ocr import CHATS, FONTS, Screen, cer, edit_distance, render_chat
from tools.ocr import (
    OCR_MAX_PIXELS,
    OCR_MAX_WIDTH,
    ChatLine,
    ScreenshotError,
    ScreenshotReader,
    TextBox,
    as_thread,
    bubbles,
    fix_text,
    open_image,
)


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Lunch at Ipm?", "Lunch at 1pm?"),
        ("until 1lam on Monday", "until 11am on Monday"),
        ("at l0:30 ok", "at 10:30 ok"),
        ("at 1O:3O", "at 10:30"),
        ("early, 1.30?", "early, 1:30?"),
        ("dinner 7.45pm", "dinner 7:45pm"),
        ("call at 1prn", "call at 1pm"),
        ("ThenTuesday2pmto3pm?", "Then Tuesday 2pm to 3pm?"),
        ("Yes!Where?", "Yes! Where?"),
        ("Ouch. Goodluckwiththat", "Ouch. Good luck with that"),
        ("Canwe meet tomorrowat noon?", "Can we meet tomorrow at noon?"),
        # no change: words that only look like times, prices, names, URLs
        ("Iam here", "Iam here"),
        ("So am I", "So am I"),
        ("table for 2", "table for 2"),
        ("costs $3.50", "costs $3.50"),
        ("McDonald's at 12:15", "McDonald's at 12:15"),
        ("my iPhone 15", "my iPhone 15"),
        ("see www.example.com e.g. at 7 p.m.", "see www.example.com e.g. at 7 p.m."),
        ("back in 2024", "back in 2024"),
        ("Karthik Sundaram and Nkechi", "Karthik Sundaram and Nkechi"),
        ("with sundaram at bluebottle", "with sundaram at bluebottle"),
        ("at 25:30", "at 25:30"),
    ],
)
def test_fix_text(text: str, fixed: str) -> None:
    assert fix_text(text) == fixed


def test_bubbles_follow_sides_and_gaps() -> None:
    """Two left rows in one bubble, then a right bubble, then a centred time stamp."""
    image = Image.new("RGB", (700, 400), "white")
    for top, bottom, left, right in ((10, 100, 20, 400), (120, 170, 380, 680)):
        Image.Image.paste(image, "#e9e9eb", (left, top, right, bottom))
    boxes = [
        TextBox("Lunch on Thursday at", 40, 20, 380, 50),
        TextBox("1pm?", 40, 58, 120, 88),
        TextBox("Sure", 400, 130, 660, 160),
        TextBox("Today 09:41", 290, 200, 410, 220),
    ]
    lines = bubbles(image, boxes)
    assert lines == [
        ChatLine("them", "Lunch on Thursday at 1pm?"),
        ChatLine("me", "Sure"),
        ChatLine("center", "Today 09:41"),
    ]
    assert as_thread(lines) == "Them: Lunch on Thursday at 1pm?\nMe: Sure\nToday 09:41"


def test_two_bubbles_of_one_speaker_stay_apart() -> None:
    image = Image.new("RGB", (700, 200), "white")
    for top, bottom in ((10, 60), (75, 125)):
        image.paste("#e9e9eb", (20, top, 300, bottom))
    boxes = [TextBox("Hi", 40, 20, 100, 50), TextBox("Lunch?", 40, 85, 150, 115)]
    assert [line.text for line in bubbles(image, boxes)] == ["Hi", "Lunch?"]


def test_pieces_of_one_line_are_joined_left_to_right() -> None:
    image = Image.new("RGB", (700, 100), "white")
    boxes = [TextBox("Thursday", 160, 12, 300, 40), TextBox("Lunch on", 40, 10, 150, 40)]
    assert bubbles(image, boxes) == [ChatLine("them", "Lunch on Thursday")]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GIF89a" + b"\0" * 50, "not a readable"),
        (b"not an image at all", "not a readable"),
    ],
)
def test_unreadable_images_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(ScreenshotError, match=message):
        open_image(data)


def test_other_formats_and_huge_images_are_refused() -> None:
    gif = io.BytesIO()
    Image.new("RGB", (10, 10)).save(gif, format="GIF")
    with pytest.raises(ScreenshotError, match="PNG, JPEG or WebP, not GIF"):
        open_image(gif.getvalue())
    huge = io.BytesIO()
    Image.new("1", (8000, 6000)).save(huge, format="PNG")
    with pytest.raises(ScreenshotError, match="crop it"):
        open_image(huge.getvalue())


def _png(width: int, height: int, mode: str = "1") -> bytes:
    out = io.BytesIO()
    Image.new(mode, (width, height), 1).save(out, format="PNG")
    return out.getvalue()


def test_a_wide_image_is_scaled_down_before_ocr_in_bounded_memory(tmp_path: Path) -> None:
    """A few KB of PNG just under the pixel limit cost 850 MB at OCR (issue 40). Pillow's
    buffers are not Python allocations, so the peak is the process's, in a fresh one."""
    data = _png(4400, 4400)
    assert len(data) < 20_000
    source = tmp_path / "wide.png"
    source.write_bytes(data)
    script = (
        "import resource, sys; from tools.ocr import open_image; "
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
        f"image = open_image(open({str(source)!r}, 'rb').read()); "
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
        "print(image.size[0], image.size[1], image.mode, (after - before) // 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True,
        cwd=Path(__file__).parent.parent,
    ).stdout.split()  # fmt: skip
    assert out[:3] == [str(OCR_MAX_WIDTH), str(OCR_MAX_WIDTH), "RGB"]
    assert int(out[3]) < 150, f"{out[3]} MB"


def test_a_tall_image_past_what_ocr_reads_at_once_is_refused_with_advice() -> None:
    with pytest.raises(ScreenshotError, match="crop it to the messages, or take two"):
        open_image(_png(1440, OCR_MAX_PIXELS // 1440 + 10))
    assert open_image(_png(1080, 2400)).size == (1080, 2400)


def test_edit_distance_and_cer() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert cer("abcd", "abcd") == 0 and cer("abcd", "") == 1


def test_the_real_engine_reads_a_generated_screenshot() -> None:
    """One full 11-message chat, dark theme, a serif font: nearly every character right."""
    image = render_chat(CHATS[0], "dark", FONTS["liberation-serif"])
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=90)
    read = ScreenshotReader().read(buffer.getvalue())
    truth = Screen(None, CHATS[0]).truth  # type: ignore[arg-type]
    assert [line.speaker for line in read.lines] == [who for who, _ in CHATS[0]]
    assert cer(truth, read.text) < 0.02
    assert "1pm" in read.text and "10:30" in read.text
