"""Copy the tables in bench/results/ into docs/benchmarks.md, between its benchmark markers.

The README keeps a few headline figures only; this page holds every table.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench import BENCHMARKS
from bench.common import RESULTS

PAGE = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def main() -> None:
    """Rewrite the benchmark page's tables from the latest result files."""
    parts = []
    for name in BENCHMARKS:
        # A benchmark may write more than one table: NAME.md, then NAME_*.md (e.g. ics_hostile).
        for path in [RESULTS / f"{name}.md", *sorted(RESULTS.glob(f"{name}_*.md"))]:
            if path.exists():
                text = path.read_text(encoding="utf-8").strip()
                # Result files start at heading level 1-3; each is a section of the page.
                parts.append(re.sub(r"^#{1,3} ", "## ", text, flags=re.M))
    page = PAGE.read_text(encoding="utf-8")
    if START not in page or END not in page:
        raise ValueError(f"{PAGE} needs the markers {START} and {END}")
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{START}\n\n" + "\n\n".join(parts) + f"\n\n{END}{tail}", "utf-8")


if __name__ == "__main__":
    main()
