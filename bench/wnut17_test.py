"""Convert WNUT-17's test split into ../shared/benchmarks/wnut17_test.jsonl, a sealed privacy set.

Source: leondz/emerging_entities_17 `emerging.test.annotated` at commit e52a2d2a (CC BY 4.0;
Derczynski, Nichols, van Erp, Limsopatham 2017). Tokens are joined by single spaces, as the
train and dev files in ../shared/benchmarks are, so one reader serves all three. Nothing is
fitted on it: bench/privacy.py reads it as a number. Converted data lives beside the other
third-party sets in ../shared, never in this repository. Fetch the mirror first
(`fetch github:leondz/emerging_entities_17`), then `python -m bench.wnut17_test`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MIRROR = Path("/work/.mirror/leondz+emerging_entities_17/repo")
COMMIT = "e52a2d2a71ac1a051ca2d532eef28653c5c02603"
SOURCE_PATH = "emerging.test.annotated"
OUT = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "wnut17_test.jsonl"


def convert(conll: str) -> list[dict]:
    """CoNLL token/tag blocks -> records with character spans over the space-joined text."""
    records: list[dict] = []
    for block in conll.strip().split("\n\n"):
        tokens, tags = [], []
        for line in block.splitlines():
            if not line.strip():
                continue
            token, _, tag = line.rpartition("\t")
            tokens.append(token)
            tags.append(tag.strip())
        text, entities, position = "", [], 0
        current: dict | None = None
        for token, tag in zip(tokens, tags, strict=True):
            text += ("" if not text else " ") + token
            start = len(text) - len(token)
            position = len(text)
            if tag.startswith("B-") or (tag.startswith("I-") and current is None):
                current = {"type": tag[2:], "start": start, "end": position}
                entities.append(current)
            elif tag.startswith("I-") and current is not None:
                current["end"] = position
            else:
                current = None
        for entity in entities:
            entity["text"] = text[entity["start"] : entity["end"]]
        records.append(
            {
                "id": f"wnut17-test-{len(records):05d}",
                "split": "test",
                "text": text,
                "entities": entities,
                "source": f"leondz/emerging_entities_17:{SOURCE_PATH}@{COMMIT}",
            }
        )
    return records


def main() -> int:
    conll = subprocess.run(
        [
            "git",
            f"--git-dir={MIRROR}/.git" if (MIRROR / ".git").exists() else f"--git-dir={MIRROR}",
            "show",
            f"{COMMIT}:{SOURCE_PATH}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    records = convert(conll)
    with OUT.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    people = sum(e["type"] == "person" for r in records for e in r["entities"])
    print(f"{len(records)} posts, {people} people -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
