"""Convert public NER corpora with person annotations into Veil's WNUT-17 record shape.

WNUT-17 train is tweets only; the person detector also has to read e-mail, speech, forms and
five languages besides English. Each corpus below is converted from a `fetch` snapshot (data
only, train split only where the corpus has splits), sampled to at most MAX_SENTENCES sentences
with a fixed seed (every sentence with a person is kept first, then PLAIN_SHARE of the output is
sentences without one) and written as one JSON-lines file per corpus:

    {"id", "split": "train", "lang", "genre", "text", "entities": [{"type", "start", "end",
     "text"}], "source": "owner/repo:path@commit"}

`type` is `person` or WNUT-17's `location`, `corporation`, `group`, or `other`. Tokenised
corpora are detokenised (no space before , . ! ? ; : ) or clitics such as 's and n't), and every
offset is checked against the text. A sentence whose text is in a sealed set (WNUT-17 dev,
presidio-research, bench/data) is dropped. Where each corpus comes from, its licence and what
was sampled: training/data/ner/SOURCES.md and conversion_report.json.

The output is third-party data, so it lives beside the benchmarks in ../shared (never in this
repository):

    python -m training.ner_sources [--out ../shared/benchmarks/ner]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from training.ner_readers import (
    Sentence,
    commit_of,
    read_btc,
    read_cerec,
    read_europeana,
    read_gum,
    read_meddocan,
    read_uner,
    show,
)

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
NER_DIR = BENCHMARKS / "ner"
REPORT = ROOT / "training" / "data" / "ner" / "conversion_report.json"
MIRROR = Path("/work/.mirror")
SEED = 39
MAX_SENTENCES = 8000
PLAIN_SHARE = 0.3  # of the sampled sentences, the share with no person in them
TYPES = ("person", "location", "corporation", "group", "product", "creative-work", "other")


@dataclass(frozen=True)
class Corpus:
    """One source: where its snapshot is, under what licence, and how to read it."""

    name: str
    repo: str
    paths: tuple[str, ...]
    licence: str
    licence_file: str
    split: str  # what "train" means for this corpus
    read: Callable[[Path, Sequence[str]], Iterator[Sentence | None]]
    notes: tuple[str, ...] = field(default=())


# ------------------------------------------------------------------ snapshots


def mirror(repo: str) -> Path:
    """The bare git directory of a fetched snapshot; a missing one names what to fetch."""
    path = MIRROR / repo.replace("/", "+") / "repo"
    if not path.is_dir():
        raise SystemExit(f"{path} is missing: fetch github:{repo} first (the search tool's fetch)")
    return path


# ------------------------------------------------------------------ the sources

CORPORA = (
    Corpus(
        "cerec-email",
        "paragdakle/emailcoref",
        ("data/LREC/train",),
        "Apache-2.0",
        "LICENSE",
        "train (36 of the seed corpus's 46 threads; the 10 test threads are not read)",
        read_cerec,
        (
            "Person mentions include pronouns and e-mail addresses; only names are kept.",
            "Names in headers are often 'Surname, Given' and keep the comma inside the span.",
        ),
    ),
    Corpus(
        "gum",
        "amir-zeldes/gum",
        ("dep",),
        "annotations CC BY 4.0; texts: academic, court CC BY 4.0; bio, voyage CC BY-SA 3.0; "
        "news, interview CC BY 2.5; textbook, vlog CC BY; speech public domain; conversation "
        "(Santa Barbara Corpus) CC BY by permission of J. DuBois",
        "LICENSE.txt; textbook, vlog, speech, conversation: GUM's site, 'License and "
        "attribution information' (corpling.uis.georgetown.edu/gum/papers.html)",
        "train (documents not listed as dev or test in splits.md); NC genres (essay, fiction, "
        "letter, podcast, whow) and reddit (no text) left out",
        read_gum,
        (
            "Person spans are derived from GUM's mention brackets: the proper-noun head with "
            "its flat parts; titles (compound) and possessive 's stay outside.",
            "Only persons are labelled; GUM's places and organisations are left unlabelled.",
        ),
    ),
    Corpus(
        "btc",
        "GateNLP/broad_twitter_corpus",
        ("train_dev_test_conll/btc.train",),
        "CC BY 4.0",
        "LICENSE",
        "train (sections A, B, E, G and the first half of H, the README's recommended split)",
        read_btc,
        ("@-mentions of people (BTC: PER) are typed `other`, as WNUT-17 leaves them unlabelled.",),
    ),
    Corpus(
        "uner-pt-bosque",
        "UniversalNER/UNER_Portuguese-Bosque",
        ("pt_bosque-ud-train.iob2",),
        "CC BY-SA 4.0",
        "LICENSE.txt",
        "train",
        read_uner,
        ("Contractions that UNER spells out ('de os') are written as Portuguese does ('dos').",),
    ),
    Corpus(
        "meddocan",
        "PlanTL-GOB-ES/SPACCC_MEDDOCAN",
        ("corpus/train/brat",),
        "CC BY 4.0",
        "LICENSE",
        "train (500 of 1,000 clinical cases)",
        read_meddocan,
        ("Patients' and clinicians' names are person; relatives ('su hija') are not names.",),
    ),
    Corpus(
        "europeana-de",
        "EuropeanaNewspapers/ner-corpora",
        ("enp_DE.lft.bio/enp_DE.lft.bio", "enp_DE.onb.bio/enp_DE.onb.bio"),
        "CC0 1.0",
        "LICENSE.md",
        "no splits; the first 80 % of each file (enp_DE.sbb is left out: known broken labels)",
        read_europeana,
        ("Historic OCR with 15-20 % word errors; low priority, kept for German persons.",),
    ),
    Corpus(
        "europeana-fr",
        "EuropeanaNewspapers/ner-corpora",
        ("enp_FR.bnf.bio/enp_FR.bnf.bio",),
        "CC0 1.0",
        "LICENSE.md",
        "no splits; the first 80 % of the file",
        read_europeana,
        ("Historic OCR; IO tags, so two adjacent names of one type read as one span.",),
    ),
)


# ------------------------------------------------------------------ sealed sets


def normalise(text: str) -> str:
    """Lower case with no whitespace: tokenised and detokenised copies compare equal."""
    return re.sub(r"\s+", "", text).lower()


def sealed_texts() -> list[str]:
    """Every text of the sets Veil is measured on, line by line, normalised: WNUT-17 dev and
    test, presidio-research and everything under bench/data."""
    texts: list[str] = []
    wnut = show(mirror("leondz/emerging_entities_17"), "emerging.test.annotated")
    for block in wnut.split("\n\n"):
        texts.append(" ".join(line.split("\t")[0] for line in block.split("\n") if line.strip()))
    for name in ("wnut17_dev.jsonl", "pii_presidio_research.jsonl"):
        path = BENCHMARKS / name
        if not path.exists():
            raise SystemExit(f"{path} is missing: ../shared/benchmarks holds the sealed sets")
        texts += [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines() if line]
    for path in sorted((ROOT / "bench" / "data").rglob("*.json*")):
        for line in path.read_text("utf-8").splitlines() if path.suffix == ".jsonl" else []:
            texts += _strings(json.loads(line)) if line.strip() else []
        if path.suffix == ".json":
            texts += _strings(json.loads(path.read_text("utf-8")))
    lines = {normalise(line) for text in texts for line in text.split("\n")}
    return sorted(line for line in lines if len(line) >= 12)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class SealedIndex:
    """Finds a text equal to a sealed line, containing one, or contained in one."""

    WINDOW = 24

    def __init__(self, lines: Sequence[str]) -> None:
        self.exact = set(lines)
        self.heads = {line[: self.WINDOW] for line in lines if len(line) >= self.WINDOW}
        self.windows = {
            hash(line[i : i + self.WINDOW])
            for line in lines
            for i in range(len(line) - self.WINDOW + 1)
        }

    def overlaps(self, text: str) -> bool:
        key = normalise(text)
        if key in self.exact:
            return True
        if len(key) < self.WINDOW:
            return False
        # the text inside a sealed line: its opening window is one of theirs
        if hash(key[: self.WINDOW]) in self.windows and any(key in line for line in self.exact):
            return True
        # a sealed line inside the text: one of the text's windows opens a sealed line
        found = {key[i : i + self.WINDOW] for i in range(len(key) - self.WINDOW + 1)} & self.heads
        return bool(found) and any(
            line in key for line in self.exact if line[: self.WINDOW] in found
        )


# ------------------------------------------------------------------ conversion


_EDGE = " ,;:!?\"'»«„“”‚‘’()[]{}/-–—*_"


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A span without the punctuation some corpora glue to names ("Wilhelm," "- Brooke");
    a full stop goes too unless it ends an initial ("Frank W.")."""
    while start < end and text[start] in _EDGE:
        start += 1
    while start < end and (
        text[end - 1] in _EDGE
        or (text[end - 1] == "." and not re.search(r"(?:^|\W)\w\.$", text[start:end]))
    ):
        end -= 1
    return start, end


