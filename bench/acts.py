"""The act model on sets it was never fitted on: macro-F1, a confusion matrix, and its speed.

Two sealed sets: the third-party corpora's sealed split (whole SMCalFlow, SLURP and SGD
dialogues the fit never saw; `../shared/benchmarks/acts/`) and the human-written set
(`bench/data/acts_human_sealed.jsonl`, six languages, written by a helper who saw neither code
nor training data). The cross-validated figure from the fit stands beside each, so the gap shows.
The baseline, measured in the same run, is the phrase cues the follow-up and calendar-question
routing used before the model (acts.toml [cancel] and [move], requests.toml's calendar sections).

    python -m bench.acts
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent.asked import asked
from agent.extraction.cue import MOVE_RE, calls_off
from bench.common import RESULTS, median, timed, write_table
from training.act_model import HUMAN_SEALED, read_jsonl, score, third_party
from understanding.acts import model, read_act

_BASELINE_ACTS = ("cancel", "move", "calendar_question")


def _phrase_cue(text: str) -> str:
    """What the phrase cues said a request was, for the three acts they covered."""
    if calls_off(text):
        return "cancel"
    if MOVE_RE.search(text):
        return "move"
    if any(asked(text, s) for s in ("calendar_list", "calendar_free", "calendar_when")):
        return "calendar_question"
    return "other"


def _recall(rows: Sequence[dict], read: object, act: str) -> str:
    gold = [r for r in rows if r["act"] == act]
    hits = sum(read(r) == act for r in gold)  # type: ignore[operator]
    return f"{hits}/{len(gold)}"


def main() -> None:
    manifest = json.loads(
        (RESULTS.parent.parent / "understanding" / "models" / "acts.json").read_text()
    )
    sets = {"third-party sealed": third_party("sealed"), "human sealed": read_jsonl(HUMAN_SEALED)}
    shipped = model()
    rows, confusions = [], {}
    cv = manifest["figures"]["cross_validated"]["macro_f1"]
    for name, data in sets.items():
        figures = score(shipped, data)
        confusions[name] = figures["confusion"]
        speed = median(
            [
                s * 1000 / len(data)
                for s in timed(lambda d=data: [shipped.read(r["text"], r["context"]) for r in d], 3)
            ]
        )
        rows.append(
            [name, figures["n"], figures["macro_f1"], cv, figures["accuracy"], f"{speed:.2f} ms"]
        )
    human = [r for r in sets["human sealed"] if r["context"] == "request"]
    baseline_rows = [
        [
            act,
            _recall(human, lambda r: read_act(r["text"], "request").act, act),
            _recall(human, lambda r: _phrase_cue(r["text"]), act),
        ]
        for act in _BASELINE_ACTS
    ]
    notes = [
        "Macro-F1 over the acts each set holds; the act model's thresholds apply (an unsure "
        "reading is `other`). Cross-validated: grouped 4-fold on the training data (by dialogue "
        "or template), the figure the fit chose by.",
        "",
        "Requests of the human set, recall per act: act model | phrase cues before it",
        "",
        "| act | act model | phrase cues |",
        "|---|---|---|",
        *[f"| {a} | {m} | {p} |" for a, m, p in baseline_rows],
        "",
        "Confusion (gold -> predicted counts), human sealed set:",
        "",
        *[
            f"- {gold}: "
            + ", ".join(f"{p} {n}" for p, n in sorted(row.items(), key=lambda x: -x[1]))
            for gold, row in sorted(confusions["human sealed"].items())
        ],
    ]
    write_table(
        "acts",
        "Act model (bench/acts.py)",
        ["set", "messages", "macro-F1", "cross-validated macro-F1", "accuracy", "per message"],
        rows,
        notes,
    )


if __name__ == "__main__":
    main()
