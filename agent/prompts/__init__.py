"""Prompt templates, kept as package data rather than inline strings."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def load_prompt(name: str) -> dict[str, Any]:
    """The parsed `agent/prompts/<name>.yaml`."""
    text = resources.files(__package__).joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or "system" not in data or "user" not in data:
        raise ValueError(f"prompt {name}.yaml needs 'system' and 'user' keys")
    return data
