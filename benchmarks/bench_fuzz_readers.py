"""The capture and rate-table fuzz suite (tests/test_fuzz_readers.py), run long.

Runs the suite in a child process with FUZZ_EXAMPLES per reader (2,000 unless given as the first
argument) and prints the cases, how many were read and how many refused, the crashes (failed
tests: a traceback or a wrong exception type), the slowest case and the peak memory.
Target: no crash, no case over one second, peak memory under 300 MB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        tally = Path(tmp) / "tally.json"
        env = dict(os.environ, FUZZ_EXAMPLES=str(examples), FUZZ_TALLY=str(tally), QT_QPA_PLATFORM="offscreen")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_fuzz_readers.py"], cwd=ROOT, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        figures = json.loads(tally.read_text()) if tally.exists() else {}
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
    crashes = 0 if done.returncode == 0 else summary.count("failed") and int(summary.split(" failed")[0].split()[-1])
    print(f"capture and rate-table readers, {examples:,} examples per reader, {elapsed:.0f} s:")
    print(f"  cases {figures.get('cases', 0):,}   read {figures.get('read', 0):,}   "
          f"refused in one line {figures.get('refused', 0):,}   crashes {crashes}   "
          f"slowest {figures.get('slowest_ms', 0):,} ms   peak {peak_mb:.0f} MB")
    print(f"  pytest: {summary}")
    ok = crashes == 0 and figures.get("slowest_ms", 0) < 1000 and peak_mb < 300
    print("target (no crash, every case under 1 s, under 300 MB):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