def sample(sentences: list[Sentence], seed: int) -> list[Sentence]:
    """Every sentence with a person (up to the cap), then PLAIN_SHARE of the output without."""
    rng = random.Random(seed)
    people = [i for i, s in enumerate(sentences) if any(k == "person" for k, _, _ in s.spans)]
    plain = sorted(set(range(len(sentences))) - set(people))
    keep = rng.sample(people, min(len(people), round(MAX_SENTENCES * (1 - PLAIN_SHARE))))
    wanted = round(len(keep) * PLAIN_SHARE / (1 - PLAIN_SHARE))
    keep += rng.sample(plain, min(len(plain), wanted))
    return [sentences[i] for i in sorted(keep)]


def convert(corpus: Corpus, sealed: SealedIndex) -> tuple[list[dict], dict]:
    """One corpus's records and its part of the conversion report."""
    repo = mirror(corpus.repo)
    commit = commit_of(repo)
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    pool = []
    for sentence in corpus.read(repo, corpus.paths):
        counts["read"] += 1
        if sentence is None:
            counts["dropped_by_reader"] += 1
            continue
        key = normalise(sentence.text)
        if len(key) < 2 or key in seen:
            counts["dropped_empty_or_duplicate"] += 1
            continue
        seen.add(key)
        if sealed.overlaps(sentence.text):
            counts["dropped_in_sealed_set"] += 1
            continue
        pool.append(sentence)
    chosen = sample(pool, SEED + zlib.crc32(corpus.name.encode()))
    records = []
    for n, sentence in enumerate(chosen):
        entities = []
        for kind, first, last in sorted(sentence.spans, key=lambda s: s[1]):
            start, end = trim(sentence.text, first, last)
            value = sentence.text[start:end]
            if not any(c.isalpha() for c in value):
                continue  # "1994" as a person: an annotation slip, not a name
            if kind not in TYPES or value != value.strip():
                raise ValueError(f"{corpus.name}: bad span {kind} {value!r} in {sentence.text!r}")
            if entities and start < entities[-1]["end"]:
                continue  # brat allows overlapping spans; the first one stands
            entities.append({"type": kind, "start": start, "end": end, "text": value})
        records.append(
            {
                "id": f"{corpus.name}-train-{n:05d}",
                "split": "train",
                "lang": sentence.lang,
                "genre": sentence.genre,
                "text": sentence.text,
                "entities": entities,
                "source": f"{corpus.repo}:{sentence.path}@{commit}",
            }
        )
    types = Counter(e["type"] for r in records for e in r["entities"])
    report = {
        "repo": corpus.repo,
        "commit": commit,
        "paths": list(corpus.paths),
        "licence": corpus.licence,
        "licence_file": corpus.licence_file,
        "split": corpus.split,
        "sentences": len(records),
        "sentences_with_person": sum(
            any(e["type"] == "person" for e in r["entities"]) for r in records
        ),
        "person_spans": types["person"],
        "entity_spans": dict(sorted(types.items())),
        "languages": sorted({r["lang"] for r in records}),
        "genres": dict(sorted(Counter(r["genre"] for r in records).items())),
        "pool": {**counts, "kept_for_sampling": len(pool)},
        "sampling": (
            f"seed {SEED} + crc32(name); every sentence with a person up to "
            f"{round(MAX_SENTENCES * (1 - PLAIN_SHARE))}, then sentences without one to make "
            f"{PLAIN_SHARE:.0%} of the output"
        ),
        "notes": list(corpus.notes),
    }
    return records, report


