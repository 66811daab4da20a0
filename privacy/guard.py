"""The one privacy check at the model boundary: no known raw value leaves in a prompt.

Every prompt of every backend passes `PrivacyGuard.screen`. It knows the session's real
values and the user's contacts; any of them found in a prompt, in any case, is replaced by
its placeholder again (or, with `refuse=True`, the call is refused). The redactor decides what
is personal; the guard is the last line that makes sure a value once known never slips out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from privacy.entity_map import EntityMap, normalize_value
from privacy.errors import PrivacyLeakError


@dataclass(frozen=True)
class Screened:
    """A prompt after screening, and the placeholders that had to be put back into it."""

    text: str
    reredacted: list[str] = field(default_factory=list)


def _value_pattern(values: Iterable[str]) -> re.Pattern[str] | None:
    """One alternation over all values, longest first, bounded so "Al" never hits "Alan"."""
    unique = sorted({v.strip() for v in values if v and v.strip()}, key=len, reverse=True)
    if not unique:
        return None
    parts = [r"\s+".join(re.escape(word) for word in v.split()) for v in unique]
    return re.compile(r"(?<![\w@])(?:" + "|".join(parts) + r")(?![\w@])", re.IGNORECASE)


class PrivacyGuard:
    """Screens prompts against the session map and the known contacts."""

    def __init__(
        self, entity_map: EntityMap, contacts: Iterable[str] = (), *, refuse: bool = False
    ) -> None:
        self.entity_map = entity_map
        self.contacts = [c for c in contacts if c and c.strip()]
        self.needs_refusal = refuse

    def screen(self, text: str) -> Screened:
        """Return `text` with every known raw value replaced by its placeholder."""
        # normalised raw value -> its placeholder; contacts not yet in the map get one now
        by_key: dict[str, str] = {}
        for placeholder, value in self.entity_map.items():
            by_key.setdefault(normalize_value(value), placeholder)
        for contact in self.contacts:
            if normalize_value(contact) not in by_key:
                by_key[normalize_value(contact)] = self.entity_map.placeholder_for(
                    "PERSON", contact
                )
        pattern = _value_pattern([v for _, v in self.entity_map.items()] + self.contacts)
        if pattern is None:
            return Screened(text)
        found: list[str] = []

        def swap(match: re.Match[str]) -> str:
            placeholder = by_key[normalize_value(match.group(0))]
            found.append(placeholder)
            return placeholder

        screened = pattern.sub(swap, text)
        if found and self.needs_refusal:
            raise PrivacyLeakError(
                f"prompt refused: it held {len(found)} known personal value(s) in clear"
            )
        return Screened(screened, sorted(set(found)))
