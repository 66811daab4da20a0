"""Errors raised by the privacy layer."""


class PrivacyError(Exception):
    """Base class for every error of the privacy layer."""


class PrivacyLeakError(PrivacyError):
    """A prompt still held a raw personal value and the guard was told to refuse it."""


class InputRefusedError(PrivacyError):
    """Input the redactor will not process (too large, not text)."""


class RedactionFailedError(PrivacyError):
    """The redactor or a detector it runs broke on this text. Nothing may reach a model: a
    text whose names could not be found is not known to be free of them (fail closed)."""

    def __init__(self, stage: str, error: BaseException) -> None:
        super().__init__(
            f"names could not be hidden in this text ({stage} failed: "
            f"{type(error).__name__}), so nothing was sent to a model. Try again; if it "
            "keeps failing, remove unusual characters from the text"
        )
        self.stage = stage
