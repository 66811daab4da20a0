"""The act model: the shipped weights load, give their manifest's sealed figure, run in
milliseconds, and an unsure reading never counts as an act that changes the calendar."""

from __future__ import annotations

import json
import time
from importlib import resources

import numpy as np
import pytest

from lang.frequency import LANGUAGES
from training.act_model import HUMAN_SEALED, read_jsonl, score
from training.act_scenarios import scenarios
from understanding.acts import ACTS, ActModel, featurise, model, read_act


def _manifest() -> dict:
    folder = resources.files("understanding").joinpath("models")
    return json.loads(folder.joinpath("acts.json").read_text(encoding="utf-8"))


def test_the_shipped_model_gives_its_manifests_figure_on_the_human_sealed_set() -> None:
    if not HUMAN_SEALED.exists():
        pytest.fail(f"{HUMAN_SEALED} is missing: the sealed set ships with the repository")
    manifest = _manifest()
    figures = score(model(), read_jsonl(HUMAN_SEALED))
    assert figures["macro_f1"] == pytest.approx(manifest["figures"]["sealed_human"]["macro_f1"])
    assert figures["n"] == manifest["figures"]["sealed_human"]["n"]
    assert set(model().labels) <= set(ACTS)


def test_a_message_is_read_in_milliseconds() -> None:
    texts = ["can we push that to 8 instead?", "Treffen wir uns Montag um 10?"] * 50
    read_act(texts[0])  # the load is once per process, not per message
    started = time.perf_counter()
    for text in texts:
        model().read(text, "request")  # the model itself: read_act would answer from its cache
    assert (time.perf_counter() - started) / len(texts) < 0.02  # issue 38: <= 20 ms a message


def test_digits_are_one_shape_so_clock_times_read_alike() -> None:
    seven, nine = featurise("lunch at 7pm?", "thread"), featurise("lunch at 9pm?", "thread")
    assert np.array_equal(np.sort(seven[0]), np.sort(nine[0]))
    assert not np.array_equal(np.sort(seven[0]), np.sort(featurise("lunch at 7pm?", "request")[0]))


def test_a_reading_under_its_threshold_is_other() -> None:
    labels = ("cancel", "other")
    bucket = featurise("cancel", "request")[0]
    weights = np.zeros((len(bucket), 2))
    weights[:, 0] = 0.3  # cancel leads, but only just
    unsure = ActModel(labels, np.sort(bucket), weights, np.zeros(2), {"cancel": 0.9})
    reading = unsure.read("cancel", "request")
    assert reading.act == "other" and reading.scores["cancel"] > reading.scores["other"]
    sure = ActModel(labels, np.sort(bucket), weights, np.zeros(2), {"cancel": 0.5})
    assert sure.read("cancel", "request").act == "cancel"


def test_generated_scenarios_cover_every_act_in_every_language() -> None:
    table = scenarios()
    for context in ("thread", "request"):
        english = set(table[context]["en"])
        for lang in LANGUAGES:
            assert set(table[context][lang]) == english, (context, lang)
            assert all(len(t) >= 8 for t in table[context][lang].values()), (context, lang)
    assert set(table["slots"]) == set(LANGUAGES)
    assert {act for c in ("thread", "request") for act in table[c]["en"]} <= set(ACTS)


@pytest.mark.parametrize(
    ("request_text", "adds"),
    [
        ("add this", True),
        ("add it to my calendar", True),
        ("yes please", True),
        ("trag das ein", True),
        ("ajoute ça", True),
        ("pon esto en mi calendario", True),
        ("adiciona isso", True),
        ("aggiungilo", True),
        # must not fire: a request over a thread that asks for no event
        ("summarise", False),
        ("anything I need to do?", False),
        ("what's in this thread?", False),
        ("who is this?", False),
        ("was soll ich damit machen?", False),
        ("is this legit?", False),
    ],
)
def test_a_request_asks_to_add_by_its_act_group(request_text: str, adds: bool) -> None:
    from understanding.acts import reads_as

    assert reads_as(request_text, "add") is adds


def test_every_group_has_a_fitted_threshold_in_both_contexts() -> None:
    from understanding.acts import ACT_GROUPS

    fitted = _manifest()["group_thresholds"]
    for context in ("request", "thread"):
        assert set(fitted[context]) == set(ACT_GROUPS), context
        assert all(0.0 < cut < 1.0 for cut in fitted[context].values()), context


def test_a_reading_spread_over_one_group_counts_for_the_group() -> None:
    """Decline 0.45 and cancel 0.45: neither act alone is sure, the plan is off either way."""
    labels = ("cancel", "decline", "other")
    bucket = np.sort(featurise("drop it", "request")[0])
    weights = np.zeros((len(bucket), 3))
    weights[:, :2] = 1.0  # cancel and decline alike, well above other
    spread = ActModel(
        labels, bucket, weights, np.zeros(3), {"cancel": 0.6, "decline": 0.6},
        group_thresholds={"request": {"call_off": 0.8}},
    )  # fmt: skip
    reading = spread.read("drop it", "request")
    assert reading.act == "other"  # neither act alone clears its threshold
    assert reading.scores["cancel"] + reading.scores["decline"] >= 0.8
    assert spread.reads_as("drop it", "call_off", "request")
