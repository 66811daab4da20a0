"""`make train`: data -> pairs -> LoRA fine-tune -> GGUF export -> agreement -> eval -> gate.

Run: .venv/bin/python -m bench.train [--smoke] [--seed N] [--max-steps N] [--table]

Every stage writes into --work (default training/build/, git-ignored); only the gate writes
into training/adapter/, and only when the candidate clears it. --smoke is the CI version: a
handful of cases and pairs, two optimiser steps, the same stages end to end.

The loop lives in bench/ because pairs and evaluation drive the real agent, and training/ may
import only memory and privacy (STYLE.md); training/ holds the stages that need no agent.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger("bench.train")

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "training" / "build"
SHIPPED = ROOT / "training" / "adapter"
SGD_LICENCE = (
    "CC BY-SA 4.0; derived from google-research-datasets/dstc8-schema-guided-dialogue "
    "(Rastogi et al., AAAI 2020) via ../shared/benchmarks/sgd_calendar_add_events.jsonl"
)


@dataclass(frozen=True)
class Profile:
    """How much of everything one run uses."""

    train_cases: int  # synthetic cases over the train templates
    gate_cases: int  # synthetic cases over the test templates
    sgd_train: int  # SGD threads from train dialogues (0 = none)
    sgd_gate: int  # SGD threads from test dialogues
    dev_cases: int  # the first N hand-written cases of bench/data/agent_dev.jsonl (measured only)
    link_pairs: int  # linking + titling: the model's main job
    plan_pairs: int  # plan prompts are ~700 tokens (the tool catalogue): a small sample
    reply_pairs: int
    batch_tokens: int
    max_steps: int | None
    epochs: float


# Sized for <= 90 minutes on 2 cores shared with other work: ~110k training tokens, then
# 64 gated turns for the candidate and for the baseline.
FULL = Profile(
    train_cases=1000, gate_cases=28, sgd_train=120, sgd_gate=16, dev_cases=20, link_pairs=300,
    plan_pairs=40, reply_pairs=30, batch_tokens=2048, max_steps=None, epochs=1.0,
)  # fmt: skip
# CI: every stage, on a few short pairs and one gated turn a model.
SMOKE = Profile(
    train_cases=10, gate_cases=1, sgd_train=0, sgd_gate=0, dev_cases=0, link_pairs=4,
    plan_pairs=0, reply_pairs=1, batch_tokens=600, max_steps=2, epochs=1.0,
)  # fmt: skip


def _log(stage: str, **figures: Any) -> None:
    logger.info("%s %s", stage, json.dumps(figures, default=str))


def sgd_cases(split: str, limit: int) -> list[dict[str, Any]]:
    """SGD AddEvent threads of one split (by dialogue id), in bench.agent's case shape."""
    from bench.agent import SGD, sgd_case
    from training.dataset import split_of

    if limit <= 0:
        return []
    out = []
    with SGD.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if split_of(record["dialogue_id"]) != split:
                continue
            case = sgd_case(record)
            name = record["event"]["event_name"]
            case["answer"] = {
                "intent": "schedule",
                "events": [{"title": name[:1].upper() + name[1:], "time_text": ""}],
            }
            case.update(source="sgd", split=split, template="sgd", licence=SGD_LICENCE)
            out.append(case)
            if len(out) >= limit:
                break
    return out


def build_data(profile: Profile, seed: int, work: Path) -> dict[str, Path]:
    """Cases for training and for the gate, written under `work`; SGD kept in its own files."""
    from training.dataset import generate, write_jsonl

    synthetic = generate({"train": profile.train_cases, "test": profile.gate_cases}, seed=seed)
    files = {
        "synthetic-train": work / "cases-synthetic-train.jsonl",
        "synthetic-test": work / "cases-synthetic-test.jsonl",
        "sgd-train": work / "sgd" / "cases-sgd-train.jsonl",
        "sgd-test": work / "sgd" / "cases-sgd-test.jsonl",
    }
    write_jsonl(files["synthetic-train"], synthetic["train"])
    write_jsonl(files["synthetic-test"], synthetic["test"])
    write_jsonl(files["sgd-train"], sgd_cases("train", profile.sgd_train))
    write_jsonl(files["sgd-test"], sgd_cases("test", profile.sgd_gate))
    (work / "sgd" / "ATTRIBUTION.txt").write_text(SGD_LICENCE + "\n", encoding="utf-8")
    return files


