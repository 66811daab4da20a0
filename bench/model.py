"""Embedded model on this machine: load time, first-token latency, tokens per second."""

from __future__ import annotations

from agent.backends import embedded_model_path
from agent.backends.llama_cpp import LlamaCppModel
from agent.gateway import ModelGateway
from agent.model import GenerationOptions, Message
from agent.planner import plan_schema
from bench.common import median, write_table
from privacy import EntityMap, PrivacyGuard

PLAN_SCHEMA = plan_schema(["extract_events", "create_event", "draft_reply"])
USER = "<PERSON_1> asked for lunch next Thursday at 1 at Blue Bottle. Draft a reply."


def prompt(run: int) -> list[Message]:
    """A prompt whose first token differs per run, so llama.cpp cannot reuse a cached prefix."""
    return [
        Message("system", f"Session {run}. You are a helpful assistant. Answer briefly."),
        Message("user", USER),
    ]


def main(repeat: int = 5) -> None:
    """Measure and write bench/results/model.md."""
    path = embedded_model_path()
    models = [LlamaCppModel(path, n_ctx=4096) for _ in range(3)]
    loads = []
    for model in models:
        model.load()
        loads.append(model.load_seconds or 0.0)
    gateway = ModelGateway(models[-1])
    guard = PrivacyGuard(EntityMap())
    rows = []
    for label, options in (
        ("free text, 64 tokens", GenerationOptions(max_tokens=64)),
        ("JSON schema (plan)", GenerationOptions(max_tokens=64, json_schema=PLAN_SCHEMA)),
    ):
        firsts, rates = [], []
        for run in range(repeat):
            done = gateway.complete(prompt(run), guard=guard, purpose="bench", options=options)
            decode_s = (done.ms - (done.first_token_ms or 0.0)) / 1000
            firsts.append(done.first_token_ms or 0.0)
            if done.completion_tokens > 1 and decode_s > 0:
                rates.append((done.completion_tokens - 1) / decode_s)
        rows.append([label, f"{median(firsts):.0f} ms", f"{median(rates):.1f} tokens/s"])
    write_table(
        "model",
        "Embedded model (SmolLM2-135M-Instruct Q4_1, llama.cpp in-process)",
        ["measure", "first token", "decode speed"],
        [["load (median of 3)", f"{median(loads):.2f} s", "—"], *rows],
        [
            f"Median of {repeat} generations each, a fresh prompt each time (no prefix cache); "
            f"prompt of {sum(len(m.content) for m in prompt(0))} characters; temperature 0."
        ],
    )


if __name__ == "__main__":
    main()
