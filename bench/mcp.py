"""`run.py mcp`: how long an MCP client waits for `extract_events`, cold and warm.

A real server subprocess driven by the SDK's stdio client, as Claude Desktop or another agent
would drive it. Cold is the first call after `initialize` (spaCy, Duckling and, with a model,
its weights load then); warm is the median of the calls after it, each on a different thread so
that none is answered as a duplicate of an earlier one. Start-up (spawn to initialized) is
reported beside them: an MCP client waits for it once per session.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.common import median, run_notes, shown, write_table

ROOT = Path(__file__).resolve().parent.parent
NOW, TZ = "2026-11-24T10:00", "Europe/Berlin"
# Model choices measured: flags for `run.py mcp`, and how many warm calls each gets (the
# embedded model takes seconds a call on a small CPU).
MODES = {"no-llm": (("--no-llm",), 8), "embedded": ((), 4)}


def thread(n: int) -> str:
    """A two-message thread that fixes a lunch on its own date and hour: a weekday alone
    ("next wednesday") could mean two weeks, which Veil rightly asks about instead."""
    day = date(2026, 11, 25) + timedelta(days=n % 20)
    hour = 1 + n // 20
    when = f"{day:%A} {day.day} {day:%B} at {hour}pm"
    return f"Sam Lee: lunch on {when}?\nMe: sure, {when} works for me"


async def session_times(flags: tuple[str, ...], warm_calls: int, data_dir: Path) -> dict:
    """Start-up, first-call and later-call seconds of one server session."""
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "run.py"), "mcp", *flags, "--now", NOW, "--tz", TZ],
        env={"PATH": "/usr/bin:/bin", "VEIL_DATA_DIR": str(data_dir), "HOME": str(data_dir)},
        cwd=ROOT,
    )
    started = time.perf_counter()
    calls: list[float] = []
    statuses: list[str] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        startup = time.perf_counter() - started
        for n in range(1 + warm_calls):
            began = time.perf_counter()
            answer = await session.call_tool("extract_events", {"thread": thread(n)})
            calls.append(time.perf_counter() - began)
            if answer.is_error:
                raise RuntimeError(f"extract_events failed: {answer.content}")
            statuses += [e["status"] for e in answer.structured_content["events"]]
    return {"startup": startup, "cold": calls[0], "warm": calls[1:], "statuses": statuses}


def main() -> None:
    """Measure each model choice once, write bench/results/mcp.md."""
    chosen = os.environ.get("VEIL_BENCH_MCP_MODES", ",".join(MODES)).split(",")
    rows = []
    created_all = True
    for mode in chosen:
        flags, warm_calls = MODES[mode]
        with tempfile.TemporaryDirectory() as scratch:
            figures = anyio.run(session_times, flags, warm_calls, Path(scratch))
        created_all = created_all and set(figures["statuses"]) == {"created"}
        warm = figures["warm"]
        rows.append(
            [
                f"`{mode}`",
                shown(figures["startup"], "s"),
                shown(figures["cold"], "s"),
                f"{shown(median(warm), 's')} (n={len(warm)})",
                f"{shown(min(warm), 's')} – {shown(max(warm), 's')}",
            ]
        )
    notes = [
        "Each row is one `run.py mcp` session driven by the MCP SDK's stdio client: start-up is "
        "spawn to `initialize` answered; cold is the first `extract_events` call; warm calls "
        "each carry a different two-message thread that fixes a lunch, so each runs a whole "
        "turn and creates an event (none is a duplicate).",
        "The server loads spaCy, Duckling and the model on its main thread from the moment it "
        "starts; a first call sent right after `initialize`, as here, waits for that, so the "
        "cold figure includes it. A client that calls later finds it done.",
        "Every call's events came back `created`, as the threads state and agree each time."
        if created_all
        else "Some calls did not come back `created`: the figures time a different path.",
    ]
    notes += run_notes(None)
    write_table(
        "mcp",
        "`run.py mcp`: `extract_events` latency per call (bench/mcp.py)",
        ["model", "start-up", "first call (cold)", "later calls (median)", "later calls (range)"],
        rows,
        notes,
    )


if __name__ == "__main__":
    main()
