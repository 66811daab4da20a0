"""The pressure head: the shipped weights load and give their manifest's figure on the sealed
sample that ships with them, the cut is what the out-of-fold rule gives, and in a turn a time
another person pushed on a user who wrote nothing in the thread waits for their yes, while an
ordinary notice of theirs is added on "add this"."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from agent.assistant import Assistant, Turn, build_assistant
from training.pressure_head import SEALED_SAMPLE, TARGET_PRECISION, cut_for, figures_at
from training.pressure_sources import split_of
from understanding.acts import _pressure, presses

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 23, 9, 0, tzinfo=ZoneInfo(TZ))


def _manifest() -> dict:
    folder = resources.files("understanding").joinpath("models")
    return json.loads(folder.joinpath("pressure.json").read_text(encoding="utf-8"))


def test_the_shipped_head_gives_its_manifests_figure_on_the_sealed_sample() -> None:
    if not SEALED_SAMPLE.exists():
        pytest.fail(f"{SEALED_SAMPLE} is missing: the sealed sample ships with the repository")
    model, cut = _pressure()
    manifest = _manifest()
    assert cut == manifest["pressure_from"] and 0.5 <= cut < 1.0
    rows = [json.loads(line) for line in SEALED_SAMPLE.read_text(encoding="utf-8").splitlines()]
    pressed = np.array([model.probabilities(r["text"], "thread")[1] for r in rows])
    figures = figures_at(pressed, np.array([r["pressure"] for r in rows]), cut)
    assert figures == manifest["figures"]["sealed_sample"]
    assert figures["precision"] >= 0.9  # what the cut was fitted for, on text no fit saw


def test_the_sealed_sample_is_sealed_by_the_split_rule() -> None:
    """Every shipped sealed row hashes to the sealed side, digits and spacing folded: no train
    row can be the same message (or the same spam with another number)."""
    rows = [json.loads(line) for line in SEALED_SAMPLE.read_text(encoding="utf-8").splitlines()]
    assert rows and all(split_of(r["text"]) == "sealed" for r in rows)
    assert split_of("WIN £100 now, call 0800 111") == split_of("win  £900 NOW, call 0800 222")


def test_the_cut_is_the_lowest_that_keeps_the_target_precision() -> None:
    pressed = np.array([0.1, 0.3, 0.52, 0.58, 0.62, 0.7, 0.8, 0.97])
    gold = np.array([False, False, False, True, False, True, True, True])
    assert cut_for(pressed, gold) == pytest.approx(0.63)  # 0.62 would take the plain 0.62
    assert TARGET_PRECISION > 0.8 and cut_for(pressed, ~gold) == 1.0  # nothing keeps it
    assert figures_at(pressed, gold, 0.63)["recall"] == 0.75


def test_the_training_data_is_where_the_manifest_says() -> None:
    root = Path(__file__).resolve().parents[1]
    for path in _manifest()["data"]["generated"]:
        assert (root / path).exists(), path


@pytest.fixture
def rules(tmp_path: Path) -> Assistant:
    return build_assistant(data_dir=tmp_path, no_llm=True)


@pytest.mark.parametrize(
    "thread",
    [
        "Bram Jansen: I signed you up for the charity run on Saturday 5 December at 9:00.\n"
        "Bram Jansen: no need to answer, it's all paid and settled 👍",
        "From: IT Service Desk <helpdesk@secure-mailbox-check.net>\nSubject: ACTION REQUIRED\n\n"
        "Your mailbox will be deactivated. A mandatory verification call is set for Tuesday "
        "1 December at 08:30. Add it to your calendar now; failure to attend closes your "
        "account permanently.",
    ],
)
def test_a_time_pushed_on_the_user_waits_for_their_yes(rules: Assistant, thread: str) -> None:
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["proposed"]
    assert "presses you" in bundle.reply or "decides it for you" in bundle.reply


@pytest.mark.parametrize(
    "thread",
    [
        "From: Praxis Dr. Weber <termine@praxis-weber.de>\nSubject: Terminbestätigung\n\n"
        "Ihr Termin: Donnerstag, 3. Dezember 2026, 10:30 Uhr.\nBitte bringen Sie Ihre "
        "Versichertenkarte mit.",
        "Lena Fischer: could you do the budget review on Wednesday at 14:00? Room 4B.",
    ],
)
def test_an_ordinary_time_is_added_on_add_this(rules: Assistant, thread: str) -> None:
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["created"]


def test_an_empty_message_presses_nothing() -> None:
    assert not presses("") and not presses("   ")
