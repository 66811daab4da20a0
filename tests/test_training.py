"""Eval-gated fine-tuning: data, pairs through the real agent, a two-step LoRA run, GGUF
export loaded by llama.cpp, agreement with PyTorch, evaluation and the gate (issue 8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.prompts import load_prompt
from training import gate
from training.dataset import TEMPLATES, generate, render_case, split_of


# ------------------------------------------------------------------------------ data
def test_cases_are_deterministic_and_split_by_template() -> None:
    first = generate({"train": 20, "dev": 4, "test": 10}, seed=3)
    again = generate({"train": 20, "dev": 4, "test": 10}, seed=3)
    assert first == again
    templates = {split: {c["template"] for c in cases} for split, cases in first.items()}
    assert not templates["train"] & templates["test"]
    assert not templates["train"] & templates["dev"]
    for case in first["test"]:
        assert TEMPLATES[case["template"]][1] == "test"
    # held-out people too: a test name never appears in a training thread
    train_text = " ".join(c["thread"] + c["request"] for c in first["train"])
    assert not any(name in train_text for c in first["test"] for name in c["pii"])


@pytest.mark.guard_catches  # the teacher screens a gold title that names someone, by design
def test_a_gold_title_with_a_name_gets_the_turns_placeholder() -> None:
    from agent.model import GenerationOptions, Message
    from bench.pairs import TeacherModel
    from bench.train import sgd_cases
    from privacy import EntityMap

    # SGD names events after people ("Erica Fernandez concert"); the teacher screens its title
    [case] = [c for c in sgd_cases("train", 400) if "Erica" in c["answer"]["events"][0]["title"]]
    entity_map = EntityMap()
    placeholder = entity_map.placeholder_for("PERSON", "Erica Fernandez")
    teacher = TeacherModel()
    teacher.begin(case, entity_map)
    prompt = "T1: 'at 18:30' in: ...\n1. Concert (suggested time T1)"
    answer = "".join(
        piece
        for piece in teacher.generate(
            [Message("user", prompt)], options=GenerationOptions(schema_name="link")
        )
        if isinstance(piece, str)
    )
    assert "Erica" not in answer and placeholder in answer


def test_a_case_has_the_bench_shape_and_a_gold_answer() -> None:
    case = render_case("moved-actually", 0, seed=1)
    assert set(case) >= {"id", "now", "tz", "request", "thread", "calendar", "gold", "tags", "pii"}
    (event,) = case["gold"]["events"]
    (answer,) = case["answer"]["events"]
    assert answer["time_text"] in case["thread"]  # the agreed (second) time
    assert event["title_keywords"]
    assert split_of("39_00040") == split_of("39_00040")


def test_pairs_are_rendered_through_the_agents_own_prompts() -> None:
    from bench.pairs import render_pairs

    # timed-invite puts the place before the time: code's title is wrong, so the model is asked
    cases = [render_case("timed-invite", i, seed=5) for i in range(4)]
    cases.append(render_case("vague-day", 0, seed=5))
    pairs = render_pairs(cases)
    assert {"plan", "reply", "link"} <= {p["purpose"] for p in pairs}
    names = [name for case in cases for name in case["pii"]]
    for pair in pairs:
        prompt = load_prompt(pair["purpose"])
        system = pair["messages"][0]["content"]
        fixed = prompt["system"].split("Tools:")[0].replace("{{", "{").replace("}}", "}")
        assert system.startswith(fixed)
        text = json.dumps(pair["messages"], ensure_ascii=False) + pair["response"]
        assert not [n for n in names if n in text], "a real name reached a training pair"
        if pair["purpose"] != "reply":
            json.loads(pair["response"])
    by_id = {case["id"]: case for case in cases}
    for link in (p for p in pairs if p["purpose"] == "link"):
        title = json.loads(link["response"])["events"][0]["title"]
        assert title.startswith(by_id[link["case"]]["answer"]["events"][0]["title"])


# ------------------------------------------------------------------------------ the gate
FIGURES = {
    "validity": 1.0,
    "event_f1": 0.9,
    "start_exact_recall": 0.9,
    "no_event_accuracy": 1.0,
    "clarification_recall": 1.0,
}


def _figures(**changes: float) -> dict[str, dict[str, float]]:
    return {"all": {**FIGURES, **changes}, "test": {**FIGURES, **changes}}


@pytest.mark.parametrize(
    ("candidate", "baseline", "promote", "failed"),
    [
        (_figures(), _figures(event_f1=0.88), True, ""),
        (_figures(), None, True, ""),
        (_figures(event_f1=0.89), _figures(), False, "event_f1"),  # a regression
        (_figures(validity=0.9), _figures(validity=0.8), False, "floor validity"),  # a floor
    ],
)
def test_gate_needs_floors_and_no_regression(
    candidate: Any, baseline: Any, promote: bool, failed: str
) -> None:
    verdict = gate.judge(candidate, baseline)
    assert verdict.promote is promote
    assert all(failed in line for line in verdict.failures)
    if not promote:
        assert failed in verdict.report()


def test_promote_writes_adapter_and_manifest_together(tmp_path: Path) -> None:
    candidate = tmp_path / "new.gguf"
    candidate.write_bytes(b"GGUF adapter bytes")
    shipped = tmp_path / "adapter"
    target = gate.promote(candidate, shipped, {"seed": 0, "metrics": {"all": FIGURES}})
    manifest = gate.read_manifest(shipped)
    assert target.read_bytes() == b"GGUF adapter bytes"
    assert manifest is not None and manifest["adapter_sha256"] == gate.sha256_file(target)
    report = tmp_path / "report.md"
    gate.discard(candidate, report, gate.judge(_figures(event_f1=0.1), None), {})
    assert not candidate.exists() and "DISCARD" in report.read_text()
    assert target.exists()  # a discarded candidate never touches the shipped adapter


# ------------------------------------------------------------------------------ default adapter
def test_embedded_model_uses_the_shipped_adapter_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.backends as backends
    from agent.backends import embedded_model_path

    adapter = tmp_path / "veil-lora.gguf"
    adapter.write_bytes(b"GGUF")
    monkeypatch.setattr(backends, "ADAPTER_FILE", adapter)
    assert backends.select_model().lora_path == str(adapter)  # type: ignore[union-attr]
    assert backends.select_model(no_adapter=True).lora_path is None  # type: ignore[union-attr]
    # a model file of the user's own never gets Veil's adapter
    other = backends.select_model(model_path=embedded_model_path(), no_adapter=False)
    assert other.lora_path is None  # type: ignore[union-attr]


def test_no_adapter_reaches_the_model_from_the_flag_or_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """run.py and create_app read --no-adapter / VEIL_NO_ADAPTER; the model is built without it."""
    import run
    from agent.backends import default_adapter_path
    from web import create_app

    monkeypatch.delenv("VEIL_NO_ADAPTER", raising=False)
    parse = run.build_parser().parse_args
    assert run._model_choice(parse(["ask", "--no-adapter", "hi"]))["no_adapter"] is True
    assert run._model_choice(parse(["ask", "hi"]))["no_adapter"] is False
    monkeypatch.setenv("VEIL_NO_ADAPTER", "1")
    assert run._model_choice(parse(["serve"]))["no_adapter"] is True
    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "CHECK_MODEL": False}
    app = create_app(config)  # VEIL_NO_ADAPTER=1 in the environment
    assert app.extensions["assistant"].gateway.model.lora_path is None
    monkeypatch.delenv("VEIL_NO_ADAPTER")
    app = create_app(config)
    shipped = default_adapter_path()
    assert app.extensions["assistant"].gateway.model.lora_path == (
        str(shipped) if shipped else None
    )


# ------------------------------------------------------------------------------ the smoke run
@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every stage once: data, pairs, 2 LoRA steps, export, llama.cpp load, eval, gate."""
    from bench.train import SMOKE, run

    work = tmp_path_factory.mktemp("train")
    summary = run(SMOKE, seed=0, work=work, shipped=work / "shipped", keep_model=True)
    summary["work"] = work
    return summary


