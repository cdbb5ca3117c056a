"""The test files' durations, as a hint for ordering the run (tests/conftest.py), and the script
that writes them again from a `pytest --durations=0` output:

    QT_QPA_PLATFORM=offscreen python -m pytest -q -n auto --dist loadgroup --durations=0 > out.txt
    python tests/durations.py out.txt

The hint is seconds summed over a file's tests (setup, call and teardown). Only their order matters:
the longest files start first, so that no long file starts last and leaves a core idle at the end.

After changing a few files, run only them and keep the other files' figures:

    QT_QPA_PLATFORM=offscreen python -m pytest -q --durations=0 tests/test_x.py > out.txt
    python tests/durations.py --merge out.txt
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HINT = Path(__file__).with_name("durations.json")
_LINE = re.compile(r"([\d.]+)s\s+(?:setup|call|teardown)\s+(tests/[^:\s]+\.py)")


def load() -> dict[str, float]:
    """The stored hint; empty (every file alike, collection order kept) where there is none."""
    try:
        data = json.loads(HINT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def from_output(text: str) -> dict[str, float]:
    seconds: Counter[str] = Counter()
    for match in _LINE.finditer(text):
        seconds[match.group(2)] += float(match.group(1))
    return {name: round(total, 1) for name, total in sorted(seconds.items())}


def main(argv: list[str]) -> None:
    merge = "--merge" in argv
    paths = [a for a in argv if a != "--merge"]
    if len(paths) != 1:
        sys.exit("usage: python tests/durations.py [--merge] PYTEST_OUTPUT")
    figures = from_output(Path(paths[0]).read_text(encoding="utf-8"))
    if not figures:
        sys.exit(f"{paths[0]}: no durations found (run pytest with --durations=0)")
    # --merge: the files of this output replace theirs; every other file keeps its figure.
    written = {**load(), **figures} if merge else figures
    HINT.write_text(json.dumps(dict(sorted(written.items())), indent=0) + "\n", encoding="utf-8")
    print(f"{HINT}: {len(figures)} files measured, {len(written)} in the hint")


if __name__ == "__main__":
    main(sys.argv[1:])
