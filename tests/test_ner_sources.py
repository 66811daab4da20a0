"""The public NER corpora that training/ner_sources.py converts for the person detector (issue 39).

The converted records are third-party data, kept beside the benchmarks in
../shared/benchmarks/ner and never in this repository. The committed conversion report says
what should be there; a missing folder fails with the command that makes it, never a skip.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from training import ner_sources
from training.ner_readers import bio_spans, detokenise, email_mention
from training.ner_sources import CORPORA, REPORT, TYPES, load_ner, trim

NEEDED = (
    "../shared/benchmarks is needed: it holds the sealed sets and, in ner/, the converted "
    "corpora (`python -m training.ner_sources` writes them from the fetch snapshots)"
)
LANGS = {"en", "de", "fr", "es", "pt", "it"}


@pytest.fixture(scope="module")
def report() -> dict:
    return json.loads(REPORT.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def records() -> list[dict]:
    if not ner_sources.NER_DIR.is_dir():
        pytest.fail(f"{ner_sources.NER_DIR} is missing. {NEEDED}")
    return load_ner(folder=ner_sources.NER_DIR)


def _sealed(name: str) -> list[str]:
    path = ner_sources.BENCHMARKS / name
    if not path.exists():
        pytest.fail(f"{path} is missing. {NEEDED}")
    return [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines() if line]


def test_every_corpus_in_the_report_is_converted_with_its_licence(
    report: dict, records: list[dict]
) -> None:
    assert set(report["corpora"]) == {corpus.name for corpus in CORPORA}
    sentences = Counter(record["id"].rsplit("-train-", 1)[0] for record in records)
    for name, entry in report["corpora"].items():
        assert entry["licence"] and entry["licence_file"], name
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]) and "/" in entry["repo"], name
        assert "NC" not in entry["licence"], f"{name}: non-commercial data stays out"
        assert entry["person_spans"] > 0 and set(entry["languages"]) <= LANGS, name
        assert sentences[name] == entry["sentences"] <= report["max_sentences"], name


def test_records_have_the_wnut_fields_and_exact_offsets(records: list[dict], report: dict) -> None:
    ids = set()
    people: dict[str, int] = {}
    for record in records:
        assert set(record) == {"id", "split", "lang", "genre", "text", "entities", "source"}
        corpus = record["id"].rsplit("-train-", 1)[0]
        entry = report["corpora"][corpus]
        assert record["split"] == "train" and record["lang"] in LANGS and record["genre"]
        assert record["source"].startswith(entry["repo"] + ":")
        assert record["source"].endswith("@" + entry["commit"])
        assert record["id"] not in ids
        ids.add(record["id"])
        end = 0
        for entity in record["entities"]:
            assert entity["type"] in TYPES
            assert record["text"][entity["start"] : entity["end"]] == entity["text"], record
            assert entity["text"] == entity["text"].strip() and entity["start"] >= end, record
            end = entity["end"]
            people[corpus] = people.get(corpus, 0) + (entity["type"] == "person")
    assert people == {name: entry["person_spans"] for name, entry in report["corpora"].items()}


def test_no_record_is_a_sealed_text(records: list[dict]) -> None:
    """WNUT-17 dev, presidio-research and the chat benchmark are never trained on: no record
    equals one of their lines, and no longer line of theirs is inside a record."""
    chat = Path(ner_sources.ROOT / "bench" / "data" / "chat_pii.jsonl")
    sealed = _sealed("wnut17_dev.jsonl") + _sealed("pii_presidio_research.jsonl")
    sealed += [json.loads(line)["text"] for line in chat.read_text("utf-8").splitlines() if line]
    lines = {ner_sources.normalise(line) for text in sealed for line in text.split("\n")}
    converted = [ner_sources.normalise(record["text"]) for record in records]
    assert not lines & set(converted)
    joined = "\n".join(converted)
    inside = [line for line in lines if len(line) >= 24 and line in joined]
    assert not inside


def test_load_ner_reads_gzip_and_names_an_unknown_corpus(tmp_path: Path, report: dict) -> None:
    name = sorted(report["corpora"])[0]
    record = {"id": f"{name}-train-00000", "text": "hi Ana", "entities": []}
    with gzip.open(tmp_path / f"{name}.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    assert load_ner([name], folder=tmp_path) == [record]
    with pytest.raises(ValueError, match="unknown NER corpora"):
        load_ner(["no-such-corpus"], folder=tmp_path)
    with pytest.raises(FileNotFoundError, match="python -m training.ner_sources"):
        load_ner([sorted(report["corpora"])[-1]], folder=tmp_path)


@pytest.mark.parametrize(
    ("tokens", "text"),
    [
        (["I", "do", "n't", "know", ",", "Ana", "'s", "dog", "."], "I don't know, Ana's dog."),
        (["she", "said", '"', "yes", '"', "(", "twice", ")"], 'she said "yes" (twice)'),
        (["l'", "homme", "de", "Jean"], "l'homme de Jean"),
        (["just", "words"], "just words"),  # no-match row: nothing to glue
    ],
)
def test_detokenise_writes_tokens_as_text(tokens: list[str], text: str) -> None:
    joined, offsets = detokenise(tokens)
    assert joined == text
    assert [joined[a:b] for a, b in offsets] == tokens


@pytest.mark.parametrize(
    ("tags", "spans"),
    [
        (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 2), ("LOC", 3, 4)]),
        (["I-PER", "I-PER", "O", "I-PER"], [("PER", 0, 2), ("PER", 3, 4)]),  # IO tags
        (["B-PER", "B-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
        (["O", "O"], []),
    ],
)
def test_bio_spans_reads_bio_and_io(tags: list[str], spans: list[tuple[str, int, int]]) -> None:
    assert bio_spans(tags) == spans


@pytest.mark.parametrize(
    ("words", "verdict"),
    [
        (["Allen", ",", "Phillip", "K."], "name"),
        (["Laura", "de", "la", "Torre"], "name"),
        (["you"], "plain"),
        (["heather.dunton@enron.com"], "plain"),
        (["the", "financial", "trader"], "plain"),
        (["brian", "levine"], "unsure"),  # a lower-case name, or a description: the line goes
    ],
)
def test_email_mentions_keep_names_only(words: list[str], verdict: str) -> None:
    assert email_mention(words) == verdict


@pytest.mark.parametrize(
    ("text", "kept"),
    [("Wilhelm,", "Wilhelm"), ("- Brooke", "Brooke"), ("Frank W.", "Frank W."), ("Ana", "Ana")],
)
def test_trim_takes_glued_punctuation_off_a_name(text: str, kept: str) -> None:
    start, end = trim(text, 0, len(text))
    assert text[start:end] == kept
