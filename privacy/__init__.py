"""Veil's privacy layer: redaction, the session entity map, restore and the model-boundary guard.

tldextract (pulled in by presidio) downloads a public-suffix list on first use unless this
variable is set before it is imported; Veil must never touch the network.
"""

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

from privacy.entity_map import EntityMap  # noqa: E402
from privacy.errors import PrivacyError, PrivacyLeakError  # noqa: E402
from privacy.guard import PrivacyGuard, Screened  # noqa: E402

__all__ = ["EntityMap", "PrivacyError", "PrivacyGuard", "PrivacyLeakError", "Screened"]
