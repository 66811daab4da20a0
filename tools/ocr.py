"""Chat screenshots to text, offline: OCR boxes -> lines -> bubbles -> "Them: ..." / "Me: ...".

The engine is RapidOCR (PP-OCRv4 on onnxruntime; its weights ship inside the pip package). It had
the lowest character error rate on the screenshots bench/ocr.py draws, ahead of EasyOCR and
Tesseract, and needs neither torch nor a system package. Whatever the engine, the same
confusions show up in times ("Ipm", "1lam", "l0:30") and glued words ("Tuesday2pmto3pm"), so
they are repaired here: the time parser downstream then sees clean text.
"""

from __future__ import annotations

import io
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol

from PIL import Image, ImageOps, UnidentifiedImageError

from tools.errors import ToolError
from tools.worker import WorkerCrashError, WorkerLimitError, WorkerPool

# onnxruntime (1.29 and later) runs 1DS telemetry on Linux too. At `import onnxruntime` it writes
# a device id and an event database to ~/.cache/Microsoft/DeveloperTools/.onnxruntime/, and its
# uploader thread then resolves mobile.events.data.microsoft.com (seen with strace: DNS queries
# from native code, which no Python socket guard sees). disable_telemetry_events() comes after
# that import, too late for both; ORT_DISABLE_TELEMETRY=1 set before the first import is the
# full opt-out (onnxruntime PR 27379): no uploader, no device id, no event cache. Set it here,
# before anything in Veil imports onnxruntime, and refuse to run OCR if something loaded
# onnxruntime earlier with telemetry on.
_TELEMETRY_OFF = ("1", "true", "yes", "on")
_ORT_LOADED_WITH_TELEMETRY = (
    "onnxruntime" in sys.modules
    and os.environ.get("ORT_DISABLE_TELEMETRY", "").strip().lower() not in _TELEMETRY_OFF
)
os.environ["ORT_DISABLE_TELEMETRY"] = "1"

MAX_PIXELS = 20_000_000  # a 2K-wide, 10K-tall scroll capture; beyond is a decompression bomb
# What OCR reads (issue 40): a 4.9 KB PNG just under MAX_PIXELS cost 850 MB at OCR, six at once
# 3 GB. Wider images are scaled down to OCR_MAX_WIDTH first (a phone's screenshot is 1080-1440
# wide and its text stays legible there); what is still over OCR_MAX_PIXELS (a scroll capture
# taller than about 5,500 px at 1440) is refused with the advice to crop. At that size one read
# adds about 350 MB and a few seconds.
OCR_MAX_WIDTH = 1_600
OCR_SECONDS = 20.0  # wall clock for one read in a worker (the first loads the engine, ~2 s)
OCR_MEMORY_MB = 600  # what one read may add to the warm OCR worker
OCR_MAX_PIXELS = 8_000_000
BACKGROUND_DISTANCE = 24  # how far (RGB) a pixel may be from the background and still be it


class ScreenshotError(ToolError):
    """An upload that is not a readable image."""


@dataclass(frozen=True, slots=True)
class TextBox:
    """One run of text an engine found, with its bounding box in pixels."""

    text: str
    left: float
    top: float
    right: float
    bottom: float

    @property
    def middle(self) -> float:
        """Vertical centre."""
        return (self.top + self.bottom) / 2


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One message bubble: 'them' (left), 'me' (right) or 'center' (a date or time stamp)."""

    speaker: str
    text: str


@dataclass(frozen=True, slots=True)
class ScreenRead:
    """What a screenshot said, before (`raw_text`) and after Veil's repairs (`text`)."""

    text: str
    raw_text: str
    lines: list[ChatLine]
    engine: str
    seconds: float


class TextDetector(Protocol):
    """An OCR engine: finds text boxes in an RGB image."""

    name: str

    @property
    def version(self) -> str:
        """Engine package version, for benchmark tables."""

    def detect(self, image: Image.Image) -> list[TextBox]:
        """Every text box in the image."""


