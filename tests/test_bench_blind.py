"""The blind threads' gold is frozen: a rule that fits the data must not edit the answers."""

from __future__ import annotations

import hashlib
import json

from bench.blind import SOURCE, load, sealed

# sha256 of the (id, gold starts) pairs as the helper froze them before any run.
FROZEN = "c976d0f8e64f6b8c38fd6af93d360778772e6e085077524fd008734565b7f7be"


def test_the_gold_is_as_frozen() -> None:
    raw = json.loads(SOURCE.read_text(encoding="utf-8"))
    pairs = json.dumps([(case["id"], case["expect"]) for case in raw], sort_keys=True)
    assert hashlib.sha256(pairs.encode()).hexdigest() == FROZEN


def test_the_halves_split_by_id() -> None:
    cases = load()
    assert len(cases) == 200
    assert sum(sealed(c) for c in cases) == 100
    # an all-day gold start is a date; a timed one carries its case's zone
    starts = [g["start"] for c in cases for g in c["gold"]["events"]]
    assert all(len(s) == 10 or s[10] == "T" and s[-6] in "+-" for s in starts)
