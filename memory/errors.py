"""Errors raised by Veil's memory (SQLite + FAISS)."""


class StoreError(Exception):
    """Base class for every error of the memory store."""
