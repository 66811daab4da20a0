"""Fit the pressure head (`understanding/models/pressure.npz`) and write its manifest.

The question it answers: someone else wrote a message that states a time, and the user, who
wrote nothing in the thread, asks Veil to add it. Does the message push the time on the user
(a booking made for them, "no need to reply, it's settled", a threat if it is not in the
calendar by tonight) rather than state or ask it? Such a time was set for the user, not with
them, so it is offered for their yes instead of created. Two labels over the act model's own
features (`understanding.acts.featurise` and the shipped MiniLM vector): no vocabulary of its
own and no second featuriser.

Data (train split only):
- generated templates in seven languages, `training/data/pressure/` (bookings made for the
  user, pre-empted replies, claimed acceptances, urgency and phishing against proposals that
  ask, businesses confirming the user's own booking, reminders, notices, friendly
  confirmations);
- the train splits of `training/pressure_sources.py`: the SMS Spam Collection (spam as
  pressure, the people's own messages as plain) and paragraphs of Enron inbox mail (plain: the
  meeting notices, reminders and directives of ordinary business mail);
- thread messages of the act corpora and scenarios that propose, ask, accept, decline, move or
  cancel, as plain.

Chosen by cross-validation grouped by template or message: the regularisation strength (lowest
out-of-fold log-loss) and the cut, the lowest probability of pressure at and above which the
out-of-fold precision of "pressure" on the scheduling templates reaches TARGET_PRECISION (the
pool's spam is easy and would set it lower than scheduling messages bear; an ordinary time
read as pressed costs the user a question; precision first). The corpora's sealed split is
scored once, after, and only reported; a sample of it ships in
`bench/data/pressure_sealed.jsonl` so the shipped head's figure on it is checked by a test
without `../shared`.

    python -m training.pressure_head            # about three minutes on 2 cores
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from training.act_model import OUT, ROOT, _commit, _digest, fit_matrix, read_jsonl, third_party
from training.act_scenarios import DATA, generate, scenario_files, scenarios
from understanding.acts import ActModel

SEED = 17
FOLDS = 4
C_GRID = (2.0, 8.0, 32.0)
TARGET_PRECISION = 0.98
LABELS = ("plain", "pressure")
PRESSURE = DATA / "pressure"
CORPUS = ROOT.parent / "shared" / "benchmarks" / "pressure" / "pressure_corpora.jsonl"
SEALED_SAMPLE = ROOT / "bench" / "data" / "pressure_sealed.jsonl"
SAMPLE_SIZE = 400
# Thread acts of the act corpora and scenarios that state or answer a plan without pressing it.
PLAIN_ACTS = frozenset({"propose", "ask_availability", "accept", "decline", "move", "cancel"})
PLAIN_CORPUS_ROWS = 3000  # a sample: the act corpora hold tens of thousands


def as_redacted(seed: int = SEED) -> Callable[[str], str]:
    """What the redactor makes of a generated message: the head reads threads after names
    became placeholders ("Ti <PERSON_2> prenotato ..."), so it learns them as it will see them."""
    names = {
        name
        for slots in scenarios(DATA).get("slots", {}).values()
        for name in slots.get("name", [])
        if name[:1].isupper()  # "mum", "papa" stay words
    }
    pattern = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, names), key=len, reverse=True))
                         + r")\b")  # fmt: skip
    rng = random.Random(seed)
    return lambda text: pattern.sub(lambda _: f"<PERSON_{rng.randint(1, 3)}>", text)


def training_rows(seed: int = SEED) -> list[dict[str, Any]]:
    """Messages with a `pressure` flag, from the train splits and the generated templates."""
    rng = random.Random(seed)
    redact = as_redacted(seed)
    rows: list[dict[str, Any]] = []
    for row in generate(seed=seed, folder=PRESSURE, slots_from=DATA):
        if row["context"] == "thread" and row["act"] in LABELS:
            rows.append({**row, "text": redact(row["text"]), "pressure": row["act"] == "pressure",
                         "dialogue": f"pressure:{row['dialogue']}"})  # fmt: skip
    for row in read_jsonl(CORPUS):
        if row["split"] == "train":
            rows.append({
                "text": row["text"], "context": "thread", "source": row["source"],
                "pressure": row["label"] == "pressure", "dialogue": row["text"],
            })  # fmt: skip
    plain = [
        r for r in [*third_party("train"), *generate(seed=seed, folder=DATA)]
        if r["context"] == "thread" and r["act"] in PLAIN_ACTS
    ]  # fmt: skip
    for row in rng.sample(plain, min(PLAIN_CORPUS_ROWS, len(plain))):
        rows.append({**row, "text": redact(row["text"]), "pressure": False})
    return rows


def sealed_rows() -> list[dict[str, Any]]:
    """The corpora's sealed split."""
    return [
        {"text": r["text"], "pressure": r["label"] == "pressure", "source": r["source"]}
        for r in read_jsonl(CORPUS)
        if r["split"] == "sealed"
    ]


def _fit(x: sparse.csr_matrix, y: np.ndarray, c: float) -> LogisticRegression:
    return LogisticRegression(C=c, max_iter=500, class_weight="balanced").fit(x, y)


def cut_for(pressed: np.ndarray, gold: np.ndarray) -> float:
    """The lowest probability of pressure at and above which precision reaches the target
    (1.0, reading nothing as pressure, when no cut does)."""
    for cut in (round(float(c), 2) for c in np.arange(0.5, 0.995, 0.01)):
        taken = pressed >= cut
        if taken.sum() and gold[taken].mean() >= TARGET_PRECISION:
            return cut
    return 1.0