class RapidOcrEngine:
    """RapidOCR; the ONNX sessions are built on first use (about a second)."""

    name = "rapidocr"

    def __init__(self) -> None:
        self._engine: Any = None

    @property
    def version(self) -> str:
        """rapidocr-onnxruntime's version."""
        return metadata.version("rapidocr-onnxruntime")

    def detect(self, image: Image.Image) -> list[TextBox]:
        """RapidOCR's boxes; the angle classifier stays off (screenshots are upright)."""
        import numpy as np

        if self._engine is None:
            if _ORT_LOADED_WITH_TELEMETRY:
                raise ScreenshotError(
                    "onnxruntime was loaded before Veil could turn its telemetry off; "
                    "set ORT_DISABLE_TELEMETRY=1 and restart Veil"
                )
            from rapidocr_onnxruntime import RapidOCR

            self._engine = RapidOCR()
        found, _elapsed = self._engine(np.asarray(image), use_cls=False)
        return [box_from_points(points, text) for points, text, _score in found or []]


def box_from_points(points: Sequence[Sequence[float]], text: str) -> TextBox:
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return TextBox(text.strip(), min(xs), min(ys), max(xs), max(ys))


ENGINES = ("rapidocr",)


def engine_by_name(name: str) -> TextDetector:
    """The engine Veil ships by its name (bench/ocr.py adds the candidates it measured)."""
    if name == "rapidocr":
        return RapidOcrEngine()
    raise ValueError(f"unknown OCR engine {name!r}; Veil ships {', '.join(ENGINES)}")


# --- repairs -------------------------------------------------------------------------------

_DIGITISH = str.maketrans({"I": "1", "l": "1", "|": "1", "O": "0", "o": "0", "S": "5"})
# "Ipm", "1lam", "l0:30", "1O:3O", "1.30": a time-shaped token with letters where digits belong.
_TIME_TOKEN = re.compile(
    r"(?<![\w$£€.,])([0-9Il|OoS]{1,2})(?:([:.])([0-9Il|OoS]{2}))?"
    r"(\s?)([aApP]\.?[mM]\.?|[aApP]rn)?(?![\w:])"
)
_GLUED = (
    (re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z])"), " "),  # "ThenTuesday" (not "McD", "iPhone")
    (re.compile(r"(?<=[a-z]{2})(?=\d)"), " "),  # "Tuesday2pm"
    (re.compile(r"(?<=\d[apAP][mM])(?=[a-z]{2})"), " "),  # "2pmto"
    (re.compile(r"(?<=[a-z][!?,;])(?=[A-Za-z])|(?<=[a-z]\.)(?=[A-Z][a-z])"), " "),  # "Yes!Where"
)


def _fix_time(match: re.Match[str]) -> str:
    hour, sep, minute, space, meridiem = match.groups()
    has_digit = any(c.isdigit() for c in hour + (minute or ""))
    if not sep and not meridiem:
        return match.group(0)  # "for 2", "So": not a time
    if not has_digit and (sep or space or len(hour) > 1 or not meridiem.lower().startswith("p")):
        return match.group(0)  # only a glued "Ipm"/"lpm" is a time without digits ("Iam" is "I am")
    fixed_hour = hour.translate(_DIGITISH)
    fixed_minute = (minute or "").translate(_DIGITISH)
    if not fixed_hour.isdigit() or (minute and not fixed_minute.isdigit()):
        return match.group(0)
    limit = 12 if meridiem else 23
    if int(fixed_hour) > limit or (minute and int(fixed_minute) > 59):
        return match.group(0)
    text = fixed_hour + (f":{fixed_minute}" if minute else "")
    if meridiem:
        text += space + meridiem.replace("rn", "m")
    return text


# Glued lowercase words ("Goodluckwiththat"): split only into common words, shorter pieces
# needing to be commoner, so that rare names ("Karthik", "Sundaram") are left alone.
_RUN = re.compile(r"(?:(?<=^)|(?<=[.!?] ))[A-Z]?[a-z]{4,}|(?<![A-Za-z'])[a-z]{5,}")
_PIECE_ZIPF = {1: 9.0, 2: 5.0, 3: 4.0}
_KNOWN_ZIPF = 1.5  # a run at least this frequent is a real word