def test_smoke_run_trains_exports_and_gates(smoke: dict[str, Any]) -> None:
    work: Path = smoke["work"]
    manifest = smoke["manifest"]
    assert manifest["training"]["steps"] == 2
    assert len(manifest["base_model_sha256"]) == 64 and len(manifest["data_sha256"]) == 64
    assert set(manifest["metrics"]["all"]) >= set(gate.GATED)
    assert "candidate" in smoke["figures"] and "no-adapter" in smoke["figures"]
    if smoke["promoted"]:
        assert gate.read_manifest(work / "shipped") is not None
    else:
        assert "DISCARD" in (work / "gate-report.md").read_text()
        assert not (work / "shipped" / gate.ADAPTER_NAME).exists()


def test_export_is_llama_cpp_lora_and_agrees_with_pytorch(smoke: dict[str, Any]) -> None:
    import gguf

    exported = smoke["manifest"]["export"]
    assert exported["tensors"] == 4 * 30 * 2 and exported["rank"] == 16
    peft_dir = smoke["work"] / "peft"
    assert (peft_dir / "adapter_model.safetensors").exists()
    # The candidate file is deleted on discard; re-export to read its header.
    from agent.backends import embedded_model_path
    from training.export import export_adapter

    path = smoke["work"] / "check.gguf"
    export_adapter(peft_dir, embedded_model_path(), path)
    reader = gguf.GGUFReader(str(path))
    assert reader.fields["general.type"].contents() == "adapter"
    assert reader.fields["adapter.type"].contents() == "lora"
    assert reader.fields["adapter.lora.alpha"].contents() == 32.0
    shapes = {t.name: tuple(int(n) for n in t.shape) for t in reader.tensors}
    assert shapes["blk.0.attn_q.weight.lora_a"] == (576, 16)  # ggml order: (in, rank)
    assert shapes["blk.0.attn_k.weight.lora_b"] == (16, 192)  # (rank, out)
    agreement = smoke["manifest"]["agreement"]
    assert agreement["first_token_agree"] >= agreement["prompts"] - 1


