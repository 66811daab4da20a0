"""Fit the weights of the person-evidence table, privacy/conf/evidence.toml, on training data.

`make train-evidence` runs the redactor with the evidence log on over training data only: the
sixth of WNUT-17 train and of the converted third-party corpora (training/ner_sources.py) that
the person detector held out (training/person_detector.py: it never trained on them), and the
even half of Veil's own examples (training/data/evidence_examples.jsonl: chat in five
languages, venues, firms, places, ticket names). Every weighed span is labelled: does it overlap
a gold person? A logistic regression over the span's evidence (the detector's log-odds, its
readers, its checks) is fitted with a penalty that pulls each weight towards its hand-set prior,
so a check the data rarely sees keeps about the weight its meaning gave it; how hard it pulls is
chosen by the lowest out-of-fold log-loss. Each set counts alike, whatever its size. A fourth
set, generated lines with firms and places in the slots people take (training/contrast_lines.py),
gives the checks that tell them apart something to learn from.

The person threshold is chosen by cross-validation on the same training data: the weights are
fitted on three folds, the fourth fold's spans are decided with them, and the threshold is the
one whose out-of-fold decisions give the highest PERSON recall with at most 2 % of plain words
and at most 15 % of other entities redacted, in the mean over the sets (each set counts alike,
as in the fit). The sealed sets (WNUT-17 dev and test,
presidio-research, Veil's chat-thread set, the odd half of the examples) are scored once, after,
into privacy/conf/evidence.json; nothing is chosen on them.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
TABLE = ROOT / "privacy" / "conf" / "evidence.toml"
MANIFEST = ROOT / "privacy" / "conf" / "evidence.json"
EXAMPLES = ROOT / "training" / "data" / "evidence_examples.jsonl"
SEALED = {
    "wnut17_dev": BENCHMARKS / "wnut17_dev.jsonl",
    "wnut17_test": BENCHMARKS / "wnut17_test.jsonl",
}
# how hard the priors pull against the sets' weighted examples: out-of-fold log-loss chooses
STRENGTHS = (1.0, 10.0, 30.0, 100.0, 300.0)
# How many examples each set counts as, whatever its size: Veil's own examples and the contrast
# lines are written here, so they count half.
SET_WEIGHT = {"wnut17_train": 1000.0, "corpora": 1000.0, "examples": 500.0, "contrast": 500.0}
CONTRAST_LINES = 600
THRESHOLDS = tuple(round(0.2 - 0.1 * step, 1) for step in range(33))  # 0.2 down to -3.0
FOLDS = 4
MIN_OTHERS_VISIBLE = 0.85
MAX_PLAIN_REDACTED = 0.02

Key = tuple[str, str]  # (section, row) of the table


def _records(path: Path) -> list[dict]:
    if not path.exists():
        raise SystemExit(f"{path} is missing: the evidence weights are fitted on it")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _people(record: dict) -> list[tuple[int, int]]:
    """Gold person spans: WNUT-17 writes `entities`, Veil's examples `people`, the other sets
    `spans`."""
    if "people" in record:
        text = record["text"]
        return [(text.index(p), text.index(p) + len(p)) for p in record["people"]]
    if "entities" in record:
        return [(e["start"], e["end"]) for e in record["entities"] if e["type"] == "person"]
    return [(s["start"], s["end"]) for s in record["spans"] if s["label"] == "PERSON"]


Row = tuple[dict[Key, float], bool]
Span = tuple[int, int, int]  # record index, start, end of a weighed span


def collect(records: Sequence[dict]) -> tuple[list[Row], list[Span]]:
    """Each weighed span as (features, is a person), with the detector's raw log-odds, and
    where it lies (for the word-level figures of the threshold's cross-validation)."""
    import privacy.redactor as redactor
    from privacy.evidence import weights

    detector = weights()["detector"]
    saved = dict(detector)
    detector.update(scale=1.0, scale_other_language=1.0)  # raw log-odds in the log
    rows: list[Row] = []
    spans: list[Span] = []
    try:
        for index, record in enumerate(records):
            redactor.EVIDENCE_LOG = []
            redactor.Redactor(region="US").redact(record["text"])
            gold = _people(record)
            for _, evidence in redactor.EVIDENCE_LOG:
                if "never" in evidence.reasons:
                    continue  # what is never a name is not weighed
                english = "foreign_line" not in evidence.reasons
                features: dict[Key, float] = {("bias", "bias"): 1.0}
                logit = evidence.reasons["detector"]
                features[("detector", "scale" if english else "scale_other_language")] = logit
                for reason in evidence.reasons:
                    if reason.startswith("source:"):
                        features[("sources", reason.removeprefix("source:"))] = 1.0
                    elif reason not in ("bias", "detector"):
                        features[("checks", reason)] = 1.0
                person = any(s < evidence.end and evidence.start < e for s, e in gold)
                rows.append((features, person))
                spans.append((index, evidence.start, evidence.end))
    finally:
        redactor.EVIDENCE_LOG = None
        detector.update(saved)
    return rows, spans


def fit(
    rows: list[tuple[dict[Key, float], bool]],
    groups: list[str],
    priors: dict[Key, float],
    strength: float,
) -> dict[Key, float]:
    """MAP logistic regression: log-loss, each group weighted to SET_WEIGHT examples, plus
    strength/2 · Σ (weight − prior)²."""
    from scipy.optimize import minimize

    keys = sorted(priors)
    index = {k: i for i, k in enumerate(keys)}
    x = np.zeros((len(rows), len(keys)))
    for row, (features, _) in enumerate(rows):
        for key, value in features.items():
            if key in index:
                x[row, index[key]] = value
    y = np.array([person for _, person in rows], dtype=float)
    counts = Counter(groups)
    sample = np.array([SET_WEIGHT[g] / counts[g] for g in groups])
    mean = np.array([priors[k] for k in keys])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ theta
        p = 1.0 / (1.0 + np.exp(-z))
        value = np.sum(sample * (np.logaddexp(0, z) - y * z))
        value += strength / 2 * float(np.sum((theta - mean) ** 2))
        grad = x.T @ (sample * (p - y)) + strength * (theta - mean)
        return float(value), grad

    result = minimize(loss, mean.copy(), jac=True, method="L-BFGS-B")
    return {k: round(float(v), 2) for k, v in zip(keys, result.x, strict=True)}


def scores(rows: Sequence[Row], weights: dict[Key, float], fixed: dict[Key, float]) -> np.ndarray:
    """Each span's summed evidence under `weights` (fitted rows) and `fixed` (hand-set rows)."""
    out = np.zeros(len(rows))
    for row, (features, _) in enumerate(rows):
        out[row] = sum(value * weights.get(key, fixed.get(key, 0.0))
                       for key, value in features.items())  # fmt: skip
    return out


def _gold_words(record: dict) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(people, other entities) of a training record as character spans."""
    people = _people(record)
    if "entities" in record:
        others = [(e["start"], e["end"]) for e in record["entities"] if e["type"] != "person"]
    else:
        text = record["text"]
        others = [(text.index(v), text.index(v) + len(v)) for v in record.get("visible", [])]
    return people, others


def word_figures(records: Sequence[dict], spans: Sequence[Span], chosen: np.ndarray) -> dict:
    """PERSON recall, other entities left whole, plain words redacted, from span decisions
    alone (what the redactor would hide before its later passes), counted as bench/privacy.py
    counts every person set."""
    from bench.privacy import word_figures as count

    hidden: dict[int, list[tuple[int, int, str]]] = {}
    for (index, start, end), person in zip(spans, chosen, strict=True):
        if person:
            hidden.setdefault(index, []).append((start, end, "PERSON"))
    cases = []
    for index, record in enumerate(records):
        people, others = _gold_words(record)
        cases.append((record["text"], people, others, people + others, hidden.get(index, [])))
    return count(cases, {"PERSON"})


def priors_of(text: str) -> dict[Key, float]:
    """Every fitted row's prior: rows written `name = { prior = P, weight = W }`."""
    found, section = {}, ""
    for line in text.splitlines():
        if header := re.match(r"\[(\w+)\]", line):
            section = header.group(1)
        elif row := re.match(r"([\w-]+)\s*=\s*\{\s*prior\s*=\s*(-?[\d.]+)", line):
            found[(section, row.group(1))] = float(row.group(2))
    return found


def write(text: str, fitted: dict[Key, float], person: float) -> str:
    """The table with its weights and person threshold replaced; comments stay."""
    out, section = [], ""
    for line in text.splitlines():
        if header := re.match(r"\[(\w+)\]", line):
            section = header.group(1)
        elif row := re.match(r"([\w-]+)\s*=", line):
            key = (section, row.group(1))
            if key in fitted:
                line = re.sub(r"weight\s*=\s*-?[\d.]+", f"weight = {fitted[key]}", line)
            elif key == ("thresholds", "person"):
                line = re.sub(r"=\s*-?[\d.]+", f"= {person}", line, count=1)
        out.append(line)
    return "\n".join(out) + "\n"


def halves(records: list[dict]) -> tuple[list[dict], list[dict]]:
    """Veil's own examples: the even rows are fitted, the odd rows sealed (read as a number)."""
    return records[::2], records[1::2]


def examples_right(records: list[dict]) -> float:
    """Share of examples whose people are all redacted and whose visible words all stay."""
    from privacy.redactor import Redactor

    right = 0
    for record in records:
        text = Redactor(region="US").redact(record["text"]).text
        right += all(p not in text for p in record["people"]) and all(
            v in text for v in record["visible"]
        )
    return right / len(records)


def fold_of(record: dict, index: int) -> int:
    """A record's cross-validation fold, stable across runs."""
    key = str(record.get("id", index)) + record["text"][:40]
    return hashlib.sha256(key.encode("utf-8")).digest()[0] % FOLDS


def training_sets(smoke: bool) -> dict[str, list[dict]]:
    """The training data of the fit: what the person detector held out, and half the examples."""
    from training.contrast_lines import contrast_lines
    from training.person_detector import held_out, training_records

    held = [r for r in training_records(corpora=not smoke) if held_out(r)]
    # The corpora's person labels follow their own conventions (GUM's derived from mentions,
    # historic OCR, clinical forms), and the readers weighed here are chat's: of the corpora
    # only the social and e-mail ones speak for how much a reader's hit is worth.
    chatty = ("btc", "cerec-email")
    sets = {
        "wnut17_train": [r for r in held if str(r["id"]).startswith("wnut17")],
        "corpora": [r for r in held if str(r["id"]).startswith(chatty)],
        "examples": halves(_records(EXAMPLES))[0],
        "contrast": contrast_lines(CONTRAST_LINES, corpora=not smoke),
    }
    sets = {name: records for name, records in sets.items() if records}
    if smoke:
        sets = {name: records[:30] for name, records in sets.items()}
    return sets


def cross_validated(
    sets: dict[str, list[dict]], priors: dict[Key, float], fixed: dict[Key, float]
) -> tuple[float, float, dict, dict[str, dict], list[Row], list[str]]:
    """The prior strength and threshold chosen on out-of-fold decisions, the mean of the sets'
    figures, each set's, and every weighed span with its set (for the final fit on all)."""
    records, rows, spans, groups, folds = [], [], [], [], []
    for name, members in sets.items():
        found, where = collect(members)
        print(f"{name}: {len(members)} records, {len(found)} weighed spans", file=sys.stderr)
        offset = len(records)
        records += members
        rows += found
        spans += [(offset + i, s, e) for i, s, e in where]
        groups += [name] * len(found)
        folds += [fold_of(members[i], offset + i) for i, _, _ in where]
    offsets = {name: records.index(members[0]) for name, members in sets.items()}

    def out_of_fold(strength: float) -> np.ndarray:
        found = np.zeros(len(rows))
        for fold in range(FOLDS):
            inside = [i for i, f in enumerate(folds) if f != fold]
            weights = fit([rows[i] for i in inside], [groups[i] for i in inside], priors,
                          strength)  # fmt: skip
            held = [i for i, f in enumerate(folds) if f == fold]
            found[held] = scores([rows[i] for i in held], weights, fixed)
        return found

    def by_set(decided: np.ndarray, value: float) -> dict[str, dict]:
        """Each set's out-of-fold figures at a threshold."""
        found = {}
        for name, members in sets.items():
            chosen = [i for i, g in enumerate(groups) if g == name]
            found[name] = word_figures(
                members,
                [(spans[i][0] - offsets[name], spans[i][1], spans[i][2]) for i in chosen],
                decided[chosen] >= value,
            )
        return found

    # The pull towards the priors is chosen as logistic regression's penalty usually is: the
    # lowest out-of-fold log-loss, each set weighted as in the fit.
    truth = np.array([person for _, person in rows], dtype=float)
    counts = Counter(groups)
    sample = np.array([SET_WEIGHT[g] / counts[g] for g in groups])
    losses = {}
    for strength in STRENGTHS:
        decided = out_of_fold(strength)
        losses[strength] = (
            float(np.sum(sample * (np.logaddexp(0, decided) - truth * decided))),
            decided,
        )
        print(f"strength {strength}: out-of-fold log-loss {losses[strength][0]:.1f}",
              file=sys.stderr)  # fmt: skip
    strength = min(losses, key=lambda k: losses[k][0])
    decided = losses[strength][1]
    # Each set counts alike, as in the fit: the bounds hold on the mean of the sets' figures,
    # so the largest corpus does not choose the threshold for the chat the others resemble.
    best: tuple[float, float, dict, dict] | None = None
    for value in THRESHOLDS:
        per = by_set(decided, value)
        figures = {k: float(np.mean([f[k] for f in per.values()]))
                   for k in ("recall", "visible", "redacted")}  # fmt: skip
        print(f"threshold {value}: mean {figures}", file=sys.stderr)
        within = (
            figures["visible"] >= MIN_OTHERS_VISIBLE and figures["redacted"] <= MAX_PLAIN_REDACTED
        )
        if within and (best is None or figures["recall"] > best[2]["recall"]):
            best = (strength, value, figures, per)
    if best is None:
        raise SystemExit("no threshold keeps the training data's out-of-fold figures in bounds")
    return best[0], best[1], best[2], best[3], rows, groups


def sealed_figures() -> dict[str, dict]:
    """The sealed sets, read once as numbers with the shipped table."""
    from bench.privacy import run_veil, wnut_figures

    found = {}
    for name, path in SEALED.items():
        if path.exists():
            records = _records(path)
            found[name] = wnut_figures(records, run_veil(records), {"PERSON"})
    return found


def main(argv: Sequence[str] = ()) -> dict[Key, float]:
    from privacy import evidence

    smoke = "--smoke" in argv
    text = TABLE.read_text(encoding="utf-8")
    priors = priors_of(text)
    tables = evidence.weights()
    fixed = {(section, name): value for section, rows in tables.items()
             for name, value in rows.items()}  # fmt: skip
    sets = training_sets(smoke)
    strength, person, figures, per_set, rows, groups = cross_validated(sets, priors, fixed)
    fitted = fit(rows, groups, priors, strength)
    if smoke:
        return fitted
    for (section, name), value in fitted.items():
        tables[section][name] = value
    tables["thresholds"]["person"] = person
    TABLE.write_text(write(text, fitted, person), encoding="utf-8")
    fitted_half, sealed_half = halves(_records(EXAMPLES))
    manifest = {
        "data": {name: len(members) for name, members in sets.items()},
        "folds": FOLDS,
        "prior_strength": strength,
        "bounds": {"plain_redacted": MAX_PLAIN_REDACTED, "others_visible": MIN_OTHERS_VISIBLE},
        "person_threshold": person,
        "cross_validated": figures,
        "cross_validated_by_set": per_set,
        "sealed": sealed_figures(),
        "examples_right": {"fitted_half": round(examples_right(fitted_half), 3),
                           "sealed_half": round(examples_right(sealed_half), 3)},
    }  # fmt: skip
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} and {MANIFEST}: {json.dumps(manifest)}", file=sys.stderr)
    return fitted


if __name__ == "__main__":
    main(sys.argv[1:])