def _split_run(match: re.Match[str]) -> str:
    from lang.frequency import zipf

    word = match.group(0)
    lower = word.lower()
    if zipf(lower) >= _KNOWN_ZIPF:
        return word
    best: list[tuple[float, list[str]] | None] = [(0.0, [])] + [None] * len(lower)
    for end in range(1, len(lower) + 1):
        for start in range(max(0, end - 14), end):
            if best[start] is None:
                continue
            piece = lower[start:end]
            score = zipf(piece)
            if score < _PIECE_ZIPF.get(len(piece), 3.0):
                continue
            total = best[start][0] + score - 6.0  # type: ignore[index]  # fewer pieces win
            if best[end] is None or total > best[end][0]:  # type: ignore[index]
                best[end] = (total, [*best[start][1], piece])  # type: ignore[index]
    if best[-1] is None or len(best[-1][1]) < 2:
        return word
    split = " ".join(best[-1][1])
    return word[0] + split[1:]


def fix_text(text: str) -> str:
    """Repair OCR confusions in times and glued words, line by line."""
    lines = []
    for line in text.splitlines():
        for pattern, gap in _GLUED:
            line = pattern.sub(gap, line)
        line = _RUN.sub(_split_run, line)
        lines.append(_TIME_TOKEN.sub(_fix_time, line))
    return "\n".join(lines)


# --- layout --------------------------------------------------------------------------------


def _rows(boxes: list[TextBox]) -> list[TextBox]:
    """Merge boxes that share a visual line (engines often split one line into pieces)."""
    rows: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: (b.middle, b.left)):
        row = rows[-1] if rows else None
        height = box.bottom - box.top
        if row and abs(row[-1].middle - box.middle) < height / 2 and box.left >= row[-1].left:
            row.append(box)
        else:
            rows.append([box])
    return [
        TextBox(
            " ".join(b.text for b in sorted(row, key=lambda b: b.left)),
            min(b.left for b in row),
            min(b.top for b in row),
            max(b.right for b in row),
            max(b.bottom for b in row),
        )
        for row in rows
    ]


def _side(row: TextBox, width: int) -> str:
    left_margin, right_margin = row.left / width, (width - row.right) / width
    if abs(left_margin - right_margin) < 0.06:
        return "center"
    return "them" if left_margin < right_margin else "me"


def _background(image: Image.Image) -> tuple[int, ...]:
    """The screen's background: the most common colour of the left and right edges."""
    edges = (1, image.width - 2)
    strip = [image.getpixel((x, y)) for x in edges for y in range(0, image.height, 7)]
    return max(set(strip), key=strip.count)  # type: ignore[arg-type]


