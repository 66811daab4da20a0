"""The real e-mail set's gold is frozen: a rule that fits the data must not edit the answers."""

from __future__ import annotations

import hashlib
import json

from bench.emails import REQUESTS, SOURCE, load

# sha256 of the (id, has_meeting, gold starts) triples as the helper froze them before any run.
FROZEN = "5c5135b795d384d2d65fc3a8b3a1623518356fd6e0e12e883312bdf26bdf01f4"


def test_the_gold_is_as_frozen() -> None:
    rows = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line]
    triples = [(r["id"], r["has_meeting"], [e["start"] for e in r["events"]]) for r in rows]
    digest = hashlib.sha256(json.dumps(triples, sort_keys=True).encode()).hexdigest()
    assert digest == FROZEN


def test_every_mail_is_a_case_under_each_request() -> None:
    for request in REQUESTS.values():
        cases = load(request)
        assert len(cases) == 150 and {c["request"] for c in cases} == {request}
        meeting = [c for c in cases if c["tags"] == ["meeting"]]
        assert len(meeting) == 50 and all(c["gold"]["events"] for c in meeting)
        assert not any(c["gold"]["events"] for c in cases if c["tags"] == ["none"])
        # a timed gold start carries an offset, so it is compared in the case's zone
        starts = [g["start"] for c in cases for g in c["gold"]["events"] if not g["all_day"]]
        assert starts and all(s[10] == "T" and s[-6] in "+-" for s in starts)
