"""Fit the reply-stance head (`understanding/models/stance.npz`) and write its manifest.

The question it answers: a person proposed a plan with a time, and the user wrote back in the
thread. Does that reply agree? The act model reads sixteen acts over every kind of message;
spread over them, "Listo, gracias" and "which flat?" both land on `other`, so it cannot tell a
thanks that agrees from a puzzled question that does not. This head is fitted on replies alone,
with two labels, over the act model's own features (`understanding.acts.featurise` and the
shipped MiniLM vector), so it adds no vocabulary and no second featuriser.

Data (train split only):
- the helpers' generated replies in six languages: `act_scenarios_thread_replies.toml` (real
  yeses against hedges, questions back, thanks for something else, pretended agreement) and
  `stances/` (emoji-only and implicit yeses, denials that any agreement happened, negated yeses,
  yeses worded with a negation), plus the thread messages of every act scenario file that
  answer a plan (accept, confirm against decline, counter, cancel, other);
- SGD user turns that answer the system's offer (AFFIRM/SELECT against NEGATE and NEGATE with
  another time), as `training/act_sources.py` converted them.

Chosen by cross-validation grouped by template or dialogue: the regularisation strength (lowest
out-of-fold log-loss) and the threshold below which a reply reads as not agreeing (the highest
probability of a yes at which out-of-fold precision of "does not agree" still reaches
TARGET_PRECISION), and the lowest at and above which its precision of "agrees" does. The
sealed rows (SGD's sealed dialogues; the thread replies of
`bench/data/acts_human_sealed.jsonl`) are scored once, after, and only reported.

    python -m training.reply_stance            # about a minute on 2 cores
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from training.act_model import (
    HUMAN_SEALED,
    OUT,
    THIRD_PARTY,
    _commit,
    _digest,
    fit_matrix,
    read_jsonl,
    third_party,
)
from training.act_scenarios import DATA, generate, scenario_files
from understanding.acts import ActModel

SEED = 17
FOLDS = 4
C_GRID = (2.0, 8.0, 32.0)
STANCES = DATA / "stances"
# A reply read as not agreeing holds a start the user's request would otherwise create, and the
# user answers one question instead; a real yes read as a no costs that question, so the cut is
# set where nineteen in twenty of the replies it calls a no are one.
TARGET_PRECISION = 0.95
LABELS = ("no", "yes")  # softmax over [0, z]: the probability of a yes is a sigmoid
AGREE = frozenset({"accept", "confirm"})
DISAGREE = frozenset({"decline", "counter", "cancel", "other"})


def _label(act: str) -> str | None:
    return "yes" if act in AGREE else "no" if act in DISAGREE else None


def training_rows(seed: int = SEED) -> list[dict[str, Any]]:
    """Replies with a `stance` label, from the train split and the generated templates."""
    rows: list[dict[str, Any]] = []
    for row in third_party("train"):
        if row["context"] == "thread" and row["act"] in {"accept", "decline", "counter"}:
            rows.append({**row, "stance": _label(row["act"])})
    for folder, tag in ((DATA, "acts"), (STANCES, "stances")):
        for row in generate(seed=seed, folder=folder, slots_from=DATA):
            stance = _label(row["act"])
            if row["context"] == "thread" and stance is not None:
                rows.append({**row, "stance": stance, "dialogue": f"{tag}:{row['dialogue']}"})
    return rows


def human_sealed_rows() -> list[dict[str, Any]]:
    """The human-written thread messages: they ship with the repository, so a check on them
    needs no converted corpus in `../shared`."""
    return [
        {**r, "stance": _label(r["act"])}
        for r in (read_jsonl(HUMAN_SEALED) if HUMAN_SEALED.exists() else [])
        if r["context"] == "thread" and _label(r["act"]) is not None
    ]


def sealed_rows() -> dict[str, list[dict[str, Any]]]:
    """The sealed replies: SGD's sealed dialogues and the human-written thread messages."""
    sgd = [
        {**r, "stance": _label(r["act"])}
        for r in third_party("sealed")
        if r["context"] == "thread" and r["act"] in {"accept", "decline", "counter"}
    ]
    return {"sealed_sgd": sgd, "sealed_human": human_sealed_rows()}


def _fit(x: sparse.csr_matrix, y: np.ndarray, c: float) -> LogisticRegression:
    return LogisticRegression(C=c, max_iter=500, class_weight="balanced").fit(x, y)


def cut_for(yes: np.ndarray, gold_no: np.ndarray) -> float:
    """The highest probability of a yes below which out-of-fold precision of a no reaches the
    target (0.0, reading nothing as a no, when no cut does)."""
    chosen = 0.0
    for cut in np.arange(0.05, 0.96, 0.05):
        taken = yes < cut
        if taken.sum() and gold_no[taken].mean() >= TARGET_PRECISION:
            chosen = round(float(cut), 2)
    return chosen


