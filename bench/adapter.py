"""Whole turns scored for the fine-tuning gate: one model choice, one set of cases, no judge.

The turns are real `Assistant.ask` turns (bench.agent's runner: a fresh data folder and audit
log per case) and the scoring is bench.agent's (event matching, start-exact, questions,
bundle schema), so an adapter is measured exactly as the agent benchmark measures the agent.
The gate's figures:

- validity: bundle schema valid and no turn raised;
- event_f1 and start_exact_recall over created events (bench.agent's definitions);
- no_event_accuracy: cases with no gold event where nothing was created;
- clarification_recall: cases whose gold asks a question where the bundle asks one;
- p50_seconds: median seconds a turn (reported, never gated: the machine is shared).

Run: .venv/bin/python -m bench.adapter [--adapter FILE.gguf | --no-adapter | --no-llm]
     [--cases FILE.jsonl ...] (default: bench/data/agent_dev.jsonl).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.agent import CaseScore, Runner, load_dev, percentile, run_set, summarise
from training.gate import GATED

logger = logging.getLogger(__name__)


class ModelRunner(Runner):
    """bench.agent's runner with a chosen backend: a model object (any adapter) or none."""

    def __init__(self, model: Any | None) -> None:
        super().__init__("no-llm" if model is None else "embedded")
        self._model = model


def embedded(adapter: Path | None, *, n_ctx: int = 4096) -> Any:
    """The embedded GGUF in llama.cpp, with `adapter` (a GGUF LoRA file) or without one."""
    from agent.backends import embedded_model_path
    from agent.backends.llama_cpp import LlamaCppModel

    return LlamaCppModel(embedded_model_path(), n_ctx=n_ctx, lora_path=adapter)


def metrics(scores: Sequence[CaseScore]) -> dict[str, float]:
    """The gate's figures for one mode over one set."""
    total = summarise(scores)
    quiet = [s for s in scores if s.gold == 0]
    return {
        "cases": float(total.cases),
        "validity": total.valid / max(total.cases, 1),  # a turn that raised has no valid bundle
        "event_f1": total.prf[2],
        "start_exact_recall": total.exact / total.gold if total.gold else 1.0,
        "no_event_accuracy": (
            sum(1 for s in quiet if s.created == 0) / len(quiet) if quiet else 1.0
        ),
        "clarification_recall": total.asked / total.questions if total.questions else 1.0,
        "p50_seconds": percentile(total.seconds, 0.5) if total.seconds else 0.0,
    }


def evaluate(model: Any | None, sets: dict[str, Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """{set name: metrics} for one backend, plus "all" over every case."""
    runner = ModelRunner(model)
    results: dict[str, Any] = {}
    every: list[CaseScore] = []
    for name, cases in sets.items():
        scores = run_set(runner, name, cases)
        every.extend(scores)
        results[name] = metrics(scores)
        results[name]["missed"] = [
            s.id for s in scores if s.error or s.matched < s.gold or s.created > s.matched
        ][:30]
    results["all"] = metrics(every)
    return results


def table(columns: dict[str, dict[str, Any]], set_name: str) -> list[str]:
    """A markdown table: one row per figure, one column per mode."""
    names = list(columns)
    lines = [
        f"| {set_name} | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for key in ("cases", *GATED, "p50_seconds"):
        cells = []
        for name in names:
            value = columns[name].get(set_name, {}).get(key)
            if value is None:
                cells.append("–")
            elif key == "cases":
                cells.append(str(int(value)))
            else:
                cells.append(f"{value:.2f}" if key == "p50_seconds" else f"{value:.3f}")
        lines.append(f"| {key.replace('_', ' ')} | " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: evaluate one model choice on case files and print the figures as JSON."""
    logging.basicConfig(level=os.environ.get("VEIL_LOG_LEVEL", "ERROR"))
    parser = argparse.ArgumentParser(prog="python -m bench.adapter", description=__doc__)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--adapter", type=Path, help="a GGUF LoRA adapter file")
    group.add_argument("--no-adapter", action="store_true", help="the embedded model alone")
    group.add_argument("--no-llm", action="store_true", help="rule-based only")
    parser.add_argument("--cases", type=Path, nargs="*", help="case JSONL files")
    parser.add_argument("--limit", type=int, help="first N cases of each file")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.no_llm:
        model = None
    else:
        from agent.backends import default_adapter_path

        adapter = args.adapter or (None if args.no_adapter else default_adapter_path())
        model = embedded(adapter)
    if args.cases:
        sets = {}
        for path in args.cases:
            with path.open(encoding="utf-8") as handle:
                sets[path.stem] = [json.loads(line) for line in handle if line.strip()]
    else:
        sets = {"dev": load_dev()}
    if args.limit:
        sets = {k: v[: args.limit] for k, v in sets.items()}
    print(json.dumps(evaluate(model, sets), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
