"""Veil's benchmarks: `python -m bench` runs them all; `python -m bench.NAME` runs one."""

# The benchmark modules, in the order `make bench` runs them and docs/benchmarks.md shows them.
BENCHMARKS = (
    "model",
    "cli",
    "serve",
    "mcp",
    "privacy",
    "acts",
    "times",
    "ics",
    "exports",
    "memory",
    "agent",
    "smcalflow",
    "blind",
    "emails",
    "followups",
    "stance",
    "time_roles",
    "web",
    "journeys",
    "load",
    "ocr",
    "caldav",
    "hostile",
)
