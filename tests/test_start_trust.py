"""A start read from pasted text that the start-trust head doubts is asked about, not created.

The head (agent/start_trust.py) ships with its manifest; these tests check that the artefact
loads with the cut its fit chose and that the fit's out-of-fold figure says it helps; that an
invitation to the reader is still created; and the wiring: a start below the cut waits for the
user's yes and the turn asks, while a start the user's own line agreed to is never weighed.
The texts are written here for the test; none is from the sets the head was fitted on.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent import start_trust
from agent.assistant import Turn, build_assistant

TZ = "America/Chicago"
NOW = datetime(2026, 3, 2, 9, 30, tzinfo=ZoneInfo(TZ))  # a Monday

DEADLINE = """From: Dana Whitfield <dana.whitfield@example.com>
To: Ops Team <ops@example.com>, Lee Park <lee.park@example.com>, Sam Ortiz <sam@example.com>
Date: Mon, 2 Mar 2026 08:12:00 -0600
Subject: Q1 expense reports

All,

Please submit your Q1 expense reports by 3:00 pm Thursday, March 5. Anything received after
the deadline goes into the April cycle. Questions to accounting at ext. 4-5521.

Thanks,
Dana
"""

INVITE = """From: Priya Raman <priya.raman@example.com>
To: Chris Novak <chris.novak@example.com>
Date: Mon, 2 Mar 2026 08:40:00 -0600
Subject: Pipeline review

Chris,

Can you join the pipeline review with me and Omar on Wednesday, March 4 at 2:00 pm in room
12C? We'll go through the storage numbers before the board call.

Priya
"""


def _manifest() -> dict:
    folder = resources.files("understanding").joinpath("models")
    return json.loads(folder.joinpath("start_trust.json").read_text(encoding="utf-8"))


def test_the_shipped_head_loads_with_its_fitted_cut() -> None:
    manifest = _manifest()
    head = start_trust.model()
    assert head.cut == manifest["cut"] and 0.0 < head.cut < 1.0
    assert len(head.buckets) == len(head.weights) > 100
    figures = manifest["figures"]["cross_validated"]["all"]
    # out of fold, the cut raised the precision of created starts and kept most right ones
    assert figures["precision_after"] > figures["precision_before"]
    assert figures["wanted_kept"] >= manifest["min_kept"] * figures["wanted"]


AGREED = """Me: lunch on Wednesday, March 4 at 12:30?
Priya Raman: yes, 12:30 works, see you there
"""


def test_the_shipped_head_creates_an_invitation_to_the_reader(tmp_path: Path) -> None:
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    bundle = assistant.ask(Turn(request="add this to my calendar", thread=INVITE, now=NOW, tz=TZ))
    created = [e.start[:16] for e in bundle.events if e.status == "created"]
    assert created == ["2026-03-04T14:00"]


def test_a_start_below_the_cut_is_asked_about_unless_the_user_agreed_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a cut no start reaches, every weighed start waits for the user's yes, and the turn
    asks; a start the user's own line in the thread stated is not weighed, and stands."""
    monkeypatch.setattr(start_trust.model(), "cut", 1.01)
    assistant = build_assistant(data_dir=tmp_path, no_llm=True)
    for mail, creates in ((DEADLINE, False), (INVITE, False), (AGREED, True)):
        bundle = assistant.ask(Turn(request="add this to my calendar", thread=mail, now=NOW, tz=TZ))
        created = [e for e in bundle.events if e.status == "created"]
        assert bool(created) == creates, mail
        if not creates:
            assert bundle.question and "may not hold a plan of yours" in bundle.reply