def load_ner(names: Sequence[str] | None = None, folder: Path = NER_DIR) -> list[dict]:
    """The converted records of the named corpora (all in the report when None)."""
    report = json.loads(REPORT.read_text("utf-8"))
    unknown = sorted(set(names or ()) - set(report["corpora"]))
    if unknown:
        raise ValueError(f"unknown NER corpora {unknown}; known: {sorted(report['corpora'])}")
    records = []
    for name in names or sorted(report["corpora"]):
        path = next(
            (p for p in (folder / f"{name}.jsonl", folder / f"{name}.jsonl.gz") if p.exists()), None
        )
        if path is None:
            raise FileNotFoundError(
                f"{folder / name}.jsonl is missing: run `python -m training.ner_sources --out "
                f"{folder}` (it needs the fetch snapshots named in {REPORT.parent}/SOURCES.md)"
            )
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            records += [json.loads(line) for line in handle if line.strip()]
    return records


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=NER_DIR)
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--only", nargs="*", help="convert only these corpora")
    args = parser.parse_args(argv)
    sealed = SealedIndex(sealed_texts())
    args.out.mkdir(parents=True, exist_ok=True)
    previous = json.loads(args.report.read_text("utf-8")) if args.report.exists() else {}
    reports = dict(previous.get("corpora", {})) if args.only else {}
    for corpus in CORPORA:
        if args.only and corpus.name not in args.only:
            continue
        records, reports[corpus.name] = convert(corpus, sealed)
        with (args.out / f"{corpus.name}.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        people = reports[corpus.name]["person_spans"]
        print(f"{corpus.name}: {len(records)} sentences, {people} people")
    report = {
        "format": "WNUT-17 records (see training/ner_sources.py); one <corpus>.jsonl per corpus",
        "seed": SEED,
        "max_sentences": MAX_SENTENCES,
        "plain_share": PLAIN_SHARE,
        "corpora": dict(sorted(reports.items())),
    }
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return report


if __name__ == "__main__":
    main()
