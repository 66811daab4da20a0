"""A peft LoRA adapter written as llama.cpp's GGUF LoRA file, for `Llama(lora_path=...)`.

The layout follows llama.cpp's convert_lora_to_gguf.py: `general.type = adapter`,
`adapter.type = lora`, `adapter.lora.alpha`, and per projection two tensors named after the
base tensor, `blk.N.attn_q.weight.lora_a` (peft's A, numpy shape (rank, in)) and `.lora_b`
(peft's B, (out, rank)). llama.cpp stores attn_q/attn_k rows permuted for its rotary layout
(transformers un-permutes them when it reads the GGUF), so B of q and k gets the same
permutation; A is untouched. llama.cpp scales by alpha / rank, as peft does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from training.errors import ExportError

# peft module name -> llama.cpp tensor name
TENSOR_NAMES = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
}


def base_header(gguf_path: Path) -> dict[str, Any]:
    """The few base-model keys the export needs: architecture and head counts."""
    import gguf

    reader = gguf.GGUFReader(str(gguf_path))

    def value(key: str) -> Any:
        field = reader.fields.get(key)
        if field is None:
            raise ExportError(f"{gguf_path} has no {key}; is it a llama-architecture GGUF?")
        return field.contents()

    arch = str(value("general.architecture"))
    return {
        "architecture": arch,
        "n_head": int(value(f"{arch}.attention.head_count")),
        "n_head_kv": int(value(f"{arch}.attention.head_count_kv")),
    }


def permute_rows(weights: np.ndarray, n_head: int, n_head_kv: int | None = None) -> np.ndarray:
    """llama.cpp's q/k row order (convert_hf_to_gguf's LlamaModel.permute) for a 2-D matrix."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    rows = weights.shape[0]
    return (
        weights.reshape(n_head, 2, rows // n_head // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def _parse_name(key: str) -> tuple[int, str, str] | None:
    """(layer, module, "A"|"B") from a peft key like
    base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight."""
    parts = key.split(".")
    if "layers" not in parts or not key.endswith(".weight"):
        return None
    layer = int(parts[parts.index("layers") + 1])
    module, which = parts[-3], parts[-2]
    if module not in TENSOR_NAMES or which not in ("lora_A", "lora_B"):
        return None
    return layer, module, which[-1]


def export_adapter(
    adapter_dir: Path, base_gguf: Path, out_path: Path, *, dtype: str = "f16"
) -> dict[str, Any]:
    """Write `out_path` from a peft folder (adapter_config.json + adapter_model.safetensors).

    Returns a summary: tensor count, rank, alpha, bytes.
    """
    import gguf
    from safetensors.numpy import load_file

    config_path = adapter_dir / "adapter_config.json"
    weights_path = adapter_dir / "adapter_model.safetensors"
    if not config_path.is_file() or not weights_path.is_file():
        raise ExportError(f"{adapter_dir} is not a peft adapter folder (no config or weights)")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    alpha, rank = float(config["lora_alpha"]), int(config["r"])
    header = base_header(base_gguf)
    state = load_file(str(weights_path))
    pairs: dict[tuple[int, str], dict[str, np.ndarray]] = {}
    for key, tensor in state.items():
        parsed = _parse_name(key)
        if parsed is None:
            raise ExportError(f"unexpected tensor {key!r}: only q/k/v/o LoRA can be exported")
        layer, module, which = parsed
        pairs.setdefault((layer, module), {})[which] = tensor.astype(np.float32)
    if not pairs:
        raise ExportError(f"{weights_path} holds no LoRA tensors")
    numpy_dtype = np.float16 if dtype == "f16" else np.float32
    writer = gguf.GGUFWriter(str(out_path), header["architecture"])
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
    for (layer, module), ab in sorted(pairs.items()):
        if set(ab) != {"A", "B"}:
            raise ExportError(f"layer {layer} {module}: lora_A or lora_B is missing")
        lora_a, lora_b = ab["A"], ab["B"]
        if module == "q_proj":
            lora_b = permute_rows(lora_b, header["n_head"], header["n_head"])
        elif module == "k_proj":
            lora_b = permute_rows(lora_b, header["n_head"], header["n_head_kv"])
        name = f"blk.{layer}.{TENSOR_NAMES[module]}.weight"
        writer.add_tensor(f"{name}.lora_a", np.ascontiguousarray(lora_a, dtype=numpy_dtype))
        writer.add_tensor(f"{name}.lora_b", np.ascontiguousarray(lora_b, dtype=numpy_dtype))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {
        "tensors": 2 * len(pairs),
        "rank": rank,
        "alpha": alpha,
        "dtype": dtype,
        "bytes": out_path.stat().st_size,
    }
