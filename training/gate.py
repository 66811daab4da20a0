"""The gate: a new adapter ships only if it clears absolute floors and regresses on nothing.

Figures come as {set name: {metric: value}} (see bench/adapter.py for how they are measured).
The candidate must reach every floor on the pooled "all" figures AND be at least as good as the
baseline (the shipped adapter, or the embedded model alone when none has shipped) on every gated
metric of every set. Promotion copies the GGUF file beside a manifest that records what made it;
a refusal leaves the shipped adapter alone and writes a report that says which figure failed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from training.errors import GateError

GATED = (
    "validity",
    "event_f1",
    "start_exact_recall",
    "no_event_accuracy",
    "clarification_recall",
)
# Absolute minimums, whatever the baseline does; no-llm sits above each on the gate sets. A
# turn can be invalid through no fault of the model (an agent crash), so validity is not 1.0.
FLOORS: dict[str, float] = {
    "validity": 0.95,
    "event_f1": 0.80,
    "start_exact_recall": 0.85,
    "no_event_accuracy": 0.90,
    "clarification_recall": 0.90,
}
ADAPTER_NAME = "veil-lora.gguf"
MANIFEST_NAME = "manifest.json"
# Figures are ratios over a few dozen cases; this only absorbs float noise, not a lost case.
EPSILON = 1e-9

Figures = Mapping[str, Mapping[str, Any]]


@dataclass
class Verdict:
    """Whether to promote, and every reason either way."""

    promote: bool
    failures: list[str] = field(default_factory=list)
    passes: list[str] = field(default_factory=list)

    def report(self) -> str:
        """Markdown: the decision, then each failed and passed check."""
        head = "PROMOTE" if self.promote else "DISCARD"
        lines = [f"# Gate: {head}", ""]
        lines += [f"- FAIL {line}" for line in self.failures]
        lines += [f"- ok {line}" for line in self.passes]
        return "\n".join(lines) + "\n"


def judge(
    candidate: Figures,
    baseline: Figures | None,
    *,
    floors: Mapping[str, float] = FLOORS,
) -> Verdict:
    """Floors on the pooled figures, then no regression on any gated metric of any set."""
    if "all" not in candidate:
        raise GateError("the candidate's figures need an 'all' entry (pooled over every set)")
    verdict = Verdict(promote=True)
    for metric, floor in floors.items():
        value = float(candidate["all"][metric])
        line = f"floor {metric}: {value:.3f} (needs >= {floor:.3f})"
        (verdict.passes if value + EPSILON >= floor else verdict.failures).append(line)
    if baseline is not None:
        for set_name, figures in candidate.items():
            if set_name not in baseline:
                verdict.passes.append(f"{set_name}: no baseline figures, regression not checked")
                continue
            for metric in GATED:
                new, old = float(figures[metric]), float(baseline[set_name][metric])
                line = f"{set_name} {metric}: {new:.3f} vs baseline {old:.3f}"
                (verdict.passes if new + EPSILON >= old else verdict.failures).append(line)
    verdict.promote = not verdict.failures
    return verdict


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The shipped adapter's manifest, or None when nothing has shipped."""
    path = folder / MANIFEST_NAME
    if not path.is_file() or not (folder / ADAPTER_NAME).is_file():
        return None
    return dict(json.loads(path.read_text(encoding="utf-8")))


def promote(candidate: Path, folder: Path, manifest: dict[str, Any]) -> Path:
    """Copy the adapter into `folder` and write its manifest beside it; returns the new path."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / ADAPTER_NAME
    staged = folder / f".{ADAPTER_NAME}.new"
    shutil.copyfile(candidate, staged)
    record = {
        **manifest,
        "adapter": ADAPTER_NAME,
        "adapter_sha256": sha256_file(staged),
        "promoted": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    staged.replace(target)  # the adapter and its manifest change together, or not at all
    (folder / MANIFEST_NAME).write_text(
        json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return target


def discard(candidate: Path, report_path: Path, verdict: Verdict, figures: Figures) -> None:
    """Leave the shipped adapter alone; write why the candidate did not ship."""
    report_path.parent.mkdir(parents=True, exist_ok=True)
    text = verdict.report() + "\n```json\n" + json.dumps(figures, indent=2) + "\n```\n"
    report_path.write_text(text, encoding="utf-8")
    candidate.unlink(missing_ok=True)