def test_a_strong_adapter_moves_llama_cpp_exactly_as_it_moves_pytorch(
    smoke: dict[str, Any],
) -> None:
    """Two training steps barely move the weights, so agreement alone proves little: give
    LoRA B large random values, export, and compare logits position by position. A wrong
    tensor layout or q/k permutation leaves llama.cpp as far from PyTorch as no adapter."""
    import numpy as np
    import torch
    from llama_cpp import Llama

    from agent.backends import embedded_model_path
    from training.export import export_adapter
    from training.finetune import prompt_text

    peft_model, tokenizer = smoke["model"]
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.03)
    folder = smoke["work"] / "strong"
    peft_model.save_pretrained(str(folder))
    adapter = smoke["work"] / "strong.gguf"
    export_adapter(folder, embedded_model_path(), adapter)
    messages = [
        {"role": "system", "content": load_prompt("link")["system"]},
        {"role": "user", "content": "Times found:\nT1: 'friday at 3pm'\n\nEvents:\n1. Quiz"},
    ]
    ids = tokenizer(prompt_text(tokenizer, messages), add_special_tokens=False)["input_ids"]
    peft_model.eval()
    with torch.no_grad():
        adapted = peft_model(input_ids=torch.tensor([ids])).logits[0].numpy()

    def llama_logits(lora: Path | None) -> np.ndarray:
        llama = Llama(
            model_path=str(embedded_model_path()),
            n_ctx=512,
            lora_path=str(lora) if lora else None,
            logits_all=True,
            verbose=False,
        )
        llama.eval(ids)
        return np.array(llama.scores[: len(ids)])

    with_adapter = np.abs(llama_logits(adapter) - adapted).mean()
    without = np.abs(llama_logits(None) - adapted).mean()
    assert with_adapter < 0.6 * without, (with_adapter, without)
