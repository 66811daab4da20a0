"""Times a helper wrote blind: is a clock the writer turns down read as turned down?

Run: .venv/bin/python -m bench.time_roles [PATH] (writes bench/results/time_roles.md).

`bench/data/time_roles_sealed.jsonl` holds messages in six languages, written and labelled by a
helper who saw no code: each clock in a message is `offered`, `turned_down` or `other`. Three
readers are scored on the same mentions in the same run, spanned as Veil's time parser finds
them: the time-role head (`understanding/time_roles.py`), the refusal phrases that read clocks
before it (`lang/data/acts.toml` [decline_before] right before the clock, [decline_after] right
after it), and either of the two, which the rule linker ships. Missing a refusal lets a refused
time become an event; a real start read as refused is lost. Milliseconds are per mention, the
median of three passes.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

from bench.common import write_table
from lang.frequency import LANGUAGES
from training.time_roles import SEALED, sealed_rows, span_args


def _cells(pairs: list[tuple[bool, bool]]) -> list[str]:
    called = [gold for gold, said in pairs if said]
    gold = sum(g for g, _ in pairs)
    right = sum(called)
    precision = f"{right / len(called):.3f} ({right}/{len(called)})" if called else "–"
    recall = f"{right / gold:.3f} ({right}/{gold})" if gold else "–"
    return [precision, recall]


def main(argv: list[str] | None = None) -> None:
    from understanding.time_roles import turned_down

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=SEALED)
    args = parser.parse_args(argv)
    rows = sealed_rows(args.path)
    head, tables, seconds = [], [], []
    for _ in range(3):
        began = time.perf_counter()
        head = [turned_down(*span_args(r)) for r in rows]
        seconds.append(time.perf_counter() - began)
    from agent.extraction.rule_linker import refused_by_phrases

    tables = [refused_by_phrases(r["text"], *r["mention"], r["language"]) for r in rows]
    shipped = [a or b for a, b in zip(head, tables, strict=True)]
    gold = [r["role"] == "turned_down" for r in rows]
    out = []
    for lang in ("all", *LANGUAGES):
        keep = [i for i, r in enumerate(rows) if lang == "all" or r["lang"] == lang]
        if not keep:
            continue
        out.append(
            [
                lang,
                str(len(keep)),
                str(sum(gold[i] for i in keep)),
                *_cells([(gold[i], head[i]) for i in keep]),
                *_cells([(gold[i], tables[i]) for i in keep]),
                *_cells([(gold[i], shipped[i]) for i in keep]),
            ]
        )
    per_mention = statistics.median(seconds) / max(len(rows), 1) * 1000
    write_table(
        "time_roles",
        "Clocks a writer turns down (blind set): the time-role head against the phrase tables",
        [
            "language",
            "clock mentions",
            "turned down (gold)",
            "head precision",
            "head recall",
            "tables precision",
            "tables recall",
            "either (shipped) precision",
            "either (shipped) recall",
        ],
        out,
        notes=[
            f"{len(rows)} clock mentions from `{args.path.name}`, written and labelled by a helper "
            "who saw no code; read once per change of the head, never to choose anything. "
            f"Head: {per_mention:.2f} ms a mention (median of three passes).",
            re.sub(r"\s+", " ", __doc__.split("\n\n")[2]),
        ],
    )


if __name__ == "__main__":
    main()
