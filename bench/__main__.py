"""Run every benchmark in turn; each writes its table to bench/results/."""

from __future__ import annotations

import importlib
import sys

from bench import BENCHMARKS
from bench.readme import main as update_readme


def main() -> int:
    """Run the named benchmarks (default all); a missing one is reported, not skipped silently."""
    chosen = [f"bench.{n}" for n in sys.argv[1:] or BENCHMARKS]
    failed = []
    for name in chosen:
        print(f"== {name}", flush=True)
        try:
            importlib.import_module(name).main()
        except Exception as error:  # one broken benchmark must not hide the others' figures
            print(f"{name} failed: {error!r}", file=sys.stderr)
            failed.append(name)
    update_readme()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
