"""Evidence that a span names a person, in log-odds: every reader adds or subtracts, and one
resolver decides against one named threshold.

The learned detector's word probability is the prior (as log-odds, clipped). spaCy and each
name rule add the weight of their source; each check (an organisation word, a venue after the
span, a word of another language, ...) adds its own weight, mostly negative. The weights and
the threshold are rows of `privacy/conf/evidence.toml`, so a new miss costs a row or a training
example, not another `if` in a chain of vetoes.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources


@functools.cache
def table() -> Mapping[str, Mapping[str, object]]:
    """The evidence table as written: rows with a hand-set prior and a fitted weight."""
    with resources.files("privacy").joinpath("conf", "evidence.toml").open("rb") as handle:
        return tomllib.load(handle)


@functools.cache
def weights() -> Mapping[str, Mapping[str, float]]:
    """Every row's weight, by section: [bias], [detector], [sources], [checks], [thresholds]."""
    return {
        section: {
            name: float(row["weight"] if isinstance(row, dict) else row)
            for name, row in rows.items()
        }
        for section, rows in table().items()
    }


def threshold(name: str) -> float:
    """A named threshold of the evidence table."""
    return weights()["thresholds"][name]


@dataclass(frozen=True)
class Candidate:
    """A span some reader proposes as a person, and which reader."""

    start: int
    end: int
    source: str


@dataclass
class Evidence:
    """One span's weighed evidence: the readers that proposed it and every contribution."""

    start: int
    end: int
    sources: frozenset[str]
    reasons: dict[str, float] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return sum(self.reasons.values())

    @property
    def person(self) -> bool:
        return self.score >= threshold("person")


def grouped(candidates: Iterable[Candidate]) -> list[tuple[int, int, frozenset[str]]]:
    """Overlapping candidates as one span each, with the set of readers behind it."""
    groups: list[tuple[int, int, frozenset[str]]] = []
    for item in sorted(candidates, key=lambda c: (c.start, -c.end)):
        if item.end <= item.start:
            continue
        if groups and item.start < groups[-1][1]:
            start, end, sources = groups[-1]
            groups[-1] = (start, max(end, item.end), sources | {item.source})
        else:
            groups.append((item.start, item.end, frozenset({item.source})))
    return groups


def prior(
    text: str,
    start: int,
    end: int,
    scores: Iterable[tuple[int, int, float]],
    *,
    english: bool = True,
) -> float:
    """The detector's log-odds for the span: its most person-like word, clipped, and scaled
    down in a line of another language (it learned from English text)."""
    detector = weights()["detector"]
    best = max(
        # a word that starts in the span: "Emma's" and "Thandiwe." carry the name's score
        (p for s, e, p in scores if start <= s < end and text[s:e][:1].isalnum()),
        default=None,
    )
    if best is None:
        return detector["missing"]
    best = min(max(best, 1e-6), 1 - 1e-6)
    limit = detector["clip"]
    scale = detector["scale" if english else "scale_other_language"]
    return scale * min(max(math.log(best / (1 - best)), -limit), limit)


def weigh(
    start: int,
    end: int,
    sources: frozenset[str],
    detector_prior: float,
    checks: Mapping[str, bool],
) -> Evidence:
    """Sum the evidence of one span: the prior, each reader's weight, each check that holds."""
    rows = weights()
    reasons = {"bias": rows["bias"]["bias"], "detector": detector_prior}
    for source in sorted(sources):
        reasons[f"source:{source}"] = rows["sources"][source]
    for name, holds in checks.items():
        if holds:
            reasons[name] = rows["checks"][name]
    return Evidence(start, end, sources, reasons)
