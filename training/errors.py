"""Errors of the training package."""

from __future__ import annotations


class TrainingError(Exception):
    """Base class: a training stage cannot go on; the message says how to fix it."""


class ExportError(TrainingError):
    """An adapter could not be written in llama.cpp's GGUF LoRA format."""


class GateError(TrainingError):
    """The gate was asked to compare figures it cannot compare."""
