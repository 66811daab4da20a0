"""How likely a start hour is, from the hours real bookings start at.

A start at 3 am read from someone else's message is more often a misread "3", or an order
hidden in a pasted thread, than a plan: real bookings almost never start then. The rare hours
are fitted by `training/start_hours.py` on third-party bookings (SGD) as the least booked hours
that together hold at most 1 % of starts, and ship in `models/start_hours.json` with their
manifest. The agent asks about such a start before it is created; a start the user typed
themselves is theirs and is not second-guessed.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo


@functools.cache
def manifest() -> dict[str, Any]:
    """The fitted table and what it was fitted on."""
    path = resources.files("understanding").joinpath("models", "start_hours.json")
    return json.loads(path.read_text())


def rare_start(start: datetime, zone: ZoneInfo) -> bool:
    """Whether `start`, read in `zone`, falls in an hour real bookings almost never start in."""
    return start.astimezone(zone).hour in manifest()["rare_hours"]
