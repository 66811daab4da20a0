"""The public NER corpora that training/ner_sources.py converts for the person detector (issue 39).

The converted records are third-party data, kept beside the benchmarks in
../shared/benchmarks/ner and never in this repository; the converter itself checks each
record's offsets and drops any sentence of a sealed set. Here: the committed report names a
source, commit and licence for every corpus, and the readers do what they say.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from training.ner_readers import bio_spans, detokenise, email_mention
from training.ner_sources import CORPORA, REPORT, load_ner, trim

LANGS = {"en", "de", "fr", "es", "pt", "it"}


@pytest.fixture(scope="module")
def report() -> dict:
    return json.loads(REPORT.read_text(encoding="utf-8"))


def test_every_corpus_in_the_report_has_its_source_and_licence(report: dict) -> None:
    assert set(report["corpora"]) == {corpus.name for corpus in CORPORA}
    for name, entry in report["corpora"].items():
        assert entry["licence"] and entry["licence_file"], name
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]) and "/" in entry["repo"], name
        assert "NC" not in entry["licence"], f"{name}: non-commercial data stays out"
        assert entry["person_spans"] > 0 and set(entry["languages"]) <= LANGS, name
        assert 0 < entry["sentences"] <= report["max_sentences"], name


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