def build_pairs(
    files: dict[str, Path], profile: Profile, seed: int, work: Path
) -> tuple[list[dict[str, Any]], dict[str, Path]]:
    """Render pairs through the real agent, keep the certain ones, cap the long kinds."""
    from bench.pairs import render_pairs
    from training.dataset import read_jsonl, write_jsonl

    rng = random.Random(seed)
    out: dict[str, Path] = {}
    chosen: list[dict[str, Any]] = []
    for source, key, target in (
        ("synthetic", "synthetic-train", work / "pairs-synthetic.jsonl"),
        ("sgd", "sgd-train", work / "sgd" / "pairs-sgd.jsonl"),
    ):
        pairs = [p for p in render_pairs(read_jsonl(files[key])) if p["certain"]]
        if source == "sgd":
            for pair in pairs:
                pair["licence"] = SGD_LICENCE
        write_jsonl(target, pairs)
        out[source] = target
        chosen.extend(pairs)
    links = [p for p in chosen if p["purpose"] == "link"]
    plans = [p for p in chosen if p["purpose"] == "plan"]
    replies = [p for p in chosen if p["purpose"] == "reply"]
    for kind in (links, plans, replies):
        rng.shuffle(kind)
    selected = (
        links[: profile.link_pairs] + plans[: profile.plan_pairs] + replies[: profile.reply_pairs]
    )
    _log("pairs", rendered=dict(Counter(p["purpose"] for p in chosen)),
         selected=dict(Counter(p["purpose"] for p in selected)))  # fmt: skip
    return selected, out


