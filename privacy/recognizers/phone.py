"""Phone numbers in international and national formats, validated by `phonenumbers`.

One regex cannot tell "030 1234567" (Berlin) from an order number; the candidate pattern is
loose on purpose and `phonenumbers` decides, trying the user's region and common others.
"""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer

from privacy.phone import parse_phone


class RegionPhoneRecognizer(PatternRecognizer):
    """PHONE_NUMBER: a digit run shaped like a phone number that phonenumbers accepts."""

    PATTERNS = [
        Pattern(
            "phone candidate",
            r"(?<![\w+/.:-])(?:\+|00)?\(?\d[\d \t\u00a0().\-/]{4,20}\d"
            r"(?:[ \t]*(?:x|ext\.?)[ \t]*\d{1,5})?"
            r"(?![\w/]|[.:-]\d)",
            0.5,
        ),
    ]
    CONTEXT = ["phone", "call", "tel", "mobile", "cell", "number", "text", "whatsapp", "fax"]

    def __init__(self) -> None:
        super().__init__(
            supported_entity="PHONE_NUMBER",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            name="RegionPhoneRecognizer",
        )

    def validate_result(self, pattern_text: str) -> bool:
        """Accept what phonenumbers accepts in some region; refuse dates and bare runs."""
        return parse_phone(pattern_text) is not None
