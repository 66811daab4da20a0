"""The session's placeholder map: one placeholder per distinct real value, for the whole session.

Numbering never restarts: a placeholder handed out once keeps pointing at the same value for
the life of the session (and after a restart, through `to_dict`/`from_dict`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lang.text import fold_accents

# <PERSON_1>, <PHONE_12>: the closing ">" makes <PERSON_1> unable to match inside <PERSON_12>.
PLACEHOLDER_RE = re.compile(r"<([A-Z][A-Z_]*?)_(\d+)>")


def normalize_value(value: str) -> str:
    """Key under which two spellings of one value are the same value: any case, any accents
    ("Karthik" == "karthik", "José" == "jose", "Zoë" == "Zoe")."""
    return " ".join(fold_accents(value).split()).casefold()


@dataclass
class EntityMap:
    """Bidirectional placeholder <-> real value map, persisted with the session."""

    _placeholders: dict[tuple[str, str], str] = field(default_factory=dict)
    _values: dict[str, str] = field(default_factory=dict)
    _types: dict[str, str] = field(default_factory=dict)
    _counters: dict[str, int] = field(default_factory=dict)
    # Other spellings of a value that has a placeholder: "Priya" for "Priya Patel".
    _aliases: dict[tuple[str, str], str] = field(default_factory=dict)

    def placeholder_for(self, entity_type: str, value: str, key: str | None = None) -> str:
        """Return the placeholder of `value`, minting the next number for its type if new.

        `key` lets a caller that knows better (a phone number in E.164, a first name linked
        to a full name) decide which values are the same one.
        """
        if not re.fullmatch(r"[A-Z][A-Z_]*", entity_type):
            raise ValueError(f"entity type must be UPPER_SNAKE, got {entity_type!r}")
        lookup = (entity_type, key if key is not None else normalize_value(value))
        found = self._placeholders.get(lookup)
        if found is not None:
            return found
        number = self._counters.get(entity_type, 0) + 1
        self._counters[entity_type] = number
        placeholder = f"<{entity_type}_{number}>"
        self._placeholders[lookup] = placeholder
        self._values[placeholder] = value
        self._types[placeholder] = entity_type
        return placeholder

    def link(
        self, placeholder: str, value: str, key: str | None = None, *, primary: bool = False
    ) -> str:
        """Make `value` another spelling of an existing placeholder's value; return it.

        `primary` makes it the spelling `restore` writes back (a full name seen after the
        first name alone), the old one staying a known spelling.
        """
        entity_type = self._types.get(placeholder)
        if entity_type is None:
            raise ValueError(f"{placeholder} was not made by this session's map")
        lookup = (entity_type, key if key is not None else normalize_value(value))
        found = self._placeholders.get(lookup)
        if found is not None:
            return found
        self._placeholders[lookup] = placeholder
        if primary:
            old = next(
                k
                for k, p in self._placeholders.items()
                if p == placeholder and k not in self._aliases
            )
            self._aliases[old] = self._values[placeholder]
            self._values[placeholder] = value
        else:
            self._aliases[lookup] = value
        return placeholder

    def variants(self) -> Iterator[tuple[str, str]]:
        """(placeholder, spelling) for every known spelling, the main values first."""
        yield from self._values.items()
        for lookup, value in self._aliases.items():
            yield self._placeholders[lookup], value

    def find(self, entity_type: str, key: str) -> str | None:
        """Placeholder already given to `key` (a normalised value), if any."""
        return self._placeholders.get((entity_type, key))

    def value_of(self, placeholder: str) -> str | None:
        """Real value behind a placeholder, or None for one this session never made."""
        return self._values.get(placeholder)

    def type_of(self, placeholder: str) -> str | None:
        """Entity type of a placeholder this session made."""
        return self._types.get(placeholder)

    def items(self) -> Iterator[tuple[str, str]]:
        """(placeholder, real value) pairs in the order they were made."""
        return iter(self._values.items())

    def restore(self, text: str) -> str:
        """Put real values back for every placeholder this session made; others stay as is."""

        def swap(match: re.Match[str]) -> str:
            return self._values.get(match.group(0), match.group(0))

        return PLACEHOLDER_RE.sub(swap, text)

    def spelling_count(self) -> int:
        """How many spellings the map knows; it grows with every new value or spelling."""
        return len(self._placeholders)

    def __len__(self) -> int:
        return len(self._values)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form for persistence with the session."""
        order = {placeholder: index for index, placeholder in enumerate(self._values)}
        return {
            "entries": [
                {"placeholder": p, "type": self._types[p], "value": v, "key": k[1]}
                # main spellings first: from_dict takes a placeholder's first entry as its value
                for k, p in sorted(
                    self._placeholders.items(),
                    key=lambda kp: (kp[0] in self._aliases, order[kp[1]]),
                )
                for v in [self._aliases.get(k, self._values[p])]
            ],
            "counters": dict(self._counters),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> EntityMap:
        """Rebuild a map saved by `to_dict`, numbering included."""
        restored = cls()
        entries = data.get("entries", [])
        counters = data.get("counters", {})
        if not isinstance(entries, list) or not isinstance(counters, dict):
            raise ValueError("entity map data must have a list of entries and a counters dict")
        for entry in entries:
            placeholder = entry["placeholder"]
            # keys saved before accents were folded are folded now, so "José" keeps its number
            lookup = (entry["type"], normalize_value(entry["key"]))
            restored._placeholders[lookup] = placeholder
            if placeholder in restored._values:  # a later entry of one value: another spelling
                restored._aliases[lookup] = entry["value"]
            else:
                restored._values[placeholder] = entry["value"]
            restored._types[placeholder] = entry["type"]
        restored._counters = {str(k): int(v) for k, v in counters.items()}
        return restored
