"""The sweep's own process pool never forks a process whose other threads may hold a lock.

A forked child keeps every lock as it was at the fork. The window runs a sweep on a worker
thread while another thread computes the open design's figures through the content caches: a
child forked while that thread held a cache's lock waited on it forever, and the sweep with it.
"""

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from designer.model.decisions.design_space import pool_context

ROOT = Path(__file__).resolve().parents[1]

# Another thread holds the derivation cache's lock for the whole sweep; every point the workers
# evaluate derives its design through that cache.
_HELD_LOCK_SWEEP = textwrap.dedent("""
    import threading
    from designer.model.decisions.design_space import SweepSpec, run_sweep
    from designer.model.topology import derive

    held, release = threading.Event(), threading.Event()

    def hold():
        with derive._CACHE._lock:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    spec = SweepSpec(gpus=256, technologies=("ib-ndr", "roce-400g"), oversubscriptions=(1.0, 2.0, 3.0, 4.0),
                     planes=(1, 2))   # two tasks: the pool runs
    pooled = run_sweep(spec, workers=2)
    release.set()
    holder.join()
    alone = run_sweep(spec, workers=1)
    print(len(pooled.points), pooled.points == alone.points)
""")


def test_a_sweep_started_while_another_thread_holds_a_cache_lock_finishes():
    # The timeout only turns a deadlock into a failure instead of a hung test run.
    run = subprocess.run([sys.executable, "-c", _HELD_LOCK_SWEEP], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["16", "True"]


def test_a_worker_thread_never_forks_the_pool():
    chosen = []
    thread = threading.Thread(target=lambda: chosen.append(pool_context().get_start_method()))
    thread.start()
    thread.join()
    assert len(chosen) == 1 and chosen[0] != "fork"
