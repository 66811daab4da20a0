"""Errors raised by the privacy layer."""


class PrivacyError(Exception):
    """Base class for every error of the privacy layer."""


class PrivacyLeakError(PrivacyError):
    """A prompt still held a raw personal value and the guard was told to refuse it."""


class InputRefusedError(PrivacyError):
    """Input the redactor will not process (too large, not text)."""
