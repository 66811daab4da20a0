"""Semantic recall over facts: normalised sentence vectors in a FAISS inner-product index.

The index is derived data. SQLite's `facts` table is the truth; the FAISS file beside the
database is rebuilt from it whenever it is missing, unreadable, or holds other ids than the
table (a crash between the two writes, a store opened without its index).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import faiss
import numpy as np
from sqlite_utils import Database

from memory.errors import EmbeddingError
from memory.migrations import migrate
from memory.paths import private_file

log = logging.getLogger(__name__)

MINILM_DIMENSION = 384


class Embedder(Protocol):
    """Turns sentences into vectors; `model_id` tells a saved index which model made it."""

    model_id: str
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dimension)."""


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8, on onnxruntime: memory/encoder.py), loaded on first use."""

    # The shipped int8 export: vectors within 0.99 cosine of the torch original
    # (memory/models/manifest.json), but not the same, so an index of the old vectors rebuilds.
    model_id = "all-MiniLM-L6-v2-onnx-int8"
    dimension = MINILM_DIMENSION

    def __init__(self, model_path: Path | None = None, batch_size: int = 64) -> None:
        self.model_path = model_path
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from memory.encoder import MODEL_FILE, OnnxEncoder

                self._model = OnnxEncoder(self.model_path or MODEL_FILE)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode sentences to 384-d float32 vectors."""
        model = self._load()
        parts = [
            model.encode(texts[i : i + self.batch_size])
            for i in range(0, len(texts), self.batch_size)
        ]
        vectors = np.concatenate(parts) if parts else np.zeros((0, self.dimension), np.float32)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dimension)


def index_path_for(db: Database) -> Path | None:
    """Where the FAISS file of a file database lives (None for an in-memory database)."""
    filename = db.execute("PRAGMA database_list").fetchone()[2]
    return Path(filename).with_suffix(".faiss") if filename else None


class FactIndex:
    """FAISS `IndexIDMap(IndexFlatIP)` keyed by fact rowid; cosine similarity on unit vectors.

    Pass it to `MemoryStore(db, index=...)` so added and deleted facts reach it.
    """

    def __init__(
        self, db: Database, embedder: Embedder, path: Path | None = None, threads: int = 1
    ) -> None:
        # One query at a time: OpenMP start-up dominates, and a flat search of 100k vectors
        # measured 13 ms on one thread vs 48 ms on two (bench/memory.py). Process-wide setting.
        faiss.omp_set_num_threads(threads)
        self.db = db
        self.embedder = embedder
        self.dimension = embedder.dimension  # fixed for the life of the index
        self.path = path
        self._lock = threading.Lock()
        migrate(db)
        self._index = self._load()

    def _empty(self) -> Any:
        return faiss.IndexIDMap(faiss.IndexFlatIP(self.dimension))

    def _meta_path(self) -> Path | None:
        return self.path.with_name(self.path.name + ".json") if self.path else None

    def _load(self) -> Any:
        """The saved index if it matches SQLite, otherwise one rebuilt from the facts table."""
        meta_path = self._meta_path()
        if self.path is None or meta_path is None or not self.path.exists():
            return self._rebuild()
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            index = faiss.read_index(str(self.path))
        except (OSError, ValueError, RuntimeError) as error:
            log.warning("fact index unreadable (%s); rebuilding", type(error).__name__)
            return self._rebuild()
        stored = set(faiss.vector_to_array(index.id_map).tolist()) if index.ntotal else set()
        if (
            meta.get("model_id") != self.embedder.model_id
            or index.d != self.dimension
            or stored != self._fact_ids()
        ):
            log.warning("fact index out of step with the facts table; rebuilding")
            return self._rebuild()
        return index

    def _fact_ids(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT id FROM facts")}

    def _rebuild(self) -> Any:
        index = self._empty()
        rows = self.db.execute("SELECT id, text FROM facts ORDER BY id").fetchall()
        if rows:
            vectors = self._vectors([text for _, text in rows])
            index.add_with_ids(vectors, np.array([i for i, _ in rows], dtype=np.int64))
        log.info("fact index rebuilt from %d facts", len(rows))
        self._save(index)
        return index

    def rebuild(self) -> None:
        """Recompute every vector from SQLite (after changing the embedding model)."""
        with self._lock:
            self._index = self._rebuild()

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.ascontiguousarray(self.embedder.encode(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise EmbeddingError(
                f"embedder returned shape {vectors.shape}, expected "
                f"({len(texts)}, {self.dimension})"
            )
        faiss.normalize_L2(vectors)
        return vectors

    def _save(self, index: Any) -> None:
        # Write then rename: a crash mid-write leaves the old file, which _load checks anyway.
        meta_path = self._meta_path()
        if self.path is None or meta_path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        faiss.write_index(index, str(tmp))
        private_file(tmp)  # vectors of the user's facts: as private as the facts themselves
        os.replace(tmp, self.path)
        meta_path.write_text(json.dumps({"model_id": self.embedder.model_id}), encoding="utf-8")
        private_file(meta_path)

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, fact_id: int, text: str) -> None:
        """Index one fact under its rowid."""
        self.add_many([fact_id], [text])

    def add_many(self, fact_ids: Sequence[int], texts: Sequence[str]) -> None:
        """Index several facts with one encode call and one save."""
        if len(fact_ids) != len(texts):
            raise ValueError("one id per text")
        if not fact_ids:
            return
        vectors = self._vectors(texts)
        ids = np.array(fact_ids, dtype=np.int64)
        with self._lock:
            self._index.remove_ids(ids)  # re-adding an id replaces its vector
            self._index.add_with_ids(vectors, ids)
            self._save(self._index)

    def remove(self, fact_ids: Sequence[int]) -> None:
        """Drop the vectors of these facts."""
        with self._lock:
            self._index.remove_ids(np.array(fact_ids, dtype=np.int64))
            self._save(self._index)

    def search(self, query: str, k: int = 5) -> list[tuple[int, float]]:
        """(fact id, cosine similarity) of the `k` nearest facts, best first."""
        if k < 1:
            raise ValueError("k must be >= 1")
        vector = self._vectors([query])
        with self._lock:
            if self._index.ntotal == 0:
                return []
            scores, ids = self._index.search(vector, min(k, self._index.ntotal))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i != -1]
