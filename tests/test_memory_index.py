"""FactIndex on a real FAISS flat index: 8-dim fake vectors, plus one run of real MiniLM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from sqlite_utils import Database

from memory.errors import EmbeddingError
from memory.index import FactIndex, MiniLMEmbedder, index_path_for
from memory.store import MemoryStore


class FakeEmbedder:
    """Deterministic 8-d vectors from word lengths: same words, same vector."""

    model_id = "fake-word-lengths"
    dimension = 8

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                vectors[row, len(word) % self.dimension] += 1.0
        return vectors


FACTS = ["a bb ccc", "dddd eeeee", "ffffff ggggggg", "hhhhhhhh i"]


def open_memory(path: Path, embedder: FakeEmbedder) -> tuple[MemoryStore, FactIndex]:
    db = Database(path)
    index = FactIndex(db, embedder, index_path_for(db))
    return MemoryStore(db, index=index), index


def test_search_finds_the_fact_and_delete_removes_its_vector(tmp_path: Path) -> None:
    store, index = open_memory(tmp_path / "veil.db", FakeEmbedder())
    ids = [store.add_fact(text).id for text in FACTS]
    assert len(index) == 4
    hits = index.search("dddd eeeee", k=2)
    assert hits[0][0] == ids[1] and hits[0][1] == pytest.approx(1.0)
    store.delete_fact(ids[1])
    assert len(index) == 3
    assert ids[1] not in [i for i, _ in index.search("dddd eeeee", k=5)]


def test_index_is_saved_beside_the_db_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    store, _ = open_memory(path, FakeEmbedder())
    for text in FACTS:
        store.add_fact(text)
    assert (tmp_path / "veil.faiss").exists()
    store.db.close()
    embedder = FakeEmbedder()
    _, reopened = open_memory(path, embedder)
    assert len(reopened) == 4
    assert embedder.calls == 0  # loaded, not re-encoded


@pytest.mark.parametrize("damage", ["missing", "corrupt", "stale"])
def test_index_is_rebuilt_from_sqlite(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "veil.db"
    store, _ = open_memory(path, FakeEmbedder())
    ids = [store.add_fact(text).id for text in FACTS]
    faiss_file = tmp_path / "veil.faiss"
    if damage == "missing":
        faiss_file.unlink()
    elif damage == "corrupt":
        faiss_file.write_bytes(b"not a faiss index")
    else:  # a fact deleted while the index was not attached
        MemoryStore(store.db).delete_fact(ids[0])
    store.db.close()
    embedder = FakeEmbedder()
    store, index = open_memory(path, embedder)
    assert embedder.calls == 1
    expected = ids[1:] if damage == "stale" else ids
    assert sorted(i for i, _ in index.search("a bb ccc", k=10)) == expected


def test_forget_session_removes_its_vectors() -> None:
    db = Database(memory=True)
    index = FactIndex(db, FakeEmbedder())
    store = MemoryStore(db, index=index)
    kept, forgotten = store.create_session(), store.create_session()
    store.add_fact(FACTS[0], session_id=kept.id)
    store.add_fact(FACTS[1], session_id=forgotten.id)
    store.forget_session(forgotten.id)
    assert [store.get_facts([i])[0].session_id for i, _ in index.search(FACTS[1])] == [kept.id]


def test_wrong_vector_shape_is_an_error() -> None:
    embedder = FakeEmbedder()
    index = FactIndex(Database(memory=True), embedder)
    embedder.dimension = 4
    with pytest.raises(EmbeddingError):
        index.add(1, "x")


def test_minilm_recalls_a_paraphrase() -> None:
    store = MemoryStore(Database(memory=True))
    index = FactIndex(store.db, MiniLMEmbedder())
    store.index = index
    karthik = store.add_fact("Karthik is my CFO")
    store.add_fact("I prefer meetings after 10am")
    store.add_fact("My dentist is on Elm Street")
    assert len(index.embedder.encode(["x"])[0]) == 384
    assert index.search("who is the chief financial officer?", k=1)[0][0] == karthik.id
