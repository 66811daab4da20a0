"""Copy the tables in bench/results/ into the README, between its benchmark markers."""

from __future__ import annotations

import re
from pathlib import Path

from bench import BENCHMARKS
from bench.common import RESULTS

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def main() -> None:
    """Rewrite the README's benchmark section from the latest result files."""
    parts = []
    for name in BENCHMARKS:
        # A benchmark may write more than one table: NAME.md, then NAME_*.md (e.g. ics_hostile).
        for path in [RESULTS / f"{name}.md", *sorted(RESULTS.glob(f"{name}_*.md"))]:
            if path.exists():
                text = path.read_text(encoding="utf-8").strip()
                # Result files start at heading level 1-3; nest them under the README's section.
                parts.append(re.sub(r"^#{1,3} ", "#### ", text, flags=re.M))
    readme = README.read_text(encoding="utf-8")
    if START not in readme or END not in readme:
        raise ValueError(f"README.md needs the markers {START} and {END}")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n\n" + "\n\n".join(parts) + f"\n\n{END}{tail}", "utf-8")


if __name__ == "__main__":
    main()
