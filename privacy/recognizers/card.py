"""Card numbers Presidio's card recognizer skips: 12-19 digits said to be a card.

Presidio's pattern stops at the common 13-16 digit layouts; Maestro (12), JCB/Diners (14-15)
and 19-digit cards slip through. A bare digit run is too ambiguous, so these are taken only
after a word for "card" and only when the Luhn checksum holds.
"""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer

_CARD_WORDS = r"(?:card|cc|karte|kreditkarte|carte|tarjeta|cartão|cartao)"


def luhn_valid(digits: str) -> bool:
    """The checksum every payment card number satisfies."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


class CardNumberRecognizer(PatternRecognizer):
    """CREDIT_CARD: a Luhn-valid 12-19 digit number within a few words after "card"."""

    PATTERNS = [
        Pattern(
            "card after card word",
            rf"(?<=\b{_CARD_WORDS}\b[^\n\d]{{0,30}})\b\d(?:[ -]?\d){{11,18}}\b",
            0.6,
        ),
    ]
    CONTEXT = ["card", "credit", "debit", "visa", "mastercard"]

    def __init__(self) -> None:
        super().__init__(
            supported_entity="CREDIT_CARD",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            name="CardNumberRecognizer",
        )

    def validate_result(self, pattern_text: str) -> bool:
        """Only numbers whose Luhn checksum holds."""
        digits = "".join(ch for ch in pattern_text if ch.isdigit())
        return 12 <= len(digits) <= 19 and luhn_valid(digits)
