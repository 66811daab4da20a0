"""Import Presidio without compiling its predefined patterns twice.

Importing `presidio_analyzer` defines every predefined recognizer, and each of their ~190
patterns is compiled once at definition only to check that it compiles (the URL recognizer's
alone lists 1,500 top-level domains). A recognizer compiles its patterns again when it first
runs, and Veil enables five of Presidio's. The check costs 0.15 s of every cold start on 2
cores, so it is deferred while the package imports: a broken pattern still fails, when its
recognizer runs. Patterns made after the import (Veil's own) are checked as before.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

PACKAGE = "presidio_analyzer"
PATTERN_MODULE = "presidio_analyzer.pattern"
_CHECK = "_Pattern__validate_regex"  # Pattern's name-mangled static check


class _DeferPatternChecks(importlib.abc.MetaPathFinder):
    """Finds Presidio's package and pattern module as usual, and wraps their execution."""

    def __init__(self) -> None:
        self.original: Any = None

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in (PACKAGE, PATTERN_MODULE):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None  # installed some other way: the normal import, checks and all
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if name == PATTERN_MODULE:
                run(module)
                self._skip_checks(module)
                return
            try:  # the package: its import defines every predefined recognizer
                run(module)
            finally:
                self._restore()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec

    def _skip_checks(self, module: ModuleType) -> None:
        pattern = getattr(module, "Pattern", None)
        if pattern is not None and _CHECK in vars(pattern):
            self.original = vars(pattern)[_CHECK]
            setattr(pattern, _CHECK, staticmethod(lambda regex: None))

    def _restore(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        module = sys.modules.get(PATTERN_MODULE)
        if self.original is not None and module is not None:
            setattr(module.Pattern, _CHECK, self.original)
            self.original = None


def defer_pattern_checks() -> None:
    """Install the deferral before Presidio is first imported; a no-op after that."""
    if PACKAGE in sys.modules or any(isinstance(f, _DeferPatternChecks) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _DeferPatternChecks())
