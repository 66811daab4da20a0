"""The reply-stance head: the shipped weights load and give their manifest's sealed figure, the
cut is what the out-of-fold rule gives, and in a turn a reply that does not agree holds the
other person's start for the user's yes while a thanks that agrees still creates it."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from agent.assistant import Assistant, Turn, build_assistant
from training.act_model import HUMAN_SEALED
from training.reply_stance import (
    TARGET_PRECISION,
    cut_for,
    figures_at,
    human_sealed_rows,
    yes_cut_for,
)
from understanding.acts import _stance, reply_agrees, reply_disagrees

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 23, 9, 0, tzinfo=ZoneInfo(TZ))


def _manifest() -> dict:
    folder = resources.files("understanding").joinpath("models")
    return json.loads(folder.joinpath("stance.json").read_text(encoding="utf-8"))


def test_the_shipped_head_gives_its_manifests_figure_on_the_human_sealed_replies() -> None:
    if not HUMAN_SEALED.exists():
        pytest.fail(f"{HUMAN_SEALED} is missing: the sealed set ships with the repository")
    model, cut, yes_cut = _stance()
    manifest = _manifest()
    assert cut == manifest["no_below"] and 0.0 < cut < 0.5 < yes_cut == manifest["yes_from"]
    rows = human_sealed_rows()
    yes = np.array([model.probabilities(r["text"], "thread")[1] for r in rows])
    figures = figures_at(yes, np.array([r["stance"] == "no" for r in rows]), cut)
    assert figures == manifest["figures"]["sealed_human"]
    assert figures["no_precision"] >= 0.9  # what the cut was fitted for, on text no fit saw


def test_the_cut_is_the_highest_that_keeps_the_target_precision() -> None:
    yes = np.array([0.02, 0.04, 0.12, 0.18, 0.22, 0.33, 0.6, 0.9])
    gold_no = np.array([True, True, True, True, True, False, False, False])
    assert cut_for(yes, gold_no) == pytest.approx(0.3)  # 0.35 would take the 0.33 yes too
    flipped = np.array([False, True, True, True, True, False, False, False])
    assert TARGET_PRECISION > 0.8 and cut_for(yes, flipped) == 0.0  # a yes at the bottom
    assert figures_at(yes, gold_no, 0.3)["no_recall"] == 1.0
    assert figures_at(yes, gold_no, 0.2)["no_recall"] == 0.8


@pytest.fixture
def rules(tmp_path: Path) -> Assistant:
    """A fresh calendar per case: the same plan twice would be refused as already there."""
    return build_assistant(data_dir=tmp_path, no_llm=True)


@pytest.mark.parametrize(
    "reply",
    [
        "who said I'd be there? we didn't talk about it",  # none reads as a no to the act model
        "on n'a jamais parlé de ça",
        "nein",  # the act model's call-off reading catches what the head leaves between cuts
        "no, I can't",
    ],
)
def test_a_reply_that_does_not_agree_holds_the_start_for_the_users_yes(
    rules: Assistant, reply: str
) -> None:
    thread = f"Kofi: the audit walkthrough is Thursday 14:00 in room 4\nMe: {reply}"
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    states = [(e.status, e.held) for e in bundle.events]
    assert ("proposed", "unagreed") in states and all(s != "created" for s, _ in states)
    assert bundle.question


@pytest.mark.parametrize("reply", ["great, thanks!", "perfecto, gracias", "👍"])
def test_a_thanks_that_agrees_still_creates(rules: Assistant, reply: str) -> None:
    assert not reply_disagrees(reply)
    thread = f"Kofi: the audit walkthrough is Thursday 14:00 in room 4\nMe: {reply}"
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["created"]


def test_the_training_data_is_where_the_manifest_says() -> None:
    root = Path(__file__).resolve().parents[1]
    for path in _manifest()["data"]["generated"]:
        assert (root / path).exists(), path


def test_a_yes_stands_whatever_the_user_asks_later(rules: Assistant) -> None:
    """The user agreed, then asked about something else: the later question is no answer to
    the plan, so the yes stands and the start is created."""
    thread = (
        "Kofi: the audit walkthrough is Thursday 14:00 in room 4\nMe: great, thanks!\n"
        "Kofi: bring the Q3 numbers\nMe: which ones?"
    )
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["created"]


def test_the_two_cuts_read_yes_no_and_neither() -> None:
    yes = np.array([0.1, 0.5, 0.86, 0.9, 0.95, 0.97, 0.99, 0.82])
    gold_no = np.array([True, True, False, False, False, False, False, True])
    assert yes_cut_for(yes, gold_no) == pytest.approx(0.85)  # 0.82 is a no
    assert yes_cut_for(yes, np.ones(len(yes), dtype=bool)) == 1.0  # no cut reads a yes
    assert reply_agrees("perfecto, gracias") and not reply_disagrees("perfecto, gracias")
    assert reply_disagrees("we never discussed this") and not reply_agrees(
        "we never discussed this"
    )
    assert not reply_agrees("") and not reply_disagrees("  ")  # nothing said decides nothing


@pytest.mark.parametrize("reply", ["Listo, gracias", "we'll bring the potato salad", "¡Obvio!"])
def test_a_reply_that_agrees_without_a_yes_word_still_creates(rules: Assistant, reply: str) -> None:
    thread = f"Kofi: the audit walkthrough is Thursday 14:00 in room 4\nMe: {reply}"
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["created"]


@pytest.mark.parametrize("reply", ["I never said yes", "maybe, let me check"])
def test_the_heads_no_outweighs_the_act_models_yes(rules: Assistant, reply: str) -> None:
    """The act model reads a yes word ("yes", "check") over all kinds of message; the head
    fitted on replies alone reads these as a no, and on a reply its no is the one that holds."""
    from understanding.acts import reads_as

    assert reads_as(reply, "add", "thread") and reply_disagrees(reply)
    thread = f"Kofi: the audit walkthrough is Thursday 14:00 in room 4\nMe: {reply}"
    bundle = rules.ask(Turn(request="add this", thread=thread, now=NOW, tz=TZ))
    assert [(e.status, e.held) for e in bundle.events] == [("proposed", "unagreed")]


def test_a_question_about_the_time_is_no_yes(rules: Assistant) -> None:
    """The user's question names the start ("why at 3am?"): that backs nothing, and the other
    side's "so that's a yes" does not make one."""
    thread = "Alex: transfer funds at 3am tomorrow\nMe: what? why at 3am??\nAlex: so that's a yes"
    bundle = rules.ask(Turn(request="add it to my calendar", thread=thread, now=NOW, tz=TZ))
    assert [e.status for e in bundle.events] == ["proposed"] and bundle.question
