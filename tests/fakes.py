"""Stand-ins at the weight boundary only: they record what a backend would have been sent."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agent.model import Chunk, GenerationOptions, Message, Usage


class RecordingChatModel:
    """Replays scripted answers and keeps every message list it received."""

    backend = "fake"
    model_id = "recording"
    supports_schema = True

    def __init__(self, answers: Sequence[str] = ()) -> None:
        self.answers = list(answers)
        self.received: list[list[Message]] = []

    def check(self) -> None:
        """Always usable."""

    def generate(
        self, messages: Sequence[Message], *, options: GenerationOptions
    ) -> Iterator[Chunk]:
        """Record the messages, then stream the next scripted answer word by word."""
        self.received.append(list(messages))
        answer = self.answers.pop(0) if self.answers else "{}"
        words = answer.split(" ")
        for index, word in enumerate(words):
            yield word if index == len(words) - 1 else word + " "
        yield Usage(sum(len(m.content.split()) for m in messages), len(words))
