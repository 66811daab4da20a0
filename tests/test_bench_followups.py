"""bench/followups.py scores a conversation by the calendar after each turn, not by the reply."""

from __future__ import annotations

from bench.followups import kind, run

CONVERSATION = {
    "id": "T1",
    "tz": "Europe/Berlin",
    "now": "2026-11-24T10:00:00+01:00",
    "turns": [
        {"req": "lunch with Karthik Rao thursday next week at 1", "expect": ["2026-12-03T13:00"]},
        {"req": "can we push that to 3pm instead?", "expect": ["2026-12-03T15:00"]},
        {"req": "how does thursday next week look?", "expect": ["2026-12-03T15:00"]},
        {"req": "forget lunch", "expect": []},
    ],
}


def test_a_turns_kind_comes_from_the_gold_alone() -> None:
    assert kind([], ["2026-12-03T13:00"]) == "create"
    assert kind(["2026-12-03T13:00"], ["2026-12-03T15:00"]) == "move"
    assert kind(["2026-12-03T13:00"], []) == "cancel"
    assert kind(["2026-12-03T13:00"], ["2026-12-03T13:00"]) == "no change"
    assert kind(["a", "b"], ["c"]) == "other"


def test_a_conversation_is_right_turn_by_turn_and_a_wrong_gold_counts_as_wrong() -> None:
    tally = run([CONVERSATION])
    assert sum(tally["right"].values()) == 4 and tally["whole"] == 1
    misled = {**CONVERSATION, "turns": [dict(t) for t in CONVERSATION["turns"]]}
    misled["turns"][1]["expect"] = ["2026-12-03T16:00"]  # Veil moves it to 15:00, as asked
    tally = run([misled])
    assert tally["whole"] == 0 and tally["wrong"][0] == "T1#2 (move)"
