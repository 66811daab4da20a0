"""Where Veil keeps its data: the per-user data folder unless the user names another."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def default_data_dir() -> Path:
    """The platform's per-user data folder for Veil (e.g. ~/.local/share/veil on Linux)."""
    return platformdirs.user_data_path("veil", appauthor=False)
