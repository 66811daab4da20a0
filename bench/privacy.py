"""Privacy benchmark: Veil's redactor against stock Presidio on the same spaCy model, same run.

Three measurements, written to bench/results/privacy.md:
1. presidio-research's synthetic set (shared/benchmarks): recall and precision per label, and
   how many dates, organisations and places are left visible (the planner needs them);
2. Veil's own chat-thread set (bench/data/chat_pii.jsonl, gold spans written by hand in every
   pasted style and five languages): PII recall and wrongly-redacted dates/times/companies;
3. speed: messages per second, medians of several runs.

A gold span counts as found when at least half of its characters are covered by predictions of
a matching type; a prediction counts as right when it overlaps a gold span of a matching label.
Stock Presidio's anonymizer replaces everything its analyzer returns, so its "visible" figures
count every prediction; Veil's count only what it replaced.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from bench.common import RESULTS, machine, median, timed

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT.parent / "shared" / "benchmarks" / "pii_presidio_research.jsonl"
CHAT = Path(__file__).resolve().parent / "data" / "chat_pii.jsonl"
WNUT_DEV = ROOT.parent / "shared" / "benchmarks" / "wnut17_dev.jsonl"
WNUT_TEST = ROOT.parent / "shared" / "benchmarks" / "wnut17_test.jsonl"  # bench/wnut17_test.py
# Written and labelled by a helper who saw no code (issue 39): chat and e-mail in six languages,
# names of many cultures in every position and case. Read once per change, as a number.
HUMAN = Path(__file__).resolve().parent / "data" / "privacy_human_sealed.jsonl"
# Written last (2026-11-29) by a helper who saw no code: typed requests, chats, e-mails and
# notices in ten languages, names of many cultures in every position and case.
FINAL = Path(__file__).resolve().parent / "data" / "privacy_blind_final_sealed.jsonl"
KEPT_LABELS = ("ORGANIZATION", "LOCATION", "DATE_TIME")

Span = tuple[int, int, str]  # start, end, type
# Gold label -> the prediction types that count for it.
VEIL_TYPES = {
    "PERSON": {"PERSON"}, "PHONE_NUMBER": {"PHONE"}, "EMAIL_ADDRESS": {"EMAIL"},
    "STREET_ADDRESS": {"ADDRESS"}, "CREDIT_CARD": {"CARD"}, "IBAN_CODE": {"IBAN"},
    "US_SSN": {"SSN"}, "IP_ADDRESS": {"IP"},
}  # fmt: skip
STOCK_TYPES = {
    "PERSON": {"PERSON"}, "PHONE_NUMBER": {"PHONE_NUMBER"}, "EMAIL_ADDRESS": {"EMAIL_ADDRESS"},
    "STREET_ADDRESS": {"LOCATION"}, "CREDIT_CARD": {"CREDIT_CARD"}, "IBAN_CODE": {"IBAN_CODE"},
    "US_SSN": {"US_SSN"}, "IP_ADDRESS": {"IP_ADDRESS"},
}  # fmt: skip
PII_LABELS = tuple(VEIL_TYPES)
ROUNDS = 7
VISIBLE_LABELS = ("DATE_TIME", "ORGANIZATION", "GPE")


def load(path: Path) -> list[dict]:
    """Records of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _covered(gold: dict, predicted: Iterable[Span], types: set[str] | None) -> float:
    """Share of a gold span's non-space characters covered by predictions (of `types`)."""
    chars = {i for i in range(gold["start"], gold["end"]) if not gold_text_space(gold, i)}
    if not chars:
        return 1.0
    hit = set()
    for start, end, kind in predicted:
        if types is None or kind in types:
            hit.update(chars.intersection(range(start, end)))
    return len(hit) / len(chars)


def gold_text_space(gold: dict, index: int) -> bool:
    """Whether the gold span's character at `index` is whitespace."""
    return gold["text"][index - gold["start"]].isspace()


def score(records: list[dict], predictions: list[list[Span]], types: dict[str, set[str]],
          redacted: list[list[Span]]) -> dict[str, dict[str, float]]:  # fmt: skip
    """Per label: gold count, recall, precision (PII labels) or share left visible."""
    found, total, right, made = (defaultdict(int) for _ in range(4))
    visible, seen = defaultdict(int), defaultdict(int)
    for record, predicted, hidden in zip(records, predictions, redacted, strict=True):
        for gold in record["spans"]:
            label = gold["label"]
            if label in types:
                total[label] += 1
                found[label] += _covered(gold, predicted, types[label]) >= 0.5
            elif label in VISIBLE_LABELS:
                seen[label] += 1
                visible[label] += _covered(gold, hidden, None) == 0
        for start, end, kind in predicted:
            for label, kinds in types.items():
                if kind in kinds:
                    made[label] += 1
                    right[label] += any(
                        g["start"] < end and start < g["end"] and g["label"] == label
                        or (kind == "LOCATION" and g["label"] == "STREET_ADDRESS"
                            and g["start"] < end and start < g["end"])
                        for g in record["spans"]
                    )  # fmt: skip
                    break
    result = {}
    for label in types:
        result[label] = {
            "n": total[label],
            "recall": found[label] / total[label] if total[label] else float("nan"),
            "precision": right[label] / made[label] if made[label] else float("nan"),
        }
    for label in VISIBLE_LABELS:
        result[label] = {"n": seen[label], "visible": visible[label] / seen[label]
                         if seen[label] else float("nan")}  # fmt: skip
    return result


