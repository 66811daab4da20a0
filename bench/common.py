"""Helpers every benchmark shares: repeated timing, the machine line, writing result tables."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    """One line naming the machine, for every table."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), no GPU, Python {platform.python_version()}"


def timed(run: Callable[[], object], repeat: int = 5) -> list[float]:
    """Seconds of each of `repeat` runs."""
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - started)
    return seconds


def median(values: Sequence[float]) -> float:
    """Median, the figure every table reports."""
    return float(statistics.median(values))


def shown(value: float, unit: str) -> str:
    """A figure with its unit: seconds to two places, everything else whole."""
    return f"{value:.2f} s" if unit == "s" else f"{value:.0f} {unit}".strip()


def run_notes(baseline: str | None) -> list[str]:
    """The notes every comparison table ends with: which baseline, and how loaded the machine
    was when the run ended."""
    notes = []
    if baseline:
        done = subprocess.run(
            ["git", "-C", baseline, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        commit = done.stdout.strip() or "(unknown)"
        notes.append(
            f"Baseline: commit {commit} checked out at {baseline}, run in the same session with "
            "the same interpreter."
        )
    notes.append(
        f"Load average when the run ended: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
        "(other work on the machine inflates the timings)."
    )
    return notes


def write_table(
    name: str,
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[object]],
    notes: Sequence[str] = (),
) -> str:
    """Write bench/results/<name>.md and return its text."""
    lines = [f"### {title}", "", f"Machine: {machine()}.", ""]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    lines.extend("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)
    if notes:
        lines.append("")
        lines.extend(notes)
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.md").write_text(text, encoding="utf-8")
    print(text)
    return text
