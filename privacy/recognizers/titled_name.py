"""Names after a title or form of address: "Dr. Okafor", "Frau Schmidt", "Sra. Gómez"."""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern, PatternRecognizer

_TITLES = (
    r"(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame|Herr|Frau|Fr|Hr|Mme|Mlle|M|Sr|Sra|Srta|Señor|Señora"
    r"|Senhor|Senhora|Dona|Don|Dott|Doutor|Doutora|Doktor)"
)

# A title opening a span another reader found ("Mr. Leiva"): the name is what follows.
LEADING_TITLE_RE = regex.compile(rf"^(?:{_TITLES}\.?|(?i:{_TITLES[3:-1]})\.)\s+")

# Typed fast, titles lose their capital but keep their full stop: "ms. Quinzia", "dr. Okafor".
# Without the stop a lower-case "miss" or "don" is a word ("I miss London").
_TYPED_TITLES = r"(?i:(?:mr|mrs|ms|mx|dr|dra|prof|sr|sra|srta|mme|mlle|dott)\.|dott\.ssa\.?)"
# ... and the name after it typed in lower case too ("dra. ortega", "dott.ssa rossi", German
# typed "frau schneider"; "Meine Frau kocht" keeps its capital): one word the name lists know.
_LOWER_AFTER = rf"(?:{_TYPED_TITLES}|frau|herrn?)"


class TitledNameRecognizer(PatternRecognizer):
    """PERSON: capitalised words after a title (case-sensitive, so "dr" in prose is left).

    Title and name share a line: "2505 Samaritan Dr." ends one, "Me: ..." opens the next.
    """

    PATTERNS = [
        Pattern(
            "titled name",
            rf"(?<=\b(?:{_TITLES}\.?|{_TYPED_TITLES})[ \t]+)\p{{Lu}}[\p{{L}}'’\-]+"
            rf"(?:[ \t]+\p{{Lu}}[\p{{L}}'’\-]+){{0,2}}",
            0.7,
        ),
        Pattern(
            "typed titled name",
            rf"(?<=\b{_LOWER_AFTER}[ \t]+)\p{{Ll}}[\p{{L}}'’\-]+",
            0.6,
        ),
    ]
    CONTEXT: list[str] = []

    def __init__(self) -> None:
        super().__init__(
            supported_entity="PERSON",
            patterns=self.PATTERNS,
            name="TitledNameRecognizer",
            global_regex_flags=regex.DOTALL | regex.MULTILINE,
        )

    def validate_result(self, pattern_text: str) -> bool:
        """A single letter after "M." is an initial, not a surname; a lower-case word after a
        title is a name when the name lists know it ("the dr. prescribed rest" is no one)."""
        if len(pattern_text) <= 1:
            return False
        if not pattern_text[:1].islower():
            return True
        from privacy.lexicon import HARD_NOT_NAMES, is_given_name, is_surname

        low = pattern_text.casefold()
        return low not in HARD_NOT_NAMES and (is_surname(low) or is_given_name(low))