Gold = tuple[int, int]  # start, end of a gold span


def word_figures(cases: Iterable[tuple[str, list[Gold], list[Gold], list[Gold], list[Span]]],
                 person: set[str] | None) -> dict:  # fmt: skip
    """The word-level figures every person set here is read by, from (text, people, other
    entities, gold spans no plain word may touch, predictions): PERSON recall (half a person's
    non-space characters replaced by a `person` type), other entities left whole, and plain
    words (whitespace-separated, in no gold span) with anything replaced."""
    people = found = others = kept = plain = hit = 0
    for text, gold_people, gold_others, gold, spans in cases:
        for start, end in gold_people:
            people += 1
            found += _covered(_gold(text, start, end), spans, person) >= 0.5
        for start, end in gold_others:
            others += 1
            kept += _covered(_gold(text, start, end), spans, None) == 0
        for word in re.finditer(r"\S+", text):
            start, end = word.span()
            if any(s < end and start < e for s, e in gold):
                continue
            plain += 1
            hit += any(s < end and start < e for s, e, _ in spans)
    return {"people": people, "recall": found / max(people, 1), "others": others,
            "visible": kept / max(others, 1), "plain": plain,
            "redacted": hit / max(plain, 1)}  # fmt: skip


def _gold(text: str, start: int, end: int) -> dict:
    return {"start": start, "end": end, "text": text[start:end]}


def wnut_figures(records: list[dict], predicted: list[list[Span]], person: set[str]) -> dict:
    """WNUT-17-shaped records (`entities` typed person or otherwise)."""
    return word_figures(
        (
            (record["text"],
             [(g["start"], g["end"]) for g in record["entities"] if g["type"] == "person"],
             [(g["start"], g["end"]) for g in record["entities"] if g["type"] != "person"],
             [(g["start"], g["end"]) for g in record["entities"]], spans)
            for record, spans in zip(records, predicted, strict=True)
        ),
        person,
    )  # fmt: skip


def human_figures(records: list[dict], predicted: list[list[Span]]) -> dict:
    """The human-written set: organisations, places and dates are the entities kept; phones,
    e-mails and addresses count neither as kept nor as plain words."""
    return word_figures(
        (
            (record["text"],
             [(g["start"], g["end"]) for g in record["spans"] if g["label"] == "PERSON"],
             [(g["start"], g["end"]) for g in record["spans"] if g["label"] in KEPT_LABELS],
             [(g["start"], g["end"]) for g in record["spans"]], spans)
            for record, spans in zip(records, predicted, strict=True)
        ),
        {"PERSON"},
    )  # fmt: skip


def wnut_table(
    records: list[dict], rows: list[tuple[str, dict]], title: str = "WNUT-17 dev"
) -> list[str]:
    """A WNUT-17-shaped table: one row per system."""
    first = rows[0][1]
    lines = [
        f"## {title} ({len(records)} posts, {first['people']} "
        f"people, {first['others']} other entities, {first['plain']} plain words)", "",
        "| | PERSON recall | other entities left visible | plain words redacted |",
        "|---|---|---|---|",
    ]  # fmt: skip
    for name, figures in rows:
        lines.append(f"| {name} | {figures['recall']:.3f} | {figures['visible']:.3f} | "
                     f"{figures['redacted']:.3f} |")  # fmt: skip
    return lines


def run_veil(records: list[dict]) -> list[list[Span]]:
    """Veil's redactions, one fresh session per record."""
    from privacy.redactor import Redactor

    out = []
    for record in records:
        result = Redactor(region="US").redact(record["text"])
        out.append([(s.start, s.end, s.type) for s in result.spans])
    return out


def stock_engines() -> tuple[Callable[[str], list[Span]], Callable[[str], str]]:
    """Stock Presidio (predefined recognizers) on Veil's spaCy engine: analyze, anonymize."""
    from presidio_anonymizer import AnonymizerEngine

    from privacy.engine import build_stock_analyzer, get_analyzer

    analyzer = build_stock_analyzer(get_analyzer().nlp_engine)
    anonymizer = AnonymizerEngine()

    def analyze(text: str) -> list[Span]:
        return [(r.start, r.end, r.entity_type) for r in analyzer.analyze(text, language="en")]

    def anonymize(text: str) -> str:
        results = analyzer.analyze(text, language="en")
        return anonymizer.anonymize(text=text, analyzer_results=results).text

    return analyze, anonymize


