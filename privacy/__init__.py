"""Veil's privacy layer: redaction, the session entity map, restore and the model-boundary guard.

tldextract (pulled in by presidio) downloads a public-suffix list on first use unless this
variable is set before it is imported; Veil must never touch the network. Presidio's import
compiles its predefined patterns only to check them, and that check waits until they run
(`presidio_import`).
"""

import os

from privacy.presidio_import import defer_pattern_checks

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
defer_pattern_checks()

from privacy.entity_map import EntityMap  # noqa: E402
from privacy.errors import PrivacyError, PrivacyLeakError  # noqa: E402
from privacy.guard import PrivacyGuard, Screened  # noqa: E402

__all__ = ["EntityMap", "PrivacyError", "PrivacyGuard", "PrivacyLeakError", "Screened"]