def figures_at(pressed: np.ndarray, gold: np.ndarray, cut: float) -> dict[str, Any]:
    """Precision and recall of "pressure" at the cut, and how many plain messages it took."""
    called = pressed >= cut
    right = int((called & gold).sum())
    return {
        "n": int(len(gold)),
        "precision": round(right / called.sum(), 3) if called.sum() else None,
        "recall": round(right / gold.sum(), 3) if gold.sum() else None,
        "plain_read_as_pressure": int((called & ~gold).sum()),
        "plain": int((~gold).sum()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-sealed", action="store_true", help="fit only, read no sealed set")
    args = parser.parse_args()

    rows = training_rows()
    y = np.array([r["pressure"] for r in rows])
    x, used = fit_matrix(rows)
    groups = np.array([r["dialogue"] for r in rows])
    print(f"{len(rows)} messages, {int(y.sum())} pressure")

    folds = list(GroupKFold(n_splits=FOLDS).split(x, y, groups))
    loss: dict[float, float] = {}
    out_of_fold: dict[float, np.ndarray] = {}
    for c in C_GRID:
        pressed = np.zeros(len(rows))
        for train, held in folds:
            pressed[held] = _fit(x[train], y[train], c).predict_proba(x[held])[:, 1]
        clipped = np.clip(pressed, 1e-6, 1 - 1e-6)
        loss[c] = float(-np.mean(y * np.log(clipped) + (~y) * np.log(1 - clipped)))
        out_of_fold[c] = pressed
        print(f"C={c}: out-of-fold log-loss {loss[c]:.4f}")
    best_c = min(loss, key=lambda c: loss[c])
    oof = out_of_fold[best_c]
    # the cut is chosen where the head acts: on the scheduling messages, not on a pool whose
    # spam is easy and would lower it (the templates are grouped out-of-fold like the rest)
    scheduling = np.array([r["dialogue"].startswith("pressure:") for r in rows])
    cut = cut_for(oof[scheduling], y[scheduling])
    print("cut", cut)

    fitted = _fit(x, y, best_c)
    coef = fitted.coef_[0].astype(np.float16)
    weights = np.stack([np.zeros_like(coef), coef], axis=1)  # [plain, pressure] per feature
    bias = np.array([0.0, fitted.intercept_[0]], dtype=np.float32)
    shipped, dense = weights[: len(used)], weights[len(used) :]
    model = ActModel(LABELS, used, shipped, bias, {}, dense)

    kinds = {
        "generated": np.array([r["dialogue"].startswith("pressure:") for r in rows]),
        "sms_spam": np.array([r["source"].startswith("hamzaaacodes") for r in rows]),
        "enron_mail": np.array([r["source"].startswith("Edgar427") for r in rows]),
    }
    kinds["act_corpora"] = ~(kinds["generated"] | kinds["sms_spam"] | kinds["enron_mail"])
    figures: dict[str, Any] = {
        "cross_validated": {
            "folds": FOLDS,
            "grouped_by": "template or message",
            "log_loss": {str(c): round(v, 4) for c, v in loss.items()},
            "all": figures_at(oof, y, cut),
            **{name: figures_at(oof[mask], y[mask], cut) for name, mask in kinds.items()},
        }
    }
    if not args.no_sealed:
        sealed = sealed_rows()
        pressed = np.array([model.probabilities(r["text"], "thread")[1] for r in sealed])
        gold = np.array([r["pressure"] for r in sealed])
        figures["sealed"] = figures_at(pressed, gold, cut)
        for name, prefix in (("sealed_sms_spam", "hamzaaacodes"), ("sealed_enron_mail", "Edgar")):
            mask = np.array([r["source"].startswith(prefix) for r in sealed])
            figures[name] = figures_at(pressed[mask], gold[mask], cut)
        print("sealed", {k: v for k, v in figures.items() if k.startswith("sealed")})
        sample = random.Random(SEED).sample(sealed, min(SAMPLE_SIZE, len(sealed)))
        with SEALED_SAMPLE.open("w", encoding="utf-8") as handle:
            for row in sample:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        sampled = np.array([model.probabilities(r["text"], "thread")[1] for r in sample])
        figures["sealed_sample"] = figures_at(sampled, np.array([r["pressure"] for r in sample]),
                                              cut)  # fmt: skip

    np.savez_compressed(
        OUT / "pressure.npz", buckets=used.astype(np.int64), weights=shipped, dense=dense, bias=bias
    )
    manifest = {
        "labels": list(LABELS),
        "pressure_from": cut,
        "target_precision": TARGET_PRECISION,
        "c": best_c,
        "seed": SEED,
        "commit": _commit(),
        "training_rows": len(rows),
        "data": {
            "third_party": "SMS Spam Collection v.1 (CC BY 4.0) and Enron inbox paragraphs "
            "(no licence stated), train split, " + str(CORPUS.relative_to(ROOT.parent)),
            "act_corpora": f"{PLAIN_CORPUS_ROWS} thread messages of {sorted(PLAIN_ACTS)}",
            "generated": {
                str(p.relative_to(ROOT)): _digest(p)
                for p in [*scenario_files(PRESSURE), *scenario_files()]
            },
            "sealed_sample": str(SEALED_SAMPLE.relative_to(ROOT)),
        },
        "figures": figures,
    }
    (OUT / "pressure.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print("written", OUT / "pressure.npz")


if __name__ == "__main__":
    main()