def _fmt(value: float) -> str:
    return "–" if value != value else f"{value:.3f}"


def research_table(veil: dict, stock: dict) -> list[str]:
    lines = [
        "| label | gold spans | Veil recall | Veil precision | stock recall | stock precision |",
        "|---|---|---|---|---|---|",
    ]
    for label in PII_LABELS:
        v, s = veil[label], stock[label]
        lines.append(f"| {label} | {v['n']} | {_fmt(v['recall'])} | {_fmt(v['precision'])} | "
                     f"{_fmt(s['recall'])} | {_fmt(s['precision'])} |")  # fmt: skip
    lines += ["", "| left visible | gold spans | Veil | stock |", "|---|---|---|---|"]
    for label in VISIBLE_LABELS:
        lines.append(f"| {label} | {veil[label]['n']} | {_fmt(veil[label]['visible'])} | "
                     f"{_fmt(stock[label]['visible'])} |")  # fmt: skip
    return lines


def chat_figures(records: list[dict], predicted: list[list[Span]], types: dict) -> dict:
    """PII recall over the four PII labels; share of dates/times/companies redacted."""
    pii = found = wrong = visible_total = 0
    for record, spans in zip(records, predicted, strict=True):
        for gold in record["spans"]:
            if gold["label"] in types:
                pii += 1
                found += _covered(gold, spans, types[gold["label"]]) >= 0.5
            elif gold["label"] in ("DATE_TIME", "ORGANIZATION"):
                visible_total += 1
                wrong += _covered(gold, spans, None) > 0
    return {"pii": pii, "recall": found / pii, "kept_n": visible_total,
            "wrong": wrong / visible_total}  # fmt: skip