def _gap_is_background(image: Image.Image, upper: TextBox, lower: TextBox) -> bool:
    """True when the strip between two rows is bare background: two bubbles, not one."""
    y = int((upper.bottom + lower.top) / 2)
    x_from, x_to = int(max(upper.left, lower.left)), int(min(upper.right, lower.right))
    if lower.top <= upper.bottom or x_to <= x_from or not 0 <= y < image.height:
        return False
    background = _background(image)
    samples = [image.getpixel((x, y)) for x in range(x_from, x_to, max(1, (x_to - x_from) // 20))]
    near = sum(
        sum(abs(int(a) - int(b)) for a, b in zip(pixel, background, strict=False))  # type: ignore[arg-type]
        < BACKGROUND_DISTANCE
        for pixel in samples
    )
    return near > len(samples) // 2


def bubbles(image: Image.Image, boxes: list[TextBox]) -> list[ChatLine]:
    """Rows grouped into bubbles top to bottom, each with its speaker by screen side."""
    lines: list[ChatLine] = []
    previous: TextBox | None = None
    for row in _rows([b for b in boxes if b.text]):
        speaker = _side(row, image.width)
        joins = (
            previous is not None
            and lines[-1].speaker == speaker
            and speaker != "center"
            and row.top - previous.bottom < (row.bottom - row.top)
            and not _gap_is_background(image, previous, row)
        )
        if joins:
            lines[-1] = ChatLine(speaker, f"{lines[-1].text} {row.text}")
        else:
            lines.append(ChatLine(speaker, row.text))
        previous = row
    return lines


def as_thread(lines: list[ChatLine]) -> str:
    """The thread as the message box takes it: 'Them: ...' and 'Me: ...' lines in order."""
    label = {"them": "Them: ", "me": "Me: ", "center": ""}
    return "\n".join(label[line.speaker] + line.text for line in lines)


class ScreenshotReader:
    """Reads chat screenshots one at a time (OCR uses both cores; two at once only thrash)."""

    def __init__(
        self, engine: TextDetector | None = None, *, pool: WorkerPool | None = None
    ) -> None:
        self.engine = engine or RapidOcrEngine()
        self.pool = pool  # read in a worker with a time and memory limit (issue 40)
        self._lock = threading.Lock()

    def read(self, data: bytes) -> ScreenRead:
        """The screenshot's messages in speaker order, raw and repaired."""
        if self.pool is not None:
            open_image(data)  # the size and format checks answer at once, without a worker
            try:
                return self.pool.run(
                    read_in_worker, data, seconds=OCR_SECONDS, what="this screenshot"
                )
            except (WorkerLimitError, WorkerCrashError) as error:
                raise ScreenshotError(f"{error}; crop the screenshot to the messages") from None
        image = open_image(data)
        started = time.perf_counter()
        with self._lock:
            boxes = self.engine.detect(image)
        lines = bubbles(image, boxes)
        raw = as_thread(lines)
        repaired = [ChatLine(line.speaker, fix_text(line.text)) for line in lines]
        return ScreenRead(
            as_thread(repaired), raw, repaired, self.engine.name, time.perf_counter() - started
        )


def open_image(data: bytes) -> Image.Image:
    """Decode PNG, JPEG or WebP bytes into RGB, refusing anything else or too large."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format not in ("PNG", "JPEG", "WEBP"):
                raise ScreenshotError(
                    f"screenshots must be PNG, JPEG or WebP, not {image.format or 'unknown'}"
                )
            if image.width * image.height > MAX_PIXELS:
                raise ScreenshotError(
                    f"the image is {image.width}x{image.height} pixels; crop it to the messages"
                )
            width, height = image.width, image.height
            if width > OCR_MAX_WIDTH:
                height = max(1, round(height * OCR_MAX_WIDTH / width))
                width = OCR_MAX_WIDTH
            if width * height > OCR_MAX_PIXELS:
                raise ScreenshotError(_too_large(image))
            image.draft("RGB", (width, height))  # JPEG decodes at a smaller scale; PNG whole
            rgb = image.convert("RGB")  # the one full-size copy
            if rgb.width > width:
                rgb = rgb.reduce(max(1, rgb.width // width))  # a box filter: fast, no copies
                rgb = rgb.resize((width, height), Image.BILINEAR)
            return ImageOps.exif_transpose(rgb) if image.getexif() else rgb
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as error:
        raise ScreenshotError("the file is not a readable PNG, JPEG or WebP image") from error


def _too_large(image: Image.Image) -> str:
    return (
        f"the image is {image.width}x{image.height} pixels, more than OCR reads at once "
        f"({OCR_MAX_PIXELS // 1_000_000} million at up to {OCR_MAX_WIDTH} wide); crop it to "
        "the messages, or take two screenshots"
    )


_READER: ScreenshotReader | None = None


def warm_reader() -> None:
    """Load the OCR engine (a worker calls this once, before its memory is capped)."""
    global _READER
    _READER = ScreenshotReader()
    _READER.read(_blank_png())


def read_in_worker(data: bytes) -> ScreenRead:
    """A worker's half of ScreenshotReader.read; onnxruntime's own errors (not picklable)
    become a MemoryError when it ran out of memory, else a ScreenshotError."""
    if _READER is None:
        warm_reader()
    if _READER is None:
        raise ScreenshotError("the OCR engine could not start")
    try:
        return _READER.read(data)
    except ScreenshotError:
        raise
    except Exception as error:
        if "bad_alloc" in str(error):
            raise MemoryError from None
        raise ScreenshotError(f"OCR failed on this image ({type(error).__name__})") from None


def _blank_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), "white").save(out, format="PNG")
    return out.getvalue()