def yes_cut_for(yes: np.ndarray, gold_no: np.ndarray) -> float:
    """The lowest probability of a yes at and above which out-of-fold precision of a yes
    reaches the target (1.0, reading nothing as a yes, when no cut does)."""
    for cut in np.arange(0.5, 0.99, 0.05):
        taken = yes >= cut
        if taken.sum() and (~gold_no[taken]).mean() >= TARGET_PRECISION:
            return round(float(cut), 2)
    return 1.0


def yes_figures_at(yes: np.ndarray, gold_no: np.ndarray, cut: float) -> dict[str, Any]:
    """Precision and recall of "agrees" at the cut."""
    called = yes >= cut
    right = int((called & ~gold_no).sum())
    return {
        "yes_precision": round(right / called.sum(), 3) if called.sum() else None,
        "yes_recall": round(right / (~gold_no).sum(), 3) if (~gold_no).sum() else None,
    }


def figures_at(yes: np.ndarray, gold_no: np.ndarray, cut: float) -> dict[str, Any]:
    """Precision and recall of "does not agree" at the cut, and how many yeses it took for one."""
    called = yes < cut
    right = int((called & gold_no).sum())
    return {
        "n": int(len(yes)),
        "no_precision": round(right / called.sum(), 3) if called.sum() else None,
        "no_recall": round(right / gold_no.sum(), 3) if gold_no.sum() else None,
        "yeses_read_as_no": int((called & ~gold_no).sum()),
        "yeses": int((~gold_no).sum()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-sealed", action="store_true", help="fit only, read no sealed set")
    args = parser.parse_args()

    rows = training_rows()
    y = np.array([r["stance"] == "yes" for r in rows])
    x, used = fit_matrix(rows)
    groups = np.array([r["dialogue"] for r in rows])
    print(f"{len(rows)} replies, {int(y.sum())} yes")

    folds = list(GroupKFold(n_splits=FOLDS).split(x, y, groups))
    loss: dict[float, float] = {}
    out_of_fold: dict[float, np.ndarray] = {}
    for c in C_GRID:
        yes = np.zeros(len(rows))
        for train, held in folds:
            yes[held] = _fit(x[train], y[train], c).predict_proba(x[held])[:, 1]
        clipped = np.clip(yes, 1e-6, 1 - 1e-6)
        loss[c] = float(-np.mean(y * np.log(clipped) + (~y) * np.log(1 - clipped)))
        out_of_fold[c] = yes
        print(f"C={c}: out-of-fold log-loss {loss[c]:.4f}")
    best_c = min(loss, key=lambda c: loss[c])
    cut = cut_for(out_of_fold[best_c], ~y)
    yes_cut = yes_cut_for(out_of_fold[best_c], ~y)
    print("cut", cut, "yes cut", yes_cut)

    fitted = _fit(x, y, best_c)
    coef = fitted.coef_[0].astype(np.float16)
    weights = np.stack([np.zeros_like(coef), coef], axis=1)  # [no, yes] per feature
    bias = np.array([0.0, fitted.intercept_[0]], dtype=np.float32)
    shipped, dense = weights[: len(used)], weights[len(used) :]
    model = ActModel(LABELS, used, shipped, bias, {}, dense)

    generated = np.array([r["source"].startswith("veil-generated") for r in rows])
    oof = out_of_fold[best_c]
    figures: dict[str, Any] = {
        "cross_validated": {
            "folds": FOLDS,
            "grouped_by": "dialogue or template",
            "log_loss": {str(c): round(v, 4) for c, v in loss.items()},
            "all": figures_at(oof, ~y, cut),
            "all_yes": yes_figures_at(oof, ~y, yes_cut),
            "third_party": figures_at(oof[~generated], ~y[~generated], cut),
            "generated": figures_at(oof[generated], ~y[generated], cut),
        }
    }
    if not args.no_sealed:
        for name, sealed in sealed_rows().items():
            if sealed:
                yes = np.array([model.probabilities(r["text"], "thread")[1] for r in sealed])
                gold_no = np.array([r["stance"] == "no" for r in sealed])
                figures[name] = figures_at(yes, gold_no, cut)
                figures[f"{name}_yes"] = yes_figures_at(yes, gold_no, yes_cut)
                print(name, figures[name], figures[f"{name}_yes"])

    np.savez_compressed(
        OUT / "stance.npz", buckets=used.astype(np.int64), weights=shipped, dense=dense, bias=bias
    )
    manifest = {
        "labels": list(LABELS),
        "no_below": cut,
        "yes_from": yes_cut,
        "target_precision": TARGET_PRECISION,
        "c": best_c,
        "seed": SEED,
        "commit": _commit(),
        "training_rows": len(rows),
        "data": {
            "third_party": "SGD user replies (AFFIRM/SELECT, NEGATE) from "
            + str(THIRD_PARTY.name)
            + "/acts_sgd.jsonl, train split",
            "generated": {
                str(p.relative_to(OUT.parents[1])): _digest(p)
                for p in [*scenario_files(), *scenario_files(STANCES)]
            },
            "sealed_human": str(HUMAN_SEALED.relative_to(OUT.parents[1])),
        },
        "figures": figures,
    }
    (OUT / "stance.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print("written", OUT / "stance.npz")


if __name__ == "__main__":
    main()
