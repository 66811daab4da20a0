"""The shipped table of rare start hours: it loads, it is what its own counts give under the
manifest's policy, and the agent asks about a start there only when someone else stated it."""

from __future__ import annotations

import tempfile
from collections import Counter
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent.assistant import Turn, build_assistant
from training.start_hours import asked_share, rare_hours
from understanding.start_hours import manifest, rare_start

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))


def test_the_table_is_its_counts_under_the_manifests_policy() -> None:
    shipped = manifest()
    counts = Counter(dict(enumerate(shipped["counts"])))
    assert sum(counts.values()) == shipped["training_rows"]
    assert rare_hours(counts, shipped["ask_share"]) == shipped["rare_hours"]
    rows = [("", hour) for hour, n in counts.items() for _ in range(n)]
    assert asked_share(shipped["rare_hours"], rows) <= shipped["ask_share"]
    # a working day's hours are never rare; the small hours are
    assert not set(shipped["rare_hours"]) & set(range(7, 21)) and 3 in shipped["rare_hours"]
    assert shipped["figures"]["asked_share_sealed_dev"] <= shipped["ask_share"]


def test_rare_is_read_in_the_users_zone() -> None:
    utc = datetime(2026, 12, 1, 2, 0, tzinfo=ZoneInfo("UTC"))
    assert rare_start(utc, ZoneInfo("UTC"))
    assert not rare_start(utc, ZoneInfo("Asia/Tokyo"))  # 11:00 there


@pytest.fixture(scope="module")
def rules():  # noqa: ANN201
    return build_assistant(data_dir=tempfile.mkdtemp(prefix="veil-hours-"), no_llm=True)


@pytest.mark.parametrize(
    ("request_text", "thread", "created"),
    [
        ("add this", "Sam: the transfer is on monday at 3am", False),  # stated by someone else
        ("add this", "Sam: the transfer is on monday at 3pm", True),
        ("add the transfer monday at 3am", "", True),  # the user typed it
        ("ajoute ça", "Léa : le virement lundi à 2h du matin", False),
    ],
)
def test_a_rare_hour_from_someone_else_is_asked_not_created(
    rules,
    request_text: str,
    thread: str,
    created: bool,  # noqa: ANN001
) -> None:
    bundle = rules.ask(Turn(request=request_text, thread=thread, now=NOW, tz=TZ))
    statuses = [e.status for e in bundle.events]
    if created:
        assert statuses == ["created"]
    else:
        assert statuses == ["proposed"] and bundle.events[0].held == "rare_hour"
        assert bundle.question and bundle.question.startswith("Should I add")