def main() -> None:
    """Run all three measurements and write bench/results/privacy.md."""
    logging.basicConfig(level=os.environ.get("VEIL_LOG_LEVEL", "WARNING"))
    from privacy.redactor import Redactor

    research, chat = load(RESEARCH), load(CHAT)
    analyze, anonymize = stock_engines()
    veil_research = run_veil(research)
    stock_research = [analyze(r["text"]) for r in research]
    veil_scores = score(research, veil_research, VEIL_TYPES, veil_research)
    stock_scores = score(research, stock_research, STOCK_TYPES, stock_research)

    veil_chat = run_veil(chat)
    stock_chat = [analyze(r["text"]) for r in chat]
    v_chat = chat_figures(chat, veil_chat, VEIL_TYPES)
    s_chat = chat_figures(chat, stock_chat, STOCK_TYPES)

    wnut = load(WNUT_DEV)
    wnut_rows = [
        ("Veil", wnut_figures(wnut, run_veil(wnut), {"PERSON"})),
        ("stock Presidio", wnut_figures(wnut, [analyze(r["text"]) for r in wnut], {"PERSON"})),
    ]
    if not WNUT_TEST.exists():
        raise SystemExit(f"{WNUT_TEST} is missing: convert it with `python -m bench.wnut17_test`")
    wnut_test = load(WNUT_TEST)
    wnut_test_rows = [
        ("Veil", wnut_figures(wnut_test, run_veil(wnut_test), {"PERSON"})),
        ("stock Presidio",
         wnut_figures(wnut_test, [analyze(r["text"]) for r in wnut_test], {"PERSON"})),
    ]  # fmt: skip
    human = load(HUMAN)
    human_rows = [
        ("Veil", human_figures(human, run_veil(human))),
        ("stock Presidio", human_figures(human, [analyze(r["text"]) for r in human])),
    ]
    final = load(FINAL)
    veil_final = run_veil(final)
    final_rows = [
        ("Veil", human_figures(final, veil_final)),
        ("stock Presidio", human_figures(final, [analyze(r["text"]) for r in final])),
        *(
            (f"Veil, {kind} only", human_figures(
                [r for r in final if r["kind"] == kind],
                [p for r, p in zip(final, veil_final, strict=True) if r["kind"] == kind]))
            for kind in sorted({r["kind"] for r in final})
        ),
    ]  # fmt: skip

    messages = [line for r in chat for line in r["text"].split("\n") if line.strip()]
    # Rounds alternate Veil and stock, so load from other work on a shared machine falls on
    # both alike rather than on whichever happened to run during it.
    veil_runs, stock_runs = [], []
    for _ in range(ROUNDS):
        veil_runs += timed(lambda: [Redactor(region="US").redact(m) for m in messages], 1)
        stock_runs += timed(lambda: [anonymize(m) for m in messages], 1)
    veil_s, stock_s = median(veil_runs), median(stock_runs)

    lines = ["# Privacy benchmark", "", f"Machine: {machine()}.", "",
             f"## presidio-research synthetic set ({len(research)} records)", "",
             *research_table(veil_scores, stock_scores), "",
             f"## Veil chat-thread set ({len(chat)} threads, {len(messages)} lines, "
             "5 languages)", "",
             "| | PII spans | PII recall | dates/times/companies | wrongly redacted |",
             "|---|---|---|---|---|",
             f"| Veil | {v_chat['pii']} | {v_chat['recall']:.3f} | {v_chat['kept_n']} | "
             f"{v_chat['wrong']:.3f} |",
             f"| stock Presidio | {s_chat['pii']} | {s_chat['recall']:.3f} | {s_chat['kept_n']} "
             f"| {s_chat['wrong']:.3f} |", "",
             *wnut_table(wnut, wnut_rows, "WNUT-17 dev, noisy social-media text: it chose "
                         "the detector's epoch and threshold, so it is not held out"), "",
             *wnut_table(wnut_test, wnut_test_rows, "WNUT-17 test, sealed: nothing was ever "
                         "fitted or chosen on it"), "",
             *wnut_table(human, human_rows, "Human-written chat and e-mail in six languages, "
                         "sealed and written blind; other entities are firms, places, dates"), "",
             *wnut_table(final, final_rows, "Written last: typed requests, chats, e-mails and "
                         "notices in ten languages, sealed and written blind"), "",
             f"## Speed ({len(messages)} chat lines, one call each, median of {ROUNDS} "
             "alternating runs)", "",
             "| | seconds | messages/s | time vs stock |", "|---|---|---|---|",
             f"| Veil (analyze + placeholders) | {veil_s:.2f} | {len(messages) / veil_s:.0f} | "
             f"{veil_s / stock_s:.2f}× |",
             f"| stock Presidio (analyze + anonymize) | {stock_s:.2f} | "
             f"{len(messages) / stock_s:.0f} | 1.00× |", "",
             "Stock = Presidio's predefined recognizers on the same `"
             f"{get_model_name()}` spaCy engine. Recall: ≥ half of a gold span's characters "
             "replaced by a matching type. Stock Presidio's LOCATION counts for "
             "STREET_ADDRESS. Published anchor for stock Presidio with en_core_web_lg: PERSON "
             "precision 0.567, recall 0.653; PHONE_NUMBER recall 0.25.", "",
             "WNUT-17 dev chose the learned detector's epoch and threshold "
             "(training/person_detector.py), and with presidio-research, the chat-thread set and "
             "half of Veil's own examples it fitted the evidence weights that weigh the detector "
             "with the rules, then chose their person threshold (training/evidence_weights.py): "
             "none of these sets is held out; WNUT-17 test, which Veil never sees, is. The other "
             "half of Veil's examples is sealed and read only as a number by `make "
             "train-evidence`. Counted by words: a person counts when half its characters "
             "are replaced by PERSON, another entity when none of it is replaced, a plain word "
             "when any of it is.", "",
             "Caveats: the chat-thread set was written by Veil's privacy author and its misses "
             "were read while the name rules were built (rules are general, but the set is not "
             "held out). The presidio-research misses were read too, label by label, when the "
             "postal-block, listed-name, sentence-subject, signature-line, full-name, "
             "people-group, partner-firm and name-first-street rules were added: those rules "
             "name no string from the data, but this set is no longer held out, and its 1,500 "
             "records repeat a few dozen templates, so a rule that fixes one template moves "
             "many records. Its STREET_ADDRESS gold spans often run on through the town, region "
             "and country lines; Veil hides house, unit and postcode numbers with the street but "
             "keeps towns, regions and countries visible on purpose, so a span counts only when "
             "street, units and postcode make up half of it, and the postcodes it hides count "
             "against its precision where the set labels them ZIP_CODE; a street named without "
             "a house number (\"shows on Berg Hills Street\") stays visible too. What is left "
             "of PERSON is mostly a surname alone in a literary template (\"Unlike the Ruoho "
             "novel\", \"ex-Zombie Kleist\") and lower-case full names; of ORGANIZATION, "
             "invented one-word brands in lists that spaCy calls people. Speed: the rounds "
             "alternate Veil and stock because the machine is shared, and the ratio moves by "
             "about 0.2 between runs."]  # fmt: skip
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "privacy.md").write_text(text, encoding="utf-8")
    logger.info("wrote %s", RESULTS / "privacy.md")
    print(text)


def get_model_name() -> str:
    """The spaCy model both engines ran on."""
    from privacy.engine import spacy_model_name

    return spacy_model_name()


if __name__ == "__main__":
    main()
