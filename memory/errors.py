"""Errors raised by Veil's memory (SQLite + FAISS)."""


class StoreError(Exception):
    """Base class for every error of the memory store."""


class PlaceholderError(StoreError):
    """Text holding `<PERSON_1>`-style placeholders: memory keeps real values only."""


class NotFoundError(StoreError):
    """A session, turn, fact or file that the store does not have."""


class EmbeddingError(StoreError):
    """The embedding model cannot be loaded or returned vectors of the wrong shape."""