def agreement(peft_model: Any, tokenizer: Any, base_gguf: Path, adapter: Path) -> dict[str, Any]:
    """Greedy first tokens of the PyTorch PEFT model and of llama.cpp with the GGUF adapter."""
    import torch
    from llama_cpp import Llama

    from training.finetune import prompt_text

    peft_model.eval()
    llama = Llama(model_path=str(base_gguf), n_ctx=1024, lora_path=str(adapter), verbose=False)
    prompts = [
        [{"role": "system", "content": "You link times to events. Answer with JSON only."},
         {"role": "user", "content": "Times found:\nT1: 'friday at 3pm'\n\nEvents:\n1. "
                                     "Book club with <PERSON_1> (suggested time T1)"}],
        [{"role": "user", "content": "Say hello to <PERSON_2>."}],
        [{"role": "system", "content": "You plan steps."},
         {"role": "user", "content": "Request: add the pottery class sunday at 4pm"}],
    ]  # fmt: skip
    same = 0
    details = []
    for messages in prompts:
        ids = tokenizer(prompt_text(tokenizer, messages), add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            out = peft_model.generate(
                torch.tensor([ids]), max_new_tokens=4, do_sample=False, pad_token_id=2
            )
        torch_tokens = out[0][len(ids) :].tolist()
        llama.reset()
        cpp_tokens = []
        for token in llama.generate(ids, temp=0.0, top_k=1, reset=True):
            cpp_tokens.append(int(token))
            if len(cpp_tokens) == len(torch_tokens) or token == llama.token_eos():
                break
        first_same = bool(torch_tokens[:1] == cpp_tokens[:1])
        same += first_same
        details.append({"torch": torch_tokens, "llama_cpp": cpp_tokens, "first_same": first_same})
    return {"prompts": len(prompts), "first_token_agree": same, "details": details}


def run(
    profile: Profile,
    *,
    seed: int,
    work: Path,
    shipped: Path,
    table: bool = False,
    max_steps: int | None = None,
    keep_model: bool = False,
) -> dict[str, Any]:
    """The whole loop; returns the run's summary (also written to work/summary.json).

    `keep_model` leaves the trained (peft model, tokenizer) in the summary under "model",
    for checks that need it in memory.
    """
    from agent.backends import embedded_model_path
    from bench.adapter import embedded, evaluate
    from training import gate
    from training.dataset import data_hash, read_jsonl
    from training.export import export_adapter
    from training.finetune import FinetuneConfig, finetune, load_base, peak_rss_mb

    started = time.perf_counter()
    work.mkdir(parents=True, exist_ok=True)
    base_gguf = embedded_model_path()
    files = build_data(profile, seed, work)
    pairs, pair_files = build_pairs(files, profile, seed, work)
    stage_data = time.perf_counter() - started
    config = FinetuneConfig(
        seed=seed,
        epochs=profile.epochs,
        batch_tokens=profile.batch_tokens,
        max_steps=max_steps if max_steps is not None else profile.max_steps,
    )
    loading = time.perf_counter()
    base = load_base(base_gguf)
    load_seconds = time.perf_counter() - loading
    result = finetune(pairs, base_gguf, work / "peft", config, base=base,
                      on_step=lambda s, n, loss: _log("step", step=s, of=n, loss=loss))  # fmt: skip
    candidate = work / gate.ADAPTER_NAME
    exported = export_adapter(result.adapter_dir, base_gguf, candidate)
    agree = agreement(result.model, base[1], base_gguf, candidate)
    _log("export", **exported, agreement=agree["first_token_agree"])
    kept = (result.model, base[1]) if keep_model else None
    del base, result.model

    gate_sets = {
        "synthetic-test": read_jsonl(files["synthetic-test"]),
        "sgd-test": read_jsonl(files["sgd-test"]),
    }
    eval_files = [files["synthetic-test"], files["sgd-test"]]
    if profile.dev_cases:
        from bench.agent import DEV, load_dev

        gate_sets["dev"] = load_dev(profile.dev_cases)
        eval_files.append(DEV)
    gate_sets = {k: v for k, v in gate_sets.items() if v}
    eval_started = time.perf_counter()
    figures = {"candidate": evaluate(embedded(candidate), gate_sets)}
    manifest_before = gate.read_manifest(shipped)
    baseline_name = "shipped" if manifest_before else "no-adapter"
    baseline_adapter = shipped / gate.ADAPTER_NAME if manifest_before else None
    figures[baseline_name] = evaluate(embedded(baseline_adapter), gate_sets)
    if table:
        if baseline_name != "no-adapter":
            figures["no-adapter"] = evaluate(embedded(None), gate_sets)
        figures["no-llm"] = evaluate(None, gate_sets)
    eval_seconds = time.perf_counter() - eval_started
    gated = {
        mode: {name: {k: v for k, v in m.items() if k != "missed"} for name, m in sets.items()}
        for mode, sets in figures.items()
    }
    verdict = gate.judge(gated["candidate"], gated[baseline_name])
    if agree["first_token_agree"] < agree["prompts"] - 1:
        verdict.promote = False
        verdict.failures.append(f"llama.cpp and PyTorch disagree: {agree['details']}")
    manifest = {
        "base_model": base_gguf.name,
        "base_model_sha256": gate.sha256_file(base_gguf),
        "data_sha256": data_hash([pair_files["synthetic"], pair_files["sgd"]]),
        "eval_sha256": data_hash(eval_files),
        "seed": seed,
        "config": config.to_dict(),
        "pairs": dict(Counter(p["purpose"] for p in pairs)),
        "sources": {"synthetic": "Veil templates (training/dataset.py)", "sgd": SGD_LICENCE},
        "training": {
            "steps": result.steps,
            "examples": result.examples,
            "seconds": round(result.seconds, 1),
            "load_seconds": round(load_seconds, 1),
            "peak_rss_mb": round(peak_rss_mb(), 1),
            "first_loss": result.losses[0] if result.losses else None,
            "last_loss": result.losses[-1] if result.losses else None,
        },
        "export": exported,
        "agreement": {k: v for k, v in agree.items() if k != "details"},
        "metrics": gated["candidate"],
        "baseline": {"name": baseline_name, "metrics": gated[baseline_name]},
    }
    report_path = work / "gate-report.md"
    if verdict.promote:
        gate.promote(candidate, shipped, manifest)
        report_path.write_text(verdict.report(), encoding="utf-8")
    else:
        gate.discard(candidate, report_path, verdict, figures)
    summary = {
        "promoted": verdict.promote,
        "failures": verdict.failures,
        "figures": figures,
        "manifest": manifest,
        "seconds": {
            "data_and_pairs": round(stage_data, 1),
            "train": round(result.seconds, 1),
            "eval": round(eval_seconds, 1),
            "total": round(time.perf_counter() - started, 1),
        },
    }
    (work / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    if table:
        write_table(figures, summary)
    if kept is not None:
        summary["model"] = kept
    return summary


def write_table(figures: dict[str, Any], summary: dict[str, Any]) -> str:
    """bench/results/training.md: the three model choices on the same sets, same run."""
    from bench.adapter import table
    from bench.common import RESULTS, machine

    order = [k for k in ("no-adapter", "candidate", "shipped", "no-llm") if k in figures]
    columns = {("with adapter" if k == "candidate" else k): figures[k] for k in order}
    train = summary["manifest"]["training"]
    lines = ["### Fine-tuning (bench/train.py)", "", f"Machine: {machine()}.", ""]
    for set_name in next(iter(columns.values())):
        if set_name == "all":
            continue
        lines += [*table(columns, set_name), ""]
    lines += [
        f"Training: {train['steps']} steps on {train['examples']} pairs in "
        f"{train['seconds'] / 60:.1f} min (model load {train['load_seconds']:.0f} s), peak RSS "
        f"{train['peak_rss_mb']:.0f} MiB; whole `make train` {summary['seconds']['total'] / 60:.1f}"
        f" min. Gate: {'promoted' if summary['promoted'] else 'discarded'}.",
    ]
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "training.md").write_text(text, encoding="utf-8")
    readme = ROOT / "docs" / "training.md"  # the README keeps only headline figures
    start, end = "<!-- training:start -->", "<!-- training:end -->"
    current = readme.read_text(encoding="utf-8")
    if start in current and end in current:
        head, rest = current.split(start, 1)
        body = text.replace("### ", "## ", 1)
        readme.write_text(f"{head}{start}\n{body}{end}{rest.split(end, 1)[1]}", "utf-8")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Command line for `make train`."""
    logging.basicConfig(
        level=os.environ.get("VEIL_LOG_LEVEL", "INFO"), format="%(asctime)s %(message)s"
    )
    for noisy in ("agent", "privacy", "tools", "presidio-analyzer", "bench.agent"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(prog="python -m bench.train", description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="tiny data, two steps (CI)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, help="stop training after N steps")
    parser.add_argument("--work", type=Path, default=WORK, help="build folder")
    parser.add_argument("--shipped", type=Path, default=SHIPPED, help="the shipped adapter folder")
    parser.add_argument("--table", action="store_true", help="also measure no-adapter and no-llm")
    args = parser.parse_args(list(argv) if argv is not None else None)
    summary = run(
        SMOKE if args.smoke else FULL,
        seed=args.seed,
        work=args.work,
        shipped=args.shipped,
        table=args.table,
        max_steps=args.max_steps,
    )
    print(json.dumps({k: summary[k] for k in ("promoted", "failures", "seconds")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
