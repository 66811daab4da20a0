"""`run.py ask` from a cold process: wall time, peak RSS, and the planner's time by calendar size.

Every figure is measured twice in the same run: on this tree and, when VEIL_BASELINE names a
checkout of an older commit (`git worktree add /tmp/veil-base <commit>`), on that one with the
same interpreter, so the ratios compare code, not machines or load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median, run_notes, shown, write_table
from bench.load import calendar

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = (
    "lunch with karthik thursday next week at 1",
    "dinner with priya on friday at 7pm",
    "call with the dentist tomorrow at 9:30",
    "coffee with sam monday next week at 10",
    "review with ana on wednesday at 4pm",
)
NOW, TZ = "2026-11-24T10:00", "Europe/Berlin"
BIG_CALENDAR_EVENTS = 5000
# A small process starts each `run.py ask` and reports its peak RSS. Forked straight from the
# benchmark (which may hold a loaded model from an earlier benchmark), the child's peak would
# count the parent's pages it shared until exec: 700 MB for a 290 MB process.
LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
sys.stderr.write(err.decode(errors="replace"))
print(usage.ru_maxrss * 1024)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def ask(
    tree: Path, data_dir: Path, request: str, *flags: str, calendar_file: Path | None = None
) -> tuple[float, int, list[dict]]:
    """One cold `run.py ask`: seconds, peak RSS in bytes, and its audit records."""
    audit = data_dir / "audit-bench.jsonl"
    audit.unlink(missing_ok=True)
    command = [sys.executable, str(tree / "run.py"), "ask", *flags, "--data-dir", str(data_dir),
               "--audit", str(audit), "--now", NOW, "--tz", TZ, request]  # fmt: skip
    if calendar_file is not None:
        command[3:3] = ["--calendar", str(calendar_file)]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command], cwd=tree, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"run.py ask failed in {tree}: {done.stderr[-400:]}")
    lines = audit.read_text().splitlines() if audit.exists() else []
    return seconds, int(done.stdout.split()[-1]), [json.loads(line) for line in lines]


def measure(tree: Path, repeat: int, big: Path) -> dict[str, float]:
    """The figures of one tree."""
    figures: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as scratch:
        for n in range(repeat):
            folder = Path(scratch) / f"rules-{n}"
            seconds, rss, _ = ask(tree, folder, REQUESTS[n % len(REQUESTS)], "--no-llm")
            add("rules_s", seconds)
            add("rules_rss", rss)
        # The embedded model with an empty data folder: nothing cached yet.
        warm_cache = Path(scratch) / "seed"
        for n in range(repeat):
            folder = Path(scratch) / f"model-{n}"
            seconds, rss, _ = ask(tree, folder, REQUESTS[n % len(REQUESTS)])
            add("model_cold_s", seconds)
            add("model_rss", rss)
            if n == 0:
                shutil.copytree(folder, warm_cache)
        # Cold processes again, each on a copy of a folder an earlier run left behind.
        for n in range(repeat):
            folder = Path(scratch) / f"again-{n}"
            shutil.copytree(warm_cache, folder)
            shutil.rmtree(folder / "files", ignore_errors=True)
            seconds, _, _ = ask(tree, folder, REQUESTS[(n + 1) % len(REQUESTS)])
            add("model_again_s", seconds)
        # The planner's own call with no calendar and with a big one, after a warm-up run.
        for label, calendar_file in (("plan_empty_ms", None), ("plan_big_ms", big)):
            folder = Path(scratch) / label
            shutil.copytree(warm_cache, folder)
            for n in range(repeat):
                _, _, records = ask(
                    tree, folder, REQUESTS[(n + 2) % len(REQUESTS)],
                    calendar_file=calendar_file if n == 0 else None,
                )  # fmt: skip
                plans = [r for r in records if r.get("purpose") == "plan"]
                if plans and n > 0:  # the first run also imports the calendar
                    add(label, plans[0]["ms"])
                    add(label.replace("_ms", "_tokens"), plans[0]["prompt_tokens"])
    return {name: median(values) for name, values in figures.items()}


def main(repeat: int = 3) -> None:
    """Measure this tree (and VEIL_BASELINE's), write bench/results/cli.md."""
    trees = {"this tree": ROOT}
    baseline = os.environ.get("VEIL_BASELINE")
    if baseline:
        trees["baseline"] = Path(baseline).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        big = Path(scratch) / "big.ics"
        big.write_bytes(calendar(0, events=BIG_CALENDAR_EVENTS, days=360))
        results = {label: measure(tree, repeat, big) for label, tree in trees.items()}
    mib = 1024 * 1024
    rows_spec = [
        ("`ask --no-llm`, cold process", "rules_s", "s", 1.0, "≤ 2.5 s"),
        ("`ask --no-llm`, peak RSS", "rules_rss", "MiB", mib, "≤ 400 MB"),
        ("`ask`, embedded, cold, empty data folder", "model_cold_s", "s", 1.0, "≤ 4 s"),
        ("`ask`, embedded, cold, after an earlier run", "model_again_s", "s", 1.0, "≤ 4 s"),
        ("`ask`, embedded, peak RSS", "model_rss", "MiB", mib, ""),
        ("planner call, no calendar", "plan_empty_ms", "ms", 1.0, ""),
        (f"planner call, {BIG_CALENDAR_EVENTS:,}-event calendar", "plan_big_ms", "ms", 1.0,
         "same as without"),
        ("planner prompt tokens, no calendar", "plan_empty_tokens", "", 1.0, ""),
        (f"planner prompt tokens, {BIG_CALENDAR_EVENTS:,} events", "plan_big_tokens", "", 1.0, ""),
    ]  # fmt: skip
    header = ["measure", *(f"{label} (median of {repeat})" for label in results)]
    if "baseline" in results:
        header.append("this / baseline")
    header.append("target")
    rows = []
    for title, key, unit, scale, target in rows_spec:
        cells = []
        for figures in results.values():
            value = figures.get(key)
            cells.append("–" if value is None else shown(value / scale, unit))
        row = [title, *cells]
        if "baseline" in results:
            new, old = results["this tree"].get(key), results["baseline"].get(key)
            row.append(f"{new / old:.2f}×" if new and old else "–")
        rows.append([*row, target])
    notes = [
        "Each figure is a new `python run.py ask` process (imports, model load, one turn), "
        "timed from spawn to exit; peak RSS from the kernel's accounting of that process.",
        '"After an earlier run": a fresh process on a copy of a data folder an earlier turn '
        "left behind, whose prompt-state cache (model-cache/) lets llama.cpp skip re-reading "
        "the prompts' fixed part.",
        f"Planner rows: the plan call's time from the audit log, on a data folder that imported "
        f"a calendar of {BIG_CALENDAR_EVENTS:,} events in the year ahead (or none).",
    ]
    notes += run_notes(baseline)
    write_table("cli", "`run.py ask`, cold processes (bench/cli.py)", header, rows, notes)


if __name__ == "__main__":
    main()
